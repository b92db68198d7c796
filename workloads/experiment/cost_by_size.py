"""Kind cost-by-size (the ICPP-W paper's Figure 8): mean communication cost
per job-size range, each policy's on the same cluster state; and §6.4's
reductions under each aggregation the paper's text leaves open.

§6.4 gives "an average reduction of about 3.4% using greedy allocation"
and per log "a reduction of 5.56% ... across all algorithms", without
saying over which jobs, on which cluster state, or how the jobs are
averaged (docs/readings.md). Three word lists of the kind's own name
each choice; the first word of each is the form of the by-size table, and
the reductions table and reductions.csv give every combination:

  cost_state = same | own
      same (the default): each policy's Eq. 6 cost of its own choice on
      the state the baseline's run met (the record's cost_<policy>); one
      baseline run per log x pattern.
      own: each policy's cost in its own run (the record's cost), as the
      authors' code records it (gaganmangat/slurm_changes calc_hops.c
      hop(), called at each job's start in every run); every policy then
      runs per log x pattern, the jobs matched by their log job id.
  cost_jobs = comm | all
      comm (the default): the communication-intensive jobs; all: every
      job with a cost (hop() writes the compute-intensive ones too).
  aggregate = total | job-mean | range-mean
      total (the default): % less summed cost than the baseline's;
      job-mean: the mean over the jobs of each job's % less cost (a job
      whose baseline cost is 0 has no %, and is left out);
      range-mean: the mean over size_bins of each range's % less summed
      cost (a range without jobs, or with a baseline total of 0, is left
      out), every range weighing the same, as bars of a figure would.

"All policies" is the mean of the three policies' reductions, "all logs"
the mean of the logs', under every form.
"""

import math

from .errors import ExperimentError
from .kind import Kind, no_cost_plot
from .tables import bin_of, change, fmt, run_for

STATES = ("same", "own")
JOBS = ("comm", "all")
AGGREGATES = ("total", "job-mean", "range-mean")


def validate_cost_by_size(d, where):
    for key, valid in (("cost_state", STATES), ("cost_jobs", JOBS), ("aggregate", AGGREGATES)):
        words = getattr(d, key)
        if not words or any(w not in valid for w in words) or len(set(words)) < len(words):
            raise ExperimentError(f"{where}{key} '{' '.join(words)}': expected some of "
                                  f"{' '.join(valid)}, each once")
    if "range-mean" in d.aggregate and not d.size_bins:
        raise ExperimentError(f"{where}aggregate range-mean needs size_bins")


def plan_cost_by_size(d):
    """The baseline per log x pattern; every policy too when a form
    reads each policy's own run (cost_state own)."""
    policies = d.policies if "own" in d.cost_state else [d.baseline]
    return [{"log": log, "cluster": d.cluster_of(log), "pattern": pattern,
             "policy": policy, "params": d.params_of(log)}
            for log in d.logs for pattern in d.patterns for policy in policies]


