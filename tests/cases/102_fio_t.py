# SPDX-License-Identifier: GPL-2.0
"""fio's own test of io_uring_cmd with cmd_type=vblk (the fio series'
change of t/io_uring_cmd.py), as fio master's runner runs it: test 1026
of t/run-fio-tests.py, whose command line (its script and parameters) is
read from the runner's TEST_LIST on the host and run in the guest with
the guest's fio (fio master and the series) and the node for
{vblkcdev}.  The runner itself does not run in the guest: it imports
statsmodels at its top (for its random-distribution tests), which would
bring numpy, scipy and pandas into the guest's tool tree.  Every job of
t/io_uring_cmd.py must pass, the refusals included, and none may be
skipped but those of other command types (test 20 and the bsg tests) and
the two that cannot apply to QEMU's disk: the multi-range trim (QEMU's
device takes one range per discard, which the test says) and the refusal
of trims on a disk without discard.  Outside the guest,
the data of its write job at 8 MiB (2 MiB, which its second job read
back and verified inside) is in the host's image."""

import ast
import os
import re

from harness.vm import TOOLS_ENV, Disk
from tests.fiojob import HOST_FIO
from tests.helpers import image_has_data

DESCRIPTION = "fio's t/run-fio-tests.py test 1026 (t/io_uring_cmd.py --cmd_type vblk) passes"
QUICK = True
MiB = 1 << 20
TEST_ID = 1026
RUNNER = os.path.join(os.path.dirname(HOST_FIO), "t", "run-fio-tests.py")
NODE = "/dev/vdbc0"
# the only jobs of t/io_uring_cmd.py it may skip here, and why
MAY_SKIP = {"212": "max_discard_segments is 1 on QEMU 7.2's virtio-blk",
            "216": "the disk has discard",
            # the script's tests of other command types (its "cmd_types")
            "20": "readfua/writefua: NVMe and bsg only",
            **{str(n): "a bsg test" for n in range(100, 116)}}


def runner_test(path, test_id):
    """The script and parameters of the runner's test test_id, from its
    TEST_LIST (a list of dicts of constants and class names)."""
    for node in ast.walk(ast.parse(open(path).read())):
        if not isinstance(node, ast.Dict):
            continue
        entry = {k.value: v for k, v in zip(node.keys, node.values)
                 if isinstance(k, ast.Constant)}
        if isinstance(entry.get("test_id"), ast.Constant) and entry["test_id"].value == test_id:
            return ast.literal_eval(entry["exe"]), ast.literal_eval(entry["parameters"])
    raise LookupError(f"{path} has no test {test_id}")


def test(t):
    g = t.guest([Disk(id="d0", size=MiB), Disk(id="d1", size=64 * MiB, discard=True)],
                tools=True)
    exe, params = runner_test(RUNNER, TEST_ID)
    args = " ".join(p.format(fio_path="$(command -v fio)", vblkcdev=NODE) for p in params)
    t.log(f"run-fio-tests.py's test {TEST_ID}: {exe} {args}")
    t.expect("--cmd_type vblk" in args and NODE in args, f"test {TEST_ID} is not the vblk test")
    status, out = g.run(f"{TOOLS_ENV}; cd /tmp && python3 $SUITES/fio-t/{exe} {args}",
                        timeout=900, check=False)
    t.log(out)
    t.expect(status == 0, f"{exe} failed ({status}):\n{out[-3000:]}")
    m = re.search(r"(\d+) test\(s\) passed, (\d+) failed, (\d+) skipped", out)
    t.expect(m is not None, f"no summary from {exe}:\n{out[-2000:]}")
    if m:
        passed, failed, skipped = map(int, m.groups())
        t.expect(passed > 0 and failed == 0, f"{passed} passed, {failed} failed")
        skips = re.findall(r"^Test (\d+) SKIPPED", out, re.M)
        unexpected = [s for s in skips if s not in MAY_SKIP]
        t.expect(len(skips) == skipped and not unexpected,
                 f"skipped: {skips} (allowed: {MAY_SKIP})")
    t.expect(image_has_data(g.disks["d1"].image, 8 * MiB, 2 * MiB),
             "the test's writes at 8 MiB are not in the image")
