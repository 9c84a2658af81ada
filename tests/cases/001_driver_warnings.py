"""The driver builds with sparse (C=2) and W=1 without a warning."""


def test(t):
    t.host("scripts/check.sh", "driver")
