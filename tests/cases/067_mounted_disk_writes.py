# SPDX-License-Identifier: GPL-2.0
"""Where the kernel refuses writers to a mounted disk (booted with
bdev_allow_write_mounted=0, as CONFIG_BLK_DEV_WRITE_MOUNTED=n does), the
node is such a writer: while /dev/vda is mounted, opening the node for
writing fails with EBUSY and nothing reaches the image, opening it for
reading works; once unmounted, the same write lands; and a node held open
for writing makes the mount fail with EBUSY, as an open /dev/vda would.
Another opener of the whole disk does not keep its partitions from being
read again: BLKRRPART works with the node open."""

from harness.vm import Disk
from tests.helpers import OK, vblk_cmd
from tests.pattern import image_matches

DESCRIPTION = "no writes through the node to a mounted disk"
QUICK = True

MiB = 1 << 20
AT = 12 * MiB             # a block in the file system's data area
WRITE = f"-w -k 7 -s {AT // 512} -l 4096"


def test(t):
    disk = Disk(size=16 * MiB)
    g = t.guest([disk], append="bdev_allow_write_mounted=0")
    g.output("mke2fs -q /dev/vda && mkdir -p /mnt && mount -t ext2 /dev/vda /mnt")

    status, out = g.run(f"vblk-cmd {WRITE} /dev/vdac0", check=False)
    t.log(f"node write while mounted: {status} {out.strip()}")
    t.expect(status != 0 and "Device or resource busy" in out,
             f"opening the node for writing on a mounted disk did not fail with EBUSY: {out}")
    t.expect(not image_matches(disk.image, 7, AT, 4096),
             "a node write to a mounted disk reached the image")
    t.expect_equal(vblk_cmd(g, f"-O r -s {AT // 512} -l 4096")[0], OK,
                   "node read of a mounted disk")

    g.output("umount /mnt")
    t.expect_equal(vblk_cmd(g, WRITE)[0], OK, "node write once unmounted")
    t.expect(image_matches(disk.image, 7, AT, 4096), "the node write is not in the image")

    # A node open for writing is a writer: the mount must wait for it
    g.output(f"(vblk-cmd -w -k 8 -s {AT // 512} -l 4096 -W /tmp/go /dev/vdac0 > /tmp/held; "
             "echo exit=$? >> /tmp/held) &")
    status, out = g.run("sleep 1; mount -t ext2 /dev/vda /mnt", check=False)
    t.log(f"mount with the node open for writing: {status} {out.strip()}")
    t.expect(status != 0 and "Device or resource busy" in out,
             f"mounting while the node was open for writing did not fail with EBUSY: {out}")
    out = g.output("touch /tmp/go; for i in $(seq 100); do grep -q exit= /tmp/held && break; "
                   "sleep 0.1; done; cat /tmp/held")
    t.expect("res=0 OK" in out and "exit=0" in out, f"the held node's write failed: {out}")
    t.expect(image_matches(disk.image, 8, AT, 4096), "the held node's write is not in the image")
    g.output("mount -t ext2 /dev/vda /mnt && umount /mnt")

    status, out = g.run("exec 3</dev/vdac0; blockdev --rereadpt /dev/vda", check=False)
    t.expect(status == 0, f"BLKRRPART with the node open: {status} {out.strip()}")
