#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export / make fio-export: write the commits made in a source tree
# back to its series (one git format-patch file each, plus the series file).
#   export.sh kernel       build/linux      -> patches/
#   export.sh fio          build/fio        -> fio-engine/
#   export.sh blktests-master  build/blktests-master -> blktests/
#   export.sh liburing-master  build/liburing-master -> liburing/
. "$(dirname "$0")/common.sh"

case "${1:-kernel}" in
kernel) series_export "$KSRC" "$BASE_TAG" "$PATCHES" ;;
fio) series_export "$FIO_SRC" "$UPSTREAM_BASE_TAG" "$FIO_PATCHES" ;;
blktests-master | liburing-master)
	series_export "$BUILD/$1" "$UPSTREAM_BASE_TAG" "$TOP/${1%-master}" ;;
*) die "usage: export.sh [kernel|fio|blktests-master|liburing-master]" ;;
esac
