# SPDX-License-Identifier: GPL-2.0
"""The guest runner reports a hung guest (killed within the command's time
limit) and a panicking guest as failures, with the console log kept, also
when QEMU exits under a QMP call; a guest program's exit status 77 makes
its case a SKIP, with the program's last line as the reason; a request
the guest's agent reads garbled (not matching its md5sum) is not run and
is sent again, three times at most; a case
marked ONCE runs in the default pass only; with -j 2 the results keep the
cases' order, and a case whose process dies is a failure; of the kernel's
reports, only the one known early-boot report that is not ours
(vm.KNOWN_BOOT_REPORT) goes uncounted."""

import base64
import os
import time
import types

from harness import vm
from tests import run

DESCRIPTION = "the runner reports hung and panicking guests, and skips on 77"
QUICK = True
ONCE = True     # a check of the runner, not of the kernel under test


class Garbling:
    """An agent socket that swaps the script of the next `times` requests
    for another one, leaving the md5sum of the first."""

    def __init__(self, sock, times):
        self.sock, self.times = sock, times

    def sendall(self, data):
        if self.times:
            self.times -= 1
            data = data.split(b" ")[0] + b" " + base64.b64encode(b"touch /tmp/garbled\n") + b"\n"
        self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


def test(t):
    g = t.guest(vblk=None)
    sock = g.agent
    g.agent = Garbling(sock, 2)
    t.expect_equal(g.output("echo sent again").strip(), "sent again", "a request garbled twice")
    g.agent = Garbling(sock, 3)
    try:
        g.run("echo never")
        t.expect(False, "a request garbled three times was not reported")
    except vm.GuestError as e:
        t.expect("garbled 3 times" in str(e), f"bad report: {e}")
    g.agent = sock
    t.expect_equal(g.output("ls /tmp/garbled 2>&1 || true").strip(),
                   "ls: /tmp/garbled: No such file or directory", "a garbled script ran")

    started = time.monotonic()
    try:
        g.run("sleep 600", timeout=3)
        t.expect(False, "a command that never finished was not reported")
    except vm.GuestHang as e:
        t.expect("guest hung" in str(e) and os.path.exists(g.console), f"bad report: {e}")
    t.expect(time.monotonic() - started < 30, "the hung guest was not killed promptly")
    t.expect(g.proc is None, "the hung guest's QEMU is still running")

    g = t.guest(vblk=None)
    try:
        g.run("echo c > /proc/sysrq-trigger", timeout=60)
        t.expect(False, "a guest panic was not reported")
    except vm.GuestDied as e:
        t.expect("Kernel panic" in str(e), f"the report lacks the panic: {e}")

    # QEMU gone under a QMP call: the same report, not a bare socket error
    g = t.guest([vm.Disk(id="d0", size=1 << 20)], vblk=None, hotplug=True)
    g.output("(sleep 0.5; echo c > /proc/sysrq-trigger) > /dev/null 2>&1 &")
    g.proc.wait(timeout=60 * vm.SLOWDOWN)
    try:
        g.unplug("d0")
        t.expect(False, "a guest that died before an unplug was not reported")
    except vm.GuestDied as e:
        t.expect("the unplug of d0" in str(e) and "Kernel panic" in str(e),
                 f"the report lacks the unplug or the panic: {e}")

    skipping = types.ModuleType("skipping")
    skipping.test = lambda t: t.guest(vblk=None).output("echo one; echo 'no such thing'; exit 77")
    t.expect_equal(run.run_one("090_harness_failures.skip", skipping, None),
                   ("SKIP", "no such thing"), "a case whose guest program exits 77")

    once = types.ModuleType("once")
    once.ONCE = True
    once.test = lambda t: t.expect(False, "a check of the series ran")
    passes = {"default": ("", vm.MODES[0]), "DEBUG=1": ("debug", vm.MODES[0]),
              "MODE=direct": ("", "direct")}
    saved = vm.VARIANT, vm.MODE
    try:
        for name, (vm.VARIANT, vm.MODE) in passes.items():
            verdict = run.run_one("090_harness_failures.once", once, None)[0]
            t.expect_equal(verdict, "FAIL" if name == "default" else "SKIP",
                           f"a ONCE case in the {name} pass")
    finally:
        vm.VARIANT, vm.MODE = saved

    # two at once: the slow first case's result still comes first
    slow, failing, dying = (types.ModuleType(n) for n in ("slow", "failing", "dying"))
    slow.test = lambda t: time.sleep(1)
    failing.test = lambda t: t.expect(False, "failed on purpose")
    dying.test = lambda t: os._exit(3)
    cases = {"090_harness_failures.slow": slow, "090_harness_failures.failing": failing,
             "090_harness_failures.dying": dying}
    got = [r[:2] for r in run.results(cases, [(n, "", None) for n in cases], 2)]
    t.expect_equal(got, [("PASS", ""), ("FAIL", "failed on purpose"),
                         ("FAIL", "the case's process died (exit status 3)")],
                   "three made-up cases run two at a time")

    rule = "=" * 66
    known = [rule, "BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x130/0x1de",
             " handle_edge_irq+0x28/0x203", " identify_cpu+0x2f5/0xd1f", " start_kernel+0x2e2/0x337",
             rule]
    ours = [rule, "BUG: KASAN: use-after-free in virtblk_poll+0x4d/0x146", " io_do_iopoll", rule]
    slub = [rule, "BUG kmalloc-96 (Not tainted): Right Redzone overwritten", rule]
    counted = [line for line in vm.known_reports_left_out("\n".join(known + ours + known + slub))
               if vm.KERNEL_COMPLAINTS.search(line)]
    t.expect_equal(counted, [ours[1], slub[1]], "the reports counted")
