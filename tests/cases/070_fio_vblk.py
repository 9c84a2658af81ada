"""fio's io_uring_cmd engine with cmd_type=vblk (make fio, fio-engine/)
writes and verifies (crc32c) through /dev/vdac0: random and sequential,
plain and fixed buffers, IRQ and polled rings (poll_queues=1), plus iovecs
and SQPOLL.  Data is checked across the guest boundary with fio on the
host, on the image file with its psync engine: what the host writes the
guest's engine verifies (verify_only), and stops verifying once the host
corrupts a few bytes of one block, naming that block; what the guest's
engine writes the host's fio verifies in the image.  The host runs the
guest's fio (3.41, built by make fio): Debian 12's fio 3.33 and 3.41
refuse each other's verify headers (3.41 gave them a version and a 64-bit
numberio).  Trims and syncs go through the engine too: its trims
(discards), sequential and random, punch holes in the image at exactly
the blocks fio trimmed, and a trim larger than the device's largest
discard, or of more ranges than it takes, is refused up front; with
fsync=4 (and end_fsync) QMP's flush_operations moves by exactly the syncs
fio issued, one flush each, and fsync_on_close is refused.  A read the
device fails (blkdebug) fails the job with the device's status named."""

import json
import os
import re

from helpers import image_has_data
from vm import BUILD, Disk

DESCRIPTION = "fio's io_uring_cmd engine with cmd_type=vblk"

MiB = 1 << 20
HOST_FIO = os.path.join(BUILD, "fio", "fio")
NODE = "/dev/vdac0"
# engine options (hipri, fixedbufs, ...) must follow it on the command line
ENGINE = f"--ioengine=io_uring_cmd --cmd_type=vblk --filename={NODE} --iodepth=4"
# fio's verify state files would land in the working directory
COMMON = "--verify=crc32c --verify_state_save=0"

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
    ("randwrite-sqpoll", "--rw=randwrite --bs=4k --offset=0 --size=2M --sqthread_poll"),
]

# The host writes this layout into the image; the guest verifies it.
PLANTED = "--name=planted --rw=randwrite --bs=4k --offset=32M --size=4M --randseed=2024"
PLANTED_START, PLANTED_SIZE = 32 * MiB, 4 * MiB
CORRUPT = PLANTED_START + 123 * 4096 + 1000      # a few bytes inside one block
# The guest writes this layout; the host verifies it in the image.
GUEST_WRITTEN = "--name=guestw --rw=randwrite --bs=16k --offset=48M --size=4M --randseed=77"

# Trims: the guest fills 2M, then trims the middle half of its first 1M
# sequentially and half of the 64k blocks of its second 1M at random.
TRIM_AREA, TRIM_BS = 56 * MiB, 64 << 10
TRIM_FILL = f"--name=trimfill --rw=write --bs={TRIM_BS} --offset={TRIM_AREA} --size=2M"
SEQ_TRIM_START, SEQ_TRIM_SIZE = TRIM_AREA + 256 * 1024, 512 * 1024
SEQ_TRIM = f"--name=trim --rw=trim --bs={TRIM_BS} --offset={SEQ_TRIM_START} --size={SEQ_TRIM_SIZE}"
RAND_TRIM_AREA = TRIM_AREA + MiB
RAND_TRIM_LOG = "/tmp/randtrim.iolog"
RAND_TRIM = (f"--name=randtrim --rw=randtrim --bs={TRIM_BS} --offset={RAND_TRIM_AREA} --size=1M "
             f"--io_size=512k --randseed=11 --write_iolog={RAND_TRIM_LOG}")

# The second disk fails reads of this sector (blkdebug)
BAD_NODE, BAD_SECTOR = "/dev/vdbc0", 64

# Syncs: 64 writes of 4k with a sync after every 4th write (fio issues it
# before the next write, so none follows the last)
SYNC_WRITES = 64
FSYNC = f"--rw=write --bs=4k --offset=60M --size={SYNC_WRITES * 4}k --fsync=4 --output-format=json"


def requires():
    if not os.access(HOST_FIO, os.X_OK):
        return f"{HOST_FIO} is missing: run make fio"
    return None


def guest_fio(t, g, job, counters=("wr_bytes", "rd_bytes")):
    """Run fio in the guest; return (exit status, its output, how QEMU's
    device counters moved: by default (bytes written, bytes read))."""
    before = g.blockstats("d0")
    status, out = g.run(f"fio {job}", timeout=300, check=False)
    after = g.blockstats("d0")
    t.log(f"guest: fio {job}\n-> {status}\n{out}")
    moved = tuple(after[k] - before[k] for k in counters)
    return status, out, moved


def fio_json(t, out):
    """The one job of fio's --output-format=json report in out."""
    start, end = out.find("{"), out.rfind("}")
    t.expect(0 <= start < end, f"no JSON report from fio:\n{out[-1500:]}")
    return json.loads(out[start:end + 1])["jobs"][0]


