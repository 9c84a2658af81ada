// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-matrix: the passthrough data path over every combination of
 *   {read, write} x {plain, vectored, fixed buffer} x {IRQ ring, IOPOLL ring}
 *   x {plain submit, SQPOLL, IOSQE_ASYNC},
 * in the spirit of liburing's io_uring_passthrough test.  Each case puts a
 * queue depth from 1 to 64 of commands in flight at once, with sizes from
 * one logical block up to the largest transfer at random aligned offsets,
 * each command in a slot of its own, its data (unless vectored) starting
 * anywhere in the first two pages of its buffer that the DMA alignment
 * allows: a registered buffer's slice then begins inside a page and past
 * its first bio_vec.  Writes through the character node
 * are read back through the block device (O_DIRECT); reads through the node
 * find what was written through the block device.  Every write is listed
 * as "W OFFSET LEN SEED" so that the host can find it in its image file.
 *
 * usage: vblk-matrix [-s SEED] [-c CASE-SUBSTRING] /dev/vdXc0 /dev/vdX START BYTES
 * The region [START, START + BYTES) of the disk is used; it must hold
 * 36 * 64 slots of the largest transfer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pattern.h"
#include "vblk-uring.h"

#define MAX_DEPTH	64
#define MAX_IOV		8
/* Room before a command's data in its buffer */
#define HEADROOM	8192
/* What a read's buffer holds before the read */
#define FILL		0x5a

struct io {
	char *base;		/* the buffer, registered whole */
	char *buf;		/* the command's data in it */
	uint64_t off;
	size_t len;
	uint64_t seed;
	struct iovec iov[MAX_IOV];
	unsigned int nr_iov;
};

enum { OP_READ, OP_WRITE, NR_OPS };
enum { BUF_PLAIN, BUF_VEC, BUF_FIXED, NR_BUFS };
enum { RING_IRQ, RING_IOPOLL, NR_RINGS };
enum { SUB_PLAIN, SUB_SQPOLL, SUB_ASYNC, NR_SUBS };

static const char *const op_name[] = { "read", "write" };
static const char *const buf_name[] = { "plain", "vectored", "fixed" };
static const char *const ring_name[] = { "irq", "iopoll" };
static const char *const sub_name[] = { "submit", "sqpoll", "async" };
static const unsigned int depths[] = { 1, 8, 32, 64 };

static struct vblk_disk disk;
static struct io ios[MAX_DEPTH];
static char *scratch;
static uint64_t slot, region_start, rng;
static int cfd, bfd;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Size, place and (for vectored commands) split the i-th command of a case. */
static void plan_io(struct io *io, unsigned int case_nr, unsigned int i, bool vec)
{
	unsigned int units, nr, per, k, unit;

	if (i == 0)
		io->len = disk.lbs;
	else if (i == 1)
		io->len = disk.max_transfer;
	else
		io->len = (uint64_t)disk.lbs << rnd(8);
	if (io->len > disk.max_transfer)
		io->len = disk.max_transfer;
	io->off = region_start + (case_nr * MAX_DEPTH + i) * slot +
		  disk.lbs * rnd((slot - io->len) / disk.lbs + 1);
	io->seed = ((uint64_t)case_nr << 32) | (i + 1);
	/*
	 * A largest transfer moves by whole pages only: a page more would be
	 * a segment more than the disk has.  Vectored data stays put, its
	 * split counts pages from the buffer's start.
	 */
	unit = io->len + 4096 <= disk.max_transfer ? disk.dma_align : 4096;
	io->buf = io->base + (vec ? 0 : unit * rnd(HEADROOM / unit));

	io->nr_iov = 1;
	io->iov[0] = (struct iovec){ io->buf, io->len };
	if (!vec)
		return;
	nr = 1 + rnd(MAX_IOV);
	/*
	 * Split on the DMA alignment, unless the iovecs would then touch more
	 * pages than the disk has segments (a page split between two iovecs
	 * counts for both): then on pages.
	 */
	for (unit = disk.dma_align; ; unit = 4096) {
		units = io->len / unit;
		if (nr > units)
			nr = units;
		per = units / nr;
		for (k = 0; k < nr; k++) {
			io->iov[k].iov_base = io->buf + (size_t)k * per * unit;
			io->iov[k].iov_len = (size_t)(k == nr - 1 ? units - k * per : per) * unit;
		}
		io->nr_iov = nr;
		if (unit == 4096 || vblk_iov_pages(io->iov, nr) <= disk.max_segments)
			break;
	}
}

static int fail(const char *name, const char *what, const struct io *io, long detail)
{
	printf("FAIL %s: %s (offset %" PRIu64 ", length %zu, at %td of its buffer, %ld)\n",
	       name, what, io->off, io->len, io->buf - io->base, detail);
	return 1;
}

/* The first byte of a read's buffer outside its data that is not FILL, or -1 */
static long outside_data(const struct io *io)
{
	size_t i, start = io->buf - io->base, end = start + io->len;

	for (i = 0; i < disk.max_transfer + HEADROOM; i++)
		if ((i < start || i >= end) && io->base[i] != FILL)
			return i;
	return -1;
}

