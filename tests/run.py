#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the test suite: one line per test and condition, then
"N passed, N failed, N skipped".

Each test is a small module in tests/cases/ (in the spirit of blktests;
tests/new NAME writes one from a commented template).  What it declares:
  - its docstring: what it shows; DESCRIPTION, the one line printed on its
    result lines (default: the docstring's first sentence, cut short);
  - QUICK = True: part of the quick run (make test QUICK=1);
  - TIMEOUT: its time limit in seconds, for each condition (default 900;
    the debug kernel's guests stretch their own limits, not this one);
  - CONDITIONS = {"name": (value, ...)}: the runner runs test(t, cond) once
    for each combination, cond being a dict, with a result line each;
  - NODE_MODES: the modes of the node it holds in (vm.MODES: all);
  - ONCE = True: it checks the series or the host's tools, not the kernel
    under test, so only the default pass (default kernel, blk-mq mode) runs
    it and the DEBUG=1 and MODE=direct passes skip it;
  - DEBUG_KERNEL = True: it drives what the debug kernel's checkers
    (KASAN, lockdep, kmemleak, fault injection) are there for: races, the
    node's life cycle, resets, device faults, full queues, error unwinding
    and bad input.  The DEBUG=1 passes run these cases only; the others
    check data and interfaces, which the default kernel's passes check in
    both modes;
  - DEBUG_CONDITIONS: CONDITIONS on the debug kernel, where they differ
    (a back end that changes the host's side, not the guest's code);
  - requires(): a reason to skip, or None;
  - test(t) (or test(t, cond)): the body, which fails by raising (t.expect,
    assert, or any exception from the guest runner) and skips with t.skip()
    or when a guest program it runs with check exits 77.
The runner owns the guests' set-up and tear-down, the logs and the summary.

usage: python3 -m tests.run [--quick] [-j JOBS] [-x NAME]... [NAME...]
(from the top of the tree: the cases import the library, harness, and
tests.helpers as packages)
A NAME matches the cases whose name contains it; -x leaves such cases out.
With -j JOBS > 1 that many cases run at once, each in a process of its own
(its own guests, logs and time limit); the result lines keep the cases'
order.  A guest's boot is mostly one vCPU's work (20-35 s on the debug
kernel), so with one job a host CPU idles through every boot.
"""

import argparse
import importlib.util
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import subprocess
import sys
import time
import traceback

from harness import vm

TESTS = os.path.dirname(os.path.abspath(__file__))
TOP = vm.TOP

CASES = os.path.join(TESTS, "cases")
LOGS = os.path.join(vm.BUILD, "logs", "tests")
TEST_TIMEOUT = 900  # seconds, unless a case says otherwise
SKIP_STATUS = 77    # a guest program's "cannot run here" (VBLK_EXIT_SKIP, guest/lib/vblk-exit.h)


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
    raise TestTimeout("the time limit ran out")


def description(module):
    """The one line that a case's result lines carry."""
    text = getattr(module, "DESCRIPTION", None)
    if text is None:
        words = " ".join((module.__doc__ or "").split())
        text = words.split(". ")[0].split("; ")[0].split(": ")[0]
    return text if len(text) <= 72 else text[:69].rsplit(" ", 1)[0] + "..."


def conditions(module):
    """Each combination of a case's CONDITIONS, as (label, dict); one
    unlabelled run for a case without any."""
    declared = getattr(module, "CONDITIONS", {})
    if vm.VARIANT == "debug":
        declared = {**declared, **getattr(module, "DEBUG_CONDITIONS", {})}
    if not declared:
        return [("", None)]
    names = list(declared)
    return [(",".join(f"{n}={v}" for n, v in zip(names, values)), dict(zip(names, values)))
            for values in itertools.product(*(declared[n] for n in names))]


def run_one(name, module, cond):
    """Run one case under one condition; return ("PASS"|"FAIL"|"SKIP", detail)."""
    reason = module.requires() if hasattr(module, "requires") else None
    if vm.MODE not in getattr(module, "NODE_MODES", vm.MODES):
        reason = f"not a test of the {vm.MODE} mode"
    if getattr(module, "ONCE", False) and (vm.VARIANT or vm.MODE != vm.MODES[0]):
        reason = "a check of the series or the tools: the default pass runs it"
    if not reason and vm.VARIANT == "debug" and not getattr(module, "DEBUG_KERNEL", False):
        reason = "no race, life cycle, fault or error path: the default kernel's passes run it"
    if reason:
        return "SKIP", reason
    t = Context(name)
    signal.alarm(getattr(module, "TIMEOUT", TEST_TIMEOUT))
    try:
        module.test(t) if cond is None else module.test(t, cond)
        complaints = t.complaints()
        if complaints:
            raise TestFailure("the kernel complained:\n" + "\n".join(complaints[:30]))
        return "PASS", ""
    except Skip as e:
        return "SKIP", str(e)
    except vm.CommandFailed as e:
        t.log(traceback.format_exc())
        if e.status == SKIP_STATUS:
            lines = e.output.strip().splitlines()
            return "SKIP", lines[-1] if lines else "a guest program skipped"
        return "FAIL", str(e)
    except (TestFailure, vm.GuestError, TestTimeout) as e:
        t.log(traceback.format_exc())
        return "FAIL", str(e)
    except Exception as e:  # a bug in the test or the harness: still a failure
        t.log(traceback.format_exc())
        return "FAIL", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
    finally:
        signal.alarm(0)
        t.close()


def logname(name, label):
    return f"{name}.{label.replace(',', '.')}" if label else name


def timed_run(modules, run):
    """run_one() of one (name, label, cond), and the seconds it took."""
    name, label, cond = run
    started = time.monotonic()
    verdict, detail = run_one(logname(name, label), modules[name], cond)
    return verdict, detail, time.monotonic() - started


def in_child(modules, run, conn):
    """A job's process: run one case, send back its result."""
    try:
        conn.send(timed_run(modules, run))
    finally:
        conn.close()


def results(modules, runs, jobs):
    """timed_run() of each of runs, in their order; with jobs > 1, up to
    that many at once, each in a forked process."""
    if jobs <= 1:
        yield from (timed_run(modules, run) for run in runs)
        return
    fork = multiprocessing.get_context("fork")
    started, running, done, pending = {}, {}, {}, list(enumerate(runs))
    for i in range(len(runs)):
        while i not in done:
            while pending and len(running) < jobs:
                j, run = pending.pop(0)
                ours, theirs = fork.Pipe(duplex=False)
                child = fork.Process(target=in_child, args=(modules, run, theirs))
                child.start()
                theirs.close()
                running[ours] = (j, child)
                started[j] = time.monotonic()
            for conn in multiprocessing.connection.wait(list(running)):
                j, child = running.pop(conn)
                try:
                    done[j] = conn.recv()
                except EOFError:    # it died before it could send its result
                    child.join()
                    done[j] = ("FAIL", f"the case's process died (exit status {child.exitcode})",
                               time.monotonic() - started[j])
                conn.close()
                child.join()
        yield done.pop(i)


def selected(modules, wanted, excluded, quick):
    """The names of the cases to run, in order, of {name: module}."""
    for name, module in modules.items():
        if wanted and not any(w in name for w in wanted):
            continue
        if any(x in name for x in excluded):
            continue
        if quick and not getattr(module, "QUICK", False):
            continue
        yield name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the cases marked QUICK")
    parser.add_argument("-x", "--exclude", action="append", default=[], metavar="NAME",
                        help="leave out the cases whose name contains NAME (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="run this many cases at once [1]")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="run only the cases whose name contains a NAME")
    args = parser.parse_args()
    os.makedirs(LOGS, exist_ok=True)
    signal.signal(signal.SIGALRM, on_alarm)
    modules = dict(load(os.path.join(CASES, p))
                   for p in sorted(os.listdir(CASES)) if p.endswith(".py"))
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    print(f"# guests run under {vm.detect_accel()}; {vm.qemu_version()}; "
          f"{vm.VARIANT or 'default'} kernel; the node in {vm.MODE} mode", flush=True)
    runs = [(name, label, cond) for name in selected(modules, args.names, args.exclude, args.quick)
            for label, cond in conditions(modules[name])]
    for (name, label, _), (verdict, detail, seconds) in zip(runs, results(modules, runs, args.jobs)):
        counts[verdict] += 1
        shown = f"{name}[{label}]" if label else name
        line = f"{verdict} {shown}: {description(modules[name])} ({seconds:.1f}s)"
        if verdict == "SKIP":
            line += f": {detail}"
        print(line, flush=True)
        if verdict == "FAIL":
            print("    " + detail.rstrip().replace("\n", "\n    "), flush=True)
            print(f"    (log: {os.path.relpath(os.path.join(LOGS, logname(name, label) + '.log'))})",
                  flush=True)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] or not sum(counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
