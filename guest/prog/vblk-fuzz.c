// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-fuzz: a seeded fuzzer for the passthrough node.  It sends a stream of
 * IORING_OP_URING_CMD submissions to /dev/vdXc0, mixing valid commands of
 * every type with mutated ones (command op, type, flag, reserved field, sector,
 * length, addresses, iovecs, registered buffers, ranges, open mode, uring
 * cmd flags), over a series of rings (64- and 128-byte SQEs, IOPOLL,
 * SQPOLL, SUBMIT_ALL, registered buffers and files) with up to 32
 * commands in flight.
 *
 * Each command is judged before it is sent by a model of the documented
 * interface (the kernel-doc of struct virtblk_uring_cmd): the reasons it
 * must be refused for, each with its errno.  A command without any must
 * complete with 0; one with some must fail with the errno of one of them
 * (the order of the checks is not part of the interface).  A valid read
 * of the canary is checked against the pattern planted there (-k), a
 * valid GET_ID against the disk's serial.
 *
 * The canary [START, START + BYTES) of the disk is never the target of a
 * command that could change data, valid or not: every command whose type
 * a device could take as a write (the OUT bit, the range and zone types)
 * is checked before it is sent, reading its fields every way the kernel
 * could (a plain buffer, an iovec array, the ranges in either), and must
 * address only sectors outside the canary or starting past the end of the
 * disk; a command that does not is generated again.
 *
 * The seed is printed first; the stream of commands depends on nothing
 * else (each command has the slot of its number), so a failure replays.
 *
 * usage: vblk-fuzz [-n SQES] [-t SECONDS] [-k CANARY_SEED] [-z WZ_RANGES]
 *                  SEED /dev/vdXc0 CANARY_START CANARY_BYTES
 *   -n SQES         submissions to send (default 100000)
 *   -t SECONDS      stop submitting after this long (default 300)
 *   -k CANARY_SEED  the pattern seed of the canary, to check reads of it
 *   -z WZ_RANGES    the device's max_write_zeroes_seg (default 1, QEMU's;
 *                   sysfs does not show it)
 * Exit status: VBLK_EXIT_PASS clean, VBLK_EXIT_FAIL a command completed
 * unexpectedly (or io_uring failed), VBLK_EXIT_USAGE usage or set-up,
 * FUZZ_EXIT_HANG (3) no completion for a minute (FUZZ_EXIT_HANG_MUTE, 4,
 * if even the HANG line could not be written).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"
#include "vblk-uring.h"

#define NR_SLOTS	32			/* the deepest queue */
#define SLOT_DATA	(64 << 10)		/* the largest slot transfer */
#define SLOT_BYTES	(SLOT_DATA + 4096)	/* room to move it around */
#define NR_IOV		1024			/* UIO_MAXIOV */
#define IOV_BYTES	(NR_IOV * sizeof(struct iovec) + 4096)
#define RO_BYTES	(64 << 10)
#define NR_RO_RANGES	4
#define BIG_INDEX	NR_SLOTS		/* registered index of the big buffer */
#define MAX_RW		0x7ffff000ULL		/* MAX_RW_COUNT */
#define RANGE_BYTES	sizeof(struct virtio_blk_discard_write_zeroes)
#define PARSE_MAX	(1 << 20)		/* range bytes checked for the canary */
#define MAX_RD		16			/* segments of a checked read */
#define MAX_BAD		10			/* failures of a kind reported in full */
#define HANG_SECONDS	60
#define UNKNOWN		UINT64_MAX
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* access_ok(): the top of user space with 4-level and 5-level paging */
#define USER_TOP_4	0x00007ffffffff000ULL
#define USER_TOP_5	0x00fffffffffff000ULL

static const uint32_t NVME_URING_CMD_IO = 0xc0484e80;	/* _IOWR('N', 0x80, 72 bytes) */

/* -- the model of the interface ------------------------------------------ */

/* Why a command must be refused: each reason has its documented errno */
enum reason {
	R_UCMD_FLAGS, R_RESERVED, R_BUF_INDEX, R_CMD_OP, R_FLAG, R_TYPE,
	R_ACCESS, R_ROFS, R_RSVD, R_FEATURE, R_NO_DATA,
	R_FIXED_IOV, R_FIXED_IOV_ALLOC, R_FIXED_IOV_SEGS, R_IOV_COUNT, R_IOV_LEN, R_BAD_ADDR, R_READ_ONLY_BUF,
	R_LEN, R_SECTOR, R_ALIGN, R_ID_LEN, R_RANGE_LEN, R_RANGE, NR_REASONS
};

static const struct {
	const char *name;
	int err;
} reasons[NR_REASONS] = {
	[R_UCMD_FLAGS] = { "uring-cmd-flags", EINVAL },
	[R_RESERVED] = { "reserved-byte", EINVAL },
	[R_BUF_INDEX] = { "buf-index", EFAULT },
	[R_CMD_OP] = { "cmd-op", ENOTTY },
	[R_FLAG] = { "flag", EINVAL },
	[R_TYPE] = { "type", EOPNOTSUPP },
	[R_ACCESS] = { "open-mode", EACCES },
	[R_ROFS] = { "read-only-disk", EROFS },
	[R_RSVD] = { "reserved-field", EINVAL },
	[R_FEATURE] = { "feature", EOPNOTSUPP },
	[R_NO_DATA] = { "data-on-flush", EINVAL },
	[R_FIXED_IOV] = { "fixed-iov", EFAULT },
	[R_FIXED_IOV_ALLOC] = { "fixed-iov-alloc", ENOMEM },
	[R_FIXED_IOV_SEGS] = { "fixed-iov-segments", EOVERFLOW },
	[R_IOV_COUNT] = { "iov-count", EINVAL },
	[R_IOV_LEN] = { "iov-len", EINVAL },
	[R_BAD_ADDR] = { "bad-address", EFAULT },
	[R_READ_ONLY_BUF] = { "read-only-buffer", EFAULT },
	[R_LEN] = { "length", EINVAL },
	[R_SECTOR] = { "sector", EINVAL },
	[R_ALIGN] = { "alignment", EINVAL },
	[R_ID_LEN] = { "id-length", EINVAL },
	[R_RANGE_LEN] = { "range-array", EINVAL },
	[R_RANGE] = { "range", EINVAL },
};

/* What can go wrong with a completion */
enum verdict {
	V_STATUS, V_VALID_FAILED, V_INVALID_OK, V_WRONG_ERRNO, V_DATA, V_STRAY,
	NR_VERDICTS
};

static const char *const verdict_names[NR_VERDICTS] = {
	[V_STATUS] = "device-status",
	[V_VALID_FAILED] = "valid-but-failed",
	[V_INVALID_OK] = "invalid-but-ok",
	[V_WRONG_ERRNO] = "wrong-errno",
	[V_DATA] = "data-mismatch",
	[V_STRAY] = "stray-cqe",
};

enum payload { PAY_NONE, PAY_DATA, PAY_ID, PAY_RANGES };

/* The accepted types; the generator's kinds are their indices */
enum kind { K_IN, K_OUT, K_FLUSH, K_GET_ID, K_DISCARD, K_WZ, K_SE, NR_KINDS };

static const struct type_rule {
	uint32_t type;
	const char *name;
	enum payload payload;
	bool read, write;	/* the open mode it needs */
	int feature;		/* VIRTIO_BLK_F_*, or -1 */
	unsigned int weight;	/* in the generator's mix */
} type_rules[NR_KINDS] = {
	[K_IN] = { VIRTIO_BLK_T_IN, "IN", PAY_DATA, true, false, -1, 30 },
	[K_OUT] = { VIRTIO_BLK_T_OUT, "OUT", PAY_DATA, false, true, -1, 26 },
	[K_FLUSH] = { VIRTIO_BLK_T_FLUSH, "FLUSH", PAY_NONE, false, false, VIRTIO_BLK_F_FLUSH, 8 },
	[K_GET_ID] = { VIRTIO_BLK_T_GET_ID, "GET_ID", PAY_ID, true, false, -1, 8 },
	[K_DISCARD] = { VIRTIO_BLK_T_DISCARD, "DISCARD", PAY_RANGES, false, true,
			VIRTIO_BLK_F_DISCARD, 11 },
	[K_WZ] = { VIRTIO_BLK_T_WRITE_ZEROES, "WRITE_ZEROES", PAY_RANGES, false, true,
		   VIRTIO_BLK_F_WRITE_ZEROES, 12 },
	[K_SE] = { VIRTIO_BLK_T_SECURE_ERASE, "SECURE_ERASE", PAY_RANGES, false, true,
		   VIRTIO_BLK_F_SECURE_ERASE, 5 },
};

/* How a command carries its data */
enum form { FORM_PLAIN, FORM_VEC, FORM_FIXED };

/* Memory as the fuzzer mapped it */
enum prot { MEM_NONE, MEM_RO, MEM_RW };

/* Whose a region is: a slot's (its index), or */
enum {
	OWNER_CONST = -1,	/* nobody's: never written after set-up */
	OWNER_ANY = -2,		/* everybody's: may change under a command */
};

struct region {
	uint64_t start, end;
	enum prot prot;
	int owner;
};

struct seg {
	uint64_t base, len;
};

/* A command's data as the kernel would import it */
struct iter {
	unsigned int nr;
	uint64_t count;
	bool fixed;
	bool stop;		/* the import failed: nothing after it runs */
	struct seg seg[NR_IOV];
};

struct cmd {
	uint64_t nr;			/* the SQE's number in the run */
	int slot;
	enum kind kind;			/* what the generator built */
	enum form form;
	int fd;				/* index into fds[] */
	bool fixed_file;
	uint8_t sqe_flags;
	uint32_t cmd_op;
	uint32_t ucmd_flags;
	uint16_t buf_index;
	uint8_t poke;			/* an SQE byte set that must stay 0, or 0 */
	bool sector_set;		/* chosen by a mutation */
	bool shared;			/* the big buffer: no data check */
	unsigned int mutations;
	struct vblk_cmd cmd;
	unsigned int why;		/* the reasons to refuse it */
	unsigned int nr_rd;		/* a valid read: where the data lands */
	struct seg rd[MAX_RD];
};

struct slot {
	char *buf;			/* registered as buffer i */
	struct iovec *iov;		/* NR_IOV entries, unused ones zero */
	unsigned int iov_used;
	bool busy;
	struct cmd cmd;
};

