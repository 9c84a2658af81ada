# SPDX-License-Identifier: GPL-2.0
"""Other users of blk_execute_rq_nowait(), whose issue path "blk-mq: issue
a passthrough request directly when nothing holds it back" changes for
every caller that does not queue at the head: an NVMe admin command
through io_uring on the controller's char device /dev/nvme0 (Identify
Controller: the serial number must be the one QEMU was given), and SCSI
commands through sg's write() and read() with SG_FLAG_Q_AT_TAIL on a
scsi_debug disk (a WRITE(10) of the pattern, then a READ(10) that must
return it).  NVMe's I/O commands through io_uring are tests 081-083's."""

from harness.vm import Nvme

DESCRIPTION = "NVMe admin commands and sg's tail-queued commands still work"
NODE_MODES = ("blkmq",)     # no virtio-blk node involved
QUICK = True
DEBUG_KERNEL = True        # the issue path runs in the caller's context: lockdep looks at it

LBA, SEED = 2048, 84


def test(t):
    ctrl = Nvme(size=16 << 20)
    g = t.guest([ctrl], vblk=None)
    g.load_nvme("")
    status, out = g.run(f"passthru-users nvme-admin /dev/nvme0 {ctrl.id}", check=False)
    t.log(f"Identify Controller through io_uring: {status} {out.strip()}")
    t.expect(status == 0, f"Identify Controller through io_uring on /dev/nvme0: {out.strip()}")

    g.output("modprobe scsi_debug && for i in $(seq 100); do [ -e /dev/sg0 ] && break; "
             "sleep 0.1; done; [ -e /dev/sg0 ]")
    status, out = g.run(f"passthru-users sg-tail /dev/sg0 {LBA} {SEED}", check=False)
    t.log(f"sg, queued at the tail: {status} {out.strip()}")
    t.expect(status == 0 and "data=ok" in out,
             f"WRITE(10) and READ(10) through sg at the tail: {out.strip()}")