def errors(out):
    """fio's complaints in its output (or its tail), for a failure message."""
    lines = [line for line in out.splitlines()
             if re.search(r"verify|fio:|error|err=", line)]
    return "\n".join(lines[:12]) or out[-1500:]


def expect_clean(t, what, result, written, read):
    """fio passed, and the device wrote and read what it should have."""
    status, out, moved = result
    t.expect(status == 0, f"{what}: fio failed (status {status}):\n{errors(out)}")
    t.expect_equal(moved, (written, read), f"{what}: bytes the device (wrote, read)")


def host_fio(t, job, image):
    """Run fio on the host, on the image file; it must pass.  Return the
    job's JSON report."""
    out = t.host(HOST_FIO, *job.split(), f"--filename={image}", "--ioengine=psync",
                 *COMMON.split(), "--output-format=json")
    return json.loads(out)["jobs"][0]


def blocks(start, size):
    return range(start, start + size, TRIM_BS)


def expect_holes(t, what, image, area, size, trimmed):
    """Every TRIM_BS block of [area, area + size) is a hole in the image if
    it is in trimmed, and holds data if not."""
    wrong = [(off, off in trimmed) for off in blocks(area, size)
             if image_has_data(image, off, TRIM_BS) == (off in trimmed)]
    t.expect(not wrong, f"{what}: blocks that are not as trimmed "
             f"(offset, trimmed): {wrong}")


def test_trims(t, g, disk):
    """Fill, trim through the engine, and look for the holes in the image."""
    expect_clean(t, "filling the trim area",
                 guest_fio(t, g, f"{TRIM_FILL} {ENGINE}"), 2 * MiB, 0)
    expect_holes(t, "after the fill", disk.image, TRIM_AREA, 2 * MiB, set())

    # sequential: the middle half of the first 1M
    status, out, moved = guest_fio(t, g, f"{SEQ_TRIM} {ENGINE}")
    t.expect(status == 0, f"rw=trim: fio failed (status {status}):\n{errors(out)}")
    t.expect_equal(moved, (0, 0), "rw=trim: bytes the device (wrote, read)")
    expect_holes(t, "rw=trim", disk.image, TRIM_AREA, MiB,
                 set(blocks(SEQ_TRIM_START, SEQ_TRIM_SIZE)))

    # random, with iovecs and a polled ring (a trim is still one plain
    # command): half the blocks of the second 1M, as fio's iolog names them
    status, out, _ = guest_fio(t, g, f"{RAND_TRIM} {ENGINE} --nonvectored=0 --hipri")
    t.expect(status == 0, f"rw=randtrim: fio failed (status {status}):\n{errors(out)}")
    log = g.output(f"cat {RAND_TRIM_LOG}")
    t.log(f"{RAND_TRIM_LOG}:\n{log}")
    # "[TIME] FILE trim OFFSET LENGTH" (iolog versions 3 and 2)
    trims = [tuple(map(int, f[f.index("trim") + 1:f.index("trim") + 3]))
             for f in map(str.split, log.splitlines()) if "trim" in f]
    t.expect_equal((len(trims), {length for _, length in trims}), (8, {TRIM_BS}),
                   "rw=randtrim: (trims, their lengths) in fio's iolog")
    trimmed = {off for off, _ in trims}
    t.expect_equal(len(trimmed), 8, "rw=randtrim: distinct blocks trimmed")
    expect_holes(t, "rw=randtrim", disk.image, RAND_TRIM_AREA, MiB, trimmed)

    # a trim larger than the device's largest discard: refused up front
    max_discard = int(g.output("cat /sys/block/vda/queue/discard_max_hw_bytes"))
    t.expect(max_discard > 0, "the disk has no discard")
    too_big = f"--name=bigtrim --rw=trim --bs={max_discard + 512} --size={max_discard + 512}"
    status, out, _ = guest_fio(t, g, f"{too_big} {ENGINE}")
    t.expect(status != 0 and "larger than the disk's largest discard" in out,
             f"a trim of {max_discard + 512} bytes was not refused up front:\n{errors(out)}")

    # more ranges per discard than the device takes (QEMU's takes one)
    max_segments = int(g.output("cat /sys/block/vda/queue/max_discard_segments"))
    ranges = max_segments + 1
    status, out, _ = guest_fio(t, g, f"--name=ranges --rw=trim --bs={TRIM_BS} "
                               f"--offset={SEQ_TRIM_START} --size={SEQ_TRIM_SIZE} "
                               f"--num_range={ranges} {ENGINE}")
    t.expect(status != 0 and f"num_range={ranges} is more ranges than the disk takes" in out,
             f"num_range={ranges} was not refused up front:\n{errors(out)}")