static const struct ring_kind {
	const char *name;
	unsigned int flags;
	unsigned int weight;
} ring_kinds[] = {
	{ "sqe64", 0, 28 },
	{ "sqe64-iopoll", IORING_SETUP_IOPOLL, 24 },
	{ "sqe64-sqpoll", IORING_SETUP_SQPOLL, 10 },
	{ "sqe64-sqpoll-iopoll", IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL, 8 },
	{ "sqe64-submit-all", IORING_SETUP_SUBMIT_ALL, 12 },
	{ "sqe128", IORING_SETUP_SQE128, 6 },
	{ "sqe128-iopoll", IORING_SETUP_SQE128 | IORING_SETUP_IOPOLL, 4 },
};
#define NR_RING_KINDS	ARRAY_SIZE(ring_kinds)

static const int open_modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
static const char *const mode_names[] = { "r", "w", "rw" };
static const char *const form_names[] = { "plain", "vec", "fixed" };

struct fuzz;
typedef void mutation_fn(struct fuzz *f, struct slot *s);

struct fuzz {
	/* the disk */
	struct vblk_disk disk;
	uint64_t capacity;		/* sectors */
	unsigned int lbs_sectors;
	uint64_t canary_start, canary_end;
	uint64_t canary_seed;
	bool check_canary;
	uint64_t features;
	bool read_only;
	unsigned int discard_ranges, wz_ranges;
	uint64_t discard_sectors, wz_sectors;
	char serial[VIRTIO_BLK_ID_BYTES];
	int fds[3];

	/* memory */
	struct slot slots[NR_SLOTS];
	char *big, *ro, *hole;
	size_t big_bytes;
	struct region regions[2 * NR_SLOTS + 4];
	unsigned int nr_regions;

	/* this epoch's ring */
	struct io_uring ring;
	unsigned int ring_kind, depth, nr_registered, inflight;
	bool files_registered;

	uint64_t rng;

	/* limits and counters */
	uint64_t target;
	double limit, started;
	uint64_t sqes, cqes, ok, errors, statuses, valid, retries, epochs;
	uint64_t verdicts[NR_VERDICTS];
	uint64_t res_errno[256], res_status[256];
	uint64_t reason_any[NR_REASONS], reason_alone[NR_REASONS];
	uint64_t mutated, mutation_count[16];
	uint64_t type_sent[NR_KINDS + 1], type_ok[NR_KINDS + 1];
	uint64_t form_sent[3];
	uint64_t ring_sqes[NR_RING_KINDS], ring_epochs[NR_RING_KINDS];
};

static struct fuzz fuzz;
static struct iter scratch_iter;
static uint8_t parse_buf[PARSE_MAX];

/* -- small helpers --------------------------------------------------------- */

static void die(const char *what)
{
	fprintf(stderr, "vblk-fuzz: %s\n", what);
	exit(VBLK_EXIT_USAGE);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next(struct fuzz *f)
{
	f->rng = splitmix64(f->rng);
	return f->rng;
}

static uint64_t rnd(struct fuzz *f, uint64_t n)
{
	return n ? next(f) % n : 0;
}

static bool chance(struct fuzz *f, unsigned int percent)
{
	return rnd(f, 100) < percent;
}

static uint64_t pick(struct fuzz *f, const uint64_t *v, size_t n)
{
	return v[rnd(f, n)];
}

#define PICK(f, ...) ({ const uint64_t v_[] = { __VA_ARGS__ }; pick(f, v_, sizeof(v_) / 8); })

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t round_up64(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* -- memory ----------------------------------------------------------------- */

/*
 * Map bytes between two PROT_NONE guard pages, so that whatever runs off
 * its end faults, and note what it is.
 */
static char *map_region(struct fuzz *f, size_t bytes, enum prot prot, int owner)
{
	size_t len = round_up64(bytes, 4096);
	char *p = mmap(NULL, len + 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap failed");
	p += 4096;
	if (prot != MEM_NONE && mprotect(p, len, PROT_READ | PROT_WRITE))
		die("mprotect failed");
	f->regions[f->nr_regions++] = (struct region){ (uintptr_t)p, (uintptr_t)p + len, prot, owner };
	return p;
}

/* What [addr, addr + len) may be used for: all of it must be in one region. */
static enum prot mem_prot(const struct fuzz *f, uint64_t addr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < f->nr_regions; i++) {
		const struct region *r = &f->regions[i];

		if (addr >= r->start && addr < r->end)
			return len <= r->end - addr ? r->prot : MEM_NONE;
	}
	return MEM_NONE;
}

/* How many bytes from addr can be read, up to len. */
static uint64_t mem_readable(const struct fuzz *f, uint64_t addr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < f->nr_regions; i++) {
		const struct region *r = &f->regions[i];

		if (addr >= r->start && addr < r->end && r->prot != MEM_NONE)
			return min64(len, r->end - addr);
	}
	return 0;
}

/*
 * How many bytes from addr a command of slot can have read, up to len, and
 * be sure of what they hold then: UNKNOWN when they are readable but may
 * change under it (the big buffer, another slot's memory).
 */
static uint64_t mem_settled(const struct fuzz *f, int slot, uint64_t addr, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < f->nr_regions; i++) {
		const struct region *r = &f->regions[i];

		if (addr < r->start || addr >= r->end || r->prot == MEM_NONE)
			continue;
		if (r->owner != OWNER_CONST && r->owner != slot)
			return UNKNOWN;
		return min64(len, r->end - addr);
	}
	return 0;
}

/* access_ok(): 1 yes, 0 no, -1 depends on the paging levels. */
static int user_range_ok(uint64_t addr, uint64_t len)
{
	uint64_t end = addr + len;

	if (end < addr || end > USER_TOP_5)
		return 0;
	return end <= USER_TOP_4 ? 1 : -1;
}

/* -- the disk and the canary ---------------------------------------------- */

static bool has_feature(const struct fuzz *f, int bit)
{
	return bit < 0 || (f->features >> bit) & 1;
}

/*
 * Whether a write of sectors at sector stays clear of the canary: it is
 * empty, or starts at or past the end of the disk, or lies entirely on
 * one side of the canary.  sectors may be UNKNOWN (any length).
 */
static bool extent_safe(const struct fuzz *f, uint64_t sector, uint64_t sectors)
{
	if (!sectors || sector >= f->capacity || sector >= f->canary_end)
		return true;
	return add_sat(sector, sectors) <= f->canary_start;
}

/* Whether a device could take type as a request that changes data. */
static bool type_may_write(uint32_t type)
{
	uint32_t t = type & ~VIRTIO_BLK_T_BARRIER;

	return (t & VIRTIO_BLK_T_OUT) ||
	       (t >= VIRTIO_BLK_T_DISCARD && t <= VIRTIO_BLK_T_ZONE_RESET_ALL + 1);
}

/* Whether type could be read as a range type (with the OUT bit or not). */
static bool type_has_ranges(uint32_t type)
{
	uint32_t t = type & ~(VIRTIO_BLK_T_BARRIER | VIRTIO_BLK_T_OUT);

	return t == (VIRTIO_BLK_T_DISCARD & ~1u) || t == (VIRTIO_BLK_T_WRITE_ZEROES & ~1u) ||
	       t == VIRTIO_BLK_T_SECURE_ERASE;
}

/* Whether type addresses the whole disk whatever the sector (reset all zones). */
static bool type_whole_disk(uint32_t type)
{
	return (type & ~(VIRTIO_BLK_T_BARRIER | VIRTIO_BLK_T_OUT)) == VIRTIO_BLK_T_ZONE_RESET_ALL;
}

/* The sum of the lengths of the iovecs at addr that can be read, or UNKNOWN. */
static uint64_t iovec_bytes(const struct fuzz *f, int slot, uint64_t addr, uint64_t nr)
{
	const struct iovec *iov = (const struct iovec *)(uintptr_t)addr;
	uint64_t sum = 0, i, n;

	nr = min64(nr, NR_IOV);
	for (i = 0; i < nr; i++) {
		n = mem_settled(f, slot, addr + i * 16, 16);
		if (n == UNKNOWN)
			return UNKNOWN;
		if (n < 16)
			break;
		sum = add_sat(sum, iov[i].iov_len);
	}
	return sum;
}

/* The most bytes that a command could transfer, however it is read. */
static uint64_t data_bytes(const struct fuzz *f, const struct cmd *c)
{
	uint64_t plain = c->cmd.data_len, vec = iovec_bytes(f, c->slot, c->cmd.data, c->cmd.data_len);

	if (c->cmd_op == VIRTBLK_URING_CMD_IO)
		return plain;
	if (c->cmd_op == VIRTBLK_URING_CMD_IO_VEC)
		return vec;
	return plain > vec ? plain : vec;
}

static uint64_t bytes_to_sectors(uint64_t bytes)
{
	return bytes == UNKNOWN ? UNKNOWN : bytes / 512 + !!(bytes % 512);
}

/* Append what can be read of [addr, addr + len) to the parse buffer. */
static bool gather(const struct fuzz *f, int slot, uint64_t addr, uint64_t len, size_t *used)
{
	uint64_t n = mem_settled(f, slot, addr, len);

	if (n == UNKNOWN || *used + n > PARSE_MAX)
		return false;
	memcpy(parse_buf + *used, (const void *)(uintptr_t)addr, n);
	*used += n;
	return true;
}

/* Every range in the parse buffer stays clear of the canary. */
static bool parsed_ranges_safe(const struct fuzz *f, size_t used)
{
	size_t i;

	for (i = 0; i + RANGE_BYTES <= used; i += RANGE_BYTES) {
		struct virtio_blk_discard_write_zeroes r;

		memcpy(&r, parse_buf + i, sizeof(r));
		if (!extent_safe(f, le64toh(r.sector), le32toh(r.num_sectors)))
			return false;
	}
	return true;
}

/* The ranges of a command, read as a plain buffer and as iovecs, are safe. */
static bool ranges_safe(const struct fuzz *f, const struct cmd *c)
{
	const struct iovec *iov = (const struct iovec *)(uintptr_t)c->cmd.data;
	uint64_t i, nr = min64(c->cmd.data_len, NR_IOV), n;
	size_t used = 0;

	if (c->cmd_op != VIRTBLK_URING_CMD_IO_VEC) {
		if (!gather(f, c->slot, c->cmd.data, c->cmd.data_len, &used) ||
		    !parsed_ranges_safe(f, used))
			return false;
	}
	if (c->cmd_op == VIRTBLK_URING_CMD_IO)
		return true;
	used = 0;
	for (i = 0; i < nr; i++) {
		n = mem_settled(f, c->slot, c->cmd.data + i * 16, 16);
		if (n == UNKNOWN)
			return false;
		if (n < 16)
			break;
		if (!gather(f, c->slot, (uintptr_t)iov[i].iov_base, iov[i].iov_len, &used))
			return false;
	}
	return parsed_ranges_safe(f, used);
}

