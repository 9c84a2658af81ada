#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make src: unpack the kernel base into build/linux as a git repository and
# apply patches/ (every submission, in order) on top as commits, or bring an existing tree up to
# date.  Fails when patches/ and the tree disagree in a way that could lose
# work (commits not exported, or both sides changed): see series_sync.
. "$(dirname "$0")/common.sh"

unpack_base() {
	local tmp=$BUILD/linux.tmp version
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing: run make deps"
	note "unpacking $BASE_TARBALL into $KSRC"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xf "$BASE_TARBALL" -C "$tmp" --strip-components=1
	version=$(make -s -C "$tmp" kernelversion)
	series_init_base "$tmp" "$BASE_TAG" "Debian linux-source-7.3 $version" "$KSRC"
}

series_tree "$KSRC" "$BASE_TAG" "$PATCHES" "make export" unpack_base
