# SPDX-License-Identifier: GPL-2.0
"""A read through the node that the device fails (QEMU's blkdebug fails one
sector) fails fio's cmd_type=vblk job, and fio names the device's status,
VIRTIO_BLK_S_IOERR."""

from harness.vm import Disk
from tests.fiojob import errors, guest_fio
from tests.fiojob import requires  # noqa: F401  (the runner calls it)

DESCRIPTION = "fio cmd_type=vblk fails a job on a device error, naming it"
QUICK = True

BAD_SECTOR = 64     # the sector whose reads the device fails


def test(t):
    g = t.guest([Disk(size=1 << 20, faults=(("read", BAD_SECTOR),))])
    status, out, moved = guest_fio(t, g, f"--name=bad --ioengine=io_uring_cmd --cmd_type=vblk "
                                   f"--filename=/dev/vdac0 --rw=read --bs=4k "
                                   f"--offset={BAD_SECTOR * 512} --size=4k")
    t.expect(status != 0 and "virtio-blk status IOERR (1)" in out,
             f"a read the device failed: status {status}, no IOERR named:\n{errors(out)}")
    t.expect_equal(moved, (0, 0), "bytes the device (wrote, read) for a failed read")
