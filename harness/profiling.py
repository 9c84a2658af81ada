# SPDX-License-Identifier: GPL-2.0
"""make profile's runs: the boots that count instructions per I/O, and the
counts they leave (tools/profile.py reports them, tools/annotate.py
annotates them).

A run is two windows of t/io_uring-vblk's loop on one path (each path of
PATHS on the guest of guest_setup), of N and 2N I/Os (NOPs: NOP_N), marked
for tools/insn-plugin.c; fio's runs (fio_profile) follow.
"""

import json
import os
import time

from . import fio_profile, guest_setup, vm
from .insns import Symbols, read_windows
from .workloads import io_uring_vblk, is_node

OPS = (("read", 0), ("write", 100))
DEPTHS = (1, 32)
MODES = ("irq", "polled")
BUFFERS = (("plain", 0), ("fixed", 1))


def device_of(path):
    """A path's device; "nop" is the node's loop with IORING_OP_NOP;
    NAME-best is NAME at its best (guest_setup.BEST)."""
    return guest_setup.device_of("node" if path == "nop" else path)


# each path of make profile and its device
PATHS = tuple((path, device_of(path))
              for path in ("node", "node-best", "direct", "block", "block-best", "nop",
                           "ng", "ng-best", "nvme", "nvme-best"))
# each experiment of experiments/ (make experiment): the paths its kernel
# is measured on, the bars of the layer picture
EXPERIMENTS = {"blkdev-uring-rw": tuple(
    (path, device_of(path)) for path in ("block", "block-best", "blkcmd-best", "node", "node-best",
                                         "direct", "ng-best", "nvme-best", "nvmecmd-best"))}
YARDSTICK = ("ng", "nvme")              # NVMe's passthrough and its block device
CPU = 1                 # the load's vCPU; its queue's interrupt lands there
N = 2000                # I/Os of the shorter window of a run (NOPs: NOP_N)
NOP_N = 10 * N          # a NOP costs a tenth of an I/O: as many instructions
BOOT_NAME = "profile-{}"  # boot number N's guest, and its directory in build/guests


def points(quick, fixed=False, paths=dict(PATHS)):
    """(op, depth, mode, buffers, path) of the paths asked: the NOP floor
    once per depth and mode; quick: reads, with plain buffers unless fixed."""
    for op, _ in OPS[:1] if quick else OPS:
        for depth in DEPTHS:
            for mode in MODES:
                for bufs, _ in BUFFERS[:1] if quick and not fixed else BUFFERS:
                    for path in paths:
                        if path == "nop" and (op, bufs) != (OPS[0][0], BUFFERS[0][0]):
                            continue
                        yield op, depth, mode, bufs, path


def window_ios(point):
    """The I/Os of a run's shorter window; the longer has twice as many."""
    return NOP_N if point[4] == "nop" else N


def command(point, ios):
    """A run's window: ios I/Os of t/io_uring-vblk's loop, marked (-W1)."""
    op, depth, mode, bufs, path = point
    device = device_of(path)
    return guest_setup.at_best(path, io_uring_vblk(
        device, node=guest_setup.PATH_MODE.get(guest_setup.BEST.get(path, path), is_node(device)),
        nop=path == "nop", depth=depth, write_pct=dict(OPS)[op],
        polled=mode == "polled", fixed=dict(BUFFERS)[bufs], regfiles=path in guest_setup.BEST,
        ios=ios, cpu=CPU, window=True, quiet=True, json_summary=True))


def run_boot(boot, quick, fixed, repeats, paths, kernel=vm.KERNEL, initrd=vm.INITRD,
             system_map=vm.SYSTEM_MAP):
    """Boot number boot: run every point of the paths repeats times
    (alternating the points), then, unless quick or some paths only,
    fio's (fio_profile); leave insns.txt, the module symbols and
    the runs' points in the guest's directory, boot_dir(boot), which is
    returned.  NVMe's paths alone need nothing of virtio_blk: a tree
    without the node (a patch of the series before it) measures them, its
    kernel, initramfs and System.map given."""
    runs, fio_runs, started = [], [], time.monotonic()
    with guest_setup.boot(BOOT_NAME.format(boot), count_insns=True, kernel=kernel,
                          initrd=initrd) as guest:
        if set(paths) <= set(YARDSTICK):
            guest.load_nvme(guest_setup.NVME_PARAMS)
        else:
            guest_setup.load(guest)
        guest.output("for d in vda vdb nvme0n1; do [ ! -e /sys/block/$d ] || "
                     "echo none > /sys/block/$d/queue/scheduler; done")
        modules = guest.output("grep '\\[' /proc/kallsyms")
        for _ in range(repeats):
            for point in points(quick, fixed, paths):
                n = window_ios(point)
                for ios in (n, 2 * n):
                    guest.output(command(point, ios))
                runs.append(point)
        for _ in range(0 if quick or set(paths) != set(dict(PATHS)) else fio_profile.REPEATS):
            for point in fio_profile.points():
                for ios in (fio_profile.N, 2 * fio_profile.N):
                    guest.output(fio_profile.command(point, ios, CPU), timeout=600)
                fio_runs.append(point)
        with open(os.path.join(guest.dir, "modules.txt"), "w") as f:
            f.write(modules)
        with open(os.path.join(guest.dir, "runs.json"), "w") as f:
            json.dump({"runs": runs, "fio": fio_runs, "system_map": system_map,
                       "seconds": time.monotonic() - started}, f)
        return guest.dir


def boot_dir(boot):
    """Where boot number boot of a make profile leaves its counts."""
    return os.path.join(vm.GUESTS, BOOT_NAME.format(boot))


def boot_kobj(directory):
    """The kernel objects of the kernel that boot directory ran (its
    System.map's directory)."""
    with open(os.path.join(directory, "runs.json")) as f:
        return os.path.dirname(json.load(f).get("system_map", vm.SYSTEM_MAP))


def read_boot(directory):
    """A boot's windows (two per run, fio's runs last), their blocks'
    instruction sizes, the kernel's symbols, the runs' points, fio's runs'
    points and the seconds the boot took."""
    windows, sizes = read_windows(os.path.join(directory, "insns.txt"))
    with open(os.path.join(directory, "runs.json")) as f:
        done = json.load(f)
    with open(done.get("system_map", vm.SYSTEM_MAP)) as f, \
            open(os.path.join(directory, "modules.txt")) as g:
        symbols = Symbols(f.read(), g.read())
    runs = [tuple(p) for p in done["runs"]]
    fio_runs = [tuple(p) for p in done.get("fio", [])]
    if len(windows) != 2 * (len(runs) + len(fio_runs)):
        raise SystemExit(f"{directory}: {len(windows)} windows for "
                         f"{len(runs) + len(fio_runs)} runs")
    return windows, sizes, symbols, runs, fio_runs, done["seconds"]