def test_syncs(t, g):
    """fsync=4 and end_fsync: the device sees each sync as one flush."""
    counters = ("wr_operations", "flush_operations")
    syncs = (SYNC_WRITES - 1) // 4   # after writes 4, 8, ... 60
    # One at a time, the count is fio's rule exactly, and the last write
    # completes last, so end_fsync adds one (fio's report leaves it out).
    status, out, moved = guest_fio(t, g, f"--name=fsync {ENGINE} {FSYNC} --iodepth=1 "
                                   "--end_fsync=1", counters)
    t.expect(status == 0, f"fsync=4: fio failed (status {status}):\n{errors(out)}")
    t.expect_equal(fio_json(t, out)["sync"]["total_ios"], syncs, "fsync=4: syncs fio issued")
    t.expect_equal(moved, (SYNC_WRITES, syncs + 1),
                   "fsync=4, end_fsync: (writes, flushes) the device saw")

    # Four deep on a polled ring, how many syncs fio issues depends on
    # timing: after a 4th write it issues one for each I/O it gets until
    # one completes, and it skips the next if a sync completed last.  Its
    # report says how many; the device must see each of them.  (No
    # end_fsync here: fio skips it too when a sync completes last.)
    status, out, moved = guest_fio(t, g, f"--name=fsyncq {ENGINE} {FSYNC} --hipri", counters)
    t.expect(status == 0, f"fsync=4, iodepth=4: fio failed (status {status}):\n{errors(out)}")
    issued = fio_json(t, out)["sync"]["total_ios"]
    t.expect(issued > 0, "fsync=4, iodepth=4: fio issued no sync")
    t.expect_equal(moved, (SYNC_WRITES, issued),
                   "fsync=4, iodepth=4: (writes, flushes) the device saw")

    # fsync_on_close would fsync(2) the node, which has no fsync
    status, out, moved = guest_fio(t, g, f"--name=onclose {ENGINE} --rw=write --bs=4k "
                                   "--offset=60M --size=16k --fsync_on_close=1", counters)
    t.expect(status != 0 and "fsync_on_close is not supported" in out,
             f"fsync_on_close was not refused:\n{errors(out)}")
    t.expect_equal(moved, (0, 0), "fsync_on_close: (writes, flushes) the device saw")


def test_device_error(t, g):
    """A read of the sector the device fails: the job fails, and fio
    reports the device's status, VIRTIO_BLK_S_IOERR, by name."""
    status, out, _ = guest_fio(t, g, f"--name=bad --ioengine=io_uring_cmd --cmd_type=vblk "
                               f"--filename={BAD_NODE} --rw=read --bs=4k "
                               f"--offset={BAD_SECTOR * 512} --size=4k", counters=())
    t.expect(status != 0 and "virtio-blk status IOERR (1)" in out,
             f"a read the device failed: status {status}, no IOERR named:\n{errors(out)}")


def test(t):
    disk = Disk(size=64 * MiB, discard=True)
    bad = Disk(id="d1", size=MiB, faults=(("read", BAD_SECTOR),))
    g = t.guest([disk, bad], vblk="poll_queues=1")
    t.expect_equal(g.output("cat /sys/block/vda/queue/io_poll").strip(), "1",
                   "io_poll with poll_queues=1")
    host_version = t.host(HOST_FIO, "--version").strip()
    t.expect_equal(g.output("fio --version").strip(), host_version,
                   "guest fio version (verify data is shared with the host's)")

    # (a) write and verify in the guest, over the matrix
    for name, job in MATRIX:
        result = guest_fio(t, g, f"--name={name} {ENGINE} {job} {COMMON}")
        expect_clean(t, name, result, 2 * MiB, 2 * MiB)

    # (b) the host plants verifiable data in the image; the guest verifies it
    planted = host_fio(t, f"{PLANTED} --do_verify=0 --end_fsync=1", disk.image)
    t.expect_equal(planted["write"]["io_bytes"], PLANTED_SIZE, "bytes the host planted")
    # verify_only: fio only pretends to write
    verify_planted = f"{PLANTED} {ENGINE} {COMMON} --verify_only=1"
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

    # (c) the guest writes; the host verifies in the image
    result = guest_fio(t, g, f"{GUEST_WRITTEN} {ENGINE} {COMMON} --do_verify=0")
    expect_clean(t, "guest write for the host", result, 4 * MiB, 0)
    checked = host_fio(t, f"{GUEST_WRITTEN} --verify_only=1", disk.image)
    t.expect_equal(checked["read"]["io_bytes"], 4 * MiB, "bytes the host verified")

    # (d) trims are discards: holes in the image, exactly where fio trimmed
    test_trims(t, g, disk)

    # (e) syncs are flushes: as many as fio issued reach the device
    test_syncs(t, g)

    # (f) the device's own failures
    test_device_error(t, g)
