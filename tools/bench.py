#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: the passthrough node against the block device, side by side.

Boots the guest of harness/guest_setup.py once.  For every point (op x
queue depth x interrupt/polled x tool) it runs the passthrough path through
blk-mq (/dev/vdac0) and the block path (/dev/vda, O_DIRECT) under each I/O
scheduler of the disk (none and mq-deadline), the passthrough node in
direct mode (/dev/vdbc0, which has virtqueues of its own and no use for a
scheduler), and the yardstick, NVMe's char node (/dev/ng0n1) and block
device (/dev/nvme0n1) under none, and each pair at its best (registered
file and buffers, the block devices without statistics or merging, as
guest_setup.BEST says), in alternation, the same op, size, depth and CPU
for each, REPEATS times, and reports medians with their spread.  Every
run sets the scheduler it is measured with: passthrough requests bypass
the scheduler's queue, but with a scheduler they take its tags.
Writes bench.json (every run), bench.md (the table, passthrough/block
ratios) and bench.png (IOPS against queue depth) into --out (results/;
make bench gives it a snapshot folder, results/<date>-series<N>/), and
prints the table.

usage: tools/bench.py [--quick] [--out DIR] [--point OP,QD,MODE,TOOL ...] [--repeats N]

--point runs only the points it names, e.g. --point read,1,polled,fio
to look again at one point of a full run (write it to another --out).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import guest_setup, vm  # noqa: E402
from harness.workloads import BS, fio_job, fio_result, io_uring_vblk, io_uring_vblk_result  # noqa: E402

OPS = (("read", 0), ("write", 100))
DEPTHS = (1, 8, 32)
MODES = ("irq", "polled")
SCHEDULERS = ("none", "mq-deadline")
SIDES = ("node", "block")
DIRECT = ("direct", SCHEDULERS[0])
# NVMe's char node and block device, the yardstick, under none
NVME = (("ng", SCHEDULERS[0]), ("nvme", SCHEDULERS[0]))
# each pair at its best, as a reviewer would rerun it (guest_setup.BEST): the
# file and buffers registered, the block devices without statistics or merging
BEST = tuple((best, SCHEDULERS[0]) for best in ("node-best", "block-best", "ng-best", "nvme-best"))
# a path: a side under a scheduler; the direct mode, NVMe's pair and the best once
PATHS = tuple((side, sched) for sched in SCHEDULERS for side in SIDES) + (DIRECT,) + NVME + BEST
CPU = 0                 # every run is pinned to this guest CPU


def path_name(side, sched):
    """A path as bench.json, the table and the plot name it."""
    return f"{side}-{sched}"


class IoUringVblk:
    """t/io_uring-vblk, with latency percentiles."""

    name = "io_uring-vblk"

    def command(self, side, write_pct, depth, polled, runtime):
        best = side in guest_setup.BEST
        return io_uring_vblk(guest_setup.device_of(side), depth=depth, bs=BS, write_pct=write_pct,
                             polled=polled, fixed=best, regfiles=best, runtime=runtime,
                             latency=True, cpu=CPU, json_summary=True)

    def parse(self, output):
        r = io_uring_vblk_result(output)
        lat = r.get("lat_ns", {})
        return {"iops": r["iops"], "lat_mean_us": lat.get("mean", 0) / 1e3,
                "lat_p50_us": lat.get("p50", 0) / 1e3, "lat_p99_us": lat.get("p99", 0) / 1e3}


class Fio:
    """fio: ioengine=io_uring_cmd with cmd_type=vblk (cmd_type=nvme on NVMe's
    char node) against ioengine=io_uring."""

    name = "fio"

    def command(self, side, write_pct, depth, polled, runtime):
        job = fio_job(guest_setup.device_of(side), write_pct, depth, polled, CPU,
                      best=side in guest_setup.BEST)
        return f"{job} --time_based --runtime={runtime}"

    def parse(self, output):
        job = fio_result(output)
        side = job["write"] if job["write"]["io_bytes"] else job["read"]
        pct = side["clat_ns"].get("percentile", {})
        return {"iops": side["iops"], "lat_mean_us": side["lat_ns"]["mean"] / 1e3,
                "lat_p50_us": pct.get("50.000000", 0) / 1e3,
                "lat_p99_us": pct.get("99.000000", 0) / 1e3}


