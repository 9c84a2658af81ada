#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make blktests-master / make liburing-master: the tests this project sends
# to blktests and liburing, as a series on their master branch, in
# build/NAME-master: the base as one commit tagged upstream-base, with the
# series of NAME/ applied on top as commits (scripts/series.sh).  The base
# is the snapshot of master the series is written against (the snapshots
# in ../shared/upstream/, UPSTREAM_SNAPSHOTS: a `git archive` tarball per
# project, README.md there), or, given REPO, a commit (REV, default HEAD)
# of a git repository of the project.  The base is imported once: remove
# build/NAME-master to import another.  make test builds the suites the
# guest runs from these trees (scripts/suites.sh).
#   upstream.sh blktests [REPO [REV]]
#   upstream.sh liburing [REPO [REV]]
. "$(dirname "$0")/common.sh"

name=${1:-}
case $name in
blktests) snapshot=$BLKTESTS_SNAPSHOT ;;
liburing) snapshot=$LIBURING_SNAPSHOT ;;
*) die "usage: upstream.sh blktests|liburing [REPO [REV]]" ;;
esac
repo=${2:-} rev_wanted=${3:-HEAD}
tree=$BUILD/$name-master
series=$TOP/$name

# The snapshot: its commit is the one git archive wrote into its header,
# the commit's date that of its files.
unpack_snapshot() {
	local tarball=$UPSTREAM_SNAPSHOTS/$snapshot.tar.gz tmp=$tree.tmp commit date
	[ -f "$tarball" ] ||
		die "$tarball is missing: the snapshots are in ../shared/upstream/, or give ${name^^}=<a git repository of $name>"
	# (git stops reading after the header: gzip's SIGPIPE is no failure)
	commit=$( (gzip -dc "$tarball" 2>/dev/null || true) | git get-tar-commit-id) ||
		die "$tarball does not say its commit: not a git archive?"
	note "unpacking $name master ${commit:0:12} from ${tarball##*/} into ${tree#"$TOP"/}"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xzf "$tarball" -C "$tmp" --strip-components=1
	date=$(date -u -r "$tmp/Makefile" +%F)
	series_init_base "$tmp" "$UPSTREAM_BASE_TAG" "$name master $commit ($date)" "$tree"
}

unpack_git() {
	series_init_from_git "$repo" "$rev_wanted" "$UPSTREAM_BASE_TAG" "$name" "$tree"
}

if [ -n "$repo" ]; then
	series_tree "$tree" "$UPSTREAM_BASE_TAG" "$series" "make $name-master-export" unpack_git
else
	series_tree "$tree" "$UPSTREAM_BASE_TAG" "$series" "make $name-master-export" unpack_snapshot
fi
