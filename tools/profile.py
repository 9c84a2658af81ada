#!/usr/bin/env python3
"""make profile: guest instructions per I/O on the node and on the block
device, counted by tools/insn-plugin.c, split by kernel symbol.

One guest (TCG, 2 vCPUs, a null-co disk with a poll queue, scheduler none)
runs every point with t/io_uring-vblk pinned to vCPU 1 inside a window of
tests/prog/insn-window: 4 KiB random reads and writes, QD 1 and 32,
interrupt and polled, plain and registered buffers, the node (-u1) against
the block device (-u0, O_DIRECT), and the same loop with IORING_OP_NOP (-N1,
the floor).  Each run is two windows, of N and 2N I/Os; their difference
divided by N is the cost of one I/O, without the program's start and exit.

Raw counts depend on timing: how often the task sleeps and wakes (interrupt
mode) and how often the driver polls before a completion is there (polled
mode).  The timing-free figure removes both:
  - spin-lock slow paths are left out (they count waiting for the other vCPU);
  - the rest is linear in the waiting events per I/O, x: __schedule entries
    (interrupt mode) or virtblk_poll entries (polled mode) on the load's vCPU.
    A least-squares fit over all runs of a path and mode, with an intercept
    per point, gives the cost of one event; each point is evaluated at one
    sleep and one wake (2 __schedule) per wait, or one driver poll per
    io_uring_enter, a wait being an io_uring_enter (its entries are counted);
    NOPs complete inline and are taken as counted.
The fit's residuals are printed with it.

usage: tools/profile.py [--quick] [--out DIR]
"""

import argparse
import collections
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vm  # noqa: E402
from insns import Symbols, by_symbol, read_windows  # noqa: E402

OPS = (("read", 0), ("write", 100))
DEPTHS = (1, 32)
MODES = ("irq", "polled")
BUFFERS = (("plain", 0), ("fixed", 1))
PATHS = (("node", "-u1 /dev/vdac0"), ("block", "-u0 /dev/vda"), ("nop", "-u1 -N1 /dev/vdac0"))
CPU = 1                 # the load's vCPU; its queue's interrupt lands there
N = 2000                # I/Os of the shorter window of a run
DISK = vm.Disk(id="d0", backend="null", size=64 << 30, iothread=True, num_queues=2)
SLOWPATHS = ("native_queued_spin_lock_slowpath", "__pv_queued_spin_lock_slowpath")
EVENT = {"irq": "__schedule", "polled": "virtblk_poll"}
ENTER = "__x64_sys_io_uring_enter"
TOP = 15


def points(quick):
    """(op, depth, mode, buffers, path): the NOP floor once per depth and mode."""
    for op, _ in OPS[:1] if quick else OPS:
        for depth in DEPTHS:
            for mode in MODES:
                for bufs, _ in BUFFERS[:1] if quick else BUFFERS:
                    for path, _ in PATHS:
                        if path == "nop" and (op, bufs) != (OPS[0][0], BUFFERS[0][0]):
                            continue
                        yield op, depth, mode, bufs, path


def command(point, ios):
    op, depth, mode, bufs, path = point
    return (f"insn-window -c {CPU} io_uring-vblk -d {depth} -w {dict(OPS)[op]} "
            f"-p {int(mode == 'polled')} -B {dict(BUFFERS)[bufs]} -I {ios} -C {CPU} -q -j "
            f"{dict(PATHS)[path]}")


def run_all(quick, repeats):
    """Boot, run every point repeats times (alternating the points), return
    the windows, the blocks' sizes, the symbols and the list of runs."""
    runs = []
    with vm.Guest("profile", [DISK], count_insns=True) as guest:
        guest.load_vblk("poll_queues=1")
        guest.output("echo none > /sys/block/vda/queue/scheduler")
        modules = guest.output("grep '\\[' /proc/kallsyms")
        for repeat in range(repeats):
            for point in points(quick):
                for ios in (N, 2 * N):
                    guest.output(command(point, ios))
                runs.append(point)
        windows, sizes = read_windows(guest.insns)
    with open(os.path.join(vm.BUILD, f"kobj{vm.SUFFIX}", "System.map")) as f:
        symbols = Symbols(f.read(), modules)
    return windows, sizes, symbols, runs


