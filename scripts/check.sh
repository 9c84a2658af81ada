#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: the kernel series' static checks.
#   check.sh checkpatch   scripts/checkpatch.pl --strict on every patch
#   check.sh driver       sparse (C=2) and W=1 build of every C file the
#                         series touches: no warning that the base does not
#                         have in that file
#   check.sh bisect       every patch in turn: the touched objects build with
#                         W=1 and sparse adding no warning to the base's, the
#                         UAPI header compiles alone as C and C++
#   check.sh mail         make mail's submissions: each applies with git am
#                         alone on the base and the submissions it names,
#                         all in order give exactly the tree that was tested
#   check.sh docs         kernel-doc, the ABI parser and a reST parse of the
#                         documentation the series adds or changes
#   check.sh suites       blktests' make check (shellcheck) on the series
#                         for blktests (build/blktests-master)
#   check.sh              all six (several names: those)
. "$(dirname "$0")/common.sh"

# The objects of every C file the series touches.
mapfile -t DRIVER_OBJS < <(ktree_git diff --name-only "$BASE_TAG" HEAD -- '*.c' | sed 's/\.c$/.o/')

# The base is a tarball without history: checkpatch cannot look up the
# commit a Fixes: tag names, so that one check is left out; nor does it know
# that a directory's MAINTAINERS entry covers a file added in it.
checkpatch() {
	local p out fail=0
	for p in $(series_patches "$PATCHES"); do
		# Debian's python3 first: spdxcheck.py needs its python3-ply
		if ! out=$(cd "$KSRC" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --terse --no-summary \
				--show-types --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$PATCHES/$p" 2>&1) || [ -n "$out" ]; then
			echo "$out"
			echo "checkpatch: $p is not clean"
			fail=1
		fi
	done
	[ $fail -eq 0 ] || die "checkpatch --strict found problems"
	echo "checkpatch: $(series_patches "$PATCHES" | wc -l) patch(es) clean"
}

# make sparse's sparse, which the kernel accepts: kbuild skips C=1 and C=2
# with a note, and fails nothing, when scripts/checker-valid.sh refuses one.
SPARSE_MAKE=(C=2 W=1 CHECK="$SPARSE")
sparse_ready() {
	sparse_accepted "$SPARSE" ||
		die "${SPARSE#"$TOP"/} is missing or the kernel refuses it: run make sparse"
}

# The warnings and errors of a build log (gcc's and sparse's), one key per
# line: the file under the tree $1, the message, and the text of the line it
# is about, so that a warning keeps its key when lines above it move.  The
# same warning from two objects that include one header is one key.
warning_keys() {
	local root=$1
	awk -v root="$root/" '
	match($0, /^[^ :]+:[0-9]+:[0-9]+: (warning|error): /) {
		split($0, f, ":")
		file = f[1]
		sub("^" root, "", file)
		msg = substr($0, RLENGTH + 1)
		text = ""
		while ((getline l < (root file)) > 0 && ++n < f[2])
			;
		if (n == f[2])
			text = l
		close(root file)
		n = 0
		gsub(/^[ \t]+|[ \t]+$/, "", text)
		print file "\t" msg "\t" text
	}' | sort -u
}

# The keys of the base's warnings in every C file the series touches,
# built once in the bisect worktree: what the checks below hold the series
# against.  Prints the file that holds them.
base_warnings() {
	local wt=$BUILD/bisect obj=$BUILD/bisect-obj$SUFFIX log=$LOGS/check-base.log
	local keys=$obj/.vblk-base-warnings key o
	local -a objs=()
	# Files the series adds have no warnings at the base
	for o in "${DRIVER_OBJS[@]}"; do
		ktree_git cat-file -e "$BASE_TAG:${o%.o}.c" 2>/dev/null && objs+=("$o")
	done
	key=$( (ktree_git rev-parse "$BASE_TAG"; printf '%s\n' "${DRIVER_OBJS[@]}"; "$SPARSE" --version
		cat "$0" "$KOBJ/.config") | sha256sum)
	if [ "$(cat "$keys.key" 2>/dev/null)" != "$key" ]; then
		worktree "$wt"
		git -C "$wt" checkout -q --detach "$BASE_TAG"
		mkdir -p "$obj"
		cp "$KOBJ/.config" "$obj/.config"
		: >"$log"
		[ ${#objs[@]} -eq 0 ] ||
			make -C "$wt" O="$obj" -j"$(nproc)" CC="ccache gcc" "${SPARSE_MAKE[@]}" \
				"${objs[@]}" >"$log" 2>&1 ||
			{ tail -30 "$log" >&2; die "the base does not build (log: build/logs/check-base.log)"; }
		warning_keys "$wt" <"$log" >"$keys"
		echo "$key" >"$keys.key"
	fi
	echo "$keys"
}

# The warnings of a build log ($2, of the tree $1) that the base does not
# have ($3, base_warnings()), printed; true when there are none.
no_new_warnings() {
	local new
	new=$(warning_keys "$1" <"$2" | comm -23 - "$3")
	[ -z "$new" ] || { echo "$new" | tr '\t' ' '; return 1; }
}

driver() {
	local log=$LOGS/check-driver.log base
	[ ${#DRIVER_OBJS[@]} -gt 0 ] || { echo "sparse and W=1: the series touches no C file"; return; }
	sparse_ready
	base=$(base_warnings)
	# C=2 runs sparse even on objects that are up to date.
	make -C "$KSRC" O="$KOBJ" CC="ccache gcc" "${SPARSE_MAKE[@]}" "${DRIVER_OBJS[@]}" >"$log" 2>&1 ||
		{ cat "$log"; die "the series does not build with C=2 W=1"; }
	grep -q "CHECK.*${DRIVER_OBJS[0]%.o}.c" "$log" || die "sparse did not run (log: build/logs/check-driver.log)"
	no_new_warnings "$KSRC" "$log" "$base" ||
		die "sparse / W=1 warnings that the base does not have (log: build/logs/check-driver.log)"
	echo "sparse and W=1: ${DRIVER_OBJS[*]} add no warning;" \
	     "$(wc -l <"$base") of the base's are left as they are"
}

# The UAPI header, alone, as C and C++, against the headers in $1/usr/include.
uapi_standalone() {
	local inc=$1/usr/include src=$TOP/tests/uapi/virtio_blk_uring_cmd.c
	gcc -std=c11 -Wall -Wextra -Werror -I"$inc" -o /dev/null "$src" &&
		g++ -x c++ -std=c++11 -Wall -Wextra -Werror -I"$inc" -o /dev/null "$src"
}

# The series' documentation as make htmldocs would check it, without
# Sphinx: kernel-doc on the UAPI headers it adds or changes, the ABI files
# it adds validated by the kernel's own parser and their reST rendering
# parsed, and its reST pages parsed (tools/rstcheck.py, Debian's docutils).
docs() {
	local f tmp n=0 out
	tmp=$(mktemp -d)
	for f in $(ktree_git diff --name-only --diff-filter=AM "$BASE_TAG" HEAD -- 'include/uapi/*.h'); do
		out=$(cd "$KSRC" && scripts/kernel-doc -none -Wall "$f" 2>&1)
		[ -z "$out" ] || { echo "$out"; rm -rf "$tmp"; die "kernel-doc warns about $f"; }
		n=$((n + 1))
	done
	for f in $(ktree_git diff --name-only --diff-filter=AM "$BASE_TAG" HEAD -- 'Documentation/ABI/'); do
		cp "$KSRC/$f" "$tmp/"
	done
	if ls "$tmp"/* >/dev/null 2>&1; then
		out=$(cd "$KSRC" && tools/docs/get_abi.py -D "$tmp" validate 2>&1) &&
			out+=$( (cd "$KSRC" && tools/docs/get_abi.py -D "$tmp" rest) |
				/usr/bin/python3 "$TOP/tools/rstcheck.py" - 2>&1) ||
			{ echo "$out"; rm -rf "$tmp"; die "the series' ABI documentation has errors"; }
		[ -z "$out" ] || { echo "$out"; rm -rf "$tmp"; die "the series' ABI documentation has errors"; }
		n=$((n + $(ls "$tmp" | wc -l)))
	fi
	rm -rf "$tmp"
	for f in $(ktree_git diff --name-only --diff-filter=AM "$BASE_TAG" HEAD -- 'Documentation/*.rst'); do
		/usr/bin/python3 "$TOP/tools/rstcheck.py" "$KSRC/$f" || die "$f is not valid reST"
		n=$((n + 1))
	done
	echo "docs: $n file(s) of the series' documentation check clean"
}

# Second worktrees of build/linux (worktree(), scripts/common.sh), for checks
# that move from patch to patch: one for the bisect, one for the mail check,
# so that tests/run.py -j can run those two at once.
bisect() {
	local wt=$BUILD/bisect obj=$BUILD/bisect-obj$SUFFIX log=$LOGS/check-bisect.log
	local step=$LOGS/check-bisect-step.log stamp=$obj/.vblk-bisected key c objs base n=0
	key=$( (series_digest "$PATCHES"; cat "$0" "$TOP/tests/uapi/virtio_blk_uring_cmd.c" "$KOBJ/.config"
		"$SPARSE" --version) | sha256sum)
	if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
		echo "bisect: the series was checked patch by patch already"
		return
	fi
	sparse_ready
	base=$(base_warnings)
	worktree "$wt"
	mkdir -p "$obj"
	cp "$KOBJ/.config" "$obj/.config"
	: >"$log"
	for c in $(ktree_git rev-list --reverse "$BASE_TAG..HEAD"); do
		n=$((n + 1))
		git -C "$wt" checkout -q --detach "$c"
		mapfile -t objs < <(git -C "$wt" diff --name-only "$BASE_TAG" HEAD -- '*.c' | sed 's/\.c$/.o/')
		echo "== patch $n: $(git -C "$wt" log -1 --format=%s)" >>"$log"
		# C=1: sparse checks what this patch makes kbuild rebuild
		if ! make -C "$wt" O="$obj" -j"$(nproc)" CC="ccache gcc" W=1 C=1 CHECK="$SPARSE" \
				"${objs[@]}" headers 2>&1 | tee -a "$log" >"$step"; then
			tail -30 "$step"
			die "patch $n does not build (log: build/logs/check-bisect.log)"
		fi
		no_new_warnings "$wt" "$step" "$base" ||
			die "patch $n adds sparse or W=1 warnings (log: build/logs/check-bisect.log)"
		uapi_standalone "$obj" >>"$log" 2>&1 ||
			{ tail -20 "$log"; die "patch $n: the UAPI header does not compile alone"; }
	done
	echo "$key" >"$stamp"
	echo "bisect: $n patch(es) each build with W=1 and sparse; the UAPI header compiles alone (C, C++)"
}

# git am the mail of submission $2 onto the worktree $1.
am_submission() {
	local -a mails
	mapfile -t mails < <(ls "$BUILD/mail/$2"/*.patch | grep -Ev '0000-cover-letter\.patch$')
	if ! git -C "$1" am -q "${mails[@]}" >>"$log" 2>&1; then
		git -C "$1" am --abort >/dev/null 2>&1 || true
		return 1
	fi
}

# The submissions that submission $1 needs applied first, in order: what
# its mail file names after:, and what those need in turn.
prerequisites() {
	local part want=" " grew=1 w
	want+="$(submission_field "$1" after) "
	while [ $grew -eq 1 ]; do
		grew=0
		for w in $want; do
			for part in $(submission_field "$w" after); do
				[[ "$want" == *" $part "* ]] || { want+="$part "; grew=1; }
			done
		done
	done
	for part in $(series_parts "$PATCHES"); do
		[[ "$want" != *" $part "* ]] || echo "$part"
	done
}

# make mail, as make check runs it: a sender that is not the authors, and
# no refusal of an address that cannot be written to (the mail is never
# sent).  Then: a reserved address is refused; every From and
# Signed-off-by names the sender, and nothing names the authors; each
# submission applies with git am to the base and its prerequisites()
# alone; all of them in order give the tree that was tested.
mail() {
	local wt=$BUILD/mail-check log=$LOGS/check-mail.log part dep parts sender="Mail Check <mail-check@example.org>"
	: >"$log"
	! GIT_AUTHOR_NAME="Mail Check" GIT_AUTHOR_EMAIL=mail-check@example.org \
		"$TOP/scripts/patches.sh" kernel >>"$log" 2>&1 ||
		die "make mail wrote mail from an address that cannot receive replies"
	grep -q "cannot receive replies" "$log" || { cat "$log"; die "make mail failed"; }
	MAIL_CHECK=1 GIT_AUTHOR_NAME="Mail Check" GIT_AUTHOR_EMAIL=mail-check@example.org \
		"$TOP/scripts/patches.sh" kernel >>"$log" 2>&1 || { cat "$log"; die "make mail failed"; }
	! grep -l -e "^From: " -e "^Signed-off-by: " -r "$BUILD/mail" |
		xargs grep -h -e "^From: " -e "^Signed-off-by: " | grep -vF -e "$sender" ||
		die "make mail left an author other than the sender in From or Signed-off-by"
	! grep -rlF "$(ktree_git log -1 --format=%an)" "$BUILD/mail" ||
		die "make mail left the authors' name in the mail above (a shortlog, a Copyright line)"
	! grep -rlF "$(ktree_git log -1 --format=%ae)" "$BUILD/mail" ||
		die "make mail left the authors' address in the mail above (a Message-Id, a reply's References)"
	parts=$(ls "$BUILD/mail")
	worktree "$wt"
	for part in $parts; do
		git -C "$wt" checkout -q --detach "$BASE_TAG"
		for dep in $(prerequisites "$part") "$part"; do
			am_submission "$wt" "$dep" || { tail -20 "$log"
				die "$part does not apply with git am to the base and what its mail file names after:"; }
		done
	done
	git -C "$wt" checkout -q --detach "$BASE_TAG"
	for part in $parts; do
		am_submission "$wt" "$part" || { tail -20 "$log"; die "$part does not apply in order"; }
	done
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(ktree_git rev-parse 'HEAD^{tree}')" ] ||
		die "the mail-ready submissions applied to the base differ from build/linux"
	echo "mail: $(echo $parts | wc -w) submissions in build/mail, each applies with git am on" \
	     "what it names, all in order give the tested tree; From and Signed-off-by name the sender"
}

# blktests' own static check (its make check: shellcheck over ./check,
# common/, every test and new, no TODO, no executable .out) on blktests
# master with the series for blktests, as its maintainer runs it on a
# submission.
suites() {
	"$TOP/scripts/upstream.sh" blktests
	make -C "$BUILD/blktests-master" check >"$LOGS/blktests-check.log" 2>&1 || {
		tail -40 "$LOGS/blktests-check.log"
		die "blktests' make check fails on the series for blktests: see build/logs/blktests-check.log"; }
	echo "suites: blktests' make check is clean on the series for blktests"
}

mkdir -p "$LOGS"
[ $# -gt 0 ] || set -- checkpatch driver docs bisect mail suites
for check; do
	case "$check" in
	checkpatch | driver | docs | bisect | mail | suites) "$check" ;;
	*) die "usage: check.sh [checkpatch|driver|docs|bisect|mail|suites ...]" ;;
	esac
done
