# SPDX-License-Identifier: GPL-2.0
"""FLUSH, GET_ID, WRITE_ZEROES, DISCARD and SECURE_ERASE through the node,
judged by the host: a flush moves QMP's flush_operations by one and follows
writes that are in the image, and on a device without a volatile cache
completes with 0 and reaches nothing; GET_ID returns QEMU's serial= as sysfs does;
write zeroes reads back as zeros through the node, the block device and the
image, leaves the neighbours alone and, with unmap, deallocates the image's
blocks; a discard punches a hole exactly there.  A device without discard or
write-zeroes, QEMU's lack of secure erase, and bad ranges are refused and
change neither the image nor the counters.  The first disk is QEMU's
virtio-blk or a vhost-user-blk disk served by qemu-storage-daemon, which
answers GET_ID with a name of its own, offers discard and write zeroes on
every export and counts no requests (there the image is the only oracle);
the disk without those features is QEMU's in both."""

from harness.vm import Disk, VhostUserDisk
from tests.helpers import (DEVICES, NOT_COUNTED, OK, T_DISCARD, T_FLUSH, T_GET_ID, T_SECURE_ERASE,
                           T_WRITE_ZEROES, disk_for, image_has_data, moved, vblk_cmd, vblk_output)
from tests.pattern import image_matches, write_image

DESCRIPTION = "FLUSH, GET_ID, WRITE_ZEROES, DISCARD, SECURE_ERASE"
DEBUG_KERNEL = True
QUICK = True
CONDITIONS = {"device": DEVICES}
DEBUG_CONDITIONS = {"device": ("virtio-blk",)}    # vhost-user-blk: the default passes

MiB, KiB = 1 << 20, 1 << 10
UNMAP = 1
SERIAL = "vblk-serial-0"
NO_DATA = "-a 0 -L 0"


def sectors(offset):
    return offset // 512


def zeros_through_block_device(g, offset, length):
    out = g.output(f"dd if=/dev/vda bs=65536 skip={offset // 65536} count={length // 65536} "
                   "iflag=direct 2>/dev/null | tr -d '\\000' | wc -c")
    return out.strip() == "0"


