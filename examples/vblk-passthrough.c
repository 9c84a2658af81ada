// SPDX-License-Identifier: MIT
/*
 * A starting point for applications of the virtio-blk passthrough node,
 * /dev/vdXc0: virtio-blk requests sent through io_uring, without the block
 * layer's page cache, scheduler or request merging.
 *
 * On a plain ring (64-byte SQEs), it writes a block from a registered
 * buffer, flushes the device's cache, reads the block back, discards two
 * ranges, and reads once more on a polled ring.  Build it against
 * liburing and the kernel's <linux/virtio_blk_uring_cmd.h>:
 *
 *	cc -o vblk-passthrough vblk-passthrough.c -luring
 *	./vblk-passthrough /dev/vdac0 SECTOR
 *
 * SECTOR (512-byte units) is where it writes and discards: the block there
 * and two blocks after it are overwritten or discarded.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_blk_uring_cmd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK	4096

/*
 * Prepare a passthrough command: the command's 16 bytes go in the SQE's
 * command area, its data in sqe->addr and sqe->len.  Every other field the
 * node does not use must be zero.
 */
static struct io_uring_sqe *prep_cmd(struct io_uring *ring, int fd, __u32 cmd_op,
				     __u32 type, __u64 sector, void *data, __u32 len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct virtblk_uring_cmd *cmd;

	if (!sqe) {
		fprintf(stderr, "no free SQE\n");
		exit(1);
	}
	cmd = (struct virtblk_uring_cmd *)sqe->cmd;
	memset(sqe, 0, sizeof(*sqe));
	io_uring_prep_uring_cmd(sqe, cmd_op, fd);
	sqe->addr = (__u64)(uintptr_t)data;
	sqe->len = len;
	cmd->type = type;
	cmd->sector = sector;
	return sqe;
}

/*
 * Submit what is prepared and wait for one completion: 0, the device's
 * VIRTIO_BLK_S_* status (positive), or a negative errno.
 */
static int run(struct io_uring *ring, const char *what)
{
	struct io_uring_cqe *cqe;
	int res;

	res = io_uring_submit_and_wait(ring, 1);
	if (res < 0 || io_uring_peek_cqe(ring, &cqe)) {
		fprintf(stderr, "%s: submission failed: %s\n", what, strerror(-res));
		return -EIO;
	}
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	if (res < 0)
		fprintf(stderr, "%s: %s\n", what, strerror(-res));
	else if (res > 0)
		fprintf(stderr, "%s: device status %d\n", what, res);
	else
		printf("%s: ok\n", what);
	return res;
}

/* A number from the node's sysfs directory, or 0 */
static unsigned long node_attr(const char *node, const char *attr)
{
	unsigned long v = 0;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/virtblk-generic/%s/%s",
		 strrchr(node, '/') ? strrchr(node, '/') + 1 : node, attr);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct virtio_blk_discard_write_zeroes ranges[2];
	struct io_uring ring, polled;
	unsigned long per_cmd, i;
	struct io_uring_sqe *sqe;
	void *wbuf, *rbuf;
	struct iovec reg;
	__u64 sector;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s /dev/vdXc0 SECTOR\n", argv[0]);
		return 2;
	}
	sector = strtoull(argv[2], NULL, 0);
	/* A write or discard needs the node open for writing */
	fd = open(argv[1], O_RDWR);
	/* Data buffers aligned to the disk's dma_alignment; a page is plenty */
	if (fd < 0 || posix_memalign(&wbuf, BLOCK, BLOCK) ||
	    posix_memalign(&rbuf, BLOCK, BLOCK)) {
		perror(argv[1]);
		return 1;
	}
	/* A default ring: 64-byte SQEs and 16-byte CQEs are all it needs */
	if (io_uring_queue_init(8, &ring, 0)) {
		fprintf(stderr, "no io_uring\n");
		return 1;
	}

	/* Write one block from a registered buffer (buffer index 0) */
	memset(wbuf, 'V', BLOCK);
	reg = (struct iovec){ wbuf, BLOCK };
	if (io_uring_register_buffers(&ring, &reg, 1))
		return 1;
	sqe = prep_cmd(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_OUT, sector,
		       wbuf, BLOCK);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	if (run(&ring, "write (registered buffer)"))
		return 1;

	/* Make it durable: a flush has no data and no sector */
	prep_cmd(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_FLUSH, 0, NULL, 0);
	if (run(&ring, "flush"))
		return 1;

	/* Read it back into a plain buffer */
	prep_cmd(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_IN, sector, rbuf, BLOCK);
	if (run(&ring, "read") || memcmp(rbuf, wbuf, BLOCK)) {
		fprintf(stderr, "read: not what was written\n");
		return 1;
	}

	/*
	 * Discard the two blocks after it: up to discard_max_ranges ranges,
	 * little-endian, go in one command (the node's sysfs tells the limit).
	 */
	per_cmd = node_attr(argv[1], "discard_max_ranges");
	if (!per_cmd) {
		printf("discard: the disk takes none\n");
	} else {
		for (i = 0; i < 2; i++) {
			ranges[i].sector = htole64(sector + (i + 1) * (BLOCK / 512));
			ranges[i].num_sectors = htole32(BLOCK / 512);
			ranges[i].flags = 0;
		}
		for (i = 0; i < 2; i += per_cmd) {
			unsigned long n = per_cmd < 2 - i ? per_cmd : 2 - i;

			prep_cmd(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_DISCARD, 0,
				 &ranges[i], n * sizeof(ranges[0]));
			if (run(&ring, "discard"))
				return 1;
		}
	}

	/*
	 * A polled ring: completions are reaped by polling the disk's poll
	 * queues (the node's sysfs attribute poll says whether it has some;
	 * without, the commands complete by interrupt and the ring still works).
	 */
	if (io_uring_queue_init(8, &polled, IORING_SETUP_IOPOLL))
		return 1;
	memset(rbuf, 0, BLOCK);
	prep_cmd(&polled, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_IN, sector, rbuf, BLOCK);
	if (run(&polled, node_attr(argv[1], "poll") ? "polled read" : "read on an IOPOLL ring") ||
	    memcmp(rbuf, wbuf, BLOCK)) {
		fprintf(stderr, "polled read: not what was written\n");
		return 1;
	}

	io_uring_queue_exit(&polled);
	io_uring_queue_exit(&ring);
	close(fd);
	return 0;
}
