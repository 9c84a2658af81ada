#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the build puts a guest kernel variant: the one place that says so.

A variant is "" (the default kernel), "debug" (make ... DEBUG=1: KASAN,
lockdep, kmemleak; kernel/debug.config) or an experiment's name, a folder
of experiments/ (make experiment: the series and the experiment's patches,
in a source tree of its own).  Each has its own kernel objects, image,
modules and initramfs, named with the variant's suffix.  harness/vm.py
imports paths(); the Makefile and scripts/common.sh take the same values
from this program's output:

    buildpaths.py [--variant V] [--build DIR] --make|--sh

--make prints NAME:=value words for the Makefile to eval, --sh prints
NAME=value lines for a shell to eval.  BUILD and VARIANT default to the
environment's.
"""

import argparse
import os
import shlex

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENTS = os.path.join(TOP, "experiments")
VARIANTS = ("", "debug") + tuple(sorted(os.listdir(EXPERIMENTS)))


def default_build():
    return os.environ.get("BUILD") or os.path.join(TOP, "build")


def paths(variant="", build=None):
    """The build paths of a variant, by the names the Makefile and scripts use."""
    if variant not in VARIANTS:
        raise SystemExit(f"VARIANT={variant}: not one of {', '.join(map(repr, VARIANTS))}")
    build = build or default_build()
    suffix = f"-{variant}" if variant else ""
    kobj = os.path.join(build, f"kobj{suffix}")   # out-of-tree kernel objects
    return {
        "VARIANT": variant,
        "SUFFIX": suffix,
        # the kernel's source: the base and the series, a git repository; an
        # experiment's is a worktree of it with the experiment's patches
        "KSRC": os.path.join(build, "linux" + (suffix if variant in VARIANTS[2:] else "")),
        "KOBJ": kobj,
        "KERNEL": os.path.join(build, f"bzImage{suffix}"),
        "SYSTEM_MAP": os.path.join(kobj, "System.map"),   # KERNEL's symbols
        "UAPI": os.path.join(kobj, "usr", "include"),     # its exported headers
        "MODROOT": os.path.join(build, f"modroot{suffix}"),   # its modules, installed
        "INITRD": os.path.join(build, f"initramfs{suffix}.cpio.gz"),
        # the guest's tool tree (guest/mktools.sh), the same for every variant
        "TOOLS": os.path.join(build, "guest-tools"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default=os.environ.get("VARIANT", ""))
    parser.add_argument("--build", default=None, help="the build directory [$BUILD or build/]")
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--make", action="store_true", help="NAME:=value words")
    out.add_argument("--sh", action="store_true", help="NAME=value lines")
    args = parser.parse_args()
    for name, value in paths(args.variant, args.build).items():
        if args.make:
            if any(c.isspace() or c in "$#" for c in value):
                raise SystemExit(f"{name}={value!r}: make cannot take this path")
            print(f"{name}:={value}")
        else:
            print(f"{name}={shlex.quote(value)}")


if __name__ == "__main__":
    main()
