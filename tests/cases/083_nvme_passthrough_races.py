# SPDX-License-Identifier: GPL-2.0
"""NVMe's generic char node under the races test 063 puts the virtio-blk
node through: the fixes this series makes to io_uring and NVMe, reproduced
without virtio-blk, as their maintainers would run them.

Two processes with IOPOLL rings at QD32, a third with two rings at QD16
and a fourth with four rings at QD4, one per CPU in turn, all on
/dev/ng0n1's one poll queue, while the namespace's scheduler switches
between none and mq-deadline every 0.2 s (each switch frees the
scheduler's requests, which passthrough requests are allocated from).  A
ring's poller completes another ring's commands through task work; until
that runs, the other ring keeps polling them.  Every load must end without
an error and the kernel must not complain.  NVMe's iopoll that looked at
the command's request, freed by then, polled a NULL hardware queue within
seconds on the debug kernel (nvme_poll() <- blk_hctx_poll() <-
blk_rq_poll() <- io_do_iopoll()).

Then, with the driver reloaded without poll queues, a load with SQPOLL and
IOPOLL on /dev/ng0n1 is killed with SIGKILL 50 times (12 on the debug
kernel), a fraction of a second after it starts, and must be gone within
10 s each time: every command completes by interrupt and so through task
work, which the exiting task's IOPOLL cancel must run (io_uring/cancel).

Last, with a poll queue again, two IOPOLL processes and a ring that two
threads reap run while the scheduler switches, and the controller is
unplugged under them: each must end on the removal's ENODEV alone (the
load that test 063 saw stay in D state on the virtio-blk node).  Before
that, the controller is reset three times under the same loads, each
time with another number of poll queues, which remaps the hardware queues
that the pollers recorded at issue: the loads must end, by their errors or
SIGTERM, and the kernel must not complain.

A second guest puts a multipath head in front of the namespace
(nvme_core.multipath_always_on=1): its char node does not hold the path,
so a polled command issued through it must hold the path's namespace
until it is done.  The controller is unplugged under polled loads on the
head's /dev/ng0n1; they must end and the kernel must not complain."""

from harness.vm import Nvme
from harness.workloads import io_uring_vblk
from tests.loads import killed, loads_under_switches, start_loads, unplug_under_loads, wait_loads

DEBUG_KERNEL = True
NODE_MODES = ("blkmq",)     # NVMe's node alone: the virtio-blk node's mode is not used

NG = "/dev/ng0n1"
# a load until {secs} is filled in
LOAD = {"quiet": True, "runtime": "{secs}"}
LOADS = {
    "a": io_uring_vblk(NG, polled=1, depth=32, write_pct=50, **LOAD),
    "b": io_uring_vblk(NG, polled=1, depth=32, write_pct=50, **LOAD),
    "c": io_uring_vblk(NG, polled=1, threads=2, depth=16, write_pct=50, **LOAD),
    "d": io_uring_vblk(NG, polled=1, threads=4, cpu=0, depth=4, **LOAD),
}
# two processes and a ring that two threads reap, as test 063 unplugs them
UNPLUG_LOADS = {
    "a": LOADS["a"],
    "b": LOADS["b"],
    "c": "vblk-pollers -d 32 -t 2 -r {secs} /dev/ng0n1",
}
# on a multipath head's char node, which may offer no poll queues of its own
HEAD_LOADS = {
    "a": io_uring_vblk(NG, polled=2, depth=32, write_pct=50, **LOAD),
    "b": io_uring_vblk(NG, polled=2, threads=2, depth=8, **LOAD),
    "c": "vblk-pollers -d 16 -t 2 -r {secs} /dev/ng0n1",
}


def test(t):
    g = t.guest([Nvme(backend="null", size=1 << 30)], vblk=None, hotplug=True)
    g.load_nvme("poll_queues=1")
    loads_under_switches(t, g, LOADS, "nvme0n1")

    g.output("modprobe -r nvme")
    g.load_nvme("poll_queues=0")
    killed(t, g, "NVMe char node without poll queues",
           io_uring_vblk(NG, sqpoll=True, polled=2, depth=32, write_pct=50, runtime=60,
                         quiet=True))

    g.output("modprobe -r nvme")
    g.load_nvme("poll_queues=1")
    start_loads(g, UNPLUG_LOADS, 600)
    for n in (2, 0, 1):
        g.output(f"sleep 2; echo {n} > /sys/module/nvme/parameters/poll_queues; "
                 "echo 1 > /sys/class/nvme/nvme0/reset_controller")
    g.output("sleep 2; kill -TERM $(pidof io_uring-vblk vblk-pollers) 2>/dev/null; true")
    wait_loads(g, t, UNPLUG_LOADS, "queue remaps")

    unplug_under_loads(t, g, UNPLUG_LOADS, "nvme0n1", "n0")

    g = t.guest([Nvme(backend="null", size=1 << 30)], vblk=None, hotplug=True)
    g.output("modprobe nvme_core multipath_always_on=1")
    g.load_nvme("poll_queues=1")
    paths = g.output("ls -d /sys/block/nvme0c*n1 2>/dev/null; true").split()
    t.expect(paths, "no multipath head in front of the namespace")
    start_loads(g, HEAD_LOADS, 600)
    g.output("sleep 3")
    g.unplug("n0")
    wait_loads(g, t, HEAD_LOADS, "unplug under the head")
