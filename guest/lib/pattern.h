/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test data pattern (see tests/pattern.py for the host's side): the
 * 8-byte little-endian word at absolute disk byte offset o holds
 * splitmix64(seed + o).
 */
#ifndef VBLK_PATTERN_H
#define VBLK_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t splitmix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill buf with the pattern of [offset, offset + len); both multiples of 8. */
static inline void pattern_fill(void *buf, uint64_t seed, uint64_t offset, size_t len)
{
	uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = splitmix64(seed + offset + 8 * i);	/* x86: little endian */
}

/* Return the byte index of the first mismatch, or -1 if buf holds the pattern. */
static inline long pattern_check(const void *buf, uint64_t seed, uint64_t offset, size_t len)
{
	const uint64_t *w = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		if (w[i] != splitmix64(seed + offset + 8 * i))
			return (long)(8 * i);
	return -1;
}

#endif
