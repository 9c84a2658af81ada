# SPDX-License-Identifier: GPL-2.0
"""A command is the same on every kind of ring: a ring of 64-byte SQEs, an
IORING_SETUP_SQE128 ring, and an IORING_SETUP_SQE_MIXED ring, where it is
sent as a 64-byte IORING_OP_URING_CMD or as an IORING_OP_URING_CMD128.  On
each, plain, vectored and registered-buffer writes land in the host image
where they were aimed, a flush succeeds, what another kind of ring wrote
reads back, and the same faults get the same errnos; the second half of a
128-byte SQE is reserved (a byte set there is refused with EINVAL, and
the commands above had it zero)."""

from harness.vm import Disk
from tests.helpers import OK, T_FLUSH, vblk_cmd
from tests.pattern import image_matches

DESCRIPTION = "the same commands on 64-byte, SQE128 and SQE_MIXED rings"
QUICK = True

MiB = 1 << 20
KINDS = ("64", "128", "mixed", "mixed128")
BUFFERS = ("", "-v 4", "-F")        # plain, four iovecs, a registered buffer
LEN = 64 * 1024
NO_DATA = "-a 0 -L 0 -s 0"
# faults with their errno, each sent on every kind of ring
REFUSALS = [("-f 1", "EINVAL"), ("-t 2", "EOPNOTSUPP"), ("-L 0", "EINVAL"),
            ("-L 1000", "EINVAL"), ("-a 0x1000", "EFAULT"), ("-o 0x1234", "ENOTTY"),
            ("-X 44", "EINVAL")]


def sector(kind, buf):
    """Where the write of a kind of ring and buffer goes: 128 KiB apart."""
    return 8192 + (KINDS.index(kind) * len(BUFFERS) + BUFFERS.index(buf)) * 256


def test(t):
    disk = Disk(id="d0", size=64 * MiB)
    g = t.guest([disk])
    for i, kind in enumerate(KINDS):
        for buf in BUFFERS:
            s, seed = sector(kind, buf), 500 + i * len(BUFFERS) + BUFFERS.index(buf)
            t.expect_equal(vblk_cmd(g, f"-w -E {kind} -s {s} -l {LEN} -k {seed} {buf}")[0],
                           OK, f"write on a {kind} ring ({buf or 'plain'})")
        t.expect_equal(vblk_cmd(g, f"-E {kind} -t {T_FLUSH} {NO_DATA}")[0], OK,
                       f"flush on a {kind} ring")

    # each kind reads what the next kind wrote, through each kind of buffer
    for i, kind in enumerate(KINDS):
        other = KINDS[(i + 1) % len(KINDS)]
        for buf in BUFFERS:
            seed = 500 + KINDS.index(other) * len(BUFFERS) + BUFFERS.index(buf)
            got = vblk_cmd(g, f"-E {kind} -s {sector(other, buf)} -l {LEN} -k {seed} {buf}")
            t.expect_equal(got, (OK, "ok"), f"{kind} ring reading what a {other} ring wrote")

    errnos = {kind: [vblk_cmd(g, f"-w -E {kind} -s 16 {args}")[0] for args, _ in REFUSALS]
              for kind in KINDS}
    for kind in KINDS:
        t.expect_equal(errnos[kind], [want for _, want in REFUSALS], f"errnos on a {kind} ring")
    for kind in ("128", "mixed128"):
        for byte in (64, 100, 127):
            t.expect_equal(vblk_cmd(g, f"-w -E {kind} -s 16 -X {byte}")[0], "EINVAL",
                           f"byte {byte} of a 128-byte SQE set, on a {kind} ring")

    for i, kind in enumerate(KINDS):
        for buf in BUFFERS:
            s, seed = sector(kind, buf), 500 + i * len(BUFFERS) + BUFFERS.index(buf)
            t.expect(image_matches(disk.image, seed, s * 512, LEN),
                     f"the host image lacks the write of the {kind} ring ({buf or 'plain'})")
