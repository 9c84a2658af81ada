// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring-vblk: an io_uring load generator for virtio-blk in the spirit of
 * fio's t/io_uring, measuring the passthrough node and the block device
 * side by side: -u1 drives /dev/vdXc0 with uring_cmd, -u0 drives /dev/vdX
 * with ordinary io_uring reads and writes (O_DIRECT, O_NOATIME).  One flag
 * switches the path; the op, size, depth, batching, polling and buffers
 * stay the same.  NVMe's pair runs in the same loop, the yardstick: -u1 on
 * a namespace's generic char node /dev/ngXnY sends NVMe's uring_cmd
 * (struct nvme_uring_cmd), -u0 on /dev/nvmeXnY reads and writes it.  -u2
 * drives a block device with its own uring_cmd, BLOCK_URING_CMD_READ and
 * BLOCK_URING_CMD_WRITE: the generic alternative to a node, which only the
 * prototype kernel of experiments/blkdev-uring-rw/ has.
 *
 * -v SEED checks data end to end: every write carries the test pattern of
 * guest/lib/pattern.h at its offset, every read must return it.
 *
 * Prints IOPS and bandwidth every second and a summary at the end
 * (IOPS, bandwidth, latency mean/p50/p99/p99.9 with -t1, I/Os per submit
 * and per reap call), or the summary as JSON with -j.  SIGINT or SIGTERM
 * ends a run as its runtime would: what is in flight completes, and the
 * summary is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "insn-window.h"
#include "nvme-uring.h"
#include "pattern.h"
#include "vblk-uring.h"

#define MAX_THREADS	16
#define MAX_BATCH	256
#define WINDOW_SETTLE_US 100000	/* before a window opens (-W1) */
#define FLUSH_TAG	(1ULL << 63)	/* user_data of a flush */
#define WRITE_TAG	(1ULL << 62)	/* user_data of a write */
#define SLOT_MASK	(WRITE_TAG - 1)

/* experiments/blkdev-uring-rw/: not in any released <linux/blkdev.h> */
#ifndef BLOCK_URING_CMD_READ
#define BLOCK_URING_CMD_READ	_IO(0x12, 2)
#define BLOCK_URING_CMD_WRITE	_IO(0x12, 3)
#endif

struct options {
	const char *dev;
	unsigned int depth, submit_batch, complete_batch, threads;
	unsigned int bs, write_pct, runtime, flush_every;
	uint64_t ios, size, seed;
	int cpu;
	unsigned int polled;		/* 2: also without poll queues */
	bool passthrough, blkcmd, nop, random, fixed, regfiles, sqpoll, vectored;
	bool direct, track_lat, json, quiet, window;
};

struct submitter {
	pthread_t thread;
	unsigned int id;
	int fd;
	struct io_uring ring;
	char **bufs;
	struct iovec *iovs;
	uint64_t *offs;			/* per buffer slot: its I/O's offset */
	uint64_t *start_ns;		/* per buffer slot, with -t1 */
	unsigned int *free_slots, nr_free;
	uint64_t rng, seq_off;
	uint64_t prepped;		/* data I/Os prepared */
	unsigned int writes_since_flush;
	/* results */
	uint64_t done;			/* read by the reporter while running */
	uint64_t submitted, submit_calls, reaped, reap_calls, flushes;
	uint32_t *lat;
	size_t nr_lat, lat_cap;
	uint64_t begin_ns, end_ns;
	int error;
};

