# SPDX-License-Identifier: GPL-2.0
"""virtio_blk loads with passthrough_queues=N and passthrough_poll_queues=M:
the node owns N of the device's virtqueues, M of them polled, and blk-mq
keeps the rest (the driver's report, the node's sysfs attributes and the
disk's hardware contexts); a device with too few virtqueues keeps them all
for blk-mq and says why.  The node still does I/O in every split."""

from helpers import NODE_CLASS
from vm import Disk

QUICK = True

# It sets the queue parameters itself, whatever the mode
NODE_MODES = ("blkmq",)
QUEUES = 4   # the device's num-queues
CPUS = 2     # blk-mq uses at most one queue per CPU

# passthrough_queues, passthrough_poll_queues, poll_queues:
# the node's queues, polled ones, and blk-mq's default/poll split
CASES = (
    ((0, 0, 1), (0, 0), (1, 1)),
    ((2, 1, 1), (2, 1), (1, 1)),
    ((3, 0, 1), (3, 0), (1, 0)),    # blk-mq is left one queue, no poll queue
    ((1, 5, 0), (1, 1), (2, 0)),    # no more polled than the node has
    ((4, 0, 1), (0, 0), (1, 1)),    # none left for blk-mq: the node takes none
)


def test(t):
    g = t.guest([Disk(size=16 << 20, num_queues=QUEUES)], vblk=None, cpus=CPUS)
    node = f"{NODE_CLASS}/vdac0"
    for (pt, pt_poll, poll), (own, own_poll), (default, blk_poll) in CASES:
        what = f"passthrough_queues={pt} passthrough_poll_queues={pt_poll} poll_queues={poll}"
        g.output("dmesg -c > /dev/null")
        g.output(f"modprobe virtio_blk {what}")
        report = g.output("dmesg")
        t.expect(f" {default}/0/{blk_poll} default/read/poll queues" in report,
                 f"{what}: blk-mq's queues, driver reported {report.strip()!r}")
        t.expect_equal((" passthrough queues, " in report), bool(own), f"{what}: node's queues reported")
        if own:
            t.expect(f" {own} passthrough queues, {own_poll} of them polled" in report,
                     f"{what}: driver reported {report.strip()!r}")
        t.expect_equal(("too few for" in report), pt > 0 and not own, f"{what}: why none")
        t.expect_equal(g.output(f"cat {node}/queues {node}/poll_queues").split(),
                       [str(own), str(own_poll)], f"{what}: node's sysfs")
        hctxs = int(g.output("ls /sys/block/vda/mq | wc -l"))
        t.expect_equal(hctxs, default + blk_poll, f"{what}: hardware contexts")
        g.output("io_uring-vblk -u1 -d 4 -w 50 -I 256 -q /dev/vdac0")
        g.output("modprobe -r virtio_blk && test ! -e /dev/vda")
