#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two make profile runs: timing-free instructions per I/O of each
path at each point, before and after, and the symbols that moved most for
one path at one point.  Both runs' profile.json, as tools/profile.py
writes them.

usage: profile_compare.py BEFORE.json AFTER.json [--paths node,direct]
                          [--symbols "read 32 irq plain node"] [--out FILE]"""

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


def symbols(before, after, key, count):
    b, a = before[key]["symbols"], after[key]["symbols"]
    moved = sorted(set(a) | set(b), key=lambda s: -abs(a.get(s, 0) - b.get(s, 0)))[:count]
    lines = [f"Raw instructions per I/O of the symbols that moved most, {key}:", "",
             "| symbol | before | after | change |", "| --- | --- | --- | --- |"]
    lines += [f"| {s} | {b.get(s, 0):.0f} | {a.get(s, 0):.0f} | {a.get(s, 0) - b.get(s, 0):+.0f} |"
              for s in moved]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--paths", default="node,direct")
    parser.add_argument("--symbols", action="append", default=[])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--out")
    args = parser.parse_args()
    before = json.load(open(args.before))["summary"]
    after = json.load(open(args.after))["summary"]
    lines = [f"# {args.before} against {args.after}", "",
             "Timing-free guest instructions per 4 KiB I/O on the load's vCPU (make profile's "
             "free column), user space and kernel.", ""]
    lines += table(before, after, args.paths.split(","))
    for key in args.symbols:
        lines += [""] + symbols(before, after, key, args.count)
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