static struct options o = {
	.depth = 32, .threads = 1, .bs = 4096, .cpu = -1,
	.random = true, .direct = true,
};
static struct vblk_disk disk;
static unsigned int nsid;		/* NVMe's namespace, on /dev/ngXnY */
static struct submitter subs[MAX_THREADS];
static volatile bool stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t rnd(struct submitter *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "io_uring-vblk: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(VBLK_EXIT_FAIL);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: io_uring-vblk [options] DEVICE\n"
		"  -u 0|1   path: 0 = block device (/dev/vdX, /dev/nvmeXnY),\n"
		"           1 = passthrough node (/dev/vdXc0, NVMe's /dev/ngXnY),\n"
		"           2 = block device, BLOCK_URING_CMD_READ/WRITE (a prototype kernel's) [0]\n"
		"  -N 0|1   IORING_OP_NOP instead of I/O, in the same loop: the floor [0]\n"
		"  -d N     queue depth [32]\n"
		"  -s N     submit batch [min(depth, 32)]\n"
		"  -c N     complete batch [min(depth, 32)]\n"
		"  -b N     block size in bytes [4096]\n"
		"  -w PCT   percentage of writes: 0 reads, 100 writes [0]\n"
		"  -R 0|1   random (1) or sequential (0) offsets [1]\n"
		"  -p 0|1|2 polled completions (IORING_SETUP_IOPOLL) [0]; 2: even where the\n"
		"           disk has no poll queues (a test of completions by interrupt on\n"
		"           an IOPOLL ring: they come through task work)\n"
		"  -B 0|1   registered (fixed) buffers [0]\n"
		"  -F 0|1   registered files [0]\n"
		"  -k 0|1   SQPOLL, a kernel thread submits and polls [0]\n"
		"  -V 0|1   vectored commands (readv/writev, IO_VEC) [0]\n"
		"  -f N     a flush after every N writes (FLUSH / fsync) [0: none]\n"
		"  -O 0|1   O_DIRECT on the block device [1]\n"
		"  -n N     threads, each with its own ring [1]\n"
		"  -C CPU   pin thread i to CPU+i [no pinning]\n"
		"  -r SEC   runtime in seconds [10 unless -I]\n"
		"  -I N     stop each thread after N I/Os\n"
		"  -z BYTES use only the first BYTES of the device [all]\n"
		"  -t 0|1   track latency percentiles [0]\n"
		"  -v SEED  write the test pattern of SEED, check it in every read (the area read\n"
		"           must hold it: a -v SEED write pass, or the host) [0: no check]\n"
		"  -W 0|1   mark thread 0's I/O loop as a window of tools/insn-plugin.c [0]\n"
		"  -j       print the summary as JSON\n"
		"  -q       no per-second lines\n");
	exit(VBLK_EXIT_USAGE);
}

