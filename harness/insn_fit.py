# SPDX-License-Identifier: GPL-2.0
"""Timing-free instructions per I/O: fit out what waiting costs.

A run of the profile is two windows of one point (op, depth, completion,
buffers, path), of N and 2N I/Os.  The instructions y of a window grow with
its I/Os and with how often it waited: sleeps and wake-ups, or polls that
found nothing.  Those waiting events x_k are counted (entries of a kernel
function), so over every window of one path and completion mode
    y = fixed[cell] + sum_k slope_k * x_k
with a cell a (point, window length), is a least-squares problem: within a
cell the I/Os are the same and every difference is waiting.  The point's
cost per I/O is then the difference of the two lengths' cells, less the
events they counted, plus the events of a canonical wait, per I/O.  A
window that no event explains (its residual an outlier) is left out, once.
"""

import collections
import statistics

# an event whose count moves within a cell by less than this part of its
# count (root mean square over the windows) would give a slope that is all
# noise: it is left out, its count taken as it is
MIN_EVENT_SPREAD = 0.01
# a window whose residual is more than OUTLIER robust standard deviations
# (ROBUST_SIGMA times the median absolute residual) is left out of the fit
OUTLIER = 5.0
ROBUST_SIGMA = 1.4826


def solve(matrix, vector):
    """x with matrix @ x = vector (Gauss-Jordan, partial pivoting)."""
    n = len(vector)
    rows = [list(r) + [v] for r, v in zip(matrix, vector)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(rows[r][c]))
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(n):
            if r != c:
                f = rows[r][c] / rows[c][c]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[c])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def windows_of(cells):
    """Every window, in the order centred() and the residuals list them."""
    return [w for ws in cells.values() for w in ws]


def centred(cells, events):
    """Each window as (y, [x_k]) less its cell's mean."""
    out = []
    for windows in cells.values():
        my = statistics.fmean(w["y"] for w in windows)
        mx = {e: statistics.fmean(w["events"][e] for w in windows) for e in events}
        out += [(w["y"] - my, [w["events"][e] - mx[e] for e in events]) for w in windows]
    return out


def regress(rows, columns, events):
    """Slopes per event, fitted on the events at columns (indices into each
    row's x) of centred rows; 0 for the others."""
    slopes = dict.fromkeys(events, 0.0)
    if columns:
        gram = [[sum(r[1][a] * r[1][b] for r in rows) for b in columns] for a in columns]
        moments = [sum(r[1][a] * r[0] for r in rows) for a in columns]
        for i, s in zip(columns, solve(gram, moments)):
            slopes[events[i]] = s
    return slopes


def least_squares(cells, events):
    """Slopes per event (0 for one left out) and the residuals.  No event
    can save instructions: one whose slope comes out negative (an outlier
    window pulled it) is left out and the rest fitted again."""
    rows = centred(cells, events)
    windows = windows_of(cells)
    used = [i for i, e in enumerate(events)
            if statistics.fmean(r[1][i] ** 2 for r in rows) ** 0.5 >=
            max(MIN_EVENT_SPREAD * statistics.fmean(w["events"][e] for w in windows), 0.5)]
    while True:
        slopes = regress(rows, used, events)
        worst = min(used, key=lambda i: slopes[events[i]], default=None)
        if worst is None or slopes[events[worst]] >= 0:
            break
        used.remove(worst)
    residuals = [y - sum(slopes[e] * x for e, x in zip(events, xs)) for y, xs in rows]
    return slopes, residuals


def without_outliers(cells, residuals):
    """The cells less the windows whose residual is an outlier: work that is
    neither I/O nor waiting (a burst of page frees, a vmstat refresh) that
    happened to fall into one window.  Each cell keeps at least one."""
    scale = ROBUST_SIGMA * statistics.median(abs(e) for e in residuals)
    if not scale:           # most windows fit exactly: nothing stands out
        return cells, 0
    flagged = {id(w) for w, e in zip(windows_of(cells), residuals)
               if abs(e) > OUTLIER * scale}
    kept = {c: [w for w in ws if id(w) not in flagged] or ws for c, ws in cells.items()}
    return kept, sum(len(ws) - len(kept[c]) for c, ws in cells.items())


def part_slopes(cells, events, slopes, part):
    """The slopes of one part of y (each window's "parts"[part]) on the events
    that the whole's fit used, over the windows it kept: the parts' slopes,
    and so their timing-free figures, add up to the whole's."""
    rows = centred({c: [dict(w, y=w["parts"].get(part, 0)) for w in ws]
                    for c, ws in cells.items()}, events)
    return regress(rows, [i for i, e in enumerate(events) if slopes[e]], events)


def timing_free(cells, point, n, events, slopes, canonical, y=lambda w: w["y"]):
    """A point's instructions per I/O (of y) at a canonical wait."""
    def level(ios):
        ws = cells[point, ios]
        return (statistics.fmean(y(w) - sum(slopes[e] * w["events"][e] for e in events)
                                 for w in ws),
                statistics.fmean(w["enters"] for w in ws))
    (short, short_enters), (long_, long_enters) = level(n), level(2 * n)
    wait = canonical((long_enters - short_enters) / n)
    return (long_ - short) / n + sum(slopes[e] * wait[e] for e in events)


def fit_group(runs, events, canonical, n, parts=()):
    """Fit one path and completion mode; runs: [{"point", "windows"}], each
    window {"ios", "y", "events": {name: entries}, "enters"}, of n or 2n I/Os,
    and, to split the figure into parts, "parts": {part: its share of y}.
    canonical(enters per I/O) -> {event: its count per I/O in a canonical wait}.
    Returns the fit, {point: timing-free instructions per I/O} and
    {point: {part: its timing-free share}}."""
    cells = collections.defaultdict(list)
    for r in runs:
        for w in r["windows"]:
            cells[r["point"], w["ios"]].append(w)
    slopes, residuals = least_squares(cells, events)
    cells, left_out = without_outliers(cells, residuals)
    if left_out:
        slopes, residuals = least_squares(cells, events)
    points = {r["point"] for r in runs}
    free = {p: timing_free(cells, p, n, events, slopes, canonical) for p in points}
    shares = {p: {} for p in points}
    for part in parts:
        ps = part_slopes(cells, events, slopes, part)
        for p in points:
            shares[p][part] = timing_free(cells, p, n, events, ps, canonical,
                                          lambda w: w["parts"].get(part, 0))
    rms = statistics.fmean(e * e for e in residuals) ** 0.5
    return {"slopes": slopes, "windows": len(windows_of(cells)), "left_out": left_out,
            "residual_rms": rms}, free, shares
