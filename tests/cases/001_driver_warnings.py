# SPDX-License-Identifier: GPL-2.0
"""Every C file the series touches builds with sparse (C=2) and W=1 without
a warning that the base does not have (scripts/check.sh driver)."""

QUICK = True


def test(t):
    t.host("scripts/check.sh", "driver")
