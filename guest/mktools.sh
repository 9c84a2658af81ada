#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's tool tree: what the test suites of other projects need
# and busybox does not give (bash, GNU coreutils, gawk, util-linux, python3
# with its standard library), copied from this machine's Debian packages
# (make deps installs them) with the shared libraries they link against,
# and the suites themselves (SUITE...: directories copied to suites/).
# A guest started with tools=True mounts the tree read-only over 9p at
# /opt/tools (harness/vm.py); nothing of it is in the initramfs, which every
# guest decompresses.  The programs are copied again only when the packages
# or this script changed; the suites every time.
# usage: mktools.sh OUTPUT SUITE...
. "$(dirname "$0")/../scripts/common.sh"

out=$1
shift
# gzip, kmod and udev for blktests' ./check: zgrep reads /proc/config.gz
# (_have_kernel_option), modprobe is asked whether it can --wait, and
# udevadm is among the commands it checks for before it runs.
PACKAGES=(bash coreutils gawk grep sed findutils diffutils util-linux bsdextrautils ncurses-bin
	  libc-bin gzip kmod udev python3.11-minimal libpython3.11-minimal libpython3.11-stdlib)

# A package's path as it lies under /usr (bookworm merged /bin, /sbin and
# /lib into /usr; dpkg still lists the old paths).
usr_path() {
	case $1 in
	/usr/*) echo "$1" ;;
	*) echo "/usr$1" ;;
	esac
}

# Programs go to DIR/usr/bin; DIR/usr/lib keeps what the packages put there
# (python's standard library); set-id programs are left out.
copy_packages() {
	local dir=$1 pkg path dest
	mkdir -p "$dir/usr/bin" "$dir/usr/lib"
	for pkg in "${PACKAGES[@]}"; do
		dpkg -L "$pkg" | while read -r path; do
			if [ ! -f "$path" ] || [ -u "$path" ] || [ -g "$path" ]; then
				continue
			fi
			case $path in
			*/bin/* | */sbin/*) dest=$dir/usr/bin/${path##*/} ;;
			/lib/* | /usr/lib/*) dest=$dir$(usr_path "$path") ;;
			*) continue ;;
			esac
			mkdir -p "${dest%/*}"
			cp -L "$path" "$dest"
		done
	done
	# python3 is python3.11 (the link is in the package python3, which
	# brings more than the interpreter).
	ln -s python3.11 "$dir/usr/bin/python3"

	# The shared libraries of every program and python module, by their
	# loader's name, into usr/lib; ldd fails on the scripts among them.
	{ find "$dir/usr" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
		xargs -0 ldd 2>/dev/null || true; } | grep -o '=> /[^ ]*' | cut -c4- | sort -u |
		while read -r lib; do
			if [ ! -e "$dir/usr/lib/${lib##*/}" ]; then
				cp -L "$lib" "$dir/usr/lib/"
			fi
		done
}

dpkg-query -W "${PACKAGES[@]}" >/dev/null 2>&1 ||
	die "a package of the guest's tools is missing (${PACKAGES[*]}): run make deps"
stamp="$(dpkg-query -W "${PACKAGES[@]}") $(sha1sum <"$0")"
if [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ]; then
	note "copying the guest's tools from ${#PACKAGES[@]} packages into ${out#"$TOP"/}"
	rm -rf "$out.tmp" "$out"
	copy_packages "$out.tmp"
	echo "$stamp" >"$out.tmp/.stamp"
	mv "$out.tmp" "$out"
fi

rm -rf "$out/suites"
mkdir -p "$out/suites"
for suite in "$@"; do
	cp -a "$suite" "$out/suites/"
done
