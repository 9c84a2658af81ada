# SPDX-License-Identifier: GPL-2.0
"""Every command line of the guest's load programs, and their results.

t/io_uring-vblk and fio run in the guest for the tests, make bench and make
profile: their command lines are put together here, and what they print is
read here.  Words: a node is a passthrough char node (/dev/vdXc0 or NVMe's
/dev/ngXnY), a block device is /dev/vdX or /dev/nvmeXnY.
"""

import json

BS = 4096

# t/io_uring-vblk's options by name (its usage text says what each does);
# a bool is given as 0 or 1
IO_URING_VBLK_OPTIONS = {
    "node": "-u", "nop": "-N", "depth": "-d", "submit": "-s", "complete": "-c",
    "bs": "-b", "write_pct": "-w", "random": "-R", "polled": "-p", "fixed": "-B",
    "regfiles": "-F", "sqpoll": "-k", "vectored": "-V", "flush_every": "-f",
    "o_direct": "-O", "threads": "-n", "cpu": "-C", "runtime": "-r", "ios": "-I",
    "size": "-z", "latency": "-t", "seed": "-v", "window": "-W",
}


def is_node(device):
    """Whether device is a passthrough char node rather than a block device."""
    return device.endswith("c0") or device.startswith("/dev/ng")


def io_uring_vblk(device, json_summary=False, quiet=False, **options):
    """The command line of t/io_uring-vblk on device, its options by the
    names of IO_URING_VBLK_OPTIONS; node (-u) follows from the device's name
    unless given.  json_summary: the summary as one JSON line (-j), which
    io_uring_vblk_result() reads; quiet: no per-second lines (-q)."""
    options.setdefault("node", is_node(device))
    words = ["io_uring-vblk"]
    for name, value in options.items():
        words += [IO_URING_VBLK_OPTIONS[name], str(int(value) if isinstance(value, bool) else value)]
    words += ["-j"] * json_summary + ["-q"] * quiet
    return " ".join(words + [device])


def io_uring_vblk_result(output):
    """The JSON summary that io_uring-vblk -j prints last, as a dict."""
    return json.loads(output.strip().splitlines()[-1])


def fio_job(device, write_pct=0, depth=1, polled=False, cpu=0, name="bench", best=False):
    """fio's command line for 4 KiB random reads (write_pct 0) or writes
    (100): ioengine=io_uring_cmd with cmd_type=vblk, or nvme on NVMe's node,
    on a node, ioengine=io_uring with O_DIRECT on a block device; pinned to
    guest CPU cpu; a JSON report.  best: the file and buffers registered."""
    rw = "randwrite" if write_pct else "randread"
    if is_node(device):
        engine = f"--ioengine=io_uring_cmd --cmd_type={'nvme' if device.startswith('/dev/ng') else 'vblk'}"
    else:
        engine = "--ioengine=io_uring --direct=1"
    return (f"fio --name={name} {engine} --filename={device} --rw={rw} --bs={BS} "
            f"--iodepth={depth} --hipri={int(polled)} --cpus_allowed={cpu} "
            f"--norandommap --randrepeat=0 --output-format=json"
            + " --registerfiles=1 --fixedbufs=1" * best)


def fio_result(output):
    """The one job of fio's --output-format=json report in output."""
    start, end = output.find("{"), output.rfind("}")
    if not 0 <= start < end:
        raise ValueError(f"no JSON report from fio: {output[-300:]!r}")
    return json.loads(output[start:end + 1])["jobs"][0]
