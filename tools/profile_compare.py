#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two make profile runs: timing-free instructions per I/O of each
path at each point, before and after, and the symbols that moved most for
one path at one point, or its timing-free figure split by layer
(harness/layers.py); with --ratios, each passthrough path over its block
device before and after, and the node's ratio over NVMe's char node's.
Both runs' profile.json, as tools/profile.py writes them.

usage: profile_compare.py BEFORE.json AFTER.json [--paths node,direct]
                          [--ratios] [--symbols "read 32 irq plain node"]
                          [--layers "read 32 polled fixed node-best"]
                          [--out FILE]"""

import argparse
import json
import sys


def table(before, after, paths):
    points = [k[:-len(" node")] for k in after if k.endswith(" node") and k in before]
    lines = ["| op | QD | completion | buffers | " +
             " | ".join(f"{p} before | {p} after | {p} change" for p in paths) + " |",
             "| --- " * (4 + 3 * len(paths)) + "|"]
    for point in points:
        cells = point.split()
        for p in paths:
            b, a = before[f"{point} {p}"]["free"], after[f"{point} {p}"]["free"]
            cells += [f"{b:.0f}", f"{a:.0f}", f"{a - b:+.0f} ({(a - b) / b:+.1%})"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


# A passthrough path over its block device
RATIOS = (("node", "block"), ("direct", "block"), ("ng", "nvme"))


def ratio(run, point, path, device):
    """path's timing-free instructions per I/O over device's at point."""
    return run[f"{point} {path}"]["free"] / run[f"{point} {device}"]["free"]


def ratios(before, after):
    """Each ratio before and after, and node/block over ng/nvme: below
    1.00 the node saves a larger share of its block device's cost than
    NVMe's char node saves of NVMe's."""
    points = [k[:-len(" ng")] for k in after if k.endswith(" ng") and k in before]
    names = [f"{p}/{d}" for p, d in RATIOS] + ["node over ng"]
    lines = ["| op | QD | completion | buffers | " +
             " | ".join(f"{n} before | {n} after" for n in names) + " |",
             "| --- " * (4 + 2 * len(names)) + "|"]
    for point in points:
        cells = point.split()
        for p, d in RATIOS:
            cells += [f"{ratio(run, point, p, d):.2f}" for run in (before, after)]
        cells += [f"{ratio(run, point, 'node', 'block') / ratio(run, point, 'ng', 'nvme'):.2f}"
                  for run in (before, after)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def symbols(before, after, key, count):
    b, a = before[key]["symbols"], after[key]["symbols"]
    moved = sorted(set(a) | set(b), key=lambda s: -abs(a.get(s, 0) - b.get(s, 0)))[:count]
    lines = [f"Raw instructions per I/O of the symbols that moved most, {key}:", "",
             "| symbol | before | after | change |", "| --- | --- | --- | --- |"]
    lines += [f"| {s} | {b.get(s, 0):.0f} | {a.get(s, 0):.0f} | {a.get(s, 0) - b.get(s, 0):+.0f} |"
              for s in moved]
    return lines


def by_layer(before, after, key):
    """key's timing-free figure by layer, before and after."""
    b, a = before[key].get("layers"), after[key].get("layers")
    if b is None or a is None:
        raise SystemExit(f"{key}: a run without layers (tools/profile.py --reuse counts them)")
    lines = [f"Timing-free instructions per I/O by layer, {key}:", "",
             "| layer | before | after | change |", "| --- | --- | --- | --- |"]
    lines += [f"| {layer} | {b.get(layer, 0):.0f} | {a.get(layer, 0):.0f} | "
              f"{a.get(layer, 0) - b.get(layer, 0):+.0f} |"
              for layer in dict.fromkeys(list(b) + list(a))]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--paths", default="node,direct")
    parser.add_argument("--ratios", action="store_true")
    parser.add_argument("--symbols", action="append", default=[])
    parser.add_argument("--layers", action="append", default=[])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--out")
    args = parser.parse_args()
    before = json.load(open(args.before))["summary"]
    after = json.load(open(args.after))["summary"]
    lines = [f"# {args.before} against {args.after}", "",
             "Timing-free guest instructions per 4 KiB I/O on the load's vCPU (make profile's "
             "free column), user space and kernel.", ""]
    lines += table(before, after, args.paths.split(","))
    if args.ratios:
        lines += ["", "Each passthrough path over its block device, and the node's ratio "
                  "over NVMe's char node's (below 1.00: the node saves the larger share).", ""]
        lines += ratios(before, after)
    for key in args.symbols:
        lines += [""] + symbols(before, after, key, args.count)
    for key in args.layers:
        lines += [""] + by_layer(before, after, key)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
