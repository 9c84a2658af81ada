#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make nvme-effect: what each patch of the series that changes block/ or
# io_uring/ does to NVMe's passthrough and block device per I/O.  For every
# such patch N (or the numbers given) the guest kernel is built at N-1 and
# at N in a worktree of its own (build/effect, objects in build/effect-obj,
# the default kernel's .config), each state once, and make profile measures
# NVMe's paths alone on it (tools/profile.py --paths ng,nvme --quick
# --fixed: reads, plain and registered buffers, QD 1 and 32, interrupt and
# polled, two boots).  tools/nvme_effect.py then writes the table of each
# patch, before and after, to build/effect-results/nvme-effect.md.
# usage: nvme-effect.sh [N...]
. "$(dirname "$0")/common.sh"

WT=$BUILD/effect
OBJ=$BUILD/effect-obj
OUT=$BUILD/effect-results
KMAKE=(make -C "$WT" O="$OBJ" -j"$(nproc)" CC="ccache gcc"
       KBUILD_BUILD_USER=vblk KBUILD_BUILD_HOST=guest)

mapfile -t COMMITS < <(ktree_git rev-list --reverse "$BASE_TAG..HEAD")

# The patches that change block/, io_uring/ or their headers, by number.
core_patches() {
	local n=0 c
	for c in "${COMMITS[@]}"; do
		n=$((n + 1))
		[ -z "$(ktree_git diff --name-only "$c^" "$c" -- block io_uring \
			include/linux/blk-mq.h include/linux/blkdev.h include/linux/io_uring.h \
			include/linux/io_uring_types.h include/linux/io_uring)" ] ||
			echo "$n"
	done
}

# Build the tree with patches 1..$1 applied (0: the base) and measure it.
measure() {
	local n=$1 dir=$OUT/$1 commit=$BASE_TAG
	[ "$n" -eq 0 ] || commit=${COMMITS[n - 1]}
	if [ -f "$dir/profile.json" ] && [ "$(cat "$dir/commit")" = "$commit" ]; then
		note "patch $n: measured already ($dir)"
		return
	fi
	note "patch $n: building the guest kernel at $(git -C "$WT" log -1 --format=%s "$commit")"
	git -C "$WT" checkout -q --detach "$commit"
	mkdir -p "$dir"
	{ "${KMAKE[@]}" olddefconfig && "${KMAKE[@]}" bzImage modules; } >"$dir/build.log" 2>&1 ||
		{ tail -30 "$dir/build.log"; die "patch $n does not build"; }
	rm -rf "$dir/modroot"
	"${KMAKE[@]}" -s INSTALL_MOD_PATH="$dir/modroot" modules_install >>"$dir/build.log" 2>&1
	cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/System.map" "$dir/"
	"$TOP/guest/mkinitramfs.sh" "$dir/initramfs.cpio.gz" "$dir/modroot" \
		"$BUILD"/guest-bin/* "$BUILD/fio/fio"
	note "patch $n: measuring NVMe's paths"
	python3 "$TOP/tools/profile.py" --paths ng,nvme --quick --fixed --out "$dir" \
		--kernel "$dir/bzImage" --initrd "$dir/initramfs.cpio.gz" \
		--system-map "$dir/System.map" >"$dir/profile.log" 2>&1 ||
		{ tail -30 "$dir/profile.log"; die "patch $n: make profile failed"; }
	git -C "$WT" log -1 --format=%s "$commit" >"$dir/subject"
	echo "$commit" >"$dir/commit"
}

[ -f "$KOBJ/.config" ] || die "no guest kernel configured: run make kernel"
[ -x "$BUILD/guest-bin/io_uring-vblk" ] || die "no guest programs: run make guest"
patches=("$@")
[ ${#patches[@]} -gt 0 ] || mapfile -t patches < <(core_patches)
worktree "$WT"
mkdir -p "$OBJ"
cp "$KOBJ/.config" "$OBJ/.config"
mapfile -t states < <(for n in "${patches[@]}"; do echo $((n - 1)); echo "$n"; done | sort -nu)
for n in "${states[@]}"; do
	measure "$n"
done
python3 "$TOP/tools/nvme_effect.py" "$OUT" "${patches[@]}" | tee "$OUT/nvme-effect.md"
