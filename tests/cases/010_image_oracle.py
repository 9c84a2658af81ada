# SPDX-License-Identifier: GPL-2.0
"""Data written through /dev/vda (io_uring, O_DIRECT) is in the host's image
at the right offset and nowhere else; data the host puts in the image is what
the guest reads back; and a wrong pattern is reported as a mismatch.  On
QEMU's virtio-blk with 512-byte and 4096-byte blocks, and on a
vhost-user-blk disk served by qemu-storage-daemon with 512-byte blocks
(050 reads and writes its 4096-byte disk against the image)."""

from tests.helpers import DEVICES, disk_for
from tests.pattern import image_matches, write_image

DESCRIPTION = "/dev/vda's data is the host image's, at the right offsets"
QUICK = True
CONDITIONS = {"device": DEVICES}
BLOCK_SIZES = {"virtio-blk": (512, 4096), "vhost-user-blk": (512,)}

MiB = 1 << 20


def test(t, cond):
    for block_size in BLOCK_SIZES[cond["device"]]:
        t.log(f"{block_size}-byte blocks")
        check_disk(t, disk_for(cond["device"], size=64 * MiB, block_size=block_size))


def check_disk(t, disk):
    g = t.guest([disk])

    g.output(f"vblk-io write /dev/vda {MiB} {64 * 1024} 11")
    t.expect(image_matches(disk.image, 11, MiB, 64 * 1024),
             "the guest's write is not in the host image at its offset")
    with open(disk.image, "rb") as f:
        f.seek(MiB - 4096)
        before = f.read(4096)
        f.seek(MiB + 64 * 1024)
        after = f.read(4096)
    t.expect(before == after == bytes(4096), "the guest's write spilled past its range")

    write_image(disk.image, 22, 8 * MiB, 128 * 1024)
    g.output(f"vblk-io -b 16384 verify /dev/vda {8 * MiB} {128 * 1024} 22")

    status, out = g.run(f"vblk-io verify /dev/vda {8 * MiB} 4096 23", check=False)
    t.expect(status == 1 and "mismatch at byte" in out,
             f"verifying with the wrong seed was not reported as a mismatch: {status} {out}")
