// SPDX-License-Identifier: GPL-2.0
/*
 * vblk-cmd: send one passthrough command to a virtio-blk character node
 * and print its completion as "res=N NAME" (NAME: the errno's name, or a
 * VIRTIO_BLK_S_* status, or OK).  Every field can be set, valid or not, so
 * that the host-side tests can drive each refusal from a table.
 *
 * usage: vblk-cmd [options] /dev/vdXc0
 *   -w          a write of the pattern (default: a read)
 *   -k SEED     pattern seed; a successful read is checked against it
 *               and "data=ok" or "data=mismatch" printed
 *   -s SECTOR   cmd.sector (default 0)
 *   -l LEN      bytes to transfer (default: one logical block)
 *   -v NR       vectored: the buffer split into NR iovecs
 *   -F          a registered (fixed) buffer
 *   -A OFF      misalign the buffer by OFF bytes
 *   -a ADDR     sqe->addr as given (bad pointers)
 *   -L N        sqe->len as given
 *   -t TYPE     cmd.type as given
 *   -o OP       sqe->cmd_op as given
 *   -f FLAGS    cmd.flags
 *   -p RSVD     cmd.rsvd
 *   -E RING     the ring's SQEs: 64 (default), 128 (IORING_SETUP_SQE128),
 *               mixed (IORING_SETUP_SQE_MIXED, a 64-byte IORING_OP_URING_CMD)
 *               or mixed128 (the same ring, an IORING_OP_URING_CMD128)
 *   -P          an IOPOLL ring
 *   -q          an SQPOLL ring
 *   -y          IOSQE_ASYNC
 *   -j          the command joins a link: a NOP with IOSQE_IO_LINK goes
 *               ahead of it, and its result is printed as "head=N NAME"
 *   -N FUNC     fail the first slab allocation this task makes from within
 *               the kernel function FUNC once the ring is warm (the debug
 *               kernel's failslab and its stack-trace filter; exits 77
 *               without them)
 *   -O MODE     open the node r, w or rw (default rw)
 *   -U UID      setuid(UID) before opening
 *   -W FILE     once the node is open, wait for FILE to exist, then submit
 *   -R RANGES   the data is ranges SECTOR:SECTORS[:FLAGS],... (struct
 *               virtio_blk_discard_write_zeroes, little-endian)
 *   -i          print the data read as the serial: "id=..."
 *   -Z          check that the data read is all zeros: "zero=yes|no"
 *   -X OFF      set byte OFF of the prepared SQE to 1 (0-63, or 0-127 on a
 *               128-byte one): a field the node does not use, or a byte of
 *               the reserved half of a 128-byte SQE
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pattern.h"
#include "vblk-uring.h"

static void usage(void)
{
	fprintf(stderr, "usage: vblk-cmd [-wFPqy] [-E RING] [-k SEED] [-s SECTOR] [-l LEN] [-v NR] [-A OFF]\n"
		"       [-a ADDR] [-L N] [-t TYPE] [-o OP] [-f FLAG] [-p RSVD] [-O r|w|rw] [-U UID]\n"
		"       [-j] [-N FUNC]\n"
		"       [-W FILE] [-R SECTOR:SECTORS[:FLAGS],...] [-iZ] [-X OFF] DEV\n");
	exit(VBLK_EXIT_USAGE);
}

/* Parse SECTOR:SECTORS[:FLAGS],... into buf; return the bytes used. */
static size_t parse_ranges(char *spec, struct virtio_blk_discard_write_zeroes *r, size_t max)
{
	size_t n = 0;
	char *tok;

	for (tok = strtok(spec, ","); tok; tok = strtok(NULL, ",")) {
		unsigned long long sector, sectors, flags = 0;

		if (n == max || sscanf(tok, "%llu:%llu:%llu", &sector, &sectors, &flags) < 2)
			usage();
		r[n].sector = htole64(sector);
		r[n].num_sectors = htole32(sectors);
		r[n].flags = htole32(flags);
		n++;
	}
	return n * sizeof(*r);
}

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define NOP_TAG 1

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(VBLK_EXIT_USAGE);
	}
}

/* Write the range of func's text, from /proc/kallsyms, as failslab's filter. */
static void failslab_require(const char *func)
{
	unsigned long long addr, start = 0, end = ~0ULL;
	char name[256], type, text[32];
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		perror("/proc/kallsyms");
		exit(VBLK_EXIT_USAGE);
	}
	while (fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3)
		if (!start && !strcmp(name, func))
			start = addr;
	rewind(f);
	while (start && fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3)
		if (addr > start && addr < end)
			end = addr;
	fclose(f);
	if (!start || end == ~0ULL) {
		fprintf(stderr, "%s: not in /proc/kallsyms\n", func);
		exit(VBLK_EXIT_USAGE);
	}
	snprintf(text, sizeof(text), "0x%llx", start);
	write_file(FAILSLAB "require-start", text);
	snprintf(text, sizeof(text), "0x%llx", end);
	write_file(FAILSLAB "require-end", text);
}

