# SPDX-License-Identifier: GPL-2.0
"""Every patch of the series is clean under checkpatch.pl --strict."""

QUICK = True
ONCE = True


def test(t):
    t.host("scripts/check.sh", "checkpatch")
