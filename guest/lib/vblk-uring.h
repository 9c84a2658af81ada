/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest programs (guest/prog, t/) for the virtio-blk
 * passthrough node: the disk's limits from sysfs (an NVMe namespace's too),
 * ring set-up, and preparing a passthrough command's SQE.
 */
#ifndef VBLK_URING_H
#define VBLK_URING_H

#include <glob.h>
#include <liburing.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_blk_uring_cmd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "vblk-exit.h"

/* A whole number as strtoull() reads it (0x for hex); else usage(), which exits. */
static inline uint64_t vblk_number(const char *s, void (*usage)(void))
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*s == '\0' || *end != '\0')
		usage();
	return v;
}

/* What the tests need to know about a disk, read from its sysfs queue. */
struct vblk_disk {
	char name[32];			/* "vda" */
	unsigned int lbs;		/* logical block size */
	unsigned int dma_align;		/* dma_alignment + 1 */
	uint64_t max_transfer;		/* the driver's documented limit */
	unsigned int max_segments;	/* pages the data may touch, iovec by iovec */
	uint64_t bytes;			/* capacity */
	int polled;			/* the disk has poll queues */
	unsigned int node_queues;	/* virtqueues of the node's own */
	unsigned int node_poll_queues;	/* of them polled */
	int node_polled;		/* the node's polled commands are polled */
	int nvme;			/* an NVMe namespace, not a virtio-blk disk */
};

/* A number from a sysfs file; exits with VBLK_EXIT_USAGE if it has none. */
static inline uint64_t vblk_sysfs_file_u64(const char *path)
{
	unsigned long long v;
	FILE *f;

	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(VBLK_EXIT_USAGE);
	}
	fclose(f);
	return v;
}

/* A number from the disk's sysfs directory, /sys/block/vdX. */
static inline uint64_t vblk_sysfs_u64(const char *disk, const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/%s", disk, attr);
	return vblk_sysfs_file_u64(path);
}

/* The one path that @pattern matches, into @path; 0 if none or several. */
static inline int vblk_glob_one(const char *pattern, char *path, size_t size)
{
	glob_t g;
	int ret = !glob(pattern, 0, NULL, &g) && g.gl_pathc == 1;

	if (ret)
		snprintf(path, size, "%s", g.gl_pathv[0]);
	globfree(&g);
	return ret;
}

/*
 * A number from the passthrough node's sysfs directory: the one entry of
 * the disk's virtio device's virtblk-generic directory (the user's guide).
 */
static inline uint64_t vblk_node_sysfs_u64(const char *disk, const char *attr)
{
	char pattern[128], path[256];

	snprintf(pattern, sizeof(pattern), "/sys/block/%s/device/virtblk-generic/*/%s",
		 disk, attr);
	if (!vblk_glob_one(pattern, path, sizeof(path))) {
		fprintf(stderr, "%s: no passthrough node\n", disk);
		exit(VBLK_EXIT_USAGE);
	}
	return vblk_sysfs_file_u64(path);
}

/*
 * The disk of a passthrough node, into @name: the one entry of the node's
 * virtio device's block directory.  0 if @dev is no such node.
 */
static inline int vblk_node_disk(const char *dev, char *name, size_t size)
{
	char pattern[64], path[256];
	struct stat st;

	if (stat(dev, &st) || !S_ISCHR(st.st_mode))
		return 0;
	snprintf(pattern, sizeof(pattern), "/sys/dev/char/%u:%u/device/block/*",
		 major(st.st_rdev), minor(st.st_rdev));
	if (!vblk_glob_one(pattern, path, sizeof(path)))
		return 0;
	snprintf(name, size, "%s", strrchr(path, '/') + 1);
	return 1;
}

/* The pages an array of iovecs touches, each iovec counted apart. */
static inline uint64_t vblk_iov_pages(const struct iovec *iov, unsigned int nr)
{
	uint64_t pages = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		uintptr_t start = (uintptr_t)iov[i].iov_base;

		if (iov[i].iov_len)
			pages += (start + iov[i].iov_len + 4095) / 4096 - start / 4096;
	}
	return pages;
}

/*
 * dev is /dev/vdX or its passthrough node /dev/vdXc0, or an NVMe
 * namespace's block device /dev/nvmeXnY or generic char node /dev/ngXnY:
 * d->name is the block device's name either way.
 */
