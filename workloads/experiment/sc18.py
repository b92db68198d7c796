"""Kind sc18 (the SC18 paper's QoS study): loads and TA speed-up setups,
the paper's per-minute utilization, makespan and waits by size against
TO, beside the paper's figures.

A definition of kind sc18 runs, per log, each load level
(`loads`: job sizes multiplied by it, i.e. SCALE divided by it) under the
baseline (TO) once and under the other policy (TA) once per entry of
`ta_speedups` (none, or a TA_SPEEDUP scenario). Its paper figures are
paper.<metric>.<workload>.<load>.<setup> = <number as printed>, with
  metric   wait_mean_h|_min, wait_<from>-<to>_h|_min (one of size_bins),
           wait_increase_h|_min (setup minus TO), utilization_drop_pct
           (TO minus setup, % of TO), makespan_increase_pct (% of TO);
  workload the paper's name (aug, sept, ...), '@<machine>' when it is not
           the definition's cluster (aug@pinot);
  load     the paper's size multiplier (1, 2, 3);
  setup    TO, TA, TA-5, TA-10, TA-20, TA-V1, TA-V2.
"""

import math
import re
import statistics

from metrics.jobs import fnum
from metrics.run_dir import csv_cell
from workloads import ta_speedup
from workloads.logs import STUDY_SIZE_DIVISOR
from .errors import check_names, ExperimentError
from .kind import Kind
from .tables import bin_of, fmt, num4, pace_text


# sc18: the TA runs' speed-up scenarios (workloads/ta_speedup.py), and the
# paper's names of the setups (Sec. V-C: TO, TA, TA 5 %, ..., TA V1, TA V2).
TA_SCENARIOS = ("none",) + ta_speedup.SCENARIOS
SC18_METRIC = re.compile(r"(wait_mean|wait_increase|wait_(\d+)-(\d+))_(h|min)"
                         r"|utilization_drop_pct|makespan_increase_pct")


def setup_name(scenario):
    """The paper's name of a TA run's setup: TA, TA-5, ..., TA-V1, TA-V2."""
    return "TA" if scenario in (None, "", "none") else "TA-" + scenario.upper()


SETUPS = ("TO",) + tuple(setup_name(s) for s in TA_SCENARIOS)


def validate_sc18(d, where):
    others = [p for p in d.policies if p != d.baseline]
    if len(d.policies) != 2 or len(others) != 1:
        raise ExperimentError(f"{where}kind sc18 compares two policies, the baseline (TO) "
                              f"and one other (TA); got '{' '.join(d.policies)}'")
    if len(d.patterns) != 1:
        raise ExperimentError(f"{where}kind sc18 takes one pattern; got '{' '.join(d.patterns)}'")
    if not d.loads:
        raise ExperimentError(f"{where}loads '': expected job-size multipliers, e.g. 1 2 3")
    seen = set()
    for load in d.loads:
        try:
            v = float(load)
        except ValueError:
            v = float("nan")
        if not (math.isfinite(v) and v > 0):
            raise ExperimentError(f"{where}loads '{' '.join(d.loads)}': '{load}' is not a "
                                  "number above 0")
        if v in seen:
            raise ExperimentError(f"{where}loads '{' '.join(d.loads)}': {load} twice")
        seen.add(v)
    check_names("ta_speedups", d.ta_speedups, TA_SCENARIOS, where)
    if len(set(d.ta_speedups)) != len(d.ta_speedups):
        raise ExperimentError(f"{where}ta_speedups '{' '.join(d.ta_speedups)}': a scenario twice")
    for key in d.paper:
        metric, workload, load, setup = key
        name = "paper." + ".".join(key)
        m = SC18_METRIC.fullmatch(metric)
        if not m:
            raise ExperimentError(f"{where}{name}: unknown metric '{metric}'; expected "
                                  "wait_mean_h|_min, wait_<from>-<to>_h|_min, "
                                  "wait_increase_h|_min, utilization_drop_pct or "
                                  "makespan_increase_pct")
        if m.group(2) and f"{m.group(2)}-{m.group(3)}" not in d.size_bins:
            raise ExperimentError(f"{where}{name}: the size range {m.group(2)}-{m.group(3)} "
                                  f"is not among size_bins '{' '.join(d.size_bins)}'")
        if not re.fullmatch(r"[a-z0-9-]+(@[a-z0-9-]+)?", workload):
            raise ExperimentError(f"{where}{name}: workload '{workload}': expected "
                                  "<name> or <name>@<machine> (lowercase)")
        try:
            ok = float(load) > 0
        except ValueError:
            ok = False
        if not ok:
            raise ExperimentError(f"{where}{name}: load '{load}': expected the paper's "
                                  "size multiplier, a number above 0")
        if setup not in SETUPS:
            raise ExperimentError(f"{where}{name}: setup '{setup}': expected one of "
                                  f"{' '.join(SETUPS)}")
        if setup == "TO" and metric_type(metric) != "absolute":
            raise ExperimentError(f"{where}{name}: {metric} compares a TA setup with TO; "
                                  "TO has none")