def per_io(windows, sizes, symbols, runs):
    """One record per run: counts per I/O of the second window minus the first."""
    records = []
    for i, point in enumerate(runs):
        short, long_ = windows[2 * i], windows[2 * i + 1]
        si, se = by_symbol(short, sizes, symbols, CPU)
        li, le = by_symbol(long_, sizes, symbols, CPU)
        syms = {k: (li[k] - si[k]) / N for k in set(li) | set(si)}
        entries = {k: (le[k] - se[k]) / N for k in set(le) | set(se)}
        both = sum(long_.total(v) - short.total(v) for v in range(long_.vcpus())) / N
        raw = (long_.total(CPU) - short.total(CPU)) / N
        # each window on its own, for the fit: instructions without the
        # spin-lock slow paths, waiting events and io_uring_enter calls
        windows_ = []
        for ios, insns, ents in ((N, si, se), (2 * N, li, le)):
            windows_.append({"ios": ios,
                             "y": sum(insns.values()) - sum(insns[s] for s in SLOWPATHS),
                             "x": ents[EVENT[point[2]]], "enters": ents[ENTER]})
        records.append({"point": point, "raw": raw, "both": both, "symbols": syms,
                        "windows": windows_,
                        "schedule": entries.get("__schedule", 0.0),
                        "polls": entries.get("virtblk_poll", 0.0),
                        "enters": entries.get(ENTER, 0.0)})
    return records


def fit(records):
    """Per (path, mode): the cost of one waiting event, by least squares over
    every window, each point with its own fixed cost and cost per I/O:
        instructions = fixed[point] + per_io[point] * ios + per_event * events
    Each record gains "free", its point's timing-free instructions per I/O
    (per_io plus per_event times the events of the canonical wait)."""
    fits = {}
    groups = collections.defaultdict(list)
    for r in records:
        groups[r["point"][4], r["point"][2]].append(r)
    for key, group in groups.items():
        # windows of one point and length: their differences are all waiting
        cells = collections.defaultdict(list)
        for r in group:
            for w in r["windows"]:
                cells[r["point"], w["ios"]].append(w)
        mean = {c: {k: statistics.fmean(w[k] for w in ws) for k in ("x", "y", "enters")}
                for c, ws in cells.items()}
        sxy = sum((w["x"] - mean[c]["x"]) * (w["y"] - mean[c]["y"])
                  for c, ws in cells.items() for w in ws)
        sxx = sum((w["x"] - mean[c]["x"]) ** 2 for c, ws in cells.items() for w in ws)
        # NOPs complete inline: nothing waits, there is nothing to fit out
        slope = sxy / sxx if sxx > 1e-9 and key[0] != "nop" else 0.0
        residuals = [w["y"] - mean[c]["y"] - slope * (w["x"] - mean[c]["x"])
                     for c, ws in cells.items() for w in ws]
        for r in group:
            short, long_ = mean[r["point"], N], mean[r["point"], 2 * N]
            per_io = ((long_["y"] - slope * long_["x"]) - (short["y"] - slope * short["x"])) / N
            enters = (long_["enters"] - short["enters"]) / N
            events = 2 * enters if key[1] == "irq" else enters
            r["free"] = per_io + slope * (0 if key[0] == "nop" else events)
        fits[f"{key[0]} {key[1]}"] = {
            "per_event": slope, "windows": len(residuals),
            "residual_rms": statistics.fmean(e * e for e in residuals) ** 0.5}
    return fits