static inline void vblk_disk_info(const char *dev, struct vblk_disk *d)
{
	const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	uint64_t seg, hw;

	d->nvme = !strncmp(base, "ng", 2) || !strncmp(base, "nvme", 4);
	if (!strncmp(base, "ng", 2))	/* ngXnY's block device is nvmeXnY */
		snprintf(d->name, sizeof(d->name), "nvme%s", base + 2);
	else if (d->nvme || !vblk_node_disk(dev, d->name, sizeof(d->name)))
		snprintf(d->name, sizeof(d->name), "%s", base);
	d->lbs = vblk_sysfs_u64(d->name, "queue/logical_block_size");
	d->dma_align = vblk_sysfs_u64(d->name, "queue/dma_alignment") + 1;
	d->bytes = vblk_sysfs_u64(d->name, "size") * 512;
	d->polled = vblk_sysfs_u64(d->name, "queue/io_poll");
	if (!d->nvme) {
		d->node_queues = vblk_node_sysfs_u64(d->name, "direct_queues");
		d->node_poll_queues = vblk_node_sysfs_u64(d->name, "direct_poll_queues");
	}
	/* With queues of its own, the node polls those, not blk-mq's */
	d->node_polled = d->node_queues ? d->node_poll_queues > 0 : d->polled;
	seg = vblk_sysfs_u64(d->name, "queue/max_segment_size");
	if (seg > 4096)
		seg = 4096;
	hw = vblk_sysfs_u64(d->name, "queue/max_hw_sectors_kb") * 1024;
	d->max_segments = vblk_sysfs_u64(d->name, "queue/max_segments");
	d->max_transfer = d->max_segments * seg;
	if (hw < d->max_transfer)
		d->max_transfer = hw;
}

static inline int vblk_ring_init(struct io_uring *ring, unsigned int depth,
				 unsigned int flags)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	if (flags & IORING_SETUP_SQPOLL)
		p.sq_thread_idle = 2000;
	return io_uring_queue_init_params(depth, ring, &p);
}

/*
 * A passthrough command as the programs describe it: struct
 * virtblk_uring_cmd's fields, and the data that the SQE itself carries.
 */
struct vblk_cmd {
	uint32_t type;
	uint16_t flags;
	uint16_t rsvd;
	uint64_t sector;
	uint64_t data;		/* sqe->addr: a buffer or an iovec array */
	uint32_t data_len;	/* sqe->len: bytes, or iovecs */
};

/*
 * Fill an SQE with a passthrough command, writing each of its bytes once,
 * as liburing's io_uring_prep_rw() does for a read: the 64 of a plain SQE,
 * and on a 128-byte one (big) the reserved second half as zeroes.
 */
static inline void vblk_fill_cmd(struct io_uring_sqe *sqe, int big, uint8_t opcode, int fd,
				 uint32_t cmd_op, const struct vblk_cmd *c)
{
	const struct virtblk_uring_cmd cmd = {
		.type = c->type,
		.flags = c->flags,
		.rsvd = c->rsvd,
		.sector = c->sector,
	};

	*sqe = (struct io_uring_sqe){
		.opcode = opcode,
		.fd = fd,
		.cmd_op = cmd_op,
		.addr = c->data,
		.len = c->data_len,
	};
	/* Not through sqe->cmd: GCC bounds writes there by the 8-byte addr3 it overlays */
	memcpy((uint8_t *)sqe + offsetof(struct io_uring_sqe, cmd), &cmd, sizeof(cmd));
	if (big)
		memset(sqe + 1, 0, sizeof(*sqe));
}

/* Fill sqe, from io_uring_get_sqe() on ring, with a passthrough command. */
static inline void vblk_prep_cmd(const struct io_uring *ring, struct io_uring_sqe *sqe, int fd,
				 uint32_t cmd_op, const struct vblk_cmd *c)
{
	vblk_fill_cmd(sqe, ring->flags & IORING_SETUP_SQE128, IORING_OP_URING_CMD, fd, cmd_op, c);
}

/*
 * The same as IORING_OP_URING_CMD128 in two slots of an IORING_SETUP_SQE_MIXED
 * ring; sqe comes from io_uring_get_sqe128().
 */
static inline void vblk_prep_cmd128(struct io_uring_sqe *sqe, int fd, uint32_t cmd_op,
				    const struct vblk_cmd *c)
{
	vblk_fill_cmd(sqe, 1, IORING_OP_URING_CMD128, fd, cmd_op, c);
}

/* Use registered buffer index for the command in sqe. */
static inline void vblk_prep_fixed(struct io_uring_sqe *sqe, unsigned int index)
{
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = index;
}

#endif