def metric_type(metric):
    """absolute (a value per setup), change (% of TO's) or difference
    (setup minus TO)."""
    if metric in ("utilization_drop_pct", "makespan_increase_pct"):
        return "change"
    if metric.startswith("wait_increase_"):
        return "difference"
    return "absolute"


def base_scale(d, log):
    """The log's SCALE at load 1: the definition's, else the replay's default."""
    v = d.params_of(log).get("SCALE")
    return float(v) if v is not None and float(v) > 0 else float(STUDY_SIZE_DIVISOR.get(log, 1))


def ta_policy(d):
    return next(p for p in d.policies if p != d.baseline)


def plan_sc18(d):
    """Per log x load one replay under the baseline (TO) and one under the
    other policy per TA speed-up scenario, with SCALE = the log's / load."""
    runs = []
    for log in d.logs:
        base = base_scale(d, log)
        for load in d.loads:
            params = dict(d.params_of(log))
            # repr: the shortest text that reads back as the same float.
            params["SCALE"] = repr(base / float(load))
            runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": d.patterns[0],
                         "policy": d.baseline, "params": params})
            for scenario in d.ta_speedups:
                p = dict(params)
                if scenario != "none":
                    p["TA_SPEEDUP"] = scenario
                runs.append({"log": log, "cluster": d.cluster_of(log),
                             "pattern": d.patterns[0], "policy": ta_policy(d), "params": p})
    return runs


def sc18_key(d, r):
    """(log, load, setup) of a run: the load from its size divisor (the
    log's SCALE over the run's), the setup from its policy and TA_SPEEDUP."""
    if r.log not in d.logs:
        raise ExperimentError(f"{r.dir}: log '{r.log}' is not among the definition's "
                              f"logs '{' '.join(d.logs)}'")
    divisor = fnum(r.manifest.get("size_divisor"))
    if not divisor > 0:
        raise ExperimentError(f"{r.dir}: manifest.json has no size_divisor (SCALE); "
                              "its load is unknown")
    if r.policy not in d.policies:
        raise ExperimentError(f"{r.dir}: policy '{r.policy}' is not among the definition's "
                              f"policies '{' '.join(d.policies)}'")
    base = base_scale(d, r.log)
    load = base / divisor
    found = [lv for lv in d.loads if abs(load - float(lv)) <= 1e-6 * float(lv)]
    if not found:
        raise ExperimentError(f"{r.dir}: SCALE={divisor:g} is no load of the definition "
                              f"(SCALE {base:g} for {r.log} divided by loads "
                              f"{' '.join(d.loads)})")
    setup = "TO" if r.policy == d.baseline else setup_name(r.manifest.get("ta_speedup"))
    return (r.log, found[0], setup)


SC18_UNITS = {"h": (1.0, "h", 2), "min": (60.0, "min", 1)}


def utilization_samples(rows, nodes, step=60.0):
    """The SC18 paper's Eq. 2, utilization_t = N_t / N, "recorded every
    minute of simulation time": N_t the nodes of the jobs running at t
    (start <= t < end), t every `step` log seconds from the first
    submission to the last job's end."""
    if not rows or not nodes:
        return []
    first = min(r["eligible"] for r in rows)
    last = max(r["end"] for r in rows)
    starts = sorted((r["start"], r["nodes"]) for r in rows)
    ends = sorted((r["end"], r["nodes"]) for r in rows)
    out, busy, i, j, k = [], 0, 0, 0, 0
    while first + k * step < last:
        t = first + k * step
        while i < len(starts) and starts[i][0] <= t:
            busy += starts[i][1]
            i += 1
        while j < len(ends) and ends[j][0] <= t:
            busy -= ends[j][1]
            j += 1
        out.append(busy / nodes)
        k += 1
    return out


