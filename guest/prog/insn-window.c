// SPDX-License-Identifier: GPL-2.0
/*
 * insn-window: run something inside a window of tools/insn-plugin.c's
 * instruction counts, pinned to one CPU.
 *
 * usage: insn-window [-c CPU] -l N         a loop of exactly 2N+1 user-space
 *                                          instructions (mov, then N times
 *                                          dec and jnz)
 *        insn-window [-c CPU] COMMAND...   fork, execute COMMAND, wait
 * With COMMAND, exits with its status: VBLK_EXIT_FAIL if a signal killed
 * it, 127 (a shell's status) if it could not be executed.
 * Without the plugin the markers are NOPs and only the work is done.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "insn-window.h"
#include "vblk-uring.h"

static void usage(void)
{
	fprintf(stderr, "usage: insn-window [-c CPU] -l N | [-c CPU] COMMAND...\n");
	exit(VBLK_EXIT_USAGE);
}

/* The marked loop, in one asm statement so that nothing else is counted */
static void counted_loop(unsigned long n)
{
	__asm__ volatile(".byte " INSN_WINDOW_STR(INSN_WINDOW_OPEN_BYTES) "\n\t"
			 "mov %0, %%rcx\n"
			 "1:\tdec %%rcx\n\t"
			 "jnz 1b\n\t"
			 ".byte " INSN_WINDOW_STR(INSN_WINDOW_CLOSE_BYTES)
			 :: "r"(n) : "rcx", "cc", "memory");
}

int main(int argc, char **argv)
{
	unsigned long loops = 0;
	int opt, status;
	cpu_set_t set;
	pid_t pid;

	CPU_ZERO(&set);
	while ((opt = getopt(argc, argv, "+c:l:")) != -1) {
		switch (opt) {
		case 'c':
			CPU_SET(vblk_number(optarg, usage), &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("sched_setaffinity");
				return VBLK_EXIT_USAGE;
			}
			break;
		case 'l':
			loops = vblk_number(optarg, usage);
			break;
		default:
			usage();
		}
	}
	if (loops) {
		if (optind != argc)
			usage();
		/*
		 * Let the shells that forked us block in their wait first:
		 * one still runnable on this CPU would run the rest of its
		 * fork path inside the window, as user-space instructions.
		 */
		usleep(200000);
		counted_loop(loops);
		return VBLK_EXIT_PASS;
	}
	if (optind == argc)
		usage();

	insn_window_begin();
	pid = fork();
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		insn_window_end();
		perror("fork");
		return VBLK_EXIT_USAGE;
	}
	insn_window_end();
	return WIFEXITED(status) ? WEXITSTATUS(status) : VBLK_EXIT_FAIL;
}
