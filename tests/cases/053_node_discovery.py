# SPDX-License-Identifier: GPL-2.0
"""The node tells an application what it may send, in its sysfs directory:
the types the disk takes, the longest transfer, the most ranges and the
bytes of one range for each range type, whether IOPOLL rings poll, and the
mode.  Each is checked against what the node does with commands: every
listed type is taken and every other one refused with EOPNOTSUPP, a
transfer of max_transfer_bytes is taken and one a block longer refused,
max_ranges ranges are taken and one more refused; and against the block
device's own limits where it has them."""

from harness import vm
from harness.vm import Disk
from tests.helpers import (OK, NODE_CLASS, T_DISCARD, T_FLUSH, T_GET_ID, T_SECURE_ERASE,
                     T_WRITE_ZEROES, disk_limits, vblk_cmd)

DESCRIPTION = "sysfs says which commands and limits the node takes"
QUICK = True

MiB = 1 << 20
SCRATCH = 16384          # the sector where commands that are taken may write
T_IN, T_OUT = 0, 1
RANGE_TYPES = {"discard": T_DISCARD, "write_zeroes": T_WRITE_ZEROES,
               "secure_erase": T_SECURE_ERASE}
# the types tried whether listed or not: every one the node passes anywhere,
# the specification's others (SCSI, GET_LIFETIME, the zoned ones) and beyond
TRIED = (0, 1, 2, 3, 4, 5, 8, 10, 11, 13, 14, 15, 16, 24, 25, 26, 27, 28, 36)


def taken_args(t):
    """vblk-cmd arguments of a valid command of type t."""
    return {T_IN: f"-s {SCRATCH}", T_OUT: f"-w -s {SCRATCH}", T_FLUSH: "-a 0 -L 0 -s 0",
            T_GET_ID: "-l 20 -s 0"}.get(t, f"-R {SCRATCH}:8")


def ranges(n):
    """n ranges of 8 sectors each, one after the other from SCRATCH."""
    return ",".join(f"{SCRATCH + 8 * i}:8" for i in range(n))


def attr(g, name, a):
    return g.output(f"cat {NODE_CLASS}/{name}c0/{a}").strip()


def queue(g, name, a):
    return int(g.output(f"cat /sys/block/{name}/queue/{a}"))


def check_modes(t, g, name):
    """mode, and poll against the queues that poll."""
    own = int(attr(g, name, "direct_queues")), int(attr(g, name, "direct_poll_queues"))
    t.expect_equal(attr(g, name, "mode"), "direct" if vm.MODE == "direct" else "blk-mq",
                   f"{name}: mode")
    t.expect_equal(attr(g, name, "mode") == "direct", own[0] > 0, f"{name}: mode and queues")
    polled = own[1] > 0 if own[0] else queue(g, name, "io_poll") == 1
    t.expect_equal(attr(g, name, "poll"), "1" if polled else "0", f"{name}: poll")


def check_disk(t, g, name):
    node = f"/dev/{name}c0"
    types = [int(x) for x in attr(g, name, "types").split()]
    t.log(f"{name}: types {types}")
    t.expect(set(types) <= set(TRIED), f"{name}: types {types} beyond those tried")
    for typ in TRIED:
        got = vblk_cmd(g, f"-t {typ} {taken_args(typ)}", node=node)[0]
        if typ in types:
            t.expect_equal(got, OK, f"{name}: listed type {typ}")
        else:
            t.expect_equal(got, "EOPNOTSUPP", f"{name}: unlisted type {typ}")

    lim = disk_limits(g, name)
    most = int(attr(g, name, "max_transfer_bytes"))
    t.expect_equal(most, lim["max_transfer"], f"{name}: max_transfer_bytes")
    t.expect_equal(vblk_cmd(g, f"-s {SCRATCH} -l {most}", node=node)[0], OK,
                   f"{name}: a read of max_transfer_bytes")
    t.expect_equal(vblk_cmd(g, f"-s {SCRATCH} -l {most + lim['lbs']}", node=node)[0], "EINVAL",
                   f"{name}: a read one block longer")

    for kind, typ in RANGE_TYPES.items():
        n = int(attr(g, name, f"{kind}_max_ranges"))
        size = int(attr(g, name, f"{kind}_max_range_bytes"))
        t.log(f"{name}: {kind} {n} ranges of at most {size} bytes")
        t.expect_equal(n > 0 and size > 0, typ in types, f"{name}: {kind} limits and types")
        if not n:
            continue
        t.expect_equal(vblk_cmd(g, f"-t {typ} -R {ranges(n)}", node=node)[0], OK,
                       f"{name}: {kind} of {n} ranges")
        t.expect_equal(vblk_cmd(g, f"-t {typ} -R {ranges(n + 1)}", node=node)[0], "EINVAL",
                       f"{name}: {kind} of {n + 1} ranges")
        t.expect_equal(vblk_cmd(g, f"-t {typ} -R {SCRATCH}:{size // 512 + lim['lbs'] // 512}",
                                node=node)[0], "EINVAL", f"{name}: a {kind} range too long")
    t.expect_equal(int(attr(g, name, "discard_max_ranges")), queue(g, name, "max_discard_segments")
                   if T_DISCARD in types else 0, f"{name}: discard_max_ranges")
    t.expect_equal(int(attr(g, name, "discard_max_range_bytes")),
                   queue(g, name, "discard_max_hw_bytes"), f"{name}: discard_max_range_bytes")
    t.expect_equal(int(attr(g, name, "write_zeroes_max_range_bytes")),
                   queue(g, name, "write_zeroes_max_bytes"),
                   f"{name}: write_zeroes_max_range_bytes")


def test(t):
    full = Disk(id="d0", size=64 * MiB, serial="discovery", discard=True, write_zeroes=True)
    bare = Disk(id="d1", size=64 * MiB, discard=False, write_zeroes=False)
    g = t.guest([full, bare], vblk=None)
    for params in ("poll_queues=0", "poll_queues=1"):
        g.load_vblk(params)
        for name in ("vda", "vdb"):
            check_modes(t, g, name)
            if params.endswith("0"):
                check_disk(t, g, name)
        g.unload_vblk()
