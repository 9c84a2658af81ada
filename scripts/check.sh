#!/usr/bin/env bash
# make check: the kernel series' static checks.
#   check.sh checkpatch   scripts/checkpatch.pl --strict on every patch
#   check.sh driver       sparse (C=2) and W=1 build of the driver: no warnings
#   check.sh              both
. "$(dirname "$0")/common.sh"

# The objects of every C file the series touches.
mapfile -t DRIVER_OBJS < <(ktree_git diff --name-only "$BASE_TAG" HEAD -- '*.c' | sed 's/\.c$/.o/')

checkpatch() {
	local p out fail=0
	for p in $(series_patches); do
		if ! out=$(cd "$KSRC" && scripts/checkpatch.pl --strict --terse --no-summary \
				--show-types "$PATCHES/$p" 2>&1) || [ -n "$out" ]; then
			echo "$out"
			echo "checkpatch: $p is not clean"
			fail=1
		fi
	done
	[ $fail -eq 0 ] || die "checkpatch --strict found problems"
	echo "checkpatch: $(series_patches | wc -l) patch(es) clean"
}

driver() {
	local log=$LOGS/check-driver.log warnings
	# C=2 runs sparse even on objects that are up to date.
	[ ${#DRIVER_OBJS[@]} -gt 0 ] || { echo "sparse and W=1: the series touches no C file"; return; }
	make -C "$KSRC" O="$KOBJ" CC="ccache gcc" C=2 W=1 "${DRIVER_OBJS[@]}" >"$log" 2>&1 ||
		{ cat "$log"; die "the driver does not build with C=2 W=1"; }
	warnings=$(grep -E 'warning:|error:' "$log" || true)
	if [ -n "$warnings" ]; then
		echo "$warnings"
		die "sparse / W=1 warnings in the driver (log: build/logs/check-driver.log)"
	fi
	echo "sparse and W=1: ${DRIVER_OBJS[*]} clean"
}

mkdir -p "$LOGS"
case "${1:-all}" in
checkpatch) checkpatch ;;
driver) driver ;;
all) checkpatch; driver ;;
*) die "usage: check.sh [checkpatch|driver]" ;;
esac
