# SPDX-License-Identifier: GPL-2.0
"""tools/insn-plugin.c counts exactly: a user-space loop of a known number of
instructions (2N + 1) between the window markers, pinned to vCPU 1, is
counted as exactly that many user-space instructions on vCPU 1, for two
values of N, however the guest's interrupts and the other vCPU fall; a
window around a command that does nothing counts on the vCPU it ran on; and
the window t/io_uring-vblk -W1 marks holds its loop: NOPs at QD1 on vCPU 1
enter the kernel exactly once each there."""

from harness.insns import IO_URING_ENTER as ENTER, Symbols, by_symbol, read_windows
from harness.vm import SYSTEM_MAP, Disk
from harness.workloads import io_uring_vblk

QUICK = True
ONCE = True

LOOPS = (100000, 300000)
NOPS = 500


def test(t):
    g = t.guest([Disk(id="d0", backend="null", size=1 << 30)], count_insns=True)
    for n in LOOPS:
        g.output(f"insn-window -c 1 -l {n}")
    g.output("insn-window -c 0 true")
    g.output(io_uring_vblk("/dev/vdac0", nop=True, depth=1, ios=NOPS, cpu=1, window=True,
                           quiet=True))
    windows, sizes = read_windows(g.insns)
    t.expect_equal(len(windows), len(LOOPS) + 2, "windows counted")
    for n, w in zip(LOOPS, windows):
        t.log(f"loop of {n}: window opened on vCPU {w.opened_by}, closed on {w.closed_by}; "
              f"user {w.total(1, kernel=False)}, kernel {w.total(1, kernel=True)} on vCPU 1; "
              f"vCPU 0 {w.total(0)}")
        t.expect_equal((w.opened_by, w.closed_by), (1, 1), f"the vCPUs of the loop of {n}")
        t.expect_equal(w.total(1, kernel=False), 2 * n + 1,
                       f"user-space instructions of a loop of {n}")
    w = windows[-2]
    t.log(f"true: vCPU 0 user {w.total(0, kernel=False)} kernel {w.total(0, kernel=True)}")
    t.expect(w.opened_by == w.closed_by == 0 and w.total(0, kernel=True) > 0 and
             w.total(0, kernel=False) > 0,
             "a window around fork, exec and wait counted nothing on its vCPU")

    w = windows[-1]
    with open(SYSTEM_MAP) as f:
        _, entries = by_symbol(w, sizes, Symbols(f.read()), 1)
    t.log(f"io_uring-vblk -W1: vCPUs {w.opened_by}/{w.closed_by}, {ENTER} {entries[ENTER]} on vCPU 1")
    t.expect_equal((w.opened_by, w.closed_by, entries[ENTER]), (1, 1, NOPS),
                   f"io_uring-vblk -W1 around {NOPS} NOPs at QD1: vCPUs and io_uring_enter calls")
