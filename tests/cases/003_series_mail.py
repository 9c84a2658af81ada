# SPDX-License-Identifier: GPL-2.0
"""make mail writes every submission of patches/ mail-ready (tag, cover
letter, addresses, the sender's identity in place of the author's, a
refusal of an address that cannot receive replies); each applies with git
am to the base and the submissions it names, and all of them in order
give exactly the tree the tests run on."""

DESCRIPTION = "make mail writes each submission mail-ready"
QUICK = True
ONCE = True


def test(t):
    t.host("scripts/check.sh", "mail")