/*
 * The canary rule: a command that could change data must address only
 * sectors outside the canary or past the end of the disk, however the
 * kernel reads it.
 */
static bool canary_safe(const struct fuzz *f, const struct cmd *c)
{
	uint32_t type = c->cmd.type;

	if (!type_may_write(type))
		return true;
	if (type_whole_disk(type))
		return false;
	if (!extent_safe(f, c->cmd.sector, bytes_to_sectors(data_bytes(f, c))))
		return false;
	return !type_has_ranges(type) || ranges_safe(f, c);
}

/* -- the judge: what the kernel-doc says the result must be --------------- */

static const struct type_rule *type_rule(uint32_t type)
{
	unsigned int k;

	for (k = 0; k < NR_KINDS; k++)
		if (type_rules[k].type == type)
			return &type_rules[k];
	return NULL;
}

static unsigned int bit(enum reason r)
{
	return 1u << r;
}

static void iter_add(struct iter *it, uint64_t base, uint64_t len)
{
	len = min64(len, MAX_RW - it->count);
	it->seg[it->nr++] = (struct seg){ base, len };
	it->count += len;
}

static unsigned int iter_stop(struct iter *it, enum reason r)
{
	it->stop = true;
	return bit(r);
}

/*
 * iovec_from_user(): the whole array must be readable, and it is copied one
 * iovec at a time, so a negative length stops it before a fault further on.
 */
static unsigned int read_iovecs(const struct fuzz *f, const struct cmd *c, struct iter *it)
{
	const struct iovec *iov = (const struct iovec *)(uintptr_t)c->cmd.data;
	uint64_t nr = c->cmd.data_len, i;

	if (user_range_ok(c->cmd.data, nr * 16) != 1)
		return iter_stop(it, R_BAD_ADDR);
	for (i = 0; i < nr; i++) {
		if (mem_prot(f, c->cmd.data + i * 16, 16) == MEM_NONE)
			return iter_stop(it, R_BAD_ADDR);
		if ((int64_t)iov[i].iov_len < 0)
			return iter_stop(it, R_IOV_LEN);
	}
	return 0;
}

/* An array of iovecs, as import_iovec() takes it. */
static unsigned int import_vec(const struct fuzz *f, const struct cmd *c, struct iter *it)
{
	const struct iovec *iov = (const struct iovec *)(uintptr_t)c->cmd.data;
	uint64_t nr = c->cmd.data_len, i;
	unsigned int why = 0;
	int ok;

	if (!nr)
		return 0;
	if (nr > NR_IOV)
		return iter_stop(it, R_IOV_COUNT);
	why = read_iovecs(f, c, it);
	if (it->stop)
		return why;
	for (i = 0; i < nr; i++) {
		uint64_t base = (uintptr_t)iov[i].iov_base, len = iov[i].iov_len;

		/* a single iovec becomes a plain buffer: truncated, then checked */
		ok = user_range_ok(base, nr == 1 ? min64(len, MAX_RW) : len);
		if (!ok)
			return iter_stop(it, R_BAD_ADDR);
		if (ok < 0)
			why |= bit(R_BAD_ADDR);
		iter_add(it, base, len);
	}
	return why;
}

/* Whether [base, base + len) lies inside the command's registered buffer. */
static bool in_registered(const struct fuzz *f, const struct cmd *c, uint64_t base, uint64_t len)
{
	uint64_t start, bytes, end = base + len;

	if (c->buf_index == BIG_INDEX) {
		start = (uintptr_t)f->big;
		bytes = f->big_bytes;
	} else {
		start = (uintptr_t)f->slots[c->buf_index].buf;
		bytes = SLOT_BYTES;
	}
	return end >= base && base >= start && end <= start + bytes;
}

/* A registered buffer: the address range must lie inside it. */
static unsigned int import_fixed(const struct fuzz *f, const struct cmd *c, struct iter *it)
{
	/* io_uring looks the registered buffer up as the data is imported */
	if (c->buf_index >= f->nr_registered)
		return iter_stop(it, R_BUF_INDEX);
	if (!in_registered(f, c, c->cmd.data, c->cmd.data_len))
		return iter_stop(it, R_BAD_ADDR);
	it->fixed = true;
	it->seg[it->nr++] = (struct seg){ c->cmd.data, c->cmd.data_len };
	it->count = c->cmd.data_len;
	return 0;
}

/*
 * iovecs inside a registered buffer (io_uring_cmd_import_fixed_vec()):
 * io_uring sizes its copy of the array before reading it and refuses a
 * longer array than UIO_MAXIOV or a negative length as it reads it; then it
 * looks the buffer up, estimates the segments ((len >> 12) + 2 an iovec),
 * allocates room for them when they are many, and checks that every iovec
 * is non-empty and lies inside the buffer.
 */
static unsigned int import_fixed_vec(const struct fuzz *f, const struct cmd *c, struct iter *it)
{
	const struct iovec *iov = (const struct iovec *)(uintptr_t)c->cmd.data;
	uint64_t nr = c->cmd.data_len, segs = 0, i;

	if (nr > NR_IOV)
		return iter_stop(it, R_IOV_COUNT) | bit(R_FIXED_IOV_ALLOC);
	if (nr) {
		unsigned int why = read_iovecs(f, c, it);

		if (it->stop)
			return why;
	}
	if (c->buf_index >= f->nr_registered)
		return iter_stop(it, R_BUF_INDEX);
	for (i = 0; i < nr; i++)
		segs += (iov[i].iov_len >> 12) + 2;
	if (segs > INT32_MAX)
		return iter_stop(it, R_FIXED_IOV_SEGS);
	for (i = 0; i < nr; i++) {
		uint64_t base = (uintptr_t)iov[i].iov_base, len = iov[i].iov_len;

		/* a large estimate may fail its allocation first */
		if (!len || !in_registered(f, c, base, len))
			return iter_stop(it, R_FIXED_IOV) |
			       (segs > 65536 ? bit(R_FIXED_IOV_ALLOC) : 0);
		iter_add(it, base, len);
	}
	it->fixed = true;
	return 0;
}

/* The data of a command, as virtblk_import_data() would describe it. */
static unsigned int import(const struct fuzz *f, const struct cmd *c, struct iter *it)
{
	bool vec = c->cmd_op == VIRTBLK_URING_CMD_IO_VEC;
	uint64_t len;
	int ok;

	memset(it, 0, offsetof(struct iter, seg));
	if (c->ucmd_flags & IORING_URING_CMD_FIXED)
		return vec ? import_fixed_vec(f, c, it) : import_fixed(f, c, it);
	if (vec)
		return import_vec(f, c, it);
	len = min64(c->cmd.data_len, MAX_RW);
	ok = user_range_ok(c->cmd.data, len);
	if (!ok)
		return iter_stop(it, R_BAD_ADDR);
	iter_add(it, c->cmd.data, len);
	return ok < 0 ? bit(R_BAD_ADDR) : 0;
}

/* The kernel pins or copies the user's memory: it must be there. */
static unsigned int judge_memory(const struct fuzz *f, const struct iter *it, bool to_memory)
{
	uint64_t left = it->count;
	unsigned int i;

	if (it->fixed)
		return 0;
	for (i = 0; i < it->nr && left; i++) {
		uint64_t len = min64(it->seg[i].len, left);
		enum prot p;

		if (!len)
			continue;
		p = mem_prot(f, it->seg[i].base, len);
		if (p == MEM_NONE)
			return bit(R_BAD_ADDR);
		if (to_memory && p == MEM_RO)
			return bit(R_READ_ONLY_BUF);
		left -= len;
	}
	return 0;
}

/* iov_iter_npages(): the pages every segment used touches, each apart. */
static uint64_t iter_pages(const struct iter *it)
{
	uint64_t left = it->count, pages = 0;
	unsigned int i;

	for (i = 0; i < it->nr && left; i++) {
		struct iovec iov = { (void *)(uintptr_t)it->seg[i].base,
				     min64(it->seg[i].len, left) };

		pages += vblk_iov_pages(&iov, 1);
		left -= iov.iov_len;
	}
	return pages;
}

/* iov_iter_alignment(): every segment used, its base and length. */
static bool iter_aligned(const struct iter *it, uint64_t mask)
{
	uint64_t left = it->count;
	unsigned int i;

	for (i = 0; i < it->nr && left; i++) {
		uint64_t len = min64(it->seg[i].len, left);

		/* an empty iovec transfers nothing: its base does not count */
		if (len && ((len | it->seg[i].base) & mask))
			return false;
		left -= len;
	}
	return true;
}

static unsigned int judge_data(const struct fuzz *f, const struct cmd *c,
			       const struct iter *it, bool to_memory)
{
	uint64_t len = it->count, sector = c->cmd.sector, end;
	unsigned int why = 0;

	if (!len || len % f->disk.lbs || len > f->disk.max_transfer ||
	    iter_pages(it) > f->disk.max_segments)
		why |= bit(R_LEN);
	if (sector % f->lbs_sectors || __builtin_add_overflow(sector, len >> 9, &end) ||
	    end > f->capacity)
		why |= bit(R_SECTOR);
	if (!iter_aligned(it, f->disk.dma_align - 1))
		why |= bit(R_ALIGN);
	return why | judge_memory(f, it, to_memory);
}

static unsigned int judge_id(const struct fuzz *f, const struct cmd *c, const struct iter *it)
{
	unsigned int why = 0;

	if (c->cmd.sector)
		why |= bit(R_SECTOR);
	if (it->count != VIRTIO_BLK_ID_BYTES)
		why |= bit(R_ID_LEN);
	return why | judge_memory(f, it, true);
}

static void range_limits(const struct fuzz *f, uint32_t type, unsigned int *ranges,
			 uint64_t *sectors)
{
	if (type == VIRTIO_BLK_T_WRITE_ZEROES) {
		*ranges = f->wz_ranges;
		*sectors = f->wz_sectors;
	} else {
		*ranges = f->discard_ranges;
		*sectors = f->discard_sectors;
	}
}

static bool range_valid(const struct fuzz *f, uint32_t type,
			const struct virtio_blk_discard_write_zeroes *r, uint64_t max_sectors)
{
	uint64_t sector = le64toh(r->sector), num = le32toh(r->num_sectors), end;
	uint32_t flags_ok = type == VIRTIO_BLK_T_WRITE_ZEROES ? VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP : 0;

	return num && num <= max_sectors && !((sector | num) % f->lbs_sectors) &&
	       !(le32toh(r->flags) & ~flags_ok) && !__builtin_add_overflow(sector, num, &end) &&
	       end <= f->capacity;
}

