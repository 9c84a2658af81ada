// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-pollers: one IOPOLL ring on a passthrough node, virtio-blk's
 * /dev/vdXc0 or NVMe's /dev/ngXnY (its uring_cmd, on a CQE32 ring), reaped
 * by several threads at once.  The main thread keeps DEPTH 4 KiB random reads
 * and writes (half each) in flight for SECONDS; every other thread only
 * enters the kernel to poll the same ring, so completions are found by
 * whichever thread polls first.  Meant to run beside other IOPOLL loads on
 * the same poll queue while the test changes the queue under them.
 *
 * With -S the ring has an SQPOLL thread, which then does the polling too.
 *
 * usage: vblk-pollers [-S] [-d DEPTH] [-r SECONDS] [-t THREADS] /dev/vdXc0|/dev/ngXnY
 * Stops submitting at the first error.  Prints "ios=N errors=N enodev=N
 * first_error=RES" and exits VBLK_EXIT_PASS when every command completed,
 * with 0 or, once the disk is gone, -ENODEV; else VBLK_EXIT_FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nvme-uring.h"
#include "vblk-uring.h"

#define BS	4096

static volatile bool stop;
static int nsid = -1;		/* NVMe's namespace, or -1: virtio-blk */
static unsigned int lbs;	/* NVMe's logical block size */

static void usage(void)
{
	fprintf(stderr, "usage: vblk-pollers [-S] [-d DEPTH] [-r SECONDS] [-t THREADS] DEV\n");
	exit(VBLK_EXIT_USAGE);
}

/* A reaping thread: poll the ring until told to stop. */
static void *poller(void *arg)
{
	struct io_uring *ring = arg;

	while (!stop)
		syscall(__NR_io_uring_enter, ring->ring_fd, 0, 0,
			IORING_ENTER_GETEVENTS, NULL, 0);
	return NULL;
}

static void queue_one(struct io_uring *ring, int fd, char *buf, uint64_t blocks,
		      unsigned int slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	uint64_t off = (uint64_t)(rand() % blocks) * BS;
	char *data = buf + (size_t)slot * BS;
	int write = rand() & 1;
	struct vblk_cmd cmd = {
		.type = write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN,
		.sector = off / 512,
		.data = (uintptr_t)data,
		.data_len = BS,
	};

	if (nsid >= 0)
		nvme_prep_rw(sqe, fd, nsid, lbs, write, off, data, BS, 0, BS);
	else
		vblk_prep_cmd(ring, sqe, fd, VIRTBLK_URING_CMD_IO, &cmd);
	sqe->user_data = slot;
}

int main(int argc, char **argv)
{
	unsigned int depth = 32, threads = 2, seconds = 10, inflight = 0, i;
	unsigned int flags = IORING_SETUP_IOPOLL;
	uint64_t ios = 0, errors = 0, enodev = 0, blocks;
	int opt, fd, first_error = 0;
	pthread_t tid[16];
	struct io_uring ring;
	struct vblk_disk disk;
	time_t end;
	char *buf;

	while ((opt = getopt(argc, argv, "Sd:r:t:")) != -1) {
		switch (opt) {
		case 'S': flags |= IORING_SETUP_SQPOLL; break;
		case 'd': depth = vblk_number(optarg, usage); break;
		case 'r': seconds = vblk_number(optarg, usage); break;
		case 't': threads = vblk_number(optarg, usage); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !depth || depth > 256 || !threads || threads > 16)
		usage();
	end = time(NULL) + seconds;
	vblk_disk_info(argv[optind], &disk);
	blocks = disk.bytes / BS;
	fd = open(argv[optind], O_RDWR);
	if (fd >= 0 && disk.nvme) {
		nsid = nvme_nsid(fd);
		lbs = disk.lbs;
		flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	}
	if (fd < 0 || (disk.nvme && nsid < 0) || posix_memalign((void **)&buf, BS, (size_t)depth * BS) ||
	    vblk_ring_init(&ring, depth, flags)) {
		perror(argv[optind]);
		return VBLK_EXIT_USAGE;
	}
	memset(buf, 0x5a, (size_t)depth * BS);
	for (i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, poller, &ring);

	for (i = 0; i < depth; i++)
		queue_one(&ring, fd, buf, blocks, i);
	inflight = depth;
	io_uring_submit(&ring);
	while (inflight) {
		struct io_uring_cqe *cqe;
		unsigned int slot;
		int res;

		if (io_uring_wait_cqe(&ring, &cqe))
			continue;
		res = cqe->res;
		slot = cqe->user_data;
		io_uring_cqe_seen(&ring, cqe);
		inflight--;
		ios++;
		/* After an error, only what is in flight completes */
		if (res == -ENODEV) {
			enodev++;
			stop = true;
		} else if (res) {
			errors++;
			if (!first_error)
				first_error = res;
			stop = true;
		}
		if (!stop && time(NULL) < end) {
			queue_one(&ring, fd, buf, blocks, slot);
			inflight++;
			io_uring_submit(&ring);
		}
	}
	stop = true;
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("ios=%llu errors=%llu enodev=%llu first_error=%d\n",
	       (unsigned long long)ios, (unsigned long long)errors,
	       (unsigned long long)enodev, first_error);
	return errors ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
