# SPDX-License-Identifier: GPL-2.0
"""The node and /dev/vda share one page cache view of the disk, as direct
I/O on the block device does: a buffered read after a node write, discard or
write zeroes returns the new data, not the pages it had cached; a node read
returns what a buffered write left dirty; and a dirty page that a node write
or range command overwrites is written back before it, never over it.  The
host's image is the oracle: it holds the node's data after a guest sync and
the buffered write's data as soon as a node read has run."""

import hashlib

from harness.vm import Disk
from tests.helpers import OK, T_DISCARD, T_WRITE_ZEROES, vblk_cmd, vblk_output
from tests.pattern import image_matches, pattern

DESCRIPTION = "node and /dev/vda share one page cache view"
QUICK = True

MiB = 1 << 20
BS = 4096
AT = MiB                  # the block every step works on
ELSEWHERE = 2 * MiB       # a block whose data a buffered copy dirties AT with
RANGE = f"{AT // 512}:{BS // 512}"


def test(t):
    disk = Disk(size=16 * MiB, discard=True, write_zeroes=True)
    g = t.guest([disk])
    # The last close of /dev/vda writes back and drops its page cache: keep
    # it open, as a mounted file system or a long-running program would.
    g.output("sleep 100000 < /dev/vda > /dev/null 2>&1 &")

    def node(args, what):
        t.expect_equal(vblk_cmd(g, args)[0], OK, what)

    def node_write(seed):
        node(f"-w -k {seed} -s {AT // 512} -l {BS}", f"node write of seed {seed}")

    def buffered_read():
        """md5 of the block read through the page cache (and so cached)."""
        return g.output(f"dd if=/dev/vda bs={BS} skip={AT // BS} count=1 2>/dev/null "
                        "| md5sum").split()[0]

    def dirty(source, skip=0):
        """Leave the block dirty in the page cache: a buffered copy, no sync."""
        g.output(f"dd if={source} of=/dev/vda bs={BS} skip={skip} seek={AT // BS} count=1 "
                 "conv=notrunc 2>/dev/null")

    def image_block():
        with open(disk.image, "rb") as f:
            f.seek(AT)
            return f.read(BS)

    def md5(data):
        return hashlib.md5(data).hexdigest()

    def step(what):
        """Each step starts from an empty page cache, so it fails on its own."""
        t.log(f"step: {what}")
        g.output("blockdev --flushbufs /dev/vda")

    zeros = md5(bytes(BS))

    step("cached, then overwritten through the node")
    node_write(1)
    t.expect_equal(buffered_read(), md5(pattern(1, AT, BS)), "buffered read of the node's write")
    node_write(2)
    t.expect_equal(buffered_read(), md5(pattern(2, AT, BS)),
                   "buffered read after a node write over a cached block")

    step("dirty in the cache, then read through the node: written back first")
    dirty("/dev/zero")
    read = vblk_output(g, f"-Z -s {AT // 512} -l {BS}")
    t.expect_equal((read["res"], read.get("zero")), (OK, "yes"),
                   "node read of a block a buffered write left dirty")
    t.expect(image_block() == bytes(BS),
             "a node read did not write back the dirty page it read")

    step("dirty in the cache, then overwritten through the node: the node's data stays")
    dirty("/dev/zero")
    node_write(3)
    g.output("sync")
    t.expect(image_matches(disk.image, 3, AT, BS),
             "a dirty page was written back over the node's write")
    t.expect_equal(buffered_read(), md5(pattern(3, AT, BS)),
                   "buffered read after a node write over a dirty block")

    step("cached, then discarded through the node")
    node_write(6)
    t.expect_equal(buffered_read(), md5(pattern(6, AT, BS)), "buffered read before a discard")
    node(f"-t {T_DISCARD} -R {RANGE}", "discard")
    t.expect_equal(buffered_read(), zeros, "buffered read after a node discard")

    step("dirty with the data of another block, then zeroed through the node")
    node_write(4)
    node(f"-w -k 5 -s {ELSEWHERE // 512} -l {BS}", "node write elsewhere")
    dirty("/dev/vda", ELSEWHERE // BS)
    node(f"-t {T_WRITE_ZEROES} -R {RANGE}", "write zeroes")
    g.output("sync")
    t.expect(image_block() == bytes(BS),
             "a dirty page was written back over the node's write zeroes")
    t.expect_equal(buffered_read(), zeros, "buffered read after a node write zeroes")