def points(tools, only=None):
    """Every point of a run, or those of @only: (op, QD, mode, tool name)."""
    for op, write_pct in OPS:
        for depth in DEPTHS:
            for mode in MODES:
                for tool in tools:
                    if only is None or (op, depth, mode, tool.name) in only:
                        yield op, write_pct, depth, mode, tool


def parse_point(text):
    """--point's OP,QD,MODE,TOOL, checked against what a run has."""
    try:
        op, depth, mode, tool = text.split(",")
        point = (op, int(depth), mode, tool)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not OP,QD,MODE,TOOL") from None
    if (op not in dict(OPS) or point[1] not in DEPTHS or mode not in MODES
            or tool not in (IoUringVblk.name, Fio.name)):
        raise argparse.ArgumentTypeError(f"{text!r} is no point of make bench")
    return point


def measure(guest, tools, repeats, runtime, only=None):
    """Every run, in the order they ran: paths alternate within each repeat."""
    runs = []
    plan = list(points(tools, only))
    total = len(plan) * repeats * len(PATHS)
    for op, write_pct, depth, mode, tool in plan:
        for rep in range(repeats):
            # rotate the order so that no path always runs first
            order = PATHS[rep % len(PATHS):] + PATHS[:rep % len(PATHS)]
            for side, sched in order:
                disk = guest_setup.DISK_OF[guest_setup.device_of(side)]
                guest.output(f"echo {sched} > /sys/block/{disk}/queue/scheduler")
                cmd = guest_setup.at_best(side, tool.command(side, write_pct, depth,
                                                             mode == "polled", runtime))
                status, out = guest.run(cmd, timeout=runtime * 10 + 60, check=False)
                run = {"op": op, "depth": depth, "mode": mode, "tool": tool.name,
                       "path": path_name(side, sched), "repeat": rep, "command": cmd}
                try:
                    if status:
                        raise ValueError(out.strip().splitlines()[-1] if out.strip() else status)
                    run.update(tool.parse(out))
                    shown = f"{run['iops'] / 1000:.1f}k IOPS"
                except (ValueError, KeyError, IndexError) as e:
                    run["error"] = str(e)
                    shown = f"failed: {e}"
                runs.append(run)
                print(f"[{len(runs)}/{total}] {op} qd={depth} {mode} {tool.name} {run['path']} "
                      f"#{rep + 1}: {shown}", flush=True)
    return runs


def summarize(runs):
    """Median and spread of every (point, tool, path)."""
    groups = {}
    for r in runs:
        key = (r["op"], r["depth"], r["mode"], r["tool"], r["path"])
        groups.setdefault(key, []).append(r)
    summary = []
    for (op, depth, mode, tool, path), rs in groups.items():
        ok = [r for r in rs if "error" not in r]
        entry = {"op": op, "depth": depth, "mode": mode, "tool": tool, "path": path,
                 "runs": len(rs), "failed": len(rs) - len(ok)}
        if ok:
            iops = [r["iops"] for r in ok]
            entry.update(iops_median=statistics.median(iops), iops_min=min(iops),
                         iops_max=max(iops),
                         lat_p50_us=statistics.median(r["lat_p50_us"] for r in ok),
                         lat_p99_us=statistics.median(r["lat_p99_us"] for r in ok))
        else:
            entry["error"] = rs[-1]["error"]
        summary.append(entry)
    return summary


def k(v):
    return f"{v / 1000:.1f}k"


