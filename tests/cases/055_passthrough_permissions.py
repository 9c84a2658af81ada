# SPDX-License-Identifier: GPL-2.0
"""Access to the node follows how it was opened, not CAP_SYS_ADMIN: the node
is root-only (0600) by default; chmod'ed 0666, an unprivileged user reads on
an O_RDONLY fd and is refused writes on it, and may write on an O_RDWR fd;
root is refused writes on an O_RDONLY fd too; a read-only disk refuses writes
to everyone."""

from harness.vm import Disk
from tests.helpers import OK, vblk_cmd
from tests.pattern import image_matches, write_image

QUICK = True

MiB = 1 << 20
USER = 1000


def test(t):
    rw = Disk(id="d0", size=16 * MiB)
    ro = Disk(id="d1", size=16 * MiB, readonly=True)
    g = t.guest([rw, ro])
    write_image(rw.image, 3, 0, 4096)

    t.expect_equal(g.output("stat -c %a /dev/vdac0").strip(), "600", "default mode of the node")
    status, out = g.run(f"vblk-cmd -U {USER} -O r /dev/vdac0", check=False)
    t.expect(status != 0 and "Permission denied" in out,
             f"an unprivileged user opened the 0600 node: {out}")

    g.output("chmod 0666 /dev/vdac0 /dev/vdbc0")
    user = f"-U {USER} -l 4096"
    t.expect_equal(vblk_cmd(g, f"{user} -O r -k 3"), (OK, "ok"), "unprivileged read, O_RDONLY")
    t.expect_equal(vblk_cmd(g, f"{user} -O r -w -k 4")[0], "EACCES",
                   "unprivileged write, O_RDONLY")
    t.expect(image_matches(rw.image, 3, 0, 4096), "a refused write changed the image")
    t.expect_equal(vblk_cmd(g, f"{user} -O rw -w -k 5")[0], OK, "unprivileged write, O_RDWR")
    t.expect(image_matches(rw.image, 5, 0, 4096), "the permitted write is not in the image")
    t.expect_equal(vblk_cmd(g, "-O r -w -k 6 -l 4096")[0], "EACCES", "root write, O_RDONLY")

    writes = g.blockstats("d1")["wr_operations"]
    t.expect_equal(vblk_cmd(g, "-w -k 7", node="/dev/vdbc0")[0], "EROFS", "write to a read-only disk")
    t.expect_equal(vblk_cmd(g, f"{user} -O rw -w -k 7", node="/dev/vdbc0")[0], "EROFS",
                   "unprivileged write to a read-only disk")
    t.expect_equal(vblk_cmd(g, "", node="/dev/vdbc0")[0], OK, "read from a read-only disk")
    t.expect_equal(g.blockstats("d1")["wr_operations"], writes, "writes reaching the read-only disk")
    with open(ro.image, "rb") as f:
        t.expect(f.read(4096) == bytes(4096), "the read-only image changed")