def test(t, cond):
    if cond["device"] == "vhost-user-blk":
        d0, want_id = VhostUserDisk(id="d0", size=64 * MiB), VhostUserDisk.GET_ID
    else:
        d0 = Disk(id="d0", size=64 * MiB, serial=SERIAL, discard=True, write_zeroes=True)
        want_id = SERIAL
    d1 = Disk(id="d1", size=16 * MiB, discard=False, write_zeroes=False, volatile_cache=False)
    g = t.guest([d0, d1])
    if not g.counts("d0"):
        t.log(f"d0: {NOT_COUNTED}")

    # FLUSH: after writes, one device flush per command, from any open node
    t.expect_equal(vblk_cmd(g, "-w -k 41 -l 65536")[0], OK, "write before the flush")
    flushes = g.counters("d0", ("flush_operations",))
    for mode in ("rw", "r", "w"):
        t.expect_equal(vblk_cmd(g, f"-t {T_FLUSH} {NO_DATA} -O {mode}")[0], OK, f"flush, -O {mode}")
    if flushes is not None:
        t.expect_equal(moved(flushes, g.counters("d0", flushes)), {"flush_operations": 3},
                       "flushes the device saw")
    t.expect(image_matches(d0.image, 41, 0, 65536), "the flushed write is not in the image")
    t.expect_equal(vblk_cmd(g, f"-t {T_FLUSH} -l 4096")[0], "EINVAL", "flush with data")
    # without a volatile cache (no VIRTIO_BLK_F_FLUSH) a flush has nothing to do
    t.expect_equal(g.output("cat /sys/block/vdb/queue/write_cache").strip(), "write through",
                   "d1's cache mode")
    flushes = g.blockstats("d1")["flush_operations"]
    t.expect_equal(vblk_cmd(g, f"-t {T_FLUSH} {NO_DATA}", node="/dev/vdbc0")[0], OK,
                   "flush on a disk without a volatile cache")
    t.expect_equal(g.blockstats("d1")["flush_operations"] - flushes, 0,
                   "flushes that reached the disk without a volatile cache")
    t.expect_equal(vblk_cmd(g, f"-t {T_FLUSH} {NO_DATA} -s 8")[0], "EINVAL", "flush with a sector")

    # GET_ID: the serial, as sysfs reads it too
    ident = vblk_output(g, f"-t {T_GET_ID} -l 20 -i")
    t.expect_equal((ident["res"], ident.get("id")), (OK, want_id), "GET_ID")
    t.expect_equal(g.output("cat /sys/block/vda/serial").strip(), want_id, "sysfs serial")
    t.expect_equal(vblk_cmd(g, f"-t {T_GET_ID} -l 512")[0], "EINVAL", "GET_ID, 512-byte buffer")
    t.expect_equal(vblk_cmd(g, f"-t {T_GET_ID} -l 20 -O w")[0], "EACCES", "GET_ID, write-only node")

    # WRITE_ZEROES without unmap: zeros in the middle of planted data
    base, hole = 1 * MiB, 1 * MiB + 64 * KiB
    write_image(d0.image, 42, base, 256 * KiB)
    writes = g.counters("d0", ("wr_operations",))
    t.expect_equal(vblk_cmd(g, f"-t {T_WRITE_ZEROES} -R {sectors(hole)}:256")[0], OK, "write zeroes")
    if writes is not None:
        t.expect_equal(moved(writes, g.counters("d0", writes)), {"wr_operations": 1},
                       "write zeroes the device saw")
    t.expect_equal(vblk_output(g, f"-s {sectors(hole)} -l {128 * KiB} -Z").get("zero"), "yes",
                   "zeros read back through the node")
    t.expect(zeros_through_block_device(g, hole, 128 * KiB), "zeros read back through /dev/vda")
    with open(d0.image, "rb") as f:
        f.seek(hole)
        t.expect(f.read(128 * KiB) == bytes(128 * KiB), "zeros in the host image")
    t.expect(image_matches(d0.image, 42, base, 64 * KiB) and
             image_matches(d0.image, 42, hole + 128 * KiB, 64 * KiB), "the neighbours changed")

    # WRITE_ZEROES with unmap on a discard=unmap image: the blocks go away
    base = 4 * MiB
    write_image(d0.image, 43, base, 256 * KiB)
    t.expect(image_has_data(d0.image, base + 64 * KiB, 128 * KiB), "planted data not allocated")
    t.expect_equal(vblk_cmd(g, f"-t {T_WRITE_ZEROES} -R {sectors(base + 64 * KiB)}:256:{UNMAP}")[0],
                   OK, "write zeroes with unmap")
    t.expect(not image_has_data(d0.image, base + 64 * KiB, 128 * KiB),
             "write zeroes with unmap left the image's blocks allocated")
    t.expect_equal(vblk_output(g, f"-s {sectors(base + 64 * KiB)} -l {128 * KiB} -Z").get("zero"),
                   "yes", "zeros after unmap")
    t.expect(image_matches(d0.image, 43, base, 64 * KiB) and
             image_matches(d0.image, 43, base + 192 * KiB, 64 * KiB), "unmap's neighbours changed")

    # DISCARD: a hole exactly there (QEMU 7.2 counts no discard in its
    # blockstats, so the image's holes are the oracle)
    base = 8 * MiB
    write_image(d0.image, 44, base, 256 * KiB)
    writes = g.counters("d0", ("wr_operations",))
    t.expect_equal(vblk_cmd(g, f"-t {T_DISCARD} -R {sectors(base + 64 * KiB)}:256")[0], OK, "discard")
    if writes is not None:
        t.expect_equal(g.counters("d0", writes), writes, "a discard counted as a write")
    t.expect(not image_has_data(d0.image, base + 64 * KiB, 128 * KiB), "no hole where discarded")
    t.expect(image_matches(d0.image, 44, base, 64 * KiB) and
             image_matches(d0.image, 44, base + 192 * KiB, 64 * KiB), "discard's neighbours changed")

    # several ranges in one command: as many as the device takes
    base = 12 * MiB
    write_image(d0.image, 45, base, 256 * KiB)
    two = f"{sectors(base)}:128,{sectors(base + 128 * KiB)}:128"
    max_ranges = int(g.output("cat /sys/block/vda/queue/max_discard_segments"))
    got = vblk_cmd(g, f"-t {T_DISCARD} -R {two}")[0]
    if max_ranges >= 2:
        t.expect_equal(got, OK, "a two-range discard")
        t.expect(not image_has_data(d0.image, base, 256 * KiB), "no holes where discarded")
    else:   # QEMU 7.2 advertises max_discard_seg 1
        t.expect_equal(got, "EINVAL", "two ranges to a device that takes one")
        t.expect(image_matches(d0.image, 45, base, 256 * KiB), "a refused discard changed the image")

    # refusals: nothing reaches the device, nothing changes
    write_image(d0.image, 46, 16 * MiB, 64 * KiB)
    write_image(d1.image, 47, 0, 64 * KiB)
    at = sectors(16 * MiB)
    end = sectors(d0.size)
    refused = [
        ("discard, device without discard", f"-t {T_DISCARD} -R 0:8", "/dev/vdbc0", "EOPNOTSUPP"),
        ("write zeroes, device without it", f"-t {T_WRITE_ZEROES} -R 0:8", "/dev/vdbc0", "EOPNOTSUPP"),
        ("secure erase (QEMU 7.2 has none)", f"-t {T_SECURE_ERASE} -R {at}:8", "/dev/vdac0", "EOPNOTSUPP"),
        ("range beyond the disk", f"-t {T_WRITE_ZEROES} -R {end - 8}:16", "/dev/vdac0", "EINVAL"),
        ("empty range", f"-t {T_DISCARD} -R {at}:0", "/dev/vdac0", "EINVAL"),
        ("unknown range flag", f"-t {T_WRITE_ZEROES} -R {at}:8:2", "/dev/vdac0", "EINVAL"),
        ("unmap flag on a discard", f"-t {T_DISCARD} -R {at}:8:1", "/dev/vdac0", "EINVAL"),
        ("ranges with a command sector", f"-t {T_DISCARD} -R {at}:8 -s 8", "/dev/vdac0", "EINVAL"),
        ("part of a range", f"-t {T_DISCARD} -R {at}:8 -L 24", "/dev/vdac0", "EINVAL"),
        ("no ranges", f"-t {T_DISCARD} -R {at}:8 -L 0", "/dev/vdac0", "EINVAL"),
        ("discard on a read-only node", f"-t {T_DISCARD} -R {at}:8 -O r", "/dev/vdac0", "EACCES"),
        ("ranges at an unmapped address", f"-t {T_DISCARD} -R {at}:8 -a 0x1000", "/dev/vdac0", "EFAULT"),
    ]
    names = ("wr_operations", "flush_operations")
    before = {d: g.counters(d, names) for d in ("d0", "d1")}
    failures = []
    for what, args, node, want in refused:
        got = vblk_cmd(g, args, node=node)[0]
        t.log(f"{what}: {args} -> {got}")
        if got != want:
            failures.append(f"{what}: got {got}, expected {want}")
    t.expect(not failures, "\n".join(failures))
    after = {d: g.counters(d, names) for d in ("d0", "d1")}
    t.expect_equal(after, before, "counters after the refusals")
    t.expect(image_matches(d0.image, 46, 16 * MiB, 64 * KiB) and image_matches(d1.image, 47, 0, 64 * KiB),
             "a refused command changed an image")