static unsigned int judge_ranges(const struct fuzz *f, const struct cmd *c, const struct iter *it)
{
	uint64_t len = it->count, max_sectors, left = len;
	unsigned int why = 0, max_ranges, i;
	size_t used = 0;

	if (c->cmd.sector)
		why |= bit(R_SECTOR);
	range_limits(f, c->cmd.type, &max_ranges, &max_sectors);
	if (!len || len % RANGE_BYTES || len / RANGE_BYTES > max_ranges)
		return why | bit(R_RANGE_LEN);
	if (judge_memory(f, it, false))
		return why | bit(R_BAD_ADDR);
	for (i = 0; i < it->nr && left; i++) {
		uint64_t n = min64(it->seg[i].len, left);

		memcpy(parse_buf + used, (const void *)(uintptr_t)it->seg[i].base, n);
		used += n;
		left -= n;
	}
	for (i = 0; i < len / RANGE_BYTES; i++) {
		struct virtio_blk_discard_write_zeroes r;

		memcpy(&r, parse_buf + i * RANGE_BYTES, sizeof(r));
		if (!range_valid(f, c->cmd.type, &r, max_sectors))
			return why | bit(R_RANGE);
	}
	return why;
}

static bool segs_overlap(const struct seg *a, const struct seg *b)
{
	return a->base < b->base + b->len && b->base < a->base + a->len;
}

/*
 * A valid read: remember where its data lands, to check it; not when
 * there is too much of it or one segment overwrites another.
 */
static void note_read(struct cmd *c, const struct iter *it)
{
	unsigned int i, j;

	c->nr_rd = 0;
	for (i = 0; i < it->nr; i++) {
		if (!it->seg[i].len)
			continue;
		if (c->nr_rd == MAX_RD)
			goto unchecked;
		for (j = 0; j < c->nr_rd; j++)
			if (segs_overlap(&c->rd[j], &it->seg[i]))
				goto unchecked;
		c->rd[c->nr_rd++] = it->seg[i];
	}
	return;
unchecked:
	c->nr_rd = 0;
}

/* A poke at sqe->buf_index, which a command with a registered buffer uses */
static bool poke_is_buf_index(const struct cmd *c)
{
	return c->poke >= 40 && c->poke < 42 && (c->ucmd_flags & IORING_URING_CMD_FIXED);
}

/*
 * The reasons the documentation gives to refuse the command; none for a
 * command that must succeed.  Where the kernel cannot go on (the SQE is
 * refused, the op or the type is unknown, the data cannot be imported),
 * the fields after that have no meaning and are not judged.
 */
static unsigned int judge(const struct fuzz *f, struct cmd *c)
{
	const struct type_rule *t;
	struct iter *it = &scratch_iter;
	unsigned int why = 0;
	bool readable = open_modes[c->fd] != O_WRONLY, writable = open_modes[c->fd] != O_RDONLY;

	if (c->ucmd_flags & ~IORING_URING_CMD_FIXED)
		why |= bit(R_UCMD_FLAGS);
	/* io_uring itself refuses sqe->ioprio on a uring_cmd */
	if (c->poke == 2 || c->poke == 3)
		why |= bit(R_RESERVED);
	if (why)
		return why;
	if (c->cmd_op != VIRTBLK_URING_CMD_IO && c->cmd_op != VIRTBLK_URING_CMD_IO_VEC)
		return bit(R_CMD_OP);
	if (c->cmd.flags)
		why |= bit(R_FLAG);
	if (c->cmd.rsvd)
		why |= bit(R_RSVD);
	/* sqe->buf_index or sqe->file_index, or the reserved half of a 128-byte SQE */
	if (c->poke > 3 && !poke_is_buf_index(c) &&
	    (c->poke < 64 || (f->ring.flags & IORING_SETUP_SQE128)))
		why |= bit(R_RESERVED);
	t = type_rule(c->cmd.type);
	if (!t)
		return why | bit(R_TYPE);
	if ((t->read && !readable) || (t->write && !writable))
		why |= bit(R_ACCESS);
	if (t->write && f->read_only)
		why |= bit(R_ROFS);
	if (!has_feature(f, t->feature))
		why |= bit(R_FEATURE);

	if (t->payload == PAY_NONE) {
		if (c->cmd.data || c->cmd.data_len || c->cmd.sector ||
		    c->cmd_op == VIRTBLK_URING_CMD_IO_VEC || (c->ucmd_flags & IORING_URING_CMD_FIXED))
			why |= bit(R_NO_DATA);
		return why;
	}
	why |= import(f, c, it);
	if (it->stop)
		return why;
	switch (t->payload) {
	case PAY_DATA:
		why |= judge_data(f, c, it, t->read);
		break;
	case PAY_ID:
		why |= judge_id(f, c, it);
		break;
	default:
		why |= judge_ranges(f, c, it);
		break;
	}
	if (!why && t->read)
		note_read(c, it);
	return why;
}

/* -- the generator: valid commands ---------------------------------------- */

static unsigned int pick_kind(struct fuzz *f)
{
	unsigned int total = 0, k, r;

	for (k = 0; k < NR_KINDS; k++)
		total += type_rules[k].weight;
	r = rnd(f, total);
	for (k = 0; r >= type_rules[k].weight; k++)
		r -= type_rules[k].weight;
	return k;
}

/* An fd open for what the kind needs. */
static int pick_fd(struct fuzz *f, const struct type_rule *t)
{
	if (t->read && !chance(f, 50))
		return 0;
	if (t->write && !chance(f, 50))
		return 1;
	return t->read || t->write ? 2 : rnd(f, 3);
}

/* A transfer length that fits a slot, biased to the small. */
static uint64_t pick_len(struct fuzz *f)
{
	uint64_t lbs = f->disk.lbs;

	switch (rnd(f, 4)) {
	case 0:
		return lbs;
	case 1:
		return round_up64(4096, lbs);
	case 2:
		return lbs * (1 + rnd(f, 16));
	default:
		return lbs * (1 + rnd(f, SLOT_DATA / lbs));
	}
}

static void clear_iovecs(struct slot *s)
{
	memset(s->iov, 0, s->iov_used * sizeof(*s->iov));
	s->iov_used = 0;
}

/*
 * Describe [addr, addr + len) as iovecs in the slot's array, in pieces of
 * multiples of unit, sometimes with empty ones in between or after.
 */
static void set_iovecs(struct fuzz *f, struct slot *s, uint64_t addr, uint64_t len, uint64_t unit)
{
	uint64_t units = len / unit, pieces = 1 + rnd(f, min64(16, units)), done = 0, i;
	unsigned int n = 0;

	clear_iovecs(s);
	for (i = 0; i < pieces; i++) {
		uint64_t take = i == pieces - 1 ? units - done : 1 + rnd(f, units - done - (pieces - 1 - i));

		if (chance(f, 5))
			n++;			/* an empty iovec, NULL base */
		s->iov[n].iov_base = (void *)(uintptr_t)(addr + done * unit);
		s->iov[n++].iov_len = take * unit;
		done += take;
	}
	s->iov_used = n + 4;
	s->cmd.cmd_op = VIRTBLK_URING_CMD_IO_VEC;
	s->cmd.cmd.data = (uintptr_t)s->iov;
	s->cmd.cmd.data_len = n + (chance(f, 10) ? rnd(f, 4) : 0);	/* empty ones at the end */
}

/* Put the payload [addr, addr + len) in the command in its form. */
static void set_payload(struct fuzz *f, struct slot *s, uint64_t addr, uint64_t len, uint64_t unit)
{
	struct cmd *c = &s->cmd;

	if (c->form == FORM_VEC) {
		set_iovecs(f, s, addr, len, unit);
		return;
	}
	c->cmd_op = VIRTBLK_URING_CMD_IO;
	c->cmd.data = addr;
	c->cmd.data_len = len;
	if (c->form == FORM_FIXED)
		c->ucmd_flags = IORING_URING_CMD_FIXED;
}

static void gen_data(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	uint64_t len, off, align = f->disk.dma_align;
	char *base = s->buf;

	if (chance(f, 2) && c->form != FORM_VEC &&
	    (c->form == FORM_PLAIN || f->nr_registered > BIG_INDEX)) {
		/* the largest transfer, from the big buffer */
		c->shared = true;
		c->buf_index = BIG_INDEX;
		set_payload(f, s, (uintptr_t)f->big, f->disk.max_transfer / f->disk.lbs * f->disk.lbs, 1);
		return;
	}
	len = pick_len(f);
	if (c->kind == K_OUT && c->form != FORM_FIXED && chance(f, 10))
		base = f->ro;		/* writing from read-only memory is fine */
	off = align * rnd(f, (SLOT_BYTES - len) / align + 1);
	if (base == f->ro)
		off = align * rnd(f, (RO_BYTES - len) / align + 1);
	set_payload(f, s, (uintptr_t)base + off, len, align);
}

static void gen_id(struct fuzz *f, struct slot *s)
{
	uint64_t off = rnd(f, SLOT_BYTES - VIRTIO_BLK_ID_BYTES + 1);

	set_payload(f, s, (uintptr_t)s->buf + off, VIRTIO_BLK_ID_BYTES, 1);
}

/*
 * A sector for sectors of data that a write may use: below the canary or
 * above it, often right against it; past the end of the disk if neither
 * side has room.
 */
static uint64_t safe_sector(struct fuzz *f, uint64_t sectors)
{
	uint64_t lbs = f->lbs_sectors, below = 0, above = 0, s;

	if (sectors == UNKNOWN)
		return f->capacity + lbs * rnd(f, 1024);
	if (f->canary_start >= sectors)
		below = (f->canary_start - sectors) / lbs + 1;
	if (f->capacity >= f->canary_end + sectors)
		above = (f->capacity - f->canary_end - sectors) / lbs + 1;
	if (!below && !above)
		return f->capacity;
	if (rnd(f, below + above) < below) {
		s = chance(f, 20) ? below - 1 : chance(f, 10) ? 0 : rnd(f, below);
		return s * lbs;
	}
	s = chance(f, 20) ? 0 : chance(f, 10) ? above - 1 : rnd(f, above);
	return f->canary_end + s * lbs;
}

/* A sector for a read of sectors: anywhere, often in the canary. */
static uint64_t read_sector(struct fuzz *f, uint64_t sectors)
{
	uint64_t lbs = f->lbs_sectors, span;

	if (sectors > f->capacity)
		return 0;
	if (chance(f, 30) && f->canary_end - f->canary_start >= sectors)
		return f->canary_start + lbs * rnd(f, (f->canary_end - f->canary_start - sectors) / lbs + 1);
	span = (f->capacity - sectors) / lbs + 1;
	return lbs * PICK(f, 0, span - 1, rnd(f, span), rnd(f, span), rnd(f, span));
}

