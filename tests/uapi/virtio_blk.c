// SPDX-License-Identifier: GPL-2.0
/*
 * The UAPI header stands on its own: this file includes nothing else and
 * is compiled as C and as C++ (scripts/check.sh bisect) against the headers
 * of every patch of the series that has the passthrough command.
 */
#include <linux/virtio_blk.h>

#ifdef VIRTBLK_URING_CMD_IO
#ifdef __cplusplus
#define STATIC_ASSERT(e) static_assert(e, #e)
#else
#define STATIC_ASSERT(e) _Static_assert(e, #e)
#endif

STATIC_ASSERT(sizeof(struct virtblk_uring_cmd) == 32);
STATIC_ASSERT(VIRTBLK_URING_CMD_IO != VIRTBLK_URING_CMD_IO_VEC);
STATIC_ASSERT(sizeof(struct virtio_blk_discard_write_zeroes) == 16);

int main(void)
{
	struct virtblk_uring_cmd cmd = { VIRTIO_BLK_T_IN, 0, 0, 0, 0, 0 };

	return (int)cmd.flags;
}
#else
int main(void)
{
	return 0;
}
#endif
