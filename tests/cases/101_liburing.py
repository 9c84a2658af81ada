# SPDX-License-Identifier: GPL-2.0
"""The test of the series for liburing (liburing/: test/vblk-passthrough.c),
run in the guest as liburing's runner runs a test: on the node, where it
must pass (liburing's exit 0), not skip (77).  It writes its pattern
through every kind of buffer and ring, and leaves the region holding its
last whole pass: outside the guest, every 32-bit word of the region in the
host's image must be (pass << 24) | (offset / 4), one pass for all, which
no write left out or misplaced can give."""

import struct

from harness.vm import TOOLS_ENV, Disk

DESCRIPTION = "liburing's test of the node (test/vblk-passthrough.c) passes"
DEBUG_KERNEL = True
QUICK = True
REGION = 256 << 10
T_EXIT_SKIP = 77


def test(t):
    g = t.guest([Disk(id="d0", size=1 << 20), Disk(id="d1", size=64 << 20, serial="liburing-vdb")],
                tools=True)
    status, out = g.run(f"{TOOLS_ENV}; $SUITES/liburing/vblk-passthrough.t /dev/vdbc0",
                        timeout=600, check=False)
    t.log(f"vblk-passthrough.t /dev/vdbc0 -> {status}\n{out}")
    t.expect(status != T_EXIT_SKIP, f"the test skipped on the node:\n{out}")
    t.expect(status == 0, f"the test failed ({status}):\n{out[-3000:]}")

    with open(g.disks["d1"].image, "rb") as f:
        words = struct.unpack(f"<{REGION // 4}I", f.read(REGION))
    passes = {w >> 24 for w in words}
    t.log(f"passes in the region: {sorted(passes)}")
    t.expect(len(passes) == 1 and 0 not in passes,
             f"the image's region holds words of passes {sorted(passes)[:8]}, not one whole pass")
    wrong = [i for i, w in enumerate(words) if w & 0xffffff != i]
    t.expect(not wrong, f"{len(wrong)} words of the region are not at their offset "
                        f"(first at byte {wrong[0] * 4 if wrong else 0})")
