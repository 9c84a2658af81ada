/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A passthrough ring driven by the raw io_uring system calls, for the
 * programs that cannot use liburing: 32-bit builds (there is no -m32
 * liburing), and a 64-bit task that takes over a ring a 32-bit task set up.
 * It carries virtio-blk's commands, and NVMe's on a CQE32 ring.
 */
#ifndef RAW_RING_H
#define RAW_RING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_blk_uring_cmd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RAW_SQE_SIZE	128
#define RAW_ENTRIES	4

struct raw_ring {
	int fd;
	unsigned int cqe_shift;		/* 1 on a CQE32 ring: a CQE is two */
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	char *sqes;
	struct io_uring_cqe *cqes;
};

/* Map the ring behind fd, which io_uring_setup() described in *p. */
static inline int raw_ring_map(struct raw_ring *r, int fd, const struct io_uring_params *p)
{
	size_t sq_len = p->sq_off.array + p->sq_entries * sizeof(unsigned int);
	unsigned int cqe_shift = !!(p->flags & IORING_SETUP_CQE32);
	size_t cq_len = p->cq_off.cqes + (p->cq_entries * sizeof(struct io_uring_cqe) << cqe_shift);
	char *sq;

	if (cq_len > sq_len)
		sq_len = cq_len;
	if (!(p->features & IORING_FEAT_SINGLE_MMAP))
		return -ENOMEM;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  fd, IORING_OFF_SQ_RING);
	r->sqes = mmap(NULL, p->sq_entries * RAW_SQE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	r->fd = fd;
	r->cqe_shift = cqe_shift;
	r->sq_tail = (unsigned int *)(sq + p->sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p->sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p->sq_off.array);
	r->cq_head = (unsigned int *)(sq + p->cq_off.head);
	r->cq_tail = (unsigned int *)(sq + p->cq_off.tail);
	r->cq_mask = (unsigned int *)(sq + p->cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(sq + p->cq_off.cqes);
	return 0;
}

/* Set up an SQE128 ring of RAW_ENTRIES with extra flags (IORING_SETUP_SQPOLL,
 * IORING_SETUP_CQE32); fill in *p. */
static inline int raw_ring_setup(unsigned int flags, struct io_uring_params *p)
{
	int fd;

	memset(p, 0, sizeof(*p));
	p->flags = IORING_SETUP_SQE128 | flags;
	fd = syscall(__NR_io_uring_setup, RAW_ENTRIES, p);
	return fd < 0 ? -errno : fd;
}

static inline int raw_ring_init(struct raw_ring *r, unsigned int flags)
{
	struct io_uring_params p;
	int fd = raw_ring_setup(flags, &p);

	return fd < 0 ? fd : raw_ring_map(r, fd, &p);
}

/*
 * Submit one uring_cmd: sqe->addr and sqe->len, len bytes of command area
 * from cmd, the SQE flags sqe_flags (IOSQE_ASYNC: from an io-wq worker);
 * return its cqe->res.
 */
static inline int raw_ring_uring_cmd(struct raw_ring *r, int fd, uint32_t op, uint64_t addr,
				     uint32_t addr_len, const void *cmd, size_t len,
				     unsigned int sqe_flags)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)(r->sqes + idx * RAW_SQE_SIZE);
	int res;

	memset(sqe, 0, RAW_SQE_SIZE);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->flags = sqe_flags;
	sqe->fd = fd;
	sqe->cmd_op = op;
	sqe->addr = addr;
	sqe->len = addr_len;
	memcpy(sqe->cmd, cmd, len);
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	/* an SQPOLL thread takes the submission itself; wake it if it sleeps */
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1,
		    IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP, NULL, 0) < 0)
		return -1000 - errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -2000;
	res = r->cqes[(head & *r->cq_mask) << r->cqe_shift].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/*
 * Submit one virtio-blk passthrough command, its data at addr (len bytes,
 * or iovecs), and return its cqe->res.
 */
static inline int raw_ring_cmd(struct raw_ring *r, int fd, uint32_t op,
			       const struct virtblk_uring_cmd *cmd, uint64_t addr, uint32_t len,
			       unsigned int sqe_flags)
{
	return raw_ring_uring_cmd(r, fd, op, addr, len, cmd, sizeof(*cmd), sqe_flags);
}

static inline int raw_step(const char *what, int res, int want)
{
	printf("%s: res=%d (expected %d)\n", what, res, want);
	return res != want;
}

/*
 * A 32-bit task's iovec, as the kernel reads it from a compat ring
 * (struct compat_iovec): a 32-bit task's own struct iovec.
 */
struct raw_iovec32 {
	uint32_t base;
	uint32_t len;
};

#define RAW_LEN		16384			/* the data of each step */
#define RAW_BUF_LEN	(RAW_LEN + 4096)	/* and room for the iovecs */

/*
 * The steps of a 32-bit task's commands, buf (RAW_BUF_LEN bytes, page
 * aligned) below 4 GiB:
 * a write whose address carries garbage in its upper 32 bits (ignored for
 * a 32-bit task), a read back through four 32-bit iovecs, checked, and an
 * unmapped address (-EFAULT), each with the SQE flags sqe_flags.  Returns
 * the number of steps that failed.
 */
static inline int raw_compat_steps(struct raw_ring *ring, int fd, char *buf,
			    uint64_t sector, uint64_t seed, unsigned int sqe_flags)
{
	struct virtblk_uring_cmd cmd = { 0 };
	struct raw_iovec32 *iov = (struct raw_iovec32 *)(buf + RAW_LEN);
	int i, failed = 0;

	pattern_fill(buf, seed, sector * 512, RAW_LEN);
	cmd.type = VIRTIO_BLK_T_OUT;
	cmd.sector = sector;
	failed += raw_step("write, upper address bits set",
			   raw_ring_cmd(ring, fd, VIRTBLK_URING_CMD_IO, &cmd,
					0xdeadbeef00000000ULL | (uint32_t)(uintptr_t)buf, RAW_LEN,
					sqe_flags), 0);

	memset(buf, 0, RAW_LEN);
	for (i = 0; i < 4; i++) {
		iov[i].base = (uint32_t)(uintptr_t)(buf + i * (RAW_LEN / 4));
		iov[i].len = RAW_LEN / 4;
	}
	cmd.type = VIRTIO_BLK_T_IN;
	failed += raw_step("read, four 32-bit iovecs",
			   raw_ring_cmd(ring, fd, VIRTBLK_URING_CMD_IO_VEC, &cmd,
					(uint32_t)(uintptr_t)iov, 4, sqe_flags), 0);
	failed += raw_step("data read back",
			   pattern_check(buf, seed, sector * 512, RAW_LEN) < 0, 1);

	failed += raw_step("unmapped buffer",
			   raw_ring_cmd(ring, fd, VIRTBLK_URING_CMD_IO, &cmd, 0x1000, RAW_LEN,
					sqe_flags), -EFAULT);
	return failed;
}

#endif
