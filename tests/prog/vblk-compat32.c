// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-compat32: the passthrough node used by a 32-bit task (built with
 * -m32, run under IA32 emulation).  No liburing here: the ring is set up
 * with the raw system calls, so that every pointer the kernel sees is a
 * 32-bit one and every iovec a struct compat_iovec.
 *
 * usage: vblk-compat32 /dev/vdXc0 SECTOR SEED
 * Writes 16 KiB of the pattern at SECTOR from a plain buffer whose address
 * carries garbage in the upper 32 bits (ignored for a 32-bit task), reads it
 * back through four 32-bit iovecs and checks it, and checks that an
 * unmapped address gets -EFAULT.  All of it twice: submitted by the task
 * itself, then by an SQPOLL thread, which is never in a compat system call
 * (the ring, not the issuing thread, says the task is a 32-bit one).
 * Prints one line per step; exits 1 on a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/virtio_blk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pattern.h"

#define LEN	16384
#define SQE_SIZE 128

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	char *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r, unsigned int flags)
{
	struct io_uring_params p;
	char *sq, *cq;
	size_t sq_len, cq_len;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | flags;
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (cq_len > sq_len)
		sq_len = cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * SQE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || r->sqes == MAP_FAILED || !(p.features & IORING_FEAT_SINGLE_MMAP))
		return -ENOMEM;
	cq = sq;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit one passthrough command and return its cqe->res. */
static int run_cmd(struct ring *r, int fd, uint32_t op, const struct virtblk_uring_cmd *cmd)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)(r->sqes + idx * SQE_SIZE);
	int res;

	memset(sqe, 0, SQE_SIZE);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	/* an SQPOLL thread takes the submission itself; wake it if it sleeps */
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1,
		    IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP, NULL, 0) < 0)
		return -1000 - errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -2000;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static int step(const char *what, int res, int want)
{
	printf("%s: res=%d (expected %d)\n", what, res, want);
	return res != want;
}

/* The steps on one ring; return the number that failed. */
static int steps(struct ring *ring, int fd, char *buf, uint64_t sector, uint64_t seed)
{
	struct virtblk_uring_cmd cmd = { 0 };
	struct iovec iov[4];
	int i, failed = 0;

	pattern_fill(buf, seed, sector * 512, LEN);
	cmd.type = VIRTIO_BLK_T_OUT;
	cmd.sector = sector;
	cmd.data = 0xdeadbeef00000000ULL | (uintptr_t)buf;
	cmd.data_len = LEN;
	failed += step("write, upper address bits set", run_cmd(ring, fd, VIRTBLK_URING_CMD_IO, &cmd), 0);

	memset(buf, 0, LEN);
	for (i = 0; i < 4; i++) {
		iov[i].iov_base = buf + i * (LEN / 4);
		iov[i].iov_len = LEN / 4;
	}
	cmd.type = VIRTIO_BLK_T_IN;
	cmd.data = (uintptr_t)iov;
	cmd.data_len = 4;
	failed += step("read, four 32-bit iovecs", run_cmd(ring, fd, VIRTBLK_URING_CMD_IO_VEC, &cmd), 0);
	failed += step("data read back", pattern_check(buf, seed, sector * 512, LEN) < 0, 1);

	cmd.data = 0x1000;
	cmd.data_len = LEN;
	failed += step("unmapped buffer", run_cmd(ring, fd, VIRTBLK_URING_CMD_IO, &cmd), -EFAULT);
	return failed;
}

int main(int argc, char **argv)
{
	static const unsigned int ring_flags[] = { 0, IORING_SETUP_SQPOLL };
	uint64_t sector, seed;
	struct ring ring;
	int fd, failed = 0;
	unsigned int i;
	char *buf;

	if (argc != 4 || sizeof(void *) != 4) {
		fprintf(stderr, "usage: vblk-compat32 /dev/vdXc0 SECTOR SEED (a 32-bit build)\n");
		return 2;
	}
	sector = strtoull(argv[2], NULL, 0);
	seed = strtoull(argv[3], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, LEN)) {
		perror("set-up");
		return 2;
	}
	for (i = 0; i < sizeof(ring_flags) / sizeof(ring_flags[0]); i++) {
		if (ring_init(&ring, ring_flags[i])) {
			perror("ring set-up");
			return 2;
		}
		printf("%s:\n", ring_flags[i] ? "SQPOLL ring" : "ring");
		failed += steps(&ring, fd, buf, sector, seed);
	}
	return failed ? 1 : 0;
}
