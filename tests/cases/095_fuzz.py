# SPDX-License-Identifier: GPL-2.0
"""A seeded fuzzer (guest/prog/vblk-fuzz.c) sends 100,000 passthrough
commands (40,000 on the debug kernel, where each takes several times as
long), valid and mutated, over every kind of ring (64- or 128-byte SQEs, IOPOLL
on a disk with a poll queue, SQPOLL, registered buffers and files) with up
to 32 in flight.  Every SQE completes, each with what the documentation
says (0, or the errno of one of the command's faults), no command ever
touches the canary the host planted at the end of the disk (the host image
keeps it byte for byte), the guest still answers and its console shows no
kernel warning.  VBLK_FUZZ_SEED=N replays a run; otherwise the seed is
random and logged."""

import os
import random
import re
import time

from harness import vm
from harness.vm import KERNEL_COMPLAINTS, Disk
from tests.pattern import image_matches, pattern, write_image

MiB = 1 << 20
DEBUG_KERNEL = True
SIZE = 64 * MiB
CANARY_START, CANARY_BYTES = SIZE - 8 * MiB, 8 * MiB
CANARY_SEED = 95
ELSEWHERE_SEED = 96     # data for the reads to find, anywhere writes may go
SQES = 40000 if vm.VARIANT == "debug" else 100000
FUZZ_SECONDS = 400      # the fuzzer stops submitting then; a run takes 1-2 min under TCG

DESCRIPTION = f"{SQES:,} fuzzed commands: no crash, leak or stray write"


def first_difference(image, seed, offset, length):
    """The offset of the first canary byte the image no longer holds."""
    step = MiB
    with open(image, "rb") as f:
        for at in range(offset, offset + length, step):
            f.seek(at)
            got, want = f.read(step), pattern(seed, at, step)
            if got != want:
                return at + next(i for i in range(step) if got[i] != want[i])
    return None


def failure_lines(out):
    """The fuzzer's BAD, HANG and FAIL lines, each with the command under it."""
    lines, keep = [], False
    for line in out.splitlines():
        if not line.startswith("  "):
            keep = line.startswith(("BAD", "HANG", "FAIL"))
        if keep:
            lines.append(line)
    return lines




def test(t):
    env = os.environ.get("VBLK_FUZZ_SEED")
    seed = int(env, 0) if env else random.randrange(1 << 63)
    t.log(f"seed {seed} (VBLK_FUZZ_SEED={seed} replays this run)")
    disk = Disk(size=SIZE, serial="vblk-fuzz", discard=True, write_zeroes=True)
    g = t.guest([disk], vblk=None)
    # planted before the driver looks at the disk
    write_image(disk.image, CANARY_SEED, CANARY_START, CANARY_BYTES)
    write_image(disk.image, ELSEWHERE_SEED, 0, 16 * MiB)
    g.load_vblk("poll_queues=1")
    t.expect_equal(g.output("cat /sys/block/vda/queue/io_poll").strip(), "1",
                   "io_poll with poll_queues=1")

    started = time.monotonic()
    status, out = g.run(f"vblk-fuzz -n {SQES} -t {FUZZ_SECONDS} -k {CANARY_SEED} "
                        f"{seed} /dev/vdac0 {CANARY_START} {CANARY_BYTES}",
                        timeout=FUZZ_SECONDS + 200, check=False)
    wall = time.monotonic() - started
    t.log(out)
    t.log(f"fuzzer: exit status {status}, {wall:.1f}s in the guest")
    known = re.search(r"known-get-id-efault=(\d+)", out)
    t.log(f"known issue tolerated: {known.group(1) if known else '?'} GET_ID(s) into a bad buffer "
          "completed with 0")
    replay = f"(seed {seed}: VBLK_FUZZ_SEED={seed} replays it)"
    bad = "\n".join(failure_lines(out))[:4000]

    # first what matters most: whatever else happened, the canary is intact
    if not image_matches(disk.image, CANARY_SEED, CANARY_START, CANARY_BYTES):
        changed = first_difference(disk.image, CANARY_SEED, CANARY_START, CANARY_BYTES)
        t.expect(False, f"the canary changed in the host image at byte {changed} "
                 f"(sector {changed // 512}) {replay}")

    summary = re.search(r"^sqes=(\d+) cqes=(\d+) .*$", out, re.M)
    t.expect(summary, f"the fuzzer printed no summary, exit status {status} {replay}:\n"
             f"{out[-3000:]}")
    sqes, cqes = int(summary.group(1)), int(summary.group(2))
    t.expect(status == 0, f"the fuzzer failed (exit status {status}) {replay}:\n"
             f"{summary.group(0)}\n{bad}")
    t.expect(sqes >= SQES, f"only {sqes} SQEs within {FUZZ_SECONDS}s {replay}")
    t.expect_equal(cqes, sqes, f"CQEs for the SQEs {replay}")

    g.output("true", timeout=60)
    # the runner scans every guest's console too; this failure names the seed
    found = [line for line in g.output("dmesg").splitlines() if KERNEL_COMPLAINTS.search(line)]
    t.expect(not found, f"kernel warnings {replay}:\n" + "\n".join(found[:20]))
