#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make blktests-master / make liburing-master: the tests this project sends
# to blktests and liburing, as a series on their master branch: a commit
# (REV, default HEAD) of a git repository of the project (REPO), imported
# into build/NAME-master, with the series of NAME/ applied on top
# (scripts/series.sh).  Neither project is packaged where the guest's other
# sources come from, so make test runs the series' own files on their
# own (scripts/suites.sh); this tree is where the series is written and
# checked against master.
#   upstream.sh blktests REPO [REV]
#   upstream.sh liburing REPO [REV]
. "$(dirname "$0")/common.sh"

name=${1:-}
case $name in
blktests | liburing) ;;
*) die "usage: upstream.sh blktests|liburing REPO [REV]" ;;
esac
repo=${2:-} rev_wanted=${3:-HEAD}
[ -n "$repo" ] || die "make $name-master needs ${name^^}=<a git repository of $name> (and ${name^^}_REV=<commit>)"
tree=$BUILD/$name-master
series=$TOP/$name

unpack() {
	series_init_from_git "$repo" "$rev_wanted" "$UPSTREAM_BASE_TAG" "$name" "$tree"
}

series_tree "$tree" "$UPSTREAM_BASE_TAG" "$series" "make $name-master-export" unpack
