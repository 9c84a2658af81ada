# SPDX-License-Identifier: GPL-2.0
"""t/io_uring-vblk completes exactly the I/Os asked of it on both paths,
interrupt-driven and polled, reads and writes, and QMP's counters show the
device received each one (merging is off on the block path), flushes mixed
in with -f included; NOPs (-N, the floor) complete and reach nothing; it refuses a block device with -u1, a node with -u0
and polling without poll queues."""

from harness import workloads
from harness.vm import Disk
from tests.helpers import NODE_CLASS, expect_io_uring_vblk, io_uring_vblk

DESCRIPTION = "t/io_uring-vblk completes exactly the I/Os asked"
QUICK = True

IOS = 400


def test(t):
    g = t.guest([Disk(id="d0", backend="null", size=1 << 30)], vblk="poll_queues=1")
    g.output("echo 2 > /sys/block/vda/queue/nomerges")
    for dev in ("/dev/vdac0", "/dev/vda"):
        for polled in (0, 1):
            for write_pct, counter in ((0, "rd_operations"), (100, "wr_operations")):
                expect_io_uring_vblk(t, g, dev, counter, IOS, polled=polled, write_pct=write_pct,
                                     depth=8, ios=IOS, latency=True)

    # -f: a flush after every 4 writes, through each path
    for dev in ("/dev/vdac0", "/dev/vda"):
        before = {c: g.blockstats("d0")[c] for c in ("wr_operations", "flush_operations")}
        result = io_uring_vblk(g, dev, write_pct=100, flush_every=4, depth=8, ios=IOS)
        t.expect_equal((result["ios"], result["flushes"]), (IOS, IOS // 4), f"{dev} -f 4")
        moved = {c: g.blockstats("d0")[c] - before[c] for c in before}
        t.expect_equal(moved, {"wr_operations": IOS, "flush_operations": IOS // 4},
                       f"{dev} -f 4: what the device saw")

    # -N: the NOP floor runs the same loop and reaches no device
    for polled in (0, 1):
        before = g.blockstats("d0")
        result = io_uring_vblk(g, "/dev/vdac0", nop=True, polled=polled, depth=8, ios=IOS)
        t.expect_equal((result["ios"], result["errors"]), (IOS, 0), f"-N 1 -p{polled}: NOPs done")
        after = g.blockstats("d0")
        t.expect_equal([after[c] - before[c] for c in ("rd_operations", "wr_operations")], [0, 0],
                       f"-N 1 -p{polled}: what the device saw")

    # a path that is not the device's
    for dev, node, message in (("/dev/vda", True, "is a block device"),
                               ("/dev/vdac0", False, "is a character device"),
                               ("/dev/vdbc0", True, "no such node")):
        cmd = workloads.io_uring_vblk(dev, node=node, ios=1)
        status, out = g.run(cmd, check=False)
        t.expect(status != 0 and message in out, f"{cmd}: {status} {out!r}")
    # Neither blk-mq nor, in the direct mode, the node has a polled queue
    g.unload_vblk()
    g.load_vblk("poll_queues=0")
    g.output(f"echo 0 > {NODE_CLASS}/vdac0/direct_poll_queues")
    status, out = g.run(workloads.io_uring_vblk("/dev/vdac0", polled=1, ios=1), check=False)
    t.expect(status != 0 and "no poll queues" in out, f"polling without poll queues: {out!r}")
