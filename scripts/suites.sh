#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The other projects' tests that make test runs in the guest, in
# build/suites/ (guest/mktools.sh puts them in the guest's tool tree):
#   blktests/  the cases of this project's blktests series (blktests/),
#              their program built against the guest's liburing, and
#              guest/blktests/, which runs them as blktests would
. "$(dirname "$0")/common.sh"

SUITES=$BUILD/suites

# The files a series adds, written out of its patches into DIR (the series'
# changes to files of the project itself need the project, and are left).
series_new_files() {
	local series=$1 dir=$2 p
	shift 2
	mkdir -p "$dir"
	for p in $(series_patches "$series"); do
		git -C "$dir" apply --unsafe-paths "${@/#/--include=}" "$series/$p" ||
			die "${series#"$TOP"/}/$p: its new files did not apply"
	done
}

blktests() {
	local dir=$SUITES/blktests
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$dir" init -q
	series_new_files "$TOP/blktests" "$dir" 'tests/*' 'src/*.c'
	rm -rf "$dir/.git"
	cp -a "$TOP/guest/blktests/." "$dir/"
	gcc -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -static -I"$BUILD/liburing/prefix/include" \
		-o "$dir/src/vblk-uring-cmd" "$dir/src/vblk-uring-cmd.c" \
		-L"$BUILD/liburing/prefix/lib" -luring
}

blktests