/* Fill the range array of a slot: zeros, then ranges that a write may use. */
static void gen_ranges(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	struct virtio_blk_discard_write_zeroes r[16];
	unsigned int n, i, max_ranges;
	uint64_t max_sectors, off;

	range_limits(f, c->cmd.type, &max_ranges, &max_sectors);
	if (c->form != FORM_FIXED && chance(f, 10)) {
		/* ranges prepared in read-only memory */
		n = 1 + rnd(f, min64(max_ranges, NR_RO_RANGES));
		set_payload(f, s, (uintptr_t)f->ro, n * RANGE_BYTES, 1);
		return;
	}
	n = 1 + rnd(f, min64(max_ranges, 16));
	memset(s->buf, 0, SLOT_BYTES);
	for (i = 0; i < n; i++) {
		uint64_t num = f->lbs_sectors * (1 + rnd(f, chance(f, 80) ? 16 : 512));

		num = min64(num, max_sectors / f->lbs_sectors * f->lbs_sectors);
		r[i].sector = htole64(safe_sector(f, num));
		r[i].num_sectors = htole32(num);
		r[i].flags = htole32(c->kind == K_WZ && chance(f, 50) ? VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP : 0);
	}
	off = chance(f, 70) ? RANGE_BYTES * rnd(f, 64) : rnd(f, 4096);
	memcpy(s->buf + off, r, n * RANGE_BYTES);
	set_payload(f, s, (uintptr_t)s->buf + off, n * RANGE_BYTES, 1);
}

/* A command that the kernel must take, of a random kind. */
static void gen_valid(struct fuzz *f, struct slot *s, unsigned int index)
{
	struct cmd *c = &s->cmd;
	const struct type_rule *t;

	memset(c, 0, sizeof(*c));
	c->slot = index;
	c->kind = pick_kind(f);
	t = &type_rules[c->kind];
	c->cmd.type = t->type;
	c->fd = pick_fd(f, t);
	c->fixed_file = f->files_registered && chance(f, 25);
	c->sqe_flags = chance(f, 15) ? IOSQE_ASYNC : 0;
	c->form = rnd(f, 10) < 5 ? FORM_PLAIN : rnd(f, 2) ? FORM_VEC : FORM_FIXED;
	if (c->form == FORM_FIXED && index >= f->nr_registered)
		c->form = FORM_PLAIN;
	c->buf_index = index;

	switch (t->payload) {
	case PAY_DATA:
		gen_data(f, s);
		break;
	case PAY_ID:
		gen_id(f, s);
		break;
	case PAY_RANGES:
		gen_ranges(f, s);
		break;
	case PAY_NONE:
		c->form = FORM_PLAIN;
		c->cmd_op = VIRTBLK_URING_CMD_IO;
		break;
	}
}

/* -- the generator: mutations ---------------------------------------------- */

/* An address that is not the fuzzer's memory, or not mapped at all. */
static uint64_t bad_address(struct fuzz *f, const struct slot *s)
{
	switch (rnd(f, 4)) {
	case 0:
		return PICK(f, 0, 0x1000, 0x10000, 0xffffffff81000000ULL, 0xffff888000000000ULL,
			    0xffffffffff600000ULL, 0x8000000000000000ULL, 0xfffffffffffff000ULL,
			    UINT64_MAX, USER_TOP_5 + 4096);
	case 1:
		return (uintptr_t)f->hole + 512 * rnd(f, 128);
	case 2:
		return (uintptr_t)s->buf - 4096 + 512 * rnd(f, 8);	/* in the guard page */
	default:
		return (uintptr_t)s->buf + SLOT_BYTES - 512 * (1 + rnd(f, 4));	/* runs into it */
	}
}

static void mut_cmd_op(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	uint32_t op;

	switch (rnd(f, 4)) {
	case 0:
		op = next(f);
		break;
	case 1:
		op = c->cmd_op ^ (1u << rnd(f, 32));
		break;
	case 2:	/* the other op: the data read the other way */
		op = c->cmd_op == VIRTBLK_URING_CMD_IO ? VIRTBLK_URING_CMD_IO_VEC : VIRTBLK_URING_CMD_IO;
		break;
	default:
		op = PICK(f, 0, NVME_URING_CMD_IO, _IOWR('V', 0x82, struct virtblk_uring_cmd),
			  _IOR('V', 0x80, struct virtblk_uring_cmd), _IO('V', 0x80));
		break;
	}
	c->cmd_op = op;
}

static void mut_type(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;

	switch (rnd(f, 5)) {
	case 0:
		c->cmd.type = next(f);
		break;
	case 1:
		c->cmd.type = rnd(f, 32);
		break;
	case 2:
		c->cmd.type = PICK(f, VIRTIO_BLK_T_ZONE_APPEND, VIRTIO_BLK_T_ZONE_REPORT,
				   VIRTIO_BLK_T_ZONE_OPEN, VIRTIO_BLK_T_ZONE_CLOSE,
				   VIRTIO_BLK_T_ZONE_FINISH, VIRTIO_BLK_T_ZONE_RESET);
		break;
	case 3:
		c->cmd.type = PICK(f, VIRTIO_BLK_T_IN, VIRTIO_BLK_T_OUT, VIRTIO_BLK_T_FLUSH,
				   VIRTIO_BLK_T_SCSI_CMD, VIRTIO_BLK_T_SCSI_CMD | VIRTIO_BLK_T_OUT, UINT32_MAX) |
			      (chance(f, 70) ? VIRTIO_BLK_T_BARRIER : 0);
		break;
	default:	/* another accepted type: the payload read as that */
		c->cmd.type = type_rules[pick_kind(f)].type;
		break;
	}
}

static void mut_flag(struct fuzz *f, struct slot *s)
{
	s->cmd.cmd.flags = chance(f, 70) ? 1u << rnd(f, 16) : next(f) | 1;
}

/*
 * A byte the node does not use: sqe->ioprio (io_uring refuses it),
 * buf_index, file_index; or one of the reserved second 64 bytes of a
 * 128-byte SQE (on a ring of 64-byte SQEs, none).
 */
static void mut_reserved(struct fuzz *f, struct slot *s)
{
	static const uint8_t fields[] = { 2, 3, 40, 41, 44, 47 };

	s->cmd.poke = chance(f, 70) ? fields[rnd(f, ARRAY_SIZE(fields))] : 64 + rnd(f, 64);
}

static void mut_rsvd(struct fuzz *f, struct slot *s)
{
	s->cmd.cmd.rsvd = chance(f, 70) ? 1u << rnd(f, 16) : next(f) | 1;
}

/*
 * Sectors that are wrong for the type; for a type that may write, only
 * ones past the end of the disk or, where no sector belongs, small ones.
 */
static void mut_sector(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	uint64_t cap = f->capacity;

	if (type_may_write(c->cmd.type) && chance(f, 70))
		c->cmd.sector = PICK(f, cap, cap + f->lbs_sectors * (1 + rnd(f, 1 << 20)),
				     UINT64_MAX, UINT64_MAX - 7, 1ULL << 63, 1ULL << 32 | 8,
				     UINT64_MAX - cap);
	else
		c->cmd.sector = PICK(f, cap, cap - 1, cap - 8, cap + 8, UINT64_MAX, UINT64_MAX - 7,
				     1ULL << 63, 1ULL << 32, 8, 1, next(f),
				     f->canary_start + f->lbs_sectors - 1);
	c->sector_set = true;
}

static void mut_length(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	const struct type_rule *t = type_rule(c->cmd.type);
	uint64_t len = c->cmd.data_len, lbs = f->disk.lbs;

	if (c->cmd_op == VIRTBLK_URING_CMD_IO_VEC) {
		c->cmd.data_len = PICK(f, 0, len + 1 + rnd(f, 4), NR_IOV, NR_IOV + 1, UINT32_MAX,
				       (uint32_t)next(f));
		return;
	}
	if (t && t->payload == PAY_RANGES) {
		c->cmd.data_len = PICK(f, 0, 8, 15, 17, len - 1, len + RANGE_BYTES,
				       RANGE_BYTES * (f->discard_ranges + 1), UINT32_MAX, 0x80000000);
		return;
	}
	if (t && t->payload != PAY_DATA) {
		c->cmd.data_len = PICK(f, 0, 19, 21, 512, 4096, UINT32_MAX);
		return;
	}
	c->cmd.data_len = PICK(f, 0, 1, lbs - 1, len + 1, len - 1, len + lbs, lbs + 8,
			       f->disk.max_transfer, f->disk.max_transfer + lbs, MAX_RW,
			       0x80000000, 0xfffffe00, UINT32_MAX, (uint32_t)next(f),
			       lbs * rnd(f, 8192));
}

static void mut_address(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;

	switch (rnd(f, 4)) {
	case 0:
	case 1:
		c->cmd.data = bad_address(f, s);
		break;
	case 2:	/* read-only memory: fine for writes, not for reads */
		c->cmd.data = (uintptr_t)f->ro + f->disk.dma_align * rnd(f, 8);
		break;
	default:
		c->cmd.data += PICK(f, 1, 8, 256, f->disk.dma_align - 1, f->disk.dma_align / 2);
		break;
	}
}

/* Break one iovec; a command without iovecs has its buffer read as some. */
static void mut_iovec(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	struct iovec *iov;

	if (c->cmd_op != VIRTBLK_URING_CMD_IO_VEC || c->cmd.data != (uintptr_t)s->iov ||
	    !c->cmd.data_len || c->cmd.data_len > s->iov_used) {
		c->cmd_op = VIRTBLK_URING_CMD_IO_VEC;
		c->cmd.data_len = PICK(f, 1, 2, 16, (uint32_t)next(f) % NR_IOV);
		return;
	}
	iov = &s->iov[rnd(f, c->cmd.data_len)];
	switch (rnd(f, 9)) {
	case 0:
		iov->iov_len += 8;
		break;
	case 1:
		iov->iov_len = iov->iov_len > 8 ? iov->iov_len - 8 : 1000;
		break;
	case 2:
		iov->iov_len = 1000;
		break;
	case 3:
		iov->iov_len = PICK(f, 1ULL << 30, 1ULL << 63, UINT64_MAX, 1ULL << 47);
		break;
	case 4:
		iov->iov_base = (void *)(uintptr_t)bad_address(f, s);
		break;
	case 5:
		iov->iov_base = f->ro + f->disk.dma_align * rnd(f, 8);
		break;
	case 6:
		iov->iov_base = (char *)iov->iov_base + PICK(f, 1, 8, 256);
		break;
	case 7:
		iov->iov_len = 0;
		break;
	default:	/* the array itself, off by half an entry */
		c->cmd.data += 8;
		break;
	}
}

