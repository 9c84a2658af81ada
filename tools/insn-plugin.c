// SPDX-License-Identifier: GPL-2.0
/*
 * insn-plugin: a QEMU TCG plugin that counts the guest instructions executed
 * inside measurement windows, per vCPU and per translated block.
 *
 *   qemu-system-x86_64 ... -plugin build/insn-plugin.so,out=FILE
 *
 * A window opens when any vCPU executes the open marker and closes when one
 * executes the close marker: long NOPs that no compiler emits, recognised by
 * their bytes when a block is translated (guest/lib/insn-window.h has them).
 * The markers themselves are not counted.  While a window is open every
 * executed block adds its instruction count to its own counter of the vCPU
 * that ran it; a block holding a marker is counted instruction by
 * instruction instead, so that the window starts and ends at the markers.
 * Blocks are keyed by address and length, so a retranslation adds to the
 * same counter.
 *
 * When a window closes the plugin appends to FILE:
 *   window N open VCPU close VCPU
 *   insns VADDR SIZE...          once per block: its instructions' sizes
 *   tb VADDR NINSNS C0 C1 ...    per block executed: executions per vCPU
 *   end N
 * Addresses are hexadecimal; tools/profile.py maps them to symbols.  The
 * counts are taken when a block starts: a block left early by an exception
 * counts its remaining instructions too.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "insn-window.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* A translated block, or one instruction of a block holding a marker */
struct block {
	uint64_t vaddr;
	uint32_t n_insns;
	uint8_t *sizes;			/* of each instruction */
	int described;			/* written to the output once */
	uint64_t *execs;		/* per vCPU, in the open window */
	struct block *next;		/* in its hash bucket */
	struct block *all;		/* in the list of every block */
};

enum marker { NO_MARKER, OPEN_MARKER, CLOSE_MARKER };

/* What a block of a marker's instructions runs per instruction */
struct step {
	struct block *block;		/* NULL for a marker */
	enum marker marker;
};

#define BUCKETS 65536

static struct block *buckets[BUCKETS];
static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int n_vcpus;
static FILE *out;
static volatile int window_open;
static unsigned int window_number;
static int opened_by;

static struct block *block_get(uint64_t vaddr, uint32_t n_insns, const uint8_t *sizes)
{
	unsigned int h = (unsigned int)((vaddr ^ (vaddr >> 16) ^ n_insns) % BUCKETS);
	struct block *b;

	for (b = buckets[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->n_insns == n_insns)
			return b;
	b = calloc(1, sizeof(*b));
	if (b) {
		b->sizes = malloc(n_insns);
		b->execs = calloc(n_vcpus, sizeof(*b->execs));
	}
	if (!b || !b->sizes || !b->execs) {
		fprintf(stderr, "insn-plugin: out of memory\n");
		abort();
	}
	b->vaddr = vaddr;
	b->n_insns = n_insns;
	memcpy(b->sizes, sizes, n_insns);
	b->next = buckets[h];
	buckets[h] = b;
	b->all = blocks;
	blocks = b;
	return b;
}

static void window_start(unsigned int vcpu)
{
	struct block *b;

	pthread_mutex_lock(&lock);
	for (b = blocks; b; b = b->all)
		memset(b->execs, 0, n_vcpus * sizeof(*b->execs));
	opened_by = vcpu;
	window_open = 1;
	pthread_mutex_unlock(&lock);
}

static void window_end(unsigned int vcpu)
{
	struct block *b;
	unsigned int i;
	int v, any;

	pthread_mutex_lock(&lock);
	if (!window_open) {
		pthread_mutex_unlock(&lock);
		return;
	}
	window_open = 0;
	fprintf(out, "window %u open %d close %u\n", window_number, opened_by, vcpu);
	for (b = blocks; b; b = b->all) {
		for (any = 0, v = 0; v < n_vcpus; v++)
			any |= b->execs[v] != 0;
		if (!any)
			continue;
		if (!b->described) {
			fprintf(out, "insns %" PRIx64, b->vaddr);
			for (i = 0; i < b->n_insns; i++)
				fprintf(out, " %u", b->sizes[i]);
			fputc('\n', out);
			b->described = 1;
		}
		fprintf(out, "tb %" PRIx64 " %u", b->vaddr, b->n_insns);
		for (v = 0; v < n_vcpus; v++)
			fprintf(out, " %" PRIu64, b->execs[v]);
		fputc('\n', out);
	}
	fprintf(out, "end %u\n", window_number++);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (window_open && (int)vcpu < n_vcpus)
		b->execs[vcpu]++;
}

static void step_exec(unsigned int vcpu, void *udata)
{
	struct step *s = udata;

	if (s->marker == OPEN_MARKER)
		window_start(vcpu);
	else if (s->marker == CLOSE_MARKER)
		window_end(vcpu);
	else
		block_exec(vcpu, s->block);
}

static enum marker insn_marker(struct qemu_plugin_insn *insn)
{
	size_t size = qemu_plugin_insn_size(insn);
	const void *data = qemu_plugin_insn_data(insn);

	if (size != sizeof(insn_window_open))
		return NO_MARKER;
	if (!memcmp(data, insn_window_open, size))
		return OPEN_MARKER;
	if (!memcmp(data, insn_window_close, size))
		return CLOSE_MARKER;
	return NO_MARKER;
}

static void tb_trans(qemu_plugin_id_t id __attribute__((unused)),
		     struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint8_t sizes[512];
	int markers = 0;

	if (n > sizeof(sizes))
		n = sizeof(sizes);	/* never: TCG blocks are shorter */
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		sizes[i] = qemu_plugin_insn_size(insn);
		markers |= insn_marker(insn) != NO_MARKER;
	}

	pthread_mutex_lock(&lock);
	if (!markers) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec, QEMU_PLUGIN_CB_NO_REGS,
						     block_get(qemu_plugin_tb_vaddr(tb), n, sizes));
	} else {
		for (i = 0; i < n; i++) {
			struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
			struct step *s = calloc(1, sizeof(*s));

			if (!s)
				abort();
			s->marker = insn_marker(insn);
			if (s->marker == NO_MARKER)
				s->block = block_get(qemu_plugin_insn_vaddr(insn), 1, &sizes[i]);
			qemu_plugin_register_vcpu_insn_exec_cb(insn, step_exec,
							       QEMU_PLUGIN_CB_NO_REGS, s);
		}
	}
	pthread_mutex_unlock(&lock);
}

static void at_exit(qemu_plugin_id_t id __attribute__((unused)),
		    void *udata __attribute__((unused)))
{
	if (out)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path || !info->system_emulation) {
		fprintf(stderr, "insn-plugin: system emulation and out=FILE needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	n_vcpus = info->system.max_vcpus;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