def _has(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def job_costs(d, runs, log, pattern, state):
    """[{nodes, comm, costs: {policy: Eq. 6 cost}}] of the jobs every
    policy has a cost for, under the state given; None when a run it
    needs is missing."""
    base = run_for(d, runs, log, pattern, d.baseline)
    if base is None:
        return None
    if state == "same":
        return [{"nodes": x["nodes"], "comm": x["comm"],
                 "costs": {p: x["costs"][p] for p in d.policies}}
                for x in base.rows if all(_has(x["costs"].get(p)) for p in d.policies)]
    own = {}
    for p in d.policies:
        r = runs.get((log, pattern, p))
        if r is None:
            return None
        own[p] = {x["log_job_id"]: x["cost"] for x in r.rows}
    return [{"nodes": x["nodes"], "comm": x["comm"],
             "costs": {p: own[p][x["log_job_id"]] for p in d.policies}}
            for x in base.rows
            if all(_has(own[p].get(x["log_job_id"])) for p in d.policies)]


def reduction(jobs, policy, baseline, aggregate, bins):
    """% less cost of policy than baseline over these jobs, aggregated as
    named (module docstring); None when nothing is defined."""
    def total(sel):
        b = sum(x["costs"][baseline] for x in sel)
        ch = change(sum(x["costs"][policy] for x in sel), b) if sel else None
        return None if ch is None else -ch
    if aggregate == "total":
        return total(jobs)
    if aggregate == "job-mean":
        vals = [100 * (x["costs"][baseline] - x["costs"][policy]) / x["costs"][baseline]
                for x in jobs if x["costs"][baseline] > 0]
    else:
        vals = [total([x for x in jobs if bin_of(x["nodes"], bins) == b]) for b in bins]
        vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def forms(d):
    return [(s, j, a) for s in d.cost_state for j in d.cost_jobs for a in d.aggregate]


def form_label(form):
    return "/".join(form)


def table_cost_by_size(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    state, jobs_word = d.cost_state[0], d.cost_jobs[0]
    t.csv_header = ["log", "pattern", "size_range", "jobs"] + \
        [x for p in d.policies for x in (f"mean_cost_{p}", f"change_pct_{p}")] + ["run_id"]
    t.md += [f"Mean communication cost (Eq. 6) of the "
             f"{'communication-intensive jobs' if jobs_word == 'comm' else 'jobs'} of each "
             "size range (nodes), "
             + ("each policy's cost on the same cluster state" if state == "same"
                else "each policy's cost in its own run")
             + f"; in brackets the % change of the total against `{d.baseline}`.", "",
             "| log | pattern | nodes | jobs | " + " | ".join(d.policies) + " |",
             "|---|---|---|---|" + "---|" * len(d.policies)]
    reductions = {}          # (form, log, pattern) -> {policy: % less cost}
    counts = {}              # (form, log, pattern) -> jobs counted
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            by_state = {s: job_costs(d, runs, log, pattern, s) for s in d.cost_state}
            if by_state[state] is None:
                t.md.append(f"| {log} | {pattern} | (not run) | | " + " | " * len(d.policies))
            for form in forms(d):
                s, j, a = form
                jobs = by_state[s]
                if jobs is None:
                    continue
                sel = [x for x in jobs if x["comm"] or j == "all"]
                reductions[(form, log, pattern)] = {
                    p: reduction(sel, p, d.baseline, a, d.size_bins) for p in others}
                counts[(form, log, pattern)] = len(sel)
            if by_state[state] is None:
                continue
            jobs = [x for x in by_state[state] if x["comm"] or jobs_word == "all"]
            groups = [(b, [x for x in jobs if bin_of(x["nodes"], d.size_bins) == b])
                      for b in d.size_bins] + [("all", jobs)]
            for b, sel in groups:
                if not sel and b != "all":
                    continue
                tot = {p: sum(x["costs"][p] for x in sel) for p in d.policies}
                cells, csv_cells = [], []
                for p in d.policies:
                    mean = tot[p] / len(sel) if sel else None
                    ch = change(tot[p], tot[d.baseline]) if sel else None
                    cells.append(fmt(mean) + ("" if p == d.baseline or ch is None
                                              else f" ({fmt(ch, 1, True)}%)"))
                    csv_cells += ["" if mean is None else f"{mean:.6g}",
                                  "" if ch is None else f"{ch:.3f}"]
                label = f"**{b}**" if b == "all" else b
                t.md.append(f"| {log} | {pattern} | {label} | {len(sel)} | " + " | ".join(cells) + " |")
                t.csv_rows.append([log, pattern, b, len(sel)] + csv_cells + [r.run_id])
    paper_table(d, reductions, t)
    t.more_csv["reductions.csv"] = (
        ["log", "pattern", "policy", "cost_state", "cost_jobs", "aggregate", "jobs",
         "reduction_pct"],
        [[log, pattern, p, *form, counts[(form, log, pattern)],
          "" if v is None else f"{v:.3f}"]
         for (form, log, pattern), red in sorted(reductions.items()) for p, v in red.items()])


def ours_for(d, reductions, form, log, pattern, policy):
    """Our number beside one of the paper's: '*' logs the mean of the
    logs' reductions, '*' policies the mean of the policies'."""
    if log == "*":
        vals = [reductions[(form, lg, pattern)][policy] for lg in d.logs
                if (form, lg, pattern) in reductions
                and reductions[(form, lg, pattern)].get(policy) is not None]
        return sum(vals) / len(vals) if vals and len(vals) == len(d.logs) else None
    red = reductions.get((form, log, pattern))
    if red and policy == "*":
        vals = [v for v in red.values() if v is not None]
        return sum(vals) / len(vals) if vals else None
    return red.get(policy) if red else None


def paper_table(d, reductions, t):
    fs = forms(d)
    many = len(fs) > 1
    t.md += ["", "The paper's numbers (text of §6.4; the figure is missing from our copy): "
             "% less communication cost than the baseline. \"All policies\" is the paper's "
             "\"across all algorithms\", read here as the mean of the three policies' "
             + ("reductions." if many else "reductions of the total.")]
    if many:
        t.md += ["", "Ours under each form <cost_state>/<cost_jobs>/<aggregate> "
                 "(workloads/experiment/cost_by_size.py, docs/readings.md): same: each "
                 "policy's cost on the baseline's state; own: in its own run; comm: the "
                 "communication-intensive jobs; all: every job; total: % less summed cost; "
                 "job-mean: the mean of the jobs' % less; range-mean: the mean of the size "
                 "ranges' % less summed cost."]
    head = " | ".join(form_label(f) for f in fs) if many else "ours"
    t.md += ["", f"| log | pattern | policy | {head} | paper |",
             "|---|---|---|" + "---|" * len(fs) + "---|"]
    for (metric, log, pattern, policy), pv in sorted(d.paper.items()):
        if metric != "cost_reduction_pct":
            continue
        vals = [ours_for(d, reductions, f, log, pattern, policy) for f in fs]
        shown_log = "mean of " + ", ".join(d.logs) if log == "*" else log
        cells = " | ".join(fmt(v, 2) + ("" if v is not None or many else " (not run)")
                           for v in vals)
        t.md.append(f"| {shown_log} | {pattern} | "
                    f"{'all policies' if policy == '*' else policy} | {cells} | {pv:g} |")
    t.md.append("")


KIND = Kind("cost-by-size", table_cost_by_size, validate=validate_cost_by_size,
            plan=plan_cost_by_size, plots=no_cost_plot, runs_every_policy=False,
            lists={"cost_state": ["same"], "cost_jobs": ["comm"], "aggregate": ["total"]})
