#!/usr/bin/env bash
# make kernel: configure (tinyconfig + kernel/guest.config) and build the
# guest kernel out of tree in build/kobj, then stage its modules (in
# build/modroot) and UAPI headers (in build/kobj/usr/include).
# Incremental: kbuild rebuilds only what changed.
. "$(dirname "$0")/common.sh"

FRAGMENT=${FRAGMENT:-$TOP/kernel/guest.config}
JOBS=${JOBS:-$(nproc)}
KMAKE=(make -C "$KSRC" O="$KOBJ" -j"$JOBS" CC="ccache gcc"
       KBUILD_BUILD_USER=vblk KBUILD_BUILD_HOST=guest)

configure() {
	local opt want got bad=0
	note "configuring the guest kernel from $(basename "$FRAGMENT")"
	"${KMAKE[@]}" tinyconfig >"$LOGS/kconfig.log" 2>&1
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" "$FRAGMENT" \
		>>"$LOGS/kconfig.log" 2>&1
	"${KMAKE[@]}" olddefconfig >>"$LOGS/kconfig.log" 2>&1
	while IFS='=' read -r opt want; do
		got=$(grep -E "^$opt=|^# $opt is not set" "$KOBJ/.config" || true)
		if [ "$got" != "$opt=$want" ]; then
			echo "config: $opt=$want requested, got '${got:-nothing}'" >&2
			bad=1
		fi
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAGMENT")
	[ $bad -eq 0 ] || die "kernel config fragment did not apply (see above)"
	cp "$FRAGMENT" "$KOBJ/.vblk-fragment"
}

mkdir -p "$KOBJ" "$LOGS"
cmp -s "$FRAGMENT" "$KOBJ/.vblk-fragment" || configure
note "building the guest kernel (log: build/logs/kernel.log)"
if ! "${KMAKE[@]}" bzImage modules >"$LOGS/kernel.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/kernel.log" | head -40 >&2
	die "kernel build failed: see build/logs/kernel.log"
fi
rm -rf "$BUILD/modroot"
"${KMAKE[@]}" -s INSTALL_MOD_PATH="$BUILD/modroot" modules_install >>"$LOGS/kernel.log" 2>&1 ||
	die "modules_install failed: see build/logs/kernel.log"
"${KMAKE[@]}" -s headers >>"$LOGS/kernel.log" 2>&1 ||
	die "make headers failed: see build/logs/kernel.log"
cp "$KOBJ/arch/x86/boot/bzImage" "$BUILD/bzImage"
