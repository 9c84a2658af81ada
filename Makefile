# SPDX-License-Identifier: GPL-2.0
# virtio-blk io_uring passthrough: build the guest kernel from patches/,
# boot it under QEMU with virtio-blk disks, test and measure.
#
#   make bench    the main job: build, boot, benchmark table in results/<date>-series<N>/ (QUICK=1)
#   make profile  instructions per I/O, node and block device, per kernel symbol,
#                 NVMe's char node and block device beside them
#   make experiment   a prototype of experiments/ (EXPERIMENT=blkdev-uring-rw), never
#                 mailed: its kernel (the series and its patches, scripts/experiment.sh)
#                 and make profile of its paths, in results/<date>-NAME/ (QUICK=1)
#   make experiment-test  the cases TESTS="..." on an experiment's kernel
#                 (EXPERIMENT=node-reads-next-block: the node broken on purpose)
#   make nvme-effect  NVMe's instructions per I/O before and after each patch
#                 that changes block/ or io_uring/ (ONLY="7 8": those, counted over all
#                 submissions in order)
#   make test     build what is needed, test the kernel: the whole suite (python3 -m tests.run);
#                 DEBUG=1 on the sanitizer kernel (any target that boots)
#                 MODE=direct: the node on virtqueues of its own, not blk-mq
#                 QUICK=1: the cases marked QUICK; TESTS="a b": the cases whose
#                 name contains a or b; EXCLUDE="c": leave those with c out;
#                 JOBS=N: N cases at once
#   make check    check the series: checkpatch --strict, sparse and W=1, the documentation,
#                 a build of every patch, the mail, blktests' make check on the series
#                 for blktests; CHECKS="driver docs": only those
#                 (scripts/check.sh); DEBUG=1 CHECKS=driver: sparse and W=1 on the debug config
#   make src      unpack the 7.3 base into build/linux and apply patches/
#   make export   write build/linux's commits back to patches/
#   make mail     each submission of patches/, mail-ready, in build/mail/NAME/;
#                 make patches is the same
#   make kernel   build the guest kernel (build/bzImage) and its modules
#   make guest    the guest's programs and initramfs
#   make liburing liburing 2.15 for the guest programs (build/liburing/prefix)
#   make sparse   sparse 0.6.5~rc1 for make check (build/sparse/sparse)
#   make fio      fio master (its snapshot in ../shared/upstream/, or FIO_MASTER=<fio git
#                 repository>) with fio-engine/: the guest's fio and the host's (build/fio/fio)
#   make fio-export   write build/fio's commits back to fio-engine/
#   make fio-mail the fio series for fio master, mail-ready, in build/fio-patches/
#                 (make fio-patches is the same)
#   make blktests-master  blktests/ (the node's blktests cases) on blktests' master
#                 in build/blktests-master: the snapshot in ../shared/upstream/, or
#                 BLKTESTS=<blktests git repository> (BLKTESTS_REV=<commit>)
#   make liburing-master  liburing/ (the node's liburing test) on liburing's master
#                 in build/liburing-master: the snapshot, or
#                 LIBURING_MASTER=<liburing git repository> (LIBURING_REV=<commit>)
#   make blktests-master-export, make liburing-master-export: write their commits back
#   make blktests-mail, make liburing-mail: those series, mail-ready, in build/NAME-patches/
#   make deps     install the Debian packages everything needs
#   make insn-plugin  the TCG plugin that counts guest instructions (build/insn-plugin.so)

SHELL := /bin/bash
BUILD := $(CURDIR)/build
export BUILD
# DEBUG=1: the debug guest kernel (KASAN, lockdep, kmemleak, ...; kernel/debug.config)
VARIANT := $(if $(DEBUG),debug)
export VARIANT
# Its paths (KOBJ, KERNEL, MODROOT, INITRD, UAPI...) come from
# harness/buildpaths.py, the one place that names them; the scripts and
# harness/vm.py take them from there too.
$(foreach v,$(shell python3 harness/buildpaths.py --build $(BUILD) --variant "$(VARIANT)" --make),$(eval $(v)))
$(if $(KOBJ),,$(error harness/buildpaths.py gave no paths: python3 is needed (scripts/deps.sh installs it)))
# MODE=direct: the passthrough node on virtqueues of its own (harness/vm.py)
export VBLK_MODE := $(MODE)
FIO := $(BUILD)/fio/fio

