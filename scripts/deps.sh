#!/usr/bin/env bash
# make deps: install the Debian packages in scripts/debian-packages.
# Idempotent, and quick when everything is already installed.
. "$(dirname "$0")/common.sh"

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

# make fio runs `apt-get source fio`, which needs a deb-src entry for
# bookworm main; add one (deb822) unless apt already has such an entry.
DEB_SRC=/etc/apt/sources.list.d/vblk-deb-src.sources
if ! apt-get indextargets --no-release-info --format '$(TARGET_OF) $(RELEASE) $(COMPONENT)' |
	grep -x 'deb-src bookworm main' >/dev/null; then
	note "adding a deb-src entry for bookworm main ($DEB_SRC)"
	"${sudo[@]}" tee "$DEB_SRC" >/dev/null <<-'SOURCES'
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: bookworm
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
	"${sudo[@]}" apt-get update -q >/dev/null || die "apt-get update failed after adding $DEB_SRC"
fi

mapfile -t wanted < <(grep -v -e '^#' -e '^$' "$TOP/scripts/debian-packages")
missing=()
for pkg in "${wanted[@]}"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

note "installing: ${missing[*]}"
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >"$log" 2>&1 || true
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	die "apt-get install failed"
}
rm -f "$log"
