#!/usr/bin/env bash
# make mail / make fio-mail: the mail-ready form of a patch series,
# with its cover letter filled in from the series' cover-letter.txt (first
# line the subject; @BENCH@ and @PROFILE@ become README.md's make bench
# table and make profile summary, @BASE@ the base's description) and its
# addresses.
#   patches.sh kernel   patches/ on build/linux   -> build/patches/  (v2, get_maintainer.pl)
#   patches.sh fio      fio-engine/ on build/fio-master -> build/fio-patches/ (fio's list)
. "$(dirname "$0")/common.sh"

case "${1:-kernel}" in
kernel)
	tree=$KSRC base=$BASE_TAG dir=$PATCHES out=$BUILD/patches prefix=(-v2)
	[ -d "$tree/.git" ] || die "no kernel tree: run make src"
	# get_maintainer.pl does not name the io-uring list for drivers/block;
	# --no-fixes: the base is one commit without history, so the signers
	# of a Fixes: commit cannot be looked up (git fails on its hash)
	mapfile -t addresses < <(cd "$KSRC" && scripts/get_maintainer.pl --no-rolestats \
		--no-git --no-git-fallback --no-fixes --no-multiline \
		$(series_patches "$PATCHES" | sed "s|^|$PATCHES/|") |
		tr ',' '\n' | sed 's/^ *//' | grep .)
	[ ${#addresses[@]} -gt 0 ] || die "get_maintainer.pl named nobody"
	args=(--to=linux-block@vger.kernel.org)
	for a in "${addresses[@]}" io-uring@vger.kernel.org; do
		[ "$a" = linux-block@vger.kernel.org ] || args+=(--cc="$a")
	done
	;;
fio)
	# the series as it applies to fio's master branch, not the port
	tree=$FIO_MASTER_SRC base=$FIO_BASE_TAG dir=$FIO_PATCHES out=$BUILD/fio-patches prefix=()
	[ -d "$tree/.git" ] || die "no fio master tree: run make fio-master FIO_MASTER=<fio git repository>"
	args=(--to=fio@vger.kernel.org --cc="Jens Axboe <axboe@kernel.dk>"
	      --cc="Vincent Fu <vincent.fu@samsung.com>")
	;;
*)
	die "usage: patches.sh [kernel|fio]"
	;;
esac

rm -rf "$out"
mkdir -p "$out"
git -C "$tree" format-patch -q "${prefix[@]}" --cover-letter --no-signature --thread=shallow \
	"${args[@]}" -o "$out" "$base..HEAD"

# README.md's text between <!-- NAME --> and <!-- /NAME -->
readme_part() {
	sed -n "/<!-- $1 -->/,/<!-- \/$1 -->/p" "$TOP/README.md" | sed '1d;$d'
}
bench=$(readme_part bench) profile=$(readme_part profile)
BENCH=${bench:-"(no make bench table in README.md)"} \
PROFILE=${profile:-"(no make profile summary in README.md)"} \
BASE=$(git -C "$tree" log -1 --format=%s "$base") \
python3 - "$out"/*0000-cover-letter.patch "$dir/cover-letter.txt" <<'PY'
import os, sys
cover, template = sys.argv[1:3]
subject, _, body = open(template).read().partition("\n\n")
for key in ("BENCH", "PROFILE", "BASE"):
    body = body.replace(f"@{key}@", os.environ[key].strip())
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.rstrip())
open(cover, "w").write(text)
PY
note "$(ls "$out" | wc -l) files in ${out#"$TOP"/} (cover letter included)"
