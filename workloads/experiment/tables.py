"""What every kind's table uses: the run of a log x pattern x policy, % changes,
numbers as shown, orderings, Eq. 7 improvements, size ranges, a run's pace,
the table.
"""

import math
import os
import random

from metrics import eq7
from workloads import bf_window
from metrics.jobs import fnum


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def run_for(d, runs, log, pattern, policy):
    """The run of log x pattern x policy; the baseline of another pattern
    when the baseline is run once per log."""
    r = runs.get((log, pattern, policy))
    if r is None and policy == d.baseline and not d.baseline_per_pattern:
        r = next((runs[(log, p, policy)] for p in d.patterns if (log, p, policy) in runs), None)
    return r


def guard_text(m):
    """The end guard as the run had it (workloads/endguard.py): '' when
    off, else 'END_GUARD=<rate>' (and that it turned itself off)."""
    g = m.get("end_guard") or {}
    rate = fnum(g.get("rate"), 0.0)
    if m.get("clock") != "virtual" or not 0 < rate < fnum(m.get("clock_rate"), 0.0):
        return ""
    return f"END_GUARD={rate:g}" + (" (turned itself off)" if g.get("enabled") is False else "")


def window_text(m, runs=()):
    """Backfill's window as the runs had it (BF_WINDOW, workloads/
    bf_window.py): '' when none set one (Slurm's default, as every run
    before BF_WINDOW); runs that differ in it are named MIXED, as the end
    guard's are."""
    windows = {}
    for r in [m, *runs]:
        windows.setdefault(bf_window.text(r), []).append(r)
    if len(windows) > 1:
        return "runs MIXED in backfill's window: " + "; ".join(
            f"{len(rs)} with {w}" for w, rs in sorted(windows.items()))
    return bf_window.text(m) if m.get("bf_window_min") else ""


def pace_text(m, runs=()):
    """How a run compressed time: the virtual clock's rate (and the end
    guard when on), or SPEEDUP; and backfill's window when a run set one
    (BF_WINDOW). runs: the table's other manifests; a table whose runs
    differ in the end guard or the window says so, so that runs with and
    without it are not mixed silently."""
    window = window_text(m, runs)
    return clock_text(m, runs) + (f", {window}" if window else "")


def clock_text(m, runs=()):
    if m.get("clock") != "virtual":
        return f"SPEEDUP={m['speedup']:g}"
    text = f"CLOCK=virtual at rate {fnum(m.get('clock_rate')):g}"
    guards = {}
    for r in [m, *runs]:
        guards.setdefault(guard_text(r) or "END_GUARD off", []).append(r)
    if len(guards) > 1:
        return text + ", runs MIXED in the end guard: " + "; ".join(
            f"{len(rs)} with {g}" for g, rs in sorted(guards.items()))
    return text + (f", {guard_text(m)}" if guard_text(m) else "")


def change(v, base):
    if v is None or base is None or base == 0 or any(
            isinstance(x, float) and math.isnan(x) for x in (v, base)):
        return None
    return 100 * (v - base) / base


def fmt(v, digits=1, sign=False):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+,.{digits}f}" if sign else f"{v:,.{digits}f}"


def ordering(values, digits, reverse=False):
    """'a < b = c' from {policy: value}, lowest first (highest with
    reverse); values equal at the shown precision tie."""
    vals = {p: round(v, digits) for p, v in values.items()
            if v is not None and not (isinstance(v, float) and math.isnan(v))}
    if len(vals) < len(values):
        return None
    groups = {}
    for p, v in vals.items():
        groups.setdefault(v, []).append(p)
    keys = sorted(groups, reverse=reverse)
    return (" > " if reverse else " < ").join(" = ".join(sorted(groups[k])) for k in keys)


def ordering_md(orders, ours):
    """The markdown table of the policies' orderings by improvement, ours
    (what ours are, e.g. "the sample") beside the paper's, one row for each
    (log, pattern, ours, paper) of orders (an ordering None: '-')."""
    md = [f"Ordering by improvement, highest first (ours: {ours}):", "",
          "| log | pattern | ours | paper | agrees |", "|---|---|---|---|---|"]
    for log, pattern, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        md.append(f"| {log} | {pattern} | {o or '-'} | {p or '-'} | {agrees} |")
    return md + [""]


def improvement(rows, policies, baseline, left=None):
    """{policy: % less total runtime than baseline's} had each policy
    placed every job on the state it met: Eq. 7 on the recorded
    same-state costs, computed by eq7.py as make report computes it. left,
    a dict, receives {policy: job ids} a missing cost left out."""
    pct, gone = eq7.changes(rows, policies, baseline)
    if left is not None:
        for p, ids in gone.items():
            left.setdefault(p, []).extend(ids)
    return pct


def sample_rows(rows, n, seed):
    rows = sorted(rows, key=lambda r: r["job_id"])
    if len(rows) <= n:
        return rows
    return random.Random(seed).sample(rows, n)


def bin_of(nodes, bins):
    for b in bins:
        lo, _, hi = b.partition("-")
        if int(lo) <= nodes <= int(hi or lo):
            return b
    return None


class Table:
    def __init__(self):
        self.md = []
        self.csv_rows = []
        self.csv_header = []
        self.more_csv = {}       # another file name -> (header, rows)


def num4(v):
    return "" if v is None or math.isnan(v) else f"{v:.4f}"
