# SPDX-License-Identifier: GPL-2.0
"""Boot the guest kernel under QEMU with virtio-blk and NVMe disks and run commands in it.

The one guest runner of the project: the tests, tools/bench.py,
tools/profile.py and tools/vm.py (its command line) use the Guest class,
with Disk and Nvme for the devices.

The guest's console (ttyS0) goes to a log file, its init (guest/init) serves
commands on a second serial port (ttyS1), and QEMU's QMP socket is open to
the caller.  A guest that panics or stops answering is killed and reported
with the tail of its console log, which stays under build/guests/.
"""

import base64
import contextlib
import dataclasses
import hashlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from . import buildpaths
from .qmp import QMP, QMPClosed, QMPError

TOP = buildpaths.TOP
BUILD = buildpaths.default_build()
# VARIANT=debug (make ... DEBUG=1): the sanitizer kernel, slower, so every
# time limit stretches by SLOWDOWN, and a kmemleak scan ends each guest.
VARIANT = os.environ.get("VARIANT", "")
PATHS = buildpaths.paths(VARIANT, BUILD)
KERNEL, INITRD, SYSTEM_MAP = PATHS["KERNEL"], PATHS["INITRD"], PATHS["SYSTEM_MAP"]
# A guest started with tools=True mounts the tool tree (guest/mktools.sh:
# bash, GNU tools, python3 and the other projects' test suites) here,
# read-only over 9p; TOOLS_ENV puts it first in a command's search paths.
# busybox's sh runs its own applets whatever PATH says: what needs the GNU
# ones runs under the tree's bash.
TOOLS_DIR = "/opt/tools"
TOOLS_ENV = (f"export PATH={TOOLS_DIR}/usr/bin:$PATH LD_LIBRARY_PATH={TOOLS_DIR}/usr/lib "
             f"SUITES={TOOLS_DIR}/suites")
INSN_PLUGIN = os.path.join(BUILD, "insn-plugin.so")   # make insn-plugin
SLOWDOWN = 4 if VARIANT == "debug" else 1
# VBLK_MODE=direct (make ... MODE=direct): the passthrough node drives
# virtqueues of its own, DIRECT_QUEUES of them and DIRECT_POLL_QUEUES of
# those polled, instead of going through blk-mq; every disk whose queues
# are left to QEMU gets that many beyond one per vCPU.  load_vblk() and
# plug() give each node its queues through sysfs (Guest.set_direct()).
MODES = ("blkmq", "direct")
MODE = os.environ.get("VBLK_MODE") or "blkmq"
if MODE not in MODES:
    raise SystemExit(f"VBLK_MODE={MODE}: not one of {', '.join(MODES)}")
DIRECT_QUEUES, DIRECT_POLL_QUEUES = 2, 1
# where sysfs lists the passthrough nodes, one directory per node (vdXc0)
NODE_CLASS = "/sys/class/virtblk-generic"
# Under TCG the debug kernel can leave a vCPU without host time for longer
# than RCU's 21 s default; a real stall still shows after 300 s, and a hang
# as a command's time limit.  acpi=noirq: its AML interpreter is so slow
# that QEMU's _PRT loop runs into ACPICA's 30 s loop timeout at every boot
# (virtio uses MSI-X; ACPI still enumerates CPUs and hot-plug slots).
DEBUG_CMDLINE = "rcupdate.rcu_cpu_stall_timeout=300 acpi=noirq" if VARIANT == "debug" else ""
# What a kernel prints when something is wrong (sanitizers, lockdep, WARN...)
KERNEL_COMPLAINTS = re.compile(
    r"BUG:|\bBUG [\w.-]+ \(.*\): |WARNING:|Oops|general protection fault|KASAN|UBSAN|"
    r"possible circular locking|possible recursive locking|inconsistent lock state|"
    r"INFO: task .* blocked|detected stalls? on CPU|self-detected stall|unreferenced object|ODEBUG:|"
    r"refcount_t:|list_(add|del) corruption|kernel BUG")
# One report is not ours and is left out: the debug kernel under TCG now and
# then takes an interrupt while start_kernel() identifies the boot CPU, and
# KASAN flags the irq descriptor's lock as a wild access (handle_edge_irq,
# identify_cpu, at 0.00x s).  It comes before any module or user space; it
# stays in the console log and is not counted.
KNOWN_BOOT_REPORT = ("BUG: KASAN", "handle_edge_irq", "identify_cpu", "start_kernel")
GUESTS = os.path.join(BUILD, "guests")
READY = b"@@VBLK-READY@@\n"
RC_PREFIX = b"\n@@VBLK-RC="
RC_SUFFIX = b"@@\n"
# The status of a request that did not match its md5sum (guest/init)
GARBLED = b"garbled"
GARBLED_TRIES = 3
# A boot that stalls before the guest's init answers is tried this often
# (Guest.start); the stalled boot's console is kept under this name
BOOT_TRIES = 2
BOOT_STALL_LOG = "console-stalled-boot.log"
# A panic that under TCG on a busy host now and then ends a boot before any
# module or user space: the IO-APIC setup finds the emulated 8254 timer's
# ticks missing.  Such a boot is tried once more, as a stalled one is.
EARLY_BOOT_PANIC = "IO-APIC + timer doesn't work"


