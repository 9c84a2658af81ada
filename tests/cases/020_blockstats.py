# SPDX-License-Identifier: GPL-2.0
"""QMP query-blockstats counters move by exactly the operations the guest
issued (queue depth 1, so nothing is merged or split on the way)."""

from harness.vm import Disk

DESCRIPTION = "QMP block counters move by exactly the I/O done"
QUICK = True

COUNTERS = ("rd_operations", "wr_operations", "rd_bytes", "wr_bytes")


def test(t):
    g = t.guest([Disk(size=16 << 20)])
    before = g.blockstats("d0")
    g.output("vblk-io -b 4096 write /dev/vda 0 131072 5")     # 32 writes
    g.output("vblk-io -b 8192 verify /dev/vda 0 131072 5")    # 16 reads
    after = g.blockstats("d0")
    moved = {c: after[c] - before[c] for c in COUNTERS}
    t.log(f"counters moved by {moved}")
    t.expect_equal(moved, {"rd_operations": 16, "wr_operations": 32,
                           "rd_bytes": 131072, "wr_bytes": 131072}, "blockstats deltas")
