/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest programs' exit codes (guest/prog, t/), as liburing's tests
 * have them: the runner (tests/run.py) reports a case whose program exits
 * with VBLK_EXIT_SKIP as skipped, with the program's last line as the
 * reason.  It includes nothing, so that the programs without liburing (the
 * -m32 ones) can use it too.
 */
#ifndef VBLK_EXIT_H
#define VBLK_EXIT_H

enum vblk_exit {
	VBLK_EXIT_PASS = 0,
	VBLK_EXIT_FAIL = 1,		/* a check failed */
	VBLK_EXIT_USAGE = 2,		/* bad arguments, or the set-up failed */
	VBLK_EXIT_SKIP = 77,		/* the guest cannot run this */
};

#endif
