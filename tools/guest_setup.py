"""The guest that make bench and make profile measure in: two null-co
virtio-blk disks on an iothread, each with a default and a poll queue for
blk-mq.  vda's passthrough node goes through blk-mq; vdb has
PT_QUEUES virtqueues more, so its node drives them itself (the direct
mode of passthrough_queues): one polled and one with an interrupt per
vCPU.  The node, the direct node and the block device are measured in the
same boot, on disks that differ only in the node's queues."""

import vm

PT_QUEUES, PT_POLL_QUEUES = 3, 1
VBLK_PARAMS = (f"poll_queues=1 passthrough_queues={PT_QUEUES} "
               f"passthrough_poll_queues={PT_POLL_QUEUES}")
DISKS = [vm.Disk(id=f"d{i}", backend="null", size=64 << 30, iothread=True, num_queues=queues)
         for i, queues in enumerate((2, 2 + PT_QUEUES))]
DESCRIPTION = (f"two null-co disks, read-zeroes, iothread, num-queues=2 and {2 + PT_QUEUES}; "
               f"virtio_blk {VBLK_PARAMS}")
NODE, DIRECT_NODE, BLOCK = "/dev/vdac0", "/dev/vdbc0", "/dev/vda"
# the block device whose scheduler a run on each device sets
DISK_OF = {NODE: "vda", DIRECT_NODE: "vdb", BLOCK: "vda"}


def boot(name, **kwargs):
    """The guest, to start as a context manager; then load()."""
    return vm.Guest(name, DISKS, **kwargs)


def load(guest):
    """Load virtio_blk and check that only vdb's node has queues of its own."""
    guest.load_vblk(VBLK_PARAMS)
    queues = guest.output(f"cat {vm.NODE_CLASS}/vdac0/queues "
                          f"{vm.NODE_CLASS}/vdbc0/queues").split()
    if queues != ["0", str(PT_QUEUES)]:
        raise SystemExit(f"the nodes' own queues: {queues}, not 0 and {PT_QUEUES}")
