# SPDX-License-Identifier: GPL-2.0
"""/dev/vdXc0 lives and dies with its disk: two disks get two nodes under the
virtio device; a module reload leaves no stale node and reuses the minors;
hot-unplug (QMP device_del) removes the node whether idle or held open, a
command on the held node then fails with ENODEV, the module cannot be
unloaded while a node is open, and a re-plugged disk gets its node back."""

from harness.vm import Disk
from tests.helpers import NODE_CLASS, OK, vblk_cmd

DEBUG_KERNEL = True
QUICK = True

MiB = 1 << 20


def nodes(g):
    """{node name: "major:minor"} as sysfs and /dev both show them."""
    listing = g.output(f"for n in $(ls {NODE_CLASS} 2>/dev/null); do echo $n $(cat {NODE_CLASS}/$n/dev); done")
    found = dict(line.split() for line in listing.splitlines())
    in_dev = g.output("ls /dev | grep '^vd.*c0$' || true").split()
    if sorted(in_dev) != sorted(found):
        raise AssertionError(f"/dev has {in_dev}, sysfs has {sorted(found)}")
    return found


def test(t):
    g = t.guest([Disk(id="d0", size=16 * MiB), Disk(id="d1", size=16 * MiB)], hotplug=True)
    first = nodes(g)
    t.expect_equal(sorted(first), ["vdac0", "vdbc0"], "nodes of two disks")
    t.expect(first["vdac0"] != first["vdbc0"], "two nodes share a minor")
    for disk in ("vda", "vdb"):
        parents = g.output(f"readlink -f {NODE_CLASS}/{disk}c0/device; "
                           f"readlink -f /sys/block/{disk}/device").split()
        t.expect(parents[0] == parents[1], f"{disk}c0's parent is not its virtio device: {parents}")
    t.expect(g.output("test -c /dev/vdac0 && echo char").strip() == "char", "not a char device")

    g.unload_vblk()
    t.expect_equal(g.output(f"ls /dev | grep '^vd' || true; ls {NODE_CLASS} 2>&1 | grep -v 'No such' || true").strip(),
                   "", "what the module's unload left behind")
    g.load_vblk()
    t.expect_equal(nodes(g), first, "nodes after a module reload")

    g.unplug("d1")
    t.expect_equal(sorted(nodes(g)), ["vdac0"], "nodes after unplugging an idle disk")
    g.plug("d1")
    g.output("for i in $(seq 100); do test -e /dev/vdbc0 && break; sleep 0.1; done")
    t.expect_equal(nodes(g), first, "nodes after re-plugging")

    # a node held open across the unplug
    g.output("rm -f /tmp/go; (vblk-cmd -W /tmp/go -l 4096 /dev/vdbc0 > /tmp/held 2>&1 &)")
    g.output("for i in $(seq 100); do ls -l /proc/*/fd 2>/dev/null | grep -q vdbc0 && break; "
             "sleep 0.1; done")
    status, out = g.run("modprobe -r virtio_blk", check=False)
    t.expect(status != 0, "the module unloaded while a node was open")
    g.unplug("d1")
    t.expect_equal(sorted(nodes(g)), ["vdac0"], "nodes after unplugging a held disk")
    g.output("touch /tmp/go; for i in $(seq 100); do grep -q res= /tmp/held && break; sleep 0.1; done")
    held = g.output("cat /tmp/held")
    t.expect("res=-19 ENODEV" in held, f"a command on the removed disk's node: {held!r}")

    g.plug("d1")
    g.output("for i in $(seq 100); do test -e /dev/vdbc0 && break; sleep 0.1; done")
    t.expect_equal(nodes(g), first, "nodes after re-plugging a disk that was held")
    t.expect_equal(vblk_cmd(g, "-w -k 8", node="/dev/vdbc0")[0], OK, "write after re-plug")
    t.expect_equal(vblk_cmd(g, "-k 8", node="/dev/vdbc0"), (OK, "ok"), "read after re-plug")
    g.unload_vblk()
