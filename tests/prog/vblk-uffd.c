// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-uffd: send a DISCARD through a virtio-blk passthrough node whose
 * range array lies on a page registered with userfaultfd and never filled,
 * so that the kernel's copy of the array faults and waits for as long as
 * this program lives.  The test then removes the disk: the removal must not
 * wait for the fault.
 *
 * usage: vblk-uffd /dev/vdXc0
 * Prints "submitting" before the submission that blocks; if the fault is
 * ever resolved (it is not: the program is killed) prints the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vblk-uring.h"

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct virtblk_uring_cmd cmd = { .type = VIRTIO_BLK_T_DISCARD };
	long page = sysconf(_SC_PAGESIZE);
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int uffd, fd;
	void *area;

	if (argc != 2) {
		fprintf(stderr, "usage: vblk-uffd DEV\n");
		return VBLK_EXIT_USAGE;
	}
	fd = open(argv[1], O_RDWR);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0 && errno == ENOSYS) {
		printf("vblk-uffd: the kernel has no userfaultfd\n");
		return VBLK_EXIT_SKIP;
	}
	area = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || uffd < 0 || area == MAP_FAILED) {
		perror("vblk-uffd: set-up");
		return VBLK_EXIT_USAGE;
	}
	reg.range.start = (uintptr_t)area;
	reg.range.len = page;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg) ||
	    vblk_ring_init(&ring, 1, IORING_SETUP_SQE128)) {
		perror("vblk-uffd: userfaultfd or ring");
		return VBLK_EXIT_USAGE;
	}

	/* one range, in the page nobody will ever fill */
	cmd.data = (uintptr_t)area;
	cmd.data_len = sizeof(struct virtio_blk_discard_write_zeroes);
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
