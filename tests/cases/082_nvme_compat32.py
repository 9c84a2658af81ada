# SPDX-License-Identifier: GPL-2.0
"""A 32-bit task (IA32 emulation, raw io_uring system calls) uses NVMe's
char node /dev/ng0n1 as test 045 uses the virtio-blk node, with the same
program: a write and a read back through four 32-bit iovecs, checked; what
it wrote is in the host image.  Submitted by the task, by an SQPOLL
thread, and by a 64-bit program the task executes with a ring the task set
up, both from its own system calls and from an io-wq worker (IOSQE_ASYNC):
the ring, not the issuing thread, says its iovecs are a 32-bit task's.
Without "nvme: import a uring_cmd's iovecs by its ring's ABI" the 64-bit
program's reads fail with -EFAULT."""

from harness.vm import Nvme
from tests.pattern import image_matches

NODE_MODES = ("blkmq",)     # NVMe alone: the virtio-blk node's mode is not used

QUICK = True

SECTOR, SEED, LEN = 2048, 82, 16384
# (who submitted it, its sector, its seed), as vblk-compat32 and its peer lay them out
WRITES = (("the task and its SQPOLL thread", SECTOR, SEED),
          ("the 64-bit task", SECTOR + 32, SEED + 1),
          ("the 64-bit task's io-wq worker", SECTOR + 64, SEED + 1))


def test(t):
    disk = Nvme(size=16 << 20)
    g = t.guest([disk], vblk=None)
    g.load_nvme("")
    status, out = g.run(f"vblk-compat32 /dev/ng0n1 {SECTOR} {SEED} $(which vblk-compat-peer)",
                        check=False)
    t.log(out)
    t.expect(status == 0, f"the 32-bit task or its 64-bit peer failed:\n{out}")
    t.expect("ring handed to a 64-bit task" in out, f"the 64-bit peer did not run:\n{out}")
    for who, sector, seed in WRITES:
        t.expect(image_matches(disk.image, seed, sector * 512, LEN),
                 f"the write {who} submitted is not in the host image")
