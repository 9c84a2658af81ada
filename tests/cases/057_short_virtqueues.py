# SPDX-License-Identifier: GPL-2.0
"""A device whose virtqueues are shorter than its seg_max and that offers
no indirect descriptors (QEMU: queue-size=16, indirect_desc=off,
seg-max-adjust=off, so seg_max stays 126): a request may only use as many
descriptors as a virtqueue has.  The node takes data of at most 14 pages
(16 less the header and status) and says so in max_transfer_bytes; a
transfer one page longer is refused with EINVAL before anything is sent,
where the device could never queue it.  The largest one it takes lands in
the host image."""

from harness.vm import Disk
from tests.helpers import OK, NODE_CLASS, vblk_cmd
from tests.pattern import image_matches

DESCRIPTION = "no command needs more descriptors than a virtqueue holds"
QUICK = True

MiB = 1 << 20
RING = 16


def test(t):
    disk = Disk(id="d0", size=64 * MiB, queue_size=RING, indirect_desc=False,
                seg_max_adjust=False)
    g = t.guest([disk])
    segments = int(g.output("cat /sys/block/vda/queue/max_segments"))
    t.log(f"the disk's max_segments: {segments}")
    t.expect(segments > RING - 2, f"the device's seg_max ({segments}) fits its ring: "
             "this test needs one that does not")
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
