# SPDX-License-Identifier: GPL-2.0
"""fio's io_uring_cmd engine with cmd_type=vblk (make fio, fio-engine/) writes
and verifies (crc32c) through /dev/vdac0: random and sequential, plain and
fixed buffers, IRQ and polled rings (poll_queues=1), plus iovecs (also in
registered buffers) and SQPOLL. Data is checked across the guest boundary
with fio on the host, on the image file with its psync engine: what the host
writes the guest's engine verifies (verify_only), and stops verifying once
the host corrupts a few bytes of one block, naming that block; what the
guest's engine writes the host's fio verifies in the image.  On QEMU's
virtio-blk and on a vhost-user-blk disk served by qemu-storage-daemon."""

import re

from tests.helpers import DEVICES, disk_for
from tests.fiojob import ENGINE, HOST_FIO, NODE, VERIFY, MiB, errors, expect_clean, guest_fio, host_fio
from tests.fiojob import requires  # noqa: F401  (the runner calls it)

DESCRIPTION = "fio cmd_type=vblk writes what it and the host's fio verify"
CONDITIONS = {"device": DEVICES}

# (name, job): write then verify, each a few MiB (TCG: a few thousand IOPS)
MATRIX = [
    (f"{rw}-{bufs}-{ring}",
     f"--rw={rw} --bs={bs} --offset=0 --size=2M"
     + (" --fixedbufs" if bufs == "fixed" else "")
     + (" --hipri" if ring == "polled" else ""))
    for rw, bs in (("randwrite", "4k"), ("write", "64k"))
    for bufs in ("plain", "fixed")
    for ring in ("irq", "polled")
] + [
    ("randwrite-iovec", "--rw=randwrite --bs=4k --offset=0 --size=2M --nonvectored=0"),
    ("randwrite-fixed-iovec",
     "--rw=randwrite --bs=4k --offset=0 --size=2M --nonvectored=0 --fixedbufs"),
    ("randwrite-sqpoll", "--rw=randwrite --bs=4k --offset=0 --size=2M --sqthread_poll"),
]

# The host writes this layout into the image; the guest verifies it.
PLANTED = "--name=planted --rw=randwrite --bs=4k --offset=32M --size=4M --randseed=2024"
PLANTED_START, PLANTED_SIZE = 32 * MiB, 4 * MiB
CORRUPT = PLANTED_START + 123 * 4096 + 1000      # a few bytes inside one block
# The guest writes this layout; the host verifies it in the image.
GUEST_WRITTEN = "--name=guestw --rw=randwrite --bs=16k --offset=48M --size=4M --randseed=77"


def test(t, cond):
    disk = disk_for(cond["device"], size=64 * MiB)
    polled = disk.polled
    g = t.guest([disk], vblk="poll_queues=1" if polled else "")
    t.expect_equal(g.output("cat /sys/block/vda/queue/io_poll").strip(), "1" if polled else "0",
                   "io_poll")
    if not polled:
        t.log("vhost-user-blk: no poll queues (VhostUserDisk.polled): --hipri polls "
              "interrupt queues")
    host_version = t.host(HOST_FIO, "--version").strip()
    t.expect_equal(g.output("fio --version").strip(), host_version,
                   "guest fio version (verify data is shared with the host's)")

    # write and verify in the guest, over the matrix
    for name, job in MATRIX:
        result = guest_fio(t, g, f"--name={name} {ENGINE} {job} {VERIFY}")
        expect_clean(t, name, result, 2 * MiB, 2 * MiB)

    # the host plants verifiable data in the image; the guest verifies it
    planted = host_fio(t, f"{PLANTED} --do_verify=0 --end_fsync=1", disk.image)
    t.expect_equal(planted["write"]["io_bytes"], PLANTED_SIZE, "bytes the host planted")
    # verify_only: fio only pretends to write
    verify_planted = f"{PLANTED} {ENGINE} {VERIFY} --verify_only=1"
    expect_clean(t, "verifying host-planted data", guest_fio(t, g, verify_planted),
                 0, PLANTED_SIZE)

    # ... and no longer once a few of its bytes changed under it
    with open(disk.image, "r+b") as f:
        f.seek(CORRUPT)
        good = f.read(4)
        f.seek(CORRUPT)
        f.write(bytes(b ^ 0xff for b in good))
    status, out, _ = guest_fio(t, g, verify_planted)
    t.expect(status != 0, "verify passed over a corrupted block")
    m = re.search(rf"verify failed at file {NODE} offset (\d+)", out)
    t.expect(m is not None, f"fio failed without a verify failure:\n{errors(out)}")
    t.expect_equal(int(m.group(1)), CORRUPT - CORRUPT % 4096, "block reported as corrupted")

    # the guest writes; the host verifies in the image
    result = guest_fio(t, g, f"{GUEST_WRITTEN} {ENGINE} {VERIFY} --do_verify=0")
    expect_clean(t, "guest write for the host", result, 4 * MiB, 0)
    checked = host_fio(t, f"{GUEST_WRITTEN} --verify_only=1", disk.image)
    t.expect_equal(checked["read"]["io_bytes"], 4 * MiB, "bytes the host verified")
