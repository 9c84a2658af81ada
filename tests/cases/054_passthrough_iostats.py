# SPDX-License-Identifier: GPL-2.0
"""Node reads and writes count in the disk's I/O statistics (/proc/diskstats,
what iostat shows) when the disk's queue/iostats_passthrough is 1, as NVMe's
passthrough does, and not when it is 0.  QEMU's own counters show that
the I/O reached the device either way.  The node's own virtqueues (the
direct mode) bypass the block layer and are never counted."""

from harness import vm
from harness.vm import Disk
from tests.helpers import OK, vblk_cmd

DESCRIPTION = "node I/O in the disk's statistics with iostats_passthrough"
QUICK = True

MiB = 1 << 20
READS, WRITES, LEN = 5, 3, 16384


def disk_stat(g):
    """Reads completed, sectors read, writes completed, sectors written."""
    f = g.output("cat /sys/block/vda/stat").split()
    return int(f[0]), int(f[2]), int(f[4]), int(f[6])


def node_io(t, g):
    """READS reads and WRITES writes of LEN bytes through the node; how many of
    each QEMU saw."""
    before = g.blockstats("d0")
    for i in range(READS):
        t.expect_equal(vblk_cmd(g, f"-s {8192 + 64 * i} -l {LEN}")[0], OK, "node read")
    for i in range(WRITES):
        t.expect_equal(vblk_cmd(g, f"-w -s {16384 + 64 * i} -l {LEN}")[0], OK, "node write")
    after = g.blockstats("d0")
    return (after["rd_operations"] - before["rd_operations"],
            after["wr_operations"] - before["wr_operations"])


def test(t):
    g = t.guest([Disk(id="d0", size=64 * MiB)])
    counted = vm.MODE != "direct"
    for setting in (0, 1, 0):
        g.output(f"echo {setting} > /sys/block/vda/queue/iostats_passthrough")
        before = disk_stat(g)
        seen = node_io(t, g)
        after = disk_stat(g)
        t.expect_equal(seen, (READS, WRITES), f"iostats_passthrough={setting}: I/Os QEMU saw")
        delta = tuple(a - b for a, b in zip(after, before))
        want = (READS, READS * LEN // 512, WRITES, WRITES * LEN // 512) \
            if setting and counted else (0, 0, 0, 0)
        t.expect_equal(delta, want, f"iostats_passthrough={setting}: "
                       "reads, sectors read, writes, sectors written in /sys/block/vda/stat")
