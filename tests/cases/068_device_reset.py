# SPDX-License-Identifier: GPL-2.0
"""A device reset with passthrough commands in flight.  A function-level
reset of the disk's PCIe function runs virtio-blk's reset_prepare and
reset_done, the same quiesce and restore as freeze and restore (the guest
kernel has no system sleep to drive those).  Idle, the data written through
the node before a reset is in the host's image and reads back after it.
Under load, with t/io_uring-vblk keeping 32 commands in flight on the node
(interrupt-driven and polled, plain and registered buffers), every command
completes and none fails, the load is still running after each reset, and
the node keeps its queues."""

from harness.vm import Disk
from harness.workloads import io_uring_vblk
from tests.helpers import NODE_CLASS, OK, vblk_cmd
from tests.pattern import image_matches

DEBUG_KERNEL = True
QUICK = True

MiB = 1 << 20
# polled completions, registered buffers
LOADS = ((False, False), (True, False), (False, True), (True, True))
RESETS = 3              # per load
SEED, SECTOR, LENGTH = 68, 2048, 64 << 10


def queues(g):
    return g.output(f"cat {NODE_CLASS}/vdac0/direct_queues {NODE_CLASS}/vdac0/direct_poll_queues").split()


def test(t):
    g = t.guest([Disk(id="d0", size=64 * MiB)], vblk="poll_queues=1", machine="q35")
    before = queues(g)

    t.expect_equal(vblk_cmd(g, f"-w -k {SEED} -s {SECTOR} -l {LENGTH}")[0], OK,
                   "a write before the reset")
    g.reset("vda")
    t.expect(image_matches(g.disks["d0"].image, SEED, SECTOR * 512, LENGTH),
             "the write before the reset is not in the host image")
    t.expect_equal(vblk_cmd(g, f"-k {SEED} -s {SECTOR} -l {LENGTH}"), (OK, "ok"),
                   "reading back after an idle reset")

    for polled, fixed in LOADS:
        load = f"polled {polled}, fixed {fixed}"
        cmd = io_uring_vblk("/dev/vdac0", depth=32, write_pct=50, polled=polled, fixed=fixed,
                            runtime=600, json_summary=True)
        g.output(f"({cmd} > /tmp/load 2>&1; echo exit=$? >> /tmp/load) &")
        g.output("for i in $(seq 100); do p=$(pidof io_uring-vblk) && "
                 "ls -l /proc/$p/fd | grep -q vdac0 && break; sleep 0.05; done; sleep 0.3")
        for n in range(RESETS):
            g.reset("vda")
            t.expect(g.run("pidof io_uring-vblk", check=False)[0] == 0,
                     f"{load}: the load ended before reset {n + 1} was done, so it did not "
                     "run across it; it printed:\n" + g.output("cat /tmp/load"))
        g.output("kill -INT $(pidof io_uring-vblk) 2>/dev/null; "
                 "for i in $(seq 300); do grep -q exit= /tmp/load && break; sleep 0.1; done")
        out = g.output("cat /tmp/load")
        t.log(f"{load}: {out.strip()}")
        t.expect("exit=0" in out and '"errors": 0' in out,
                 f"{load}: commands failed across {RESETS} resets:\n{out}")
        t.expect_equal(queues(g), before, f"{load}: the node's queues after the resets")

    t.expect_equal(vblk_cmd(g, f"-w -k {SEED + 1} -s 0 -l {LENGTH}")[0], OK,
                   "a write after the resets")
    t.expect(image_matches(g.disks["d0"].image, SEED + 1, 0, LENGTH),
             "the write after the resets is not in the host image")
