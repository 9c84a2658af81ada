"""make mail writes a mail-ready series (v2, cover letter, Cc list)
that git am applies to the unpacked base, giving exactly the tree the
tests run on."""

DESCRIPTION = "make mail writes a mail-ready series"
QUICK = True
ONCE = True


def test(t):
    t.host("scripts/check.sh", "mail")
