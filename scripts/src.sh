#!/usr/bin/env bash
# make src: unpack the kernel base into build/linux as a git repository and
# apply patches/series on top as commits, or bring an existing tree up to
# date.  Fails when patches/ and the tree disagree in a way that could lose
# work (commits not exported, or both sides changed).
. "$(dirname "$0")/common.sh"

SYNC_FILE=$KSRC/.git/vblk-sync   # "<series digest> <HEAD>" after the last sync

apply_series() {
	local p
	ktree_git reset -q --hard "$BASE_TAG"
	for p in $(series_patches); do
		[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
		if ! ktree_git am -q --keep-cr "$PATCHES/$p" >"$LOGS/git-am.log" 2>&1; then
			ktree_git am --abort >/dev/null 2>&1 || true
			cat "$LOGS/git-am.log" >&2
			die "patch $p does not apply to the base (see above)"
		fi
	done
	echo "$(series_digest) $(ktree_git rev-parse HEAD)" >"$SYNC_FILE"
	note "applied $(series_patches | wc -l) patch(es) to $(basename "$BASE_TARBALL")"
}

unpack_base() {
	local tmp=$BUILD/linux.tmp version
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing: run make deps"
	note "unpacking $BASE_TARBALL into $KSRC"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xf "$BASE_TARBALL" -C "$tmp" --strip-components=1
	version=$(make -s -C "$tmp" kernelversion)
	git -C "$tmp" init -q
	git -C "$tmp" config user.name "$(git config user.name || echo 'vblk build')"
	git -C "$tmp" config user.email "$(git config user.email || echo 'build@localhost')"
	git -C "$tmp" config gc.auto 0
	# Debian's tarball carries a top-level .gitignore that hides most files.
	git -C "$tmp" add -A -f
	git -C "$tmp" commit -q -m "Debian linux-source-6.12 $version"
	git -C "$tmp" tag "$BASE_TAG"
	mv "$tmp" "$KSRC"
}

# Fail unless the commits on top of the base are exactly patches/.
verify_agreement() {
	local tmp=$BUILD/series-check
	rm -rf "$tmp"
	mkdir -p "$tmp"
	ktree_git format-patch -q "${FORMAT_PATCH_OPTS[@]}" -o "$tmp" "$BASE_TAG..HEAD"
	if [ "$(cd "$tmp" && ls)" != "$(series_patches)" ] ||
	   ! (cd "$tmp" && for p in $(ls); do cmp -s "$p" "$PATCHES/$p" || exit 1; done); then
		die "patches/ and build/linux disagree: run 'make export' to write the tree's commits to patches/, or remove build/linux to start again from patches/"
	fi
	rm -rf "$tmp"
}

mkdir -p "$BUILD" "$LOGS"
if [ ! -d "$KSRC/.git" ]; then
	unpack_base
	apply_series
else
	[ -z "$(ktree_git status --porcelain)" ] ||
		die "build/linux has uncommitted changes: commit them there and run 'make export', or discard them"
	read -r synced_digest synced_head <"$SYNC_FILE" || die "$SYNC_FILE missing: remove build/linux and run make src"
	digest=$(series_digest)
	head=$(ktree_git rev-parse HEAD)
	if [ "$digest" != "$synced_digest" ]; then
		[ "$head" = "$synced_head" ] ||
			die "both patches/ and build/linux changed since the last sync: export or drop the tree's commits first"
		note "patches/ changed: re-applying the series"
		apply_series
	elif [ "$head" != "$synced_head" ]; then
		die "build/linux has commits that are not in patches/: run 'make export'"
	fi
fi
verify_agreement
