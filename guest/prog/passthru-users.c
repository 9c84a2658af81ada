// SPDX-License-Identifier: GPL-2.0
/*
 * passthru-users: other users of blk_execute_rq_nowait() than the node,
 * whose issue path "blk-mq: issue a passthrough request directly when
 * nothing holds it back" changes: one command each, checked.
 *
 * usage: passthru-users nvme-admin /dev/nvmeX SERIAL
 *          Identify Controller through io_uring (NVME_URING_CMD_ADMIN on
 *          the controller's char device); prints "sn=..." and fails
 *          unless the serial number is SERIAL.
 *        passthru-users sg-tail /dev/sgN LBA SEED
 *          WRITE(10) of 4096 bytes of the pattern at LBA (512-byte
 *          blocks), then READ(10) of them, through sg's write() and read()
 *          with SG_FLAG_Q_AT_TAIL (queued at the tail, not the head);
 *          prints "data=ok" or "data=mismatch".
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvme-uring.h"
#include "pattern.h"

#ifndef SG_FLAG_Q_AT_TAIL
#define SG_FLAG_Q_AT_TAIL 0x10	/* <scsi/sg.h> of the kernel's UAPI */
#endif

enum { NVME_ADMIN_IDENTIFY = 0x06, NVME_ID_CNS_CTRL = 0x01, NVME_ID_SN = 4, NVME_SN_LEN = 20 };
enum { SCSI_READ_10 = 0x28, SCSI_WRITE_10 = 0x2a, LEN = 4096 };

static void usage(void)
{
	fprintf(stderr, "usage: passthru-users nvme-admin /dev/nvmeX SERIAL\n"
		"       passthru-users sg-tail /dev/sgN LBA SEED\n");
	exit(VBLK_EXIT_USAGE);
}

static int nvme_admin_identify(const char *dev, const char *serial)
{
	struct nvme_uring_cmd cmd = {
		.opcode = NVME_ADMIN_IDENTIFY,
		.data_len = 4096,
		.cdw10 = NVME_ID_CNS_CTRL,
	};
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	char sn[NVME_SN_LEN + 1];
	unsigned char *id;
	int fd, res, n;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || posix_memalign((void **)&id, 4096, 4096) ||
	    vblk_ring_init(&ring, 4, IORING_SETUP_SQE128 | IORING_SETUP_CQE32)) {
		perror(dev);
		return VBLK_EXIT_USAGE;
	}
	memset(id, 0, 4096);
	cmd.addr = (uintptr_t)id;
	nvme_fill_cmd(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_ADMIN, &cmd, sizeof(cmd));
	if (io_uring_submit_and_wait(&ring, 1) != 1 || io_uring_wait_cqe(&ring, &cqe)) {
		fprintf(stderr, "the ring failed\n");
		return VBLK_EXIT_USAGE;
	}
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	if (res) {
		printf("res=%d %s\n", res, res < 0 ? strerror(-res) : "NVMe status");
		return VBLK_EXIT_FAIL;
	}
	memcpy(sn, id + NVME_ID_SN, NVME_SN_LEN);
	for (n = NVME_SN_LEN; n && (sn[n - 1] == ' ' || !sn[n - 1]); n--)
		;
	sn[n] = 0;
	printf("sn=%s\n", sn);
	return strcmp(sn, serial) ? VBLK_EXIT_FAIL : VBLK_EXIT_PASS;
}

/* One SCSI command through sg's asynchronous interface, at the queue's tail */
static int sg_tail(int fd, unsigned char opcode, uint32_t lba, void *buf)
{
	unsigned char cdb[10] = {
		opcode, 0, lba >> 24, lba >> 16, lba >> 8, lba, 0, 0, LEN / 512, 0,
	};
	unsigned char sense[32];
	struct sg_io_hdr h = {
		.interface_id = 'S',
		.dxfer_direction = opcode == SCSI_WRITE_10 ? SG_DXFER_TO_DEV : SG_DXFER_FROM_DEV,
		.cmd_len = sizeof(cdb),
		.mx_sb_len = sizeof(sense),
		.dxfer_len = LEN,
		.dxferp = buf,
		.cmdp = cdb,
		.sbp = sense,
		.timeout = 20000,
		.flags = SG_FLAG_Q_AT_TAIL,
	};

	if (write(fd, &h, sizeof(h)) != sizeof(h) || read(fd, &h, sizeof(h)) != sizeof(h)) {
		perror("sg");
		return -1;
	}
	if (h.info & SG_INFO_OK_MASK) {
		printf("%s: status %#x host %#x driver %#x\n", opcode == SCSI_WRITE_10 ?
		       "WRITE(10)" : "READ(10)", h.status, h.host_status, h.driver_status);
		return -1;
	}
	return 0;
}

static int sg_write_read(const char *dev, uint32_t lba, uint64_t seed)
{
	void *buf;
	int fd = open(dev, O_RDWR);

	if (fd < 0 || posix_memalign(&buf, 4096, LEN)) {
		perror(dev);
		return VBLK_EXIT_USAGE;
	}
	pattern_fill(buf, seed, (uint64_t)lba * 512, LEN);
	if (sg_tail(fd, SCSI_WRITE_10, lba, buf))
		return VBLK_EXIT_FAIL;
	memset(buf, 0, LEN);
	if (sg_tail(fd, SCSI_READ_10, lba, buf))
		return VBLK_EXIT_FAIL;
	if (pattern_check(buf, seed, (uint64_t)lba * 512, LEN) >= 0) {
		printf("data=mismatch\n");
		return VBLK_EXIT_FAIL;
	}
	printf("data=ok\n");
	return VBLK_EXIT_PASS;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "nvme-admin"))
		return nvme_admin_identify(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "sg-tail"))
		return sg_write_read(argv[2], vblk_number(argv[3], usage),
				     vblk_number(argv[4], usage));
	usage();
}
