"""A 32-bit task (IA32 emulation, raw io_uring system calls) uses NVMe's
char node /dev/ng0n1: a write whose address carries garbage in its upper
32 bits and a read back through four 32-bit iovecs, checked; what it wrote
is in the host image.  Submitted by the task, by an SQPOLL thread, and by a
64-bit program the task executes with a ring it set up, both from its own
system calls and from an io-wq worker (IOSQE_ASYNC): the ring, not the
issuing thread, says its commands are a 32-bit task's.  Without "nvme: read
a uring_cmd's pointers and iovecs by its ring's ABI" the 64-bit program's
steps fail."""

from pattern import image_matches
from vm import Nvme

NODE_MODES = ("blkmq",)     # NVMe alone: the virtio-blk node's mode is not used

QUICK = True

OFFSET, SEED, LEN = 1 << 20, 82, 16384
# (what submitted it, its offset's step, its seed) as nvme-compat32 and the peer lay them out
STEPS = (("the task", 0, SEED), ("the SQPOLL thread", 1, SEED),
         ("the 64-bit task", 2, SEED + 1), ("the 64-bit task's io-wq worker", 3, SEED + 1))


def test(t):
    disk = Nvme(size=16 << 20)
    g = t.guest([disk], vblk=None)
    g.load_nvme("")
    status, out = g.run(f"nvme-compat32 /dev/ng0n1 {OFFSET} {SEED} $(which nvme-compat-peer)",
                        check=False)
    t.log(out)
    t.expect(status == 0, f"the 32-bit task or its 64-bit peer failed:\n{out}")
    t.expect("ring handed to a 64-bit task" in out, f"the 64-bit peer did not run:\n{out}")
    for who, step, seed in STEPS:
        t.expect(image_matches(disk.image, seed, OFFSET + step * LEN, LEN),
                 f"the write {who} submitted is not in the host image")
