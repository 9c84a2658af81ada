# SPDX-License-Identifier: GPL-2.0
"""make profile's fio runs: what make bench's fio column costs per I/O.

The same fio job as make bench's (workloads.fio_job()) on the node, the
direct node and the block device, and NVMe's char node (cmd_type=nvme) and
block device, 4 KiB random reads at QD 1 and 32,
interrupt-driven and polled, its job pinned to the load's vCPU, and fio
itself started under insn-window on the other vCPU: the window holds the
whole run, but on the load's vCPU only the job's thread runs, and its
set-up does not depend on the number of I/Os.  A run is two windows, of N
and 2N I/Os (--number_ios); their difference divided by N is the cost of
one I/O, split into fio's user space and the kernel.

Raw counts only: fio enters io_uring once per I/O to submit and, at QD1,
once more to wait, so the canonical wait of t/io_uring-vblk's timing-free
figure (one per io_uring_enter) does not describe it; sleeps, polls and
io_uring_enter calls per I/O stand beside the counts instead.  fio's own instructions are as many
on every path within a few dozen, so they narrow the gap between the paths
that the kernel's instructions make: the IOPS ratio they allow is the
inverse of the ratio of the counts.
"""

import collections
import statistics

from . import guest_setup
from .insns import IO_URING_ENTER as ENTER, by_symbol, mean_symbols, over_both, waits
from .workloads import fio_job

DEPTHS = (1, 32)
MODES = ("irq", "polled")
PATHS = tuple(guest_setup.DEVICE)
N = 10000               # I/Os of the shorter window of a run
REPEATS = 3


def points():
    """(depth, mode, path) of every run of one pass."""
    for depth in DEPTHS:
        for mode in MODES:
            for path in PATHS:
                yield depth, mode, path


def command(point, ios, cpu):
    """A run's window: fio under insn-window on the vCPU other than cpu."""
    depth, mode, path = point
    job = fio_job(guest_setup.DEVICE[path], 0, depth, mode == "polled", cpu)
    return f"insn-window -c {1 - cpu} {job} --number_ios={ios} >/dev/null"


def records(windows, sizes, symbols, runs, cpu, poll_symbol):
    """One record per run, from its two windows: its counts per I/O."""
    out = []
    for i, point in enumerate(runs):
        short, long_ = windows[2 * i], windows[2 * i + 1]
        (si, se), (li, le) = (by_symbol(w, sizes, symbols, cpu) for w in (short, long_))
        out.append({
            "point": point,
            "raw": (long_.total(cpu) - short.total(cpu)) / N,
            "symbols": {k: (li[k] - si[k]) / N for k in set(li) | set(si)},
            "user": (long_.total(cpu, kernel=False) - short.total(cpu, kernel=False)) / N,
            "schedule": over_both(se, le, "__schedule", N),
            "polls": over_both(se, le, poll_symbol(point[2]), N),
            "enters": (le[ENTER] - se[ENTER]) / N})
    return out


def summarize(boots):
    """Per point: the median of each boot's runs, the mean over the boots;
    each symbol's mean count per I/O over every run."""
    out = {}
    for point in points():
        per_boot, symbols = [], []
        for recs in boots:
            rs = [r for r in recs if tuple(r["point"]) == point]
            per_boot.append({k: statistics.median(r[k] for r in rs)
                             for k in ("raw", "user", "schedule", "polls", "enters")})
            symbols.append(mean_symbols(r["symbols"] for r in rs))
        out[point] = {k: statistics.fmean(b[k] for b in per_boot) for k in per_boot[0]}
        out[point]["boots"] = [b["raw"] for b in per_boot]
        out[point]["symbols"] = mean_symbols(symbols)
    return out


def table(summary):
    """A row per depth and mode: each path's count, user space apart."""
    def each(row, fmt):
        return " / ".join(fmt(r) for r in row)

    names = " / ".join(PATHS)
    lines = ["| QD | completion | node | direct | block | ng | nvme | node/block | direct/block | "
             f"ng/nvme | fio's user space {names} | kernel {names} | sched/IO {names} | "
             f"polls/IO {names} | io_uring_enter/IO {names} |",
             "| --- " * 15 + "|"]
    rows = collections.defaultdict(dict)
    for (depth, mode, path), s in summary.items():
        rows[depth, mode][path] = s
    for (depth, mode), by_path in rows.items():
        row = [by_path[path] for path in PATHS]
        node, direct, block, ng, nvme = (r["raw"] for r in row)
        lines.append(f"| {depth} | {mode} | {node:.0f} | {direct:.0f} | {block:.0f} | "
                     f"{ng:.0f} | {nvme:.0f} | {node / block:.2f} | {direct / block:.2f} | "
                     f"{ng / nvme:.2f} | "
                     f"{each(row, lambda r: format(r['user'], '.0f'))} | "
                     f"{each(row, lambda r: format(r['raw'] - r['user'], '.0f'))} | "
                     f"{each(row, lambda r: waits(r['schedule']))} | "
                     f"{each(row, lambda r: waits(r['polls']))} | "
                     f"{each(row, lambda r: waits(r['enters']))} |")
    return "\n".join(lines)