def sc18_stats(r, bins):
    """One run's QoS figures: the paper's utilization samples (median and
    mean), report.py's utilization, makespan, mean wait overall and per
    size range, and the offered load (node-time of the jobs over the nodes
    times the span of their submissions)."""
    rows, n = r.rows, r.manifest["cluster_nodes"]
    samples = utilization_samples(rows, n)
    nan = float("nan")
    st = {"jobs": len(rows),
          "util_median": statistics.median(samples) if samples else nan,
          "util_mean": statistics.fmean(samples) if samples else nan,
          "util_report": r.metrics["utilization"],
          "makespan_h": r.metrics["makespan_s"] / 3600,
          "wait_mean_h": r.metrics["wait_mean_s"] / 3600}
    span = (max(x["eligible"] for x in rows) - min(x["eligible"] for x in rows)) if rows else 0
    st["offered_load"] = (sum(x["nodes"] * x["run_s"] for x in rows) / (n * span)
                          if span > 0 and n else nan)
    for b in bins:
        sel = [x["wait_s"] for x in rows if bin_of(x["nodes"], bins) == b]
        st[f"jobs_{b}"] = len(sel)
        st[f"wait_{b}_h"] = statistics.fmean(sel) / 3600 if sel else nan
    return st


def sc18_quantity(metric):
    """(the stats key a paper metric is about, unit factor from the stats'
    unit, unit label, digits shown)."""
    if metric == "utilization_drop_pct":
        return "util_median", 1.0, "", 3
    if metric == "makespan_increase_pct":
        return "makespan_h", 1.0, "h", 1
    m = SC18_METRIC.fullmatch(metric)
    factor, unit, digits = SC18_UNITS[m.group(4)]
    key = f"wait_{m.group(2)}-{m.group(3)}_h" if m.group(2) else "wait_mean_h"
    return key, factor, unit, digits


def direction(ratio=None, diff=None, digits=2):
    """up, down or = (equal at the precision shown) of a ratio to 1 (two
    decimals) or of a difference to 0; None when it is unknown."""
    if diff is None and ratio is None:
        return None
    v, centre, digits = (ratio, 1, 2) if diff is None else (diff, 0, digits)
    if math.isnan(v):
        return None
    v = round(v, digits)
    return "=" if v == centre else ("up" if v > centre else "down")


def workload_label(d, workload, load):
    """The paper's name of a workload: Aug-2x on Cab, Sept on Cab, ..."""
    name, _, machine = workload.partition("@")
    machine = machine or d.cluster_of(d.logs[0])
    lv = float(load)
    mult = "" if lv == 1 else f"-{lv:g}x"
    return f"{name.capitalize()}{mult} on {machine.capitalize()}", machine


