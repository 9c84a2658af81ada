#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make mail / make fio-mail / make blktests-mail / make liburing-mail: the mail-ready form of a patch series, with
# its cover letter filled in from the series' cover-letter.txt (first line
# the subject; @BASE@ becomes the base's description) and its addresses.
# A cover letter's measurements are written into its text, short, by hand:
# the results snapshots are the project's, not the maintainers' reading.
#   patches.sh kernel   each submission patches/NAME/ on build/linux
#                       -> build/mail/NAME/ (its mail file: [PATCH ...] tag,
#                       addresses beside get_maintainer.pl's, the submissions
#                       it needs, named by --base's prerequisite-patch-id)
#   patches.sh fio      fio-engine/ on build/fio -> build/fio-patches/ (fio's list)
#   patches.sh blktests blktests/ on build/blktests-master -> build/blktests-patches/
#   patches.sh liburing liburing/ on build/liburing-master -> build/liburing-patches/
# The mail goes out from the sender's git identity (git config user.name and
# user.email in this repository, or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL):
# it becomes every patch's From and Signed-off-by in place of the author
# the series was written with.  An address that cannot receive the
# replies (RFC 2606's reserved names) is refused, except for make check's
# own run (MAIL_CHECK=1), which writes mail that is never sent.
. "$(dirname "$0")/common.sh"

# Fill the cover letter $1 that format-patch wrote from the template $2.
fill_cover() {
	BASE=$(git -C "$tree" log -1 --format=%s "$base") \
	python3 - "$1" "$2" <<'PY'
import os, sys
cover, template = sys.argv[1:3]
subject, _, body = open(template).read().partition("\n\n")
body = body.replace("@BASE@", os.environ["BASE"].strip())
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.rstrip())
open(cover, "w").write(text)
PY
}

