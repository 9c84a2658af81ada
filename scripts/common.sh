# SPDX-License-Identifier: GPL-2.0
# Shared settings for the build scripts; sourced, never run.
# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are for the scripts that source it

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The guest kernel's variant, VARIANT "" or "debug" (sanitizers: make ...
# DEBUG=1) or an experiment's (make experiment), and its paths: KSRC (base +
# series, a git repository), SUFFIX, KOBJ (out-of-tree objects), KERNEL,
# MODROOT, INITRD, UAPI... from the one place that names them.
eval "$(python3 "$TOP/harness/buildpaths.py" --build "$BUILD" --variant "${VARIANT:-}" --sh)"
LOGS=$BUILD/logs
# ccache hashes paths under build/ relative to it, so every clone shares hits.
export CCACHE_BASEDIR=$BUILD
BASE_TARBALL=${BASE_TARBALL:-$BUILD/dl/linux-source-7.3.tar.xz}   # make deps fetches it
BASE_TAG=vblk-base              # the commit holding the unpacked base
PATCHES=$TOP/patches           # the kernel series
# fio: the cmd_type=vblk series (fio-engine/) on fio's master branch, a
# git repository: the guest's fio and the host's (make fio, make fio-mail)
FIO_PATCHES=$TOP/fio-engine     # the fio series, for fio master
FIO_SRC=$BUILD/fio              # fio master + FIO_PATCHES (scripts/upstream.sh)
# the base of fio's, blktests' and liburing's trees (not fio-N.N, which
# fio's FIO-VERSION-GEN would pick up)
UPSTREAM_BASE_TAG=upstream-base
# The snapshots of fio's, blktests' and liburing's master that their series
# are based on (git archive tarballs, NAME-COMMIT.tar.gz): scripts/upstream.sh
# imports them, scripts/fio.sh and scripts/suites.sh build them.
UPSTREAM_SNAPSHOTS=${UPSTREAM_SNAPSHOTS:-$(cd "$TOP/.." && pwd)/shared/upstream}
FIO_SNAPSHOT=fio-f5344384f7c7
BLKTESTS_SNAPSHOT=blktests-a608cb56341e
LIBURING_SNAPSHOT=liburing-27255f4ceda9
# liburing for the guest programs: sid's source (make deps)
LIBURING_VERSION=2.15
# sparse for make check: sid's source (make deps).  bookworm's 0.6.4 does not
# know __typeof_unqual__, and the kernel's scripts/checker-valid.sh refuses
# it: kbuild then skips C=1 and C=2 with a note and nothing fails.
SPARSE_VERSION=0.6.5~rc1
SPARSE=$BUILD/sparse/sparse

# Options shared by every `git format-patch` that writes or checks patches/.
# --abbrev fixes the length of the blob ids on "index" lines: git's default
# grows with the number of objects, so a fresh tree would write other ids
# than one with a long history, and the two would never compare equal.
FORMAT_PATCH_OPTS=(--abbrev=12 --zero-commit --no-signature --find-renames)

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo ">> $*" >&2
}

ktree_git() {
	git -C "$KSRC" "$@"
}

. "$TOP/scripts/series.sh"

# A field of submission NAME's mail file (patches/NAME/mail): the values of
# its KEY lines, space-separated.  usage: submission_field NAME KEY
submission_field() {
	sed -n "s/^$2:[[:space:]]*//p" "$PATCHES/$1/mail" | tr '\n' ' ' | sed 's/ *$//'
}

# Whether the kernel's scripts/checker-valid.sh accepts the checker $1 (it
# prints 1): kbuild skips C=1 and C=2, failing nothing, when it does not.
sparse_accepted() {
	[ "$("$KSRC/scripts/checker-valid.sh" "$1" 2>/dev/null)" = 1 ]
}

# A worktree of build/linux at $1, locked for this script (fd 9) so that two
# scripts never share one; (re)made when missing or left over from a
# previous build/linux.
worktree() {
	local wt=$1
	exec 9>"$wt.lock"
	flock 9
	if ! git -C "$wt" rev-parse -q --verify "$BASE_TAG" >/dev/null 2>&1; then
		rm -rf "$wt"
		ktree_git worktree prune
		ktree_git worktree add -q --detach "$wt" "$BASE_TAG"
	fi
}
