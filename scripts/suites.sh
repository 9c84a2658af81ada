#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The other projects' tests that make test runs in the guest, in
# build/suites/ (guest/mktools.sh puts them in the guest's tool tree):
#   blktests/  the cases of this project's blktests series (blktests/),
#              their program built against the guest's liburing, and
#              guest/blktests/, which runs them as blktests would
#   liburing/  the test of this project's liburing series (liburing/), built
#              as liburing builds its tests, against the guest's liburing
#              (LIBURING_VERSION, with that release's test helpers)
#   fio-t/     the guest's fio's t/ test of io_uring_cmd (t/nvmept.py in
#              fio 3.41, which the port gives cmd_type=vblk: build/fio)
#              with the fio test library it imports
. "$(dirname "$0")/common.sh"

SUITES=$BUILD/suites
rm -rf "$SUITES/fio-t"
LIBURING_PREFIX=$BUILD/liburing/prefix

# A new suite directory NAME holding the files that the series in SERIES
# (a directory of this repository) adds and whose paths match the globs
# INCLUDE...: written out of the patches, as neither project is there to
# apply them to (its files the series changes are left out).
suite_from_series() {
	local dir=$SUITES/$1 series=$TOP/$2 p
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$dir" init -q
	for p in $(series_patches "$series"); do
		git -C "$dir" apply "${@/#/--include=}" "$series/$p" ||
			die "${series#"$TOP"/}/$p: its new files did not apply"
	done
	rm -rf "$dir/.git"
}

suite_from_series blktests blktests 'tests/*' 'src/*.c'
cp -a "$TOP/guest/blktests/." "$SUITES/blktests/"
gcc -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -static -I"$LIBURING_PREFIX/include" \
	-o "$SUITES/blktests/src/vblk-uring-cmd" "$SUITES/blktests/src/vblk-uring-cmd.c" \
	-L"$LIBURING_PREFIX/lib" -luring

suite_from_series liburing liburing 'test/*.c'
# liburing's own flags for its tests: its helpers are not -Wsign-compare clean.
# The guest kernel's UAPI has the header liburing's configure looks for
# (CONFIG_HAVE_VBLK_URING): the test uses it rather than its own copy.
helpers=$BUILD/liburing/liburing-$LIBURING_VERSION/test
gcc -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-DCONFIG_HAVE_VBLK_URING -isystem "$UAPI" \
	-static -I"$LIBURING_PREFIX/include" -I"$helpers" \
	-o "$SUITES/liburing/vblk-passthrough.t" "$SUITES/liburing/test/vblk-passthrough.c" \
	"$helpers/helpers.c" -L"$LIBURING_PREFIX/lib" -luring

mkdir -p "$SUITES/fio-t"
cp "$FIO_SRC"/t/{fiotestlib.py,fiotestcommon.py,nvmept.py} "$SUITES/fio-t/"
