// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-pollers: one IOPOLL ring shared by several threads, on a passthrough
 * node (virtio-blk's /dev/vdXc0, or NVMe's /dev/ngXnY with its uring_cmd on
 * a CQE32 ring) or on a block device (O_DIRECT reads and writes).  The main
 * thread keeps DEPTH 4 KiB random reads and writes (half each) in flight for
 * SECONDS and does nothing else; every other thread waits in the kernel for
 * at least one completion (io_uring_enter() with min_complete 1), then takes
 * the completions it finds.  Submitting and taking completions are done
 * under one mutex, as a program sharing a ring between threads would.  So
 * the thread that polls a completion is never the one that issued it, and
 * the issuer must be let in while another thread polls.  Meant to run
 * beside other IOPOLL loads on the same poll queue, whose pollers find this
 * ring's completions too.
 *
 * With -t 1 the main thread takes the completions itself; with -S the ring
 * has an SQPOLL thread, which then does the polling.
 *
 * usage: vblk-pollers [-S] [-d DEPTH] [-r SECONDS] [-t THREADS] DEV
 * Stops submitting at the first error.  Prints "ios=N errors=N enodev=N
 * first_error=RES" and exits VBLK_EXIT_PASS when every command completed,
 * with 0 or, once the disk is gone, -ENODEV; else VBLK_EXIT_FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvme-uring.h"
#include "vblk-uring.h"

#define BS		4096
#define WAIT_NS		100000000	/* a reaper's wait on an SQPOLL ring */

enum kind { VBLK_NODE, NVME_NODE, BLOCK_DEVICE };

static struct io_uring ring;
static enum kind kind;
static int fd;
static int nsid;		/* NVMe's namespace */
static unsigned int lbs;	/* NVMe's logical block size */
static char *buf;
static uint64_t blocks;

/* All below under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reaped = PTHREAD_COND_INITIALIZER;
static unsigned int inflight;
static unsigned int nr_free;
static unsigned int free_slots[256];
static bool stop;
static uint64_t ios, errors, enodev;
static int first_error;

static void usage(void)
{
	fprintf(stderr, "usage: vblk-pollers [-S] [-d DEPTH] [-r SECONDS] [-t THREADS] DEV\n");
	exit(VBLK_EXIT_USAGE);
}

static void queue_one(unsigned int slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	uint64_t off = (uint64_t)(rand() % blocks) * BS;
	char *data = buf + (size_t)slot * BS;
	int write = rand() & 1;
	struct vblk_cmd cmd = {
		.type = write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN,
		.sector = off / 512,
		.data = (uintptr_t)data,
		.data_len = BS,
	};

	switch (kind) {
	case NVME_NODE:
		nvme_prep_rw(sqe, fd, nsid, lbs, write, off, data, BS, 0, BS);
		break;
	case VBLK_NODE:
		vblk_prep_cmd(&ring, sqe, fd, VIRTBLK_URING_CMD_IO, &cmd);
		break;
	case BLOCK_DEVICE:
		if (write)
			io_uring_prep_write(sqe, fd, data, BS, off);
		else
			io_uring_prep_read(sqe, fd, data, BS, off);
		break;
	}
	sqe->user_data = slot;
}

/* Take every completion in the CQ; under lock. */
static void take_completions(void)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(&ring, &cqe)) {
		int res = cqe->res;

		/* a block device's read or write returns its length */
		if (kind == BLOCK_DEVICE && res == BS)
			res = 0;
		free_slots[nr_free++] = cqe->user_data;
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
	}
}

/*
 * Wait in the kernel for a completion, then take what there is.  Returns
 * false once the load has stopped and nothing is in flight.
 */
static bool reap(void)
{
	struct __kernel_timespec ts = { .tv_nsec = WAIT_NS };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	bool more;

	/*
	 * An IOPOLL ring polls, and returns once its list is empty; the
	 * SQPOLL thread polls for an SQPOLL ring, which waits: with a timeout,
	 * or the last wait would never end.
	 */
	if (ring.flags & IORING_SETUP_SQPOLL)
		io_uring_enter2(ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
				(sigset_t *)&arg, sizeof(arg));
	else
		io_uring_enter(ring.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, NULL);
	pthread_mutex_lock(&lock);
	take_completions();
	more = !stop || inflight;
	pthread_cond_signal(&reaped);
	pthread_mutex_unlock(&lock);
	return more;
}

static void *reaper(void *arg)
{
	(void)arg;
	while (reap())
		;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int depth = 32, threads = 2, seconds = 10, i;
	unsigned int flags = IORING_SETUP_IOPOLL;
	pthread_t tid[16];
	struct vblk_disk disk;
	struct stat st;
	time_t end;
	int opt;

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
	if (!stat(argv[optind], &st) && S_ISBLK(st.st_mode))
		kind = BLOCK_DEVICE;
	else if (disk.nvme)
		kind = NVME_NODE;
	fd = open(argv[optind], O_RDWR | (kind == BLOCK_DEVICE ? O_DIRECT : 0));
	if (fd >= 0 && kind == NVME_NODE) {
		nsid = nvme_nsid(fd);
		lbs = disk.lbs;
		flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	}
	if (fd < 0 || (kind == NVME_NODE && nsid < 0) || !blocks ||
	    posix_memalign((void **)&buf, BS, (size_t)depth * BS) ||
	    vblk_ring_init(&ring, depth, flags)) {
		perror(argv[optind]);
		return VBLK_EXIT_USAGE;
	}
	memset(buf, 0x5a, (size_t)depth * BS);
	for (i = 0; i < depth; i++)
		free_slots[nr_free++] = i;
	for (i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, reaper, NULL);

	pthread_mutex_lock(&lock);
	for (;;) {
		unsigned int queued = 0;

		while (nr_free && !stop && time(NULL) < end) {
			queue_one(free_slots[--nr_free]);
			inflight++;
			queued++;
		}
		if (queued)
			io_uring_submit(&ring);
		if (!inflight)
			break;
		if (threads > 1) {
			pthread_cond_wait(&reaped, &lock);
		} else {
			pthread_mutex_unlock(&lock);
			reap();
			pthread_mutex_lock(&lock);
		}
	}
	stop = true;
	pthread_mutex_unlock(&lock);
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("ios=%llu errors=%llu enodev=%llu first_error=%d\n",
	       (unsigned long long)ios, (unsigned long long)errors,
	       (unsigned long long)enodev, first_error);
	return errors ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
