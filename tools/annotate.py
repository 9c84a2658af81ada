#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per I/O of one kernel function, line by line: the counts of
the last make profile laid over objdump's disassembly, as perf annotate does.

  python3 tools/annotate.py virtblk_uring_cmd_io
  python3 tools/annotate.py blk_mq_submit_bio --point read,1,irq,plain,block

Per instruction: the executions in a run's longer window less the shorter,
per I/O, on the load's vCPU, averaged over the runs of the point in every
boot.  Raw counts, not timing-free: a function that waits (the scheduler,
the idle loop) shows what this run's waits cost.  A rep-prefixed
instruction counts each iteration, as the plugin does.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import vm  # noqa: E402
from harness.insns import by_address  # noqa: E402
from harness.profiling import CPU, boot_dir, read_boot, window_ios  # noqa: E402

KOBJ = vm.PATHS["KOBJ"]


def boots():
    """The directories of the last make profile's boots."""
    found = []
    while os.path.isdir(boot_dir(len(found))):
        found.append(boot_dir(len(found)))
    if not found:
        raise SystemExit("no make profile run in build/guests: run make profile first")
    return found


def object_of(module):
    """The object file holding a symbol: vmlinux, or the module's .ko."""
    if not module:
        return os.path.join(KOBJ, "vmlinux")
    with open(os.path.join(KOBJ, "modules.order")) as f:
        for line in f:
            path = line.strip()
            if os.path.basename(path)[:-2].replace("-", "_") == module:
                return os.path.join(KOBJ, path[:-2] + ".ko")
    raise SystemExit(f"module {module} is not in {KOBJ}/modules.order")


def locate(symbol, symbols):
    """The symbol's run-time start and end."""
    if symbol not in symbols.names:
        raise SystemExit(f"{symbol}: no such text symbol")
    i = symbols.names.index(symbol)
    end = symbols.addrs[i + 1] if i + 1 < len(symbols.addrs) else symbols.addrs[i] + 1
    return symbols.addrs[i], end


def counts(point, symbol):
    """Per offset into the symbol: executions per I/O; the symbol's module
    (None: vmlinux) and the runs found."""
    per_io, runs, module = collections.Counter(), 0, None
    for directory in boots():
        windows, sizes, symbols, done, _, _ = read_boot(directory)
        start, end = locate(symbol, symbols)
        module = symbols.modules.get(symbol)
        for i, run in enumerate(done):
            if tuple(map(str, run)) != point:
                continue
            runs += 1
            short, long_ = (by_address(w, sizes, start, end, CPU)
                            for w in windows[2 * i:2 * i + 2])
            for addr in set(short) | set(long_):
                per_io[addr - start] += (long_[addr] - short[addr]) / window_ios(run)
    if not runs:
        raise SystemExit(f"no run of {','.join(point)} in the last make profile")
    return {off: c / runs for off, c in per_io.items()}, module, runs


def disassembly(path, symbol):
    """(offset into the symbol, objdump's line) for each instruction."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(rf"^([0-9a-f]+) <{re.escape(symbol)}>:\n(.*?)(?:\n\n|\Z)", out, re.S | re.M)
    if not m:
        raise SystemExit(f"{symbol} is not in {path}")
    base = int(m.group(1), 16)
    for line in m.group(2).splitlines():
        insn = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if insn:
            yield int(insn.group(1), 16) - base, insn.group(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("symbol")
    ap.add_argument("--point", default="read,32,irq,plain,node",
                    help="op,QD,mode,buffers,path as make profile runs them "
                         "(default %(default)s)")
    args = ap.parse_args()
    point = tuple(args.point.split(","))
    per_io, module, runs = counts(point, args.symbol)
    total = 0.0
    for offset, text in disassembly(object_of(module), args.symbol):
        n = per_io.get(offset, 0.0)
        total += n
        print(f"{n:8.2f}  {offset:5x}:  {text}" if n >= 0.005 else f"{'':8}  {offset:5x}:  {text}")
    print(f"{total:.1f} instructions per I/O in {args.symbol}, {args.point}, "
          f"{runs} runs (the profile's table has the same figure)")


if __name__ == "__main__":
    main()
