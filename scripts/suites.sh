#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The other projects' tests that make test runs in the guest, in
# build/suites/ (guest/mktools.sh puts them in the guest's tool tree):
#   blktests/  blktests master with this project's series (blktests/;
#              build/blktests-master, scripts/upstream.sh), built by its own
#              make against the guest's liburing (LIBURING_VERSION, static)
#              and laid out by its make install: ./check, common/, tests/
#              and src/'s programs
#   liburing/  liburing master with this project's series (liburing/;
#              build/liburing-master), configured and built by its own
#              configure and make, static, against the guest kernel's UAPI
#              headers: its library, its test runner (runtests.sh) and
#              the test the series adds
#   fio-t/     fio master's t/ scripts (build/fio, scripts/fio.sh), among
#              them t/io_uring_cmd.py with the series' cmd_type=vblk, which
#              test 102 runs as t/run-fio-tests.py's test 1026 does
# The masters come from the snapshots their series are based on
# (../shared/upstream/), and are rebuilt only where they changed.
. "$(dirname "$0")/common.sh"

SUITES=$BUILD/suites
JOBS=${JOBS:-$(nproc)}
LIBURING_PREFIX=$BUILD/liburing/prefix
export CC="ccache gcc" CXX="ccache g++"
# The guest kernel's UAPI headers, which both suites build against (the
# node's header among them), copied to one path whichever kernel variant
# installed them (the same series gives the same headers), and only when
# they changed: make test DEBUG=1 after make test builds nothing again.
# A change builds both suites again.
SUITES_UAPI=$BUILD/suites-uapi
if ! diff -rq "$UAPI" "$SUITES_UAPI" >/dev/null 2>&1; then
	rm -rf "$SUITES_UAPI"
	cp -a "$UAPI" "$SUITES_UAPI"
fi
uapi_stamp=$(cd "$SUITES_UAPI" && find . -type f -print0 | sort -z | xargs -0 sha1sum | sha1sum)

# Run make in TREE with ARGS..., its output in build/logs/NAME.log.
make_logged() {
	local tree=$1 log=$LOGS/$2.log
	shift 2
	if ! make -C "$tree" "$@" >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -40 >&2
		die "make $* in ${tree#"$TOP"/} failed: see ${log#"$TOP"/}"
	fi
}

# Whether the build settings of TREE are still STAMP: if not, record them
# and return 1 (the tree is to be built from scratch).
same_settings() {
	[ "$(cat "$1/.git/vblk-build" 2>/dev/null)" = "$2" ] && return 0
	echo "$2" >"$1/.git/vblk-build"
	return 1
}

build_blktests() {
	local tree=$BUILD/blktests-master
	local -a args=(CC="$CC" CXX="$CXX"
		       CFLAGS="-I$LIBURING_PREFIX/include -isystem $SUITES_UAPI"
		       LDFLAGS="-static -L$LIBURING_PREFIX/lib")

	"$TOP/scripts/upstream.sh" blktests
	: >"$LOGS/blktests-master.log"
	same_settings "$tree" "${args[*]} $uapi_stamp $(sha1sum <"$LIBURING_PREFIX/lib/liburing.a")" ||
		make_logged "$tree" blktests-master clean
	note "building blktests master (log: build/logs/blktests-master.log)"
	make_logged "$tree" blktests-master -j"$JOBS" "${args[@]}"
	[ -x "$tree/src/vblk-uring-cmd" ] || die "blktests' make did not build src/vblk-uring-cmd"
	rm -rf "$SUITES/blktests"
	make_logged "$tree" blktests-master "${args[@]}" prefix="$SUITES" install
}

build_liburing() {
	local tree=$BUILD/liburing-master
	local -a args=(ENABLE_SHARED=0 CPPFLAGS="-isystem $SUITES_UAPI" LDFLAGS=-static)

	"$TOP/scripts/upstream.sh" liburing
	: >"$LOGS/liburing-master.log"
	# configure again when its settings change; liburing's Makefile runs
	# it again by itself when a patch touches configure
	if ! same_settings "$tree" "$CC $CXX $uapi_stamp" || [ ! -f "$tree/config-host.mak" ]; then
		note "configuring liburing master (log: build/logs/liburing-master.log)"
		make_logged "$tree" liburing-master clean
		(cd "$tree" && CFLAGS="-isystem $SUITES_UAPI" ./configure --cc="$CC" --cxx="$CXX") \
			>>"$LOGS/liburing-master.log" 2>&1 ||
			die "liburing's configure failed: see build/logs/liburing-master.log"
	fi
	grep -q '^CONFIG_HAVE_VBLK_URING=y' "$tree/config-host.mak" ||
		die "liburing's configure did not find <linux/virtio_blk_uring_cmd.h> in ${SUITES_UAPI#"$TOP"/}"
	note "building liburing master (log: build/logs/liburing-master.log)"
	# its library, then of its tests the one the series adds, by its
	# test/Makefile's own rule (all ~260 would double a cold build)
	make_logged "$tree/src" liburing-master -j"$JOBS" "${args[@]}"
	make_logged "$tree/test" liburing-master "${args[@]}" vblk-passthrough.t
	rm -rf "$SUITES/liburing"
	mkdir -p "$SUITES/liburing"
	cp "$tree/test/runtests.sh" "$tree/test/vblk-passthrough.t" "$SUITES/liburing/"
}

mkdir -p "$SUITES" "$LOGS"
build_blktests
build_liburing

rm -rf "$SUITES/fio-t"
mkdir -p "$SUITES/fio-t/t"
cp "$FIO_SRC"/t/*.py "$SUITES/fio-t/t/"
