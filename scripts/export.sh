#!/usr/bin/env bash
# make export: write the commits of build/linux on top of the base back to
# patches/ (one git format-patch file each, plus the series file).
. "$(dirname "$0")/common.sh"

[ -d "$KSRC/.git" ] || die "no kernel tree: run make src first"
[ -z "$(ktree_git status --porcelain)" ] ||
	die "build/linux has uncommitted changes: commit them first"

header=$(grep '^#' "$SERIES" || true)
rm -f "$PATCHES"/*.patch
ktree_git format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$PATCHES" "$BASE_TAG..HEAD"
{
	[ -z "$header" ] || echo "$header"
	(cd "$PATCHES" && ls -- *.patch 2>/dev/null || true)
} >"$SERIES"
echo "$(series_digest) $(ktree_git rev-parse HEAD)" >"$KSRC/.git/vblk-sync"
note "exported $(series_patches | wc -l) patch(es) to patches/"
