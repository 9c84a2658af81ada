#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fio / make blktests-master / make liburing-master: what this project
# sends to fio, blktests and liburing, as a series on their master branch,
# in build/fio and build/NAME-master: the base as one commit tagged
# upstream-base, with the series (fio-engine/, NAME/) applied on top as
# commits (scripts/series.sh).  The base
# is the snapshot of master the series is written against (the snapshots
# in ../shared/upstream/, UPSTREAM_SNAPSHOTS: a `git archive` tarball per
# project, README.md there), or, given REPO, a commit (REV, default HEAD)
# of a git repository of the project.  The base is imported once: remove
# the tree to import another.  make test builds the guest's fio
# (scripts/fio.sh) and the suites the guest runs (scripts/suites.sh) from
# these trees.
#   upstream.sh fio|blktests|liburing [REPO [REV]]
. "$(dirname "$0")/common.sh"

name=${1:-}
tree=$BUILD/$name-master series=$TOP/$name export=$name-master-export
case $name in
fio) snapshot=$FIO_SNAPSHOT tree=$FIO_SRC series=$FIO_PATCHES export=fio-export ;;
blktests) snapshot=$BLKTESTS_SNAPSHOT ;;
liburing) snapshot=$LIBURING_SNAPSHOT ;;
*) die "usage: upstream.sh fio|blktests|liburing [REPO [REV]]" ;;
esac
repo=${2:-} rev_wanted=${3:-HEAD}

# The snapshot: its commit is the one git archive wrote into its header,
# the commit's date that of its files.
unpack_snapshot() {
	local tarball=$UPSTREAM_SNAPSHOTS/$snapshot.tar.gz tmp=$tree.tmp commit date
	[ -f "$tarball" ] ||
		die "$tarball is missing: the snapshots are in ../shared/upstream/, or give a git repository of $name (make $name-master ...=REPO)"
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
	series_tree "$tree" "$UPSTREAM_BASE_TAG" "$series" "make $export" unpack_git
else
	series_tree "$tree" "$UPSTREAM_BASE_TAG" "$series" "make $export" unpack_snapshot
fi
