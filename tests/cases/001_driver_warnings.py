"""The driver builds with sparse (C=2) and W=1 without a warning."""

QUICK = True


def test(t):
    t.host("scripts/check.sh", "driver")
