"""tools/insn-plugin.c counts exactly: a user-space loop of a known number of
instructions (2N + 1) between the window markers, pinned to vCPU 1, is
counted as exactly that many user-space instructions on vCPU 1, for two
values of N, however the guest's interrupts and the other vCPU fall; and a
window around a command that does nothing counts on the vCPU it ran on."""

from insns import read_windows

LOOPS = (100000, 300000)


def test(t):
    g = t.guest([], count_insns=True)
    for n in LOOPS:
        g.output(f"insn-window -c 1 -l {n}")
    g.output("insn-window -c 0 true")
    windows, _ = read_windows(g.insns)
    t.expect_equal(len(windows), len(LOOPS) + 1, "windows counted")
    for n, w in zip(LOOPS, windows):
        t.log(f"loop of {n}: window opened on vCPU {w.opened_by}, closed on {w.closed_by}; "
              f"user {w.total(1, kernel=False)}, kernel {w.total(1, kernel=True)} on vCPU 1; "
              f"vCPU 0 {w.total(0)}")
        t.expect_equal((w.opened_by, w.closed_by), (1, 1), f"the vCPUs of the loop of {n}")
        t.expect_equal(w.total(1, kernel=False), 2 * n + 1,
                       f"user-space instructions of a loop of {n}")
    w = windows[-1]
    t.log(f"true: vCPU 0 user {w.total(0, kernel=False)} kernel {w.total(0, kernel=True)}")
    t.expect(w.opened_by == w.closed_by == 0 and w.total(0, kernel=True) > 0 and
             w.total(0, kernel=False) > 0,
             "a window around fork, exec and wait counted nothing on its vCPU")
