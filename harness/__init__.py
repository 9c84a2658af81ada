# SPDX-License-Identifier: GPL-2.0
"""The library that the tests and the tools share.

- buildpaths: where the build puts each kernel variant's files;
- qmp: a QMP client;
- vm: the guest runner (Guest, Disk, Nvme);
- workloads: every command line of t/io_uring-vblk and fio, and their results;
- guest_setup: the guest that make bench and make profile measure in;
- profiling, fio_profile, insns, insn_fit: make profile's runs, the TCG
  plugin's counts, and the fit that takes waiting out of them.

The command-line programs in tools/ import this package and never each
other; the tests import it as a package (make test runs python3 -m
tests.run from the top of the tree).
"""
