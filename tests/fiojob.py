# SPDX-License-Identifier: GPL-2.0
"""What the fio cases (07x) share: the engine's options, running fio in the
guest against QEMU's counters, and on the host against the image file.

The host runs the guest's fio (fio master with the series, built by make
fio): Debian 12's fio 3.33 and later fios refuse each other's verify
headers (3.41 gave them a version and a 64-bit numberio)."""

import json
import os
import re

from harness.vm import BUILD
from harness.workloads import fio_result
from tests.helpers import NOT_COUNTED, moved

MiB = 1 << 20
HOST_FIO = os.path.join(BUILD, "fio", "fio")
NODE = "/dev/vdac0"
# engine options (hipri, fixedbufs, ...) must follow it on the command line
ENGINE = f"--ioengine=io_uring_cmd --cmd_type=vblk --filename={NODE} --iodepth=4"
# fio's verify state files would land in the working directory
VERIFY = "--verify=crc32c --verify_state_save=0"


def requires():
    """The fio cases' requires(): fio must be built."""
    if not os.access(HOST_FIO, os.X_OK):
        return f"{HOST_FIO} is missing: run make fio"
    return None


def guest_fio(t, g, job, counters=("wr_bytes", "rd_bytes")):
    """Run fio in the guest; return (exit status, its output, how QEMU's
    device counters moved: by default (bytes written, bytes read); None
    for a device nothing counts)."""
    before = g.counters("d0", counters)
    status, out = g.run(f"fio {job}", timeout=300, check=False)
    delta = moved(before, g.counters("d0", counters))
    t.log(f"guest: fio {job}\n-> {status}\n{out}")
    return status, out, None if delta is None else tuple(delta[k] for k in counters)


def fio_json(t, out):
    """The one job of fio's --output-format=json report in out."""
    t.expect("{" in out, f"no JSON report from fio:\n{out[-1500:]}")
    return fio_result(out)


def errors(out):
    """fio's complaints in its output (or its tail), for a failure message."""
    lines = [line for line in out.splitlines()
             if re.search(r"verify|fio:|error|err=", line)]
    return "\n".join(lines[:12]) or out[-1500:]


def expect_clean(t, what, result, written, read):
    """fio passed, and the device wrote and read what it should have (when
    something counts what it did)."""
    status, out, moved = result
    t.expect(status == 0, f"{what}: fio failed (status {status}):\n{errors(out)}")
    if moved is None:
        t.log(f"{what}: {NOT_COUNTED}")
    else:
        t.expect_equal(moved, (written, read), f"{what}: bytes the device (wrote, read)")


def host_fio(t, job, image):
    """Run fio on the host, on the image file; it must pass.  Return the
    job's JSON report."""
    out = t.host(HOST_FIO, *job.split(), f"--filename={image}", "--ioengine=psync",
                 *VERIFY.split(), "--output-format=json")
    return json.loads(out)["jobs"][0]