static void mut_fixed(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	unsigned int other = (s - f->slots + 1 + rnd(f, NR_SLOTS - 1)) % NR_SLOTS;
	/*
	 * A vectored command's data is its iovec array, which must stay where
	 * nothing writes while it is in flight: move its first iovec instead.
	 */
	uint64_t *data = c->cmd_op == VIRTBLK_URING_CMD_IO_VEC ?
			 (uint64_t *)&s->iov[0].iov_base : (uint64_t *)&c->cmd.data;

	switch (rnd(f, 5)) {
	case 0:
		c->buf_index = PICK(f, f->nr_registered, f->nr_registered + rnd(f, 64), 0xffff,
				    BIG_INDEX + 1);
		break;
	case 1:	/* an address in another slot's buffer */
		*data = (uintptr_t)f->slots[other].buf + f->disk.dma_align * rnd(f, 8);
		break;
	case 2:
		*data = (uintptr_t)s->buf + PICK(f, -4096, SLOT_BYTES - 512, SLOT_BYTES);
		break;
	case 3:	/* the last registered buffer, most likely not the address's */
		c->buf_index = f->nr_registered ? f->nr_registered - 1 : 0;
		break;
	default:
		break;
	}
	c->ucmd_flags |= IORING_URING_CMD_FIXED;
}

static void mut_ranges(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;
	uint64_t end = (uintptr_t)s->buf + SLOT_BYTES, room, n;
	struct virtio_blk_discard_write_zeroes *r;

	/* the ranges in the slot's buffer, leaving room for one more */
	room = c->cmd.data >= (uintptr_t)s->buf && c->cmd.data < end ?
	       (end - c->cmd.data) / RANGE_BYTES : 0;
	n = min64(c->cmd.data_len / RANGE_BYTES, room ? room - 1 : 0);
	if (c->kind < K_DISCARD || c->cmd_op != VIRTBLK_URING_CMD_IO || !n) {
		c->cmd.type = type_rules[K_DISCARD + rnd(f, 3)].type;
		return;
	}
	r = (struct virtio_blk_discard_write_zeroes *)(uintptr_t)c->cmd.data + rnd(f, n);
	switch (rnd(f, 8)) {
	case 0:
		r->num_sectors = 0;
		break;
	case 1:
		r->num_sectors = htole32(PICK(f, UINT32_MAX, f->discard_sectors + f->lbs_sectors,
					      f->wz_sectors + f->lbs_sectors));
		break;
	case 2:
		r->sector = htole64(PICK(f, f->capacity, UINT64_MAX - 3, 1ULL << 63));
		break;
	case 3:
		r->flags = htole32(PICK(f, 2, VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP, 0x80000000, next(f)));
		break;
	case 4:
		r->sector = htole64(le64toh(r->sector) + f->lbs_sectors - 1 + (f->lbs_sectors == 1));
		break;
	case 5:	/* one more range than the device takes */
		r[1] = r[0];
		c->cmd.data_len += RANGE_BYTES;
		break;
	default:
		r->num_sectors = htole32(le32toh(r->num_sectors) + 1);
		break;
	}
}

static void mut_fd(struct fuzz *f, struct slot *s)
{
	const struct type_rule *t = type_rule(s->cmd.cmd.type);

	if (t && t->read)
		s->cmd.fd = 1;
	else if (t && t->write)
		s->cmd.fd = 0;
	else
		s->cmd.fd = rnd(f, 3);
}

static void mut_ucmd_flags(struct fuzz *f, struct slot *s)
{
	s->cmd.ucmd_flags |= 1u << (1 + rnd(f, 31));
}

/* Data where none belongs: a flush with a buffer, a sector or iovecs. */
static void mut_no_data(struct fuzz *f, struct slot *s)
{
	struct cmd *c = &s->cmd;

	if (c->kind != K_FLUSH) {
		c->cmd.type = VIRTIO_BLK_T_FLUSH;
		return;
	}
	switch (rnd(f, 4)) {
	case 0:
		c->cmd.data = (uintptr_t)s->buf;
		break;
	case 1:
		c->cmd.data_len = f->disk.lbs;
		break;
	case 2:
		c->cmd.sector = 8;
		c->sector_set = true;
		break;
	default:
		c->cmd_op = VIRTBLK_URING_CMD_IO_VEC;
		break;
	}
}

static const struct mutation {
	const char *name;
	mutation_fn *fn;
	unsigned int weight;
} mutations[] = {
	{ "cmd-op", mut_cmd_op, 5 },
	{ "type", mut_type, 10 },
	{ "flag", mut_flag, 5 },
	{ "reserved", mut_reserved, 4 },
	{ "reserved-field", mut_rsvd, 6 },
	{ "sector", mut_sector, 10 },
	{ "length", mut_length, 12 },
	{ "address", mut_address, 12 },
	{ "iovec", mut_iovec, 9 },
	{ "fixed", mut_fixed, 6 },
	{ "ranges", mut_ranges, 10 },
	{ "open-mode", mut_fd, 5 },
	{ "uring-cmd-flags", mut_ucmd_flags, 3 },
	{ "no-data", mut_no_data, 4 },
};
#define NR_MUTATIONS	ARRAY_SIZE(mutations)

static void mutate(struct fuzz *f, struct slot *s)
{
	unsigned int total = 0, n = chance(f, 70) ? 1 : 2 + rnd(f, 2), i, m, r;

	for (m = 0; m < NR_MUTATIONS; m++)
		total += mutations[m].weight;
	for (i = 0; i < n; i++) {
		r = rnd(f, total);
		for (m = 0; r >= mutations[m].weight; m++)
			r -= mutations[m].weight;
		mutations[m].fn(f, s);
		s->cmd.mutations |= 1u << m;
	}
}

/* Once the payload is final: where the data goes, unless a mutation chose. */
static void place_sector(struct fuzz *f, struct cmd *c)
{
	uint64_t sectors;

	if (c->sector_set || (c->kind != K_IN && c->kind != K_OUT))
		return;
	sectors = bytes_to_sectors(data_bytes(f, c));
	if (type_may_write(c->cmd.type))
		c->cmd.sector = safe_sector(f, sectors);
	else
		c->cmd.sector = read_sector(f, sectors == UNKNOWN ? 0 : sectors);
}

/*
 * Whether the kernel would read iovecs or ranges from memory that other
 * commands' reads may change meanwhile, so that the judge could not know
 * what the kernel saw: the big buffer, or another slot's buffer, where
 * that slot's own reads land (a mutation may point a command there).
 */
static bool reads_shared_structure(const struct fuzz *f, const struct slot *s,
				   const struct cmd *c)
{
	uint64_t big = (uintptr_t)f->big, buf;
	unsigned int i;

	if (c->cmd_op != VIRTBLK_URING_CMD_IO_VEC && !type_has_ranges(c->cmd.type))
		return false;
	if (c->cmd.data >= big && c->cmd.data < big + f->big_bytes)
		return true;
	for (i = 0; i < NR_SLOTS; i++) {
		buf = (uintptr_t)f->slots[i].buf;
		if (&f->slots[i] != s && c->cmd.data >= buf && c->cmd.data < buf + SLOT_BYTES)
			return true;
	}
	return false;
}

/* The next command for a slot: generated until it keeps the canary safe. */
static void gen_command(struct fuzz *f, struct slot *s, unsigned int index)
{
	struct cmd *c = &s->cmd;
	unsigned int tries;

	for (tries = 0; tries < 64; tries++) {
		gen_valid(f, s, index);
		if (chance(f, 55))
			mutate(f, s);
		place_sector(f, c);
		if (canary_safe(f, c) && !reads_shared_structure(f, s, c))
			break;
		f->retries++;
	}
	if (tries == 64) {	/* a flush touches no sector */
		memset(c, 0, sizeof(*c));
		c->slot = index;
		c->kind = K_FLUSH;
		c->cmd.type = VIRTIO_BLK_T_FLUSH;
		c->cmd_op = VIRTBLK_URING_CMD_IO;
		c->fd = 2;
	}
	c->nr = f->sqes;
	c->why = judge(f, c);
}

/* -- results ---------------------------------------------------------------- */

static void describe(const struct fuzz *f, const struct slot *s, FILE *out)
{
	const struct cmd *c = &s->cmd;
	const struct iovec *iov = (const struct iovec *)(uintptr_t)c->cmd.data;
	unsigned int i, m;

	fprintf(out, "  #%" PRIu64 " ring=%s depth=%u registered=%u fd=%s%s sqe_flags=%#x op=%#x"
		" uring_cmd_flags=%#x buf_index=%u\n"
		"  type=%u rsvd=%#x sector=%" PRIu64 " data=%#" PRIx64 " data_len=%u flag=%#x"
		" built=%s/%s mutations=", c->nr, ring_kinds[f->ring_kind].name, f->depth,
		f->nr_registered, mode_names[c->fd], c->fixed_file ? "(fixed)" : "", c->sqe_flags,
		c->cmd_op, c->ucmd_flags, c->buf_index, c->cmd.type, c->cmd.rsvd,
		(uint64_t)c->cmd.sector, (uint64_t)c->cmd.data, c->cmd.data_len, c->cmd.flags,
		type_rules[c->kind].name, form_names[c->form]);
	for (m = 0; m < NR_MUTATIONS; m++)
		if (c->mutations & (1u << m))
			fprintf(out, "%s,", mutations[m].name);
	fprintf(out, " expected:");
	for (m = 0; m < NR_REASONS; m++)
		if (c->why & (1u << m))
			fprintf(out, " %s(%s)", reasons[m].name, errno_name(reasons[m].err));
	fprintf(out, c->why ? "\n" : " success\n");
	if (c->cmd_op == VIRTBLK_URING_CMD_IO_VEC && mem_readable(f, c->cmd.data, 16) == 16) {
		fprintf(out, "  iovecs:");
		for (i = 0; i < min64(c->cmd.data_len, 8) &&
			    mem_readable(f, c->cmd.data + 16 * i, 16) == 16; i++)
			fprintf(out, " {%p, %zu}", iov[i].iov_base, iov[i].iov_len);
		if (c->cmd.data_len > 8) {
			uint64_t segs = 0;

			/* what io_uring estimates for a registered buffer */
			for (i = 0; i < c->cmd.data_len &&
				    mem_readable(f, c->cmd.data + 16 * i, 16) == 16; i++)
				segs += (iov[i].iov_len >> 12) + 2;
			fprintf(out, " ... (%u readable of %u, %" PRIu64 " segments estimated)",
				i, c->cmd.data_len, segs);
		}
		fprintf(out, "\n");
	}
	if (type_has_ranges(c->cmd.type) && c->cmd_op == VIRTBLK_URING_CMD_IO &&
	    mem_readable(f, c->cmd.data, RANGE_BYTES) == RANGE_BYTES) {
		const struct virtio_blk_discard_write_zeroes *r = (const void *)(uintptr_t)c->cmd.data;

		fprintf(out, "  ranges:");
		for (i = 0; i < min64(c->cmd.data_len / RANGE_BYTES, 4) &&
			    mem_readable(f, c->cmd.data, RANGE_BYTES * (i + 1)) == RANGE_BYTES * (i + 1); i++)
			fprintf(out, " {%" PRIu64 ", %u, %#x}", (uint64_t)le64toh(r[i].sector),
				le32toh(r[i].num_sectors), le32toh(r[i].flags));
		fprintf(out, "\n");
	}
}

