// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-compat-peer: a 64-bit task that takes over a ring a 32-bit task set
 * up (vblk-compat32 executes it with the ring's fd).  Its system calls are
 * 64-bit ones, but the ring is a compat ring: the node, virtio-blk's or
 * NVMe's, must read the commands' pointers and iovecs as a 32-bit task's,
 * as io_uring does for its own opcodes.  Decided by in_compat_syscall()
 * instead, the write's upper address bits would make it fail with -EFAULT.
 *
 * usage: vblk-compat-peer RINGFD NODEFD SECTOR SEED
 * Runs raw_node_compat_steps() at SECTOR, submitted by this task, then at
 * SECTOR + 32 with IOSQE_ASYNC (an io-wq worker of this task), on a buffer
 * below 4 GiB; exits VBLK_EXIT_FAIL on a failure.
 */
#include <stdlib.h>

#include "pattern.h"
#include "raw-nvme.h"
#include "vblk-exit.h"

int main(int argc, char **argv)
{
	static const unsigned int sqe_flags[] = { 0, IOSQE_ASYNC };
	struct io_uring_params p;
	struct raw_ring ring;
	int probe, fd, nsid, failed = 0;
	uint64_t sector, seed;
	unsigned int i;
	char *buf;

	if (argc != 5 || sizeof(void *) != 8) {
		fprintf(stderr, "usage: vblk-compat-peer RINGFD NODEFD SECTOR SEED (a 64-bit build)\n");
		return VBLK_EXIT_USAGE;
	}
	fd = atoi(argv[2]);
	sector = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	nsid = raw_node_nsid(fd);
	/* The ring's layout is that of any ring set up with the same flags */
	probe = raw_ring_setup(raw_node_ring_flags(nsid), &p);
	buf = mmap(NULL, RAW_BUF_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (probe < 0 || buf == MAP_FAILED || raw_ring_map(&ring, atoi(argv[1]), &p)) {
		perror("set-up");
		return VBLK_EXIT_USAGE;
	}
	close(probe);
	for (i = 0; i < sizeof(sqe_flags) / sizeof(sqe_flags[0]); i++) {
		printf("%s:\n", sqe_flags[i] ? "IOSQE_ASYNC" : "submitted by the 64-bit task");
		failed += raw_node_compat_steps(&ring, fd, nsid, buf, sector + 32 * i, seed,
						sqe_flags[i]);
	}
	return failed ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