static void parse_args(int argc, char **argv)
{
	unsigned int path = 0;
	int opt;

	while ((opt = getopt(argc, argv, "u:N:d:s:c:b:w:R:p:B:F:k:V:f:O:n:C:r:I:z:t:v:W:jqh")) != -1) {
		switch (opt) {
		case 'u': path = vblk_number(optarg, usage); break;
		case 'N': o.nop = vblk_number(optarg, usage); break;
		case 'd': o.depth = vblk_number(optarg, usage); break;
		case 's': o.submit_batch = vblk_number(optarg, usage); break;
		case 'c': o.complete_batch = vblk_number(optarg, usage); break;
		case 'b': o.bs = vblk_number(optarg, usage); break;
		case 'w': o.write_pct = vblk_number(optarg, usage); break;
		case 'R': o.random = vblk_number(optarg, usage); break;
		case 'p': o.polled = vblk_number(optarg, usage); break;
		case 'B': o.fixed = vblk_number(optarg, usage); break;
		case 'F': o.regfiles = vblk_number(optarg, usage); break;
		case 'k': o.sqpoll = vblk_number(optarg, usage); break;
		case 'V': o.vectored = vblk_number(optarg, usage); break;
		case 'f': o.flush_every = vblk_number(optarg, usage); break;
		case 'O': o.direct = vblk_number(optarg, usage); break;
		case 'n': o.threads = vblk_number(optarg, usage); break;
		case 'C': o.cpu = vblk_number(optarg, usage); break;
		case 'r': o.runtime = vblk_number(optarg, usage); break;
		case 'I': o.ios = vblk_number(optarg, usage); break;
		case 'z': o.size = vblk_number(optarg, usage); break;
		case 't': o.track_lat = vblk_number(optarg, usage); break;
		case 'v': o.seed = vblk_number(optarg, usage); break;
		case 'j': o.json = true; break;
		case 'q': o.quiet = true; break;
		case 'W': o.window = vblk_number(optarg, usage); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || path > 2)
		usage();
	o.passthrough = path == 1;
	o.blkcmd = path == 2;
	o.dev = argv[optind];
	if (!o.depth || o.depth > 4096 || !o.threads || o.threads > MAX_THREADS ||
	    o.write_pct > 100 || !o.bs)
		usage();
	if (!o.submit_batch)
		o.submit_batch = o.depth < 32 ? o.depth : 32;
	if (!o.complete_batch)
		o.complete_batch = o.depth < 32 ? o.depth : 32;
	if (o.submit_batch > o.depth)
		o.submit_batch = o.depth;
	if (o.complete_batch > MAX_BATCH)
		o.complete_batch = MAX_BATCH;
	if (!o.runtime && !o.ios)
		o.runtime = 10;
	if (o.fixed && o.vectored)
		die("%s", "-B1 and -V1 exclude each other: registered buffers are plain buffers");
	if (o.blkcmd && o.vectored)
		die("%s", "-u2 has no vectored command");
	if (o.seed && o.bs % 8)
		die("%s", "-v needs a block size that is a multiple of 8");
}

/* Check that the device fits the path and the options; learn its limits. */
static void check_device(void)
{
	struct stat st;

	if (stat(o.dev, &st))
		die(o.passthrough ? "%s: no such node (is virtio_blk the passthrough-capable one?)"
				  : "%s: no such device", o.dev);
	if (o.passthrough && S_ISBLK(st.st_mode))
		die("%s is a block device: -u1 drives the passthrough node, /dev/vdXc0 or /dev/ngXnY",
		    o.dev);
	if (!o.passthrough && S_ISCHR(st.st_mode))
		die("%s is a character device: -u0 drives the block device, /dev/vdX or /dev/nvmeXnY",
		    o.dev);
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		die("%s is not a device", o.dev);
	vblk_disk_info(o.dev, &disk);
	if (o.polled == 1 && disk.nvme && !disk.polled)
		die("polling asked (-p1) but %s has no poll queues: load nvme with poll_queues=N",
		    disk.name);
	if (o.polled == 1 && !(o.passthrough ? disk.node_polled : disk.polled))
		die(o.passthrough ? "polling asked (-p1) but %s has no poll queues: load virtio_blk with poll_queues=N, or write N to the node's direct_poll_queues"
				  : "polling asked (-p1) but %s has no poll queues: load virtio_blk with poll_queues=N",
		    disk.name);
	if (o.bs % disk.lbs || o.bs > disk.max_transfer)
		die("%s", "the block size must be a multiple of the logical block size, within the largest transfer");
	if (!o.size || o.size > disk.bytes)
		o.size = disk.bytes;
	if (o.size < o.bs)
		die("%s", "the device is smaller than one block");
}

static void setup(struct submitter *s)
{
	int mode = O_RDWR | (!o.passthrough && o.direct ? O_DIRECT : 0);
	unsigned int flags = 0, i;
	int ret;

	/* no atime to check per read, as t/io_uring and fio open devices */
	s->fd = open(o.dev, mode | O_NOATIME);
	if (s->fd < 0 && errno == EPERM)	/* O_NOATIME: the owner's, or CAP_FOWNER */
		s->fd = open(o.dev, mode);
	if (s->fd < 0)
		die("cannot open %s", o.dev);
	if (o.passthrough && disk.nvme) {
		int id = nvme_nsid(s->fd);

		if (id <= 0)
			die("%s: no NVMe namespace ID", o.dev);
		nsid = id;
	}
	/*
	 * NVMe's 72-byte commands need 128-byte SQEs and return their result
	 * in a 32-byte CQE; virtio-blk's fit a 64-byte SQE and its CQE.
	 */
	if (o.passthrough && disk.nvme)
		flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (o.polled)
		flags |= IORING_SETUP_IOPOLL;
	if (o.sqpoll)
		flags |= IORING_SETUP_SQPOLL;
	ret = vblk_ring_init(&s->ring, o.depth, flags);
	if (ret)
		die("ring set-up failed: %s", strerror(-ret));

	s->bufs = calloc(o.depth, sizeof(*s->bufs));
	s->iovs = calloc(o.depth, sizeof(*s->iovs));
	s->offs = calloc(o.depth, sizeof(*s->offs));
	s->start_ns = calloc(o.depth, sizeof(*s->start_ns));
	s->free_slots = calloc(o.depth, sizeof(*s->free_slots));
	if (!s->bufs || !s->iovs || !s->offs || !s->start_ns || !s->free_slots)
		die("%s", "out of memory");
	for (i = 0; i < o.depth; i++) {
		if (posix_memalign((void **)&s->bufs[i], 4096, o.bs))
			die("%s", "out of memory");
		memset(s->bufs[i], 0x5a, o.bs);
		s->iovs[i] = (struct iovec){ s->bufs[i], o.bs };
		s->free_slots[s->nr_free++] = i;
	}
	if (o.fixed && io_uring_register_buffers(&s->ring, s->iovs, o.depth))
		die("%s", "registering buffers failed");
	if (o.regfiles && io_uring_register_files(&s->ring, &s->fd, 1))
		die("%s", "registering the file failed");
	s->rng = 0x9e3779b97f4a7c15ULL * (s->id + 1);
	s->seq_off = (o.size / o.threads / o.bs) * o.bs * s->id;
}

static uint64_t next_offset(struct submitter *s)
{
	uint64_t blocks = o.size / o.bs, off;

	if (o.random)
		return (rnd(s) % blocks) * o.bs;
	off = s->seq_off;
	s->seq_off = off + o.bs >= blocks * o.bs ? 0 : off + o.bs;
	return off;
}

static void prep_nvme(struct submitter *s, struct io_uring_sqe *sqe, unsigned int slot,
		      bool write, uint64_t off)
{
	nvme_prep_rw(sqe, s->fd, nsid, disk.lbs, write, off,
		     o.vectored ? (void *)&s->iovs[slot] : s->bufs[slot],
		     o.vectored ? 1 : o.bs, o.vectored, o.bs);
	if (o.fixed)
		vblk_prep_fixed(sqe, slot);
}

static void prep_passthrough(struct submitter *s, struct io_uring_sqe *sqe, unsigned int slot,
			     bool write, uint64_t off)
{
	struct vblk_cmd cmd = {
		.type = write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN,
		.sector = off >> 9,
		.data = (uintptr_t)(o.vectored ? (void *)&s->iovs[slot] : s->bufs[slot]),
		.data_len = o.vectored ? 1 : o.bs,
	};

	vblk_prep_cmd(&s->ring, sqe, s->fd,
		      o.vectored ? VIRTBLK_URING_CMD_IO_VEC : VIRTBLK_URING_CMD_IO, &cmd);
	if (o.fixed)
		vblk_prep_fixed(sqe, slot);
}

static void prep_block(struct submitter *s, struct io_uring_sqe *sqe, unsigned int slot,
		       bool write, uint64_t off)
{
	if (o.vectored && write)
		io_uring_prep_writev(sqe, s->fd, &s->iovs[slot], 1, off);
	else if (o.vectored)
		io_uring_prep_readv(sqe, s->fd, &s->iovs[slot], 1, off);
	else if (o.fixed && write)
		io_uring_prep_write_fixed(sqe, s->fd, s->bufs[slot], o.bs, off, slot);
	else if (o.fixed)
		io_uring_prep_read_fixed(sqe, s->fd, s->bufs[slot], o.bs, off, slot);
	else if (write)
		io_uring_prep_write(sqe, s->fd, s->bufs[slot], o.bs, off);
	else
		io_uring_prep_read(sqe, s->fd, s->bufs[slot], o.bs, off);
}

static void prep_blkcmd(struct submitter *s, struct io_uring_sqe *sqe, unsigned int slot,
			bool write, uint64_t off)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, s->fd, s->bufs[slot], o.bs, 0);
	sqe->cmd_op = write ? BLOCK_URING_CMD_WRITE : BLOCK_URING_CMD_READ;
	sqe->addr3 = off;
	if (o.fixed)
		vblk_prep_fixed(sqe, slot);
}

