// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-compat32: a passthrough node, virtio-blk's /dev/vdXc0 or NVMe's
 * /dev/ngXnY, used by a 32-bit task (built with -m32, run under IA32
 * emulation).  No liburing here: the ring is set up with the raw system
 * calls, so that every pointer the kernel sees is a 32-bit one and every
 * iovec a struct compat_iovec.
 *
 * usage: vblk-compat32 NODE SECTOR SEED [PEER]
 * Runs raw_node_compat_steps() (raw-nvme.h) on 16 KiB at SECTOR twice:
 * submitted by the task itself, then by an SQPOLL thread.  With PEER, a
 * 64-bit program, it then sets up a third ring and executes PEER RINGFD
 * NODEFD SECTOR+32 SEED+1, which takes the ring over and submits 32-bit
 * commands from 64-bit system calls: the ring, not the issuing thread,
 * says the task is a 32-bit one.  Prints one line per step; exits
 * VBLK_EXIT_FAIL on a failure.
 */
#include <fcntl.h>
#include <stdlib.h>

#include "pattern.h"
#include "raw-nvme.h"
#include "vblk-exit.h"

int main(int argc, char **argv)
{
	static const unsigned int ring_flags[] = { 0, IORING_SETUP_SQPOLL };
	char ring_arg[16], fd_arg[16], sector_arg[24], seed_arg[24];
	uint64_t sector, seed;
	struct raw_ring ring;
	int fd, nsid, ring_fd, failed = 0;
	unsigned int i;
	char *buf;

	if (argc < 4 || argc > 5 || sizeof(void *) != 4) {
		fprintf(stderr, "usage: vblk-compat32 NODE SECTOR SEED [PEER] (a 32-bit build)\n");
		return VBLK_EXIT_USAGE;
	}
	sector = strtoull(argv[2], NULL, 0);
	seed = strtoull(argv[3], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, RAW_BUF_LEN)) {
		perror("set-up");
		return VBLK_EXIT_USAGE;
	}
	nsid = raw_node_nsid(fd);
	for (i = 0; i < sizeof(ring_flags) / sizeof(ring_flags[0]); i++) {
		if (raw_ring_init(&ring, raw_node_ring_flags(nsid) | ring_flags[i])) {
			perror("ring set-up");
			return VBLK_EXIT_USAGE;
		}
		printf("%s:\n", ring_flags[i] ? "SQPOLL ring" : "ring");
		failed += raw_node_compat_steps(&ring, fd, nsid, buf, sector, seed, 0);
	}
	if (argc < 5 || failed)
		return failed ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;

	/* io_uring_setup() makes its fd close-on-exec */
	ring_fd = raw_ring_setup(raw_node_ring_flags(nsid), &(struct io_uring_params){ 0 });
	if (ring_fd < 0 || fcntl(ring_fd, F_SETFD, 0)) {
		perror("ring set-up");
		return VBLK_EXIT_USAGE;
	}
	snprintf(ring_arg, sizeof(ring_arg), "%d", ring_fd);
	snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
	snprintf(sector_arg, sizeof(sector_arg), "%llu", (unsigned long long)sector + 32);
	snprintf(seed_arg, sizeof(seed_arg), "%llu", (unsigned long long)seed + 1);
	printf("ring handed to a 64-bit task:\n");
	fflush(stdout);
	execl(argv[4], argv[4], ring_arg, fd_arg, sector_arg, seed_arg, (char *)NULL);
	perror(argv[4]);
	return VBLK_EXIT_USAGE;
}
