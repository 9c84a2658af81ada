# SPDX-License-Identifier: GPL-2.0
"""Background loads for the race tests: start them, let the queue change
under them, wait for their ends, and kill them to see that they go."""

import re

from harness import vm

SWITCH_S = 20           # how long scheduler switches go on
DRAIN_S = 30            # a load must be gone this long after its end or the unplug
# SIGKILLs of a load, each at a random fraction of a second after its start:
# a kill takes six times as long on the debug kernel (process start and exit
# under KASAN), and the cancel bugs these catch show at the first kill
KILLS = 12 if vm.VARIANT == "debug" else 50
GONE_S = 10             # a killed load must be gone this long after SIGKILL


def start_loads(g, loads, secs):
    """Start each command of loads ({name: command with {secs}}) in the
    background; its output and "exit=STATUS" go to /tmp/NAME."""
    for name, cmd in loads.items():
        g.output(f"rm -f /tmp/{name}; ({cmd.format(secs=secs)} > /tmp/{name} 2>&1; "
                 f"echo exit=$? >> /tmp/{name}) &")


def wait_loads(g, t, loads, what):
    """Wait for every load to finish; return their outputs by name."""
    outs = {}
    for name in loads:
        outs[name] = g.output(f"for i in $(seq {DRAIN_S * 10}); do grep -q exit= /tmp/{name} "
                              f"&& break; sleep 0.1; done; cat /tmp/{name}", timeout=DRAIN_S + 60)
        t.log(f"{what}, load {name}: {outs[name].strip()}")
        if "exit=" not in outs[name]:
            t.expect(False, f"{what}: load {name} did not finish:\n{outs[name]}"
                            f"{stacks(g, loads[name].split()[0])}")
    return outs


# a shell loop: each thread of process $p, its name, state and kernel stack
THREAD_STACKS = ("for s in /proc/$p/task/*; do echo \"$(cat $s/comm) $(grep State $s/status):\"; "
                 "cat $s/stack; done")


def stacks(g, prog):
    """Each thread of each process prog still running: its state and kernel stack."""
    return g.output(f"for p in $(pidof {prog}); do {THREAD_STACKS}; done; true")


def switch_schedulers(g, disk, secs=SWITCH_S):
    """Switch disk's scheduler between none and mq-deadline every 0.2 s for
    secs: each switch frees the scheduler's requests."""
    g.output(f"end=$(($(date +%s) + {secs})); while [ $(date +%s) -lt $end ]; do "
             f"echo mq-deadline > /sys/block/{disk}/queue/scheduler; sleep 0.2; "
             f"echo none > /sys/block/{disk}/queue/scheduler; sleep 0.2; done",
             timeout=secs + 60)


def loads_under_switches(t, g, loads, disk, secs=SWITCH_S):
    """Run loads while disk's scheduler switches for secs; each must end
    with 0."""
    start_loads(g, loads, secs)
    switch_schedulers(g, disk, secs)
    for name, out in wait_loads(g, t, loads, "scheduler switches").items():
        t.expect("exit=0" in out, f"scheduler switches: load {name} failed:\n{out}")


def unplug_under_loads(t, g, loads, disk, disk_id, switch_secs=SWITCH_S // 2):
    """Start loads, switch disk's scheduler under them for switch_secs, then
    hot-unplug it (QMP id disk_id) while they run: each must end on the
    removal's ENODEV and no other error (t/io_uring-vblk stops at its first
    error, vblk-pollers counts them)."""
    start_loads(g, loads, 600)
    switch_schedulers(g, disk, switch_secs)
    g.unplug(disk_id)
    for name, out in wait_loads(g, t, loads, "unplug").items():
        t.expect("res=-19 " in out or re.search(r"errors=0 enodev=[1-9]", out),
                 f"unplug: load {name} did not end on the removal's ENODEV alone:\n{out}")


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
        f"[ -e /tmp/k ] || {{ echo stuck=$i; p=$(pidof {prog}); grep -E '^(SigPnd|ShdPnd)' "
        f"/proc/$p/status; {THREAD_STACKS}; break; }}; done", timeout=KILLS * (GONE_S + 5)).strip()


def killed(t, g, path, cmd):
    """The load cmd on path, killed KILLS times, must be gone each time."""
    stuck = kill_loop(g, cmd)
    t.log(f"kill -9 of SQPOLL+IOPOLL loads on the {path}: {stuck or 'all gone'}")
    t.expect(not stuck, f"a killed SQPOLL+IOPOLL load on the {path} outlived SIGKILL "
                        f"by {GONE_S}s:\n{stuck}")