def table(summary, tools, only=None):
    """A row per point and tool: per scheduler the passthrough and block
    medians and their ratio, the direct mode's against the block device
    under the first, then the p99 latencies under the first."""
    by = {(s["op"], s["depth"], s["mode"], s["tool"], s["path"]): s for s in summary}
    head = ["op", "QD", "completion", "tool"]
    for sched in SCHEDULERS:
        head += [f"node, {sched}", f"block, {sched}", f"node / block, {sched}"]
    head += ["direct", f"direct / block, {SCHEDULERS[0]}",
             f"p99 lat (us) node / direct / block, {SCHEDULERS[0]}",
             "ng", "nvme", "ng / nvme", "p99 lat (us) ng / nvme"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op, _, depth, mode, tool in points(tools, only):
        cells = [op, str(depth), mode, tool.name]
        for sched in SCHEDULERS:
            pt, blk = (by[(op, depth, mode, tool.name, path_name(side, sched))] for side in SIDES)
            cells += [iops_cell(pt), iops_cell(blk),
                      f"{pt['iops_median'] / blk['iops_median']:.2f}" if measured(pt, blk) else "n/a"]
        pt, blk = (by[(op, depth, mode, tool.name, path_name(side, SCHEDULERS[0]))]
                   for side in SIDES)
        direct = by[(op, depth, mode, tool.name, path_name(*DIRECT))]
        cells += [iops_cell(direct),
                  f"{direct['iops_median'] / blk['iops_median']:.2f}" if measured(direct, blk) else "n/a",
                  f"{pt['lat_p99_us']:.0f} / {direct['lat_p99_us']:.0f} / {blk['lat_p99_us']:.0f}"
                  if measured(pt, direct, blk) else "n/a"]
        ng, nvme = (by[(op, depth, mode, tool.name, path_name(*p))] for p in NVME)
        cells += [iops_cell(ng), iops_cell(nvme),
                  f"{ng['iops_median'] / nvme['iops_median']:.2f}" if measured(ng, nvme) else "n/a",
                  f"{ng['lat_p99_us']:.0f} / {nvme['lat_p99_us']:.0f}"
                  if measured(ng, nvme) else "n/a"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_best(summary, tools, only=None):
    """A row per point and tool: each pair at its best, and its ratio."""
    by = {(s["op"], s["depth"], s["mode"], s["tool"], s["path"]): s for s in summary}
    pairs = (BEST[:2], BEST[2:])
    head = ["op", "QD", "completion", "tool"]
    for a, b in pairs:
        head += [a[0], b[0], f"{a[0]} / {b[0]}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op, _, depth, mode, tool in points(tools, only):
        cells = [op, str(depth), mode, tool.name]
        for pair in pairs:
            a, b = (by[(op, depth, mode, tool.name, path_name(*p))] for p in pair)
            cells += [iops_cell(a), iops_cell(b),
                      f"{a['iops_median'] / b['iops_median']:.2f}" if measured(a, b) else "n/a"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def measured(*entries):
    return all("iops_median" in s for s in entries)


def iops_cell(s):
    return f"{k(s['iops_median'])} ({k(s['iops_min'])}-{k(s['iops_max'])})" if measured(s) else "n/a"


def plot(summary, tools, out):
    """IOPS against queue depth, one panel per op and completion mode."""
    data = os.path.join(out, "bench.dat")
    with open(data, "w") as f:
        for op, _ in OPS:
            for mode in MODES:
                for tool in tools:
                    for path in (path_name(*p) for p in PATHS):
                        f.write(f"# {op} {mode} {tool.name} {path}\n")
                        for s in summary:
                            if (s["op"], s["mode"], s["tool"], s["path"]) == (op, mode, tool.name, path):
                                f.write(f"{s['depth']} {s.get('iops_median', 'NaN')}\n")
                        f.write("\n\n")
    script = ["set terminal pngcairo size 1400,1000 font ',10' noenhanced",
              f"set output '{os.path.join(out, 'bench.png')}'",
              f"set multiplot layout {len(OPS)},{len(MODES)} title 'virtio-blk: passthrough "
              "(/dev/vdac0), direct mode (/dev/vdbc0) and block device (/dev/vda); NVMe: "
              "ng0n1 and nvme0n1; 4 KiB'",
              "set logscale x 2", "set xlabel 'queue depth'", "set ylabel 'IOPS'",
              "set key below", "set grid",
              "set xtics (" + ", ".join(str(d) for d in DEPTHS) + ")"]
    index = 0
    for op, _ in OPS:
        for mode in MODES:
            curves = []
            for tool in tools:
                for path in (path_name(*p) for p in PATHS):
                    dash = "dt 1" if tool.name == "io_uring-vblk" else "dt 2"
                    curves.append(f"'{data}' index {index} using 1:2 with linespoints {dash} "
                                  f"title '{path} ({tool.name})'")
                    index += 1
            script.append(f"set title '{op}, {mode}'")
            script.append("plot " + ", ".join(curves))
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats of 1 s (under 10 minutes)")
    parser.add_argument("--out", default=os.path.join(vm.TOP, "results"))
    parser.add_argument("--point", action="append", type=parse_point,
                        help="only this point, OP,QD,MODE,TOOL (repeatable)")
    parser.add_argument("--repeats", type=int, help="runs of each path at each point")
    args = parser.parse_args()
    repeats, runtime = (3, 1) if args.quick else (5, 4)
    repeats = args.repeats or repeats
    only = set(args.point) if args.point else None
    os.makedirs(args.out, exist_ok=True)

    started = time.time()
    with guest_setup.boot("bench") as guest:
        guest_setup.load(guest)
        tools = [IoUringVblk()]
        if guest.run("command -v fio", check=False)[0] == 0:
            tools.append(Fio())
        env = {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "accel": guest.accel, "qemu": vm.qemu_version(),
            "guest_kernel": guest.output("uname -r").strip(),
            "guest_cpus": guest.cpus, "host_kernel": platform.release(),
            "host_cpu": cpu_model(), "host_cores": os.cpu_count(),
            "default_scheduler": guest.output("cat /sys/block/vda/queue/scheduler").strip(),
            "queues": guest.output("dmesg | grep 'default/read/poll' | tail -n 1").split(": ")[-1].strip(),
            "repeats": repeats, "runtime_s": runtime, "bs": BS, "cpu": CPU,
            "disk": guest_setup.DESCRIPTION,
        }
        print(f"# {env['accel']}, {env['qemu']}, guest kernel {env['guest_kernel']}, "
              f"{len(tools)} tool(s)", flush=True)
        runs = measure(guest, tools, repeats, runtime, only)
    summary = summarize(runs)
    env["minutes"] = round((time.time() - started) / 60, 1)

    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"environment": env, "summary": summary, "runs": runs}, f, indent=1)
    md = report(env, table(summary, tools, only), table_best(summary, tools, only))
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write(md)
    if only is None:
        plot(summary, tools, args.out)
    print(md)


def report(env, tbl, tbl_best):
    under = ("TCG (software emulation): absolute numbers are not hardware numbers, the ratios "
             "are the result" if env["accel"] == "tcg" else "KVM")
    return (f"## make bench, {env['date']}\n\n"
            f"Guest under {under}. {env['qemu']}; guest kernel {env['guest_kernel']} "
            f"({env['guest_cpus']} vCPUs, virtio_blk queues {env['queues']}); host "
            f"{env['host_cpu']}, {env['host_cores']} cores, kernel {env['host_kernel']}.\n\n"
            f"Method: one boot, {env['disk']}; 4 KiB, every run pinned to guest CPU "
            f"{env['cpu']}; for each point the passthrough node and the block device "
            f"(O_DIRECT, O_NOATIME), each under scheduler {' and '.join(SCHEDULERS)}, and the "
            f"node in direct mode (vdb, its own virtqueues), and NVMe's char node (ng0n1, "
            f"io_uring-vblk's NVMe commands, fio's cmd_type=nvme) and block device "
            f"(nvme0n1) under none, run in alternation, "
            f"{env['repeats']} times {env['runtime_s']} s each, every run setting its scheduler; "
            f"medians with (min-max). Passthrough requests bypass the scheduler's queue but "
            f"take its tags. The kernel's default scheduler for this disk: "
            f"{env['default_scheduler']}. Took {env['minutes']} min.\n\n{tbl}\n\n"
            f"Each pair at its best, as a reviewer would rerun it, under none: file and "
            f"buffers registered with the ring, the block devices with "
            f"{', '.join(f'{a} {best}' for a, (best, _) in guest_setup.BEST_QUEUE.items())}.\n\n"
            f"{tbl_best}\n")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


if __name__ == "__main__":
    main()