GUEST_CFLAGS := -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -static -Iguest/lib \
		-isystem $(UAPI)
# The guest programs link liburing 2.15, built static by make liburing, not
# the machine's (bookworm has 2.3).
LIBURING := $(BUILD)/liburing/prefix
LIBURING_A := $(LIBURING)/lib/liburing.a
URING_CFLAGS := -I$(LIBURING)/include
URING_LIBS := -L$(LIBURING)/lib -luring
GUEST_PROGS := $(patsubst guest/prog/%.c,$(BUILD)/guest-bin/%,$(wildcard guest/prog/*.c)) \
	       $(BUILD)/guest-bin/io_uring-vblk $(BUILD)/guest-bin/vblk-passthrough

.PHONY: all deps src export kernel nvme-effect insn-plugin liburing sparse fio fio-export guest check \
	blktests-master blktests-master-export blktests-mail liburing-master liburing-master-export liburing-mail \
	test bench profile experiment experiment-test mail patches fio-mail fio-patches clean

all: test

deps:
	@scripts/deps.sh

src: deps
	@scripts/src.sh

export:
	@scripts/export.sh kernel

fio-export:
	@scripts/export.sh fio

kernel: src
	@scripts/kernel.sh

UAPI_HEADERS := $(UAPI)/linux/virtio_blk.h $(UAPI)/linux/virtio_blk_uring_cmd.h
$(UAPI_HEADERS): | kernel ;

liburing: $(LIBURING_A)

$(LIBURING_A): scripts/liburing.sh scripts/common.sh | deps
	@scripts/liburing.sh

# make check's sparse: bookworm's is too old for the 7.3 kernel (scripts/sparse.sh)
SPARSE := $(BUILD)/sparse/sparse

sparse: $(SPARSE)

$(SPARSE): scripts/sparse.sh scripts/common.sh | src
	@scripts/sparse.sh

$(BUILD)/guest-bin/%: guest/prog/%.c $(wildcard guest/prog/*.h guest/lib/*.h) $(UAPI_HEADERS) \
		$(LIBURING_A) | kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) $(URING_CFLAGS) -o $@ $< $(URING_LIBS)

$(BUILD)/guest-bin/io_uring-vblk: guest/t/io_uring-vblk.c $(wildcard guest/lib/*.h) $(UAPI_HEADERS) \
		$(LIBURING_A) | kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) $(URING_CFLAGS) -pthread -o $@ $< $(URING_LIBS) -lm

# The application developer's example: only liburing and the installed
# UAPI headers, none of guest/lib/.
$(BUILD)/guest-bin/vblk-passthrough: examples/vblk-passthrough.c $(UAPI_HEADERS) $(LIBURING_A) | kernel
	@mkdir -p $(@D)
	gcc -O2 -g -Wall -Wextra -Werror -static -isystem $(UAPI) $(URING_CFLAGS) -o $@ $< $(URING_LIBS)

# 32-bit programs (*32.c) use raw system calls: there is no -m32 liburing.
$(BUILD)/guest-bin/%32: guest/prog/%32.c $(wildcard guest/prog/*.h guest/lib/*.h) $(UAPI_HEADERS) | kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -m32 -o $@ $<

# fio's cmd_type=vblk uses the guest kernel's <linux/virtio_blk_uring_cmd.h>
fio: deps $(UAPI_HEADERS)
	@scripts/fio.sh

# The instruction-counting TCG plugin, built against the plugin API header of
# the QEMU that runs the guests (its Debian source, make deps).
QEMU_PLUGIN_H := $(BUILD)/qemu-plugin/qemu-plugin.h
INSN_PLUGIN := $(BUILD)/insn-plugin.so

insn-plugin: $(INSN_PLUGIN)

$(QEMU_PLUGIN_H): | deps
	@mkdir -p $(@D)
	tar -xf $(firstword $(wildcard $(BUILD)/dl/qemu_*.orig.tar.*)) -C $(@D) \
		--strip-components=3 --wildcards '*/include/qemu/qemu-plugin.h'
	@touch $@

$(INSN_PLUGIN): tools/insn-plugin.c guest/lib/insn-window.h $(QEMU_PLUGIN_H)
	gcc -O2 -g -Wall -Wextra -Werror -shared -fPIC -I$(dir $(QEMU_PLUGIN_H)) -Iguest/lib \
		-o $@ $< -lpthread

# The initramfs every guest boots, and the tool tree some mount
# (guest/mktools.sh): bash, python3... and the other projects' tests
# (scripts/suites.sh)
guest: kernel fio $(GUEST_PROGS) $(INSN_PLUGIN)
	@guest/mkinitramfs.sh $(INITRD) $(MODROOT) \
		$(GUEST_PROGS) $(FIO)
	@scripts/suites.sh
	@guest/mktools.sh $(TOOLS) $(BUILD)/suites/*

check: kernel $(SPARSE)
	@scripts/check.sh $(CHECKS)

test: guest
	@python3 -m tests.run $(if $(QUICK),--quick) $(if $(JOBS),-j $(JOBS)) \
		$(addprefix -x ,$(EXCLUDE)) $(TESTS)

# The main job: passthrough vs block device, side by side (QUICK=1: < 10 min),
# then where the instructions go (make profile)
# Each run writes its own snapshot, results/<date>-series<patches>/ (RESULTS=
# names another), and results/README.md again.
RESULTS ?= results/$(shell date -u +%Y-%m-%d)-series$(shell cat patches/*/series | grep -vc -e '^\#' -e '^$$')

bench: guest
	@python3 tools/bench.py $(if $(QUICK),--quick) --out $(RESULTS)
	@python3 tools/profile.py $(if $(QUICK),--quick) --out $(RESULTS)
	@python3 tools/results_summary.py

# Instructions per I/O on both paths, per kernel symbol (QUICK=1: reads, plain buffers)
profile: guest
	@python3 tools/profile.py $(if $(QUICK),--quick) --out $(RESULTS)
	@python3 tools/results_summary.py

# A prototype measured beside the series (experiments/NAME/README.md)
EXPERIMENT ?= blkdev-uring-rw
EXPERIMENT_RESULTS := results/$(shell date -u +%Y-%m-%d)-$(EXPERIMENT)

experiment: guest
	@VARIANT=$(EXPERIMENT) scripts/experiment.sh $(GUEST_PROGS) $(FIO)
	@python3 tools/profile.py --experiment $(EXPERIMENT) $(if $(QUICK),--quick) \
		--out $(EXPERIMENT_RESULTS)
	@python3 tools/layers.py $(EXPERIMENT_RESULTS)/profile.json

# The suite's cases (TESTS="...") on an experiment's kernel, e.g. one whose
# node is broken on purpose (experiments/node-reads-next-block)
experiment-test: guest
	@VARIANT=$(EXPERIMENT) scripts/experiment.sh $(GUEST_PROGS) $(FIO)
	@VARIANT=$(EXPERIMENT) python3 -m tests.run $(if $(JOBS),-j $(JOBS)) $(TESTS)

clean:
	rm -rf $(BUILD)

# The submissions as they are mailed: build/mail/NAME/ (patches/NAME/mail)
mail: src
	@scripts/patches.sh kernel
patches: mail

# The fio series as it is mailed: build/fio-patches/
fio-mail: fio
	@scripts/patches.sh fio
fio-patches: fio-mail

# The series for blktests and liburing on their master branches
blktests-master: deps
	@scripts/upstream.sh blktests "$(BLKTESTS)" $(BLKTESTS_REV)

liburing-master: deps
	@scripts/upstream.sh liburing "$(LIBURING_MASTER)" $(LIBURING_REV)

blktests-master-export liburing-master-export:
	@scripts/export.sh $(@:-export=)

blktests-mail: blktests-master
	@scripts/patches.sh blktests

liburing-mail: liburing-master
	@scripts/patches.sh liburing

# NVMe's passthrough and block device before and after each core patch
nvme-effect: guest
	@scripts/nvme-effect.sh $(ONLY)
