// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-uffd: send a command through a virtio-blk passthrough node whose
 * user memory lies on pages registered with userfaultfd and never filled,
 * so that the kernel's access to them faults and waits for as long as this
 * program lives.  The test then removes the disk: the removal must not wait
 * for the fault.
 *
 * usage: vblk-uffd [-t discard|write-zeroes|write|read] [-p PAGES] /dev/vdXc0
 *   -t  the command [discard]: a DISCARD or WRITE_ZEROES whose range array
 *       is on the page, or a WRITE or READ of PAGES pages [1] from there
 * Prints "submitting" before the submission that blocks; if the fault is
 * ever resolved (it is not: the program is killed) prints the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vblk-uring.h"

static const struct {
	const char *name;
	uint32_t type;
	bool ranges;		/* the user memory is a range array */
} commands[] = {
	{ "discard", VIRTIO_BLK_T_DISCARD, true },
	{ "write-zeroes", VIRTIO_BLK_T_WRITE_ZEROES, true },
	{ "write", VIRTIO_BLK_T_OUT, false },
	{ "read", VIRTIO_BLK_T_IN, false },
};

static void usage(void)
{
	fprintf(stderr, "usage: vblk-uffd [-t discard|write-zeroes|write|read] [-p PAGES] DEV\n");
	exit(VBLK_EXIT_USAGE);
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct vblk_cmd cmd = {};
	long page = sysconf(_SC_PAGESIZE);
	unsigned int c = 0, pages = 1;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int opt, uffd, fd;
	void *area;

	while ((opt = getopt(argc, argv, "t:p:")) != -1) {
		switch (opt) {
		case 't':
			for (c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
				if (!strcmp(optarg, commands[c].name))
					break;
			if (c == sizeof(commands) / sizeof(commands[0]))
				usage();
			break;
		case 'p':
			pages = vblk_number(optarg, usage);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !pages || (commands[c].ranges && pages != 1))
		usage();
	fd = open(argv[optind], O_RDWR);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0 && errno == ENOSYS) {
		printf("vblk-uffd: the kernel has no userfaultfd\n");
		return VBLK_EXIT_SKIP;
	}
	area = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || uffd < 0 || area == MAP_FAILED) {
		perror("vblk-uffd: set-up");
		return VBLK_EXIT_USAGE;
	}
	reg.range.start = (uintptr_t)area;
	reg.range.len = pages * page;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    vblk_ring_init(&ring, 1, 0)) {
		perror("vblk-uffd: userfaultfd or ring");
		return VBLK_EXIT_USAGE;
	}

	/* one range, or the data, in pages nobody will ever fill */
	cmd.type = commands[c].type;
	cmd.data = (uintptr_t)area;
	cmd.data_len = commands[c].ranges ? sizeof(struct virtio_blk_discard_write_zeroes)
					  : pages * (uint32_t)page;
	sqe = io_uring_get_sqe(&ring);
	vblk_prep_cmd(&ring, sqe, fd, VIRTBLK_URING_CMD_IO, &cmd);
	printf("submitting\n");
	fflush(stdout);
	if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe)) {
		fprintf(stderr, "vblk-uffd: submission failed\n");
		return VBLK_EXIT_FAIL;
	}
	printf("res=%d\n", cqe->res);
	return VBLK_EXIT_PASS;
}
