# Shared settings for the build scripts; sourced, never run.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KSRC=$BUILD/linux               # base + series, a git repository
KOBJ=$BUILD/kobj                # out-of-tree kernel objects
LOGS=$BUILD/logs
# ccache hashes paths under build/ relative to it, so every clone shares hits.
export CCACHE_BASEDIR=$BUILD
BASE_TARBALL=${BASE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
BASE_TAG=vblk-base              # the commit holding the unpacked base
PATCHES=$TOP/patches
SERIES=$PATCHES/series

# Options shared by every `git format-patch` that writes or checks patches/.
FORMAT_PATCH_OPTS=(--zero-commit --no-signature --no-renames)

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo ">> $*" >&2
}

# The patch files named in patches/series, in order.
series_patches() {
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SERIES" || true
}

# A digest of the series as committed in patches/.
series_digest() {
	(cat "$SERIES"; series_patches | while read -r p; do cat "$PATCHES/$p"; done) |
		sha256sum | cut -d' ' -f1
}

ktree_git() {
	git -C "$KSRC" "$@"
}
