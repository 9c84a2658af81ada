#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make kernel: configure (tinyconfig + kernel/guest.config, + kernel/debug.config
# for VARIANT=debug) and build the guest kernel out of tree in build/kobj,
# then stage its image (build/bzImage), modules (build/modroot) and UAPI
# headers (build/kobj/usr/include); the debug variant's names end in -debug.
# Incremental: kbuild rebuilds only what changed.
. "$(dirname "$0")/common.sh"

FRAGMENTS=("$TOP/kernel/guest.config")
[ "$VARIANT" != debug ] || FRAGMENTS+=("$TOP/kernel/debug.config")
JOBS=${JOBS:-$(nproc)}
KMAKE=(make -C "$KSRC" O="$KOBJ" -j"$JOBS" CC="ccache gcc"
       KBUILD_BUILD_USER=vblk KBUILD_BUILD_HOST=guest)

configure() {
	local line opt want got bad=0
	note "configuring the guest kernel from ${FRAGMENTS[*]##*/}"
	"${KMAKE[@]}" tinyconfig >"$LOGS/kconfig$SUFFIX.log" 2>&1
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" "${FRAGMENTS[@]}" \
		>>"$LOGS/kconfig$SUFFIX.log" 2>&1
	"${KMAKE[@]}" olddefconfig >>"$LOGS/kconfig$SUFFIX.log" 2>&1
	while read -r line; do
		opt=${line%%=*} want=${line#*=}
		# "=n" asks for "is not set"
		[ "$want" = n ] && line="# $opt is not set"
		got=$(grep -E "^$opt=|^# $opt is not set" "$KOBJ/.config" || true)
		if [ "$got" != "$line" ]; then
			echo "config: $opt=$want requested, got '${got:-nothing}'" >&2
			bad=1
		fi
	# as in merge_config.sh, a later fragment's value overrides an earlier one
	done < <(cat "${FRAGMENTS[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=' | tac | awk -F= '!seen[$1]++')
	[ $bad -eq 0 ] || die "kernel config fragment did not apply (see above)"
	cat "${FRAGMENTS[@]}" >"$KOBJ/.vblk-fragment"
}

log=$LOGS/kernel$SUFFIX.log
mkdir -p "$KOBJ" "$LOGS"
cat "${FRAGMENTS[@]}" | cmp -s - "$KOBJ/.vblk-fragment" || configure
note "building the ${VARIANT:-default} guest kernel (log: ${log#"$TOP"/})"
if ! "${KMAKE[@]}" bzImage modules >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -40 >&2
	die "kernel build failed: see ${log#"$TOP"/}"
fi
rm -rf "$MODROOT"
"${KMAKE[@]}" -s INSTALL_MOD_PATH="$MODROOT" modules_install >>"$log" 2>&1 ||
	die "modules_install failed: see ${log#"$TOP"/}"
"${KMAKE[@]}" -s headers >>"$log" 2>&1 ||
	die "make headers failed: see ${log#"$TOP"/}"
cp "$KOBJ/arch/x86/boot/bzImage" "$KERNEL"
