#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's initramfs: busybox, guest/init, the kernel's modules and
# the given programs (with the shared libraries they link against).
# usage: mkinitramfs.sh OUTPUT MODROOT PROGRAM...
. "$(dirname "$0")/../scripts/common.sh"

out=$1 modroot=$2
shift 2
root=${out%.cpio.gz}.d
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,root,home/user}

install -m 0755 "$(command -v busybox)" "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
install -m 0755 "$TOP/guest/init" "$root/init"
cp -a "$modroot/lib/modules" "$root/lib/"

# Programs go to /usr/bin, with any shared libraries they need.
for prog in "$@"; do
	install -m 0755 "$prog" "$root/usr/bin/"
	for lib in $(ldd "$prog" 2>/dev/null | grep -o '/[^ ]*' || true); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:unprivileged test user:/home/user:/bin/sh
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
user:x:1000:
GROUP
chown 1000:1000 "$root/home/user"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
