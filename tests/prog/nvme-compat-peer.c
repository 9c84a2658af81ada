// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-compat-peer: a 64-bit task that takes over an NVMe passthrough ring
 * a 32-bit task set up (nvme-compat32 executes it with the ring's fd).  Its
 * system calls are 64-bit ones, but the ring is a compat ring: NVMe must
 * read the commands' pointers and iovecs as a 32-bit task's, as io_uring
 * does for its own opcodes.  Decided by in_compat_syscall() instead, the
 * write's upper address bits make it fail with -EFAULT and the 32-bit
 * iovecs are read as 64-bit ones.
 *
 * usage: nvme-compat-peer RINGFD NODEFD OFFSET SEED
 * Runs raw_nvme_compat_steps() at OFFSET, submitted by this task, then at
 * OFFSET + RAW_LEN with IOSQE_ASYNC (an io-wq worker of this task), on a
 * buffer below 4 GiB; exits VBLK_EXIT_FAIL on a failure.
 */
#include <stdlib.h>

#include "raw-nvme.h"
#include "vblk-exit.h"

int main(int argc, char **argv)
{
	static const unsigned int sqe_flags[] = { 0, IOSQE_ASYNC };
	struct io_uring_params p;
	struct raw_ring ring;
	int probe, fd, nsid, failed = 0;
	uint64_t off, seed;
	unsigned int i;
	char *buf;

	if (argc != 5 || sizeof(void *) != 8) {
		fprintf(stderr, "usage: nvme-compat-peer RINGFD NODEFD OFFSET SEED (a 64-bit build)\n");
		return VBLK_EXIT_USAGE;
	}
	fd = atoi(argv[2]);
	off = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	/* The ring's layout is that of any ring set up with the same flags */
	probe = raw_ring_setup(IORING_SETUP_CQE32, &p);
	buf = mmap(NULL, RAW_BUF_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (probe < 0 || nsid < 0 || buf == MAP_FAILED || raw_ring_map(&ring, atoi(argv[1]), &p)) {
		perror("set-up");
		return VBLK_EXIT_USAGE;
	}
	close(probe);
	for (i = 0; i < sizeof(sqe_flags) / sizeof(sqe_flags[0]); i++) {
		printf("%s:\n", sqe_flags[i] ? "IOSQE_ASYNC" : "submitted by the 64-bit task");
		failed += raw_nvme_compat_steps(&ring, fd, nsid, buf, off + i * RAW_LEN, seed, sqe_flags[i]);
	}
	return failed ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
