# SPDX-License-Identifier: GPL-2.0
"""The guest that make bench and make profile measure in: two null-co
virtio-blk disks on an iothread, each with a default and a poll queue for
blk-mq.  vda's passthrough node goes through blk-mq; vdb has
PT_QUEUES virtqueues more, which its node drives itself (the direct
mode, set through the node's direct_queues): one polled and one with an
interrupt per vCPU.  Beside them the yardstick, NVMe's pair: a null-co namespace on
QEMU's NVMe controller, its generic char node /dev/ng0n1 (the kernel's
uring_cmd passthrough) and its block device /dev/nvme0n1, with an
interrupt queue per vCPU and a poll queue.  The node, the direct node, the
block device and NVMe's pair are measured in the same boot."""

from . import vm
from .workloads import is_node

PT_QUEUES, PT_POLL_QUEUES = 3, 1
VBLK_PARAMS = "poll_queues=1"
NVME_PARAMS = "poll_queues=1"
DISKS = [vm.Disk(id=f"d{i}", backend="null", size=64 << 30, iothread=True, num_queues=queues)
         for i, queues in enumerate((2, 2 + PT_QUEUES))]
NVME = vm.Nvme(id="n0", backend="null", size=64 << 30)
DESCRIPTION = (f"two null-co disks, read-zeroes, iothread, num-queues=2 and {2 + PT_QUEUES}; "
               f"virtio_blk {VBLK_PARAMS}, vdbc0's direct_queues={PT_QUEUES} "
               f"direct_poll_queues={PT_POLL_QUEUES}; a null-co NVMe namespace (QEMU's nvme, main loop), "
               f"nvme {NVME_PARAMS}")
NODE, DIRECT_NODE, BLOCK = "/dev/vdac0", "/dev/vdbc0", "/dev/vda"
NVME_NODE, NVME_BLOCK = "/dev/ng0n1", "/dev/nvme0n1"
# each path that make bench and make profile measure: the node on blk-mq,
# the node on its own virtqueues, the block device, NVMe's node and block
# device; and a block device through its own uring_cmd (BLOCK_URING_CMD_READ
# and _WRITE), vda (blkcmd) or nvme0n1 (nvmecmd), which only make
# experiment's kernel has (experiments/blkdev-uring-rw/)
DEVICE = {"node": NODE, "direct": DIRECT_NODE, "block": BLOCK,
          "ng": NVME_NODE, "nvme": NVME_BLOCK, "blkcmd": BLOCK, "nvmecmd": NVME_BLOCK}
# t/io_uring-vblk's -u of each path that does not follow from its device
PATH_MODE = {"blkcmd": 2, "nvmecmd": 2}
# the block device whose scheduler a run on each device sets
DISK_OF = {NODE: "vda", DIRECT_NODE: "vdb", BLOCK: "vda",
           NVME_NODE: "nvme0n1", NVME_BLOCK: "nvme0n1"}
# Each path at its best, as a reviewer would rerun the comparison: the file
# registered with the ring; a block device also without I/O statistics
# (queue/iostats 0) and without merging (queue/nomerges 2), which a run of
# it sets and then puts back.  Scheduler none and registered buffers (the
# "fixed" points) hold for every path.
BEST = {"node-best": "node", "block-best": "block", "ng-best": "ng", "nvme-best": "nvme",
        "blkcmd-best": "blkcmd", "nvmecmd-best": "nvmecmd"}
BEST_QUEUE = {"iostats": (0, 1), "nomerges": (2, 0)}     # at its best, by default


def device_of(path):
    """A path's device: NAME-best runs on NAME's."""
    return DEVICE[BEST.get(path, path)]


def at_best(path, command):
    """command (a run on path) as a guest script: with the block device's
    queue at its best around it when path is a block device's best."""
    if path not in BEST or is_node(DEVICE[BEST[path]]):
        return command
    queue = f"/sys/block/{DISK_OF[DEVICE[BEST[path]]]}/queue"
    setting = "; ".join(f"echo {best} > {queue}/{attr}" for attr, (best, _) in BEST_QUEUE.items())
    default = "; ".join(f"echo {dflt} > {queue}/{attr}" for attr, (_, dflt) in BEST_QUEUE.items())
    return f"{setting}; {command}; r=$?; {default}; exit $r"


def boot(name, **kwargs):
    """The guest, to start as a context manager; then load()."""
    return vm.Guest(name, DISKS + [NVME], **kwargs)


def load(guest):
    """Load virtio_blk and nvme; check that only vdb's node has queues of
    its own, and that NVMe's namespace has a poll queue."""
    guest.load_vblk(VBLK_PARAMS, direct=False)
    guest.set_direct("vdbc0", PT_QUEUES, PT_POLL_QUEUES)
    guest.load_nvme(NVME_PARAMS)
    queues = guest.output(f"cat {vm.NODE_CLASS}/vdac0/direct_queues "
                          f"{vm.NODE_CLASS}/vdbc0/direct_queues").split()
    if queues != ["0", str(PT_QUEUES)]:
        raise SystemExit(f"the nodes' own queues: {queues}, not 0 and {PT_QUEUES}")
    if guest.output("cat /sys/block/nvme0n1/queue/io_poll").strip() != "1":
        raise SystemExit("nvme0n1 has no poll queue")
