#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the guest kernel under QEMU with virtio-blk and NVMe disks and run a command in it.

    tools/vm.py [--disk OPTIONS]... [--vhost-user-disk OPTIONS]... [--nvme OPTIONS]...
                [--load-vblk PARAMS] [--load-nvme PARAMS] [--tools] [-- COMMAND...]

boots a guest (harness/vm.py's Guest), runs COMMAND in it and exits with
its status, or without a COMMAND gives a shell on the guest's console.  A
disk's OPTIONS are comma-separated key=value fields of the Disk class, e.g.
"backend=null,size=1G,iothread=on,num_queues=4"; --nvme adds an NVMe
controller with one namespace, with the fields of the Nvme class;
--vhost-user-disk a virtio-blk disk served by a qemu-storage-daemon of its
own (the VhostUserDisk class: --help lists all three, and what QEMU's NVMe
cannot do).  --tools mounts the tool tree (bash, python3, the other
projects' tests) at /opt/tools.
"""

import argparse
import dataclasses
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.vm import (INITRD, KERNEL, VARIANT, Disk, Guest, Nvme,  # noqa: E402
                        VhostUserDisk)


BOOLEANS = {"on": True, "1": True, "true": True, "yes": True,
            "off": False, "0": False, "false": False, "no": False}


def parse_size(text):
    """An int, with an optional K, M or G suffix; ValueError if malformed."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def parse_faults(text):
    """"read:2048+write:4096" -> (("read", 2048), ("write", 4096))"""
    faults = []
    for item in text.split("+"):
        kind, sep, sector = item.partition(":")
        if kind not in ("read", "write") or not sep:
            raise ValueError(f"{item!r} is not read:SECTOR or write:SECTOR")
        faults.append((kind, int(sector)))
    return tuple(faults)


def parse_bool(text):
    if text.lower() not in BOOLEANS:
        raise ValueError("not on or off")
    return BOOLEANS[text.lower()]


PARSERS = {bool: parse_bool, int: parse_size, str: str, tuple: parse_faults}


def device_options(kind):
    """The fields of kind (Disk or Nvme) that the command line takes:
    {name: (type, help)}."""
    return {f.name: (f.type, f.metadata["help"]) for f in dataclasses.fields(kind)
            if "help" in f.metadata}


def parse_device(kind, spec, index):
    """A Disk, VhostUserDisk or Nvme from "key=value,key=value"; ValueError
    says what is wrong."""
    device = kind()
    device.id = f"{device.id[0]}{index}"
    options = device_options(kind)
    for item in filter(None, spec.split(",")):
        name, sep, value = item.partition("=")
        if name not in options:
            raise ValueError(f"unknown {kind.FLAG} option {name!r} "
                             f"(known: {', '.join(options)})")
        try:
            setattr(device, name, PARSERS[options[name][0]](value if sep else "on"))
        except ValueError as e:
            raise ValueError(f"{kind.FLAG} option {name}={value!r}: {e}") from None
    return device


def device_help():
    text = []
    for kind in (Disk, VhostUserDisk, Nvme):
        lines = [f"  {name:15s} {help}" for name, (_, help) in device_options(kind).items()]
        text.append(f"--{kind.FLAG} takes comma-separated options (booleans: on/off, and a bare "
                    "name is on):\n" + "\n".join(lines))
    return "\n\n".join(text) + "\n\n" + "\n".join(
        line.strip() for line in Nvme.__doc__.split("\n\n")[1].splitlines())


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=device_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--disk", action="append", default=[], metavar="OPTIONS",
                        help="a virtio-blk disk, e.g. size=1G,num_queues=4 (repeatable)")
    parser.add_argument("--vhost-user-disk", action="append", default=[], metavar="OPTIONS",
                        help="a virtio-blk disk served by qemu-storage-daemon over vhost-user, "
                             "e.g. size=1G,num_queues=4 (repeatable)")
    parser.add_argument("--nvme", action="append", default=[], metavar="OPTIONS",
                        help="an NVMe controller with one namespace, e.g. backend=null,size=1G "
                             "(repeatable)")
    parser.add_argument("--load-vblk", metavar="PARAMS", help="load virtio_blk with these parameters")
    parser.add_argument("--load-nvme", metavar="PARAMS", help="load nvme with these parameters")
    parser.add_argument("--tools", action="store_true",
                        help="mount the tool tree (make guest) at /opt/tools")
    parser.add_argument("--cpus", type=int, default=2, help="vCPUs [2]")
    parser.add_argument("--memory", default="512M", help="guest memory [512M]")
    parser.add_argument("--machine", choices=("pc", "q35"), default="pc",
                        help="q35: each disk behind a PCIe root port of its own (FLR)")
    parser.add_argument("--append", default="", metavar="ARGS",
                        help="more kernel command line")
    parser.add_argument("--debug", action="store_true",
                        help="the debug kernel (make guest DEBUG=1); time limits stretch")
    parser.add_argument("--kernel", help=f"a kernel image [{os.path.relpath(KERNEL)}]")
    parser.add_argument("--initrd", help=f"an initramfs [{os.path.relpath(INITRD)}]")
    parser.add_argument("--qemu", action="append", default=[], metavar="ARGS",
                        help="more QEMU options, split as a shell would (repeatable)")
    parser.add_argument("--show-command", action="store_true",
                        help="print the QEMU command line (console on the terminal) and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="the console on stderr")
    parser.add_argument("--name", default="cli", help="the directory under build/guests/")
    parser.add_argument("--timeout", type=int, default=600, help="the command's time limit, s")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="run in the guest's shell; none: an interactive shell")
    args = parser.parse_args()
    if args.debug and VARIANT != "debug":
        # every setting that depends on the variant follows from VARIANT
        os.execve(sys.executable, [sys.executable] + sys.argv,
                  dict(os.environ, VARIANT="debug"))
    try:
        disks = [parse_device(Disk, spec, i) for i, spec in enumerate(args.disk)]
        disks += [parse_device(VhostUserDisk, spec, i)
                  for i, spec in enumerate(args.vhost_user_disk)]
        disks += [parse_device(Nvme, spec, i) for i, spec in enumerate(args.nvme)]
    except ValueError as e:
        parser.error(str(e))
    command = " ".join(args.command[1:] if args.command[:1] == ["--"] else args.command)
    console = "stdio" if args.show_command or not command else \
        "follow" if args.verbose else "file"
    guest = Guest(args.name, disks, cpus=args.cpus, memory=args.memory, append=args.append,
                  machine=args.machine, kernel=args.kernel or KERNEL,
                  initrd=args.initrd or INITRD, console=console, tools=args.tools,
                  qemu_args=[a for text in args.qemu for a in shlex.split(text)])
    if args.show_command:
        print(shlex.join(guest.prepare(sockdir=guest.dir, agent_waits=False)))
        return
    with guest:
        print(f"# booted in {guest.boot_seconds:.1f}s under {guest.accel}", file=sys.stderr)
        if args.load_vblk is not None:
            guest.load_vblk(args.load_vblk)
        if args.load_nvme is not None:
            guest.load_nvme(args.load_nvme)
        if not command:
            sys.exit(guest.shell())
        status, _ = guest.run(command, timeout=args.timeout, check=False,
                              stream=lambda b: (sys.stdout.buffer.write(b), sys.stdout.flush()))
    sys.exit(status)


if __name__ == "__main__":
    main()