def summarize(records):
    """Medians per point, and the mean of each symbol's count per I/O."""
    by_point = collections.defaultdict(list)
    for r in records:
        by_point[r["point"]].append(r)
    out = {}
    for point, rs in by_point.items():
        syms = collections.Counter()
        for r in rs:
            for k, v in r["symbols"].items():
                syms[k] += v / len(rs)
        out[point] = {k: statistics.median(r[k] for r in rs)
                      for k in ("free", "raw", "both", "schedule", "polls", "enters")}
        out[point]["spread"] = (max(r["raw"] for r in rs) - min(r["raw"] for r in rs)) / \
            max(statistics.median(r["raw"] for r in rs), 1)
        out[point]["symbols"] = dict(syms.most_common())
    return out


def table(summary):
    lines = ["| op | QD | completion | buffers | node | block | node/block | NOP floor | "
             "node raw | block raw | both vCPUs node / block | sched/IO node / block | "
             "polls/IO node / block |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (op, depth, mode, bufs, path), s in summary.items():
        if path != "node":
            continue
        b = summary[op, depth, mode, bufs, "block"]
        nop = summary.get((OPS[0][0], depth, mode, BUFFERS[0][0], "nop"), {})
        lines.append(
            f"| {op} | {depth} | {mode} | {bufs} | {s['free']:.0f} | {b['free']:.0f} | "
            f"{s['free'] / b['free']:.2f} | {nop.get('free', 0):.0f} | {s['raw']:.0f} | "
            f"{b['raw']:.0f} | {s['both']:.0f} / {b['both']:.0f} | "
            f"{s['schedule']:.2f} / {b['schedule']:.2f} | {s['polls']:.2f} / {b['polls']:.2f} |")
    return "\n".join(lines)


def differences(summary, point):
    """What only one path pays at a point, and the biggest differences."""
    node = summary[point + ("node",)]["symbols"]
    block = summary[point + ("block",)]["symbols"]
    diff = {k: node.get(k, 0) - block.get(k, 0) for k in set(node) | set(block)}
    rows = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:TOP]
    lines = [f"| symbol | node | block | node - block |", "| --- | --- | --- | --- |"]
    lines += [f"| {k} | {node.get(k, 0):.0f} | {block.get(k, 0):.0f} | {v:+.0f} |"
              for k, v in rows]
    return "\n".join(lines)


def top(summary, point):
    lines = []
    for path in ("node", "block"):
        syms = list(summary[point + (path,)]["symbols"].items())[:TOP]
        lines.append(f"{path}: " + ", ".join(f"{k} {v:.0f}" for k, v in syms))
    return "\n\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reads, plain buffers only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(vm.TOP, "results"))
    args = parser.parse_args()
    started = time.monotonic()
    windows, sizes, symbols, runs = run_all(args.quick, args.repeats)
    records = per_io(windows, sizes, symbols, runs)
    fits = fit(records)
    summary = summarize(records)
    minutes = (time.monotonic() - started) / 60
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "profile.json"), "w") as f:
        json.dump({"fits": fits, "records": [dict(r, point=list(r["point"])) for r in records],
                   "summary": {" ".join(map(str, k)): v for k, v in summary.items()}},
                  f, indent=1)
    headline = [(OPS[0][0], 1, "irq", "plain"), (OPS[0][0], 32, "polled", "plain")]
    text = [f"# make profile\n\nGuest instructions per 4 KiB I/O on the load's vCPU, "
            f"timing-free (see tools/profile.py), median of {args.repeats} runs; raw counts "
            f"beside them.  Took {minutes:.1f} min.\n", table(summary), "\n## The fit\n",
            "| path, mode | instructions per event | windows | residual RMS (instructions per window) |",
            "| --- | --- | --- | --- |"]
    text += [f"| {k} | {v['per_event']:.0f} | {v['windows']} | {v['residual_rms']:.0f} |"
             for k, v in fits.items()]
    for point in headline:
        name = f"{point[0]} QD{point[1]} {point[2]}"
        text += [f"\n## Top {TOP} symbols, {name} (raw instructions per I/O)\n",
                 top(summary, point),
                 f"\n## Node against block device, {name} (raw instructions per I/O)\n",
                 differences(summary, point)]
    md = "\n".join(text) + "\n"
    with open(os.path.join(args.out, "profile.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