/*
 * Make failslab fail one slab allocation, sleeping or not, of a task that
 * asks for it (the caller then writes /proc/self/make-it-fail), made with
 * func on the stack.
 */
static void failslab_once(const char *func)
{
	if (access(FAILSLAB "require-start", F_OK)) {
		printf("no failslab with a stack-trace filter in this kernel\n");
		exit(VBLK_EXIT_SKIP);
	}
	failslab_require(func);
	write_file(FAILSLAB "task-filter", "Y");
	write_file(FAILSLAB "ignore-gfp-wait", "N");
	write_file(FAILSLAB "verbose", "0");
	write_file(FAILSLAB "interval", "1");
	write_file(FAILSLAB "probability", "100");
	write_file(FAILSLAB "times", "1");
}

/* A NOP through the ring and back: its task context and requests exist. */
static void warm_ring(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;

	io_uring_prep_nop(sqe);
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe)) {
		fprintf(stderr, "warming the ring failed\n");
		exit(VBLK_EXIT_USAGE);
	}
	io_uring_cqe_seen(ring, cqe);
}

static const char *res_name(int res)
{
	static const char *const status[] = { "OK", "VIRTIO_BLK_S_IOERR", "VIRTIO_BLK_S_UNSUPP" };

	if (res < 0)
		return strerrorname_np(-res) ? strerrorname_np(-res) : "?";
	return res < 3 ? status[res] : "VIRTIO_BLK_S_?";
}

