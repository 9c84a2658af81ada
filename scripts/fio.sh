#!/usr/bin/env bash
# make fio: Debian's fio 3.33 source (apt-get source) in build/fio as a git
# repository, the series in fio-engine/ applied on top as commits (git am),
# built in place to build/fio/fio.  Incremental: nothing is fetched again,
# the series is re-applied only when fio-engine/ changed, and fio's own
# Makefile rebuilds only what changed.
. "$(dirname "$0")/common.sh"

FIO_DEB=$BUILD/fio-deb          # what apt-get source fetched
FIO_VERSION=3.33                # the host's fio must be the same for shared verify data
JOBS=${JOBS:-$(nproc)}
# A fio for the guest: no -march=native (TCG's CPU is not the host's), no
# System V shared memory (the guest kernel has none: jobs run as threads),
# and none of the optional libraries, so the initramfs stays small.
CONFIGURE_OPTS=(--disable-native --disable-numa --disable-rdma --disable-rados
		--disable-rbd --disable-http --disable-gfapi --disable-pmem
		--disable-xnvme --disable-libzbc --disable-tcmalloc --disable-dfs
		--disable-libnfs --disable-shm)

unpack_base() {
	local tmp=$BUILD/fio.tmp src
	note "fetching Debian's fio source (apt-get source fio)"
	rm -rf "$FIO_DEB" "$tmp"
	mkdir -p "$FIO_DEB"
	(cd "$FIO_DEB" && apt-get source fio) >"$LOGS/fio-source.log" 2>&1 || {
		tail -5 "$LOGS/fio-source.log" >&2
		die "apt-get source fio failed (a deb-src entry is needed: run make deps)"
	}
	src=$FIO_DEB/fio-$FIO_VERSION
	[ -d "$src" ] || die "apt-get source did not unpack fio $FIO_VERSION: $(cd "$FIO_DEB" && echo fio-*/)"
	cp -a "$src" "$tmp"
	# dpkg-source's quilt state is not part of the source
	rm -rf "$tmp/.pc"
	series_init_base "$tmp" "$FIO_BASE_TAG" \
		"Debian fio $(cd "$FIO_DEB" && ls fio_*.dsc | sed 's/^fio_\(.*\)\.dsc$/\1/') source" "$FIO_SRC"
}

series_tree "$FIO_SRC" "$FIO_BASE_TAG" "$FIO_PATCHES" "make fio-export" unpack_base

# configure again only when its options (or compiler) change; fio's
# Makefile re-runs it by itself when a patch touches configure.
export CC="ccache gcc"
stamp="$CC ${CONFIGURE_OPTS[*]}"
if [ ! -f "$FIO_SRC/config-host.mak" ] || [ "$(cat "$FIO_SRC/.git/vblk-configure" 2>/dev/null)" != "$stamp" ]; then
	note "configuring fio (log: build/logs/fio-configure.log)"
	(cd "$FIO_SRC" && ./configure --cc="$CC" "${CONFIGURE_OPTS[@]}") >"$LOGS/fio-configure.log" 2>&1 ||
		die "fio's configure failed: see build/logs/fio-configure.log"
	echo "$stamp" >"$FIO_SRC/.git/vblk-configure"
fi
note "building fio (log: build/logs/fio.log)"
if ! make -C "$FIO_SRC" -j"$JOBS" CC="$CC" fio >"$LOGS/fio.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/fio.log" | head -40 >&2
	die "fio build failed: see build/logs/fio.log"
fi
