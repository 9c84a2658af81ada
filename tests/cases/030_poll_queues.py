# SPDX-License-Identifier: GPL-2.0
"""virtio_blk loads with poll_queues=N and the disk gets N poll queues
(the driver's own report, the hardware contexts in sysfs, and io_poll), and
unloads and reloads cleanly."""

from harness.vm import Disk

DESCRIPTION = "poll_queues=N gives the disk N poll queues"
QUICK = True

# It sets the queue parameters itself, whatever the mode
NODE_MODES = ("blkmq",)
QUEUES = 4   # the device's num-queues; virtio_blk uses at most one per CPU


def test(t):
    g = t.guest([Disk(size=16 << 20, num_queues=QUEUES)], vblk=None, cpus=QUEUES)
    for polled in (0, 1, 2, 0):
        g.output(f"modprobe virtio_blk poll_queues={polled}")
        report = g.output("dmesg | grep 'default/read/poll queues' | tail -n 1")
        t.expect(f" {QUEUES - polled}/0/{polled} default/read/poll queues" in report,
                 f"poll_queues={polled}: driver reported {report.strip()!r}")
        hctxs = int(g.output("ls /sys/block/vda/mq | wc -l"))
        t.expect_equal(hctxs, QUEUES, f"poll_queues={polled}: hardware contexts")
        io_poll = g.output("cat /sys/block/vda/queue/io_poll").strip()
        t.expect_equal(io_poll, "1" if polled else "0", f"poll_queues={polled}: io_poll")
        g.output("modprobe -r virtio_blk && test ! -e /dev/vda")