def ratio_of(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or b == 0:
        return float("nan")
    return a / b


def common_waits(a, b):
    """(n, mean wait in a, mean wait in b) over the log jobs both runs
    counted; NaN means when there are none."""
    wa = {r["log_job_id"]: r["wait_s"] for r in a.rows}
    wb = {r["log_job_id"]: r["wait_s"] for r in b.rows}
    both = [k for k in wa if k in wb]
    if not both:
        return 0, float("nan"), float("nan")
    return (len(both), sum(wa[k] for k in both) / len(both),
            sum(wb[k] for k in both) / len(both))


def table_sc18(d, runs, t):
    bins = d.size_bins
    order = {s: i for i, s in enumerate(SETUPS)}
    setups = ["TO"] + [setup_name(s) for s in d.ta_speedups]
    stats = {k: sc18_stats(r, bins) for k, r in runs.items()}
    t.md += ["Utilization is the paper's Eq. 2, N_t / N sampled every minute of log time "
             "from the first submission to the last job's end; the paper shows the samples' "
             "distribution (box plots, Fig. 8), so the comparisons use their median, the box's "
             "centre line. report.py's `utilization` (node-time of the jobs over nodes x "
             "makespan) is the samples' mean in the limit of short steps, not their median: "
             "both are given. Makespan (first submission to last end) and wait (start minus "
             "submission) are the paper's and report.py's definitions.", ""]

    # Ours, per run.
    bin_cols = [f"wait {b} (h; jobs)" for b in bins]
    t.md += ["## Ours: per log, load and setup", "",
             "Load: job sizes multiplied by it (SCALE divided by it). Offered load: the "
             "jobs' node-time over the nodes times the span of their submissions.", "",
             "| log | load | setup | jobs | offered load | utilization median | mean | "
             "report.py | makespan (h) | mean wait (h) | " + " | ".join(bin_cols) + " |",
             "|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(bins)]
    runs_header = ["log", "load", "setup", "policy", "ta_speedup", "size_divisor", "jobs",
                   "skipped_too_big", "offered_load", "util_median", "util_mean",
                   "util_report", "makespan_h", "wait_mean_h"] + \
        [x for b in bins for x in (f"wait_{b}_h", f"jobs_{b}")] + ["run_id"]
    runs_rows = []
    for log in d.logs:
        for load in d.loads:
            for setup in setups:
                k = (log, load, setup)
                r, st = runs.get(k), stats.get(k)
                if r is None:
                    t.md.append(f"| {log} | x{load} | {setup} (not run) |"
                                + " - |" * (7 + len(bins)))
                    continue
                cells = [str(st["jobs"]), fmt(st["offered_load"], 2), fmt(st["util_median"], 3),
                         fmt(st["util_mean"], 3), fmt(st["util_report"], 3),
                         fmt(st["makespan_h"], 1), fmt(st["wait_mean_h"], 2)]
                cells += [f"{fmt(st[f'wait_{b}_h'], 2)}; {st[f'jobs_{b}']}" for b in bins]
                t.md.append(f"| {log} | x{load} | {setup} | " + " | ".join(cells) + " |")
                runs_rows.append([log, load, setup, r.policy, r.manifest.get("ta_speedup") or "",
                                  f"{fnum(r.manifest.get('size_divisor')):g}", st["jobs"],
                                  r.manifest.get("skipped_too_big", 0)]
                                 + [csv_cell(st[c]) for c in runs_header[8:14]]
                                 + [csv_cell(st[c]) if c.startswith("wait") else st[c]
                                    for b in bins for c in (f"wait_{b}_h", f"jobs_{b}")]
                                 + [r.run_id])
    t.more_csv["table-runs.csv"] = (runs_header, runs_rows)

    # Backfill against the reserved job (the item 2): the plugin
    # cannot tell backfill which leaves the first blocked job needs.
    res = [(k, r.metrics) for k, r in sorted(runs.items()) if "reservations" in r.metrics]
    if res:
        t.md += ["", "## Backfill against the reserved job", "",
                 "Per run: jobs that were Slurm's reserved job (the first blocked on "
                 "resources, sampled once a wall second), and those that started later "
                 "than first planned (beyond the sampling's resolution) while a job later "
                 "in the log started before them: an upper bound on the reservations "
                 "backfill delayed (README, Experiments).", "",
                 "| log | load | setup | reserved jobs | delayed | mean delay (h) |",
                 "|---|---|---|---|---|---|"]
        for (log, load, setup), m in res:
            t.md.append(f"| {log} | x{load} | {setup} | {m['reservations']} | "
                        f"{m['reservation_delays']} | "
                        f"{fmt(m['reservation_delay_mean_s'] / 3600, 2)} |")

    # Ours, against TO.
    # Jobs left out of one run (a fault, a late launch) and not the other
    # make the two runs' job sets differ: the mean wait over the jobs both
    # counted is given beside the one over each run's own.
    t.md += ["", "## Ours against TO: each setup's figure / TO's (same log and load)", "",
             "Mean wait (both): over the log jobs both runs counted (jobs in both); it "
             "differs from the mean wait column when a run left jobs out (faults, late "
             "launches).", "",
             "| log | load | setup | utilization median | makespan | mean wait | "
             + " | ".join(f"wait {b}" for b in bins) + " | jobs in both | mean wait (both) |",
             "|---|---|---|---|---|---|" + "---|" * len(bins) + "---|---|"]
    for log in d.logs:
        for load in d.loads:
            to = stats.get((log, load, "TO"))
            for setup in setups[1:]:
                st = stats.get((log, load, setup))
                if st is None or to is None:
                    continue
                cols = ["util_median", "makespan_h", "wait_mean_h"] + [f"wait_{b}_h" for b in bins]
                n, w_to, w_setup = common_waits(runs[(log, load, "TO")], runs[(log, load, setup)])
                t.md.append(f"| {log} | x{load} | {setup} | "
                            + " | ".join(fmt(ratio_of(st[c], to[c]), 2) for c in cols)
                            + f" | {n} | {fmt(ratio_of(w_setup, w_to), 2)} |")

    # The paper's figures beside ours.
    t.csv_header = ["load", "workload", "machine", "metric", "setup", "paper_to", "paper_setup",
                    "paper_ratio", "paper_direction", "log", "unit", "ours_to", "ours_setup",
                    "ours_ratio", "ours_direction", "agrees", "run_to", "run_setup"]
    t.md += ["", "## The paper's figures beside ours", "",
             "Setup / TO on each side (ratio); for a figure printed as a change or a "
             "difference, the ratio it implies. Direction: up, down or = (equal at the "
             "precision shown). The paper's workloads are not ours (its Cab logs are not "
             "public): compare directions and ratios, not values.", "",
             "| load | paper's workload | metric | setup | paper TO | paper setup | paper ratio "
             "| log | ours TO | ours setup | ours ratio | direction (paper, ours) | agrees |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    home = d.cluster_of(d.logs[0])
    keys = [k for k in d.paper if k[3] != "TO"]
    first_seen = {}
    for k in d.paper:
        first_seen.setdefault(k[1], len(first_seen))
    # A metric in minutes and in hours is one quantity (10 min beside 8 h).
    metric_seen = {}
    for k in d.paper:
        metric_seen.setdefault(metric_label(k[0]), len(metric_seen))
    keys.sort(key=lambda k: (float(k[2]), workload_label(d, k[1], k[2])[1] != home,
                             first_seen[k[1]], metric_seen[metric_label(k[0])], order[k[3]]))
    tally = {}               # (log, at home) -> [agree, compared]
    for key in keys:
        metric, workload, load, setup = key
        label, machine = workload_label(d, workload, load)
        mtype = metric_type(metric)
        qkey, factor, unit, digits = sc18_quantity(metric)
        text, v = d.paper_text[key], d.paper[key]
        p_to, p_to_cell = paper_to(d, key) if mtype == "absolute" else (None, "-")
        if mtype == "absolute":
            p_set_cell = f"{text} {unit}".strip()
            p_ratio = ratio_of(v, p_to) if p_to is not None else float("nan")
            p_dir = direction(ratio=p_ratio)
        elif mtype == "change":
            drop = metric == "utilization_drop_pct"
            p_set_cell = f"{text} % drop" if drop else f"+{text} %"
            p_ratio = 1 - v / 100 if drop else 1 + v / 100
            p_dir = direction(ratio=p_ratio)
        else:
            p_set_cell = f"+{text} {unit}" if v > 0 else f"{text} {unit}"
            p_ratio = float("nan")
            p_dir = direction(diff=v, digits=digits)
        what = metric_label(metric)
        # Our runs at the paper's size multiplier.
        ours_load = next((lv for lv in d.loads if float(lv) == float(load)), None)
        for log in d.logs:
            r_to = runs.get((log, ours_load, "TO")) if ours_load else None
            r_set = runs.get((log, ours_load, setup)) if ours_load else None
            s_to = stats.get((log, ours_load, "TO")) if ours_load else None
            s_set = stats.get((log, ours_load, setup)) if ours_load else None
            o_to = s_to[qkey] * factor if s_to else None
            o_set = s_set[qkey] * factor if s_set else None
            o_ratio = ratio_of(o_set, o_to)
            if mtype == "difference":
                diff = o_set - o_to if o_to is not None and o_set is not None else None
                o_dir = direction(diff=diff, digits=digits)
                o_set_cell = (f"{fmt(o_set, digits)} ({fmt(diff, digits, True)})"
                              if diff is not None else "-")
            else:
                o_dir = direction(ratio=o_ratio)
                o_set_cell = fmt(o_set, digits)
            agrees = None if p_dir is None or o_dir is None else p_dir == o_dir
            missing = "" if r_to and r_set else " (not run)"
            t.md.append(f"| x{load} | {label} | {what} | {setup} | {p_to_cell} | {p_set_cell} "
                        f"| {fmt(p_ratio, 2)} | {log}{missing} | {fmt(o_to, digits)} "
                        f"| {o_set_cell} | {fmt(o_ratio, 2)} | {p_dir or '-'}, {o_dir or '-'} | "
                        f"{'-' if agrees is None else ('yes' if agrees else 'no')} |")
            t.csv_rows.append([load, label, machine, metric, setup,
                               "" if p_to is None else p_to_cell, p_set_cell,
                               "" if math.isnan(p_ratio) else f"{p_ratio:.3f}",
                               p_dir or "", log, unit or "fraction",
                               num4(o_to), num4(o_set),
                               "" if math.isnan(o_ratio) else f"{o_ratio:.3f}",
                               o_dir or "", "" if agrees is None else ("yes" if agrees else "no"),
                               r_to.run_id if r_to else "", r_set.run_id if r_set else ""])
            if agrees is not None:
                tl = tally.setdefault((log, machine == home), [0, 0])
                tl[0] += agrees
                tl[1] += 1
    t.md += [""]
    for log in d.logs:
        parts = []
        for at_home, where in ((True, f"on {home.capitalize()}"), (False, "on other machines")):
            a, n = tally.get((log, at_home), (0, 0))
            if n:
                parts.append(f"{a} of {n} {where}")
        t.md.append(f"- {log}: the direction agrees in " + ("; ".join(parts) or "no comparison")
                    + ".")
    t.md.append("")


def paper_to(d, key):
    """The paper's TO figure for an absolute metric, in the unit of `key`'s
    metric, and as printed (its own unit: 10 min beside a TA figure in h)."""
    metric, workload, load, _ = key
    m = SC18_METRIC.fullmatch(metric)
    stem, unit = metric[:-len(m.group(4)) - 1], m.group(4)
    for u in (unit,) + tuple(x for x in SC18_UNITS if x != unit):
        k = (f"{stem}_{u}", workload, load, "TO")
        if k in d.paper:
            v = d.paper[k] / SC18_UNITS[u][0] * SC18_UNITS[unit][0]
            return v, f"{d.paper_text[k]} {SC18_UNITS[u][1]}"
    return None, "-"


def metric_label(metric):
    if metric == "utilization_drop_pct":
        return "utilization (median)"
    if metric == "makespan_increase_pct":
        return "makespan"
    m = SC18_METRIC.fullmatch(metric)
    if m.group(2):
        return f"mean wait, {m.group(2)}-{m.group(3)} nodes"
    return "mean wait, increase" if m.group(1) == "wait_increase" else "mean wait"


def header_sc18(d, runs):
    """The runs, each log's window and its SCALE at load 1, the pace."""
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    windows = []
    for log in d.logs:
        r = next((x for x in rs if x.log == log), None)
        if r:
            mm = r.manifest
            n = mm["jobs"] + mm.get("skipped_too_big", 0)
            windows.append(f"{log} (`{mm.get('log_file', log)}`, {n} jobs from job "
                           f"{mm['first']}, sizes / {base_scale(d, log):g} at load 1)")
    return [f"Ours: {len(rs)} replays on {m['cluster']} ({m['cluster_nodes']:,} nodes) of "
            + ", ".join(windows) + f"; {pace_text(m)}, seed {m['seed']}, "
            f"git {m.get('git_revision', '?')}. Paper: {d.citation}. Times are log time.", ""]


def skipped_sc18(d, runs):
    """The jobs larger than the cluster, per log and load."""
    skipped = sorted({(k[0], float(k[1]), k[1], r.manifest.get("skipped_too_big", 0))
                      for k, r in runs.items() if r.manifest.get("skipped_too_big")})
    return [f"- {n} job{'s' if n != 1 else ''} of the {lg} window larger than the cluster "
            f"skipped at load x{load}" for lg, _, load, n in skipped]


# Runs keyed (log, load, setup); one pattern (mix unless given).
KIND = Kind("sc18", table_sc18, validate=validate_sc18, plan=plan_sc18, run_key=sc18_key,
            header=header_sc18, skipped=skipped_sc18,
            lists={"loads": ["1"], "ta_speedups": ["none"]}, default_patterns=["mix"])
