# SPDX-License-Identifier: GPL-2.0
"""fio's own test of io_uring_cmd with cmd_type=vblk (the fio series'
change of t/io_uring_cmd.py, t/nvmept.py in the guest's fio 3.41), run in
the guest with the guest's fio on the node: every one of its jobs must
pass, the refusals included, and none may be skipped but the two that
cannot apply to QEMU's disk: the multi-range trim (QEMU's device takes one
range per discard, which the test says) and the refusal of trims on a
disk without discard.  Outside the guest, the data of its write job at
8 MiB (2 MiB, which its second job read back and verified inside) is in
the host's image."""

import re

from harness.vm import TOOLS_ENV, Disk
from tests.helpers import image_has_data

DESCRIPTION = "fio's t/nvmept.py --cmd_type vblk passes on the node"
QUICK = True
MiB = 1 << 20
# the only test it may skip here, and why
MAY_SKIP = {"212": "max_discard_segments is 1 on QEMU 7.2's virtio-blk",
            "216": "the disk has discard"}


def test(t):
    g = t.guest([Disk(id="d0", size=MiB), Disk(id="d1", size=64 * MiB, discard=True)],
                tools=True)
    status, out = g.run(f"{TOOLS_ENV}; cd /tmp && python3 $SUITES/fio-t/nvmept.py "
                        "--cmd_type vblk --dut /dev/vdbc0 -f $(command -v fio) -a /tmp/fio-t",
                        timeout=900, check=False)
    t.log(out)
    t.expect(status == 0, f"t/nvmept.py failed ({status}):\n{out[-3000:]}")
    m = re.search(r"(\d+) test\(s\) passed, (\d+) failed, (\d+) skipped", out)
    t.expect(m is not None, f"no summary from t/nvmept.py:\n{out[-2000:]}")
    passed, failed, skipped = map(int, m.groups())
    t.expect(passed > 0 and failed == 0, f"{passed} passed, {failed} failed")
    skips = re.findall(r"^Test (\d+) SKIPPED", out, re.M)
    unexpected = [s for s in skips if s not in MAY_SKIP]
    t.expect(len(skips) == skipped and not unexpected,
             f"skipped: {skips} (allowed: {MAY_SKIP})")
    t.expect(image_has_data(g.disks["d1"].image, 8 * MiB, 2 * MiB),
             "the test's writes at 8 MiB are not in the image")
