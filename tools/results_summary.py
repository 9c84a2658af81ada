#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write results/README.md: the snapshots in results/ (one folder per run of
make profile or make bench, results/<date>-<what>/), newest first, each with
its headline ratios read from its profile.json and bench.json.

usage: results_summary.py [--results DIR]"""

import argparse
import json
import os
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def span(values):
    return f"{min(values):.2f}-{max(values):.2f}" if values else "-"


def profile_line(path):
    """Timing-free instructions per I/O, each path over its block device."""
    s = json.load(open(path))["summary"]
    points = sorted({k.rsplit(" ", 1)[0] for k in s})

    def ratio(a, b):
        return [s[f"{p} {a}"]["free"] / s[f"{p} {b}"]["free"] for p in points
                if f"{p} {a}" in s and f"{p} {b}" in s]
    def over(node, ng):
        return [n / g for n, g in zip(node, ng)] if len(node) == len(ng) else []
    node, ng = ratio("node", "block"), ratio("ng", "nvme")
    best = ""
    if any(k.endswith(" block-best") for k in s):
        node_best, ng_best = ratio("node-best", "block-best"), ratio("ng-best", "nvme-best")
        best = (f"each at its best: node/block {span(node_best)}, ng/nvme {span(ng_best)}, "
                f"node over ng {span(over(node_best, ng_best))}; ")
        if any(k.endswith(" blkcmd-best") for k in s):
            best += (f"the block device's own uring_cmd (experiments/blkdev-uring-rw)/block "
                     f"{span(ratio('blkcmd-best', 'block-best'))}, node over it "
                     f"{span(ratio('node-best', 'blkcmd-best'))}; ")
        best += "at the defaults: "
    if any(k.endswith(" nvmecmd-best") for k in s):
        best = (f"nvme0n1's own uring_cmd (experiments/blkdev-uring-rw)/nvme at its best "
                f"{span(ratio('nvmecmd-best', 'nvme-best'))}, ng over it "
                f"{span(ratio('ng-best', 'nvmecmd-best'))}; " + best)
    return (f"instructions per I/O (timing-free, {len(points)} points): {best}"
            f"node/block {span(node)}, direct/block {span(ratio('direct', 'block'))}, "
            f"ng/nvme {span(ng)}; node over ng, each over its block device, {span(over(node, ng))}")


def bench_line(path):
    """IOPS of t/io_uring-vblk's runs, each path over its block device (scheduler none)."""
    runs = json.load(open(path))["summary"]
    # snapshots before the harness took one vocabulary call the node "passthrough"
    iops = {(r["op"], r["depth"], r["mode"], r["tool"], r["path"].replace("passthrough-", "node-")):
            r["iops_median"] for r in runs}

    def ratio(a, b):
        return [v / iops[k[:4] + (b,)] for k, v in iops.items()
                if k[3] == "io_uring-vblk" and k[4] == a and iops.get(k[:4] + (b,))]
    node_best = ratio('node-best-none', 'block-best-none')
    best = (f"at their best node/block {span(node_best)}, "
            f"ng/nvme {span(ratio('ng-best-none', 'nvme-best-none'))}; " if node_best else "")
    return (f"IOPS under TCG (io_uring-vblk, medians): {best}"
            f"node/block {span(ratio('node-none', 'block-none'))}, "
            f"direct/block {span(ratio('direct-none', 'block-none'))}, "
            f"ng/nvme {span(ratio('ng-none', 'nvme-none'))}")


def committed(path):
    out = subprocess.run(["git", "-C", TOP, "log", "-1", "--format=%ct", "--", path],
                         capture_output=True, text=True).stdout.strip()
    return int(out) if out else 1 << 62      # not committed yet: the newest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default=os.path.join(TOP, "results"))
    args = parser.parse_args()
    folders = [d for d in os.listdir(args.results) if os.path.isdir(os.path.join(args.results, d))]
    folders.sort(key=lambda d: (committed(os.path.join(args.results, d)), d), reverse=True)
    lines = ["# Results", "",
             "Snapshots of what `make profile` (`tools/profile.py`) and `make bench` "
             "(`tools/bench.py`) wrote, one folder per run, newest first; "
             "`tools/results_summary.py` writes this page from their json files. "
             "Under TCG absolute numbers are emulation numbers: the ratios are the result.", ""]
    for d in folders:
        lines.append(f"## [{d}]({d}/)")
        lines.append("")
        for name, line in (("profile.json", profile_line), ("bench.json", bench_line)):
            path = os.path.join(args.results, d, name)
            if os.path.exists(path):
                try:
                    lines.append(f"- {line(path)}")
                except (KeyError, ValueError, ZeroDivisionError) as e:
                    lines.append(f"- {name}: not read ({e!r})")
        others = sorted(f for f in os.listdir(os.path.join(args.results, d)) if f.endswith(".md"))
        lines.append("- files: " + ", ".join(f"[{f}]({d}/{f})" for f in others))
        lines.append("")
    with open(os.path.join(args.results, "README.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
