# SPDX-License-Identifier: GPL-2.0
"""What several test cases need from the guest: its programs' results and
its disks' limits."""

import os
import re

from harness import workloads
from harness.vm import NODE_CLASS  # noqa: F401  (the cases take it from here)
from harness.vm import Disk, VhostUserDisk
from harness.workloads import io_uring_vblk_result
from tests.pattern import image_matches

# What a virtio-blk disk's device can be, for the cases that run on each
# (CONDITIONS = {"device": DEVICES}): QEMU's own virtio-blk, or a
# vhost-user-blk export of qemu-storage-daemon, another implementation
# with its own features and no request counters.
DEVICES = ("virtio-blk", "vhost-user-blk")
# what a case logs where the second cannot be judged as the first
NOT_COUNTED = "qemu-storage-daemon counts no requests: the host image is the only oracle"


def moved(before, after):
    """How counters (Guest.counters()) moved from before to after: a dict,
    or None where nothing counts the disk's requests."""
    return None if before is None else {k: after[k] - before[k] for k in before}


def disk_for(device, **fields):
    """A disk of that device (DEVICES) with those fields; QEMU's id d0
    unless they say otherwise, whatever the device."""
    fields.setdefault("id", "d0")
    return (VhostUserDisk if device == "vhost-user-blk" else Disk)(**fields)


# errno names as vblk-cmd prints them
OK = "OK"
# struct virtblk_uring_cmd types (VIRTIO_BLK_T_*) that have no vblk-cmd flag
T_FLUSH, T_GET_ID, T_DISCARD, T_WRITE_ZEROES, T_SECURE_ERASE = 4, 8, 11, 13, 14


def vblk_output(guest, args, node="/dev/vdac0"):
    """Run guest/prog/vblk-cmd in the guest; return its "key=value" lines as
    a dict, with res reduced to its name ("OK", "EINVAL", "VIRTIO_BLK_S_...")."""
    out = guest.output(f"vblk-cmd {args} {node}")
    fields = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    if not re.fullmatch(r"-?\d+ \S+", fields.get("res", "")):
        raise AssertionError(f"vblk-cmd {args}: unexpected output {out!r}")
    fields["res"] = fields["res"].split(" ", 1)[1]
    return fields


def vblk_cmd(guest, args, node="/dev/vdac0"):
    """Run vblk-cmd; return (result name, data check "ok"/"mismatch"/None)."""
    fields = vblk_output(guest, args, node)
    return fields["res"], fields.get("data")


def disk_limits(guest, name="vda"):
    """The queue limits the passthrough path documents, read from sysfs."""
    q = f"/sys/block/{name}/queue"
    values = guest.output(f"cat {q}/logical_block_size {q}/max_hw_sectors_kb "
                          f"{q}/max_segments {q}/max_segment_size /sys/block/{name}/size").split()
    lbs, hw_kb, segs, seg_size, sectors = map(int, values)
    return {"lbs": lbs, "sectors": sectors,
            "max_transfer": min(hw_kb * 1024, segs * min(seg_size, 4096))}


def image_has_data(image, offset, length):
    """Whether the host file has any allocated data in [offset, offset + length)."""
    with open(image, "rb") as f:
        try:
            data = os.lseek(f.fileno(), offset, os.SEEK_DATA)
        except OSError:     # ENXIO: nothing but a hole from offset to the end
            return False
        return data < offset + length


def check_writes_in_image(t, image, output):
    """Every "W OFFSET LEN SEED" line the guest printed must be in the image."""
    writes = [tuple(map(int, line.split()[1:])) for line in output.splitlines()
              if line.startswith("W ")]
    t.expect(writes, "the guest reported no writes")
    for off, length, seed in writes:
        t.expect(image_matches(image, seed, off, length),
                 f"a write through the node is not in the host image: offset {off}, length {length}")
    return len(writes)


def io_uring_vblk(guest, device, **options):
    """Run t/io_uring-vblk on device with options (workloads.io_uring_vblk())
    in the guest; return its JSON summary."""
    return io_uring_vblk_result(guest.output(workloads.io_uring_vblk(
        device, json_summary=True, **options)))


def expect_io_uring_vblk(t, guest, device, counter, done, disk="d0", **options):
    """Run t/io_uring-vblk on device with options: it must complete done
    I/Os without an error, and QMP's counter of the disk (rd_operations...)
    move by as many."""
    what = workloads.io_uring_vblk(device, **options)
    before = guest.blockstats(disk)[counter]
    result = io_uring_vblk(guest, device, **options)
    t.log(f"{what}: {result}")
    t.expect_equal((result["ios"], result["errors"]), (done, 0), f"{what}: I/Os done")
    t.expect_equal(guest.blockstats(disk)[counter] - before, done,
                   f"{what}: {counter} seen by the device")
