# SPDX-License-Identifier: GPL-2.0
"""A device whose virtqueues are shorter than its seg_max and that offers
no indirect descriptors (QEMU: queue-size=16, indirect_desc=off,
seg-max-adjust=off, so seg_max stays 126): a request may only use as many
descriptors as a virtqueue has.  The disk's max_segments is 14 (16 less
the header and status), so a 512 KiB O_DIRECT write through /dev/vda is
split into requests that fit and lands in the host image (without the
cap blk-mq sends requests of 126 segments, which the virtqueue refuses
for ever: the write hangs).  The node takes data of at most 14 pages and
says so in max_transfer_bytes; a transfer one page longer is refused with
EINVAL before anything is sent.  The largest one it takes lands in the
host image.  The same holds when the device offers indirect descriptors
(indirect_desc=on): a request whose indirect table cannot be allocated
(GFP_ATOMIC) goes in the ring itself, so max_segments is 14 there too;
on the debug kernel failslab fails that table's allocation for the
longest write, which then lands (with max_segments 126 it took 128
descriptors of an empty 16-entry ring, and the queue stopped for good)."""

from harness.vm import Disk
from tests.helpers import OK, NODE_CLASS, vblk_cmd
from tests.pattern import image_matches
from tests.run import SKIP_STATUS

DESCRIPTION = "no command needs more descriptors than a virtqueue holds"
QUICK = True
DEBUG_KERNEL = True
CONDITIONS = {"indirect_desc": (False, True)}

MiB = 1 << 20
RING = 16


def test(t, cond):
    disk = Disk(id="d0", size=64 * MiB, queue_size=RING, indirect_desc=cond["indirect_desc"],
                seg_max_adjust=False)
    g = t.guest([disk])
    segments = int(g.output("cat /sys/block/vda/queue/max_segments"))
    t.expect_equal(segments, RING - 2, "the disk's max_segments")
    length = 128 * 4096
    g.output(f"vblk-io -b {length} write /dev/vda {8 * MiB} {length} 56", timeout=60)
    t.expect(image_matches(disk.image, 56, 8 * MiB, length),
             "the block device's write is not in the image")
    most = int(g.output(f"cat {NODE_CLASS}/vdac0/max_transfer_bytes"))
    t.expect_equal(most, (RING - 2) * 4096, "max_transfer_bytes")
    t.expect_equal(vblk_cmd(g, f"-w -s 2048 -l {most} -k 57")[0], OK, "the longest write")
    t.expect(image_matches(disk.image, 57, 2048 * 512, most), "the longest write is not in the image")
    writes = g.blockstats("d0")["wr_operations"]
    t.expect_equal(vblk_cmd(g, f"-w -s 4096 -l {most + 4096} -k 58")[0], "EINVAL",
                   "a write one page longer")
    t.expect_equal(vblk_cmd(g, f"-w -s 4096 -l {most} -v 2 -A 512 -k 58")[0], "EINVAL",
                   "a write of as many bytes, touching one page more")
    t.expect_equal(g.blockstats("d0")["wr_operations"], writes, "writes that reached the device")
    if cond["indirect_desc"]:
        status, out = g.run(f"vblk-cmd -w -s 8192 -l {most} -k 59 -N virtqueue_add_sgs "
                            "/dev/vdac0", check=False, timeout=60)
        t.log(f"the longest write, its indirect table's allocation failed: {status} {out.strip()}")
        if status != SKIP_STATUS:     # vblk-cmd -N without failslab
            left = g.output("cat /sys/kernel/debug/failslab/times").strip()
            t.expect_equal(left, "0", "failslab's injections left (0: the table's allocation failed)")
            t.expect("res=0 OK" in out, f"the longest write without its indirect table: {out}")
            t.expect(image_matches(disk.image, 59, 8192 * 512, most),
                     "the write without its indirect table is not in the image")
