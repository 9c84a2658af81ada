# SPDX-License-Identifier: GPL-2.0
"""Reads and writes through /dev/vdac0 over the whole matrix ({read, write}
x {plain, vectored, fixed buffer} x {IRQ ring, IOPOLL ring} x {submit,
SQPOLL, IOSQE_ASYNC}, queue depths 1 to 64, sizes from one logical block to
the largest transfer, the data anywhere in the first two pages of its buffer
that the DMA alignment allows), with and without poll queues, and on a disk
with 4096-byte logical blocks and packed virtqueues: the data is checked
through the block device in the guest and in the host's image file, and a
read must leave the rest of its buffer as it was."""

from harness.vm import Disk
from tests.helpers import check_writes_in_image

DESCRIPTION = "node reads and writes over the whole matrix, checked in the image"
DEBUG_KERNEL = True

GiB = 1 << 30


def test(t):
    disks = [Disk(id="d0", size=4 * GiB), Disk(id="d1", size=4 * GiB, block_size=4096,
                                           packed=True)]
    g = t.guest(disks, vblk=None)
    # (seed, poll_queues, disk): the 4K disk once, with poll queues and a
    # packed ring
    for seed, poll_queues, disk in ((11, 0, 0), (12, 1, 0), (13, 1, 1)):
        name = "vd" + "ab"[disk]
        what = f"{name}, poll_queues={poll_queues}"
        g.load_vblk(f"poll_queues={poll_queues}")
        polled = g.output(f"cat /sys/block/{name}/queue/io_poll").strip()
        t.expect_equal(polled, "1" if poll_queues else "0", f"{what}: io_poll")
        # The features' bit string, bit 34 VIRTIO_F_RING_PACKED
        features = g.output(f"cat /sys/block/{name}/device/features").strip()
        t.expect_equal(features[34], "1" if disks[disk].packed else "0",
                       f"{what}: VIRTIO_F_RING_PACKED")
        status, out = g.run(f"vblk-matrix -s {seed} /dev/{name}c0 /dev/{name} 0 {4 * GiB}",
                            timeout=600, check=False)
        t.log(out)
        failures = [line for line in out.splitlines() if line.startswith("FAIL")]
        t.expect(status == 0, f"{what}: {failures or out[-2000:]}")
        writes = check_writes_in_image(t, disks[disk].image, out)
        t.log(f"{what}: {writes} writes found in the host image")
        g.unload_vblk()
