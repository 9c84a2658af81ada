// SPDX-License-Identifier: MIT
/*
 * A starting point for applications of the virtio-blk passthrough node: the
 * character device of a virtio-blk disk on which io_uring sends virtio-blk
 * requests (IORING_OP_URING_CMD), around the block layer's page cache,
 * scheduler and merging (Documentation/userspace-api/virtio-blk-passthrough.rst).
 *
 *	vblk-passthrough [-w] vdX SECTOR
 *
 * vdX names the disk (/dev/vdX is taken too).  Its node is the one entry of
 * /sys/block/vdX/device/virtblk-generic/, vdXc0, opened as /dev/vdXc0; the
 * node's attributes there say what the disk takes.  SECTOR, in 512-byte
 * units, is a multiple of the disk's logical block size.
 *
 * By default it only reads: four 4 KiB blocks from SECTOR, as three commands
 * in flight (a buffer that lies in a registered buffer, a plain buffer, and
 * two iovecs), and prints a checksum (64-bit FNV-1a) of each block.  With -w
 * it DESTROYS DATA: first it overwrites those blocks (each little-endian
 * 64-bit word holding its own byte offset on the disk) and flushes the
 * device's cache, reads them back and compares, then discards the two
 * blocks after them if the disk takes discards.  It exits with 0 if all it
 * did succeeded, 1 otherwise (2 on a usage error).
 *
 * It builds with a distribution's kernel headers and liburing (Debian 12:
 * linux-libc-dev 6.1, liburing-dev 2.3), defining below what they lack, or
 * with the exported headers of a kernel that has the node:
 *
 *	cc -Wall -Wextra -O2 -o vblk-passthrough vblk-passthrough.c -luring
 *	cc -Wall -Wextra -O2 -I KBUILD/usr/include -o vblk-passthrough \
 *		vblk-passthrough.c -luring	(make headers_install's usr/include)
 *	./vblk-passthrough vdX 2048
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ioctl.h>
#include <linux/virtio_blk.h>
#ifdef __has_include
#if __has_include(<linux/virtio_blk_uring_cmd.h>)
#include <linux/virtio_blk_uring_cmd.h>
#endif
#endif

/* The node's ABI, for headers older than <linux/virtio_blk_uring_cmd.h> */
#ifndef VIRTBLK_URING_CMD_IO
struct virtblk_uring_cmd {
	__u32 type;		/* VIRTIO_BLK_T_* */
	__u16 flags;		/* 0 */
	__u16 rsvd;		/* 0 */
	__u64 sector;		/* 512-byte units; 0 for types without one */
};
#define VIRTBLK_URING_CMD_IO		_IOWR('v', 0x80, struct virtblk_uring_cmd)
#define VIRTBLK_URING_CMD_IO_VEC	_IOWR('v', 0x81, struct virtblk_uring_cmd)
#endif

/* The virtio specification's, for older <linux/virtio_blk.h> */
#ifndef VIRTIO_BLK_T_DISCARD
#define VIRTIO_BLK_T_DISCARD		11
struct virtio_blk_discard_write_zeroes {
	__le64 sector;
	__le32 num_sectors;
	__le32 flags;
};
#endif
#ifndef VIRTIO_BLK_S_ZONE_INVALID_CMD
#define VIRTIO_BLK_S_ZONE_INVALID_CMD		3
#define VIRTIO_BLK_S_ZONE_UNALIGNED_WP		4
#define VIRTIO_BLK_S_ZONE_OPEN_RESOURCE		5
#define VIRTIO_BLK_S_ZONE_ACTIVE_RESOURCE	6
#endif

#ifndef IORING_URING_CMD_FIXED
#define IORING_URING_CMD_FIXED	(1U << 0)
#endif
/* liburing has io_uring_prep_uring_cmd() since 2.13, version macros since 2.4 */
#if !defined(IO_URING_VERSION_MAJOR) || IO_URING_VERSION_MAJOR < 2 || \
	(IO_URING_VERSION_MAJOR == 2 && IO_URING_VERSION_MINOR < 13)