static int run_case(unsigned int case_nr, int op, int bufk, int ringk, int sub, const char *name)
{
	unsigned int depth = depths[case_nr % 4], flags = 0, i;
	struct iovec reg[MAX_DEPTH];
	struct io_uring ring;
	int ret;

	if (ringk == RING_IOPOLL)
		flags |= IORING_SETUP_IOPOLL;
	if (sub == SUB_SQPOLL)
		flags |= IORING_SETUP_SQPOLL;
	ret = vblk_ring_init(&ring, depth, flags);
	if (ret) {
		printf("FAIL %s: ring set-up: %s\n", name, strerror(-ret));
		return 1;
	}

	for (i = 0; i < depth; i++) {
		struct io *io = &ios[i];

		plan_io(io, case_nr, i, bufk == BUF_VEC);
		pattern_fill(io->buf, io->seed, io->off, io->len);
		if (op == OP_READ) {
			/* the data to find comes through the block device */
			if (pwrite(bfd, io->buf, io->len, io->off) != (ssize_t)io->len)
				return fail(name, "block device write", io, errno);
			memset(io->base, FILL, disk.max_transfer + HEADROOM);
		}
		reg[i] = (struct iovec){ io->base, disk.max_transfer + HEADROOM };
	}
	if (bufk == BUF_FIXED) {
		ret = io_uring_register_buffers(&ring, reg, depth);
		if (ret) {
			printf("FAIL %s: registering buffers: %s\n", name, strerror(-ret));
			return 1;
		}
	}

	for (i = 0; i < depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io *io = &ios[i];
		struct vblk_cmd cmd = {
			.type = op == OP_WRITE ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN,
			.sector = io->off / 512,
			.data = (uintptr_t)(bufk == BUF_VEC ? (void *)io->iov : io->buf),
			.data_len = bufk == BUF_VEC ? io->nr_iov : io->len,
		};

		vblk_prep_cmd(&ring, sqe, cfd,
			      bufk == BUF_VEC ? VIRTBLK_URING_CMD_IO_VEC : VIRTBLK_URING_CMD_IO, &cmd);
		if (bufk == BUF_FIXED)
			vblk_prep_fixed(sqe, i);
		if (sub == SUB_ASYNC)
			sqe->flags |= IOSQE_ASYNC;
		sqe->user_data = i;
	}
	ret = io_uring_submit(&ring);
	if (ret != (int)depth) {
		printf("FAIL %s: submitted %d of %u\n", name, ret, depth);
		return 1;
	}
	for (i = 0; i < depth; i++) {
		struct io_uring_cqe *cqe;

		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			printf("FAIL %s: waiting: %s\n", name, strerror(-ret));
			return 1;
		}
		if (cqe->res != 0)
			return fail(name, "command failed", &ios[cqe->user_data], cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);

	for (i = 0; i < depth; i++) {
		struct io *io = &ios[i];
		const char *data = io->buf;
		long bad;

		if (op == OP_WRITE) {
			/* what the node wrote must be on the disk */
			if (pread(bfd, scratch, io->len, io->off) != (ssize_t)io->len)
				return fail(name, "block device read", io, errno);
			data = scratch;
			printf("W %" PRIu64 " %zu %" PRIu64 "\n", io->off, io->len, io->seed);
		}
		bad = pattern_check(data, io->seed, io->off, io->len);
		if (bad >= 0)
			return fail(name, "data mismatch at byte", io, bad);
		/* a read into the wrong page of its buffer lands outside its data */
		bad = op == OP_READ ? outside_data(io) : -1;
		if (bad >= 0)
			return fail(name, "read wrote outside its data, at byte", io, bad);
	}
	printf("ok %s depth=%u\n", name, depth);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	const char *only = NULL;
	unsigned int case_nr = 0, failed = 0, i;
	int op, bufk, ringk, sub, opt;
	uint64_t region_bytes;

	while ((opt = getopt(argc, argv, "s:c:")) != -1) {
		if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 'c')
			only = optarg;
		else
			return VBLK_EXIT_USAGE;
	}
	if (argc - optind != 4) {
		fprintf(stderr, "usage: vblk-matrix [-s SEED] [-c CASE] /dev/vdXc0 /dev/vdX START BYTES\n");
		return VBLK_EXIT_USAGE;
	}
	rng = seed ? seed : 1;
	printf("seed %llu\n", seed);
	vblk_disk_info(argv[optind + 1], &disk);
	region_start = strtoull(argv[optind + 2], NULL, 0);
	region_bytes = strtoull(argv[optind + 3], NULL, 0);
	slot = (disk.max_transfer + 4095) & ~4095ULL;
	if (region_bytes < (uint64_t)NR_OPS * NR_BUFS * NR_RINGS * NR_SUBS * MAX_DEPTH * slot ||
	    region_start + region_bytes > disk.bytes) {
		fprintf(stderr, "the region is too small for %" PRIu64 "-byte slots\n", slot);
		return VBLK_EXIT_USAGE;
	}
	cfd = open(argv[optind], O_RDWR);
	bfd = open(argv[optind + 1], O_RDWR | O_DIRECT);
	if (cfd < 0 || bfd < 0) {
		perror("open");
		return VBLK_EXIT_USAGE;
	}
	for (i = 0; i < MAX_DEPTH; i++)
		if (posix_memalign((void **)&ios[i].base, 4096, disk.max_transfer + HEADROOM))
			return VBLK_EXIT_USAGE;
	if (posix_memalign((void **)&scratch, 4096, disk.max_transfer))
		return VBLK_EXIT_USAGE;

	for (op = 0; op < NR_OPS; op++)
		for (bufk = 0; bufk < NR_BUFS; bufk++)
			for (ringk = 0; ringk < NR_RINGS; ringk++)
				for (sub = 0; sub < NR_SUBS; sub++, case_nr++) {
					char name[64];

					snprintf(name, sizeof(name), "%s/%s/%s/%s", op_name[op],
						 buf_name[bufk], ring_name[ringk], sub_name[sub]);
					if (only && !strstr(name, only))
						continue;
					failed += run_case(case_nr, op, bufk, ringk, sub, name);
				}
	printf("%u case(s) failed\n", failed);
	return failed ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
