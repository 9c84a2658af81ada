# SPDX-License-Identifier: GPL-2.0
"""Hot-unplug under load: 20 times (8 on the debug kernel, 6 on the
vhost-user disk), QMP device_del of a disk while
t/io_uring-vblk keeps 32 passthrough commands in flight on its node
(interrupt-driven and polled, plain and registered buffers), then
device_add.  Every outstanding command completes (the load exits, on the
removal's ENODEV and no other error, within a bounded time), nothing hangs,
the node goes away
and comes back with the same minor, and the kernel does not complain.  On
QEMU's virtio-blk and on a vhost-user-blk disk served by qemu-storage-daemon
(whose connection QEMU closes at the unplug and opens again at the plug;
there with interrupt-driven rings only: VhostUserDisk.polled)."""

from harness import vm
from harness.vm import Disk
from harness.workloads import io_uring_vblk, io_uring_vblk_result
from tests.helpers import DEVICES, NODE_CLASS, disk_for

# cycles per device: the second device's are its connection's life cycle,
# not more of the kernel's races; on the debug kernel, where a cycle takes
# several times as long, two of each mode
DEBUG_KERNEL = True
CYCLES = {"virtio-blk": 8 if vm.VARIANT == "debug" else 20, "vhost-user-blk": 6}
# polled completions, registered buffers
MODES = ((False, False), (True, False), (False, True), (True, True))
DRAIN_S = 30            # the load must be gone this long after the unplug
CONDITIONS = {"device": DEVICES}
DEBUG_CONDITIONS = {"device": ("virtio-blk",)}    # vhost-user-blk: the default passes


def minor(g):
    return g.output(f"cat {NODE_CLASS}/vdbc0/dev").strip()


def test(t, cond):
    disk = disk_for(cond["device"], id="d1", backend="null", size=1 << 30)
    polled_ok = disk.polled
    modes = [m for m in MODES if polled_ok or not m[0]]
    g = t.guest([Disk(id="d0", size=16 << 20), disk], vblk="poll_queues=1" if polled_ok else "",
                hotplug=True)
    first = minor(g)
    for cycle in range(CYCLES[cond["device"]]):
        polled, fixed = modes[cycle % len(modes)]
        mode = f"polled {polled}, fixed {fixed}"
        load = io_uring_vblk("/dev/vdbc0", depth=32, write_pct=50, polled=polled, fixed=fixed,
                             runtime=600, quiet=True)
        g.output(f"({load} > /tmp/load 2>&1; echo exit=$? >> /tmp/load) &")
        # wait until the load has the node open, then pull the disk from under it
        g.output("for i in $(seq 100); do p=$(pidof io_uring-vblk) && "
                 "ls -l /proc/$p/fd | grep -q vdbc0 && break; sleep 0.05; done; sleep 0.3")
        g.unplug("d1")
        out = g.output(f"for i in $(seq {DRAIN_S * 10}); do grep -q exit= /tmp/load && break; "
                       "sleep 0.1; done; cat /tmp/load")
        t.log(f"cycle {cycle} ({mode}): {out.strip()}")
        t.expect("exit=" in out, f"cycle {cycle} ({mode}): the load did not finish within "
                                 f"{DRAIN_S}s of the unplug:\n{out}")
        t.expect("res=-19 " in out, f"cycle {cycle} ({mode}): the load did not end with the "
                                    f"removal's ENODEV:\n{out}")
        t.expect(g.output("test -e /dev/vdbc0 && echo present || echo gone").strip() == "gone",
                 f"cycle {cycle}: the node outlived the disk")
        g.plug("d1")
        g.output(f"for i in $(seq 200); do test -e {NODE_CLASS}/vdbc0 && break; "
                 "sleep 0.05; done")
        t.expect_equal(minor(g), first, f"cycle {cycle}: the node's minor after re-plug")
    # the disk works after all that
    result = io_uring_vblk_result(g.output(io_uring_vblk("/dev/vdbc0", depth=8, ios=200,
                                                           json_summary=True)))
    t.expect_equal(result["errors"], 0, f"I/O after the last re-plug: {result}")
