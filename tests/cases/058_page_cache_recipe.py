# SPDX-License-Identifier: GPL-2.0
"""The user's guide's recipe for a program that mixes the node and the
block device, run as the guide gives it: node commands go around the
block device's page cache, so after a node write a buffered read of
/dev/vda returns what was cached before it; after fsync() and
posix_fadvise(POSIX_FADV_DONTNEED) of the range it returns the node's
data.  The image is the oracle for what the node wrote.  (A kernel without
CONFIG_ADVISE_SYSCALLS fails the last step: posix_fadvise() is ENOSYS.)"""

from harness.vm import Disk
from tests.pattern import image_matches, write_image

DESCRIPTION = "the user's guide's page cache recipe works"
QUICK = True

MiB = 1 << 20
AT = 4 * MiB
LEN = 16384


def test(t):
    disk = Disk(size=16 * MiB)
    g = t.guest([disk])
    write_image(disk.image, 1, AT, LEN)

    # The block device stays open throughout, as in a program that mixes
    # the two: its last close would drop the page cache by itself.
    out = g.output(f"exec 3</dev/vda; "
                   f"vblk-io -c verify /dev/vda {AT} {LEN} 1 || echo cold-failed; "
                   f"vblk-cmd -w -k 2 -s {AT // 512} -l {LEN} /dev/vdac0; "
                   f"vblk-io -c verify /dev/vda {AT} {LEN} 2; echo stale=$?; "
                   f"vblk-io -c -d verify /dev/vda {AT} {LEN} 2; echo recipe=$?")
    t.log(out.strip())
    t.expect("cold-failed" not in out, f"the first buffered read did not return the image: {out}")
    t.expect("res=0 OK" in out, f"the node write failed: {out}")
    t.expect(image_matches(disk.image, 2, AT, LEN), "the node's write is not in the image")
    t.expect("stale=0" not in out,
             "a buffered read saw the node's write without the recipe: the test no longer "
             "shows why the guide needs it")
    t.expect("recipe=0" in out, f"the recipe did not make the node's data visible: {out}")
