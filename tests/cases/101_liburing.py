# SPDX-License-Identifier: GPL-2.0
"""The test of the series for liburing (liburing/: test/vblk-passthrough.c),
built by liburing master's own configure and make with the series applied
(scripts/suites.sh) and run in the guest by liburing's runner,
test/runtests.sh, which gives it the node as liburing gives a test its
device (TEST_MAP in test/config.local): it must pass, not skip (77) or
time out, and the runner must find nothing in dmesg.  It writes its
pattern through every kind of buffer and ring, and leaves the region
holding its last whole pass: outside the guest, every 32-bit word of the
region in the host's image must be (pass << 24) | (offset / 4), one pass
for all, which no write left out or misplaced can give."""

import struct

from harness.vm import SLOWDOWN, TOOLS_ENV, Disk

DESCRIPTION = "liburing's test of the node (test/vblk-passthrough.c) passes"
DEBUG_KERNEL = True
QUICK = True
REGION = 256 << 10
T_EXIT_SKIP = 77
TEST = "vblk-passthrough.t"
NODE = "/dev/vdbc0"
# the runner's limit for the test (runtests.sh's TIMEOUT), within the guest's
TIMEOUT = 500 * SLOWDOWN
# runtests.sh reads config.local beside itself and writes output/ where it
# runs: a copy of the suite in /tmp; TEST_GNU_EXITCODE: exit 77 when the
# test skipped
RUNTESTS = (f"{TOOLS_ENV}; mkdir -p /tmp/liburing && cp $SUITES/liburing/* /tmp/liburing/ && "
            f"cd /tmp/liburing && printf 'TEST_MAP[{TEST}]={NODE}\\n' >config.local && "
            f"TIMEOUT={TIMEOUT} TEST_GNU_EXITCODE=1 bash ./runtests.sh {TEST}")


def test(t):
    g = t.guest([Disk(id="d0", size=1 << 20), Disk(id="d1", size=64 << 20, serial="liburing-vdb")],
                tools=True)
    status, out = g.run(RUNTESTS, timeout=600, check=False)
    t.log(f"runtests.sh {TEST} ({NODE}) -> {status}\n{out}")
    t.expect(status != T_EXIT_SKIP, f"the test skipped on the node:\n{out}")
    t.expect(status == 0, f"the test failed ({status}):\n{out[-3000:]}")
    t.expect(f"Running test {TEST} {NODE}" in out, f"the runner did not give {TEST} {NODE}:\n{out}")
    t.expect("timed out" not in out and "All tests passed" in out,
             f"the runner did not pass:\n{out[-3000:]}")

    with open(g.disks["d1"].image, "rb") as f:
        words = struct.unpack(f"<{REGION // 4}I", f.read(REGION))
    passes = {w >> 24 for w in words}
    t.log(f"passes in the region: {sorted(passes)}")
    t.expect(len(passes) == 1 and 0 not in passes,
             f"the image's region holds words of passes {sorted(passes)[:8]}, not one whole pass")
    wrong = [i for i, w in enumerate(words) if w & 0xffffff != i]
    t.expect(not wrong, f"{len(wrong)} words of the region are not at their offset "
                        f"(first at byte {wrong[0] * 4 if wrong else 0})")
