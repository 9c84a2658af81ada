# SPDX-License-Identifier: GPL-2.0
"""The documentation the series adds or changes is clean: kernel-doc on its
UAPI header, the kernel's ABI parser on its sysfs ABI file, and a reST
parse of its pages (scripts/check.sh docs)."""

QUICK = True
ONCE = True


def test(t):
    t.host("scripts/check.sh", "docs")
