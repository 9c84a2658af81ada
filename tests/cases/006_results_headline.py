# SPDX-License-Identifier: GPL-2.0
"""The README's headline and results/README.md are what
tools/results_summary.py writes from results/ as committed: no figure in
them is copied by hand, and none is one run old (a snapshot added to
results/ without rerunning the tool fails here too)."""

import subprocess
import sys

from harness.buildpaths import TOP

DESCRIPTION = "the README's headline and results/README.md are generated from results/"
QUICK = True
ONCE = True


def test(t):
    run = subprocess.run([sys.executable, f"{TOP}/tools/results_summary.py", "--check"],
                         cwd=TOP, capture_output=True, text=True)
    t.log(run.stdout + run.stderr)
    t.expect(run.returncode == 0,
             f"run tools/results_summary.py: {(run.stdout + run.stderr).strip()}")