class GuestError(Exception):
    """The guest failed: it hung, died, or a command failed."""


class GuestHang(GuestError):
    """The guest did not answer within the time allowed."""


class GuestDied(GuestError):
    """QEMU exited under us (a panic reboots, and -no-reboot makes QEMU exit)."""


class CommandFailed(GuestError):
    def __init__(self, message, status, output):
        super().__init__(message)
        self.status = status
        self.output = output


def option(default, text=None, prop=()):
    """A Backend field; text: its help, for a field that --disk or --nvme
    takes; prop: the device's properties (a name or a tuple of names) that
    take its value when it is set (not None)."""
    meta = {"help": text} if text else {}
    meta["props"] = (prop,) if isinstance(prop, str) else prop
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass
class Backend:
    """What lies behind a guest's disk on the host: the QEMU block back end
    and its image.  Disk (virtio-blk) and Nvme (an NVMe controller) add the
    device in front of it.  A field with help text is an option of the
    command line."""

    id: str = option("d0", "QEMU's id of the device (d0, d1... by position)")
    backend: str = option("raw", '"raw": an image file on the host; "null": null-co')
    size: int = option(64 << 20, "bytes, with K, M or G")
    serial: str = option(None, "the serial number (GET_ID; NVMe: Identify)", "serial")
    readonly: bool = option(False, "a read-only disk")
    block_size: int = option(None, "logical (and physical) block size",
                             ("logical_block_size", "physical_block_size"))
    faults: tuple = option((), "KIND:SECTOR[+KIND:SECTOR...]: blkdebug fails reads or "
                               "writes touching SECTOR with EIO (KIND: read, write)")
    image: str = option(None)   # set by Guest: the raw image's path on the host
    bus: str = option(None, prop="bus")  # set by Guest on q35: the disk's PCIe root port

    DRIVER = None               # QEMU's device
    iothread = False            # the device runs in QEMU's I/O thread
    discard = None              # the back end unmaps what the guest discards
    polled = True               # the device can serve polled virtqueues

    def blockdev_args(self):
        ro = "on" if self.readonly else "off"
        if self.backend == "null":
            return ["-blockdev", f"driver=null-co,node-name={self.id},size={self.size},"
                    f"read-zeroes=on,read-only={ro}"]
        if self.backend != "raw":
            raise ValueError(f"unknown disk backend {self.backend!r}")
        unmap = "unmap" if self.discard else "ignore"
        args = ["-blockdev", f"driver=file,node-name={self.id}-file,filename={self.image},"
                f"discard={unmap},read-only={ro}"]
        below = f"{self.id}-file"
        if self.faults:
            # blkdebug between the raw format and the file: the raw driver's
            # read_aio/write_aio events fail the requests touching a sector
            rules = ",".join(f"inject-error.{i}.event={kind}_aio,inject-error.{i}.iotype={kind},"
                             f"inject-error.{i}.errno=5,inject-error.{i}.sector={sector}"
                             for i, (kind, sector) in enumerate(self.faults))
            args += ["-blockdev", f"driver=blkdebug,node-name={self.id}-faults,"
                     f"image={below},{rules}"]
            below = f"{self.id}-faults"
        return args + ["-blockdev", f"driver=raw,node-name={self.id},file={below},"
                       f"discard={unmap},read-only={ro}"]

    def device_props(self):
        """The device's properties, as QMP device_add takes them."""
        props = {"driver": self.DRIVER, "id": self.id, "drive": self.id}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                props.update((prop, value) for prop in field.metadata["props"])
        return props

    def device_arg(self):
        def text(v):
            return ("on" if v else "off") if isinstance(v, bool) else str(v)
        return ",".join(f"{k}={text(v)}" if k != "driver" else v
                        for k, v in self.device_props().items())


