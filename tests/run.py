#!/usr/bin/env python3
"""Run the test suite: one line per test, then "N passed, N failed, N skipped".

Each test is a small module in tests/cases/ (in the spirit of blktests):
its docstring says what it shows, an optional requires() returns a reason
to skip (or None), an optional NODE_MODES lists the modes of the node it holds
in (vm.MODES: all), and test(t) is the body, which fails by raising
(t.expect, assert, or any exception from the guest runner) and skips with
t.skip().  The runner owns the guests' set-up and tear-down, the logs and
the summary.

usage: tests/run.py [NAME-SUBSTRING...]
"""

import importlib.util
import os
import signal
import subprocess
import sys
import time
import traceback

TESTS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(TESTS)
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, TESTS)  # helpers.py
import vm  # noqa: E402

CASES = os.path.join(TESTS, "cases")
LOGS = os.path.join(vm.BUILD, "logs", "tests")
TEST_TIMEOUT = 900  # seconds; guests time out their commands well before


class Skip(Exception):
    """The test cannot run here; the reason says why."""


class TestFailure(AssertionError):
    """An expectation of the test did not hold."""


class TestTimeout(Exception):
    pass


class Context:
    """What a test body gets: guests, expectations, a log."""

    def __init__(self, name):
        self.name = name
        self.guests = []
        self.logfile = open(os.path.join(LOGS, f"{name}.log"), "w")

    def guest(self, disks=(), vblk="", **kwargs):
        """Boot a guest with these disks; load virtio_blk with the module
        parameters vblk (None: leave it unloaded).  Killed when the test ends."""
        name = f"{self.name}.{len(self.guests)}"
        guest = vm.Guest(name, disks, **kwargs)
        self.guests.append(guest)
        guest.start()
        self.log(f"guest {name} booted in {guest.boot_seconds:.1f}s under {guest.accel}")
        if vblk is not None:
            guest.load_vblk(vblk)
        return guest

    def host(self, *command):
        """Run a command of the repository on the host; it must succeed."""
        r = subprocess.run(command, cwd=TOP, capture_output=True, text=True)
        self.log(r.stdout + r.stderr)
        self.expect(r.returncode == 0, f"{' '.join(command)} failed:\n{r.stdout}{r.stderr}")
        return r.stdout

    def log(self, message):
        self.logfile.write(message.rstrip("\n") + "\n")
        self.logfile.flush()

    def expect(self, condition, message):
        if not condition:
            raise TestFailure(message)

    def expect_equal(self, got, want, what):
        if got != want:
            raise TestFailure(f"{what}: got {got!r}, expected {want!r}")

    def skip(self, reason):
        raise Skip(reason)

    def complaints(self):
        """What the kernels of this test's guests complained about."""
        found = []
        for guest in self.guests:
            found += [f"{guest.name}: {line}" for line in guest.complaints()]
        return found

    def close(self):
        for guest in self.guests:
            guest.stop()
        self.logfile.close()


def load(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"cases.{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return name, module


def on_alarm(signum, frame):
    raise TestTimeout(f"test did not finish within {TEST_TIMEOUT}s")


def run_one(name, module):
    """Run one case; return ("PASS"|"FAIL"|"SKIP", detail)."""
    reason = module.requires() if hasattr(module, "requires") else None
    if vm.MODE not in getattr(module, "NODE_MODES", vm.MODES):
        reason = f"not a test of the {vm.MODE} mode"
    if reason:
        return "SKIP", reason
    t = Context(name)
    signal.alarm(TEST_TIMEOUT)
    try:
        module.test(t)
        complaints = t.complaints()
        if complaints:
            raise TestFailure("the kernel complained:\n" + "\n".join(complaints[:30]))
        return "PASS", ""
    except Skip as e:
        return "SKIP", str(e)
    except (TestFailure, vm.GuestError, TestTimeout) as e:
        t.log(traceback.format_exc())
        return "FAIL", str(e)
    except Exception as e:  # a bug in the test or the harness: still a failure
        t.log(traceback.format_exc())
        return "FAIL", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
    finally:
        signal.alarm(0)
        t.close()


def main():
    os.makedirs(LOGS, exist_ok=True)
    signal.signal(signal.SIGALRM, on_alarm)
    wanted = sys.argv[1:]
    paths = sorted(p for p in os.listdir(CASES) if p.endswith(".py"))
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    print(f"# guests run under {vm.detect_accel()}; {vm.qemu_version()}; "
          f"{vm.VARIANT or 'default'} kernel; the node in {vm.MODE} mode", flush=True)
    for path in paths:
        name, module = load(os.path.join(CASES, path))
        if wanted and not any(w in name for w in wanted):
            continue
        started = time.monotonic()
        verdict, detail = run_one(name, module)
        counts[verdict] += 1
        line = f"{verdict} {name} ({time.monotonic() - started:.1f}s)"
        if verdict == "SKIP":
            line += f": {detail}"
        print(line, flush=True)
        if verdict == "FAIL":
            print("    " + detail.rstrip().replace("\n", "\n    "), flush=True)
            print(f"    (log: {os.path.relpath(os.path.join(LOGS, name + '.log'))})", flush=True)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] or not sum(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
