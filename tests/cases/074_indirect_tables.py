# SPDX-License-Identifier: GPL-2.0
"""Requests of one to thirty-two pages through /dev/vda at a depth that
keeps a short virtqueue full: each goes in the ring as an indirect
table of three to thirty-four descriptors, those of up to four in the
table that virtio_ring keeps for the request's head, longer ones
kmalloc()ed for it.  Written in the guest, verified by the host's fio
in the image; planted by the host, verified by the guest's fio: on
split and packed rings.  A kept table reused while the device may still
read it, or taken from another head, sends data to or from the wrong
place (experiments/indirect-table-shared); on the debug kernel KASAN
also sees a kept table written past its end."""

from harness.vm import Disk
from tests.fiojob import VERIFY, MiB, expect_clean, guest_fio, host_fio
from tests.fiojob import requires  # noqa: F401  (the runner calls it)

DESCRIPTION = "indirect tables of every size land what they describe, split and packed"
QUICK = True
DEBUG_KERNEL = True             # KASAN: a kept table written past its end
CONDITIONS = {"packed": (False, True)}
# /dev/vda's requests: the node's mode changes nothing here, and the one
# virtqueue leaves none for the node's own
NODE_MODES = ("blkmq",)

RING = 32                       # entries per virtqueue: a depth of 64 keeps it full
SIZE = 8 * MiB
GUEST = "--ioengine=io_uring --direct=1 --filename=/dev/vda --iodepth=64"


def layout(name, offset):
    """A fio job's data, SIZE bytes at offset: 4 KiB and 8 KiB use the kept
    table (3 and 4 descriptors), 12 KiB is the first to need a kmalloc()ed
    table, 128 KiB the longest."""
    return (f"--name={name} --rw=randwrite --bssplit=4k/40:8k/25:12k/20:128k/15 "
            f"--offset={offset} --size={SIZE} --randseed=74")


def test(t, cond):
    guest_half, host_half = layout("guest", 0), layout("host", SIZE)
    disk = Disk(size=2 * SIZE, queue_size=RING, num_queues=1, packed=cond["packed"])
    g = t.guest([disk])
    # the negotiated features' bit string
    features = g.output("cat /sys/block/vda/device/features").strip()
    t.expect_equal(features[28], "1", "VIRTIO_RING_F_INDIRECT_DESC")
    t.expect_equal(features[34], "1" if cond["packed"] else "0", "VIRTIO_F_RING_PACKED")

    # the guest writes; the host verifies in the image
    result = guest_fio(t, g, f"{guest_half} {GUEST} {VERIFY} --do_verify=0")
    expect_clean(t, "the guest's writes", result, SIZE, 0)
    checked = host_fio(t, f"{guest_half} --verify_only=1", disk.image)
    t.expect_equal(checked["read"]["io_bytes"], SIZE, "bytes the host verified")

    # the host writes; the guest verifies (fio only pretends to write)
    planted = host_fio(t, f"{host_half} --do_verify=0 --end_fsync=1", disk.image)
    t.expect_equal(planted["write"]["io_bytes"], SIZE, "bytes the host planted")
    result = guest_fio(t, g, f"{host_half} {GUEST} {VERIFY} --verify_only=1")
    expect_clean(t, "the guest's reads", result, 0, SIZE)
