"""Kind continuous (the ICPP-W paper's Table 3): each policy's metrics from
its own replay, against the baseline's, beside the paper's.
"""

import os

from metrics.compare import compare
from metrics.run_dir import csv_cell
from . import choice_note
from .kind import Kind
from .tables import change, fmt, ordering, run_for


METRIC_TEXT = {"exec_hours": "execution time (h, total over jobs)",
               "wait_hours": "wait time (h, total over jobs)",
               "improvement_pct": "% less execution time than the baseline",
               "cost_reduction_pct": "% less communication cost than the baseline"}


def table_continuous(d, runs, t):
    t.csv_header = ["log", "pattern", "policy", "metric", "ours", "ours_change_pct",
                    "paper", "paper_change_pct", "run_id"]
    cols = []
    for m in d.metrics:
        cols += [f"{m} ours", "vs base", f"{m} paper", "vs base"]
    t.md += [f"% change against the baseline `{d.baseline}` on each side (negative: less). "
             + "; ".join(f"{m}: {METRIC_TEXT.get(m, m)}" for m in d.metrics) + ".", "",
             "| log | pattern | policy | " + " | ".join(cols) + " |",
             "|---|---|---|" + "---|" * len(cols)]
    orders = []
    for log in d.logs:
        for pattern in d.patterns:
            base_run = run_for(d, runs, log, pattern, d.baseline)
            ours_by_metric, paper_by_metric = {}, {}
            cells_by_policy = {}
            for policy in d.policies:
                r = run_for(d, runs, log, pattern, policy)
                cells = []
                for m in d.metrics:
                    ours = r.metrics.get(m) if r else None
                    base = base_run.metrics.get(m) if base_run else None
                    paper = d.paper_value(m, log, pattern, policy)
                    pbase = d.paper_value(m, log, pattern, d.baseline)
                    oc, pc = change(ours, base), change(paper, pbase)
                    ours_by_metric.setdefault(m, {})[policy] = ours
                    paper_by_metric.setdefault(m, {})[policy] = paper
                    cells += [fmt(ours), fmt(oc, sign=True) + "%" if oc is not None else "-",
                              fmt(paper, 0), fmt(pc, sign=True) + "%" if pc is not None else "-"]
                    t.csv_rows.append([log, pattern, policy, m, csv_cell(ours),
                                       "" if oc is None else f"{oc:.3f}",
                                       "" if paper is None else f"{paper:g}",
                                       "" if pc is None else f"{pc:.3f}",
                                       r.run_id if r else ""])
                cells_by_policy[policy] = cells
                note = "" if r else " (not run)"
                if r and r.pattern != pattern:
                    note = f" (the {r.pattern} run)"
                t.md.append(f"| {log} | {pattern} | {policy}{note} | " + " | ".join(cells) + " |")
            for m in d.metrics:
                o = ordering(ours_by_metric[m], 1)
                p = ordering(paper_by_metric[m], 0)
                orders.append((log, pattern, m, o, p))
    if {"greedy", "balanced"} <= set(d.policies):
        t.md += choice_note.lines(d, runs)
    t.md += ["", f"The baseline's execution against the log: `{d.baseline}` leaves its "
             "jobs' runtimes alone (Eq. 7's ratio is 1), so its total should equal the "
             "log's runtimes of the same jobs; a gap above 1 % (flagged) is the clock's "
             "or the limits', not the policy's.", "",
             "| log | baseline exec h | log runtimes h | gap |", "|---|---|---|---|"]
    for log in d.logs:
        base_run = next((run_for(d, runs, log, p, d.baseline) for p in d.patterns
                         if run_for(d, runs, log, p, d.baseline)), None)
        e = base_run.metrics.get("exec_hours") if base_run else None
        lr = base_run.log_runtime_hours if base_run else None
        t.md.append(f"| {log} | {fmt(e)} | {fmt(lr)} | {runtime_gap(e, lr)} |")
        t.csv_rows.append([log, "", d.baseline, "log_runtime_hours",
                           "" if lr is None else f"{lr:.3f}", "", "", "",
                           base_run.run_id if base_run else ""])
    t.md += ["", "Ordering of the policies, lowest first (`=`: equal at the precision shown):",
             "", "| log | pattern | metric | ours | paper | agrees | same best |",
             "|---|---|---|---|---|---|---|"]
    for log, pattern, m, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        best = "-" if o is None or p is None else (
            "yes" if o.split(" < ")[0] == p.split(" < ")[0] else "no")
        t.md.append(f"| {log} | {pattern} | {m} | {o or '-'} | {p or '-'} | {agrees} | {best} |")
    t.md.append("")


def runtime_gap(ours, log_hours):
    """'+0.3%', or flagged when the baseline's execution is more than 1 %
    away from the log's runtimes."""
    c = change(ours, log_hours)
    if c is None:
        return "-"
    return f"{c:+.1f}%" + (" **more than 1 %: check the clock**" if abs(c) > 1 else "")


def plots_continuous(d, runs, out):
    """report.py compare's plots (execution and mean wait by policy, per-job
    times) for each log x pattern."""
    lines = []
    for log in d.logs:
        for pattern in d.patterns:
            group = [run_for(d, runs, log, pattern, p) for p in d.policies]
            if any(r is None for r in group):
                continue
            dest = os.path.join(out, f"compare-{log}-{pattern}")
            try:
                compare([r.dir for r in group], dest)
                lines += [f"![{log} {pattern}](compare-{log}-{pattern}/policies.png)", ""]
            except Exception as e:  # noqa: BLE001 - a plot is optional; say why not
                lines += [f"No plot for {log} {pattern}: {type(e).__name__}: {e}", ""]
    return lines


# Every policy per log x pattern; the baseline once per log (its runtimes
# do not depend on the pattern) unless baseline_per_pattern = yes.
KIND = Kind("continuous", table_continuous, plots=plots_continuous, uses_metrics=True,
            baseline_once=True)
