# SPDX-License-Identifier: GPL-2.0
"""fio's syncs through the node (cmd_type=vblk, fsync=4) are flushes: QMP's
flush_operations moves by exactly the syncs fio issued, one flush each,
one I/O at a time (with end_fsync) and four deep on a polled ring, where
how many fio issues depends on timing and its report says how many.
fsync_on_close, an fsync(2) of the node, which has none, is refused with
nothing sent to the device."""

from harness.vm import Disk
from tests.fiojob import ENGINE, errors, fio_json, guest_fio
from tests.fiojob import requires  # noqa: F401  (the runner calls it)

DESCRIPTION = "fio cmd_type=vblk syncs reach the device as one flush each"
QUICK = True

# 64 writes of 4k with a sync after every 4th write (fio issues it before
# the next write, so none follows the last)
SYNC_WRITES = 64
FSYNC = f"--rw=write --bs=4k --offset=0 --size={SYNC_WRITES * 4}k --fsync=4 --output-format=json"
COUNTERS = ("wr_operations", "flush_operations")


def test(t):
    g = t.guest([Disk(size=1 << 20)], vblk="poll_queues=1")
    syncs = (SYNC_WRITES - 1) // 4   # after writes 4, 8, ... 60
    # One at a time, the count is fio's rule exactly, and the last write
    # completes last, so end_fsync adds one (fio's report leaves it out).
    status, out, moved = guest_fio(t, g, f"--name=fsync {ENGINE} {FSYNC} --iodepth=1 "
                                   "--end_fsync=1", COUNTERS)
    t.expect(status == 0, f"fsync=4: fio failed (status {status}):\n{errors(out)}")
    t.expect_equal(fio_json(t, out)["sync"]["total_ios"], syncs, "fsync=4: syncs fio issued")
    t.expect_equal(moved, (SYNC_WRITES, syncs + 1),
                   "fsync=4, end_fsync: (writes, flushes) the device saw")

    # Four deep on a polled ring, how many syncs fio issues depends on
    # timing: after a 4th write it issues one for each I/O it gets until
    # one completes, and it skips the next if a sync completed last.  Its
    # report says how many; the device must see each of them.  (No
    # end_fsync here: fio skips it too when a sync completes last.)
    status, out, moved = guest_fio(t, g, f"--name=fsyncq {ENGINE} {FSYNC} --hipri", COUNTERS)
    t.expect(status == 0, f"fsync=4, iodepth=4: fio failed (status {status}):\n{errors(out)}")
    issued = fio_json(t, out)["sync"]["total_ios"]
    t.expect(issued > 0, "fsync=4, iodepth=4: fio issued no sync")
    t.expect_equal(moved, (SYNC_WRITES, issued),
                   "fsync=4, iodepth=4: (writes, flushes) the device saw")

    # fsync_on_close would fsync(2) the node, which has no fsync
    status, out, moved = guest_fio(t, g, f"--name=onclose {ENGINE} --rw=write --bs=4k "
                                   "--offset=0 --size=16k --fsync_on_close=1", COUNTERS)
    t.expect(status != 0 and "fsync_on_close is not supported" in out,
             f"fsync_on_close was not refused:\n{errors(out)}")
    t.expect_equal(moved, (0, 0), "fsync_on_close: (writes, flushes) the device saw")
