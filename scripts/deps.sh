#!/usr/bin/env bash
# make deps: install the Debian packages in scripts/debian-packages.
# Idempotent, and quick when everything is already installed.
. "$(dirname "$0")/common.sh"

mapfile -t wanted < <(grep -v -e '^#' -e '^$' "$TOP/scripts/debian-packages")
missing=()
for pkg in "${wanted[@]}"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

note "installing: ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >"$log" 2>&1 || true
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	die "apt-get install failed"
}
rm -f "$log"
