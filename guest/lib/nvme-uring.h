/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe passthrough on a namespace's generic char node, /dev/ngXnY: the
 * kernel's own uring_cmd node, which the guest programs drive beside the
 * virtio-blk node with the same loop (struct nvme_uring_cmd from the guest
 * kernel's <linux/nvme_ioctl.h>).
 */
#ifndef NVME_URING_H
#define NVME_URING_H

#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>

#include "vblk-uring.h"

/* NVM command set opcodes (NVMe base specification, I/O commands) */
enum { NVME_OP_FLUSH = 0x00, NVME_OP_WRITE = 0x01, NVME_OP_READ = 0x02 };

/* The namespace ID of an open /dev/ngXnY or /dev/nvmeXnY, or -1. */
static inline int nvme_nsid(int fd)
{
	return ioctl(fd, NVME_IOCTL_ID);
}

/*
 * Fill a 128-byte SQE with cmd_op and a command of len bytes, writing each
 * byte once: clearing all 128 bytes first and copying the command in after
 * costs user space more instructions per I/O.
 */
static inline void nvme_fill_cmd(struct io_uring_sqe *sqe, int fd, uint32_t cmd_op,
				 const void *cmd, size_t len)
{
	/* Not through sqe->cmd: GCC bounds writes there by the 8-byte addr3 it overlays */
	uint8_t *area = (uint8_t *)sqe + offsetof(struct io_uring_sqe, cmd);

	*sqe = (struct io_uring_sqe){
		.opcode = IORING_OP_URING_CMD,
		.fd = fd,
		.cmd_op = cmd_op,
	};
	memcpy(area, cmd, len);
	memset(area + len, 0, 2 * sizeof(*sqe) - offsetof(struct io_uring_sqe, cmd) - len);
}

/*
 * A read or write of len bytes at byte offset off (lbs: the logical block
 * size) from addr: a buffer, or with vectored an array of len iovecs.  It
 * needs an IORING_SETUP_SQE128 | IORING_SETUP_CQE32 ring: the command is 72
 * bytes, and its completion carries NVMe's result in the CQE's second half.
 */
static inline void nvme_prep_rw(struct io_uring_sqe *sqe, int fd, unsigned int nsid,
				unsigned int lbs, int write, uint64_t off, const void *addr,
				uint32_t len, int vectored, uint32_t bytes)
{
	uint64_t slba = off / lbs;
	struct nvme_uring_cmd cmd = {
		.opcode = write ? NVME_OP_WRITE : NVME_OP_READ,
		.nsid = nsid,
		.addr = (uintptr_t)addr,
		.data_len = len,
		.cdw10 = (uint32_t)slba,
		.cdw11 = (uint32_t)(slba >> 32),
		.cdw12 = bytes / lbs - 1,	/* blocks, 0's based */
	};

	nvme_fill_cmd(sqe, fd, vectored ? NVME_URING_CMD_IO_VEC : NVME_URING_CMD_IO,
		      &cmd, sizeof(cmd));
}

static inline void nvme_prep_flush(struct io_uring_sqe *sqe, int fd, unsigned int nsid)
{
	struct nvme_uring_cmd cmd = { .opcode = NVME_OP_FLUSH, .nsid = nsid };

	nvme_fill_cmd(sqe, fd, NVME_URING_CMD_IO, &cmd, sizeof(cmd));
}

#endif
