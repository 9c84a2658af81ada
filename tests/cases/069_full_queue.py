# SPDX-License-Identifier: GPL-2.0
"""A queue the load overfills makes the submitter wait, never fails a
command: on a disk with 16-entry virtqueues, t/io_uring-vblk keeps 64 I/Os
in flight on the node and on the block device, reads and writes, plain and
registered buffers, from one ring, from an SQPOLL thread (whose
non-blocking issue io_uring retries from a worker) and from two rings
sharing the queue.  Every I/O must complete without an error, and QMP's
counters must show the device received each one exactly once.  In direct
mode a command takes three descriptors, so five fit in the node's ring;
through blk-mq the tags stop at 16."""

from harness.vm import Disk
from tests.helpers import expect_io_uring_vblk

DESCRIPTION = "a full virtqueue makes the submitter wait, never fail"
DEBUG_KERNEL = True
QUICK = True
TIMEOUT = 600
CONDITIONS = {"completion": ("irq", "polled")}

QUEUE_SIZE = 16
DEPTH = 64
IOS = 1000                  # per ring
# (t/io_uring-vblk options, rings): each of them, its own way into a full queue
SUBMITTERS = (({}, 1), ({"fixed": True}, 1), ({"sqpoll": True}, 1), ({"threads": 2}, 2))


def test(t, cond):
    polled = int(cond["completion"] == "polled")
    g = t.guest([Disk(id="d0", backend="null", size=1 << 30, iothread=True,
                      queue_size=QUEUE_SIZE)], vblk="poll_queues=1")
    g.output("echo 2 > /sys/block/vda/queue/nomerges")
    segments = int(g.output("cat /sys/block/vda/queue/max_segments"))
    t.log(f"max_segments {segments}")
    t.expect(segments <= QUEUE_SIZE - 2, f"max_segments {segments}: not capped by the ring")

    for dev in ("/dev/vdac0", "/dev/vda"):
        for write_pct, counter in ((0, "rd_operations"), (100, "wr_operations")):
            for options, rings in SUBMITTERS:
                expect_io_uring_vblk(t, g, dev, counter, rings * IOS, polled=polled,
                                     write_pct=write_pct, depth=DEPTH, ios=IOS, **options)
