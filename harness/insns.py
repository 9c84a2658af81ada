# SPDX-License-Identifier: GPL-2.0
"""The instruction counts of tools/insn-plugin.c: its windows, per vCPU, split
into user space and kernel, and per kernel symbol.

A Window holds, for every translated block executed in it, its executions
per vCPU; the plugin writes each block's instruction sizes once, so every
instruction's address is known and can be given to the symbol holding it.
"""

import bisect
import collections
import re

# x86-64: kernel addresses have the top bits set, user space's do not
KERNEL_START = 0xffff800000000000
USER = "[user]"
# the x86-64 system call every io_uring wait and submission enters by
IO_URING_ENTER = "__x64_sys_io_uring_enter"
UNKNOWN = "[kernel, no symbol]"


class Window:
    def __init__(self, number, opened_by, closed_by):
        self.number, self.opened_by, self.closed_by = number, opened_by, closed_by
        self.blocks = []        # (vaddr, n_insns, [executions per vCPU])

    def total(self, vcpu, kernel=None):
        """Instructions run on vcpu; kernel True/False: only that side."""
        return sum(n * execs[vcpu] for vaddr, n, execs in self.blocks
                   if kernel is None or (vaddr >= KERNEL_START) == kernel)

    def vcpus(self):
        return len(self.blocks[0][2]) if self.blocks else 0


def read_windows(path):
    """The windows of a plugin output file, and each block's instruction sizes."""
    windows, sizes, current = [], {}, None
    with open(path) as f:
        for line in f:
            word, *rest = line.split()
            if word == "window":
                current = Window(int(rest[0]), int(rest[2]), int(rest[4]))
            elif word == "insns":
                sizes[int(rest[0], 16), len(rest) - 1] = [int(s) for s in rest[1:]]
            elif word == "tb":
                current.blocks.append((int(rest[0], 16), int(rest[1]),
                                       [int(c) for c in rest[2:]]))
            elif word == "end":
                windows.append(current)
                current = None
    return windows, sizes


class Symbols:
    """Kernel text symbols: System.map and the modules' lines of /proc/kallsyms."""

    LINE = re.compile(r"^([0-9a-f]+) ([tTwW]) (\S+)(?:\s+\[(\S+)\])?")

    def __init__(self, *texts):
        found = {}
        self.modules = {}       # a module's symbol: its module's name
        for text in texts:
            for line in text.splitlines():
                m = self.LINE.match(line)
                if m and int(m.group(1), 16) >= KERNEL_START:
                    found.setdefault(int(m.group(1), 16), m.group(3))
                    if m.group(4):
                        self.modules.setdefault(m.group(3), m.group(4))
        self.addrs = sorted(found)
        self.names = [found[a] for a in self.addrs]

    def name(self, addr):
        if addr < KERNEL_START:
            return USER
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else UNKNOWN

    def start(self, addr):
        """Whether addr is the first instruction of a symbol."""
        i = bisect.bisect_left(self.addrs, addr)
        return i < len(self.addrs) and self.addrs[i] == addr


def executions(window, sizes, vcpu):
    """(address, executions on vcpu) of every instruction the window ran there."""
    for vaddr, n, execs in window.blocks:
        if execs[vcpu]:
            addr = vaddr
            for size in sizes[vaddr, n]:
                yield addr, execs[vcpu]
                addr += size


def by_symbol(window, sizes, symbols, vcpu):
    """Instructions per symbol on vcpu, and entries: executions of a block that
    starts at a symbol's first instruction (calls, and jumps back to it)."""
    insns, entries = collections.Counter(), collections.Counter()
    for addr, count in executions(window, sizes, vcpu):
        insns[symbols.name(addr)] += count
    for vaddr, n, execs in window.blocks:
        if execs[vcpu] and symbols.start(vaddr):
            entries[symbols.name(vaddr)] += execs[vcpu]
    return insns, entries


def by_address(window, sizes, start, end, vcpu):
    """Executions on vcpu of each instruction whose address is in [start, end)."""
    counts = collections.Counter()
    for addr, count in executions(window, sizes, vcpu):
        if start <= addr < end:
            counts[addr] += count
    return counts


def over_both(short, long_, event, n):
    """A wait's entries per I/O over both windows of a run (n and 2n I/Os):
    a difference of the two counts falls below zero when the shorter
    window stalled once."""
    return (short[event] + long_[event]) / (3 * n)


def mean_symbols(tables):
    """Each symbol's mean count over tables of counts per I/O (a symbol
    absent from a table counts 0 there), biggest first."""
    tables = list(tables)
    total = collections.Counter()
    for table in tables:
        for k, v in table.items():
            total[k] += v / len(tables)
    return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))


def waits(per_io):
    """Events per I/O, differences of counts: no "-0.00"."""
    return f"{0.0 if abs(per_io) < 0.005 else per_io:.2f}"
