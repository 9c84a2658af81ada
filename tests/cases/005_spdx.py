# SPDX-License-Identifier: GPL-2.0
"""Every source file and script of the repository names its licence in an
SPDX-License-Identifier line among its first three lines (LICENSE says
which licence covers what); what the build fetches and the patches, which
carry the licences of the files they change, are not checked."""

import subprocess

from harness.buildpaths import TOP

QUICK = True
ONCE = True

# Not sources: the series and the experiments (patches and their metadata), results, prose
SKIP_PREFIXES = ("patches/", "fio-engine/", "blktests/", "liburing/", "results/")
SKIP_SUFFIXES = (".md", ".txt", ".json", ".png", ".dat", ".patch")
SKIP_FILES = ("LICENSE",)


def test(t):
    files = subprocess.run(["git", "ls-files"], cwd=TOP, capture_output=True, text=True,
                           check=True).stdout.split()
    missing = []
    for name in files:
        if name.startswith(SKIP_PREFIXES) or name.endswith(SKIP_SUFFIXES) or name in SKIP_FILES:
            continue
        with open(f"{TOP}/{name}", errors="replace") as f:
            head = [f.readline() for _ in range(3)]
        if not any("SPDX-License-Identifier:" in line for line in head):
            missing.append(name)
    t.log(f"{len(files)} files, {len(missing)} without an SPDX line")
    t.expect(not missing, "no SPDX-License-Identifier line: " + " ".join(missing))