static const char *result_name(int res)
{
	static const char *const status[] = { "OK", "VIRTIO_BLK_S_IOERR", "VIRTIO_BLK_S_UNSUPP" };

	if (res < 0)
		return errno_name(-res);
	return res < 3 ? status[res] : "VIRTIO_BLK_S_?";
}

static void bad(struct fuzz *f, const struct slot *s, enum verdict v, int res)
{
	if (f->verdicts[v]++ >= MAX_BAD)
		return;
	printf("BAD %s: res=%d %s\n", verdict_names[v], res, result_name(res));
	describe(f, s, stdout);
}

static bool errno_expected(unsigned int why, int err)
{
	unsigned int r;

	for (r = 0; r < NR_REASONS; r++)
		if ((why & (1u << r)) && reasons[r].err == err)
			return true;
	return false;
}

/* A valid read of the canary must find the pattern the host planted. */
static void check_canary(struct fuzz *f, const struct slot *s)
{
	const struct cmd *c = &s->cmd;
	uint64_t pos = c->cmd.sector * 512;
	uint64_t lo = f->canary_start * 512, hi = f->canary_end * 512;
	unsigned int i;

	if (!f->check_canary || c->shared || c->cmd.type != VIRTIO_BLK_T_IN)
		return;
	for (i = 0; i < c->nr_rd; pos += c->rd[i++].len) {
		uint64_t from = pos > lo ? pos : lo, to = min64(pos + c->rd[i].len, hi);

		if (from >= to)
			continue;
		if (pattern_check((const char *)(uintptr_t)c->rd[i].base + (from - pos),
				  f->canary_seed, from, to - from) >= 0) {
			printf("BAD canary read at byte %" PRIu64 ":\n", from);
			bad(f, s, V_DATA, 0);
			return;
		}
	}
}

/* A valid GET_ID must return the disk's serial. */
static void check_serial(struct fuzz *f, const struct slot *s)
{
	const struct cmd *c = &s->cmd;
	char id[VIRTIO_BLK_ID_BYTES];
	unsigned int i;
	size_t n = 0;

	if (c->cmd.type != VIRTIO_BLK_T_GET_ID)
		return;
	for (i = 0; i < c->nr_rd && n + c->rd[i].len <= sizeof(id); i++) {
		memcpy(id + n, (const void *)(uintptr_t)c->rd[i].base, c->rd[i].len);
		n += c->rd[i].len;
	}
	if (n == sizeof(id) && memcmp(id, f->serial, sizeof(id))) {
		printf("BAD GET_ID returned '%.20s', sysfs '%.20s':\n", id, f->serial);
		bad(f, s, V_DATA, 0);
	}
}

static void count_result(struct fuzz *f, const struct cmd *c, int res)
{
	const struct type_rule *t = type_rule(c->cmd.type);
	unsigned int k = t ? (unsigned int)(t - type_rules) : NR_KINDS, r;

	f->type_sent[k]++;
	f->form_sent[c->form]++;
	if (!res) {
		f->ok++;
		f->type_ok[k]++;
	} else if (res < 0) {
		f->errors++;
		f->res_errno[-res < 256 ? -res : 255]++;
	} else {
		f->statuses++;
		f->res_status[res < 256 ? res : 255]++;
	}
	for (r = 0; r < NR_REASONS; r++) {
		if (c->why & (1u << r))
			f->reason_any[r]++;
		if (c->why == 1u << r)
			f->reason_alone[r]++;
	}
	if (c->mutations)
		f->mutated++;
}

/* Judge a completion against what the model expected. */
static void complete(struct fuzz *f, const struct io_uring_cqe *cqe)
{
	struct slot *s;
	int res = cqe->res;

	if (cqe->user_data >= f->depth || !f->slots[cqe->user_data].busy) {
		printf("BAD %s: user_data=%llu res=%d\n", verdict_names[V_STRAY], cqe->user_data, res);
		f->verdicts[V_STRAY]++;
		return;
	}
	s = &f->slots[cqe->user_data];
	s->busy = false;
	f->inflight--;
	f->cqes++;
	count_result(f, &s->cmd, res);
	if (!s->cmd.why)
		f->valid++;
	if (res > 0) {
		bad(f, s, V_STATUS, res);
	} else if (!s->cmd.why) {
		if (res) {
			bad(f, s, V_VALID_FAILED, res);
		} else {
			check_canary(f, s);
			check_serial(f, s);
		}
	} else if (!res) {
		bad(f, s, V_INVALID_OK, res);
	} else if (!errno_expected(s->cmd.why, -res)) {
		bad(f, s, V_WRONG_ERRNO, res);
	}
}

/* -- the rings ---------------------------------------------------------------- */

/* A hang's exit statuses, beside enum vblk_exit's */
enum {
	FUZZ_EXIT_HANG = 3,		/* no completion for HANG_SECONDS */
	FUZZ_EXIT_HANG_MUTE = 4,	/* and the HANG line could not be written */
};

static unsigned int stalled_ticks;	/* only the handler uses it */
static uint64_t last_cqes;

/* Every 5 s: a minute without a completion while commands are out is a hang. */
static void on_tick(int sig)
{
	static char msg[160];
	int n;

	(void)sig;
	if (fuzz.cqes != last_cqes || !fuzz.inflight) {
		last_cqes = fuzz.cqes;
		stalled_ticks = 0;
		return;
	}
	if (++stalled_ticks * 5 < HANG_SECONDS)
		return;
	n = snprintf(msg, sizeof(msg), "HANG: no completion for %ds: sqes=%" PRIu64 " cqes=%" PRIu64
		     " in flight %u on a %s ring\n", HANG_SECONDS, fuzz.sqes, fuzz.cqes,
		     fuzz.inflight, ring_kinds[fuzz.ring_kind].name);
	if (write(1, msg, n) < 0)
		_exit(FUZZ_EXIT_HANG_MUTE);
	_exit(FUZZ_EXIT_HANG);
}

static void reap_ready(struct fuzz *f)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&f->ring, &cqe) == 0) {
		complete(f, cqe);
		io_uring_cqe_seen(&f->ring, cqe);
	}
}

/* Hand every prepared SQE to the kernel (it stops at a refused one). */
static void submit_pending(struct fuzz *f)
{
	bool sqpoll = f->ring.flags & IORING_SETUP_SQPOLL;
	int ret;

	while (io_uring_sq_ready(&f->ring)) {
		ret = io_uring_submit(&f->ring);
		if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY) {
			reap_ready(f);
			continue;
		}
		if (ret < 0 || (!ret && !sqpoll)) {
			printf("BAD io_uring_submit: %s\n", ret ? strerror(-ret) : "took no SQE");
			exit(VBLK_EXIT_FAIL);
		}
		if (sqpoll)
			return;
	}
}

static void wait_one(struct fuzz *f)
{
	struct io_uring_cqe *cqe;
	int ret;

	submit_pending(f);
	do
		ret = io_uring_wait_cqe(&f->ring, &cqe);
	while (ret == -EINTR || ret == -EAGAIN);
	if (ret) {
		printf("BAD io_uring_wait_cqe: %s\n", strerror(-ret));
		exit(VBLK_EXIT_FAIL);
	}
	reap_ready(f);
}

static unsigned int pick_ring_kind(struct fuzz *f)
{
	unsigned int total = 0, k, r;

	for (k = 0; k < NR_RING_KINDS; k++)
		total += ring_kinds[k].weight;
	r = rnd(f, total);
	for (k = 0; r >= ring_kinds[k].weight; k++)
		r -= ring_kinds[k].weight;
	return k;
}

/* Register all, none or some of the buffers: index i is slot i's. */
static void register_buffers(struct fuzz *f)
{
	struct iovec reg[NR_SLOTS + 1];
	unsigned int i, n;
	int ret;

	n = chance(f, 70) ? NR_SLOTS + 1 : chance(f, 50) ? 0 : 1 + rnd(f, NR_SLOTS);
	for (i = 0; i < NR_SLOTS; i++)
		reg[i] = (struct iovec){ f->slots[i].buf, SLOT_BYTES };
	reg[BIG_INDEX] = (struct iovec){ f->big, f->big_bytes };
	f->nr_registered = 0;
	if (!n)
		return;
	do
		ret = io_uring_register_buffers(&f->ring, reg, n);
	while (ret == -EINTR);
	if (ret) {
		fprintf(stderr, "registering %u buffers: %s\n", n, strerror(-ret));
		exit(VBLK_EXIT_USAGE);
	}
	f->nr_registered = n;
}

static void ring_open(struct fuzz *f)
{
	static const unsigned int depths[] = { 1, 2, 4, 8, 16, 32, 32 };
	int ret;

	f->ring_kind = pick_ring_kind(f);
	f->depth = depths[rnd(f, ARRAY_SIZE(depths))];
	ret = vblk_ring_init(&f->ring, f->depth, ring_kinds[f->ring_kind].flags);
	if (ret) {
		fprintf(stderr, "ring set-up (%s): %s\n", ring_kinds[f->ring_kind].name, strerror(-ret));
		exit(VBLK_EXIT_USAGE);
	}
	register_buffers(f);
	f->files_registered = chance(f, 60);
	do
		ret = f->files_registered ? io_uring_register_files(&f->ring, f->fds, 3) : 0;
	while (ret == -EINTR);
	if (ret) {
		fprintf(stderr, "registering files: %s\n", strerror(-ret));
		exit(VBLK_EXIT_USAGE);
	}
	f->epochs++;
	f->ring_epochs[f->ring_kind]++;
}

static void ring_close(struct fuzz *f)
{
	while (f->inflight)
		wait_one(f);
	io_uring_queue_exit(&f->ring);
}

