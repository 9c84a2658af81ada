#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make liburing: liburing LIBURING_VERSION (sid's source, which make deps
# downloads to build/dl/) built as a static library for the guest programs:
# headers and liburing.a in build/liburing/prefix.  bookworm's liburing-dev
# is 2.3, older than the kernel the guest runs.  The Makefile runs this only
# when liburing.a is missing or older than this script or common.sh; each
# run builds afresh.
. "$(dirname "$0")/common.sh"

TARBALL=$BUILD/dl/liburing_$LIBURING_VERSION.orig.tar.gz
DIR=$BUILD/liburing
SRC=$DIR/liburing-$LIBURING_VERSION
PREFIX=$DIR/prefix
JOBS=${JOBS:-$(nproc)}

[ -f "$TARBALL" ] || die "$TARBALL is missing: run make deps"
rm -rf "$DIR"
mkdir -p "$DIR" "$LOGS"
tar -xzf "$TARBALL" -C "$DIR"
[ -d "$SRC" ] || die "$TARBALL did not unpack to ${SRC#"$TOP"/}"

note "building liburing $LIBURING_VERSION (log: build/logs/liburing.log)"
# ENABLE_SHARED=0: the guest programs link statically, so only the archive
# is built and installed with the headers.
if ! (cd "$SRC" && ./configure --prefix="$PREFIX" --cc="ccache gcc" &&
      make -C src -j"$JOBS" ENABLE_SHARED=0 install) >"$LOGS/liburing.log" 2>&1; then
	tail -20 "$LOGS/liburing.log" >&2
	die "liburing build failed: see build/logs/liburing.log"
fi
[ -f "$PREFIX/lib/liburing.a" ] || die "liburing's install left no ${PREFIX#"$TOP"/}/lib/liburing.a"