@dataclasses.dataclass
class Disk(Backend):
    """One virtio-blk disk (virtio-blk-pci) and the back end behind it."""

    discard: bool = option(None, "offer discard (unset: QEMU's default)", "discard")
    write_zeroes: bool = option(None, "offer write zeroes (unset: QEMU's default)",
                                "write-zeroes")
    volatile_cache: bool = option(None, "off: no write cache, so no VIRTIO_BLK_F_FLUSH")
    num_queues: int = option(None, "virtqueues (unset: QEMU's default)", "num-queues")
    queue_size: int = option(None, "entries per virtqueue", "queue-size")
    packed: bool = option(None, "the packed virtqueue layout (unset: QEMU's default, split)",
                          "packed")
    iothread: bool = option(False, "run the disk in an I/O thread")
    indirect_desc: bool = option(None, "offer indirect descriptors (unset: QEMU's default, on)",
                                 "indirect_desc")
    seg_max_adjust: bool = option(None, "seg_max from the queue size (unset: QEMU's default, "
                                        "on; off: 126 whatever the queue size)", "seg-max-adjust")

    DRIVER = "virtio-blk-pci"
    FLAG = "disk"               # the command line's option

    def device_props(self):
        props = super().device_props()
        if self.volatile_cache is not None:
            # QEMU offers VIRTIO_BLK_F_FLUSH unless both are off
            props["write-cache"] = "on" if self.volatile_cache else "off"
            props["config-wce"] = self.volatile_cache
        if self.iothread:
            props["iothread"] = "io0"
        return props


@dataclasses.dataclass
class Nvme(Backend):
    """An NVMe controller (QEMU's nvme) with one namespace on the back end:
    the guest's nvme driver makes it /dev/nvmeXn1 and /dev/ngXn1.

    What QEMU 7.2's NVMe cannot do that its virtio-blk can: run in an I/O
    thread (the controller runs in QEMU's main loop, under the global lock,
    where make bench's virtio-blk disks have an iothread); take a queue size
    (the controller's MQES is fixed; the guest's nvme.io_queue_depth picks
    within it); leave out discard or write zeroes (it offers both).  Its
    doorbells are MMIO writes, made rarer by the shadow doorbells (Doorbell
    Buffer Config) that the guest's driver uses."""

    id: str = option("n0", "QEMU's id of the device (n0, n1... by position)")
    queues: int = option(None, "I/O queue pairs the controller offers (unset: QEMU's 64)",
                         "max_ioqpairs")

    DRIVER = "nvme"
    FLAG = "nvme"
    discard = True              # the back end unmaps what DSM deallocates

    def device_props(self):
        props = super().device_props()
        props.setdefault("serial", self.id)     # QEMU requires one
        return props


@dataclasses.dataclass
class VhostUserDisk(Backend):
    """A virtio-blk disk whose device is a vhost-user back end: QEMU's
    vhost-user-blk-pci in front, the requests served by a
    qemu-storage-daemon of its own (a vhost-user-blk export of the same
    block nodes a Disk has, image, faults and all).  The guest's driver
    sees another implementation of the device: the daemon offers its own
    features (no serial: GET_ID answers "vhost_user_blk"; discard and
    write zeroes always), queue count and sizes; QEMU knows no block back
    end of it, and the daemon counts none of its export's requests:
    blockstats() has nothing to give (Guest.counts() says so).  The
    guest's memory is a shared memfd (vhost-user maps it)."""

    id: str = option("v0", "QEMU's id of the device (v0, v1... by position)")
    num_queues: int = option(None, "virtqueues (unset: QEMU's default)", "num-queues")
    queue_size: int = option(None, "entries per virtqueue", "queue-size")

    DRIVER = "vhost-user-blk-pci"
    FLAG = "vhost-user-disk"
    # QEMU 7.2 cannot serve a virtqueue without an interrupt vector over
    # vhost-user: it passes the daemon no call eventfd for it ("Failed to set
    # msg fds"), and the daemon's first completion there panics it
    # ("vu_panic: Error writing eventfd: Bad file descriptor"), the device
    # gone.  Linux's polled queues have no vector, so a guest with such a
    # disk gets none: load_vblk() refuses poll_queues, set_direct() gives
    # its nodes no polled queue.  IOPOLL rings on the node still work,
    # polling interrupt queues.
    polled = False
    GET_ID = "vhost_user_blk"   # what the daemon answers, whatever the disk
    discard = True              # the export unmaps what the guest discards
    socket = None               # set by Guest: the export's vhost-user socket
    monitor = None              # set by Guest: the daemon's QMP socket

    def daemon_command(self):
        """qemu-storage-daemon's command line: the block nodes, the export,
        and a QMP monitor."""
        export = (f"type=vhost-user-blk,id={self.id}-export,node-name={self.id},"
                  f"addr.type=unix,addr.path={self.socket},"
                  f"writable={'off' if self.readonly else 'on'}")
        if self.block_size:
            export += f",logical-block-size={self.block_size}"
        if self.num_queues:
            export += f",num-queues={self.num_queues}"
        nodes = ["--blockdev" if arg == "-blockdev" else arg for arg in super().blockdev_args()]
        return (["qemu-storage-daemon", *nodes, "--export", export,
                 "--chardev", f"socket,id=monitor,path={self.monitor},server=on,wait=off",
                 "--monitor", "chardev=monitor"])

    def blockdev_args(self):
        return ["-chardev", f"socket,id={self.id}-socket,path={self.socket}"]

    def device_props(self):
        if self.serial:
            raise ValueError("a vhost-user-blk device has no serial: its back end answers GET_ID")
        props = {"driver": self.DRIVER, "id": self.id, "chardev": f"{self.id}-socket"}
        for field, prop in (("num_queues", "num-queues"), ("queue_size", "queue-size"),
                            ("bus", "bus")):
            if getattr(self, field) is not None:
                props[prop] = getattr(self, field)
        return props


