#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make sparse: sparse SPARSE_VERSION (sid's source, which make deps downloads
# to build/dl/) for make check, as the one program $SPARSE.  The kernel's
# scripts/checker-valid.sh refuses bookworm's sparse, and kbuild then skips
# the check without failing.  The Makefile runs this only when $SPARSE is
# missing or older than this script or common.sh; each run builds afresh.
. "$(dirname "$0")/common.sh"

DIR=$(dirname "$SPARSE")
JOBS=${JOBS:-$(nproc)}
tarball=$(compgen -G "$BUILD/dl/sparse_$SPARSE_VERSION.orig.tar.*" | head -n 1) ||
	die "sparse $SPARSE_VERSION's source is missing from build/dl: run make deps"

rm -rf "$DIR"
mkdir -p "$DIR/src" "$LOGS"
tar -xf "$tarball" -C "$DIR/src" --strip-components=1

note "building sparse $SPARSE_VERSION (log: build/logs/sparse.log)"
# Only the checker: its other programs want libraries make deps does not install.
if ! make -C "$DIR/src" -j"$JOBS" CC="ccache gcc" sparse >"$LOGS/sparse.log" 2>&1; then
	tail -20 "$LOGS/sparse.log" >&2
	die "sparse build failed: see build/logs/sparse.log"
fi
mv "$DIR/src/sparse" "$SPARSE.new"
rm -rf "$DIR/src"
sparse_accepted "$SPARSE.new" ||
	die "the kernel's scripts/checker-valid.sh refuses sparse $SPARSE_VERSION"
mv "$SPARSE.new" "$SPARSE"
