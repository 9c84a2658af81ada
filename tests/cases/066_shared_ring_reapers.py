# SPDX-License-Identifier: GPL-2.0
"""An IOPOLL ring whose submitter is not its reaper.

vblk-pollers: one IOPOLL ring that its main thread submits to and two
other threads reap, each waiting in io_uring_enter() for at least one
completion and taking the ring's completions under the lock the submitter
holds; at QD32, random 4 KiB reads and writes, for SECS.  With a poll
queue, two t/io_uring-vblk loads poll the same queue beside it, each one
thread with its own IOPOLL ring (pinned to CPU 0 and CPU 1), so that they
find its completions too.  Without poll queues (the driver loaded with
poll_queues=0) it runs alone: every command completes by interrupt.  Each
load must finish within DRAIN_S of its end, without an error.  On the
virtio-blk node, on NVMe's char node and on the block device (O_DIRECT
reads and writes).

A passthrough command that another ring's poller found, or that completed
by interrupt, completes through task work of the task that issued it,
which takes the ring's uring_lock; a reaper that polls with that lock held
and finds nothing must let it have it.  Before the io_uring fix the ring
shared by three threads stopped within seconds on both nodes and never
moved again: its submitter in D state in tctx_task_work_run() ->
mutex_lock(), a reaper spinning in io_do_iopoll().  The block device's
reads and writes complete by a flag that any poller sets, so it never
stopped.

Then, with a poll queue, on the nodes, the same loads run until the disk is
hot-unplugged under them: each must end on the removal's ENODEV alone (on
the debug kernel, where the stopped load was first seen to outlive the
unplug in D state)."""

from harness.vm import Disk, Nvme
from harness.workloads import io_uring_vblk
from tests.loads import start_loads, unplug_under_loads, wait_loads

DEBUG_KERNEL = True
SECS = 15
CONDITIONS = {"path": ("node", "NVMe's node", "block device"), "poll_queues": (1, 0)}
DEBUG_CONDITIONS = {"path": ("node", "NVMe's node"), "poll_queues": (1, 0)}
DEVICE = {"node": "/dev/vdbc0", "NVMe's node": "/dev/ng0n1", "block device": "/dev/vdb"}
DISK = {"node": ("vdb", "d1"), "NVMe's node": ("nvme0n1", "n0")}


def loads(dev, polled):
    """vblk-pollers; with a poll queue, two IOPOLL rings polling it beside."""
    shared = {"c": f"vblk-pollers -d 32 -t 3 -r {{secs}} {dev}"}
    if not polled:
        return shared
    ring = {"polled": 1, "depth": 32, "write_pct": 50, "quiet": True, "runtime": "{secs}"}
    return {"a": io_uring_vblk(dev, cpu=0, **ring), "b": io_uring_vblk(dev, cpu=1, **ring),
            **shared}


def test(t, cond):
    path, polled = cond["path"], cond["poll_queues"]
    dev = DEVICE[path]
    if path == "block device" and not polled:
        t.skip("IOPOLL reads and writes need a poll queue (EOPNOTSUPP without)")
    if path == "NVMe's node":
        g = t.guest([Nvme(backend="null", size=1 << 30)], vblk=None, hotplug=True)
        g.load_nvme(f"poll_queues={polled}")
    else:
        g = t.guest([Disk(id="d0", size=16 << 20),
                     Disk(id="d1", backend="null", size=1 << 30)],
                    vblk=f"poll_queues={polled}", hotplug=True)
    work = loads(dev, polled)

    start_loads(g, work, SECS)
    outs = wait_loads(g, t, work, f"{SECS} s on {dev}")
    for name, out in outs.items():
        t.expect("exit=0" in out, f"load {name} on {dev} failed:\n{out}")

    if polled and path in DISK:
        unplug_under_loads(t, g, work, *DISK[path])
