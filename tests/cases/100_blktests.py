# SPDX-License-Identifier: GPL-2.0
"""The blktests cases of the series for blktests (blktests/: the group
virtio_blk), run in the guest by blktests' own ./check, from blktests
master with the series applied and built by its own make
(scripts/suites.sh), with a config file giving TEST_DEVS and NORMAL_USER.
First the group as a maintainer runs it, ./check virtio_blk: it must run
exactly the tests this case knows and pass each, and find every command it
looks for.  Then each test again on its own (./check virtio_blk/NNN), so
that outside the guest QMP's counters and the host's image check what each
claims: virtio_blk/001 and virtio_blk/004 write their random data through
the block device once (one 64 KiB O_DIRECT write), and their refusals send
the device no other write, write zeroes or discard; virtio_blk/003's
writes and write zeroes are in the image."""

import re

from harness.vm import TOOLS_ENV, Disk
from tests.helpers import image_has_data, moved

DESCRIPTION = "blktests' virtio_blk group (the node's blktests cases) passes under ./check"
QUICK = True
GROUP = "virtio_blk"
TESTS = tuple(f"{GROUP}/{n:03d}" for n in range(1, 5))
SERIAL = "blktests-vdb"
WRITES = ("wr_operations", "unmap_operations")
# what the device sees of a test that refuses: the data it plants first
REFUSING = {f"{GROUP}/001": {"wr_operations": 1, "unmap_operations": 0},
            f"{GROUP}/004": {"wr_operations": 1, "unmap_operations": 0}}
CONFIG = "/tmp/blktests.config"
# ./check on the tests or groups given, its output in a file as a CI job's:
# on the agent's terminal it would draw its results with tput
CHECK = (f"{TOOLS_ENV}; cd $SUITES/blktests && bash ./check -c {CONFIG} -o /tmp/blktests-results "
         "{} >/tmp/check.out 2>&1; rc=$?; cat /tmp/check.out; exit $rc")
# what ./check says of a command it looks for and does not find
MISSING = re.compile(r"is not available|command not found")


def check(t, g, what):
    """Run ./check on what; return the tests it passed on vdb, in order."""
    status, out = g.run(CHECK.format(what), timeout=300, check=False)
    t.log(f"./check {what}:\n{out.strip()}")
    t.expect(status == 0, f"./check {what} exited with {status}:\n{out}")
    t.expect(not re.search(r"\[(failed|not run)\]", out), f"./check {what} failed or skipped:\n{out}")
    t.expect(not MISSING.search(out), f"./check misses a command in the guest:\n{out}")
    return tuple(re.findall(rf"^({GROUP}/\d+) => vdb .*\[passed\]$", out, re.M))


def test(t):
    g = t.guest([Disk(id="d0", size=1 << 20), Disk(id="d1", serial=SERIAL, discard=True)],
                tools=True)
    g.run(f"printf 'TEST_DEVS=(/dev/vdb)\\nNORMAL_USER=user\\n' >{CONFIG}")
    t.expect_equal(check(t, g, GROUP), TESTS, f"the tests ./check {GROUP} passed")
    for name in TESTS:
        before = g.counters("d1", WRITES)
        passed = check(t, g, name)
        seen = moved(before, g.counters("d1", WRITES))
        t.log(f"  device: {seen}")
        t.expect_equal(passed, (name,), f"the tests ./check {name} passed")
        if name in REFUSING:
            t.expect_equal(seen, REFUSING[name], f"{name}: what the device saw")
        if name == f"{GROUP}/003":
            check_003(t, g.disks["d1"].image)


def check_003(t, image):
    """virtio_blk/003 wrote 64 KiB at sectors 128 to 640 and zeroes at 0
    (which virtio_blk/004 overwrites with its own data)."""
    with open(image, "rb") as f:
        head = f.read(640 * 512)
    t.expect(head[:65536] == bytes(65536), "virtio_blk/003's write zeroes is not in the image")
    t.expect(image_has_data(image, 256 * 512, 384 * 512) and
             head[256 * 512:] != bytes(384 * 512), "virtio_blk/003's writes are not in the image")
