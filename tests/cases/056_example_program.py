# SPDX-License-Identifier: GPL-2.0
"""examples/vblk-passthrough.c, the application developer's starting point,
does what it says on a disk: its write from a registered buffer is in the
host image, its flush and reads succeed, and its discards punch holes in
the image exactly over the two blocks after the written one, where the
host planted data."""

from harness.vm import Disk
from tests.helpers import image_has_data
from tests.pattern import image_matches, write_image

DESCRIPTION = "examples/vblk-passthrough.c works as documented"
QUICK = True

MiB = 1 << 20
SECTOR = 8192           # where the example writes; it discards the next 8 KiB
BLOCK = 4096


def test(t):
    disk = Disk(id="d0", size=64 * MiB, discard=True)
    g = t.guest([disk], vblk="poll_queues=1")
    write_image(disk.image, 56, SECTOR * 512, 4 * BLOCK)
    out = g.output(f"vblk-passthrough /dev/vdac0 {SECTOR}")
    t.log(out)
    for step in ("write (registered buffer): ok", "flush: ok", "read: ok", "discard: ok"):
        t.expect(step in out, f"the example did not report {step!r}")
    with open(disk.image, "rb") as f:
        f.seek(SECTOR * 512)
        t.expect(f.read(BLOCK) == b"V" * BLOCK, "the example's write is not in the host image")
    t.expect(not image_has_data(disk.image, SECTOR * 512 + BLOCK, 2 * BLOCK),
             "the example's discards left data in the image")
    t.expect(image_matches(disk.image, 56, SECTOR * 512 + 3 * BLOCK, BLOCK),
             "the block after the discarded ones changed")
