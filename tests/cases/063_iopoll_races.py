"""Polling passthrough commands while the queue changes under them.

Two processes with IOPOLL rings at QD32 and a third ring reaped by two
threads at once all poll the same poll queue while the disk's scheduler
switches between none and mq-deadline every 0.2 s (each switch frees the
scheduler's requests); then the same loads run while the disk is unplugged.
Every load must finish with no error but the removal's ENODEV, and the
kernel must not complain (a poller that touches a request after its
completion freed it trips KASAN on the debug kernel, or dereferences a
recycled request's NULL hctx on either).

Then 50 times each: a load with SQPOLL and IOPOLL together is killed with
SIGKILL a fraction of a second after it starts, and the whole process (its
SQPOLL thread included) must be gone within 10 s: on the node with a poll
queue, on the block device, and on the node without poll queues
(virtio_blk reloaded with poll_queues=0), where every command completes by
interrupt and so through task work.  Without the io_uring/cancel fix the
last of these leaves a zombie behind a spinning SQPOLL thread on the first
kill; the iopoll that polled a freed request oopses in the first part
within seconds."""

import re

from vm import Disk

SWITCH_S = 20           # how long the scheduler switches go on
DRAIN_S = 30            # a load must be gone this long after its end or the unplug
KILLS = 50
GONE_S = 10             # a killed load must be gone this long after SIGKILL

LOADS = {
    "a": "io_uring-vblk -u1 -p1 -d 32 -w 50 -q -r {secs} /dev/vdbc0",
    "b": "io_uring-vblk -u1 -p1 -d 32 -w 50 -q -r {secs} /dev/vdbc0",
    "c": "vblk-pollers -d 32 -t 2 -r {secs} /dev/vdbc0",
}


def start_loads(g, secs):
    for name, cmd in LOADS.items():
        g.output(f"rm -f /tmp/{name}; ({cmd.format(secs=secs)} > /tmp/{name} 2>&1; "
                 f"echo exit=$? >> /tmp/{name}) &")


def wait_loads(g, t, what):
    """Wait for every load to finish; return their outputs by name."""
    outs = {}
    for name in LOADS:
        outs[name] = g.output(f"for i in $(seq {DRAIN_S * 10}); do grep -q exit= /tmp/{name} "
                              f"&& break; sleep 0.1; done; cat /tmp/{name}", timeout=DRAIN_S + 60)
        t.log(f"{what}, load {name}: {outs[name].strip()}")
        t.expect("exit=" in outs[name], f"{what}: load {name} did not finish:\n{outs[name]}")
    return outs


def kill_loop(g, cmd):
    """SIGKILL the load KILLS times; return the iteration that stayed, or ''.
    The fraction of a second runs from the load's exec: on a busy host the
    subshell may take longer than that to get there, and a kill before it
    would leave the load its whole run."""
    prog = cmd.split()[0]
    return g.output(
        f"for i in $(seq {KILLS}); do rm -f /tmp/k; ({cmd} > /dev/null 2>&1; echo x > /tmp/k) & "
        f"while ! pidof {prog} > /dev/null && [ ! -e /tmp/k ]; do sleep 0.01; done; "
        f"sleep 0.$((RANDOM % 5 + 1)); kill -9 $(pidof {prog}) 2>/dev/null; "
        f"n=0; while [ ! -e /tmp/k ] && [ $n -lt {GONE_S * 10} ]; do sleep 0.1; n=$((n + 1)); done; "
        f"[ -e /tmp/k ] || {{ echo stuck=$i; p=$(pidof {prog}); grep -E '^(State|SigPnd|ShdPnd)' "
        "/proc/$p/status; for s in /proc/$p/task/*; do echo \"$(cat $s/comm):\"; cat $s/stack; "
        "done; break; }; done", timeout=KILLS * (GONE_S + 5)).strip()


def killed(t, g, path, cmd):
    stuck = kill_loop(g, cmd)
    t.log(f"kill -9 of SQPOLL+IOPOLL loads on the {path}: {stuck or 'all gone'}")
    t.expect(not stuck, f"a killed SQPOLL+IOPOLL load on the {path} outlived SIGKILL "
                        f"by {GONE_S}s:\n{stuck}")


def test(t):
    g = t.guest([Disk(id="d0", size=16 << 20),
                 Disk(id="d1", backend="null", size=1 << 30)], vblk="poll_queues=1")

    start_loads(g, SWITCH_S)
    g.output(f"end=$(($(date +%s) + {SWITCH_S})); while [ $(date +%s) -lt $end ]; do "
             "echo mq-deadline > /sys/block/vdb/queue/scheduler; sleep 0.2; "
             "echo none > /sys/block/vdb/queue/scheduler; sleep 0.2; done",
             timeout=SWITCH_S + 60)
    for name, out in wait_loads(g, t, "scheduler switches").items():
        t.expect("exit=0" in out, f"scheduler switches: load {name} failed:\n{out}")

    for path, cmd in (("node", "io_uring-vblk -u1 -k1 -p1 -d 32 -w 50 -r 60 -q /dev/vdbc0"),
                      ("block device", "io_uring-vblk -u0 -k1 -p1 -d 32 -w 50 -r 60 -q /dev/vdb")):
        killed(t, g, path, cmd)

    start_loads(g, 600)
    g.output("sleep 2")
    g.unplug("d1")
    for name, out in wait_loads(g, t, "unplug").items():
        t.expect("res=-19 " in out or re.search(r"errors=0 enodev=[1-9]", out),
                 f"unplug: load {name} did not end on the removal's ENODEV alone:\n{out}")

    g.unload_vblk()
    g.load_vblk("poll_queues=0")
    killed(t, g, "node without poll queues", "vblk-pollers -S -t 1 -d 32 -r 60 /dev/vdac0")