/* Put the command of a slot in an SQE. */
static void queue(struct fuzz *f, struct slot *s, unsigned int index)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);
	const struct cmd *c = &s->cmd;

	/* the SQ thread may post a completion before it frees the SQE */
	while (!sqe && (f->ring.flags & IORING_SETUP_SQPOLL) &&
	       io_uring_sqring_wait(&f->ring) >= 0)
		sqe = io_uring_get_sqe(&f->ring);
	if (!sqe) {
		printf("BAD no SQE free with %u of %u in flight\n", f->inflight, f->depth);
		exit(VBLK_EXIT_FAIL);
	}
	vblk_prep_cmd(&f->ring, sqe, c->fixed_file ? c->fd : f->fds[c->fd], c->cmd_op, &c->cmd);
	if (c->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (c->ucmd_flags & IORING_URING_CMD_FIXED)
		vblk_prep_fixed(sqe, c->buf_index);
	sqe->uring_cmd_flags = c->ucmd_flags;
	sqe->flags |= c->sqe_flags;
	/* past the 64th byte only a 128-byte SQE has room */
	if (c->poke && !poke_is_buf_index(c) &&
	    (c->poke < 64 || (f->ring.flags & IORING_SETUP_SQE128)))
		((uint8_t *)sqe)[c->poke] |= 1;
	sqe->user_data = index;
	s->busy = true;
	f->inflight++;
	f->sqes++;
	f->ring_sqes[f->ring_kind]++;
}

static bool time_up(const struct fuzz *f)
{
	return now() - f->started >= f->limit;
}

/*
 * One ring: a few thousand commands, in batches of up to its depth; the
 * n-th command of the run uses slot n % depth once it is free.
 */
static void run_epoch(struct fuzz *f)
{
	uint64_t left = 500 + rnd(f, 3500);

	ring_open(f);
	printf("epoch %" PRIu64 ": %s depth=%u registered=%u files=%s at sqe %" PRIu64 "\n",
	       f->epochs, ring_kinds[f->ring_kind].name, f->depth, f->nr_registered,
	       f->files_registered ? "registered" : "plain", f->sqes);
	while (left && f->sqes < f->target && !time_up(f)) {
		uint64_t batch = 1 + rnd(f, f->depth);

		for (; batch && left && f->sqes < f->target; batch--, left--) {
			unsigned int index = f->sqes % f->depth;
			struct slot *s = &f->slots[index];

			while (s->busy)
				wait_one(f);
			gen_command(f, s, index);
			queue(f, s, index);
		}
		submit_pending(f);
		reap_ready(f);
	}
	ring_close(f);
}

/* -- set-up and report ---------------------------------------------------- */

static void read_features(struct fuzz *f)
{
	char path[96], bits[130] = "";
	unsigned int i;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/block/%s/device/features", f->disk.name);
	fp = fopen(path, "r");
	if (!fp || !fgets(bits, sizeof(bits), fp))
		die("cannot read the device's features");
	fclose(fp);
	for (i = 0; i < 64 && (bits[i] == '0' || bits[i] == '1'); i++)
		f->features |= (uint64_t)(bits[i] == '1') << i;
}

static void read_serial(struct fuzz *f)
{
	char path[96], line[64] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/block/%s/serial", f->disk.name);
	fp = fopen(path, "r");
	if (fp) {
		if (fgets(line, sizeof(line), fp))
			line[strcspn(line, "\n")] = '\0';
		fclose(fp);
	}
	memcpy(f->serial, line, strnlen(line, sizeof(f->serial)));
}

static void setup_disk(struct fuzz *f, const char *node)
{
	const char *d = f->disk.name;
	int i;

	vblk_disk_info(node, &f->disk);
	f->capacity = f->disk.bytes / 512;
	f->lbs_sectors = f->disk.lbs / 512;
	read_features(f);
	read_serial(f);
	f->read_only = vblk_sysfs_u64(d, "ro");
	f->discard_ranges = vblk_sysfs_u64(d, "queue/max_discard_segments");
	f->discard_sectors = vblk_sysfs_u64(d, "queue/discard_max_hw_bytes") / 512;
	f->wz_sectors = vblk_sysfs_u64(d, "queue/write_zeroes_max_bytes") / 512;
	for (i = 0; i < 3; i++) {
		f->fds[i] = open(node, open_modes[i]);
		if (f->fds[i] < 0) {
			perror(node);
			exit(VBLK_EXIT_USAGE);
		}
	}
}

/* Read-only memory: a few ranges a write may use, then zeros. */
static void setup_ro(struct fuzz *f)
{
	struct virtio_blk_discard_write_zeroes *r;
	unsigned int i;

	f->ro = map_region(f, RO_BYTES, MEM_RO, OWNER_CONST);
	r = (void *)f->ro;
	for (i = 0; i < NR_RO_RANGES; i++) {
		uint64_t num = 8 * f->lbs_sectors;

		r[i].sector = htole64(safe_sector(f, num));
		r[i].num_sectors = htole32(num);
	}
	if (mprotect(f->ro, RO_BYTES, PROT_READ))
		die("mprotect failed");
}

static void setup_memory(struct fuzz *f)
{
	unsigned int i;

	for (i = 0; i < NR_SLOTS; i++) {
		f->slots[i].buf = map_region(f, SLOT_BYTES, MEM_RW, i);
		f->slots[i].iov = (struct iovec *)map_region(f, IOV_BYTES, MEM_RW, i);
	}
	f->big_bytes = round_up64(f->disk.max_transfer, 4096) + 4096;
	f->big = map_region(f, f->big_bytes, MEM_RW, OWNER_ANY);
	f->hole = map_region(f, 64 << 10, MEM_NONE, OWNER_CONST);
	setup_ro(f);
}

static void setup_watchdog(void)
{
	struct itimerval tick = { { 5, 0 }, { 5, 0 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);
}

static void report(const struct fuzz *f, double seconds)
{
	unsigned int i;

	printf("sqes=%" PRIu64 " cqes=%" PRIu64 " ok=%" PRIu64 " errors=%" PRIu64 " statuses=%" PRIu64
	       " valid=%" PRIu64, f->sqes, f->cqes, f->ok, f->errors, f->statuses, f->valid);
	for (i = 0; i < NR_VERDICTS; i++)
		printf(" %s=%" PRIu64, verdict_names[i], f->verdicts[i]);
	printf(" seconds=%.1f\n", seconds);
	printf("rate=%.0f/s epochs=%" PRIu64 " mutated=%" PRIu64 " regenerated=%" PRIu64 "\n",
	       f->sqes / (seconds > 0 ? seconds : 1), f->epochs, f->mutated, f->retries);
	printf("result OK %" PRIu64 "\n", f->ok);
	for (i = 0; i < 256; i++)
		if (f->res_errno[i])
			printf("result %s %" PRIu64 "\n", errno_name(i), f->res_errno[i]);
	for (i = 1; i < 256; i++)
		if (f->res_status[i])
			printf("result %s %" PRIu64 "\n", result_name(i), f->res_status[i]);
	for (i = 0; i <= NR_KINDS; i++)
		printf("type %s sent=%" PRIu64 " ok=%" PRIu64 "\n",
		       i < NR_KINDS ? type_rules[i].name : "other", f->type_sent[i], f->type_ok[i]);
	for (i = 0; i < 3; i++)
		printf("form %s sent=%" PRIu64 "\n", form_names[i], f->form_sent[i]);
	for (i = 0; i < NR_REASONS; i++)
		printf("reason %s (%s) commands=%" PRIu64 " alone=%" PRIu64 "\n", reasons[i].name,
		       errno_name(reasons[i].err), f->reason_any[i], f->reason_alone[i]);
	for (i = 0; i < NR_RING_KINDS; i++)
		printf("ring %s epochs=%" PRIu64 " sqes=%" PRIu64 "\n", ring_kinds[i].name,
		       f->ring_epochs[i], f->ring_sqes[i]);
}

static void usage(void)
{
	fprintf(stderr, "usage: vblk-fuzz [-n SQES] [-t SECONDS] [-k CANARY_SEED] [-z WZ_RANGES]\n"
		"                 SEED /dev/vdXc0 CANARY_START CANARY_BYTES\n");
	exit(VBLK_EXIT_USAGE);
}

static uint64_t number(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct fuzz *f = &fuzz;
	uint64_t seed, start, bytes;
	unsigned int i;
	double seconds;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	f->target = 100000;
	f->limit = 300;
	f->wz_ranges = 1;
	while ((opt = getopt(argc, argv, "n:t:k:z:")) != -1) {
		switch (opt) {
		case 'n':
			f->target = number(optarg);
			break;
		case 't':
			f->limit = number(optarg);
			break;
		case 'k':
			f->canary_seed = number(optarg);
			f->check_canary = true;
			break;
		case 'z':
			f->wz_ranges = number(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 4)
		usage();
	seed = number(argv[optind]);
	printf("seed %" PRIu64 "\n", seed);
	f->rng = seed;

	setup_disk(f, argv[optind + 1]);
	start = number(argv[optind + 2]);
	bytes = number(argv[optind + 3]);
	if (start % f->disk.lbs || bytes % f->disk.lbs || !bytes || start + bytes > f->disk.bytes)
		die("the canary must be whole logical blocks inside the disk");
	f->canary_start = start / 512;
	f->canary_end = (start + bytes) / 512;
	printf("disk %s: %" PRIu64 " sectors, lbs %u, dma alignment %u, largest transfer %" PRIu64
	       ", features %#" PRIx64 ", discard %u x %" PRIu64 ", write zeroes %u x %" PRIu64
	       "; canary sectors [%" PRIu64 ", %" PRIu64 ")%s\n",
	       f->disk.name, f->capacity, f->disk.lbs, f->disk.dma_align, f->disk.max_transfer,
	       f->features, f->discard_ranges, f->discard_sectors, f->wz_ranges, f->wz_sectors,
	       f->canary_start, f->canary_end, f->check_canary ? ", reads checked" : "");
	setup_memory(f);
	setup_watchdog();

	f->started = now();
	while (f->sqes < f->target && !time_up(f))
		run_epoch(f);
	seconds = now() - f->started;
	if (f->sqes < f->target)
		printf("time limit: stopped after %.0fs\n", seconds);
	report(f, seconds);
	if (f->cqes != f->sqes) {
		printf("FAIL: %" PRIu64 " SQEs but %" PRIu64 " CQEs\n", f->sqes, f->cqes);
		return VBLK_EXIT_FAIL;
	}
	for (i = 0; i < NR_VERDICTS; i++) {
		if (f->verdicts[i]) {
			printf("FAIL: unexpected completions (see the BAD lines)\n");
			return VBLK_EXIT_FAIL;
		}
	}
	printf("PASS\n");
	return VBLK_EXIT_PASS;
}