static inline void io_uring_prep_uring_cmd(struct io_uring_sqe *sqe, int cmd_op, int fd)
{
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
}
#endif

#define BLOCK	4096		/* bytes in a block of this example */
#define SPB	(BLOCK / 512)	/* sectors in a block */
#define NBLK	4		/* blocks read (and written) */
#define BIT(t)	(1ULL << (t))

/* A positive cqe->res is the device's status */
#define STATUS(s)	[s] = #s
static const char *const status_names[] = {
	STATUS(VIRTIO_BLK_S_IOERR), STATUS(VIRTIO_BLK_S_UNSUPP),
	STATUS(VIRTIO_BLK_S_ZONE_INVALID_CMD), STATUS(VIRTIO_BLK_S_ZONE_UNALIGNED_WP),
	STATUS(VIRTIO_BLK_S_ZONE_OPEN_RESOURCE), STATUS(VIRTIO_BLK_S_ZONE_ACTIVE_RESOURCE),
};

/* The first line of a sysfs attribute, or exit */
static char *attr(const char *dir, const char *name)
{
	static char val[256];
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || !fgets(val, sizeof(val), f)) {
		fprintf(stderr, "%s: %s\n", path, f ? "cannot read it" : strerror(errno));
		exit(1);
	}
	fclose(f);
	return val;
}

/*
 * Prepare a command in a zeroed SQE: the struct virtblk_uring_cmd in the
 * SQE's command area, the data in sqe->addr and sqe->len (bytes, or the
 * number of iovecs), and in user_data a tag that tells its completion apart.
 */
static struct io_uring_sqe *prep(struct io_uring *ring, int fd, __u32 op, __u32 type,
				 __u64 sector, const void *data, __u32 len, __u64 tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct virtblk_uring_cmd *cmd;

	if (!sqe) {
		fprintf(stderr, "no free SQE\n");
		exit(1);
	}
	memset(sqe, 0, sizeof(*sqe));
	io_uring_prep_uring_cmd(sqe, op, fd);
	sqe->addr = (uintptr_t)data;
	sqe->len = len;
	sqe->user_data = tag;
	cmd = (struct virtblk_uring_cmd *)sqe->cmd;
	cmd->type = type;
	cmd->sector = sector;
	return sqe;
}

/*
 * Submit the n commands prepared, tagged 0 to n - 1, and reap their
 * completions in whatever order they come: 0 if all succeeded.
 */
static int complete(struct io_uring *ring, unsigned int n, const char *const what[])
{
	struct io_uring_cqe *cqe;
	unsigned int i, failed = 0;
	const char *name;
	int ret;

	ret = io_uring_submit(ring);
	if (ret < 0 || (unsigned int)ret != n) {
		fprintf(stderr, "io_uring_submit: %s\n",
			ret < 0 ? strerror(-ret) : "not all commands taken");
		return -1;
	}
	for (i = 0; i < n; i++) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret) {
			fprintf(stderr, "io_uring_wait_cqe: %s\n", strerror(-ret));
			return -1;
		}
		name = cqe->user_data < n ? what[cqe->user_data] : "?";
		ret = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		if (!ret) {
			printf("%s: ok\n", name);
			continue;
		}
		failed++;
		if (ret < 0)
			fprintf(stderr, "%s: %s\n", name, strerror(-ret));
		else if ((unsigned int)ret < sizeof(status_names) / sizeof(status_names[0]) &&
			 status_names[ret])
			fprintf(stderr, "%s: device status %s\n", name, status_names[ret]);
		else
			fprintf(stderr, "%s: unknown device status %d\n", name, ret);
	}
	return failed;
}

/*
 * Queue NBLK blocks of type at sector as three commands in flight: block 0
 * lies in the registered buffer 0, block 1 is a plain buffer, blocks 2 and 3
 * an array of two iovecs, which must last until the command completes.
 */
