# SPDX-License-Identifier: GPL-2.0
"""Every invalid passthrough command is refused with its documented errno,
and none of them reaches the device: the host image keeps the data planted
under them and QMP's wr_operations counter does not move.  Data the host
plants in the image is read back through the node.  On a disk with 4096-byte
logical blocks, sectors and lengths must be aligned to them.  On QEMU's
virtio-blk and on a vhost-user-blk disk served by qemu-storage-daemon (which
counts no requests: there the image alone says that nothing was written)."""

from tests.helpers import DEVICES, NOT_COUNTED, OK, disk_for, disk_limits, moved, vblk_cmd
from tests.pattern import image_matches, write_image

DESCRIPTION = "every invalid command gets its documented errno"
DEBUG_KERNEL = True
QUICK = True
CONDITIONS = {"device": DEVICES}
DEBUG_CONDITIONS = {"device": ("virtio-blk",)}    # vhost-user-blk: the default passes

MiB = 1 << 20
PLANTED = 99          # seed of the data the host plants at TARGET
TARGET = 2048         # sector of the planted data; every bad write aims there

# (what, vblk-cmd arguments, expected result); {max}, {lbs}, {end} are the disk's
CASES = [
    ("unknown cmd_op", "-w -o 0x1234", "ENOTTY"),
    ("flags bit 0", "-w -f 1", "EINVAL"),
    ("flags bit 15", "-w -f 0x8000", "EINVAL"),
    ("flags on an SQE128 ring", "-w -f 1 -E 128", "EINVAL"),
    ("flags in a 128-byte command of a mixed ring", "-w -f 1 -E mixed128", "EINVAL"),
    ("sqe->ioprio set (io_uring's own refusal)", "-w -X 2", "EINVAL"),
    ("sqe->buf_index without a registered buffer", "-w -X 40", "EINVAL"),
    ("sqe->file_index set", "-w -X 44", "EINVAL"),
    ("sqe->file_index set on an SQE128 ring", "-w -X 47 -E 128", "EINVAL"),
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
    ("reserved half word set", "-w -p 1", "EINVAL"),
    ("reserved half word as an idle-class priority", "-w -p 0x6000", "EINVAL"),
    ("unmapped buffer", "-w -a 0x1000", "EFAULT"),
    ("kernel address", "-w -a 0xffffffff81000000", "EFAULT"),
    ("unmapped iovec array", "-w -v 2 -l 8192 -a 0x1000", "EFAULT"),
    ("write on a node opened read-only", "-w -O r", "EACCES"),
    ("read into an unmapped buffer", "-a 0x1000", "EFAULT"),
    ("GET_ID into an unmapped buffer", "-t 8 -l 20 -s 0 -a 0x1000", "EFAULT"),
    ("read on a node opened write-only", "-O w", "EACCES"),
]

# On a disk with 4096-byte logical blocks (/dev/vdbc0): {lbs} is 4096 there
CASES_4K = [
    ("512-byte length", "-w -l 512", "EINVAL"),
    ("sector not on a logical block", "-w -s {unaligned} -l 4096", "EINVAL"),
]


def refusals(t, g, cases, values, node):
    """Run the cases; return the ones that did not get their errno."""
    failures = []
    for what, args, want in cases:
        args = args.format(**values)
        got, _ = vblk_cmd(g, f"-s {TARGET} -k 1 {args}" if "-s" not in args else f"-k 1 {args}",
                          node=node)
        t.log(f"{what}: {args} -> {got}")
        if got != want:
            failures.append(f"{what} ({args}): got {got}, expected {want}")
    return failures


def test(t, cond):
    disk = disk_for(cond["device"], id="d0", size=64 * MiB)
    disk4k = disk_for(cond["device"], id="d1", size=64 * MiB, block_size=4096)
    g = t.guest([disk, disk4k])
    lim = disk_limits(g)
    lbs = lim["lbs"]
    values = {"over": lim["max_transfer"] + lbs, "end": lim["sectors"],
              "last": lim["sectors"] - lbs // 512, "two": 2 * lbs}
    for image in (disk.image, disk4k.image):
        write_image(image, PLANTED, TARGET * 512, 64 * 1024)
    t.expect_equal(disk_limits(g, "vdb")["lbs"], 4096, "logical block size of the 4K disk")

    # the reverse direction first: what the host planted is what the node reads
    for args in ("", "-v 4", "-F", "-F -v 4", "-P", "-E 128", "-E mixed", "-E mixed128"):
        result = vblk_cmd(g, f"-s {TARGET} -l 65536 -k {PLANTED} {args}")
        t.expect_equal(result, (OK, "ok"), f"reading host-planted data ({args or 'plain'})")

    t.expect_equal(vblk_cmd(g, f"-s {TARGET} -l 8192 -k {PLANTED}", node="/dev/vdbc0"),
                   (OK, "ok"), "reading host-planted data on the 4K disk")

    writes = {d: g.counters(d, ("wr_operations",)) for d in ("d0", "d1")}
    if writes["d0"] is None:
        t.log(f"d0: {NOT_COUNTED}")
    failures = refusals(t, g, CASES, values, "/dev/vdac0")
    failures += refusals(t, g, CASES_4K, {"unaligned": TARGET + 1}, "/dev/vdbc0")
    t.expect(not failures, "\n".join(failures))
    for d, image in (("d0", disk.image), ("d1", disk4k.image)):
        if writes[d] is not None:
            t.expect_equal(moved(writes[d], g.counters(d, writes[d])), {"wr_operations": 0},
                           f"writes that reached {d}")
        t.expect(image_matches(image, PLANTED, TARGET * 512, 64 * 1024),
                 f"a refused write changed {d}'s host image")
