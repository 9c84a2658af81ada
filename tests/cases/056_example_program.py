# SPDX-License-Identifier: GPL-2.0
"""examples/vblk-passthrough.c, the application developer's starting point,
does what it says on a disk.  By default it only reads: its three commands
in flight (registered buffer, plain buffer, iovecs) succeed, the checksums
it prints are those of the data the host planted, and the image is left as
it was.  With -w its writes are in the host image, its flush and reads
succeed and read back what it wrote, and its discards punch holes in the
image exactly over the two blocks after the written ones.  A read beyond
the disk is reported with its errno and a non-zero exit, and no checksum."""

import re
import struct

from harness.vm import Disk
from tests.helpers import image_has_data
from tests.pattern import image_matches, pattern, write_image

DESCRIPTION = "examples/vblk-passthrough.c works as documented"
QUICK = True

MiB = 1 << 20
SIZE = 64 * MiB
SECTOR = 8192           # where the example works: 4 blocks, then -w discards 2 more
BLOCK = 4096
NBLK = 4
SEED = 56
FORMS = ("block 0 (registered buffer)", "block 1", "blocks 2-3 (iovecs)")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def written(offset, length):
    """What -w writes: each little-endian 64-bit word its own byte offset."""
    return struct.pack(f"<{length // 8}Q", *range(offset, offset + length, 8))


def checksums(out):
    return {int(m[1]): int(m[2], 16)
            for m in re.finditer(r"^sector (\d+): fnv1a64 ([0-9a-f]{16})$", out, re.M)}


def expect_blocks(t, out, data_of, what):
    """The example's checksum lines are those of data_of(offset, BLOCK), block by block."""
    want = {SECTOR + i * BLOCK // 512: fnv1a64(data_of(SECTOR * 512 + i * BLOCK, BLOCK))
            for i in range(NBLK)}
    t.expect_equal(checksums(out), want, f"{what}: the checksums the example printed")


def test(t):
    disk = Disk(id="d0", size=SIZE, discard=True)
    g = t.guest([disk])
    base = SECTOR * 512
    write_image(disk.image, SEED, base, 8 * BLOCK)

    # The default run only reads
    out = g.output(f"vblk-passthrough vda {SECTOR}")
    t.log(out)
    for form in FORMS:
        t.expect(f"read {form}: ok" in out, f"the read-only run did not report 'read {form}: ok'")
    t.expect(not re.search(r"^(write|flush|discard)", out, re.M),
             "the read-only run wrote, flushed or discarded")
    expect_blocks(t, out, lambda off, n: pattern(SEED, off, n), "read-only run")
    t.expect(image_matches(disk.image, SEED, base, 8 * BLOCK),
             "the read-only run changed the host image")

    # -w writes, flushes, reads back and discards the two blocks after
    out = g.output(f"vblk-passthrough -w vda {SECTOR}")
    t.log(out)
    steps = [f"write {f}: ok" for f in FORMS] + ["flush: ok"] + [f"read {f}: ok" for f in FORMS]
    for step in steps:
        t.expect(step in out, f"the -w run did not report {step!r}")
    t.expect(re.search(r"^discard ranges? [-\d]+: ok$", out, re.M),
             "the -w run did not report its discards")
    expect_blocks(t, out, written, "-w run")
    with open(disk.image, "rb") as f:
        f.seek(base)
        t.expect(f.read(NBLK * BLOCK) == written(base, NBLK * BLOCK),
                 "the example's writes are not in the host image")
    t.expect(not image_has_data(disk.image, base + NBLK * BLOCK, 2 * BLOCK),
             "the example's discards left data in the image")
    t.expect(image_matches(disk.image, SEED, base + (NBLK + 2) * BLOCK, 2 * BLOCK),
             "the blocks after the discarded ones changed")

    # A failure: reads beyond the disk, refused with EINVAL
    status, out = g.run(f"vblk-passthrough vda {SIZE // 512}", check=False)
    t.log(out)
    t.expect_equal(status, 1, "the exit status of a run beyond the disk")
    t.expect("Invalid argument" in out, "a read beyond the disk was not reported with its errno")
    t.expect(not checksums(out), "the example printed checksums after failed reads")
