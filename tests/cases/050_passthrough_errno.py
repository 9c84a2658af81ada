"""Every invalid passthrough command is refused with its documented errno,
and none of them reaches the device: the host image keeps the data planted
under them and QMP's wr_operations counter does not move.  Data the host
plants in the image is read back through the node."""

from helpers import OK, disk_limits, vblk_cmd
from pattern import image_matches, write_image
from vm import Disk

MiB = 1 << 20
PLANTED = 99          # seed of the data the host plants at TARGET
TARGET = 2048         # sector of the planted data; every bad write aims there

# (what, vblk-cmd arguments, expected result); {max}, {lbs}, {end} are the disk's
CASES = [
    ("ring without SQE128", "-w -S", "EOPNOTSUPP"),
    ("unknown cmd_op", "-w -o 0x1234", "ENOTTY"),
    ("flag bit 0", "-w -f 1", "EINVAL"),
    ("flag bit 31", "-w -f 0x80000000", "EINVAL"),
    ("type SCSI_CMD", "-w -t 2", "EOPNOTSUPP"),
    ("type 0xffff", "-w -t 0xffff", "EOPNOTSUPP"),
    ("zero length", "-w -L 0", "EINVAL"),
    ("length not a multiple of the block", "-w -L 1000", "EINVAL"),
    ("length above the largest transfer", "-w -l {over}", "EINVAL"),
    ("vectored total above the largest transfer", "-w -v 2 -l {over}", "EINVAL"),
    ("sector at the end of the disk", "-w -s {end}", "EINVAL"),
    ("range crossing the end", "-w -s {last} -l {two}", "EINVAL"),
    ("sector overflowing", "-w -s 0xfffffffffffffff8", "EINVAL"),
    ("misaligned buffer", "-w -A 8", "EINVAL"),
    ("misaligned iovec lengths", "-w -v 3 -l 8192", "EINVAL"),
    ("ioprio of an invalid class", "-w -p 0xe000", "EINVAL"),
    ("ioprio level without a class", "-w -p 1", "EINVAL"),
    ("ioprio above 16 bits", "-w -p 0x10000", "EINVAL"),
    ("registered buffer with iovecs", "-w -F -v 2 -l 8192", "EINVAL"),
    ("unmapped buffer", "-w -a 0x1000", "EFAULT"),
    ("kernel address", "-w -a 0xffffffff81000000", "EFAULT"),
    ("unmapped iovec array", "-w -v 2 -l 8192 -a 0x1000", "EFAULT"),
    ("write on a node opened read-only", "-w -O r", "EACCES"),
    ("read into an unmapped buffer", "-a 0x1000", "EFAULT"),
    ("read on a node opened write-only", "-O w", "EACCES"),
]


def test(t):
    disk = Disk(size=64 * MiB)
    g = t.guest([disk])
    lim = disk_limits(g)
    lbs = lim["lbs"]
    values = {"over": lim["max_transfer"] + lbs, "end": lim["sectors"],
              "last": lim["sectors"] - lbs // 512, "two": 2 * lbs}
    write_image(disk.image, PLANTED, TARGET * 512, 64 * 1024)

    # the reverse direction first: what the host planted is what the node reads
    for args in ("", "-v 4", "-F", "-P"):
        result = vblk_cmd(g, f"-s {TARGET} -l 65536 -k {PLANTED} {args}")
        t.expect_equal(result, (OK, "ok"), f"reading host-planted data ({args or 'plain'})")

    writes_before = g.blockstats("d0")["wr_operations"]
    failures = []
    for what, args, want in CASES:
        args = args.format(**values)
        got, _ = vblk_cmd(g, f"-s {TARGET} -k 1 {args}" if "-s" not in args else f"-k 1 {args}")
        t.log(f"{what}: {args} -> {got}")
        if got != want:
            failures.append(f"{what} ({args}): got {got}, expected {want}")
    t.expect(not failures, "\n".join(failures))
    t.expect_equal(g.blockstats("d0")["wr_operations"] - writes_before, 0,
                   "writes that reached the device")
    t.expect(image_matches(disk.image, PLANTED, TARGET * 512, 64 * 1024),
             "a refused write changed the host image")
