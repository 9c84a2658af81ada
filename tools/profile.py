#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make profile: guest instructions per I/O on the node and on the block
device, with NVMe's char node and block device beside them as the
yardstick, counted by tools/insn-plugin.c, split by kernel symbol (the runs:
harness/profiling.py).

Two boots of one guest (TCG, 2 vCPUs, scheduler none) each run every
point, alternating them, 5 times: 4 KiB random reads and writes, QD 1 and
32, interrupt and polled, plain and registered buffers, the node (-u1)
against the block device (-u0, O_DIRECT, O_NOATIME), and the same loop with
IORING_OP_NOP (-N1, the floor), in the guest of harness/guest_setup.py:
vda's node goes through blk-mq ("node"), vdb's drives virtqueues of its
own ("direct"); NVMe's generic char node /dev/ng0n1 ("ng", uring_cmd with
struct nvme_uring_cmd) against its block device /dev/nvme0n1 ("nvme") run
the same loop, so that the node's ratio to its block device stands beside
the ratio of the passthrough the kernel already has.  The floor is the NOP's figure plus one virtqueue round trip: what
the direct path spends in virtio_ring and virtio_pci symbols per
interrupt-driven I/O (descriptors, notify, used ring, the interrupt's
handler), less the handler in polled mode; the polled run's own count
would include the polls that found nothing, which is waiting.  t/io_uring-vblk
runs pinned to vCPU 1 and marks its own I/O loop as the window (-W1), so
neither its start nor its exit is counted.  A run is two windows, of N and
2N I/Os (NOPs: ten times as many): their difference divided by N is the
cost of one I/O.

