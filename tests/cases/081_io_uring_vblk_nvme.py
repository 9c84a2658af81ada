# SPDX-License-Identifier: GPL-2.0
"""The yardstick checked: t/io_uring-vblk's NVMe paths, NVMe's generic char
node /dev/ng0n1 (-u1, struct nvme_uring_cmd) and its block device
/dev/nvme0n1 (-u0), read what the host put in the image and write what the
host then finds there, at the offsets asked and nowhere else, with
512-byte and 4096-byte logical blocks: plain,
vectored and registered buffers, interrupt-driven and polled, checked by
-v (every read must hold the pattern of its offset).  QMP's counters show
each read reached the controller, flushes complete without an error, and
a block the host corrupts is reported as a mismatch, so the check can
fail."""

from harness import workloads
from harness.vm import Nvme
from tests.helpers import io_uring_vblk
from tests.pattern import image_matches, write_image

NODE_MODES = ("blkmq",)     # NVMe alone: the virtio-blk node's mode is not used

DESCRIPTION = "t/io_uring-vblk reads and writes NVMe's ng0n1 and nvme0n1 as the image says"
QUICK = True
# 4096: an LBA that is not a 512-byte sector, so the commands' block unit counts
CONDITIONS = {"block_size": (512, 4096)}

MiB = 1 << 20
AREA = 2 * MiB                  # what each run reads or writes, from offset 0
IOS = AREA // 4096              # one pass over it, sequentially
PATHS = ("/dev/ng0n1", "/dev/nvme0n1")
BUFFERS = ({}, {"fixed": True}, {"vectored": True})    # plain, registered, vectored


def run(t, g, dev, what, **options):
    result = io_uring_vblk(g, dev, **options)
    t.log(f"{what}: {result}")
    t.expect_equal((result["ios"], result["errors"]), (IOS, 0), what)


def test(t, cond):
    disk = Nvme(size=64 * MiB, block_size=cond["block_size"])
    g = t.guest([disk], vblk=None)
    g.load_nvme("poll_queues=1")
    g.output("echo 2 > /sys/block/nvme0n1/queue/nomerges")   # a command per I/O
    write_image(disk.image, 1, 0, 2 * AREA)

    seed = 1
    for dev in PATHS:
        for polled in (0, 1):
            for bufs in BUFFERS:
                common = dict(polled=polled, **bufs, random=False, depth=8, size=AREA, ios=IOS)
                what = f"{dev} {common}"
                before = g.blockstats("n0")["rd_operations"]
                run(t, g, dev, f"reads {what}", write_pct=0, seed=seed, **common)
                t.expect_equal(g.blockstats("n0")["rd_operations"] - before, IOS,
                               f"reads {what}: rd_operations seen by the controller")
                seed += 1
                run(t, g, dev, f"writes {what}", write_pct=100, seed=seed, **common)
                t.expect(image_matches(disk.image, seed, 0, AREA),
                         f"writes {what}: the host image does not hold them")
    t.expect(image_matches(disk.image, 1, AREA, AREA),
             "the writes spilled past their area")

    # a flush after every 4 writes through the char node: the controller
    # completes each without an error (a wrong namespace ID would fail it);
    # QEMU 7.2's NVMe does not count flushes in query-blockstats
    result = io_uring_vblk(g, "/dev/ng0n1", write_pct=100, flush_every=4, depth=8, ios=IOS)
    t.expect_equal((result["ios"], result["flushes"], result["errors"]), (IOS, IOS // 4, 0),
                   "-f 4 on ng0n1: writes and flushes done")

    # the check can fail: a block the host changes is a mismatch on both paths
    write_image(disk.image, seed, 0, AREA)      # what the flushes' writes hit
    write_image(disk.image, 999, MiB, 4096)
    for dev in PATHS:
        status, out = g.run(workloads.io_uring_vblk(dev, seed=seed, random=False, depth=8,
                                                    size=AREA, ios=IOS), check=False)
        t.expect(status != 0 and f"the read at byte {MiB} differs" in out,
                 f"{dev}: a corrupted block was not reported: {status} {out!r}")
