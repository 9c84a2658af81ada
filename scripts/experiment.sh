#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make experiment, make experiment-test: the kernel of experiments/$VARIANT/,
# a prototype measured beside the series or a kernel broken on purpose to
# show that tests fail on it, never mailed: a worktree of build/linux (the base
# and the series) at its HEAD with the experiment's patches on top, built
# as the default kernel is (scripts/kernel.sh), and its initramfs with the
# given guest programs.
# usage: VARIANT=NAME experiment.sh PROGRAM...
. "$(dirname "$0")/common.sh"

[ -n "$VARIANT" ] && [ -d "$TOP/experiments/$VARIANT" ] ||
	die "VARIANT=$VARIANT: no experiments/$VARIANT/"
series=$(git -C "$BUILD/linux" rev-parse HEAD)
if [ ! -e "$KSRC/.git" ]; then
	git -C "$BUILD/linux" worktree prune
	git -C "$BUILD/linux" worktree add -q --detach "$KSRC" "$series"
else
	git -C "$KSRC" am --abort 2>/dev/null || true
	git -C "$KSRC" checkout -q --force --detach "$series"
fi
note "applying experiments/$VARIANT/ to the series in ${KSRC#"$TOP"/}"
git -C "$KSRC" -c user.name=experiment -c user.email=experiment@localhost \
	am -q "$TOP/experiments/$VARIANT/"*.patch
"$TOP/scripts/kernel.sh"
"$TOP/guest/mkinitramfs.sh" "$INITRD" "$MODROOT" "$@"
