# SPDX-License-Identifier: GPL-2.0
"""Device-side faults: QEMU's blkdebug fails reads and writes touching
chosen sectors with EIO.  The passthrough path reports the device's
VIRTIO_BLK_S_IOERR in cqe->res (a positive status, as documented) for
exactly those commands, on interrupt-driven and polled rings; everything
else, and the block path next to it, keeps working."""

from harness.vm import Disk
from tests.helpers import OK, vblk_cmd
from tests.pattern import write_image

DEBUG_KERNEL = True
QUICK = True

BAD_READ, BAD_WRITE = 4096, 8192        # sectors
IOERR = "VIRTIO_BLK_S_IOERR"


def test(t):
    disk = Disk(size=16 << 20, faults=(("read", BAD_READ), ("write", BAD_WRITE)))
    g = t.guest([disk], vblk="poll_queues=1")
    write_image(disk.image, 7, 0, 16 << 20)
    for ring in ("", "-P"):
        t.expect_equal(vblk_cmd(g, f"{ring} -s {BAD_READ} -l 4096 -k 7")[0], IOERR,
                       f"read of the failing sector {ring}")
        t.expect_equal(vblk_cmd(g, f"{ring} -s {BAD_READ - 8} -l 8192 -k 7")[0], IOERR,
                       f"read across the failing sector {ring}")
        t.expect_equal(vblk_cmd(g, f"{ring} -w -s {BAD_WRITE} -l 4096 -k 7")[0], IOERR,
                       f"write of the failing sector {ring}")
        t.expect_equal(vblk_cmd(g, f"{ring} -s {BAD_WRITE} -l 4096 -k 7"), (OK, "ok"),
                       f"read of the sector that fails writes {ring}")
        t.expect_equal(vblk_cmd(g, f"{ring} -s {BAD_READ + 64} -l 4096 -k 7"), (OK, "ok"),
                       f"read next to the failing sector {ring}")
        t.expect_equal(vblk_cmd(g, f"{ring} -w -s 0 -l 4096 -k 7")[0], OK, f"write elsewhere {ring}")

    # the block path beside it: EIO where the device fails, data elsewhere
    status, out = g.run(f"vblk-io verify /dev/vda {BAD_READ * 512} 4096 7", check=False)
    t.expect(status == 1 and "Input/output error" in out,
             f"the block path's read of the failing sector: {status} {out!r}")
    g.output(f"vblk-io verify /dev/vda {(BAD_READ + 64) * 512} 65536 7")
    g.output("vblk-io write /dev/vda 1048576 65536 8 && vblk-io verify /dev/vda 1048576 65536 8")
