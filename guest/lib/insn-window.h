/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers that open and close a window of tools/insn-plugin.c's
 * instruction counts: 8-byte NOPs (nopl disp32(%rax,%rax,1)) whose
 * displacement spells "VBop" or "VBcl"; compilers only emit that NOP with a
 * zero displacement.  Executing one has no effect outside the plugin.
 */
#ifndef INSN_WINDOW_H
#define INSN_WINDOW_H

#define INSN_WINDOW_OPEN_BYTES	0x0f, 0x1f, 0x84, 0x00, 0x56, 0x42, 0x6f, 0x70
#define INSN_WINDOW_CLOSE_BYTES	0x0f, 0x1f, 0x84, 0x00, 0x56, 0x42, 0x63, 0x6c

static const unsigned char insn_window_open[] = { INSN_WINDOW_OPEN_BYTES };
static const unsigned char insn_window_close[] = { INSN_WINDOW_CLOSE_BYTES };

#define INSN_WINDOW_STR_(...)	#__VA_ARGS__
#define INSN_WINDOW_STR(...)	INSN_WINDOW_STR_(__VA_ARGS__)

/* The markers as instructions, for the guest's programs */
static inline void insn_window_begin(void)
{
	__asm__ volatile(".byte " INSN_WINDOW_STR(INSN_WINDOW_OPEN_BYTES) ::: "memory");
}

static inline void insn_window_end(void)
{
	__asm__ volatile(".byte " INSN_WINDOW_STR(INSN_WINDOW_CLOSE_BYTES) ::: "memory");
}

#endif
