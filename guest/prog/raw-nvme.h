/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe's passthrough on /dev/ngXnY through a raw ring (raw-ring.h): the
 * steps a 32-bit task's commands take, for vblk-compat32 and the 64-bit
 * peer it hands a ring to, beside raw_compat_steps() for the virtio-blk
 * node.  The ring is an SQE128 | CQE32 one, as NVMe requires; logical
 * blocks of 512 bytes.
 */
#ifndef RAW_NVME_H
#define RAW_NVME_H

#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>

#include "pattern.h"
#include "raw-ring.h"

#define RAW_NVME_LBS	512
#define RAW_NVME_WRITE	0x01
#define RAW_NVME_READ	0x02

/* A read or write of bytes at byte offset off from addr (a buffer, or with
 * vec an array of len 32-bit iovecs); returns cqe->res. */
static inline int raw_nvme_rw(struct raw_ring *ring, int fd, unsigned int nsid, int write,
			      uint64_t off, uint64_t addr, uint32_t len, int vec, uint32_t bytes,
			      unsigned int sqe_flags)
{
	struct nvme_uring_cmd cmd = {
		.opcode = write ? RAW_NVME_WRITE : RAW_NVME_READ,
		.nsid = nsid,
		.addr = addr,
		.data_len = len,
		.cdw10 = (uint32_t)(off / RAW_NVME_LBS),
		.cdw11 = (uint32_t)(off / RAW_NVME_LBS >> 32),
		.cdw12 = bytes / RAW_NVME_LBS - 1,	/* blocks, 0's based */
	};

	return raw_ring_uring_cmd(ring, fd, vec ? NVME_URING_CMD_IO_VEC : NVME_URING_CMD_IO, 0, 0,
				  &cmd, sizeof(cmd), sqe_flags);
}

/*
 * A 32-bit task's steps, buf (RAW_BUF_LEN bytes, page aligned) below 4 GiB:
 * a write of RAW_LEN bytes of the pattern at off, then a read back through
 * four 32-bit iovecs, checked, which the ring's ABI must lay out.  (NVMe
 * converts a command's addresses by the issuing task's ABI, not the ring's:
 * the address carries no garbage in its upper bits here.)  Returns the
 * number of steps that failed.
 */
static inline int raw_nvme_compat_steps(struct raw_ring *ring, int fd, unsigned int nsid,
					char *buf, uint64_t off, uint64_t seed,
					unsigned int sqe_flags)
{
	struct raw_iovec32 *iov = (struct raw_iovec32 *)(buf + RAW_LEN);
	int i, failed = 0;

	pattern_fill(buf, seed, off, RAW_LEN);
	failed += raw_step("write",
			   raw_nvme_rw(ring, fd, nsid, 1, off, (uint32_t)(uintptr_t)buf, RAW_LEN, 0,
				       RAW_LEN, sqe_flags), 0);
	memset(buf, 0, RAW_LEN);
	for (i = 0; i < 4; i++) {
		iov[i].base = (uint32_t)(uintptr_t)(buf + i * (RAW_LEN / 4));
		iov[i].len = RAW_LEN / 4;
	}
	failed += raw_step("read, four 32-bit iovecs",
			   raw_nvme_rw(ring, fd, nsid, 0, off, (uint32_t)(uintptr_t)iov, 4, 1,
				       RAW_LEN, sqe_flags), 0);
	failed += raw_step("data read back", pattern_check(buf, seed, off, RAW_LEN) < 0, 1);
	return failed;
}

/*
 * A node's steps at SECTOR (512 bytes each): NVMe's when nsid, the
 * namespace of an NVMe char node, is not negative, else the virtio-blk
 * node's.
 */
static inline int raw_node_compat_steps(struct raw_ring *ring, int fd, int nsid, char *buf,
					uint64_t sector, uint64_t seed, unsigned int sqe_flags)
{
	if (nsid < 0)
		return raw_compat_steps(ring, fd, buf, sector, seed, sqe_flags);
	return raw_nvme_compat_steps(ring, fd, nsid, buf, sector * 512, seed, sqe_flags);
}

/* The namespace of an NVMe char node, or -1 for any other node. */
static inline int raw_node_nsid(int fd)
{
	return ioctl(fd, NVME_IOCTL_ID);
}

/* The ring flags a node needs beside SQE128: NVMe's completions are 32 bytes. */
static inline unsigned int raw_node_ring_flags(int nsid)
{
	return nsid < 0 ? 0 : IORING_SETUP_CQE32;
}

#endif
