# SPDX-License-Identifier: GPL-2.0
"""A command waiting for room on a full polled queue can be killed, and
is not stuck behind a poller that stopped.

One virtqueue for the node's polled commands, 16 entries deep: a load of
16 polled reads fills it and is stopped with SIGSTOP, so nobody polls its
completions; a second polled load on the same queue must wait for room.
SIGKILL must end the second load within 10 s, and the first too once it is
continued and killed.  The direct mode waits for a free command itself,
killably, and polls the queue meanwhile.  The blk-mq mode is not run: its
io-wq workers wait for a tag in blk_mq_get_tag(), uninterruptibly and
with nobody polling, as the block device's do (seen as a zombie after
SIGKILL in one try of one here)."""

from harness.vm import Disk
from harness.workloads import io_uring_vblk

DEBUG_KERNEL = True
NODE_MODES = ("direct",)
QUICK = True
GONE_S = 10


def start(g, name, cmd):
    """Start cmd in the background; return its PID.  /tmp/NAME appears once
    it is reaped, every thread of it gone."""
    return g.output(f"rm -f /tmp/{name}; ({cmd} > /dev/null 2>&1 & echo $! > /tmp/{name}.pid; "
                    f"wait; touch /tmp/{name}) & "
                    f"while [ ! -s /tmp/{name}.pid ]; do sleep 0.1; done; cat /tmp/{name}.pid").strip()


def gone(g, name, pid):
    """'gone' once /tmp/NAME appears within GONE_S, else what pid is doing."""
    return g.output(f"for i in $(seq {GONE_S * 10}); do [ -e /tmp/{name} ] && "
                    f"{{ echo gone; exit 0; }}; sleep 0.1; done; "
                    f"grep State /proc/{pid}/status; for s in /proc/{pid}/task/*; do "
                    "echo \"$(cat $s/comm):\"; cat $s/stack; done").strip()


def test(t):
    g = t.guest([Disk(id="d0", backend="null", size=1 << 30, queue_size=16)])
    g.set_direct("vdac0", 1, 1)
    load = io_uring_vblk("/dev/vdac0", polled=True, depth=16, cpu=0, runtime=60, quiet=True)
    first = start(g, "first", load)
    g.output(f"sleep 2; kill -STOP {first}")
    second = start(g, "second", load)
    g.output(f"sleep 2; kill -9 {second}")
    out = gone(g, "second", second)
    t.log(f"second load after SIGKILL: {out}")
    t.expect(out == "gone", f"SIGKILL did not end a load waiting for room:\n{out}")
    g.output(f"kill -CONT {first}; kill -9 {first}")
    out = gone(g, "first", first)
    t.log(f"first load after SIGCONT and SIGKILL: {out}")
    t.expect(out == "gone", f"SIGKILL did not end the stopped poller:\n{out}")
