# A tree under build/ kept as "a base commit plus a patch series": the
# series (DIR/series and DIR/*.patch, git format-patch files) is the source
# of truth, the tree a git repository whose TAG is the unpacked base and
# whose commits on top are the series.  Used for the kernel (patches/ on
# build/linux) and for fio (fio-engine/ on build/fio); sourced, never run.
# shellcheck shell=bash

# Make the unpacked source in SRC a git repository whose one commit, tagged
# TAG, is all of it (force-added: a source tarball may carry .gitignore
# files that hide its own files), and move it to TREE.
series_init_base() {
	local src=$1 tag=$2 message=$3 tree=$4
	git -C "$src" init -q
	git -C "$src" config user.name "$(git -C "$TOP" config user.name || echo 'vblk build')"
	git -C "$src" config user.email "$(git -C "$TOP" config user.email || echo 'build@localhost')"
	git -C "$src" config gc.auto 0
	git -C "$src" add -A -f
	git -C "$src" commit -q -m "$message"
	git -C "$src" tag "$tag"
	mv "$src" "$tree"
}

# The patch files named in DIR/series, in order.
series_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1/series" || true
}

# A digest of the series as DIR holds it.
series_digest() {
	(cat "$1/series"; series_patches "$1" | while read -r p; do cat "$1/$p"; done) |
		sha256sum | cut -d' ' -f1
}

# Record that TREE and the series in DIR agree as they are now.
series_mark_synced() {
	echo "$(series_digest "$2") $(git -C "$1" rev-parse HEAD)" >"$1/.git/vblk-sync"
}

# Reset TREE to TAG and apply the series in DIR with git am.
series_apply() {
	local tree=$1 tag=$2 dir=$3 p log=$LOGS/git-am-${1##*/}.log
	git -C "$tree" reset -q --hard "$tag"
	for p in $(series_patches "$dir"); do
		[ -f "$dir/$p" ] || die "${dir#"$TOP"/}/series names $p, which does not exist"
		if ! git -C "$tree" am -q --keep-cr "$dir/$p" >"$log" 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			# back to the base, marked unsynced: the next run applies again
			git -C "$tree" reset -q --hard "$tag"
			echo "none $(git -C "$tree" rev-parse HEAD)" >"$tree/.git/vblk-sync"
			cat "$log" >&2
			die "${dir#"$TOP"/}/$p does not apply to the base of ${tree#"$TOP"/} (see above)"
		fi
	done
	series_mark_synced "$tree" "$dir"
	note "applied $(series_patches "$dir" | wc -l) patch(es) from ${dir#"$TOP"/}/ to ${tree#"$TOP"/}"
}

# Whether TREE's commits on top of TAG are, byte for byte, the series in DIR.
series_matches_tree() {
	local tree=$1 tag=$2 dir=$3 tmp same=0 p
	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$tmp" "$tag..HEAD"
	[ "$(ls "$tmp")" = "$(series_patches "$dir")" ] || same=1
	for p in $(ls "$tmp"); do
		cmp -s "$tmp/$p" "$dir/$p" || same=1
	done
	rm -rf "$tmp"
	return $same
}

# Bring an existing TREE up to date with the series in DIR, or stop before
# work could be lost: uncommitted changes, commits not written to DIR, or
# both sides changed since the last sync.  EXPORT says how to write commits.
series_sync() {
	local tree=$1 tag=$2 dir=$3 export=$4 name=${1#"$TOP"/} digest head synced_digest synced_head
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "$name has uncommitted changes: commit them there and run '$export', or discard them"
	read -r synced_digest synced_head <"$tree/.git/vblk-sync" ||
		die "$tree/.git/vblk-sync is missing: remove $name and build again"
	digest=$(series_digest "$dir")
	head=$(git -C "$tree" rev-parse HEAD)
	if [ "$digest" = "$synced_digest" ] && [ "$head" = "$synced_head" ]; then
		:	# in sync: the common case
	elif series_matches_tree "$tree" "$tag" "$dir"; then
		series_mark_synced "$tree" "$dir"	# commits written to DIR by hand
	elif [ "$head" = "$synced_head" ]; then
		note "${dir#"$TOP"/}/ changed: re-applying the series"
		series_apply "$tree" "$tag" "$dir"
	elif [ "$digest" = "$synced_digest" ]; then
		die "$name has commits that are not in ${dir#"$TOP"/}/: run '$export'"
	else
		die "both ${dir#"$TOP"/}/ and $name changed since the last sync: export or drop the tree's commits first"
	fi
	series_matches_tree "$tree" "$tag" "$dir" ||
		die "${dir#"$TOP"/}/ and $name disagree: run '$export', or remove $name to start again from ${dir#"$TOP"/}/"
}

# Make TREE the base plus the series in DIR: the first time, UNPACK (a
# command that creates TREE with its base commit tagged TAG) and apply the
# series; after that, series_sync (EXPORT names the command that writes the
# tree's commits back).
series_tree() {
	local tree=$1 tag=$2 dir=$3 export=$4 unpack=$5
	mkdir -p "$BUILD" "$LOGS"
	if [ ! -d "$tree/.git" ]; then
		"$unpack"
		series_apply "$tree" "$tag" "$dir"
	else
		series_sync "$tree" "$tag" "$dir" "$export"
	fi
}

# Write TREE's commits on top of TAG to DIR (format-patch files and series).
series_export() {
	local tree=$1 tag=$2 dir=$3 header
	[ -d "$tree/.git" ] || die "no ${tree#"$TOP"/}: build it first"
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "${tree#"$TOP"/} has uncommitted changes: commit them first"
	header=$(grep '^#' "$dir/series" || true)
	rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
	git -C "$tree" format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$dir" "$tag..HEAD"
	{
		[ -z "$header" ] || echo "$header"
		(cd "$dir" && ls -- [0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
	} >"$dir/series"
	series_mark_synced "$tree" "$dir"
	note "exported $(series_patches "$dir" | wc -l) patch(es) to ${dir#"$TOP"/}/"
}
