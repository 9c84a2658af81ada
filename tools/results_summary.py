#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write results/README.md and the README's headline from results/.

results/ holds one folder per run of make profile, make bench or make
experiment (results/<date>-<what>/).  results/README.md lists them, newest
first (by commit), each with the ratios read from its profile.json and
bench.json.  The README's headline paragraph, between its two headline
markers, takes each figure from the newest snapshot that has it and names
that snapshot, so that no number in it is copied by hand.  --check writes
nothing and fails if either file is not what it would write.

usage: results_summary.py [--results DIR] [--readme FILE] [--check]"""

import argparse
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The ratios of a make profile snapshot: name -> (path, the path it is over).
# "-best" paths ran at their best (registered file, scheduler none, and
# for a block device no I/O statistics and no merging).
PROFILE_RATIOS = {
    "nvmecmd-best/nvme-best": ("nvmecmd-best", "nvme-best"),
    "ng-best/nvmecmd-best": ("ng-best", "nvmecmd-best"),
    "node-best/block-best": ("node-best", "block-best"),
    "ng-best/nvme-best": ("ng-best", "nvme-best"),
    "blkcmd-best/block-best": ("blkcmd-best", "block-best"),
    "node-best/blkcmd-best": ("node-best", "blkcmd-best"),
    "node/block": ("node", "block"),
    "direct/block": ("direct", "block"),
    "ng/nvme": ("ng", "nvme"),
}
# IOPS of make bench (t/io_uring-vblk, scheduler none), the same way
BENCH_RATIOS = {
    "node-best/block-best": ("node-best-none", "block-best-none"),
    "ng-best/nvme-best": ("ng-best-none", "nvme-best-none"),
    "node/block": ("node-none", "block-none"),
    "direct/block": ("direct-none", "block-none"),
    "ng/nvme": ("ng-none", "nvme-none"),
}
PROTOTYPE = "the block device's own uring_cmd (experiments/blkdev-uring-rw)"

# the suffix of a snapshot of the kernel before a change (its pair, without
# the suffix, is the kernel with it): never the series as it stands
BEFORE = "-before"
HEADLINE_START = "<!-- headline: tools/results_summary.py writes this paragraph from results/ -->"
HEADLINE_END = "<!-- end of headline -->"


def span(values):
    return f"{min(values):.2f}-{max(values):.2f}" if values else "-"


def profile_figures(path):
    """A make profile snapshot's ratios, per point, by PROFILE_RATIOS' names
    (those whose two paths ran), with "points" (their number) and, where
    both pairs ran, "node-best/ng-best shares" and "node/ng shares": each
    char node over its block device, the node's over NVMe's."""
    s = json.load(open(path))["summary"]
    points = sorted({k.rsplit(" ", 1)[0] for k in s})
    figures = {"points": len(points)}
    for name, (a, b) in PROFILE_RATIOS.items():
        if all(f"{p} {a}" in s and f"{p} {b}" in s for p in points):
            figures[name] = [s[f"{p} {a}"]["free"] / s[f"{p} {b}"]["free"] for p in points]
    for node, ng, name in (("node-best/block-best", "ng-best/nvme-best", "node-best/ng-best shares"),
                           ("node/block", "ng/nvme", "node/ng shares")):
        if node in figures and ng in figures:
            figures[name] = [n / g for n, g in zip(figures[node], figures[ng])]
    return figures


def bench_figures(path):
    """A make bench snapshot's IOPS ratios, per run, by BENCH_RATIOS' names."""
    runs = json.load(open(path))["summary"]
    # snapshots before the harness took one vocabulary call the node "passthrough"
    iops = {(r["op"], r["depth"], r["mode"], r["tool"], r["path"].replace("passthrough-", "node-")):
            r["iops_median"] for r in runs}
    figures = {}
    for name, (a, b) in BENCH_RATIOS.items():
        values = [v / iops[k[:4] + (b,)] for k, v in iops.items()
                  if k[3] == "io_uring-vblk" and k[4] == a and iops.get(k[:4] + (b,))]
        if values:
            figures[name] = values
    return figures


def profile_line(f):
    best = ""
    if "nvmecmd-best/nvme-best" in f:
        best += (f"nvme0n1's own uring_cmd (experiments/blkdev-uring-rw)/nvme at its best "
                 f"{span(f['nvmecmd-best/nvme-best'])}, ng over it {span(f['ng-best/nvmecmd-best'])}; ")
    if "node-best/block-best" in f:
        best += (f"each at its best: node/block {span(f['node-best/block-best'])}, "
                 f"ng/nvme {span(f.get('ng-best/nvme-best', []))}, "
                 f"node over ng {span(f.get('node-best/ng-best shares', []))}; ")
        if "blkcmd-best/block-best" in f:
            best += (f"{PROTOTYPE}/block {span(f['blkcmd-best/block-best'])}, "
                     f"node over it {span(f['node-best/blkcmd-best'])}; ")
        best += "at the defaults: "
    return (f"instructions per I/O (timing-free, {f['points']} points): {best}"
            f"node/block {span(f.get('node/block', []))}, "
            f"direct/block {span(f.get('direct/block', []))}, "
            f"ng/nvme {span(f.get('ng/nvme', []))}; node over ng, each over its block device, "
            f"{span(f.get('node/ng shares', []))}")


def bench_line(f):
    best = (f"at their best node/block {span(f['node-best/block-best'])}, "
            f"ng/nvme {span(f.get('ng-best/nvme-best', []))}; "
            if "node-best/block-best" in f else "")
    return (f"IOPS under TCG (io_uring-vblk, medians): {best}"
            f"node/block {span(f.get('node/block', []))}, "
            f"direct/block {span(f.get('direct/block', []))}, "
            f"ng/nvme {span(f.get('ng/nvme', []))}")


def committed(top, path):
    out = subprocess.run(["git", "-C", top, "log", "-1", "--format=%ct", "--", path],
                         capture_output=True, text=True).stdout.strip()
    return int(out) if out else 1 << 62      # not committed yet: the newest


def snapshots(results):
    """The snapshots, newest first: (folder, its profile figures or None,
    its bench figures or None, the error of a file that could not be read)."""
    folders = [d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d))]
    # a "-before" snapshot (a kernel without the change its pair measures)
    # lands with its pair: it goes after it
    folders.sort(key=lambda d: (committed(results, os.path.join(results, d)),
                                d.removesuffix(BEFORE), not d.endswith(BEFORE)), reverse=True)
    for d in folders:
        read = {}
        for name, figures in (("profile.json", profile_figures), ("bench.json", bench_figures)):
            path = os.path.join(results, d, name)
            read[name] = None
            if os.path.exists(path):
                try:
                    read[name] = figures(path)
                except (KeyError, ValueError, ZeroDivisionError) as e:
                    read[name] = e
        yield d, read["profile.json"], read["bench.json"]


def results_page(results, snaps):
    lines = ["# Results", "",
             "Snapshots of what `make profile` (`tools/profile.py`) and `make bench` "
             "(`tools/bench.py`) wrote, one folder per run, newest first; "
             "`tools/results_summary.py` writes this page from their json files. "
             "Under TCG absolute numbers are emulation numbers: the ratios are the result.", ""]
    for d, profile, bench in snaps:
        lines += [f"## [{d}]({d}/)", ""]
        for name, figures, line in (("profile.json", profile, profile_line),
                                    ("bench.json", bench, bench_line)):
            if isinstance(figures, Exception):
                lines.append(f"- {name}: not read ({figures!r})")
            elif figures is not None:
                lines.append(f"- {line(figures)}")
        others = sorted(f for f in os.listdir(os.path.join(results, d)) if f.endswith(".md"))
        lines.append("- files: " + ", ".join(f"[{f}]({d}/{f})" for f in others))
        lines.append("")
    return "\n".join(lines)


def headline(snaps):
    """The README's headline: each figure from the newest snapshot that has
    it, "-before" snapshots and quick profiles (fewer points than the
    most any snapshot has) left out."""
    points = max(p["points"] for _, p, _ in snaps if isinstance(p, dict))

    def newest(kind, *names):
        for d, profile, bench in snaps:
            figures = profile if kind == "profile" else bench
            if d.endswith(BEFORE) or kind == "profile" and isinstance(figures, dict) \
                    and figures["points"] < points:
                continue
            if isinstance(figures, dict) and all(n in figures for n in names):
                return f"[{d}](results/{d}/)", {n: span(figures[n]) for n in names}, figures
        raise SystemExit(f"results/ has no {kind} snapshot with {', '.join(names)}")

    best, b, fb = newest("profile", "node-best/block-best", "ng-best/nvme-best",
                         "node-best/ng-best shares")
    differ = max(abs(n - g) for n, g in zip(fb["node-best/block-best"], fb["ng-best/nvme-best"]))
    defaults, d, _ = newest("profile", "node/block", "ng/nvme")
    direct, q, _ = newest("profile", "direct/block")
    proto, p, _ = newest("profile", "blkcmd-best/block-best", "node-best/blkcmd-best",
                         "nvmecmd-best/nvme-best", "ng-best/nvmecmd-best")
    bench, i, _ = newest("bench", "node-best/block-best", "ng-best/nvme-best")
    return (
        "**Headline** (make profile's timing-free guest instructions per 4 KiB "
        f"I/O, QEMU TCG, {fb['points']} points). Against its block device at its best "
        "(registered file, I/O statistics and merging off) the node costs "
        f"{b['node-best/block-best']} of its instructions, NVMe's char node "
        f"{b['ng-best/nvme-best']} of its own ({best}): at every point the two "
        f"shares are within {differ:.2f} of each other. Against the defaults: "
        f"{d['node/block']} and {d['ng/nvme']} ({defaults}). The node on virtqueues "
        f"of its own (the RFC) costs {q['direct/block']} of the default block "
        f"device's ({direct}). The generic alternative, the block device's own "
        "uring_cmd with plain reads and writes (a prototype, "
        "`experiments/blkdev-uring-rw/`), costs "
        f"{p['blkcmd-best/block-best']} of `/dev/vda` at its best and the node "
        f"{p['node-best/blkcmd-best']} of the prototype; on nvme0n1 it costs "
        f"{p['nvmecmd-best/nvme-best']} of the block device at its best, and NVMe's "
        f"char node {p['ng-best/nvmecmd-best']} of the prototype ({proto}). IOPS "
        f"under TCG, each at its best: node/block {i['node-best/block-best']}, "
        f"ng/nvme {i['ng-best/nvme-best']} (make bench, {bench}). What that leaves "
        "the node, question by question: [docs/why.md](docs/why.md). Every "
        "number, and every earlier run: [results/README.md](results/README.md). "
        "tools/results_summary.py writes this paragraph from results/.")


def with_headline(readme, text):
    """readme with the paragraph between the headline markers replaced."""
    pattern = re.compile(re.escape(HEADLINE_START) + r"\n.*?\n" + re.escape(HEADLINE_END), re.S)
    if not pattern.search(readme):
        raise SystemExit(f"the README has no paragraph between {HEADLINE_START} and {HEADLINE_END}")
    return pattern.sub(lambda _: f"{HEADLINE_START}\n{text}\n{HEADLINE_END}", readme)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default=os.path.join(TOP, "results"))
    parser.add_argument("--readme", default=os.path.join(TOP, "README.md"))
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a file is not what would be written")
    args = parser.parse_args()
    snaps = list(snapshots(args.results))
    with open(args.readme) as f:
        readme = f.read()
    wanted = {os.path.join(args.results, "README.md"): results_page(args.results, snaps),
              args.readme: with_headline(readme, headline(snaps))}
    stale = []
    for path, text in wanted.items():
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        stale.append(path)
        if not args.check:
            with open(path, "w") as f:
                f.write(text)
    if args.check and stale:
        sys.exit("not what tools/results_summary.py writes from results/: " + ", ".join(stale))


if __name__ == "__main__":
    main()