def qemu_version():
    out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                         text=True, check=True).stdout
    return out.split("\n")[0]


class Guest:
    """A running guest.  Use as a context manager: it is killed on exit."""

    def __init__(self, name, disks=(), cpus=2, memory="512M", append="",
                 accel=None, boot_timeout=120, count_insns=False, machine="pc",
                 kernel=KERNEL, initrd=INITRD, qemu_args=(), console="file", tools=False,
                 hotplug=False):
        """console: "file" (console.log), "follow" (console.log, copied to
        stderr as it grows) or "stdio" (the terminal: see shell()); tools:
        the tool tree at TOOLS_DIR (a virtio-9p device, which is no disk);
        hotplug: the pc machine's ACPI PCI hotplug, which unplug() and plug()
        need; without it the guest's ACPI tables lose the hotplug slots'
        methods, which the debug kernel takes 3 s of each boot to interpret."""
        self.name = name
        self.tools = PATHS["TOOLS"] if tools else None
        self.kernel, self.initrd, self.qemu_args = kernel, initrd, list(qemu_args)
        if console not in ("file", "follow", "stdio"):
            raise ValueError(f"unknown console {console!r}")
        self.console_mode = console
        self.disks = {d.id: d for d in disks}
        # machine "q35": every disk is a PCIe function behind a root port of
        # its own, so that a function-level reset can reach it
        if machine not in ("pc", "q35"):
            raise ValueError(f"unknown machine {machine!r}")
        self.machine = machine
        self.hotplug = hotplug
        if machine == "q35":
            for disk in disks:
                disk.bus = f"{disk.id}-port"
        self.cpus, self.memory = cpus, memory
        self.append = append
        for disk in disks:
            if isinstance(disk, (Disk, VhostUserDisk)) and disk.num_queues is None:
                if MODE == "direct":
                    disk.num_queues = cpus + DIRECT_QUEUES
                elif isinstance(disk, VhostUserDisk):
                    # QEMU's default for virtio-blk-pci; the daemon's is one
                    disk.num_queues = cpus
        self.accel = accel or detect_accel()
        self.boot_timeout = boot_timeout * SLOWDOWN
        self.dir = os.path.join(GUESTS, name)
        self.console = os.path.join(self.dir, "console.log")
        # count_insns: tools/insn-plugin.c counts the instructions of every
        # window the guest marks, into insns.txt (harness/insns.py reads it)
        self.insns = os.path.join(self.dir, "insns.txt") if count_insns else None
        self.proc = self.agent = self.qmp = None
        self.daemons = {}           # disk id: (process, log, QMP) of its qemu-storage-daemon
        self.boot_seconds = None
        self._buffer = b""

    # -- life cycle -------------------------------------------------------

    def qemu_command(self, sockdir, agent_waits=True):
        """QEMU's command line; agent_waits: QEMU starts the guest only once
        the runner has connected to the agent's socket."""
        cpu = "host" if self.accel == "kvm" else "max"
        console = (["-chardev", "stdio,id=console,signal=off"] if self.console_mode == "stdio"
                   else ["-chardev", f"file,id=console,path={self.console}"])
        machine = f"{self.machine},accel={self.accel}"
        memory = []
        if self.daemons_wanted():
            # a vhost-user back end maps the guest's memory: a shared memfd
            machine += ",memory-backend=mem"
            memory = ["-object", f"memory-backend-memfd,id=mem,size={self.memory},share=on"]
        cmd = ["qemu-system-x86_64", "-nodefaults", "-no-user-config", "-display", "none",
               "-no-reboot", "-machine", machine, *memory, "-cpu", cpu,
               "-smp", str(self.cpus), "-m", self.memory,
               "-kernel", self.kernel, "-initrd", self.initrd,
               # loglevel=5: warnings (WARN, lockdep, KASAN) reach the console log
               "-append", f"console=ttyS0 panic=-1 oops=panic loglevel=5 {DEBUG_CMDLINE} "
                          f"{self.append}".strip(),
               *console, "-serial", "chardev:console",
               "-chardev", f"socket,id=agent,path={sockdir}/agent,server=on,"
                           f"wait={'on' if agent_waits else 'off'}",
               "-serial", "chardev:agent",
               "-qmp", f"unix:{sockdir}/qmp,server=on,wait=off"]
        if self.hotplug_off:
            cmd += ["-global", "PIIX4_PM.acpi-root-pci-hotplug=off",
                    "-global", "PIIX4_PM.acpi-pci-hotplug-with-bridge-support=off"]
        if self.insns:
            if self.accel != "tcg":
                raise GuestError("counting instructions needs TCG")
            cmd += ["-plugin", f"{INSN_PLUGIN},out={self.insns}"]
        if self.tools:
            cmd += ["-fsdev", f"local,id=tools,path={self.tools},security_model=none,readonly=on",
                    "-device", "virtio-9p-pci,fsdev=tools,mount_tag=tools"]
        if any(d.iothread for d in self.disks.values()):
            cmd += ["-object", "iothread,id=io0"]
        for chassis, disk in enumerate(self.disks.values(), 1):
            if disk.bus:
                cmd += ["-device", f"pcie-root-port,id={disk.bus},bus=pcie.0,chassis={chassis}"]
            cmd += disk.blockdev_args() + ["-device", disk.device_arg()]
        return cmd + self.qemu_args

    def prepare(self, sockdir=None, agent_waits=True):
        """Make the guest's directory and disk images; return QEMU's command
        line, with the sockets in sockdir (a new temporary one if None)."""
        for path in (self.kernel, self.initrd) + ((self.tools,) if self.tools else ()):
            if not os.path.exists(path):
                raise GuestError(f"{path} is missing: run make kernel guest")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        for disk in self.disks.values():
            if disk.backend == "raw":
                disk.image = os.path.join(self.dir, f"{disk.id}.img")
                with open(disk.image, "wb") as f:
                    f.truncate(disk.size)
        self.sockdir = sockdir or tempfile.mkdtemp(prefix="vblk-")
        for disk in self.daemons_wanted():
            disk.socket = os.path.join(self.sockdir, f"{disk.id}.vhost")
            disk.monitor = os.path.join(self.sockdir, f"{disk.id}.qmp")
        cmd = self.qemu_command(self.sockdir, agent_waits)
        with open(os.path.join(self.dir, "qemu.cmdline"), "w") as f:
            f.write(shlex.join(cmd) + "\n")
        return cmd

    def start(self):
        """Boot the guest; return once its init answers.

        A boot that stops before the init answers, with nothing wrong on
        the console, is tried once more (BOOT_TRIES): the debug kernel
        under TCG now and then stalls in early boot, after PCI's MMCONFIG
        line and before any module or user space, so before virtio_blk
        or nvme exist.  So is a boot that ends in EARLY_BOOT_PANIC.  The
        failed boot's console is kept beside the new one (BOOT_STALL_LOG),
        and stderr says it happened."""
        stalled = None
        for attempt in range(1, BOOT_TRIES + 1):
            try:
                self._boot()
            except (GuestHang, GuestDied) as e:
                console = ""
                if os.path.exists(self.console):    # not with console="stdio"
                    with open(self.console, errors="replace") as f:
                        console = f.read()
                if isinstance(e, GuestDied):
                    if attempt == BOOT_TRIES or EARLY_BOOT_PANIC not in console:
                        raise
                    self.stop()     # QEMU is gone: its daemons and sockets go too
                elif attempt == BOOT_TRIES or any(KERNEL_COMPLAINTS.search(line) for line in
                                                  known_reports_left_out(console)):
                    raise
                print(f"{self.name}: {str(e).splitlines()[0].rstrip(':')}; booting again "
                      f"(try {attempt + 1} of {BOOT_TRIES})", file=sys.stderr)
                stalled = console
                continue
            if stalled is not None:
                with open(os.path.join(self.dir, BOOT_STALL_LOG), "w") as f:
                    f.write(stalled)
            return self

    def daemons_wanted(self):
        """The disks served by a qemu-storage-daemon of their own."""
        return [d for d in self.disks.values() if isinstance(d, VhostUserDisk)]

    def _start_daemons(self):
        """Start each vhost-user disk's daemon (again, after a stalled
        boot); return once it serves."""
        self._stop_daemons()
        for disk in self.daemons_wanted():
            log = open(os.path.join(self.dir, f"qemu-storage-daemon.{disk.id}.log"), "wb")
            proc = subprocess.Popen(disk.daemon_command(), stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            self.daemons[disk.id] = (proc, log, None)
            try:
                monitor = QMP(disk.monitor, timeout=30)
            except (OSError, QMPError) as e:
                raise GuestError(f"qemu-storage-daemon of {disk.id} did not come up ({e}):\n"
                                 f"{self._tail(log.name)}")
            self.daemons[disk.id] = (proc, log, monitor)

    def _stop_daemons(self):
        for proc, log, monitor in self.daemons.values():
            if monitor is not None:
                monitor.close()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            log.close()
        self.daemons = {}

    def _boot(self):
        cmd = self.prepare()
        self._start_daemons()
        started = time.monotonic()
        self.stderr = open(os.path.join(self.dir, "qemu.stderr"), "wb")
        stdio = self.console_mode == "stdio"
        self.proc = subprocess.Popen(cmd, stdin=None if stdio else subprocess.DEVNULL,
                                     stdout=None if stdio else self.stderr,
                                     stderr=self.stderr if stdio else subprocess.STDOUT,
                                     start_new_session=True)
        if self.console_mode == "follow":
            threading.Thread(target=self._follow_console, daemon=True).start()
        try:
            self.agent = self._connect(os.path.join(self.sockdir, "agent"))
            self.qmp = QMP(os.path.join(self.sockdir, "qmp"), timeout=self.boot_timeout)
        except (OSError, QMPError) as e:
            self.stop()
            raise GuestError(f"QEMU did not come up ({e}):\n"
                             f"{self._tail(os.path.join(self.dir, 'qemu.stderr'))}")
        self._read_until(READY, self.boot_timeout, "boot")
        self.boot_seconds = time.monotonic() - started
        self._buffer = b""
        if self.tools:
            self.run(f"mkdir -p {TOOLS_DIR} && "
                     f"mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose tools {TOOLS_DIR}")
        return self

    def _follow_console(self):
        """Copy the console log to stderr as it grows, until QEMU ends."""
        while not os.path.exists(self.console) and self.proc.poll() is None:
            time.sleep(0.05)
        with open(self.console, "rb") as f:
            while True:
                data = f.read()
                if data:
                    sys.stderr.buffer.write(data)
                    sys.stderr.flush()
                elif self.proc is None or self.proc.poll() is not None:
                    return
                else:
                    time.sleep(0.1)

    def shell(self):
        """An interactive shell on the guest's console, which must be the
        terminal (console="stdio"); returns when it exits.

        The shell is not the session leader: a leader's exit hangs the
        console up, which throws away what the shell wrote and the UART has
        not sent yet.  Its parent leads, and waits for the output to drain
        (setting the console's own settings again: TCSADRAIN) before it
        exits; it ignores SIGTTOU, which would stop it there should the
        shell leave another process group in the console's foreground."""
        return self.run("setsid -c sh -c 'trap \"\" TTOU; sh; rc=$?; "
                        "stty \"$(stty -g)\"; exit $rc' </dev/ttyS0 >/dev/ttyS0 2>&1",
                        timeout=10 ** 7, check=False)[0]

    def _connect(self, path):
        deadline = time.monotonic() + 30
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            if self.proc.poll() is not None:
                raise GuestDied(f"QEMU exited at start-up:\n{self._tail(self.dir + '/qemu.stderr')}")
            try:
                sock.connect(path)
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline:
                    raise GuestError(f"QEMU did not open {path}")
                time.sleep(0.02)

    def complaints(self):
        """The kernel's complaints so far: sanitizer, lockdep, WARN, BUG lines,
        and on the debug kernel what a kmemleak scan finds now."""
        found = []
        if VARIANT == "debug" and self.proc is not None and self.proc.poll() is None:
            # kmemleak reports what a second scan finds unreferenced and unchanged
            _, leaks = self.run("echo scan > /sys/kernel/debug/kmemleak; "
                                "echo scan > /sys/kernel/debug/kmemleak; "
                                "cat /sys/kernel/debug/kmemleak", timeout=120, check=False)
            found += [f"kmemleak: {line}" for line in leaks.splitlines() if line.strip()][:20]
        if os.path.exists(self.console):    # not with console="stdio"
            with open(self.console, errors="replace") as f:
                found += [line.rstrip() for line in known_reports_left_out(f.read())
                          if KERNEL_COMPLAINTS.search(line)]
        return found

    def stop(self):
        """Kill QEMU (the guest keeps nothing worth a clean shutdown)."""
        for closer in (self.qmp, self.agent):
            if closer is not None:
                closer.close()
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._stop_daemons()
        if self.proc is not None:
            self.stderr.close()
            shutil.rmtree(self.sockdir, ignore_errors=True)
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- the agent --------------------------------------------------------

    def _tail(self, path, lines=25):
        try:
            with open(path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def _failure(self, kind, what, timeout=None):
        tail = self._tail(self.console)
        where = os.path.relpath(self.console, TOP)
        if kind is GuestHang:
            self.stop()
            return GuestHang(f"guest hung: no answer to {what} within {timeout:.0f}s "
                             f"(killed; console log {where}):\n{tail}")
        status = self.proc.wait()
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        with open(self.console, errors="replace") as f:
            why = [line.strip() for line in f if "Kernel panic" in line][:1]
        text = (f"guest died during {what} (QEMU {how}; console log {where})"
                f"{': ' + why[0] if why else ''}:\n{tail}")
        qemu = self._tail(os.path.join(self.dir, "qemu.stderr"), 10).strip()
        return GuestDied(text + (f"\nQEMU said:\n{qemu}" if qemu else ""))

    def _read_until(self, marker, timeout, what, stream=None):
        """Read agent output until marker; return what came before it.

        stream, if given, is fed the output as it arrives, holding back only
        what could be the start of the marker.
        """
        deadline = time.monotonic() + timeout
        emitted = 0
        while marker not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._failure(GuestHang, what, timeout)
            self.agent.settimeout(min(remaining, 1.0))
            try:
                chunk = self.agent.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise self._failure(GuestDied, what)
            self._buffer += chunk
            if stream and marker not in self._buffer:
                cut = max(emitted, len(self._buffer) - len(marker) + 1)
                stream(self._buffer[emitted:cut])
                emitted = cut
        before, _, self._buffer = self._buffer.partition(marker)
        if stream and len(before) > emitted:
            stream(before[emitted:])
        return before

    def run(self, script, timeout=120, check=True, stream=None):
        """Run a shell script in the guest; return (status, output).

        With check, a non-zero status raises CommandFailed.  stream, if given,
        is called with each chunk of raw output as it arrives.
        """
        started = time.monotonic()
        timeout *= SLOWDOWN
        what = f"'{script.strip()[:60]}'"
        request = (hashlib.md5(script.encode()).hexdigest().encode() + b" " +
                   base64.b64encode(script.encode()) + b"\n")
        for attempt in range(1, GARBLED_TRIES + 1):
            self.agent.sendall(request)
            output = self._read_until(RC_PREFIX, timeout, what, stream)
            status = self._read_until(RC_SUFFIX, timeout - (time.monotonic() - started), what)
            if status != GARBLED:
                break
            # The guest did not run it: what it read was not what was sent
            print(f"{self.name}: the agent read {what} garbled (try {attempt} of "
                  f"{GARBLED_TRIES})", file=sys.stderr)
        else:
            raise GuestError(f"the agent read {what} garbled {GARBLED_TRIES} times")
        status = int(status)
        text = output.decode(errors="replace")
        if check and status != 0:
            raise CommandFailed(f"{what} exited with {status}:\n{text}", status, text)
        return status, text

    def output(self, script, timeout=120):
        """Run a script that must succeed; return its output."""
        return self.run(script, timeout)[1]

    # -- helpers for the disks -------------------------------------------

    def load_nvme(self, params=""):
        """Load the NVMe driver with module parameters (e.g. "poll_queues=1")
        and wait until every controller's namespace has its generic char
        node (/sys/class/nvme-generic), which comes with its block device."""
        want = sum(isinstance(d, Nvme) for d in self.disks.values())
        self.output(f"modprobe nvme {params} && for i in $(seq 100); do "
                    f"[ $(ls /sys/class/nvme-generic | wc -l) -ge {want} ] && exit 0; "
                    "sleep 0.1; done; echo no NVMe namespace appeared; exit 1")

    def load_vblk(self, params="", direct=None):
        """Load virtio_blk with module parameters (e.g. "poll_queues=2").
        direct: give every node virtqueues of its own (set_direct());
        by default, in direct mode."""
        if "poll_queues" in params and not self.pollable():
            raise GuestError("poll_queues: a vhost-user disk cannot have polled virtqueues "
                             "(VhostUserDisk.polled)")
        self.output(f"modprobe virtio_blk {params}")
        if direct if direct is not None else MODE == "direct":
            self.set_direct()

    def pollable(self):
        """Whether the guest's disks can have polled virtqueues (not with a
        vhost-user disk: VhostUserDisk.polled)."""
        return all(d.polled for d in self.disks.values())

    def set_direct(self, node="*", queues=DIRECT_QUEUES, poll_queues=None):
        """Give a passthrough node (e.g. "vdbc0"; "*": each) queues
        virtqueues of its own, poll_queues of them polled (default
        DIRECT_POLL_QUEUES, none on a guest with a vhost-user disk; 0, 0:
        back to blk-mq); the driver resets the device to split its
        virtqueues."""
        if poll_queues is None:
            poll_queues = DIRECT_POLL_QUEUES if self.pollable() else 0
        self.output(f"cd {NODE_CLASS} && for n in {node}; do "
                    f"echo {queues} > $n/direct_queues && "
                    f"echo {poll_queues} > $n/direct_poll_queues || exit 1; done")
    def unload_vblk(self):
        self.output("modprobe -r virtio_blk")

    @contextlib.contextmanager
    def _monitor(self, what):
        """QMP calls on behalf of what: QEMU exiting under them is the guest's
        death, reported with its console as the agent's would be."""
        try:
            yield self.qmp
        except QMPClosed:
            raise self._failure(GuestDied, what) from None

    @property
    def hotplug_off(self):
        """The pc machine's ACPI PCI hotplug is off (hotplug=False; q35's
        is left as QEMU makes it)."""
        return self.machine == "pc" and not self.hotplug

    def _need_hotplug(self):
        if self.hotplug_off:
            raise GuestError(f"{self.name} has no PCI hotplug: boot it with hotplug=True")

    def unplug(self, disk_id, timeout=60):
        """Hot-unplug a disk (QMP device_del) and wait until the guest let it go."""
        self._need_hotplug()
        with self._monitor(f"the unplug of {disk_id}") as qmp:
            qmp.execute("device_del", {"id": disk_id})
            qmp.wait_event("DEVICE_DELETED", timeout,
                           match=lambda e: e.get("data", {}).get("device") == disk_id)

    def plug(self, disk_id):
        """Hot-plug a disk unplugged before (its back end is still there);
        in direct mode, wait for its node and give it queues of its own."""
        self._need_hotplug()
        with self._monitor(f"the plug of {disk_id}") as qmp:
            qmp.execute("device_add", self.disks[disk_id].device_props())
        if MODE != "direct":
            return
        node = self.output(f"for i in $(seq 100); do cd {NODE_CLASS} && "
                           "for n in *; do grep -qx blk-mq $n/mode && echo $n && exit 0; done; "
                           "sleep 0.1; done; echo no new node >&2; exit 1").strip()
        self.set_direct(node)

    def reset(self, disk):
        """A function-level reset of a disk's PCI function through sysfs, as
        pci_reset_function() does it (reset_prepare, FLR, reset_done);
        needs machine "q35".  disk: the guest's name for it, e.g. "vda"."""
        self.output(f"f=$(readlink -f /sys/block/{disk}/device/..); "
                    "grep -qw flr $f/reset_method && echo flr > $f/reset_method && "
                    "echo 1 > $f/reset")

    def counts(self, disk_id):
        """Whether blockstats() knows the disk's requests: not those of a
        vhost-user disk, whose daemon counts none of its export's."""
        return disk_id not in self.daemons

    def blockstats(self, disk_id):
        """QMP query-blockstats counters of one disk, as QEMU's device saw them
        (none for a vhost-user disk: see counts())."""
        if not self.counts(disk_id):
            raise GuestError(f"{disk_id} is a vhost-user disk: qemu-storage-daemon 7.2 counts "
                             "no request of a vhost-user-blk export (its block backend is "
                             "anonymous, its nodes keep no statistics)")
        with self._monitor("query-blockstats") as qmp:
            stats = qmp.execute("query-blockstats")
        for entry in stats:
            # QEMU names a device by its id (NVMe's), a child by its path
            # (virtio-blk-pci's virtio-backend)
            qdev = entry.get("qdev", "")
            if qdev == disk_id or qdev.startswith(f"/machine/peripheral/{disk_id}/"):
                return entry["stats"]
        raise GuestError(f"query-blockstats knows no disk {disk_id}")

    def counters(self, disk_id, names):
        """The blockstats() counters of those names of one disk, as a dict, or
        None for a disk whose requests nothing counts (see counts()): the
        cases then keep the host's image as their only oracle."""
        if not self.counts(disk_id):
            return None
        stats = self.blockstats(disk_id)
        return {name: stats[name] for name in names}


_accel = None


def known_reports_left_out(console):
    """The console's lines without KASAN's reports of KNOWN_BOOT_REPORT."""
    kept, block = [], []
    for line in console.splitlines():
        if "=" * 40 in line:
            if block and all(any(w in b for b in block) for w in KNOWN_BOOT_REPORT):
                block = []                  # the known report ends here
                continue
            kept += block
            block = [line]
        elif block:
            block.append(line)
        else:
            kept.append(line)
    return kept + block


def detect_accel():
    """"kvm" if a probe boot under KVM works, else "tcg".

    /dev/kvm existing proves nothing (on a PVM host a guest hangs under
    KVM), so the first call boots once under KVM and caches the answer in
    build/accel for this QEMU and host kernel.  VBLK_ACCEL overrides.
    """
    global _accel
    if os.environ.get("VBLK_ACCEL"):
        return os.environ["VBLK_ACCEL"]
    if _accel:
        return _accel
    key = f"{qemu_version()} on {os.uname().release}"
    cache = os.path.join(BUILD, "accel")
    try:
        with open(cache) as f:
            cached_key, cached = f.read().split("\n")[:2]
        if cached_key == key:
            _accel = cached
            return _accel
    except (OSError, ValueError):
        pass
    _accel = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        try:
            with Guest("kvm-probe", accel="kvm", boot_timeout=20) as probe:
                probe.output("true", timeout=10)
            _accel = "kvm"
        except GuestError:
            pass
    with open(cache, "w") as f:
        f.write(f"{key}\n{_accel}\n")
    return _accel
