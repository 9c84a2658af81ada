# SPDX-License-Identifier: GPL-2.0
# A tree under build/ kept as "a base commit plus a patch series": the
# series (git format-patch files) is the source of truth, the tree a git
# repository whose TAG is the unpacked base and whose commits on top are the
# series.  Used for the kernel (patches/ on build/linux) and for fio
# (fio-engine/ on build/fio); sourced, never run.
#
# A series directory DIR holds either one series (DIR/series naming its
# patch files, in order) or several submissions, each a folder of its own
# (DIR/NAME/series), applied in the order of their folders' names.  Patch
# paths below are relative to DIR: "0001-x.patch" or "NAME/0001-x.patch".
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

# Make TREE the commit REV of the git repository REPO (its files, not its
# history) as series_init_base() does; the base commit says "NAME master
# <commit> (<describe>)".
series_init_from_git() {
	local repo=$1 rev=$2 tag=$3 name=$4 tree=$5 tmp=$5.tmp commit
	commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || die "no commit $rev in $repo"
	note "importing $name $commit from $repo into ${tree#"$TOP"/}"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	git -C "$repo" archive "$commit" | tar -xf - -C "$tmp"
	series_init_base "$tmp" "$tag" \
		"$name master $commit ($(git -C "$repo" describe --tags --always "$commit"))" "$tree"
}

# The submissions of DIR in order, "." when DIR is one series.
series_parts() {
	local f
	if [ -f "$1/series" ]; then
		echo .
		return
	fi
	for f in "$1"/*/series; do
		[ -f "$f" ] && basename "$(dirname "$f")"
	done
}

# The patch files a series file names, in order.
series_file_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1" || true
}

# The patch files of DIR, in order, as paths relative to DIR.
series_patches() {
	local part
	for part in $(series_parts "$1"); do
		if [ "$part" = . ]; then
			series_file_patches "$1/series"
		else
			series_file_patches "$1/$part/series" | sed "s|^|$part/|"
		fi
	done
}

# A digest of the series as DIR holds it.
series_digest() {
	local part
	(for part in $(series_parts "$1"); do cat "$1/$part/series"; done
	 series_patches "$1" | while read -r p; do cat "$1/$p"; done) |
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

# Write TREE's commits on top of TAG to OUT (an empty directory) as DIR
# would hold them: format-patch files and, for one series, its series file
# (for submissions, OUT/NAME/series names their patch files; the headers are
# DIR's).  A commit goes to the submission that holds a patch of its
# subject, else to the one of the commit before it: a new commit joins its
# neighbour's submission, a moved one has to be moved in DIR by hand.
series_write() {
	local tree=$1 tag=$2 dir=$3 out=$4 flat part first last
	local -a commits
	if [ -f "$dir/series" ]; then
		git -C "$tree" format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$out" "$tag..HEAD"
		series_write_file "$dir/series" "$out" >"$out/series"
		return
	fi
	flat=$(mktemp -d)
	git -C "$tree" format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$flat" "$tag..HEAD"
	mapfile -t commits < <(git -C "$tree" rev-list --reverse "$tag..HEAD")
	# "NAME FIRST LAST" per submission, commits counted from 1
	python3 - "$dir" "$flat" $(series_parts "$dir") <<'PY' >"$flat/parts" || return 1
import os, sys
dir, flat, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
def stem(name):
    return name.split("-", 1)[1]
held = {}
for part in parts:
    for name in open(os.path.join(dir, part, "series")).read().split():
        if not name.startswith("#") and name.endswith(".patch"):
            held.setdefault(stem(name), []).append(part)
order, prev = [], parts[0]
for name in sorted(f for f in os.listdir(flat) if f.endswith(".patch")):
    owners = held.get(stem(name))
    prev = owners.pop(0) if owners else prev
    order.append(prev)
for i in range(1, len(order)):
    if parts.index(order[i]) < parts.index(order[i - 1]):
        sys.exit(f"error: patch {i + 1} belongs to {order[i]}, which comes before "
                 f"{order[i - 1]}: keep each submission's commits together")
for part in parts:
    n = [i + 1 for i, p in enumerate(order) if p == part]
    print(part, n[0] if n else 0, n[-1] if n else 0)
PY
	rm -f "$flat"/*.patch
	while read -r part first last; do
		mkdir -p "$out/$part"
		[ "$first" -eq 0 ] ||
			git -C "$tree" format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$out/$part" \
				"${commits[first - 1]}^..${commits[last - 1]}"
		series_write_file "$dir/$part/series" "$out/$part" >"$out/$part/series"
	done <"$flat/parts"
	rm -rf "$flat"
}

# A series file for the patch files in OUT, with the comment lines of OLD.
series_write_file() {
	grep '^#' "$1" || true
	(cd "$2" && ls -- [0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
}

# Whether TREE's commits on top of TAG are, byte for byte, the series in DIR.
series_matches_tree() {
	local tree=$1 tag=$2 dir=$3 tmp same=0 p
	tmp=$(mktemp -d)
	series_write "$tree" "$tag" "$dir" "$tmp" || same=1
	[ "$(series_patches "$tmp")" = "$(series_patches "$dir")" ] || same=1
	for p in $(series_patches "$tmp"); do
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

# Write TREE's commits on top of TAG to DIR (format-patch files and series
# files; series_write() says which submission each commit goes to).
series_export() {
	local tree=$1 tag=$2 dir=$3 tmp part
	[ -d "$tree/.git" ] || die "no ${tree#"$TOP"/}: build it first"
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "${tree#"$TOP"/} has uncommitted changes: commit them first"
	tmp=$(mktemp -d)
	series_write "$tree" "$tag" "$dir" "$tmp" || { rm -rf "$tmp"; die "nothing exported"; }
	for part in $(series_parts "$dir"); do
		rm -f "$dir/$part"/[0-9][0-9][0-9][0-9]-*.patch
		cp "$tmp/$part"/[0-9][0-9][0-9][0-9]-*.patch "$dir/$part/" 2>/dev/null || true
		cp "$tmp/$part/series" "$dir/$part/series"
	done
	rm -rf "$tmp"
	series_mark_synced "$tree" "$dir"
	note "exported $(series_patches "$dir" | wc -l) patch(es) to ${dir#"$TOP"/}/"
}
