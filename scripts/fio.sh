#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fio: fio master with the cmd_type=vblk series (fio-engine/), built in
# place in build/fio: the guest's fio, and the host's that verifies what it
# writes.  scripts/upstream.sh makes the tree: the snapshot of fio master
# the series is based on (../shared/upstream/), or a commit (FIO_MASTER_REV,
# default HEAD) of a fio git repository FIO_MASTER, as one commit tagged
# upstream-base, the series on top as commits.  Incremental: the base is
# imported once, the series re-applied only when it changed, and fio's own
# Makefile rebuilds only what changed.
. "$(dirname "$0")/common.sh"

JOBS=${JOBS:-$(nproc)}
# A fio for the guest: no -march=native (TCG's CPU is not the host's), no
# System V shared memory (the guest kernel has none: jobs run as threads),
# and none of the optional libraries, so the initramfs stays small.
CONFIGURE_OPTS=(--disable-native --disable-numa --disable-rdma --disable-rados
		--disable-rbd --disable-http --disable-gfapi --disable-pmem
		--disable-xnvme --disable-libzbc --disable-tcmalloc --disable-dfs
		--disable-libnfs --disable-shm)

"$TOP/scripts/upstream.sh" fio "${FIO_MASTER:-}" "${FIO_MASTER_REV:-HEAD}"
tree=$FIO_SRC
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
