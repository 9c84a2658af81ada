# SPDX-License-Identifier: GPL-2.0
"""What an application developer or fio user builds first builds outside
this tree, as they say.  examples/vblk-passthrough.c builds, warning-free,
with only the distribution's headers and liburing (Debian 12: Linux 6.1's
UAPI, which has no <linux/virtio_blk_uring_cmd.h>, and liburing 2.3), and
with a <linux/virtio_blk.h> as old as Linux 4.19's, which has no discard,
write zeroes, secure erase or zoned definitions (the system's with those
taken out).  fio's engine (engines/vblk.c and engines/io_uring.c of the
guest's fio, fio master with the series) compiles with fio's own flags
against that old header too."""

import os
import re
import shlex
import subprocess
import tempfile

from harness.buildpaths import TOP, default_build

DESCRIPTION = "the example and fio's engine build with a distribution's and 4.19's headers"
QUICK = True
ONCE = True

SYSTEM_HEADER = "/usr/include/linux/virtio_blk.h"
EXAMPLE = os.path.join(TOP, "examples", "vblk-passthrough.c")
FIO = os.path.join(default_build(), "fio")
FIO_OBJECTS = ("engines/vblk.o", "engines/io_uring.o")
# what <linux/virtio_blk.h> gained after 4.19: discard and write zeroes
# (5.0), secure erase and the zoned commands and statuses (5.19)
NEWER = re.compile(r"#define VIRTIO_BLK_(T_DISCARD|T_WRITE_ZEROES|T_SECURE_ERASE|T_ZONE_\w+|"
                   r"S_ZONE_\w+)\b")
NEWER_STRUCT = re.compile(r"^struct virtio_blk_discard_write_zeroes \{.*?^\};\n", re.M | re.S)


def old_header(directory):
    """An include directory whose linux/virtio_blk.h is as old as 4.19's."""
    text = open(SYSTEM_HEADER).read()
    text = NEWER_STRUCT.sub("", text)
    text = "".join(line for line in text.splitlines(True) if not NEWER.search(line))
    os.makedirs(os.path.join(directory, "linux"))
    with open(os.path.join(directory, "linux", "virtio_blk.h"), "w") as f:
        f.write(text)
    return text


def compile_(t, what, argv, cwd=None):
    run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    t.log(f"{what}: {shlex.join(argv)} -> {run.returncode}\n{run.stdout}{run.stderr}")
    t.expect(run.returncode == 0 and not run.stderr.strip(),
             f"{what} does not build cleanly:\n{run.stderr[-3000:]}")


def fio_command(t, obj):
    """fio's own command line for one of its objects, from its Makefile."""
    run = subprocess.run(["make", "-C", FIO, "-n", "-B", "V=1", obj],
                         capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if f"-c -o {obj}" in line
             or re.search(rf"-o {re.escape(obj)}\b.*-c ", line)]
    t.expect(run.returncode == 0 and len(lines) == 1,
             f"make -n {obj} in {FIO} gave no one compile command:\n{run.stdout}{run.stderr}")
    return shlex.split(lines[0])


def test(t):
    t.expect(not os.path.exists("/usr/include/linux/virtio_blk_uring_cmd.h"),
             "the system has <linux/virtio_blk_uring_cmd.h>: not a stock distribution's headers")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "vblk-passthrough")
        cc = ["cc", "-Wall", "-Wextra", "-Werror", "-O2", "-o", out, EXAMPLE, "-luring"]
        compile_(t, "the example (the distribution's headers and liburing)", cc)
        old = os.path.join(tmp, "old")
        text = old_header(old)
        t.expect("VIRTIO_BLK_T_DISCARD" not in text and "VIRTIO_BLK_T_GET_ID" in text,
                 "the 4.19-like header still has discard, or lost what 4.19 had")
        compile_(t, "the example (4.19's <linux/virtio_blk.h>)", cc[:1] + ["-isystem", old] + cc[1:])
        for obj in FIO_OBJECTS:
            argv = fio_command(t, obj)
            argv[argv.index("-o") + 1] = os.path.join(tmp, os.path.basename(obj))
            first = next(i for i, a in enumerate(argv) if a.startswith("-"))  # after "ccache gcc"
            compile_(t, f"fio's {obj} (4.19's <linux/virtio_blk.h>)",
                     argv[:first] + ["-isystem", old] + argv[first:], cwd=FIO)
