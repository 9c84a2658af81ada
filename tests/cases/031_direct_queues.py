# SPDX-License-Identifier: GPL-2.0
"""The direct mode is set per disk, through the node's direct_queues and
direct_poll_queues: the node takes that many of its device's virtqueues,
blk-mq keeps the rest (the driver's report, the disk's hardware contexts)
and the other disk is left alone.  The block device's writes in flight
across each change land in the host's image; the node does I/O in every
split; and a change is refused while the node is open (EBUSY), above the
device's virtqueues or more polled than the node has (EINVAL)."""

from harness.vm import Disk
from harness.workloads import io_uring_vblk
from tests.helpers import NODE_CLASS
from tests.pattern import image_matches

DESCRIPTION = "direct_queues and direct_poll_queues split one disk's virtqueues"
QUICK = True

# It sets the node's queues itself, whatever the mode
NODE_MODES = ("blkmq",)
QUEUES = 4   # vda's num-queues
CPUS = 2     # blk-mq uses at most one queue per CPU
MiB = 1 << 20
WRITE = (8 * MiB, 32 * MiB, 31)   # the block device's writes: offset, length, seed

# direct_queues, direct_poll_queues -> blk-mq's default and poll queues
SPLITS = (
    ((2, 1), (1, 1)),
    ((3, 0), (1, 0)),   # blk-mq is left one queue, and no poll queue
    ((1, 1), (1, 1)),
    ((0, 0), (1, 1)),   # back to blk-mq
)


def attrs(g, node):
    return g.output(f"cd {NODE_CLASS}/{node} && cat mode direct_queues direct_poll_queues").split()


def set_split(g, own, own_poll):
    """Write both attributes; return the shell's status and its errors."""
    return g.run(f"cd {NODE_CLASS}/vdac0 && echo {own} > direct_queues && "
                 f"echo {own_poll} > direct_poll_queues", check=False)


def test(t):
    disk = Disk(id="d0", size=64 * MiB, num_queues=QUEUES)
    g = t.guest([disk, Disk(id="d1", size=16 * MiB)], vblk=None, cpus=CPUS)
    g.load_vblk("poll_queues=1", direct=False)
    other = attrs(g, "vdbc0"), g.output("ls /sys/block/vdb/mq | wc -l")
    t.expect_equal(attrs(g, "vdac0"), ["blk-mq", "0", "0"], "a node's queues by default")

    offset, length, seed = WRITE
    writer = g.output(f"vblk-io -b 4096 write /dev/vda {offset} {length} {seed} "
                      "> /tmp/writer.log 2>&1 & echo $!").strip()
    for (own, own_poll), (default, poll) in SPLITS:
        what = f"direct_queues={own} direct_poll_queues={own_poll}"
        g.output("dmesg -c > /dev/null")
        status, out = set_split(g, own, own_poll)
        t.expect(status == 0, f"{what}: refused: {out!r}")
        report = g.output("dmesg")
        t.expect(f" {default}/0/{poll} default/read/poll queues" in report,
                 f"{what}: blk-mq's queues, driver reported {report.strip()!r}")
        t.expect_equal(attrs(g, "vdac0"), ["direct" if own else "blk-mq", str(own), str(own_poll)],
                       f"{what}: the node's attributes")
        t.expect_equal(int(g.output("ls /sys/block/vda/mq | wc -l")), default + poll,
                       f"{what}: hardware contexts")
        t.expect_equal((attrs(g, "vdbc0"), g.output("ls /sys/block/vdb/mq | wc -l")), other,
                       f"{what}: the other disk")
        polled = bool(own_poll or (not own and poll))
        g.output(io_uring_vblk("/dev/vdac0", polled=polled, depth=4, ios=256, quiet=True))
    running = g.run(f"kill -0 {writer}", check=False)[0] == 0
    t.log(f"the block device's writer was {'still' if running else 'no longer'} "
          "running after the last change")
    g.output(f"wait {writer} 2>/dev/null; while kill -0 {writer} 2>/dev/null; do sleep 0.1; done; "
             "cat /tmp/writer.log")
    t.expect(image_matches(disk.image, seed, offset, length),
             "the block device's writes across the changes are not in the host image")

    # Refusals, each leaving the node as it was
    for what, command, error in (
            ("while the node is open", "exec 3< /dev/vdac0; echo 1 > direct_queues",
             "Device or resource busy"),
            ("all the device's virtqueues", f"echo {QUEUES} > direct_queues", "Invalid argument"),
            ("more polled than its queues", "echo 1 > direct_queues && echo 2 > direct_poll_queues",
             "Invalid argument"),
            ("not a number", "echo two > direct_queues", "Invalid argument")):
        status, out = g.run(f"cd {NODE_CLASS}/vdac0 && {command}", check=False)
        t.expect(status != 0 and error in out, f"{what}: {status} {out!r}")
    t.expect_equal(attrs(g, "vdac0"), ["direct", "1", "0"], "the node after the refusals")
