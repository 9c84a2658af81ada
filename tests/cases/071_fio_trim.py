# SPDX-License-Identifier: GPL-2.0
"""fio's trims through the node (cmd_type=vblk) are discards: sequential
and random, they punch holes in the host image at exactly the blocks fio
trimmed (a sequential trim by its offsets, a random one as fio's iolog
names them), and nothing else moves in QEMU's byte counters.  A trim
larger than the device's largest discard, or of more ranges than it takes,
is refused by the engine up front."""

from harness.vm import Disk
from tests.fiojob import ENGINE, MiB, errors, expect_clean, guest_fio
from tests.fiojob import requires  # noqa: F401  (the runner calls it)
from tests.helpers import image_has_data

DESCRIPTION = "fio cmd_type=vblk trims are discards, holes exactly where trimmed"
QUICK = True

# The guest fills 2M, then trims the middle half of its first 1M
# sequentially and half of the 64k blocks of its second 1M at random.
TRIM_AREA, TRIM_BS = 0, 64 << 10
TRIM_FILL = f"--name=trimfill --rw=write --bs={TRIM_BS} --offset={TRIM_AREA} --size=2M"
SEQ_TRIM_START, SEQ_TRIM_SIZE = TRIM_AREA + 256 * 1024, 512 * 1024
SEQ_TRIM = f"--name=trim --rw=trim --bs={TRIM_BS} --offset={SEQ_TRIM_START} --size={SEQ_TRIM_SIZE}"
RAND_TRIM_AREA = TRIM_AREA + MiB
RAND_TRIM_LOG = "/tmp/randtrim.iolog"
RAND_TRIM = (f"--name=randtrim --rw=randtrim --bs={TRIM_BS} --offset={RAND_TRIM_AREA} --size=1M "
             f"--io_size=512k --randseed=11 --write_iolog={RAND_TRIM_LOG}")


def blocks(start, size):
    return range(start, start + size, TRIM_BS)


def expect_holes(t, what, image, area, size, trimmed):
    """Every TRIM_BS block of [area, area + size) is a hole in the image if
    it is in trimmed, and holds data if not."""
    wrong = [(off, off in trimmed) for off in blocks(area, size)
             if image_has_data(image, off, TRIM_BS) == (off in trimmed)]
    t.expect(not wrong, f"{what}: blocks that are not as trimmed "
             f"(offset, trimmed): {wrong}")


def test(t):
    disk = Disk(size=64 * MiB, discard=True)
    g = t.guest([disk], vblk="poll_queues=1")
    expect_clean(t, "filling the trim area",
                 guest_fio(t, g, f"{TRIM_FILL} {ENGINE}"), 2 * MiB, 0)
    expect_holes(t, "after the fill", disk.image, TRIM_AREA, 2 * MiB, set())

    # sequential: the middle half of the first 1M
    status, out, moved = guest_fio(t, g, f"{SEQ_TRIM} {ENGINE}")
    t.expect(status == 0, f"rw=trim: fio failed (status {status}):\n{errors(out)}")
    t.expect_equal(moved, (0, 0), "rw=trim: bytes the device (wrote, read)")
    expect_holes(t, "rw=trim", disk.image, TRIM_AREA, MiB,
                 set(blocks(SEQ_TRIM_START, SEQ_TRIM_SIZE)))

    # random, with iovecs and a polled ring (a trim is still one plain
    # command): half the blocks of the second 1M, as fio's iolog names them
    status, out, _ = guest_fio(t, g, f"{RAND_TRIM} {ENGINE} --nonvectored=0 --hipri")
    t.expect(status == 0, f"rw=randtrim: fio failed (status {status}):\n{errors(out)}")
    log = g.output(f"cat {RAND_TRIM_LOG}")
    t.log(f"{RAND_TRIM_LOG}:\n{log}")
    # "[TIME] FILE trim OFFSET LENGTH" (iolog versions 3 and 2)
    trims = [tuple(map(int, f[f.index("trim") + 1:f.index("trim") + 3]))
             for f in map(str.split, log.splitlines()) if "trim" in f]
    t.expect_equal((len(trims), {length for _, length in trims}), (8, {TRIM_BS}),
                   "rw=randtrim: (trims, their lengths) in fio's iolog")
    trimmed = {off for off, _ in trims}
    t.expect_equal(len(trimmed), 8, "rw=randtrim: distinct blocks trimmed")
    expect_holes(t, "rw=randtrim", disk.image, RAND_TRIM_AREA, MiB, trimmed)

    # a trim larger than the device's largest discard: refused up front
    max_discard = int(g.output("cat /sys/block/vda/queue/discard_max_hw_bytes"))
    t.expect(max_discard > 0, "the disk has no discard")
    too_big = f"--name=bigtrim --rw=trim --bs={max_discard + 512} --size={max_discard + 512}"
    status, out, _ = guest_fio(t, g, f"{too_big} {ENGINE}")
    t.expect(status != 0 and "larger than the disk's largest discard" in out,
             f"a trim of {max_discard + 512} bytes was not refused up front:\n{errors(out)}")

    # more ranges per discard than the device takes (QEMU's takes one)
    max_segments = int(g.output("cat /sys/block/vda/queue/max_discard_segments"))
    ranges = max_segments + 1
    status, out, _ = guest_fio(t, g, f"--name=ranges --rw=trim --bs={TRIM_BS} "
                               f"--offset={SEQ_TRIM_START} --size={SEQ_TRIM_SIZE} "
                               f"--num_range={ranges} {ENGINE}")
    t.expect(status != 0 and f"num_range={ranges} is more ranges than the disk takes" in out,
             f"num_range={ranges} was not refused up front:\n{errors(out)}")
