"""What several test cases need from the guest: its programs' results and
its disks' limits."""

import re

from pattern import image_matches

# errno names as vblk-cmd prints them
OK = "OK"


def vblk_cmd(guest, args, node="/dev/vdac0"):
    """Run tests/prog/vblk-cmd in the guest; return (result name, data check).

    The result name is "OK", an errno name ("EINVAL") or a VIRTIO_BLK_S_*
    status; the data check is "ok", "mismatch" or None (no read checked)."""
    out = guest.output(f"vblk-cmd {args} {node}")
    m = re.search(r"^res=(-?\d+) (\S+)$", out, re.M)
    if not m:
        raise AssertionError(f"vblk-cmd {args}: unexpected output {out!r}")
    data = re.search(r"^data=(\w+)$", out, re.M)
    return m.group(2), data.group(1) if data else None


def disk_limits(guest, name="vda"):
    """The queue limits the passthrough path documents, read from sysfs."""
    q = f"/sys/block/{name}/queue"
    values = guest.output(f"cat {q}/logical_block_size {q}/max_hw_sectors_kb "
                          f"{q}/max_segments {q}/max_segment_size /sys/block/{name}/size").split()
    lbs, hw_kb, segs, seg_size, sectors = map(int, values)
    return {"lbs": lbs, "sectors": sectors,
            "max_transfer": min(hw_kb * 1024, segs * min(seg_size, 4096))}


def check_writes_in_image(t, image, output):
    """Every "W OFFSET LEN SEED" line the guest printed must be in the image."""
    writes = [tuple(map(int, line.split()[1:])) for line in output.splitlines()
              if line.startswith("W ")]
    t.expect(writes, "the guest reported no writes")
    for off, length, seed in writes:
        t.expect(image_matches(image, seed, off, length),
                 f"a write through the node is not in the host image: offset {off}, length {length}")
    return len(writes)