# git format-patch in $tree as the sender $from: the Message-Id,
# In-Reply-To and References it writes name the committer.
format_patch() {
	local name=${from% <*} email=${from##*<}
	GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=${email%>} \
		git -C "$tree" format-patch "$@"
}

# The sender, "Name <address>", or a refusal.
sender() {
	local name email
	name=${GIT_AUTHOR_NAME:-$(git -C "$TOP" config user.name || true)}
	email=${GIT_AUTHOR_EMAIL:-$(git -C "$TOP" config user.email || true)}
	[ -n "$name" ] && [ -n "$email" ] ||
		die "no sender: set git config user.name and user.email (or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)"
	[ -n "${MAIL_CHECK:-}" ] ||
		! echo "$email" | grep -Eqi '(\.(example|invalid|test|localhost)|[@.]example\.(com|net|org))$' ||
		die "$email cannot receive replies: set the sender's own git identity before make mail"
	echo "$name <$email>"
}

# The mail in $1 from the sender $3: From, Signed-off-by, the Copyright
# lines of the files it adds and a cover letter's shortlog name it where
# they named the author $2.
sign_as() {
	FROM="$3" IDENT="$2" python3 - "$1"/*.patch <<'PY'
import os, re, sys
ident, sender = os.environ["IDENT"], os.environ["FROM"]
for path in sys.argv[1:]:
    text = open(path).read()
    head, sep, body = text.partition("\n\n")
    lines, out = head.split("\n"), []
    for line in lines:
        if line.startswith((" ", "\t")) and out and out[-1].startswith("From: "):
            continue        # the folded rest of the author's From:
        out.append(f"From: {sender}" if line.startswith("From: ") else line)
    body = body.replace(f"Signed-off-by: {ident}", f"Signed-off-by: {sender}")
    name, sender_name = ident.split(" <")[0], sender.split(" <")[0]
    body = "\n".join(line.replace(name, sender_name)
                     if (line.startswith("+") and "Copyright" in line)
                     or re.fullmatch(re.escape(name) + r" \(\d+\):", line)
                     else line for line in body.split("\n"))
    text = "\n".join(out) + sep + body
    open(path, "w").write(text)
PY
}

# The commits of each submission: "NAME FIRST LAST", counted from 1.
submission_ranges() {
	local part n first=1
	for part in $(series_parts "$PATCHES"); do
		n=$(series_file_patches "$PATCHES/$part/series" | wc -l)
		echo "$part $first $((first + n - 1))"
		first=$((first + n))
	done
}

# Write submission NAME (commits FIRST..LAST of the tree) to build/mail/NAME.
mail_kernel() {
	local part=$1 first=$2 last=$3 out=$BUILD/mail/$1 from=$4
	local -a args addresses prefix
	[ "$last" -ge "$first" ] || { note "$part: no patch, nothing to mail"; return; }
	[ -f "$PATCHES/$part/mail" ] || die "patches/$part/mail is missing"
	# --no-fixes: the base is one commit without history, so the signers
	# of a Fixes: commit cannot be looked up (git fails on its hash)
	mapfile -t addresses < <(cd "$KSRC" && scripts/get_maintainer.pl --no-rolestats \
		--no-git --no-git-fallback --no-fixes --no-multiline \
		$(series_file_patches "$PATCHES/$part/series" | sed "s|^|$PATCHES/$part/|") |
		tr ',' '\n' | sed 's/^ *//' | grep .)
	[ ${#addresses[@]} -gt 0 ] || die "$part: get_maintainer.pl named nobody"
	# the lists To, the people Cc, as the block and virtio lists expect
	for a in "${addresses[@]}"; do
		case "$a" in
		*@vger.kernel.org | *@lists.*) args+=(--to="$a") ;;
		*) args+=(--cc="$a") ;;
		esac
	done
	for a in $(submission_field "$part" to); do args+=(--to="$a"); done
	for a in $(submission_field "$part" cc); do args+=(--cc="$a"); done
	prefix=(--subject-prefix="$(submission_field "$part" subject-prefix)")
	[ -z "$(submission_field "$part" version)" ] || prefix+=(-v "$(submission_field "$part" version)")
	[ "$first" -eq "$last" ] || prefix+=(--cover-letter)
	rm -rf "$out"
	mkdir -p "$out"
	format_patch -q "${prefix[@]}" --no-signature --thread=shallow \
		--base="$base" "${args[@]}" -o "$out" "${commits[first - 1]}^..${commits[last - 1]}"
	if [ "$first" -ne "$last" ]; then
		[ -f "$PATCHES/$part/cover-letter.txt" ] || die "patches/$part/cover-letter.txt is missing"
		fill_cover "$out"/*0000-cover-letter.patch "$PATCHES/$part/cover-letter.txt"
	fi
	sign_as "$out" "$(git -C "$tree" log -1 --format='%an <%ae>' "${commits[first - 1]}")" "$from"
	note "$part: $(ls "$out" | wc -l) file(s) in ${out#"$TOP"/}"
}

case "${1:-kernel}" in
kernel)
	tree=$KSRC base=$BASE_TAG
	[ -d "$tree/.git" ] || die "no kernel tree: run make src"
	from=$(sender) || exit 1
	mapfile -t commits < <(git -C "$tree" rev-list --reverse "$base..HEAD")
	[ "$(series_patches "$PATCHES" | wc -l)" -eq ${#commits[@]} ] ||
		die "patches/ and build/linux disagree: run make src or make export"
	rm -rf "$BUILD/mail"
	while read -r part first last; do
		mail_kernel "$part" "$first" "$last" "$from"
	done < <(submission_ranges)
	exit 0
	;;
fio)
	# the series on fio's master branch
	from=$(sender) || exit 1
	tree=$FIO_SRC base=$UPSTREAM_BASE_TAG dir=$FIO_PATCHES out=$BUILD/fio-patches prefix=()
	[ -d "$tree/.git" ] || die "no fio tree: run make fio"
	args=(--to=fio@vger.kernel.org --cc="Jens Axboe <axboe@kernel.dk>"
	      --cc="Vincent Fu <vincent.fu@samsung.com>")
	;;
blktests | liburing)
	# the series on the project's master branch; both take patches on
	# a list with the project in the subject
	from=$(sender) || exit 1
	tree=$BUILD/$1-master base=$UPSTREAM_BASE_TAG dir=$TOP/$1 out=$BUILD/$1-patches
	prefix=(--subject-prefix="PATCH $1")
	[ -d "$tree/.git" ] || die "no $1 master tree: run make $1-master"
	if [ "$1" = blktests ]; then
		args=(--to=linux-block@vger.kernel.org
		      --cc="Shin'ichiro Kawasaki <shinichiro.kawasaki@wdc.com>")
	else
		args=(--to=io-uring@vger.kernel.org --cc="Jens Axboe <axboe@kernel.dk>")
	fi
	;;
*)
	die "usage: patches.sh [kernel|fio|blktests|liburing]"
	;;
esac

rm -rf "$out"
mkdir -p "$out"
# a series without cover-letter.txt (a single patch) is mailed without one
cover=()
[ ! -f "$dir/cover-letter.txt" ] || cover=(--cover-letter)
format_patch -q "${prefix[@]}" "${cover[@]}" --no-signature --thread=shallow \
	"${args[@]}" -o "$out" "$base..HEAD"
[ ${#cover[@]} -eq 0 ] || fill_cover "$out"/*0000-cover-letter.patch "$dir/cover-letter.txt"
sign_as "$out" "$(git -C "$tree" log -1 --format='%an <%ae>' "$base..HEAD")" "$from"
note "$(ls "$out" | wc -l) files in ${out#"$TOP"/} (cover letter included)"
