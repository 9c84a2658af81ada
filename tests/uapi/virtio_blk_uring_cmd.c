// SPDX-License-Identifier: GPL-2.0
/*
 * The UAPI header stands on its own and keeps its layout: this file includes
 * nothing else and is compiled as C and as C++ (scripts/check.sh bisect)
 * against the headers of every patch of the series.  Before the patch that
 * adds the header there is nothing to check.
 */
#if defined(__has_include) && __has_include(<linux/virtio_blk_uring_cmd.h>)
#include <linux/virtio_blk_uring_cmd.h>
#include <stddef.h>

#ifdef __cplusplus
#define STATIC_ASSERT(e) static_assert(e, #e)
#else
#define STATIC_ASSERT(e) _Static_assert(e, #e)
#endif

/* The 16-byte command area of a 64-byte SQE, as the kernel-doc lays it out */
STATIC_ASSERT(sizeof(struct virtblk_uring_cmd) == 16);
STATIC_ASSERT(offsetof(struct virtblk_uring_cmd, type) == 0);
STATIC_ASSERT(offsetof(struct virtblk_uring_cmd, flags) == 4);
STATIC_ASSERT(offsetof(struct virtblk_uring_cmd, rsvd) == 6);
STATIC_ASSERT(offsetof(struct virtblk_uring_cmd, sector) == 8);
/* _IOWR('v', 0x80 and 0x81, 16 bytes) */
STATIC_ASSERT(VIRTBLK_URING_CMD_IO == 0xc0107680);
STATIC_ASSERT(VIRTBLK_URING_CMD_IO_VEC == 0xc0107681);

int main(void)
{
	struct virtblk_uring_cmd cmd = { 1, 0, 0, 0 };

	return (int)cmd.flags;
}
#else
int main(void)
{
	return 0;
}
#endif
