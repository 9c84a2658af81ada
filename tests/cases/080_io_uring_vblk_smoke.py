# SPDX-License-Identifier: GPL-2.0
"""t/io_uring-vblk completes exactly the I/Os asked of it on both paths,
interrupt-driven and polled, reads and writes, and QMP's counters show the
device received each one (merging is off on the block path), flushes mixed
in with -f included; NOPs (-N, the floor) complete and reach nothing; it refuses a block device with -u1, a node with -u0
and polling without poll queues."""

from helpers import NODE_CLASS, expect_io_uring_vblk, io_uring_vblk
from vm import Disk

DESCRIPTION = "t/io_uring-vblk completes exactly the I/Os asked"
QUICK = True

IOS = 400


def test(t):
    g = t.guest([Disk(id="d0", backend="null", size=1 << 30)], vblk="poll_queues=1")
    g.output("echo 2 > /sys/block/vda/queue/nomerges")
    for passthrough, dev in ((1, "/dev/vdac0"), (0, "/dev/vda")):
        for polled in (0, 1):
            for write_pct, counter in ((0, "rd_operations"), (100, "wr_operations")):
                expect_io_uring_vblk(t, g, f"-u{passthrough} -p{polled} -w{write_pct} "
                                     f"-d 8 -I {IOS} -t 1 {dev}", counter, IOS)

    # -f: a flush after every 4 writes, through each path
    for passthrough, dev in ((1, "/dev/vdac0"), (0, "/dev/vda")):
        before = {c: g.blockstats("d0")[c] for c in ("wr_operations", "flush_operations")}
        result = io_uring_vblk(g, f"-u{passthrough} -w 100 -f 4 -d 8 -I {IOS} {dev}")
        t.expect_equal((result["ios"], result["flushes"]), (IOS, IOS // 4), f"-u{passthrough} -f 4")
        moved = {c: g.blockstats("d0")[c] - before[c] for c in before}
        t.expect_equal(moved, {"wr_operations": IOS, "flush_operations": IOS // 4},
                       f"-u{passthrough} -f 4: what the device saw")

    # -N: the NOP floor runs the same loop and reaches no device
    for polled in (0, 1):
        before = g.blockstats("d0")
        result = io_uring_vblk(g, f"-u1 -N 1 -p{polled} -d 8 -I {IOS} /dev/vdac0")
        t.expect_equal((result["ios"], result["errors"]), (IOS, 0), f"-N 1 -p{polled}: NOPs done")
        after = g.blockstats("d0")
        t.expect_equal([after[c] - before[c] for c in ("rd_operations", "wr_operations")], [0, 0],
                       f"-N 1 -p{polled}: what the device saw")

    for args, message in (("-u1 /dev/vda", "is a block device"),
                          ("-u0 /dev/vdac0", "is a character device"),
                          ("-u1 /dev/vdbc0", "no such node")):
        status, out = g.run(f"io_uring-vblk -I 1 {args}", check=False)
        t.expect(status != 0 and message in out, f"io_uring-vblk {args}: {status} {out!r}")
    # Neither blk-mq nor, in the direct mode, the node has a polled queue
    g.unload_vblk()
    g.load_vblk("poll_queues=0")
    g.output(f"echo 0 > {NODE_CLASS}/vdac0/direct_poll_queues")
    status, out = g.run("io_uring-vblk -u1 -p1 -I 1 /dev/vdac0", check=False)
    t.expect(status != 0 and "no poll queues" in out, f"polling without poll queues: {out!r}")
