"""Hot-unplug does not wait for a page fault the node's user never resolves.

A discard whose range array lies on a page registered with userfaultfd,
never filled, blocks its submitter in the kernel's copy of the array.  QMP
device_del of the disk must still complete (within 30 s), the node must go,
and the stuck program must die on SIGKILL.  Before the ranges were copied
ahead of taking a request, the removal waited in del_gendisk() for the
request's queue reference for as long as the fault was held."""

from vm import Disk

QUICK = True

UNPLUG_S = 30


def test(t):
    g = t.guest([Disk(id="d0", size=16 << 20),
                 Disk(id="d1", size=16 << 20, discard=True)])
    g.output("(vblk-uffd /dev/vdbc0 > /tmp/uffd 2>&1; echo exit=$? >> /tmp/uffd) &")
    out = g.output("for i in $(seq 100); do grep -q submitting /tmp/uffd && break; sleep 0.1; "
                   "done; sleep 1; cat /tmp/uffd")
    t.log(f"before the unplug: {out.strip()}")
    t.expect("submitting" in out and "exit=" not in out,
             f"the discard did not block on the held fault:\n{out}")
    g.unplug("d1", timeout=UNPLUG_S)
    t.expect_equal(g.output("test -e /dev/vdbc0 && echo present || echo gone").strip(), "gone",
                   "the node after the unplug")
    out = g.output("kill -9 $(pidof vblk-uffd); for i in $(seq 100); do grep -q exit= /tmp/uffd "
                   "&& break; sleep 0.1; done; cat /tmp/uffd")
    t.log(f"after SIGKILL: {out.strip()}")
    t.expect("exit=" in out, f"the program stuck on the fault did not die:\n{out}")
