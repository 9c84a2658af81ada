# SPDX-License-Identifier: GPL-2.0
"""Polling passthrough commands while the queue changes under them.

Two processes with IOPOLL rings at QD32 and a third ring reaped by two
threads at once all poll the same poll queue while the disk's scheduler
switches between none and mq-deadline every 0.2 s (each switch frees the
scheduler's requests); then the same loads run while the scheduler
switches again, and the disk is unplugged under them.
Every load must finish with no error but the removal's ENODEV, and the
kernel must not complain (a poller that touches a request after its
completion freed it trips KASAN on the debug kernel, or dereferences a
recycled request's NULL hctx on either).

Then 50 times each (12 on the debug kernel): a load with SQPOLL and IOPOLL
together is killed with SIGKILL a fraction of a second after it starts,
and the whole process (its SQPOLL thread included) must be gone within 10
s: on the node with a poll queue, on the block device, and on the node
without poll queues (virtio_blk reloaded with poll_queues=0), where every
command completes by interrupt and so through task work.  Without the
io_uring/cancel fix the last of these leaves a zombie behind a spinning
SQPOLL thread on the first kill; the iopoll that polled a freed request
oopses in the first part within seconds."""

from harness.vm import Disk
from harness.workloads import io_uring_vblk
from tests.loads import killed, loads_under_switches, unplug_under_loads

DEBUG_KERNEL = True
POLLED = {"polled": 1, "depth": 32, "write_pct": 50}
LOADS = {
    "a": io_uring_vblk("/dev/vdbc0", **POLLED, quiet=True, runtime="{secs}"),
    "b": io_uring_vblk("/dev/vdbc0", **POLLED, quiet=True, runtime="{secs}"),
    "c": "vblk-pollers -d 32 -t 2 -r {secs} /dev/vdbc0",
}


def test(t):
    g = t.guest([Disk(id="d0", size=16 << 20),
                 Disk(id="d1", backend="null", size=1 << 30)], vblk="poll_queues=1",
                hotplug=True)

    loads_under_switches(t, g, LOADS, "vdb")

    for path, dev in (("node", "/dev/vdbc0"), ("block device", "/dev/vdb")):
        killed(t, g, path, io_uring_vblk(dev, sqpoll=True, **POLLED, runtime=60, quiet=True))

    unplug_under_loads(t, g, LOADS, "vdb", "d1")

    g.unload_vblk()
    g.load_vblk("poll_queues=0")
    killed(t, g, "node without poll queues", "vblk-pollers -S -t 1 -d 32 -r 60 /dev/vdac0")
