"""Kind readings (issue 26): the ICPP-W paper's Table 3 under the readings
of its setting that change the load and the rank order, to find which one
reproduces the paper.

A reading is <sizes>/<limits>/<ranks>:
  sizes   logged (the log's node counts divided by the definition's SCALE)
          or authors (their continuous_run.py scale(): the replay's
          SIZES=authors, workloads/replay/plan.py)
  limits  ours (5 x the runtime on LIMIT_GRID) or none (no limit, the
          authors' slurm.conf; the replay's LIMITS=none)
  ranks   the library's ranks= (taken, index, or authors: each policy
          costed in the order the authors' code costs it; OPTIONS=)

Its own lists:
  size_readings    the sizes readings the baselines run under (logged authors)
  limit_readings   the limits readings (ours none)
  table3_readings  the readings the whole of Table 3 (every policy x
                   pattern) runs under, e.g. logged/ours/taken
                   authors/none/authors; `none` for none

The runs: the baseline once per log x sizes x limits (pattern: the first
of the definition's; its runtimes depend on neither the pattern nor the
rank order, Eq. 7 dividing its cost by its own); then each policy x
pattern per log under each of table3_readings, the baseline of the same
sizes and limits serving each. The table: the baselines' execution and
wait totals beside the paper's, the log's runtime sum and which reading
is closest to the paper's wait (the paper's execution equals the log's
runtimes on every reading); Table 3 per reading of table3_readings with
the policies' gains and order; the distribution of the same-state cost
ratios (Eq. 7's Cost_policy / Cost_default per communication-intensive
job); each run's wall time.
"""

import datetime
import math
import statistics

from workloads.logs import NAMED_LOGS
from .errors import check_names, ExperimentError
from .kind import Kind
from .reading_words import LIMITS, SIZES, parse_reading
from .tables import change, fmt, ordering, pace_text


def table3_list(d):
    return [] if d.table3_readings in ([], ["none"]) else d.table3_readings


def validate_readings(d, where):
    check_names("size_readings", d.size_readings, list(SIZES), where)
    check_names("limit_readings", d.limit_readings, list(LIMITS), where)
    for r in table3_list(d):
        # '@<log>' of a log LOGS= left out is skipped, an unknown one refused.
        log = parse_reading(r, where)[3]
        if log and log not in NAMED_LOGS:
            raise ExperimentError(f"{where}table3_readings '{r}': {log} is not a named "
                                  f"log ({' '.join(NAMED_LOGS)})")
    for log in d.logs:
        p = d.params_of(log)
        for k in ("SIZES", "LIMITS"):
            if k in p:
                raise ExperimentError(f"{where}{k}: kind readings sets it per run "
                                      "(size_readings, limit_readings, table3_readings)")
        if "ranks=" in p.get("OPTIONS", ""):
            raise ExperimentError(f"{where}OPTIONS ranks=: kind readings sets it per run "
                                  "(table3_readings' third word)")


def _params(d, log, sizes, limits, ranks):
    p = dict(d.params_of(log))
    p["SIZES"], p["LIMITS"] = sizes, limits
    if sizes == "authors":
        p.pop("SCALE", None)       # the authors' scale() replaces it
    if ranks != "taken":
        p["OPTIONS"] = ",".join(x for x in (p.get("OPTIONS", ""), f"ranks={ranks}") if x)
    return p


def plan_readings(d):
    runs, seen = [], set()
    first = d.patterns[0]

    def add(log, pattern, policy, sizes, limits, ranks):
        key = (log, pattern, policy, sizes, limits, ranks)
        if key in seen:
            return
        seen.add(key)
        runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": pattern,
                     "policy": policy, "params": _params(d, log, sizes, limits, ranks)})

    for log in d.logs:
        for sizes in d.size_readings:
            for limits in d.limit_readings:
                add(log, first, d.baseline, sizes, limits, "taken")
        for text in table3_list(d):
            sizes, limits, ranks, only = parse_reading(text)
            if only and only != log:
                continue
            add(log, first, d.baseline, sizes, limits, "taken")
            for pattern in d.patterns:
                for policy in d.policies:
                    if policy != d.baseline:
                        add(log, pattern, policy, sizes, limits, ranks)
    return runs


def ranks_of(options):
    for w in (options or "").replace(",", " ").split():
        k, _, v = w.partition("=")
        if k == "ranks":
            return v
    return "taken"


def readings_key(d, r):
    m = r.manifest
    return (r.log, m.get("sizes", "logged"), m.get("limits", "ours"),
            ranks_of(m.get("options")), r.pattern, r.policy)


def _baseline(d, runs, log, sizes, limits):
    """The baseline run of log x sizes x limits, whatever its ranks."""
    for (lg, s, lim, _, _, pol), r in sorted(runs.items()):
        if (lg, s, lim, pol) == (log, sizes, limits, d.baseline):
            return r
    return None


