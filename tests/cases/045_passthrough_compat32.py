# SPDX-License-Identifier: GPL-2.0
"""A 32-bit task (IA32 emulation, raw io_uring system calls) uses the node:
its plain buffer address works even with garbage in the upper 32 bits, its
32-bit iovec array is read as such, and an unmapped address gets EFAULT;
what it wrote is in the host image.  Once submitted by the task, once by an
SQPOLL thread, and once by a 64-bit program the task executes with a ring
it set up, from its own system calls and from an io-wq worker
(IOSQE_ASYNC): compat is the ring's, not the issuing thread's (64-bit
system calls on a compat ring still mean 32-bit pointers and iovecs)."""

from harness.vm import Disk
from tests.pattern import image_matches

DEBUG_KERNEL = True
QUICK = True

SECTOR, SEED, LEN = 4096, 32, 16384


def test(t):
    disk = Disk(size=16 << 20)
    g = t.guest([disk])
    status, out = g.run(f"vblk-compat32 /dev/vdac0 {SECTOR} {SEED} $(which vblk-compat-peer)",
                        check=False)
    t.log(out)
    t.expect(status == 0, f"the 32-bit task failed:\n{out}")
    t.expect(image_matches(disk.image, SEED, SECTOR * 512, LEN),
             "the 32-bit task's write is not in the host image")
    t.expect("ring handed to a 64-bit task" in out, f"the 64-bit peer did not run:\n{out}")
    # the peer writes SEED + 1 at SECTOR + 32 (vblk-compat32's PEER arguments),
    # and again at SECTOR + 64 from an io-wq worker
    for sector in (SECTOR + 32, SECTOR + 64):
        t.expect(image_matches(disk.image, SEED + 1, sector * 512, LEN),
                 f"the 64-bit peer's write at sector {sector} on the 32-bit ring "
                 "is not in the host image")