static void queue_blocks(struct io_uring *ring, int fd, __u32 type, __u64 sector,
			 char *buf, struct iovec iov[2])
{
	struct io_uring_sqe *sqe;

	sqe = prep(ring, fd, VIRTBLK_URING_CMD_IO, type, sector, buf, BLOCK, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	prep(ring, fd, VIRTBLK_URING_CMD_IO, type, sector + SPB, buf + BLOCK, BLOCK, 1);
	iov[0] = (struct iovec){ buf + 2 * BLOCK, BLOCK };
	iov[1] = (struct iovec){ buf + 3 * BLOCK, BLOCK };
	prep(ring, fd, VIRTBLK_URING_CMD_IO_VEC, type, sector + 2 * SPB, iov, 2, 2);
}

/* A checksum of a block (64-bit FNV-1a), to compare with another reader's */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

int main(int argc, char **argv)
{
	static const char *const reads[] = { "read block 0 (registered buffer)",
					     "read block 1", "read blocks 2-3 (iovecs)" };
	static const char *const writes[] = { "write block 0 (registered buffer)",
					      "write block 1", "write blocks 2-3 (iovecs)" };
	static const char *const flush[] = { "flush" };
	static const char *const discard1[] = { "discard ranges 1-2" };
	static const char *const discard2[] = { "discard range 1", "discard range 2" };
	struct virtio_blk_discard_write_zeroes ranges[2] = {};
	char dir[256], node_dir[PATH_MAX], node[PATH_MAX];
	unsigned long lbs, max_transfer, max_ranges, i;
	struct iovec iov[2], reg;
	struct io_uring ring;
	int opt, fd, ret, wr = 0;
	unsigned long long sector;
	uint64_t types = 0, need;
	char *disk, *end, *buf, *s;
	struct dirent *de;
	void *mem;
	DIR *d;

	while ((opt = getopt(argc, argv, "w")) != -1) {
		if (opt != 'w')
			goto usage;
		wr = 1;
	}
	if (argc - optind != 2)
		goto usage;
	disk = argv[optind];
	if (!strncmp(disk, "/dev/", 5))
		disk += 5;
	sector = strtoull(argv[optind + 1], &end, 0);
	if (!*disk || strchr(disk, '/') || end == argv[optind + 1] || *end)
		goto usage;

	/* The node of disk vdX is the entry of /sys/block/vdX/device/virtblk-generic/ */
	snprintf(dir, sizeof(dir), "/sys/block/%s/device/virtblk-generic", disk);
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "%s: %s: no passthrough node\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && de->d_name[0] == '.')
		;
	if (!de) {
		fprintf(stderr, "%s: empty\n", dir);
		return 1;
	}
	snprintf(node_dir, sizeof(node_dir), "%s/%s", dir, de->d_name);
	snprintf(node, sizeof(node), "/dev/%s", de->d_name);
	closedir(d);

	/* What the disk takes: see Documentation/ABI/testing/sysfs-class-virtblk-generic */
	snprintf(dir, sizeof(dir), "/sys/block/%s/queue", disk);
	lbs = strtoul(attr(dir, "logical_block_size"), NULL, 10);
	if (lbs < 512 || BLOCK % lbs) {
		fprintf(stderr, "%s: logical block size %lu does not divide %d\n",
			disk, lbs, BLOCK);
		return 1;
	}
	if (sector % (lbs / 512)) {
		fprintf(stderr, "SECTOR %llu: not a multiple of %s's logical block size\n",
			sector, disk);
		return 1;
	}
	max_transfer = strtoul(attr(node_dir, "max_transfer_bytes"), NULL, 10);
	if (max_transfer < 2 * BLOCK) {
		fprintf(stderr, "%s: takes at most %lu bytes a command, this example sends %d\n",
			node, max_transfer, 2 * BLOCK);
		return 1;
	}
	for (s = attr(node_dir, "types");; s = end) {
		i = strtoul(s, &end, 10);
		if (end == s)
			break;
		if (i < 64)
			types |= BIT(i);
	}
	need = BIT(VIRTIO_BLK_T_IN) | (wr ? BIT(VIRTIO_BLK_T_OUT) | BIT(VIRTIO_BLK_T_FLUSH) : 0);
	if ((types & need) != need) {
		fprintf(stderr, "%s: the disk does not take %s\n", node,
			wr ? "reads, writes and flushes" : "reads");
		return 1;
	}

	/* A read needs the node open for reading, a write or discard for writing */
	fd = open(node, wr ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		perror(node);
		return 1;
	}
	/* Buffers aligned to the disk's queue/dma_alignment: a page is plenty */
	ret = posix_memalign(&mem, BLOCK, 2 * NBLK * BLOCK);
	if (ret) {
		fprintf(stderr, "posix_memalign: %s\n", strerror(ret));
		return 1;
	}
	buf = mem;
	/* SUBMIT_ALL: a command refused at submission does not hold back the rest */
	ret = io_uring_queue_init(8, &ring, IORING_SETUP_SUBMIT_ALL);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	reg = (struct iovec){ buf, 2 * NBLK * BLOCK };
	ret = io_uring_register_buffers(&ring, &reg, 1);
	if (ret) {
		fprintf(stderr, "io_uring_register_buffers: %s\n", strerror(-ret));
		return 1;
	}

	if (wr) {
		uint64_t *w = (uint64_t *)(buf + NBLK * BLOCK);

		for (i = 0; i < NBLK * BLOCK / 8; i++)
			w[i] = htole64(sector * 512 + i * 8);
		queue_blocks(&ring, fd, VIRTIO_BLK_T_OUT, sector, buf + NBLK * BLOCK, iov);
		if (complete(&ring, 3, writes))
			return 1;
		/* Make it durable: a flush has no data and no sector */
		prep(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, 0);
		if (complete(&ring, 1, flush))
			return 1;
	}

	queue_blocks(&ring, fd, VIRTIO_BLK_T_IN, sector, buf, iov);
	if (complete(&ring, 3, reads))
		return 1;
	for (i = 0; i < NBLK; i++)
		printf("sector %llu: fnv1a64 %016" PRIx64 "\n", sector + i * SPB,
		       fnv1a((unsigned char *)buf + i * BLOCK, BLOCK));
	if (wr && memcmp(buf, buf + NBLK * BLOCK, NBLK * BLOCK)) {
		fprintf(stderr, "read back: not what was written\n");
		return 1;
	}

	/*
	 * Discard the two blocks after them: a command takes up to the node's
	 * discard_max_ranges ranges, little-endian, of at most
	 * discard_max_range_bytes each.
	 */
	if (wr) {
		max_ranges = types & BIT(VIRTIO_BLK_T_DISCARD) ?
			     strtoul(attr(node_dir, "discard_max_ranges"), NULL, 10) : 0;
		if (!max_ranges ||
		    strtoul(attr(node_dir, "discard_max_range_bytes"), NULL, 10) < BLOCK) {
			printf("discard: the disk does not take it\n");
		} else {
			unsigned int n = max_ranges >= 2 ? 1 : 2;

			for (i = 0; i < 2; i++) {
				ranges[i].sector = htole64(sector + (NBLK + i) * SPB);
				ranges[i].num_sectors = htole32(SPB);
			}
			for (i = 0; i < n; i++)
				prep(&ring, fd, VIRTBLK_URING_CMD_IO, VIRTIO_BLK_T_DISCARD, 0,
				     &ranges[i], 2 / n * sizeof(ranges[0]), i);
			if (complete(&ring, n, n == 1 ? discard1 : discard2))
				return 1;
		}
	}

	io_uring_queue_exit(&ring);
	close(fd);
	free(mem);
	return 0;

usage:
	fprintf(stderr, "usage: %s [-w] vdX SECTOR\n"
		"  reads 4 blocks of disk vdX at SECTOR through its node /dev/vdXc0\n"
		"  -w: first overwrites them, then discards the 2 blocks after them\n", argv[0]);
	return 2;
}
