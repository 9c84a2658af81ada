#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each path's instructions per I/O go, layer by layer: make
profile's timing-free figure (a snapshot's profile.json) split by the layers
of harness/layers.py.

make profile fits each layer's instructions per window on the same waits as
the whole (tools/profile.py, harness/insn_fit.py), so a point's layers add
up to its timing-free figure; "polling and idle" keeps what a canonical wait
costs (one sleep and wake-up, or one pass and one driver poll, per
io_uring_enter).  Symbols are placed by the source file that defines them,
read from the guest kernel's objects; what no rule places is "the rest",
and the report lists its biggest symbols.

Writes layers.md (one table per point: every path, and the differences of
DIFFERENCES whose paths ran) and layers.png (per point, a stacked bar per path) beside
the profile.json.

usage: layers.py [--no-plot] SNAPSHOT/profile.json
"""

import argparse
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import layers, vm  # noqa: E402

LAYERS = layers.LAYERS

# the paths a table shows, and the bars of the picture
PATHS = ("block", "block-best", "blkcmd-best", "node", "node-best", "direct", "ng", "ng-best",
         "nvme", "nvme-best", "nvmecmd-best")
# the differences a table shows, when both paths ran: what the node at its
# best saves against the block device at its best, what the block device's
# own uring_cmd (make experiment) costs beyond the node, what the direct
# mode saves beyond the node (neither with a registered file)
DIFFERENCES = (("block-best", "node-best"), ("blkcmd-best", "node-best"), ("node", "direct"))
TOP_REST = 12
# a colour per layer, in LAYERS' order, no two alike
COLOURS = ("#7f7f7f", "#c7c7c7", "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c",
           "#98df8a", "#d62728", "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#e377c2",
           "#17becf")


def rest_symbols(summary, kobj):
    """The symbols that fell into the rest, biggest first: mean raw
    instructions per I/O over the snapshot's points and paths; kobj: the
    measured kernel's objects."""
    files, rest, n = layers.symbol_files(kobj), collections.Counter(), 0
    for key, entry in summary.items():
        if key.rsplit(" ", 1)[1] in PATHS:
            n += 1
            for name, count in entry["symbols"].items():
                if layers.layer_of(name, files) == layers.REST:
                    rest[name] += count
    return [(k, v / n) for k, v in rest.most_common(TOP_REST)]


def point_table(point, by_path):
    paths = [p for p in PATHS if p in by_path]
    pairs = [(a, b) for a, b in DIFFERENCES if a in by_path and b in by_path]
    head = ["layer"] + paths + [f"{a} - {b}" for a, b in pairs]
    lines = ["| " + " | ".join(head) + " |", "| --- " * len(head) + "|"]
    for layer in LAYERS + ["total (timing-free)"]:
        if layer == "total (timing-free)":
            values = {p: sum(by_path[p].values()) for p in paths}
        else:
            values = {p: by_path[p][layer] for p in paths}
        saved = [values[a] - values[b] for a, b in pairs]
        lines.append(f"| {layer} | " + " | ".join(f"{values[p]:.0f}" for p in paths) +
                     " | " + " | ".join(f"{v:+.0f}" for v in saved) + " |")
    return f"\n## {point}\n\n" + "\n".join(lines)


def plot(points, tables, out):
    """layers.png: a panel per point, a stacked bar per path."""
    data = out + ".dat"
    with open(data, "w") as f:
        for point in points:
            f.write(f"# {point}\n")
            f.write("path " + " ".join(f'"{layer}"' for layer in LAYERS) + "\n")
            for p in PATHS:
                if p in tables[point]:
                    f.write(f"{p} " + " ".join(f"{max(tables[point][p][layer], 0):.0f}"
                                               for layer in LAYERS) + "\n")
            f.write("\n\n")
    rows = len(points) // 4 + 1         # and a panel for the key
    script = [f"set terminal pngcairo size 2400,{700 * rows} font ',10' noenhanced",
              f"set output '{out}.png'",
              "set style data histograms", "set style histogram rowstacked",
              "set style fill solid 0.9 border -1", "set boxwidth 0.75",
              "set xtics rotate by -45", "set ylabel 'instructions per I/O (timing-free)'"]
    script += [f"set linetype {c + 1} lc rgb '{COLOURS[c]}'" for c in range(len(LAYERS))]
    script.append(f"set multiplot layout {rows},4 title 'Where the instructions per 4 KiB I/O "
                  "go, by layer (make profile, timing-free)'")
    script.append("unset key")
    for i, point in enumerate(points):
        cols = " , ".join(f"'{data}' index {i} using {c + 2}:xtic(1) title columnhead"
                          if c == 0 else f"'' index {i} using {c + 2} title columnhead"
                          for c in range(len(LAYERS)))
        script += [f"set title '{point}'", f"plot {cols}"]
    # the key, alone in the next panel: the same styles, no data
    script += ["unset title", "unset border", "unset xtics", "unset ytics", "unset ylabel",
               "set yrange [0:1]", "set key center center vertical box",
               "plot " + " , ".join(f"NaN with boxes fill solid 0.9 lt {c + 1} title '{layer}'"
                                    for c, layer in enumerate(LAYERS)),
               "unset multiplot"]
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)
    os.remove(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profile")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    profile = json.load(open(args.profile))
    summary = profile["summary"]
    tables = collections.defaultdict(dict)
    for key, entry in summary.items():
        point, path = key.rsplit(" ", 1)
        if path in PATHS:
            if "layers" not in entry:
                raise SystemExit(f"{args.profile}: no layers (make profile before they were "
                                 "counted; tools/profile.py --reuse counts them again)")
            tables[point][path] = collections.Counter(entry["layers"])
    points = list(tables)
    text = ["# Instructions per I/O by layer", "",
            " ".join(__doc__.split("\n\n")[1].split()), "",
            "Rules (harness/layers.py), the first that matches: " + "; ".join(
                f"{layer}: {fr.pattern if fr else 'any file'}"
                f"{', named ' + nr.pattern if nr else ''}" for layer, fr, nr in layers.RULES) + ".",
            "", "What fell into the rest, mean raw instructions per I/O over every point and "
            "path: " + ", ".join(f"{k} {v:.0f}" for k, v in rest_symbols(
                summary, profile.get("kobj", vm.PATHS["KOBJ"]))) + "."]
    text += [point_table(p, tables[p]) for p in points]
    out = os.path.join(os.path.dirname(os.path.abspath(args.profile)), "layers")
    with open(out + ".md", "w") as f:
        f.write("\n".join(text) + "\n")
    if not args.no_plot:
        plot(points, tables, out)
    print("\n".join(text))


if __name__ == "__main__":
    main()
