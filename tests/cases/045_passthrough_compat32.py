"""A 32-bit task (IA32 emulation, raw io_uring system calls) uses the node:
its plain buffer address works even with garbage in the upper 32 bits, its
32-bit iovec array is read as such, and an unmapped address gets EFAULT;
what it wrote is in the host image.  Once submitted by the task, once by an
SQPOLL thread: compat is the ring's, not the issuing thread's."""

from pattern import image_matches
from vm import Disk

SECTOR, SEED, LEN = 4096, 32, 16384


def test(t):
    disk = Disk(size=16 << 20)
    g = t.guest([disk])
    status, out = g.run(f"vblk-compat32 /dev/vdac0 {SECTOR} {SEED}", check=False)
    t.log(out)
    t.expect(status == 0, f"the 32-bit task failed:\n{out}")
    t.expect(image_matches(disk.image, SEED, SECTOR * 512, LEN),
             "the 32-bit task's write is not in the host image")