static void prep_flush(struct submitter *s, struct io_uring_sqe *sqe)
{
	struct vblk_cmd cmd = { .type = VIRTIO_BLK_T_FLUSH };

	if (o.passthrough && disk.nvme)
		nvme_prep_flush(sqe, s->fd, nsid);
	else if (o.passthrough)
		vblk_prep_cmd(&s->ring, sqe, s->fd, VIRTBLK_URING_CMD_IO, &cmd);
	else
		io_uring_prep_fsync(sqe, s->fd, 0);
}

static bool flush_due(const struct submitter *s)
{
	return o.flush_every && s->writes_since_flush == o.flush_every;
}

/* Whether -I leaves I/Os to issue, or the flush that follows the last. */
static bool more_to_prep(const struct submitter *s)
{
	return !o.ios || s->prepped < o.ios || flush_due(s);
}

/* Prepare the next I/O, or the flush due after -f writes. */
static void prep_one(struct submitter *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	unsigned int slot = s->free_slots[--s->nr_free];
	bool write = false, flush = flush_due(s);
	uint64_t off;

	if (flush) {
		prep_flush(s, sqe);
		s->writes_since_flush = 0;
	} else {
		write = rnd(s) % 100 < o.write_pct;
		off = next_offset(s);
		s->offs[slot] = off;
		/* -v: a read that moves no data must not find the pattern there */
		if (o.seed && write)
			pattern_fill(s->bufs[slot], o.seed, off, o.bs);
		else if (o.seed)
			memset(s->bufs[slot], 0, o.bs);
		if (o.nop)
			io_uring_prep_nop(sqe);
		else if (o.passthrough && disk.nvme)
			prep_nvme(s, sqe, slot, write, off);
		else if (o.passthrough)
			prep_passthrough(s, sqe, slot, write, off);
		else if (o.blkcmd)
			prep_blkcmd(s, sqe, slot, write, off);
		else
			prep_block(s, sqe, slot, write, off);
		s->writes_since_flush += write;
		s->prepped++;
	}
	if (o.regfiles) {
		sqe->fd = 0;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	sqe->user_data = slot | (flush ? FLUSH_TAG : 0) | (write ? WRITE_TAG : 0);
	if (o.track_lat)
		s->start_ns[slot] = now_ns();
}

static void record_latency(struct submitter *s, unsigned int slot)
{
	uint64_t lat = now_ns() - s->start_ns[slot];

	if (s->nr_lat == s->lat_cap) {
		s->lat_cap = s->lat_cap ? 2 * s->lat_cap : 65536;
		s->lat = realloc(s->lat, s->lat_cap * sizeof(*s->lat));
		if (!s->lat)
			die("%s", "out of memory");
	}
	s->lat[s->nr_lat++] = lat > UINT32_MAX ? UINT32_MAX : lat;
}

/* -v: a read must have returned the pattern of its offset. */
static void check_read(struct submitter *s, unsigned int slot)
{
	long at = pattern_check(s->bufs[slot], o.seed, s->offs[slot], o.bs);

	if (at >= 0 && !s->error) {
		fprintf(stderr, "io_uring-vblk: data mismatch: the read at byte %" PRIu64
			" differs at byte %ld\n", s->offs[slot], at);
		s->error = 1;
	}
}

/* Reap what has completed; returns the number reaped (errors set s->error). */
static int reap(struct submitter *s)
{
	struct io_uring_cqe *cqes[MAX_BATCH];
	unsigned int n, i, data = 0;

	n = io_uring_peek_batch_cqe(&s->ring, cqes, o.complete_batch);
	if (!n)
		return 0;
	s->reap_calls++;
	for (i = 0; i < n; i++) {
		uint64_t tag = cqes[i]->user_data;
		bool flush = tag & FLUSH_TAG;
		unsigned int slot = tag & SLOT_MASK;
		int want = o.nop || o.passthrough || flush ? 0 : (int)o.bs;

		if (cqes[i]->res != want && !s->error) {
			fprintf(stderr, "io_uring-vblk: I/O error: res=%d (%s)\n", cqes[i]->res,
				cqes[i]->res < 0 ? strerror(-cqes[i]->res) : "device status");
			s->error = 1;
		} else if (o.seed && !o.nop && !flush && !(tag & WRITE_TAG)) {
			check_read(s, slot);
		}
		if (flush)
			s->flushes++;
		else if (o.track_lat)
			record_latency(s, slot);
		data += !flush;
		s->free_slots[s->nr_free++] = slot;
	}
	io_uring_cq_advance(&s->ring, n);
	s->reaped += n;
	__atomic_store_n(&s->done, s->done + data, __ATOMIC_RELAXED);
	return n;
}

static void *run(void *arg)
{
	struct submitter *s = arg;
	unsigned int inflight = 0;

	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu + s->id, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (o.window && !s->id) {
		/* let what earlier tasks left (RCU callbacks, frees) finish first */
		usleep(WINDOW_SETTLE_US);
		insn_window_begin();
	}
	s->begin_ns = now_ns();
	while ((!stop && more_to_prep(s)) || inflight) {
		unsigned int to_submit = 0, room = 0, wait;
		int ret;

		if (!stop && !s->error) {
			room = o.depth - inflight;
			if (room > o.submit_batch)
				room = o.submit_batch;
		}
		while (to_submit < room && more_to_prep(s)) {
			prep_one(s);
			to_submit++;
		}
		/* Wait only when nothing more can be submitted. */
		wait = 0;
		if (inflight + to_submit >= o.depth || !to_submit)
			wait = o.complete_batch < inflight + to_submit ? o.complete_batch
								       : inflight + to_submit;
		ret = io_uring_submit_and_wait(&s->ring, wait);
		if (ret < 0) {
			fprintf(stderr, "io_uring-vblk: submit: %s\n", strerror(-ret));
			s->error = 1;
			break;
		}
		/*
		 * With SQPOLL the count is of the entries the kernel thread has
		 * not taken yet, earlier calls' included: all of this call's
		 * entries are in flight once they are in the ring.
		 */
		if (o.sqpoll)
			ret = to_submit;
		if (to_submit) {
			s->submit_calls++;
			s->submitted += ret;
		}
		inflight += ret;
		inflight -= reap(s);
		if (s->error)
			stop = true;	/* drain what is in flight, then end */
	}
	if (o.window && !s->id)
		insn_window_end();
	s->end_ns = now_ns();
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct summary {
	uint64_t ios, submitted, submit_calls, reaped, reap_calls, flushes;
	double seconds, iops, mib_s;
	double lat_mean, p50, p99, p999;
	size_t nr_lat;
};

static void summarize(struct summary *sum)
{
	uint64_t begin = UINT64_MAX, end = 0;
	uint32_t *all = NULL;
	double total = 0;
	unsigned int t;
	size_t k = 0;

	memset(sum, 0, sizeof(*sum));
	for (t = 0; t < o.threads; t++) {
		struct submitter *s = &subs[t];

		sum->ios += s->done;
		sum->submitted += s->submitted;
		sum->submit_calls += s->submit_calls;
		sum->reaped += s->reaped;
		sum->reap_calls += s->reap_calls;
		sum->flushes += s->flushes;
		sum->nr_lat += s->nr_lat;
		begin = s->begin_ns < begin ? s->begin_ns : begin;
		end = s->end_ns > end ? s->end_ns : end;
	}
	sum->seconds = (end - begin) / 1e9;
	sum->iops = sum->ios / sum->seconds;
	sum->mib_s = sum->iops * o.bs / (1 << 20);
	if (!sum->nr_lat)
		return;
	all = malloc(sum->nr_lat * sizeof(*all));
	if (!all)
		die("%s", "out of memory");
	for (t = 0; t < o.threads; t++) {
		memcpy(all + k, subs[t].lat, subs[t].nr_lat * sizeof(*all));
		k += subs[t].nr_lat;
	}
	qsort(all, k, sizeof(*all), cmp_u32);
	for (k = 0; k < sum->nr_lat; k++)
		total += all[k];
	sum->lat_mean = total / sum->nr_lat;
	sum->p50 = all[(size_t)(0.50 * (sum->nr_lat - 1))];
	sum->p99 = all[(size_t)(0.99 * (sum->nr_lat - 1))];
	sum->p999 = all[(size_t)(0.999 * (sum->nr_lat - 1))];
	free(all);
}

static const char *rw_name(void)
{
	if (o.write_pct == 0)
		return o.random ? "randread" : "read";
	if (o.write_pct == 100)
		return o.random ? "randwrite" : "write";
	return o.random ? "randrw" : "rw";
}

static const char *path_name(void)
{
	return o.passthrough ? "passthrough" : o.blkcmd ? "blkcmd" : "block";
}

static void print_summary(const struct summary *sum, int errors)
{
	double per_submit = sum->submit_calls ? (double)sum->submitted / sum->submit_calls : 0;
	double per_reap = sum->reap_calls ? (double)sum->reaped / sum->reap_calls : 0;

	if (o.json) {
		printf("{\"path\": \"%s\", \"device\": \"%s\", \"rw\": \"%s\", \"write_pct\": %u, "
		       "\"bs\": %u, \"depth\": %u, \"submit_batch\": %u, \"complete_batch\": %u, "
		       "\"polled\": %d, \"fixed\": %d, \"regfiles\": %d, \"sqpoll\": %d, "
		       "\"vectored\": %d, \"direct\": %d, \"threads\": %u, "
		       "\"seconds\": %.3f, \"ios\": %" PRIu64 ", \"iops\": %.1f, \"mib_s\": %.2f, "
		       "\"ios_per_submit\": %.2f, \"ios_per_reap\": %.2f, \"flushes\": %" PRIu64
		       ", \"errors\": %d",
		       path_name(), o.dev, rw_name(), o.write_pct,
		       o.bs, o.depth, o.submit_batch, o.complete_batch, o.polled, o.fixed,
		       o.regfiles, o.sqpoll, o.vectored, o.direct, o.threads, sum->seconds,
		       sum->ios, sum->iops, sum->mib_s, per_submit, per_reap, sum->flushes, errors);
		if (sum->nr_lat)
			printf(", \"lat_ns\": {\"mean\": %.0f, \"p50\": %.0f, \"p99\": %.0f, "
			       "\"p99.9\": %.0f}", sum->lat_mean, sum->p50, sum->p99, sum->p999);
		printf("}\n");
		return;
	}
	printf("%s %s bs=%u depth=%u: IOPS=%.0f, BW=%.1fMiB/s, IOS/call=%.1f/%.1f, %" PRIu64
	       " I/Os in %.2fs\n", path_name(), rw_name(), o.bs,
	       o.depth, sum->iops, sum->mib_s, per_submit, per_reap, sum->ios, sum->seconds);
	if (sum->nr_lat)
		printf("latency (usec): mean=%.1f, p50=%.1f, p99=%.1f, p99.9=%.1f\n",
		       sum->lat_mean / 1e3, sum->p50 / 1e3, sum->p99 / 1e3, sum->p999 / 1e3);
}

/* Print the rate every second until the runtime is over or the threads end. */
static void report(void)
{
	uint64_t start = now_ns(), last = 0, last_ns = start;
	unsigned int t, finished;

	for (;;) {
		uint64_t done = 0, now;

		usleep(100000);
		now = now_ns();
		if (o.runtime && now - start >= o.runtime * 1000000000ULL)
			stop = true;
		for (t = 0, finished = 0; t < o.threads; t++) {
			done += __atomic_load_n(&subs[t].done, __ATOMIC_RELAXED);
			finished += subs[t].end_ns != 0;
		}
		if (finished == o.threads)
			return;
		if (now - last_ns >= 1000000000ULL && !o.quiet && !o.json) {
			double rate = (done - last) / ((now - last_ns) / 1e9);

			printf("IOPS=%.0f, BW=%.1fMiB/s\n", rate, rate * o.bs / (1 << 20));
			fflush(stdout);
			last = done;
			last_ns = now;
		}
	}
}

static void on_stop_signal(int sig __attribute__((unused)))
{
	stop = true;
}

/*
 * Stop on SIGINT and SIGTERM.  Only the reporting thread takes them: a
 * submitter waiting in io_uring_enter() would see -EINTR.
 */
static void start_threads(void)
{
	sigset_t stop_signals;
	unsigned int t;

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	for (t = 0; t < o.threads; t++)
		if (pthread_create(&subs[t].thread, NULL, run, &subs[t]))
			die("%s", "cannot start a thread");
	pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL);
}

int main(int argc, char **argv)
{
	struct summary sum;
	unsigned int t;
	int errors = 0;

	parse_args(argc, argv);
	check_device();
	for (t = 0; t < o.threads; t++) {
		subs[t].id = t;
		setup(&subs[t]);
	}
	start_threads();
	report();
	for (t = 0; t < o.threads; t++) {
		pthread_join(subs[t].thread, NULL);
		errors += subs[t].error;
	}
	summarize(&sum);
	print_summary(&sum, errors);
	return errors ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}
