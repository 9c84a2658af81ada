#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a patch does to NVMe's passthrough (ng) and block device (nvme) per
I/O: make profile's NVMe runs of the tree before and after it, as
scripts/nvme-effect.sh leaves them (DIR/N/profile.json for the tree with
patches 1..N), one table per patch: timing-free instructions per I/O,
before, after and the difference, and the spread of the two boots of each.

usage: tools/nvme_effect.py DIR N...
"""

import json
import os
import sys

PATHS = ("ng", "nvme")


def load(directory, n):
    with open(os.path.join(directory, str(n), "profile.json")) as f:
        summary = json.load(f)["summary"]
    return {tuple(k.split()): v for k, v in summary.items()}


def subject(directory, n):
    try:
        with open(os.path.join(directory, str(n), "subject")) as f:
            return f.read().strip()
    except OSError:
        return ""


def patch_table(directory, n):
    before, after = load(directory, n - 1), load(directory, n)
    lines = [f"## patch {n} {subject(directory, n)}".rstrip(), "",
             "| op | QD | completion | buffers | " +
             " | ".join(f"{p} before | {p} after | {p} change" for p in PATHS) +
             " | spread of 2 boots, before / after |",
             "| --- " * (5 + 3 * len(PATHS)) + "|"]
    for point in dict.fromkeys(k[:4] for k in after):
        cells, spreads = [], []
        for path in PATHS:
            b, a = before[point + (path,)], after[point + (path,)]
            cells += [f"{b['free']:.0f}", f"{a['free']:.0f}", f"{a['free'] - b['free']:+.0f}"]
            spreads.append(f"{path} {100 * b['spread']:.1f} / {100 * a['spread']:.1f} %")
        lines.append("| " + " | ".join(point) + " | " + " | ".join(cells) +
                     " | " + ", ".join(spreads) + " |")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__.split("\n\n")[-1].strip())
    directory = sys.argv[1]
    print("# NVMe per I/O before and after each patch\n\n"
          "Timing-free guest instructions per 4 KiB read (tools/profile.py --paths ng,nvme "
          "--quick --fixed, mean of two boots); ng: NVMe's char node /dev/ng0n1 "
          "(uring_cmd), nvme: its block device /dev/nvme0n1 (O_DIRECT).\n")
    for n in map(int, sys.argv[2:]):
        print(patch_table(directory, n) + "\n")


if __name__ == "__main__":
    main()
