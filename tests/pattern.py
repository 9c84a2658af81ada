# SPDX-License-Identifier: GPL-2.0
"""The data pattern that tests write and check on both sides of the guest.

Each 8-byte little-endian word at absolute disk byte offset o (a multiple
of 8) holds splitmix64(seed + o), so data that lands at the wrong offset, or
comes from another seed, never matches.  guest/lib/pattern.h is the guest's
implementation; the two are written independently and checked against each
other by the tests.
"""

import struct

MASK = (1 << 64) - 1


def splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def pattern(seed, offset, length):
    """The pattern bytes for [offset, offset + length); both multiples of 8."""
    assert offset % 8 == 0 and length % 8 == 0
    words = [splitmix64((seed + o) & MASK) for o in range(offset, offset + length, 8)]
    return struct.pack(f"<{len(words)}Q", *words)


def write_image(path, seed, offset, length):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(pattern(seed, offset, length))


def image_matches(path, seed, offset, length):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length) == pattern(seed, offset, length)
