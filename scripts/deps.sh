#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deps: install the Debian packages in scripts/debian-packages, and
# download into build/dl/ what bookworm does not have: the kernel base
# (linux-source-7.3 from trixie-backports), liburing 2.15 and
# sparse 0.6.5~rc1 (the sources in sid), and the source of the QEMU that runs the guests, whose
# plugin API header the instruction-counting plugin is built with.  Those come through a private apt configuration under
# build/apt/ that only ever downloads: nothing from another suite is
# installed, and the machine's apt configuration is left as it is.
# Idempotent, and quick when everything is already there.
. "$(dirname "$0")/common.sh"

DL=$BUILD/dl
APT_DIR=$BUILD/apt
# The kernel base: only the tarball of the package (and its changelog, which
# says what it is) is kept; scripts/src.sh unpacks it.
KERNEL_PKG=linux-source-7.3
KERNEL_VERSION=7.3.4-1~bpo13+1
# Source packages, as apt-get source names them (versions: common.sh).
LIBURING_SOURCE=liburing=$LIBURING_VERSION-1
SPARSE_SOURCE=sparse=$SPARSE_VERSION-2

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

# The machine's packages.
install_packages() {
	local wanted missing log

	mapfile -t wanted < <(grep -v -e '^#' -e '^$' "$TOP/scripts/debian-packages")
	# one dpkg-query for all: installed ones print "ii ", unknown ones nothing
	mapfile -t missing < <(comm -23 <(printf '%s\n' "${wanted[@]}" | sort -u) \
		<(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${wanted[@]}" 2>/dev/null |
		  awk '$1 == "ii" { print $2 }' | sort -u))
	[ ${#missing[@]} -gt 0 ] || return 0

	note "installing: ${missing[*]}"
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -q >"$log" 2>&1 || true
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1 || {
		tail -20 "$log" >&2
		die "apt-get install failed"
	}
	rm -f "$log"
}

# apt-get with the private configuration: its own sources, lists and cache.
apt_private() {
	apt-get -q -o Dir::Etc::SourceList="$APT_DIR/sources.list" \
		-o Dir::Etc::SourceParts="$APT_DIR/sources.list.d" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::Cache="$APT_DIR/cache" \
		-o Acquire::Languages=none "$@"
}

# Set up the private configuration and fetch its indexes.  Its mirror is
# the one this machine's apt uses for bookworm.
apt_private_update() {
	local mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg

	# shellcheck disable=SC2016 # apt's $(FIELD)s, not the shell's
	mirror=$(apt-get indextargets --format '$(SITE) $(TARGET_OF) $(RELEASE) $(COMPONENT)' |
		awk '$2 == "deb" && $3 == "bookworm" && $4 == "main" { print $1; exit }')
	[ -n "$mirror" ] || die "apt has no 'deb bookworm main' entry to take the mirror from"
	mkdir -p "$APT_DIR"/{sources.list.d,lists/partial,cache/archives/partial}
	cat >"$APT_DIR/sources.list" <<-SOURCES
	deb [signed-by=$keyring] $mirror trixie-backports main
	deb-src [signed-by=$keyring] $mirror sid main
	deb-src [signed-by=$keyring] $mirror bookworm main
	SOURCES
	note "fetching the trixie-backports, sid and bookworm source indexes into ${APT_DIR#"$TOP"/}/"
	apt_private update >"$LOGS/apt-update.log" 2>&1 || {
		tail -20 "$LOGS/apt-update.log" >&2
		die "apt-get update of the private configuration failed (build/logs/apt-update.log)"
	}
}

# Run a download command (apt_private ...) in a scratch directory; when it
# succeeded, move what it fetched to build/dl/, the files matching LAST (a
# glob) after the others, so that they say the download is complete.
download() {
	local what=$1 last=$2 tmp=$DL/tmp f
	shift 2
	rm -rf "$tmp"
	mkdir -p "$tmp"
	note "downloading $what"
	(cd "$tmp" && "$@") >"$LOGS/dl-${what%%=*}.log" 2>&1 || {
		tail -20 "$LOGS/dl-${what%%=*}.log" >&2
		die "downloading $what failed (build/logs/dl-${what%%=*}.log)"
	}
	for f in "$tmp"/*; do
		# shellcheck disable=SC2053 # $last is a glob
		[[ ${f##*/} == $last ]] || mv "$f" "$DL/"
	done
	mv "$tmp"/* "$DL/"
	rmdir "$tmp"
}

# The kernel base's tarball, then its changelog, out of the binary package
# (downloaded to build/dl/tmp and removed).
fetch_kernel() {
	local deb tmp=$DL/tmp doc=./usr/share/doc/$KERNEL_PKG

	download "$KERNEL_PKG=$KERNEL_VERSION" '*.deb' apt_private download "$KERNEL_PKG=$KERNEL_VERSION"
	deb=$(echo "$DL/${KERNEL_PKG}_"*.deb)
	mkdir -p "$tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp" "./usr/src/$KERNEL_PKG.tar.xz" \
		"$doc/changelog.Debian.gz" || die "$deb does not hold $KERNEL_PKG.tar.xz"
	mv "$tmp/usr/src/$KERNEL_PKG.tar.xz" "$DL/"
	mv "$tmp/$doc/changelog.Debian.gz" "$DL/$KERNEL_PKG.changelog.Debian.gz"
	rm -rf "$tmp" "$deb"
}

install_packages

# QEMU's source as the installed QEMU was built from it (the binNMU suffix
# of the binary's version is not the source's); its orig tarball holds the
# plugin API header.
qemu_version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
QEMU_SOURCE=qemu=$qemu_version
qemu_version=${qemu_version#*:}
qemu_orig=$DL/qemu_${qemu_version%-*}.orig.tar.

# Each download, by the file that is there once it is complete.
liburing_dsc=$DL/${LIBURING_SOURCE%%=*}_${LIBURING_SOURCE#*=}.dsc
sparse_orig=$DL/sparse_$SPARSE_VERSION.orig.tar.
kernel_done=$DL/$KERNEL_PKG.changelog.Debian.gz
[ -f "$DL/$KERNEL_PKG.tar.xz" ] || rm -f "$kernel_done"
if [ -f "$kernel_done" ] && [ -f "$liburing_dsc" ] &&
   compgen -G "$sparse_orig*" >/dev/null && compgen -G "$qemu_orig*" >/dev/null; then
	exit 0
fi

mkdir -p "$DL" "$LOGS"
apt_private_update
[ -f "$kernel_done" ] || fetch_kernel
[ -f "$liburing_dsc" ] ||
	download "$LIBURING_SOURCE" '*.dsc' apt_private source --download-only "$LIBURING_SOURCE"
compgen -G "$sparse_orig*" >/dev/null ||
	download "$SPARSE_SOURCE" '*.orig.tar.*' apt_private source --download-only --tar-only "$SPARSE_SOURCE"
compgen -G "$qemu_orig*" >/dev/null ||
	download "$QEMU_SOURCE" '*.orig.tar.*' apt_private source --download-only --tar-only "$QEMU_SOURCE"
