// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-io: write or verify the test pattern on a block device with io_uring
 * and O_DIRECT, one request of -b bytes at a time (queue depth 1, so the
 * device sees exactly LEN / BS requests: nothing is merged or split).
 *
 * usage: vblk-io [-b BS] [-c [-d]] write|verify DEV OFFSET LEN SEED
 *   -c  through the page cache (no O_DIRECT)
 *   -d  with -c: first what the user's guide asks of a program that mixes
 *       the node and the block device, fsync() and POSIX_FADV_DONTNEED of
 *       the range
 * Prints "ops N" on success; exits VBLK_EXIT_FAIL on a mismatch, an I/O
 * error or a failed set-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "vblk-uring.h"

static void usage(void)
{
	fprintf(stderr, "usage: vblk-io [-b BS] [-c [-d]] write|verify DEV OFFSET LEN SEED\n");
	exit(VBLK_EXIT_USAGE);
}

/* One read or write of len bytes at off; returns the result of the CQE. */
static int do_io(struct io_uring *ring, int fd, int is_write, void *buf, size_t len, uint64_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (is_write)
		io_uring_prep_write(sqe, fd, buf, len, off);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t bs = 4096, off, len, seed, pos, ops = 0;
	struct io_uring ring;
	int opt, fd, is_write, ret, cached = 0, drop = 0;
	void *buf;

	while ((opt = getopt(argc, argv, "b:cd")) != -1) {
		if (opt == 'b')
			bs = vblk_number(optarg, usage);
		else if (opt == 'c')
			cached = 1;
		else if (opt == 'd')
			drop = 1;
		else
			usage();
	}
	if (argc - optind != 5)
		usage();
	if (!strcmp(argv[optind], "write"))
		is_write = 1;
	else if (!strcmp(argv[optind], "verify"))
		is_write = 0;
	else
		usage();
	off = vblk_number(argv[optind + 2], usage);
	len = vblk_number(argv[optind + 3], usage);
	seed = vblk_number(argv[optind + 4], usage);
	if (!bs || bs % 8 || off % 8 || len % bs || (drop && !cached))
		usage();

	fd = open(argv[optind + 1], (is_write ? O_WRONLY : O_RDONLY) | (cached ? 0 : O_DIRECT));
	if (fd < 0) {
		perror(argv[optind + 1]);
		return VBLK_EXIT_FAIL;
	}
	if (drop) {
		if (fsync(fd)) {
			perror("fsync");
			return VBLK_EXIT_FAIL;
		}
		ret = posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
		if (ret) {
			fprintf(stderr, "posix_fadvise: %s\n", strerror(ret));
			return VBLK_EXIT_FAIL;
		}
	}
	if (posix_memalign(&buf, 4096, bs) || io_uring_queue_init(4, &ring, 0)) {
		fprintf(stderr, "set-up failed\n");
		return VBLK_EXIT_FAIL;
	}
	for (pos = off; pos < off + len; pos += bs, ops++) {
		if (is_write)
			pattern_fill(buf, seed, pos, bs);
		ret = do_io(&ring, fd, is_write, buf, bs, pos);
		if (ret != (int)bs) {
			fprintf(stderr, "%s at %" PRIu64 ": %s\n", is_write ? "write" : "read",
				pos, ret < 0 ? strerror(-ret) : "short transfer");
			return VBLK_EXIT_FAIL;
		}
		if (!is_write) {
			long bad = pattern_check(buf, seed, pos, bs);

			if (bad >= 0) {
				printf("mismatch at byte %" PRIu64 "\n", pos + bad);
				return VBLK_EXIT_FAIL;
			}
		}
	}
	printf("ops %" PRIu64 "\n", ops);
	return VBLK_EXIT_PASS;
}
