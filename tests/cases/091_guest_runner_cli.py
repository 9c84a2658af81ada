# SPDX-License-Identifier: GPL-2.0
"""tools/vm.py as a command line: a malformed disk or NVMe option is an
error that names it; --nvme gives the guest an NVMe namespace beside the
virtio-blk disk; a command's exit status is the runner's; without a command it is
a shell on the guest's console; --show-command prints a QEMU command line
that boots when pasted into a shell."""

import os
import select
import subprocess
import sys
import time

from harness import vm
from harness.qmp import QMP, QMPError

QUICK = True
ONCE = True

VM = [sys.executable, os.path.join(vm.TOP, "tools", "vm.py")]


def cli(t, *args, stdin=None, timeout=120):
    r = subprocess.run(VM + list(args), input=stdin, capture_output=True, text=True,
                       timeout=timeout * vm.SLOWDOWN, cwd=vm.TOP)
    t.log(f"vm.py {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def test(t):
    for spec, words in (("foo=1", "unknown disk option 'foo'"),
                        ("faults=read", "faults='read'"),
                        ("size=12Q", "size='12Q'"),
                        ("iothread=maybe", "not on or off")):
        r = cli(t, "--name", "091-bad", "--disk", spec, "--", "true")
        t.expect(r.returncode == 2 and words in r.stderr,
                 f"--disk {spec}: exit {r.returncode}, {r.stderr.strip()[-200:]!r}")

    r = cli(t, "--name", "091-bad", "--nvme", "iothread=on", "--", "true")
    t.expect(r.returncode == 2 and "unknown nvme option 'iothread'" in r.stderr,
             f"--nvme iothread=on: exit {r.returncode}, {r.stderr.strip()[-200:]!r}")

    r = cli(t, "--name", "091-cmd", "--disk", "size=16M", "--load-vblk", "",
            "--nvme", "size=8M", "--load-nvme", "", "--",
            "cat /sys/block/vda/size /sys/block/nvme0n1/size; exit 7")
    t.expect(r.returncode == 7 and r.stdout.split() == ["32768", "16384"],
             f"a command's output and status: {r.returncode}, {r.stdout!r}")

    # type once the shell's prompt is on the console
    with subprocess.Popen(VM + ["--name", "091-shell"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as shell:
        seen = b""
        deadline = time.monotonic() + 120 * vm.SLOWDOWN
        while b" # " not in seen and time.monotonic() < deadline:
            if not select.select([shell.stdout], [], [], 1)[0]:
                continue
            chunk = os.read(shell.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        t.expect(b" # " in seen, f"no shell prompt on the console: {seen[-300:]!r}")
        out, err = shell.communicate(b"echo shell-on-$(uname -r)\nexit 3\n",
                                     timeout=60 * vm.SLOWDOWN)
    t.log(f"shell: exit {shell.returncode}\n{(seen + out).decode(errors='replace')}")
    t.expect(shell.returncode == 3 and b"shell-on-7." in out,
             f"the shell: exit {shell.returncode}, {out.strip()[-200:]!r}")

    r = cli(t, "--name", "091-show", "--disk", "size=16M", "--show-command")
    command = r.stdout.strip()
    t.expect(r.returncode == 0 and "-chardev stdio,id=console" in command,
             f"--show-command: {command!r}")
    with subprocess.Popen(["sh", "-c", command], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          start_new_session=True) as qemu:
        try:
            qmp = None
            for _ in range(100):
                try:
                    qmp = QMP(os.path.join(vm.GUESTS, "091-show", "qmp"), timeout=30)
                    break
                except (OSError, QMPError):
                    time.sleep(0.1)
            t.expect(qmp is not None, "the pasted command opened no QMP socket")
            status = qmp.execute("query-status")["status"]
            qmp.close()
            t.expect(status == "running", f"the pasted command's guest is {status}")
        finally:
            os.killpg(qemu.pid, 9)
