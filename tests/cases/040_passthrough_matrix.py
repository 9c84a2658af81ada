"""Reads and writes through /dev/vdac0 over the whole matrix ({read, write}
x {plain, vectored, fixed buffer} x {IRQ ring, IOPOLL ring} x {submit,
SQPOLL, IOSQE_ASYNC}, queue depths 1 to 64, sizes from one logical block to
the largest transfer), with and without poll queues: the data is checked
through the block device in the guest and in the host's image file."""

from helpers import check_writes_in_image
from vm import Disk

GiB = 1 << 30


def test(t):
    disk = Disk(size=4 * GiB)
    g = t.guest([disk], vblk=None)
    for seed, poll_queues in ((11, 0), (12, 1)):
        g.output(f"modprobe virtio_blk poll_queues={poll_queues}")
        polled = g.output("cat /sys/block/vda/queue/io_poll").strip()
        t.expect_equal(polled, "1" if poll_queues else "0", "io_poll")
        status, out = g.run(f"vblk-matrix -s {seed} /dev/vdac0 /dev/vda 0 {4 * GiB}",
                            timeout=600, check=False)
        t.log(out)
        failures = [line for line in out.splitlines() if line.startswith("FAIL")]
        t.expect(status == 0, f"poll_queues={poll_queues}: {failures or out[-2000:]}")
        writes = check_writes_in_image(t, disk.image, out)
        t.log(f"poll_queues={poll_queues}: {writes} writes found in the host image")
        g.output("modprobe -r virtio_blk")