def wall_minutes(m):
    try:
        a = datetime.datetime.fromisoformat(m["wall_start"])
        b = datetime.datetime.fromisoformat(m["wall_end"])
    except (KeyError, TypeError, ValueError):
        return None
    return (b - a).total_seconds() / 60


def gap_text(ours, ref):
    c = change(ours, ref)
    if c is None:
        return "-"
    return f"{c:+.1f}%" + (" **>1 %**" if abs(c) > 1 else "")


def closest(d, runs, log):
    """The sizes x limits whose baseline wait is nearest the paper's (by
    the ratio's distance from 1 on a log scale), or None."""
    paper = d.paper_value("wait_hours", log, d.patterns[0], d.baseline)
    best = None
    for sizes in SIZES:
        for limits in LIMITS:
            r = _baseline(d, runs, log, sizes, limits)
            w = r.metrics.get("wait_hours") if r else None
            if not paper or not w or w <= 0:
                continue
            dist = abs(math.log(w / paper))
            if best is None or dist < best[0]:
                best = (dist, sizes, limits)
    return best


def ratios(r, policy, denominator=None):
    """Cost_policy / Cost_denominator of the run's communication-intensive
    jobs, at the state each job met in this run."""
    out = []
    for row in r.rows:
        if not row["comm"]:
            continue
        c = row["costs"]
        num = c.get(policy)
        den = c.get(denominator or row.get("denominator", "default"))
        if num is None or den is None or math.isnan(num) or math.isnan(den) or den <= 0:
            continue
        out.append(num / den)
    return out


def ratio_cells(v):
    if not v:
        return ["0", "-", "-", "-", "-"]
    n = len(v)
    less = sum(1 for x in v if x < 1 - 1e-9)
    more = sum(1 for x in v if x > 1 + 1e-9)
    return [str(n), f"{100 * less / n:.0f}%", f"{100 * (n - less - more) / n:.0f}%",
            f"{100 * more / n:.0f}%", f"{statistics.mean(v):.3f}"]