int main(int argc, char **argv)
{
	struct vblk_cmd cmd = { 0 };
	unsigned long long seed = 0, addr = 0, data_len = 0, type = ~0ULL;
	unsigned int ring_flags = 0, nr_vec = 0, misalign = 0;
	bool write = false, fixed = false, async = false, check = false, big = false, mixed = false;
	bool raw_addr = false, raw_len = false, print_id = false, zero = false, link = false;
	char *ranges = NULL;
	uint32_t cmd_op = 0;
	int opt, fd, mode = O_RDWR, uid = -1, poke = -1;
	const char *wait_for = NULL, *fail_in = NULL, *kind = "64";
	int submitted;
	struct stat st;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct iovec iov[64];
	struct vblk_disk disk;
	size_t len = 0;
	char *buf;

	while ((opt = getopt(argc, argv, "wk:s:l:v:FA:a:L:t:o:f:p:E:PqyjN:O:U:W:R:iZX:")) != -1) {
		switch (opt) {
		case 'w': write = true; break;
		case 'k': seed = vblk_number(optarg, usage); check = true; break;
		case 's': cmd.sector = vblk_number(optarg, usage); break;
		case 'l': len = vblk_number(optarg, usage); break;
		case 'v': nr_vec = vblk_number(optarg, usage); break;
		case 'F': fixed = true; break;
		case 'A': misalign = vblk_number(optarg, usage); break;
		case 'a': addr = vblk_number(optarg, usage); raw_addr = true; break;
		case 'L': data_len = vblk_number(optarg, usage); raw_len = true; break;
		case 't': type = vblk_number(optarg, usage); break;
		case 'o': cmd_op = vblk_number(optarg, usage); break;
		case 'f': cmd.flags = vblk_number(optarg, usage); break;
		case 'p': cmd.rsvd = vblk_number(optarg, usage); break;
		case 'E': kind = optarg; break;
		case 'P': ring_flags |= IORING_SETUP_IOPOLL; break;
		case 'q': ring_flags |= IORING_SETUP_SQPOLL; break;
		case 'y': async = true; break;
		case 'j': link = true; break;
		case 'N': fail_in = optarg; break;
		case 'O':
			mode = !strcmp(optarg, "r") ? O_RDONLY : !strcmp(optarg, "w") ? O_WRONLY : O_RDWR;
			break;
		case 'U': uid = vblk_number(optarg, usage); break;
		case 'W': wait_for = optarg; break;
		case 'R': ranges = optarg; break;
		case 'i': print_id = true; break;
		case 'Z': zero = true; break;
		case 'X': poke = vblk_number(optarg, usage); break;
		default: usage();
		}
	}
	if (!strcmp(kind, "128")) {
		ring_flags |= IORING_SETUP_SQE128;
		big = true;
	} else if (!strcmp(kind, "mixed") || !strcmp(kind, "mixed128")) {
		ring_flags |= IORING_SETUP_SQE_MIXED;
		mixed = true;
		big = !strcmp(kind, "mixed128");
	} else if (strcmp(kind, "64")) {
		usage();
	}
	if (optind != argc - 1 || nr_vec > 64 || poke >= (big ? 128 : 64))
		usage();
	vblk_disk_info(argv[optind], &disk);
	if (!len)
		len = disk.lbs;

	if (uid >= 0 && (setgid(uid) || setuid(uid))) {
		perror("setuid");
		return VBLK_EXIT_USAGE;
	}
	fd = open(argv[optind], mode);
	if (fd < 0) {
		perror(argv[optind]);
		return VBLK_EXIT_USAGE;
	}
	while (wait_for && stat(wait_for, &st))
		usleep(10000);
	if (posix_memalign((void **)&buf, 4096, len + misalign + 4096)) {
		fprintf(stderr, "out of memory\n");
		return VBLK_EXIT_USAGE;
	}
	buf += misalign;
	if (write)
		pattern_fill(buf, seed, cmd.sector * 512, len);
	else
		memset(buf, 0xa5, len);
	if (ranges)
		len = parse_ranges(ranges, (void *)buf, len / sizeof(struct virtio_blk_discard_write_zeroes));

	cmd.type = type != ~0ULL ? type : write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN;
	cmd.data = (uintptr_t)buf;
	cmd.data_len = len;
	if (nr_vec) {
		size_t chunk = len / nr_vec;

		for (unsigned int i = 0; i < nr_vec; i++) {
			iov[i].iov_base = buf + i * chunk;
			iov[i].iov_len = i == nr_vec - 1 ? len - i * chunk : chunk;
		}
		cmd.data = (uintptr_t)iov;
		cmd.data_len = nr_vec;
	}
	if (!cmd_op)
		cmd_op = nr_vec ? VIRTBLK_URING_CMD_IO_VEC : VIRTBLK_URING_CMD_IO;
	if (raw_addr)
		cmd.data = addr;
	if (raw_len)
		cmd.data_len = data_len;

	if (vblk_ring_init(&ring, 4, ring_flags)) {
		fprintf(stderr, "ring set-up failed\n");
		return VBLK_EXIT_USAGE;
	}
	if (fixed) {
		struct iovec reg = { buf, len };

		if (io_uring_register_buffers(&ring, &reg, 1)) {
			fprintf(stderr, "registering the buffer failed\n");
			return VBLK_EXIT_USAGE;
		}
	}
	if (fail_in) {
		failslab_once(fail_in);
		warm_ring(&ring);
	}
	if (link) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_IO_LINK;
		sqe->user_data = NOP_TAG;
	}
	sqe = mixed && big ? io_uring_get_sqe128(&ring) : io_uring_get_sqe(&ring);
	if (!sqe) {
		fprintf(stderr, "no SQE\n");
		return VBLK_EXIT_USAGE;
	}
	if (mixed && big)
		vblk_prep_cmd128(sqe, fd, cmd_op, &cmd);
	else
		vblk_prep_cmd(&ring, sqe, fd, cmd_op, &cmd);
	if (fixed)
		vblk_prep_fixed(sqe, 0);
	if (async)
		sqe->flags |= IOSQE_ASYNC;
	if (poke >= 0)
		((unsigned char *)sqe)[poke] = 1;
	if (fail_in)
		write_file("/proc/self/make-it-fail", "1");
	submitted = io_uring_submit(&ring);
	if (fail_in)
		write_file("/proc/self/make-it-fail", "0");
	if (submitted < 1 + link) {
		fprintf(stderr, "submission failed: %d\n", submitted);
		return VBLK_EXIT_USAGE;
	}
	for (;;) {
		if (io_uring_wait_cqe(&ring, &cqe)) {
			fprintf(stderr, "no completion\n");
			return VBLK_EXIT_USAGE;
		}
		if (cqe->user_data != NOP_TAG)
			break;
		printf("head=%d %s\n", cqe->res, res_name(cqe->res));
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("res=%d %s\n", cqe->res, res_name(cqe->res));
	if (zero && cqe->res == 0) {
		size_t i = 0;

		while (i < len && !buf[i])
			i++;
		printf("zero=%s\n", i == len ? "yes" : "no");
	}
	if (print_id && cqe->res == 0)
		printf("id=%.*s\n", (int)strnlen(buf, len), buf);
	if (check && !write && cqe->res == 0)
		printf("data=%s\n", pattern_check(buf, seed, cmd.sector * 512, len) < 0 ? "ok" : "mismatch");
	return VBLK_EXIT_PASS;
}
