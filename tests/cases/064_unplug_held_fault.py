# SPDX-License-Identifier: GPL-2.0
"""Hot-unplug does not wait for a page fault in a range command's ranges.

A command whose user memory lies on pages registered with userfaultfd,
never filled, blocks its submitter in the kernel's access to them: here the
range array of a DISCARD or a WRITE_ZEROES.  For each in turn, on the same
disk plugged back after the last: QMP device_del of the disk must complete
(within 30 s), the node must go, and the stuck program must die on SIGKILL.
A command that touches user memory while it holds a request (the queue's
usage reference) keeps del_gendisk() waiting for as long as the fault is
held: the ranges are copied in before a request is taken.  A read's or a
write's data is pinned into its bio with the request held, as for every
user of blk_rq_map_user_iov() (NVMe's char node, SG_IO): the user's guide
says so, and this case does not cover it."""

from harness.vm import Disk

DEBUG_KERNEL = True
QUICK = True
COMMANDS = ("discard -p1", "write-zeroes -p1")

UNPLUG_S = 30


def test(t):
    g = t.guest([Disk(id="d0", size=16 << 20),
                 Disk(id="d1", size=16 << 20, discard=True, write_zeroes=True)],
                hotplug=True)
    for i, command in enumerate(COMMANDS):
        if i:
            g.plug("d1")
            g.output("for i in $(seq 100); do [ -e /dev/vdbc0 ] && break; sleep 0.1; done")
        g.output(f"(vblk-uffd -t {command} /dev/vdbc0 > /tmp/uffd 2>&1; "
                 "echo exit=$? >> /tmp/uffd) &")
        out = g.output("for i in $(seq 100); do grep -q submitting /tmp/uffd && break; "
                       "sleep 0.1; done; sleep 1; cat /tmp/uffd")
        t.log(f"{command}, before the unplug: {out.strip()}")
        t.expect("submitting" in out and "exit=" not in out,
                 f"{command}: the command did not block on the held fault:\n{out}")
        g.unplug("d1", timeout=UNPLUG_S)
        t.expect_equal(g.output("test -e /dev/vdbc0 && echo present || echo gone").strip(),
                       "gone", f"{command}: the node after the unplug")
        out = g.output("kill -9 $(pidof vblk-uffd); for i in $(seq 100); do "
                       "grep -q exit= /tmp/uffd && break; sleep 0.1; done; cat /tmp/uffd")
        t.log(f"{command}, after SIGKILL: {out.strip()}")
        t.expect("exit=" in out, f"{command}: the program stuck on the fault did not die:\n{out}")
