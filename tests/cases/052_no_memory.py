# SPDX-License-Identifier: GPL-2.0
"""When io_uring cannot get the memory to keep a passthrough command (the
copy of its SQE for a command that goes async or joins a link, the iovec
of a registered vectored buffer), the command fails with ENOMEM, a link it
joined is cancelled, and nothing reaches the disk; with the memory there,
the same commands land.  The debug kernel's failslab fails exactly one
slab allocation of the submitting task, made from within the io_uring
function that allocates what the command needs."""

from harness.vm import Disk
from tests.helpers import OK, vblk_output
from tests.pattern import image_matches

DESCRIPTION = "a command io_uring cannot keep for lack of memory fails with ENOMEM"
DEBUG_KERNEL = True
QUICK = True

MiB = 1 << 20

# (what, vblk-cmd options, the function whose allocation fails, the link
# head's result)
CASES = (
    ("IOSQE_ASYNC", "-y", "io_uring_cmd_sqe_copy", None),
    ("joining a link", "-j", "io_uring_cmd_sqe_copy", "ECANCELED"),
    ("registered, vectored", "-F -v 2", "io_uring_cmd_import_fixed_vec", None),
)


def test(t):
    disk = Disk(size=16 * MiB)
    g = t.guest([disk])
    for i, (what, opts, function, head) in enumerate(CASES):
        at = (i + 1) * MiB
        write = f"-w -k {i + 1} -s {at // 512} -l 4096 {opts}"
        out = vblk_output(g, f"{write} -N {function}")
        t.log(f"{what}, no memory in {function}: {out}")
        t.expect_equal(out["res"], "ENOMEM", f"{what}: the command without memory")
        if head:
            t.expect(out.get("head", "").endswith(head),
                     f"{what}: the link's head was {out.get('head')!r}, not {head}")
        t.expect(not image_matches(disk.image, i + 1, at, 4096),
                 f"{what}: a command that failed for lack of memory reached the disk")

        out = vblk_output(g, write)
        t.expect_equal(out["res"], OK, f"{what}: the same command with memory")
        t.expect(image_matches(disk.image, i + 1, at, 4096),
                 f"{what}: the command that succeeded is not in the image")
