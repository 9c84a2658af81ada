#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fio / make fio-master: fio with the cmd_type=vblk series, built in
# place (the series defines the passthrough command itself, as fio does
# NVMe's, so no kernel header is needed).
#   fio.sh          the guest's fio: fio FIO_VERSION (sid's upstream tarball,
#                   which make deps downloads to build/dl/) in build/fio, with
#                   the series' port to that version (fio-engine/3.41/)
#   fio.sh master   the series itself (fio-engine/) on fio's master branch:
#                   a commit (FIO_MASTER_REV, default HEAD) of the fio git
#                   repository FIO_MASTER, in build/fio-master
# Each tree is a git repository: the base as one commit tagged fio-base, the
# series on top as commits (git am; scripts/series.sh).  Incremental: the
# base is imported once, the series re-applied only when it changed, and
# fio's own Makefile rebuilds only what changed.
. "$(dirname "$0")/common.sh"

JOBS=${JOBS:-$(nproc)}
# A fio for the guest: no -march=native (TCG's CPU is not the host's), no
# System V shared memory (the guest kernel has none: jobs run as threads),
# and none of the optional libraries, so the initramfs stays small.
CONFIGURE_OPTS=(--disable-native --disable-numa --disable-rdma --disable-rados
		--disable-rbd --disable-http --disable-gfapi --disable-pmem
		--disable-xnvme --disable-libzbc --disable-tcmalloc --disable-dfs
		--disable-libnfs --disable-shm)

unpack_release() {
	local tarball=$BUILD/dl/fio_$FIO_VERSION.orig.tar.gz tmp=$BUILD/fio.tmp
	[ -f "$tarball" ] || die "$tarball is missing: run make deps"
	note "unpacking fio $FIO_VERSION into ${FIO_SRC#"$TOP"/}"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xzf "$tarball" -C "$tmp" --strip-components=1
	series_init_base "$tmp" "$FIO_BASE_TAG" "fio $FIO_VERSION (${tarball##*/})" "$FIO_SRC"
}

unpack_master() {
	[ -n "${FIO_MASTER:-}" ] ||
		die "make fio-master needs FIO_MASTER=<a git repository of fio> (and FIO_MASTER_REV=<commit>, default HEAD)"
	series_init_from_git "$FIO_MASTER" "${FIO_MASTER_REV:-HEAD}" "$FIO_BASE_TAG" fio "$FIO_MASTER_SRC"
}

case "${1:-release}" in
release)
	series_tree "$FIO_SRC" "$FIO_BASE_TAG" "$FIO_PORT" "make fio-export" unpack_release
	tree=$FIO_SRC
	;;
master)
	series_tree "$FIO_MASTER_SRC" "$FIO_BASE_TAG" "$FIO_PATCHES" "make fio-master-export" unpack_master
	tree=$FIO_MASTER_SRC
	;;
*)
	die "usage: fio.sh [release|master]"
	;;
esac
name=${tree##*/}

# configure again only when its options or compiler change; fio's Makefile
# re-runs it by itself when a patch touches configure.
export CC="ccache gcc"
stamp="$CC ${CONFIGURE_OPTS[*]}"
if [ ! -f "$tree/config-host.mak" ] || [ "$(cat "$tree/.git/vblk-configure" 2>/dev/null)" != "$stamp" ]; then
	note "configuring $name (log: build/logs/$name-configure.log)"
	(cd "$tree" && ./configure --cc="$CC" "${CONFIGURE_OPTS[@]}") >"$LOGS/$name-configure.log" 2>&1 ||
		die "fio's configure failed: see build/logs/$name-configure.log"
	echo "$stamp" >"$tree/.git/vblk-configure"
fi
note "building $name (log: build/logs/$name.log)"
if ! make -C "$tree" -j"$JOBS" CC="$CC" fio >"$LOGS/$name.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/$name.log" | head -40 >&2
	die "fio build failed: see build/logs/$name.log"
fi
"$tree/fio" --parse-only --name=probe --ioengine=io_uring_cmd --cmd_type=vblk \
	--filename=/dev/null >/dev/null 2>&1 || die "$name takes no cmd_type=vblk: is the series applied?"
