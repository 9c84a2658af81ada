"""The guest runner reports a hung guest (killed within the command's time
limit) and a panicking guest as failures, with the console log kept; a
guest program's exit status 77 makes its case a SKIP, with the program's
last line as the reason."""

import os
import time
import types

import run
import vm

DESCRIPTION = "the runner reports hung and panicking guests, and skips on 77"
QUICK = True


def test(t):
    g = t.guest(vblk=None)
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

    skipping = types.ModuleType("skipping")
    skipping.test = lambda t: t.guest(vblk=None).output("echo one; echo 'no such thing'; exit 77")
    t.expect_equal(run.run_one("090_harness_failures.skip", skipping, None),
                   ("SKIP", "no such thing"), "a case whose guest program exits 77")
