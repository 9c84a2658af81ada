# SPDX-License-Identifier: GPL-2.0
"""The blktests cases of the series for blktests (blktests/: the group
virtio), run in the guest as blktests runs them (guest/blktests/check):
each must pass, none may be left unrun.  Outside the guest, QMP's counters
and the host's image check what they claim: virtio/001 and virtio/004
write their random data through the block device once (one 64 KiB
O_DIRECT write), and their refusals send the device no other write,
write zeroes or discard; virtio/003's writes and write zeroes are in the
image."""

from harness.vm import TOOLS_ENV, Disk
from tests.helpers import image_has_data, moved

DESCRIPTION = "blktests' virtio group (the node's blktests cases) passes"
QUICK = True
TESTS = ("virtio/001", "virtio/002", "virtio/003", "virtio/004")
SERIAL = "blktests-vdb"
WRITES = ("wr_operations", "unmap_operations")
# what the device sees of a test that refuses: the data it plants first
REFUSING = {"virtio/001": {"wr_operations": 1, "unmap_operations": 0},
            "virtio/004": {"wr_operations": 1, "unmap_operations": 0}}


def test(t):
    g = t.guest([Disk(id="d0", size=1 << 20), Disk(id="d1", serial=SERIAL, discard=True)],
                tools=True)
    g.run(f"{TOOLS_ENV}; cp -a $SUITES/blktests /tmp/ && "
          "printf 'TEST_DEVS=(/dev/vdb)\\nNORMAL_USER=user\\n' >/tmp/blktests/config")
    for name in TESTS:
        before = g.counters("d1", WRITES)
        status, out = g.run(f"{TOOLS_ENV}; cd /tmp/blktests && bash ./check -o /tmp/results "
                            f"{name}", timeout=300, check=False)
        seen = moved(before, g.counters("d1", WRITES))
        t.log(f"{name}: {out.strip()}\n  device: {seen}")
        t.expect(status == 0 and "[passed]" in out, f"{name} did not pass:\n{out}")
        if name in REFUSING:
            t.expect_equal(seen, REFUSING[name], f"{name}: what the device saw")
        if name == "virtio/003":
            check_003(t, g.disks["d1"].image)


def check_003(t, image):
    """virtio/003 wrote 64 KiB at sectors 128 to 640 and zeroes at 0 (which
    virtio/004 overwrites with its own data)."""
    with open(image, "rb") as f:
        head = f.read(640 * 512)
    t.expect(head[:65536] == bytes(65536), "virtio/003's write zeroes is not in the image")
    t.expect(image_has_data(image, 256 * 512, 384 * 512) and
             head[256 * 512:] != bytes(384 * 512), "virtio/003's writes are not in the image")
