# SPDX-License-Identifier: GPL-2.0
"""Each patch of the series, applied in order, builds: the objects it
touches with W=1 and sparse, and the UAPI header alone as C and as C++."""

QUICK = True
ONCE = True


def test(t):
    t.host("scripts/check.sh", "bisect")
