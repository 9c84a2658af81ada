# SPDX-License-Identifier: GPL-2.0
"""The layers of the kernel that an I/O passes through, for make profile's
split of its instructions per I/O (tools/profile.py, tools/layers.py).

A symbol's layer follows from the source file that defines it, read from
the guest kernel's objects (nm over every object of build/kobj compiled from
a .c of its own), not from a list kept by hand, so a new symbol lands in its
file's layer; within block/ the function's name splits the file further.  A
symbol that no rule places, or whose name several files define, falls into
REST, which the report lists.
"""

import functools
import os
import re
import subprocess

from . import vm

REST = "the rest"
WAIT = "polling and idle"
FILE_OPS = "file and block-device file operations"
# (layer, the defining file, the function's name): the first rule that
# matches places a symbol; None matches anything
RULES = (
    ("user space", None, re.compile(r"^\[user\]$")),
    (WAIT, re.compile(r"^(kernel/sched/|arch/x86/kernel/process\.c|drivers/cpuidle/)"), None),
    (WAIT, None, re.compile(r"(^|_)(iopoll|poll|poll_cq|hctx_poll)$|^io_do_iopoll$")),
    ("io_uring", re.compile(r"^io_uring/"), None),
    # the block device's file operations, its uring_cmd too: its own completions included
    (FILE_OPS, re.compile(r"^block/(fops|ioctl)\.c$"), None),
    ("plugging", re.compile(r"^block/"), re.compile(r"plug")),
    ("rq_qos, blk-cgroup, I/O statistics",
     re.compile(r"^block/(blk-rq-qos|blk-cgroup|blk-stat|blk-wbt|blk-iolatency|blk-throttle|"
                r"blk-iocost|genhd)\.c$"), None),
    ("rq_qos, blk-cgroup, I/O statistics", re.compile(r"^block/"),
     re.compile(r"account|_stat|io_ticks|part_in_flight")),
    ("scheduler", re.compile(r"^block/(elevator|blk-mq-sched|mq-deadline|kyber-iosched|bfq-\w+)\.c$"),
     None),
    ("split and merge", re.compile(r"^block/blk-merge\.c$"), None),
    ("completion", re.compile(r"^block/"),
     re.compile(r"end_request|complete|end_io|free_request|put_request|end_bio")),
    ("tags and request set-up", re.compile(r"^(block/blk-mq-tag\.c|lib/sbitmap\.c)$"), None),
    ("tags and request set-up", re.compile(r"^block/"),
     re.compile(r"alloc_request|get_new_request|rq_ctx_init|get_tag|init_request|rq_init")),
    ("bio allocation and mapping",
     re.compile(r"^(block/(bio|blk-map|bio-integrity)\.c|lib/iov_iter\.c|mm/gup\.c)$"), None),
    ("block: submission and dispatch", re.compile(r"^block/"), None),
    (FILE_OPS, re.compile(r"^(fs/|mm/(filemap|truncate)\.c$)"), None),
    ("driver", re.compile(r"^drivers/(block|nvme)/"), None),
    ("virtio transport", re.compile(r"^(drivers/virtio/|lib/scatterlist\.c)"), None),
)
LAYERS = list(dict.fromkeys(layer for layer, _, _ in RULES)) + [REST]


@functools.lru_cache(maxsize=None)
def symbol_files(kobj=vm.PATHS["KOBJ"], ksrc=os.path.join(vm.BUILD, "linux")):
    """Each text symbol of the kernel's own objects: the .c that defines it,
    or None where several do."""
    objects = []
    for root, _, files in os.walk(kobj):
        for f in files:
            if f.endswith(".o") and not f.endswith(".mod.o"):
                rel = os.path.relpath(os.path.join(root, f), kobj)
                if os.path.exists(os.path.join(ksrc, rel[:-2] + ".c")):
                    objects.append(rel)
    out = subprocess.run(["nm", "-A", "--defined-only"] + objects, cwd=kobj,
                         capture_output=True, text=True, check=True).stdout
    files = {}
    for line in out.splitlines():
        where, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            source = where[:-2] + ".c"
            name = parts[2]
            files[name] = source if files.get(name, source) == source else None
    return files


def layer_of(name, files):
    """name's layer, files being symbol_files()."""
    source = files.get(name)
    for layer, file_rule, name_rule in RULES:
        if file_rule is not None and (source is None or not file_rule.search(source)):
            continue
        if name_rule is not None and not name_rule.search(name):
            continue
        return layer
    return REST
