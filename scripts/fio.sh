#!/usr/bin/env bash
# make fio: Debian's fio 3.33 source (apt-get source) in build/fio as a git
# repository, the series in fio-engine/ applied on top as commits (git am),
# built in place to build/fio/fio.  Incremental: nothing is fetched again,
# the series is re-applied only when fio-engine/ changed, and fio's own
# Makefile rebuilds only what changed.
. "$(dirname "$0")/common.sh"

FIO_SRC=$BUILD/fio              # base + series, a git repository; fio is built here
FIO_DEB=$BUILD/fio-deb          # what apt-get source fetched
FIO_VERSION=3.33                # the host's fio must be the same for shared verify data
FIO_BASE_TAG=fio-base           # not fio-N.N: FIO-VERSION-GEN would pick it up
FIO_PATCHES=$TOP/fio-engine
FIO_SERIES=$FIO_PATCHES/series
SYNC_FILE=$FIO_SRC/.git/vblk-sync   # "<series digest> <HEAD>" after the last sync
JOBS=${JOBS:-$(nproc)}
# A fio for the guest: no -march=native (TCG's CPU is not the host's), no
# System V shared memory (the guest kernel has none: jobs run as threads),
# and none of the optional libraries, so the initramfs stays small.
CONFIGURE_OPTS=(--disable-native --disable-numa --disable-rdma --disable-rados
		--disable-rbd --disable-http --disable-gfapi --disable-pmem
		--disable-xnvme --disable-libzbc --disable-tcmalloc --disable-dfs
		--disable-libnfs --disable-shm)

fio_git() {
	git -C "$FIO_SRC" "$@"
}

fio_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$FIO_SERIES" || true
}

fio_digest() {
	(cat "$FIO_SERIES"; fio_patches | while read -r p; do cat "$FIO_PATCHES/$p"; done) |
		sha256sum | cut -d' ' -f1
}

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
	git -C "$tmp" init -q
	git -C "$tmp" config user.name "$(git -C "$TOP" config user.name || echo 'vblk build')"
	git -C "$tmp" config user.email "$(git -C "$TOP" config user.email || echo 'build@localhost')"
	git -C "$tmp" config gc.auto 0
	# dpkg-source's quilt state is not part of the source.
	echo /.pc/ >>"$tmp/.git/info/exclude"
	git -C "$tmp" add -A
	git -C "$tmp" commit -q -m "Debian fio $(cd "$FIO_DEB" && ls fio_*.dsc | sed 's/^fio_\(.*\)\.dsc$/\1/') source"
	git -C "$tmp" tag "$FIO_BASE_TAG"
	mv "$tmp" "$FIO_SRC"
}

apply_series() {
	local p
	fio_git reset -q --hard "$FIO_BASE_TAG"
	for p in $(fio_patches); do
		[ -f "$FIO_PATCHES/$p" ] || die "fio-engine/series names $p, which does not exist"
		if ! fio_git am -q "$FIO_PATCHES/$p" >"$LOGS/fio-am.log" 2>&1; then
			fio_git am --abort >/dev/null 2>&1 || true
			# back to the base: the next make fio applies the series again
			fio_git reset -q --hard "$FIO_BASE_TAG"
			echo "none $(fio_git rev-parse HEAD)" >"$SYNC_FILE"
			cat "$LOGS/fio-am.log" >&2
			die "fio-engine/$p does not apply to Debian's fio $FIO_VERSION (see above)"
		fi
	done
	echo "$(fio_digest) $(fio_git rev-parse HEAD)" >"$SYNC_FILE"
	note "applied $(fio_patches | wc -l) patch(es) from fio-engine/ to fio $FIO_VERSION"
}

# True when the tree's commits on top of the base are exactly fio-engine/:
# they were written there (git format-patch, see fio-engine/README.md).
tree_is_series() {
	local tmp=$BUILD/fio-series-check p same=true
	rm -rf "$tmp"
	mkdir -p "$tmp"
	fio_git format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$tmp" "$FIO_BASE_TAG..HEAD"
	[ "$(ls "$tmp")" = "$(fio_patches)" ] || same=false
	for p in $(ls "$tmp"); do
		cmp -s "$tmp/$p" "$FIO_PATCHES/$p" || same=false
	done
	rm -rf "$tmp"
	$same
}

[ -f "$FIO_SERIES" ] || die "$FIO_SERIES is missing"
mkdir -p "$BUILD" "$LOGS"
if [ ! -d "$FIO_SRC/.git" ]; then
	unpack_base
	apply_series
else
	# Like make src: never throw away work done in the tree.
	[ -z "$(fio_git status --porcelain --untracked-files=no)" ] ||
		die "build/fio has uncommitted changes: commit them there and write them to fio-engine/ (see fio-engine/README.md), or discard them"
	read -r synced_digest synced_head <"$SYNC_FILE" ||
		die "$SYNC_FILE missing: remove build/fio and run make fio"
	digest=$(fio_digest)
	head=$(fio_git rev-parse HEAD)
	if [ "$digest" = "$synced_digest" ] && [ "$head" = "$synced_head" ]; then
		:	# in sync: the common case, and a quick one
	elif tree_is_series; then
		# commits made in build/fio and written to fio-engine/
		echo "$digest $head" >"$SYNC_FILE"
	elif [ "$head" = "$synced_head" ]; then
		note "fio-engine/ changed: re-applying the series"
		apply_series
	elif [ "$digest" = "$synced_digest" ]; then
		die "build/fio has commits that are not in fio-engine/: write them there (see fio-engine/README.md)"
	else
		die "both fio-engine/ and build/fio changed since the last sync: export or drop the tree's commits first"
	fi
fi

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