Raw counts depend on timing; the timing-free figure removes it:
  - t/io_uring-vblk waits 0.1 s before it opens a window, so that what the
    previous run left (RCU callbacks freeing its memory) is done;
  - spin-lock slow paths are left out (they count waiting for the other vCPU);
  - the rest is linear in the events of a window that come with waiting
    (entries of kernel functions on the load's vCPU): in interrupt mode
    sleeps, wake-ups and idle halts (__schedule, do_idle,
    default_idle_call), in polled mode io_uring's passes over its poll list
    and the driver's polls, found or not (io_do_iopoll, and virtblk_poll or,
    direct, virtblk_pt_poll, or NVMe's nvme_poll: blk-mq's poll of both
    of NVMe's paths), and
    in both timer interrupts (hrtimer_interrupt).  harness/insn_fit.py fits
    their cost over every window of a path and mode and evaluates each point
    at a canonical wait: per io_uring_enter one sleep and one wake-up with
    one halt, or one pass and one driver poll; no timer tick.  NOPs complete
    inline: only their ticks are fitted out.
The figures of the two boots are printed with their spread.  Then each
boot runs make bench's fio job on the node, the direct node and the block
device, counted as harness/fio_profile.py says: what fio's IOPS can show.

usage: tools/profile.py [--quick [--fixed]] [--repeats R] [--boots B] [--out DIR] [--reuse]
                        [--paths PATH,...] [--kernel K --initrd I --system-map M]
"""

import argparse
import collections
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import fio_profile, layers, vm  # noqa: E402
from harness.insn_fit import fit_group  # noqa: E402
from harness.insns import IO_URING_ENTER as ENTER, by_symbol, mean_symbols, over_both, waits  # noqa: E402
from harness.guest_setup import BEST  # noqa: E402
from harness.buildpaths import paths as build_paths  # noqa: E402
from harness.profiling import (BUFFERS, CPU, EXPERIMENTS, OPS, PATHS, YARDSTICK,  # noqa: E402
                               boot_dir, boot_kobj, read_boot, run_boot, window_ios)

VIRTQUEUE = re.compile(r"^(virtqueue_|vring_|vp_|virtio_|detach_buf)")
INTERRUPT = re.compile(r"^(vring_interrupt|vp_vring_interrupt|vp_interrupt)$")
SLOWPATH = re.compile(r"queued_(spin|read|write)_lock_slowpath$")
# What varies with timing, per completion mode, and its count per I/O in a
# canonical wait given io_uring_enter calls per I/O: a sleep and a wake-up
# (two __schedule) on an idle CPU that halts once (do_idle,
# default_idle_call); or one pass over the poll list (io_do_iopoll) and one
# driver poll (virtblk_poll).  Timer interrupts (hrtimer_interrupt) come
# with time, not with I/O: none in a canonical wait.  NOPs only see ticks.
TICK = "hrtimer_interrupt"
# the driver's poll; else virtblk_poll
POLL = {"direct": "virtblk_pt_poll", "ng": "nvme_poll", "nvme": "nvme_poll", "nvmecmd": "nvme_poll"}


def poll_symbol(path):
    return POLL.get(BEST.get(path, path), "virtblk_poll")


def events(path, mode):
    """What is fitted out of a path's windows in a completion mode."""
    if path == "nop":
        return (TICK,)
    if mode == "polled":
        return ("io_do_iopoll", poll_symbol(path), TICK)
    return ("__schedule", "do_idle", "default_idle_call", TICK)


def canonical(path, mode, enters):
    """The waits of a canonical run: per io_uring_enter one sleep and
    wake-up with one halt, or one pass and one driver poll; no tick."""
    if path == "nop":
        return {TICK: 0}
    if mode == "polled":
        return {"io_do_iopoll": enters, poll_symbol(path): enters, TICK: 0}
    return {"__schedule": 2 * enters, "do_idle": enters, "default_idle_call": enters, TICK: 0}


SPREAD_LIMIT = {"node": 0.02, "direct": 0.02, "block": 0.02, "nop": 0.005,
                "ng": 0.02, "nvme": 0.02, "blkcmd": 0.02, "nvmecmd": 0.02}
SPREAD_LIMIT.update({best: SPREAD_LIMIT[path] for best, path in BEST.items()})
TOP = 15
BLIND_SPOTS = """\
- Time, not instructions: a cache miss, a VM exit on real hardware, an
  emulated device's latency all cost nothing here.  Instructions per I/O
  are what the CPU must execute, not how long an I/O takes: IOPS (make
  bench) and the waits per I/O beside them say that.
- Waiting is fitted out, not avoided: the timing-free figure assumes one
  sleep and wake-up, or one driver poll, per io_uring_enter.  A path that
  needs more of them in practice pays more than its figure: the raw counts
  and the waits per I/O show it.  An event whose count hardly varies is
  not fitted (its slope would be noise) and is counted as it happened.
- The other vCPU: the device's completion side runs in QEMU's iothread, not
  in the guest, so its cost is absent; work the guest moves to vCPU 0
  (kworkers, RCU callbacks, timers) shows only in "both vCPUs", raw.
- Spin-lock slow paths are left out whole, also what they cost when there
  is no contention worth the name.
- Timer ticks are fitted out at none per I/O, whatever a tick did (RCU,
  load balancing); other interrupts on vCPU 1 are counted as they happen.
- Work left by the previous run is let finish for 0.1 s before a window
  opens; what takes longer still falls into the window.
- Inlined functions are counted in their caller; a symbol's entries count
  the blocks that start at its first instruction, so a tail call or a jump
  back to the top counts as an entry.
- Only TCG's x86 guest is measured; another architecture's or another
  compiler's instruction mix is not."""


def load_boot(directory):
    """One record per run: its windows (for the fit) and its counts per I/O,
    the second window less the first; fio's runs' records apart."""
    windows, sizes, symbols, runs, fio_runs, seconds = read_boot(directory)
    files = layers.symbol_files(boot_kobj(directory))
    records = []
    for i, point in enumerate(runs):
        pair, n = (windows[2 * i], windows[2 * i + 1]), window_ios(point)
        counted = [by_symbol(w, sizes, symbols, CPU) for w in pair]
        (si, se), (li, le) = counted
        records.append({
            "point": point,
            "raw": (pair[1].total(CPU) - pair[0].total(CPU)) / n,
            "both": sum(pair[1].total(v) - pair[0].total(v) for v in range(pair[0].vcpus())) / n,
            "symbols": {k: (li[k] - si[k]) / n for k in set(li) | set(si)},
            "schedule": over_both(se, le, "__schedule", n),
            "polls": over_both(se, le, poll_symbol(point[4]), n),
            "enters": (le[ENTER] - se[ENTER]) / n,
            "windows": [{"ios": ios,
                         "y": sum(c for k, c in insns.items() if not SLOWPATH.search(k)),
                         "parts": by_layer(insns, files),
                         "events": {e: entries[e] for e in events(point[4], point[2])},
                         "enters": entries[ENTER]}
                        for ios, (insns, entries) in zip((n, 2 * n), counted)]})
    fio = fio_profile.records(windows[2 * len(runs):], sizes, symbols, fio_runs, CPU,
                              poll_symbol)
    return records, fio, seconds


def by_layer(insns, files):
    """A window's instructions by layer (harness/layers.py), spin-lock slow
    paths left out as from the whole."""
    out = collections.Counter()
    for name, count in insns.items():
        if not SLOWPATH.search(name):
            out[layers.layer_of(name, files)] += count
    return out


def fit(records):
    """The fit per path and mode; each record gains "free", its point's
    timing-free instructions per I/O, and "layers", that figure's split by
    layer (they add up to it)."""
    fits, groups = {}, collections.defaultdict(list)
    for r in records:
        groups[r["point"][4], r["point"][2]].append(r)
    for (path, mode), group in groups.items():
        fits[f"{path} {mode}"], free, shares = fit_group(
            group, events(path, mode), lambda enters: canonical(path, mode, enters),
            window_ios(group[0]["point"]), layers.LAYERS)
        for r in group:
            r["free"], r["layers"] = free[r["point"]], shares[r["point"]]
    return fits


def summarize(records):
    """Per point: medians of the runs, and each symbol's mean count per I/O."""
    by_point = collections.defaultdict(list)
    for r in records:
        by_point[r["point"]].append(r)
    out = {}
    for point, rs in by_point.items():
        out[point] = {k: statistics.median(r[k] for r in rs)
                      for k in ("free", "raw", "both", "schedule", "polls", "enters")}
        out[point]["symbols"] = mean_symbols(r["symbols"] for r in rs)
        out[point]["layers"] = rs[0]["layers"]      # the point's, as "free" is
    return out


def combine(boots):
    """The boots' summaries as one: means, and the spread of the timing-free
    figure (max - min over the mean)."""
    out = {}
    for point in boots[0]:
        each = [b[point] for b in boots]
        free = [s["free"] for s in each]
        out[point] = {k: statistics.fmean(s[k] for s in each) for k in each[0]
                      if k not in ("symbols", "layers")}
        out[point]["layers"] = {k: statistics.fmean(s["layers"][k] for s in each)
                                for k in each[0]["layers"]}
        out[point]["boots"] = free
        out[point]["spread"] = (max(free) - min(free)) / abs(statistics.fmean(free))
        out[point]["symbols"] = mean_symbols(s["symbols"] for s in each)
    return out


SIDES = ("node", "direct", "block")     # the paths a row compares, NOP apart


def virtqueue(summary, op, depth, mode, bufs):
    """One virtqueue round trip: the direct path's virtio_ring and
    virtio_pci symbols per interrupt-driven I/O, less the interrupt's
    handler when polled."""
    symbols = summary[op, depth, "irq", bufs, "direct"]["symbols"]
    return sum(v for k, v in symbols.items()
               if VIRTQUEUE.search(k) and not (mode == "polled" and INTERRUPT.search(k)))


def table(summary):
    """A row per point: each side's timing-free figure, the ratios to the
    block device, NVMe's ratio and the node's against it, the floor; raw
    counts and waits per I/O beside them."""
    def each(row, fmt):
        return " / ".join(fmt(s) for s in row)

    names = " / ".join(SIDES + YARDSTICK)
    lines = ["| op | QD | completion | buffers | node | direct | block | ng | nvme | "
             "node/block | direct/block | ng/nvme | node/block over ng/nvme | "
             "direct/block over ng/nvme | floor: NOP + virtqueue | direct/floor | "
             f"spread of 2 boots {names} / NOP | raw {names} | both vCPUs raw {names} | "
             f"sched/IO {names} | polls/IO {names} |",
             "| --- " * 21 + "|"]
    for (op, depth, mode, bufs, path), s in summary.items():
        if path != "node":
            continue
        row = [summary[op, depth, mode, bufs, side] for side in SIDES + YARDSTICK]
        node, direct, block, ng, nvme = (r["free"] for r in row)
        nop = summary[OPS[0][0], depth, mode, BUFFERS[0][0], "nop"]
        ring = virtqueue(summary, op, depth, mode, bufs)
        floor = nop["free"] + ring
        nvme_ratio = ng / nvme
        lines.append(
            f"| {op} | {depth} | {mode} | {bufs} | {node:.0f} | {direct:.0f} | {block:.0f} | "
            f"{ng:.0f} | {nvme:.0f} | {node / block:.2f} | {direct / block:.2f} | "
            f"{nvme_ratio:.2f} | {node / block / nvme_ratio:.2f} | "
            f"{direct / block / nvme_ratio:.2f} | "
            f"{floor:.0f} ({nop['free']:.0f} + {ring:.0f}) | {direct / floor:.2f} | "
            f"{each(row + [nop], lambda r: format(100 * r['spread'], '.1f'))} % | "
            f"{each(row, lambda r: format(r['raw'], '.0f'))} | "
            f"{each(row, lambda r: format(r['both'], '.0f'))} | "
            f"{each(row, lambda r: waits(r['schedule']))} | "
            f"{each(row, lambda r: waits(r['polls']))} |")
    return "\n".join(lines)


def yardstick(summary):
    """A row per point: the node's ratio to the block device beside NVMe's
    ratio of its char node to its block device, each path at its best
    (guest_setup.BEST), then with the defaults (the node and ng without a
    registered file, the block devices with I/O statistics and merging),
    and the direct node's against the block device's default."""
    lines = ["| op | QD | completion | buffers | node | block | node/block | ng | nvme | "
             "ng/nvme | node / ng, each over its block device | at the defaults: node/block | "
             "ng/nvme | node / ng | direct/block |", "| --- " * 15 + "|"]
    for (op, depth, mode, bufs, path), s in summary.items():
        if path != "node":
            continue
        free = {side: summary[op, depth, mode, bufs, side]["free"] for side in dict(PATHS)
                if side != "nop"}
        best = [free[f"{side}-best"] for side in ("node", "block", "ng", "nvme")]
        dflt = [free[side] for side in ("node", "block", "ng", "nvme")]
        cells = []
        for node, block, ng, nvme in (best, dflt):
            cells.append((node, block, ng, nvme, node / block, ng / nvme,
                          node / block / (ng / nvme)))
        (bn, bb, bg, bv, bnr, bgr, bo), (_, _, _, _, dnr, dgr, do) = cells
        lines.append(f"| {op} | {depth} | {mode} | {bufs} | {bn:.0f} | {bb:.0f} | {bnr:.2f} | "
                     f"{bg:.0f} | {bv:.0f} | {bgr:.2f} | {bo:.2f} | {dnr:.2f} | {dgr:.2f} | "
                     f"{do:.2f} | {free['direct'] / free['block']:.2f} |")
    return "\n".join(lines)


def agreement(summary):
    """One line per path: the largest spread between boots, against its limit."""
    lines = []
    measured = {p[4] for p in summary}
    for path, limit in SPREAD_LIMIT.items():
        if path not in measured:
            continue
        worst = max((s["spread"], p) for p, s in summary.items() if p[4] == path)
        verdict = "within" if worst[0] <= limit else "OUTSIDE"
        lines.append(f"- {path}: largest spread {100 * worst[0]:.2f} % "
                     f"({' '.join(map(str, worst[1][:4]))}), {verdict} the {100 * limit:g} % limit")
    return "\n".join(lines)


def differences(ours, theirs, we, they):
    """The symbols whose counts per I/O differ most between two runs."""
    diff = {k: ours.get(k, 0) - theirs.get(k, 0) for k in set(ours) | set(theirs)}
    rows = sorted(diff.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:TOP]
    lines = [f"| symbol | {we} | {they} | {we} - {they} |", "| --- | --- | --- | --- |"]
    lines += [f"| {k} | {ours.get(k, 0):.0f} | {theirs.get(k, 0):.0f} | {v:+.0f} |"
              for k, v in rows]
    return "\n".join(lines)


def fio_differences(summary, fio):
    """Per fio point: what the node pays that the block device does not,
    and what fio's way of entering io_uring costs each of them over
    t/io_uring-vblk's run of the same point (reads, plain buffers)."""
    text = []
    for (depth, mode, path), counted in fio.items():
        if path != "node":
            continue
        name = f"fio {depth} {mode}"
        block = fio[depth, mode, "block"]["symbols"]
        text += [f"\n### {name}: node against block device\n",
                 differences(counted["symbols"], block, "node", "block")]
        for side, symbols in (("node", counted["symbols"]), ("block", block)):
            batched = summary["read", depth, mode, "plain", side]["symbols"]
            text += [f"\n### {name}: fio against t/io_uring-vblk, {side}\n",
                     differences(symbols, batched, "fio", "t/io_uring-vblk")]
    return text


def top(summary, point):
    lines = []
    for path in SIDES + YARDSTICK:
        syms = list(summary[point + (path,)]["symbols"].items())[:TOP]
        lines.append(f"{path}: " + ", ".join(f"{k} {v:.0f}" for k, v in syms))
    return "\n\n".join(lines)


def fit_table(fits):
    lines = ["| boot | path, mode | instructions per event | windows fitted (outliers left out) | "
             "residual RMS (instructions per window) |", "| --- | --- | --- | --- | --- |"]
    for boot, per in enumerate(fits, 1):
        for key, f in per.items():
            slopes = ", ".join(f"{e} {s:.0f}" for e, s in f["slopes"].items()) or "(none)"
            lines.append(f"| {boot} | {key} | {slopes} | {f['windows']} ({f['left_out']}) | "
                         f"{f['residual_rms']:.0f} |")
    return "\n".join(lines)


FIO_SECTION = """\
make bench's fio job (tools/bench.py) counted the same way, reads, plain
buffers, raw counts per I/O on the load's vCPU, mean of the boots' medians
of {repeats} runs (harness/fio_profile.py says why not timing-free).  fio's
own instructions are as many on every path: they narrow the ratio that
the kernel's make, and the inverse of a ratio here is the IOPS ratio that
fio can show when the vCPU is the bottleneck.  Below the table, per point,
the symbols where the node and the block device differ under fio, and
what fio's way of entering io_uring costs each path over t/io_uring-vblk's
run of the same point (raw counts per I/O, means over the runs).
"""


def paths_table(summary):
    """A row per point of a run of some paths only (--paths): each path's
    timing-free figure, raw count and waits per I/O; NVMe's ratio when both
    of its paths ran."""
    paths = list(dict.fromkeys(p[4] for p in summary))
    ratio = set(YARDSTICK) <= set(paths)
    lines = ["| op | QD | completion | buffers | " +
             " | ".join(f"{p} free / raw / sched / polls" for p in paths) +
             (" | ng/nvme |" if ratio else " |"), "| --- " * (4 + len(paths) + ratio) + "|"]
    for point in dict.fromkeys(p[:4] for p in summary):
        row = [summary[point + (p,)] for p in paths]
        cells = [f"{r['free']:.0f} / {r['raw']:.0f} / {waits(r['schedule'])} / "
                 f"{waits(r['polls'])}" for r in row]
        if ratio:
            ng, nvme = (summary[point + (p,)]["free"] for p in YARDSTICK)
            cells.append(f"{ng / nvme:.3f}")
        lines.append("| " + " | ".join(map(str, point)) + " | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(summary, fits, repeats, minutes, fio=None):
    text = [f"# make profile\n\nGuest instructions per 4 KiB I/O on the load's vCPU, "
            f"timing-free (method: tools/profile.py, harness/insn_fit.py), mean of "
            f"{len(fits)} boots, each the median of {repeats} runs; raw counts (the longer "
            f"window less the shorter) and waits per I/O (over both windows) beside them.  "
            f"The boots took {minutes:.1f} min.\n",
            "## The node beside NVMe's passthrough\n",
            "Each path's timing-free instructions per I/O over its own block device's: "
            "the virtio-blk node over /dev/vda, NVMe's char node /dev/ng0n1 over "
            "/dev/nvme0n1.  First each path at its best, as a reviewer would rerun it: "
            "the file registered with the ring, the block devices without I/O statistics "
            "(queue/iostats 0) and without merging (queue/nomerges 2); scheduler none "
            "and, at the fixed points, registered buffers for every path.  Then the same "
            "ratios at the defaults (no registered file, statistics and merging on), and "
            "the node on its own virtqueues (direct) over the default block device.  "
            "Below 1.00 in a \"node / ng\" column, the node saves more of its block "
            "device's cost than NVMe's passthrough saves of NVMe's.\n",
            yardstick(summary), "\n## Every path\n", table(summary),
            "\n## Do two boots agree?\n", agreement(summary),
            "\n## The fit\n", fit_table(fits),
            "\n## What the method cannot see\n", BLIND_SPOTS]
    if fio:
        text += ["\n## fio: what make bench's fio column costs\n",
                 FIO_SECTION.format(repeats=fio_profile.REPEATS), fio_profile.table(fio)]
        text += fio_differences(summary, fio)
    for point in summary:
        if point[4] != "node":
            continue
        name = " ".join(map(str, point[:4]))
        text += [f"\n## {name}: top {TOP} symbols (raw instructions per I/O)\n",
                 top(summary, point[:4])]
        block = summary[point[:4] + ("block",)]["symbols"]
        for side in SIDES[:2]:
            text += [f"\n### {name}: {side} against block device\n",
                     differences(summary[point[:4] + (side,)]["symbols"], block, side, "block")]
        ng, nvme = (summary[point[:4] + (side,)]["symbols"] for side in YARDSTICK)
        text += [f"\n### {name}: NVMe, ng against nvme\n", differences(ng, nvme, "ng", "nvme")]
    return "\n".join(text) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="reads, plain buffers only; no fio")
    parser.add_argument("--fixed", action="store_true",
                        help="with --quick: registered buffers too")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--boots", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(vm.TOP, "results"))
    parser.add_argument("--reuse", action="store_true",
                        help="analyse the boots' counts left by the last run again")
    parser.add_argument("--paths", type=lambda text: list(dict.fromkeys(text.split(","))),
                        default=list(dict(PATHS)),
                        help="only these paths, e.g. ng,nvme: NVMe's alone, the measure of "
                             "a change to block/ or io_uring/ (no fio, a short report)")
    parser.add_argument("--kernel", default=vm.KERNEL, help="the guest kernel to measure")
    parser.add_argument("--initrd", default=vm.INITRD, help="its initramfs (modules)")
    parser.add_argument("--system-map", default=vm.SYSTEM_MAP, help="its System.map")
    parser.add_argument("--experiment", choices=EXPERIMENTS,
                        help="the kernel of experiments/NAME (make experiment builds it), "
                             "on its paths unless --paths")
    args = parser.parse_args()
    known = dict(PATHS)
    if args.experiment:
        known = dict(EXPERIMENTS[args.experiment])
        built = build_paths(args.experiment)
        args.kernel, args.initrd, args.system_map = (built[k] for k in
                                                     ("KERNEL", "INITRD", "SYSTEM_MAP"))
        if args.paths == parser.get_default("paths"):
            args.paths = list(known)
    unknown = set(args.paths) - set(known)
    given = [a for a in ("kernel", "initrd", "system_map")
             if getattr(args, a) != parser.get_default(a)]
    if given and len(given) < 3:
        # another kernel's symbols must come with it, or every count is misread
        parser.error("--kernel, --initrd and --system-map go together")
    if unknown:
        parser.error(f"--paths: no path {', '.join(sorted(unknown))} (paths: "
                     f"{', '.join(known)})")
    dirs = [boot_dir(b) if args.reuse else
            run_boot(b, args.quick, args.fixed, args.repeats, args.paths, args.kernel,
                     args.initrd, args.system_map)
            for b in range(args.boots)]
    summaries, fits, fio_boots, seconds = [], [], [], 0
    for d in dirs:
        records, fio_records, took = load_boot(d)
        fio_boots.append(fio_records)
        seconds += took
        fits.append(fit(records))
        summaries.append(summarize(records))
    repeats = len(records) // len(summaries[-1])
    summary = combine(summaries)
    fio = fio_profile.summarize(fio_boots) if all(fio_boots) else None
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "profile.json"), "w") as f:
        json.dump({"fits": fits, "kobj": boot_kobj(dirs[-1]),
                   "summary": {" ".join(map(str, k)): v for k, v in summary.items()},
                   "fio": {" ".join(map(str, k)): v for k, v in (fio or {}).items()}},
                  f, indent=1)
    measured = list(dict.fromkeys(p[4] for p in summary))
    if set(measured) != set(dict(PATHS)):
        md = (f"# make profile of {', '.join(measured)}\n\nTiming-free instructions per "
              f"I/O (tools/profile.py), mean of {len(fits)} boots, each the median of "
              f"{repeats} runs; the boots took {seconds / 60:.1f} min.\n\n"
              f"{paths_table(summary)}\n\n{agreement(summary)}\n\n## The fit\n\n"
              f"{fit_table(fits)}\n")
    else:
        md = report(summary, fits, repeats, seconds / 60, fio)
    with open(os.path.join(args.out, "profile.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