def table_readings(d, runs, t):
    t.csv_header = ["section", "log", "sizes", "limits", "ranks", "pattern", "policy",
                    "metric", "ours", "paper", "log_runtime_h", "run_id", "wall_min"]
    t.md += ["## Baselines per reading", "",
             f"`{d.baseline}` under each sizes x limits reading (pattern {d.patterns[0]}). "
             "Execution: hours summed over the jobs, beside the log's runtimes of the same "
             "jobs (a gap above 1 % is flagged: the clock or the limits changed runtimes). "
             "Wait: hours summed over the jobs. The paper's Default cell beside each.", "",
             "| log | sizes | limits | exec h | log runtimes h | gap | paper exec h | "
             "wait h | paper wait h | wait / paper | wall min | run |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for log in d.logs:
        pe = d.paper_value("exec_hours", log, d.patterns[0], d.baseline)
        pw = d.paper_value("wait_hours", log, d.patterns[0], d.baseline)
        for sizes in d.size_readings:
            for limits in d.limit_readings:
                r = _baseline(d, runs, log, sizes, limits)
                e = r.metrics.get("exec_hours") if r else None
                w = r.metrics.get("wait_hours") if r else None
                lr = r.log_runtime_hours if r else None
                wm = wall_minutes(r.manifest) if r else None
                t.md.append(f"| {log} | {sizes} | {limits} | {fmt(e)} | {fmt(lr)} | "
                            f"{gap_text(e, lr)} | {fmt(pe, 0)} | {fmt(w)} | {fmt(pw, 0)} | "
                            f"{fmt(w / pw, 2) + 'x' if w is not None and pw else '-'} | "
                            f"{fmt(wm, 0)} | {r.run_id if r else 'not run'} |")
                for m, ours, paper in (("exec_hours", e, pe), ("wait_hours", w, pw)):
                    t.csv_rows.append(["baseline", log, sizes, limits, "taken",
                                       d.patterns[0], d.baseline, m,
                                       "" if ours is None else f"{ours:.3f}",
                                       "" if paper is None else f"{paper:g}",
                                       "" if lr is None else f"{lr:.3f}",
                                       r.run_id if r else "",
                                       "" if wm is None else f"{wm:.1f}"])
    t.md += ["", "Same-state choice in the baselines' runs: for each communication-"
             "intensive job, what each policy would have cost on the state the baseline "
             f"met (Cost_policy / Cost_{d.baseline}); < 1: the policy had a cheaper "
             "placement than the baseline's.", "",
             "| log | sizes | limits | ratio of | jobs | < 1 | = 1 | > 1 | mean |",
             "|---|---|---|---|---|---|---|---|---|"]
    for log in d.logs:
        for sizes in d.size_readings:
            for limits in d.limit_readings:
                r = _baseline(d, runs, log, sizes, limits)
                for policy in d.policies:
                    if r and policy != d.baseline:
                        t.md.append(f"| {log} | {sizes} | {limits} | {policy} | " + " | ".join(
                            ratio_cells(ratios(r, policy, d.baseline))) + " |")
    t.md.append("")
    for log in d.logs:
        c = closest(d, runs, log)
        t.md.append(f"- {log}: closest to the paper's baseline wait: " +
                    (f"sizes {c[1]}, limits {c[2]} (a factor {math.exp(c[0]):.2f} away)"
                     if c else "no baseline run"))
    t.md.append("")
    readings = table3_list(d)
    if not readings:
        t.md += ["No Table 3 readings run (table3_readings = none; "
                 "TABLE3_READINGS='authors/none/authors logged/ours/taken' runs them).", ""]
    for text in readings:
        sizes, limits, ranks, only = parse_reading(text)
        logs = [lg for lg in d.logs if not only or lg == only]
        if not logs:
            continue
        t.md += [f"## Table 3 under sizes {sizes}, limits {limits}, ranks {ranks}"
                 + (f" ({only})" if only else ""), "",
                 "| log | pattern | policy | exec h | vs base | paper | vs base | "
                 "wait h | vs base | paper | vs base |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
        orders = []
        for log in logs:
            base = _baseline(d, runs, log, sizes, limits)
            for pattern in d.patterns:
                vals = {"exec_hours": {}, "wait_hours": {}}
                pvals = {"exec_hours": {}, "wait_hours": {}}
                for policy in d.policies:
                    r = base if policy == d.baseline else runs.get(
                        (log, sizes, limits, ranks, pattern, policy))
                    cells = []
                    for m in ("exec_hours", "wait_hours"):
                        ours = r.metrics.get(m) if r else None
                        b = base.metrics.get(m) if base else None
                        p = d.paper_value(m, log, pattern, policy)
                        pb = d.paper_value(m, log, pattern, d.baseline)
                        vals[m][policy], pvals[m][policy] = ours, p
                        oc, pc = change(ours, b), change(p, pb)
                        cells += [fmt(ours), "-" if oc is None else f"{oc:+.1f}%",
                                  fmt(p, 0), "-" if pc is None else f"{pc:+.1f}%"]
                        t.csv_rows.append(["table3", log, sizes, limits, ranks, pattern,
                                           policy, m, "" if ours is None else f"{ours:.3f}",
                                           "" if p is None else f"{p:g}", "",
                                           r.run_id if r else "", ""])
                    t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                                + " | ".join(cells) + " |")
                for m in ("exec_hours", "wait_hours"):
                    orders.append((log, pattern, m, ordering(vals[m], 1),
                                   ordering(pvals[m], 0)))
        t.md += ["", "Order, lowest first:", "",
                 "| log | pattern | metric | ours | paper | agrees |", "|---|---|---|---|---|---|"]
        for log, pattern, m, o, p in orders:
            agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
            t.md.append(f"| {log} | {pattern} | {m} | {o or '-'} | {p or '-'} | {agrees} |")
        t.md += ["", "Same-state cost ratios (Cost_policy / Cost_" + d.baseline +
                 ", Eq. 7) of the communication-intensive jobs: in each policy's own run, "
                 "the ratio the job ran with; in the baseline's run, what each policy "
                 "would have chosen on the baseline's states. A ratio of 1: no choice "
                 "(or the same cost).", "",
                 "| log | pattern | run | ratio of | jobs | < 1 | = 1 | > 1 | mean |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for log in logs:
            base = _baseline(d, runs, log, sizes, limits)
            for policy in d.policies:
                if policy == d.baseline or not base:
                    continue
                t.md.append(f"| {log} | {base.pattern} | {d.baseline} | {policy} | "
                            + " | ".join(ratio_cells(ratios(base, policy, d.baseline))) + " |")
            for pattern in d.patterns:
                for policy in d.policies:
                    r = runs.get((log, sizes, limits, ranks, pattern, policy))
                    if policy == d.baseline or not r:
                        continue
                    t.md.append(f"| {log} | {pattern} | {policy} | {policy} | "
                                + " | ".join(ratio_cells(ratios(r, policy))) + " |")
        t.md.append("")
    walls = [wall_minutes(r.manifest) for r in runs.values()]
    walls = [w for w in walls if w is not None]
    if walls:
        t.md += [f"Wall time of the replays: {len(walls)} runs, {sum(walls):.0f} min in all "
                 f"(longest {max(walls):.0f} min); the experiment's own elapsed time, with "
                 "runs side by side, is printed by make experiment.", ""]


def header_readings(d, runs):
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    return [f"Ours: {len(rs)} replays of {m['jobs']} jobs from job {m['first']} of each log, "
            f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
            f"Paper: {d.citation}. Times are log time.", ""]


KIND = Kind("readings", table_readings, validate=validate_readings, plan=plan_readings,
            run_key=readings_key, header=header_readings,
            lists={"size_readings": list(SIZES), "limit_readings": list(LIMITS),
                   "table3_readings": ["none"]},
            uses_metrics=True)
