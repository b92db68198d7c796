"""Kind treematch (the TreeMatch paper's Table 2, Figs. 5 and 6): each
strategy per communication ratio against SLURM, beside the paper's.

A definition of kind treematch runs, per log, each policy
once per communication ratio of `ratios` (fractions p/q, the run's RATIO),
the baseline (SLURM) once for all when OPTIONS holds denominator=default.
Its paper figures are paper.<metric>.<log>.<ratio>.<policy> with metric
makespan_s, utilization_pct, flowtime_gain_s or runtime_gain_s (Figs. 5
and 6: mean per-job difference, SLURM minus the policy).
"""

import math
import re
import statistics

from metrics.jobs import fnum
from metrics.run_dir import csv_cell
from .errors import ExperimentError, paper_key_name
from .kind import Kind
from .tables import change, fmt, num4, ordering, pace_text


# The TreeMatch paper's names of the strategies (Sec. 4.2, 4.3).
TM_NAMES = {"default": "SLURM", "tm-a": "TM-A", "tm-i": "TM-I", "tm-sub": "TM-Sub",
            "tm-sub3": "TM-Isub+3"}
# paper.<metric>.<log>.<ratio>.<policy>: Table 2's makespan (s) and
# utilization (%), and Figs. 5 and 6's mean per-job flow time and runtime
# differences with SLURM (s, SLURM minus the strategy: positive is faster).
TM_METRICS = {"makespan_s": ("makespan (s)", 0),
              "utilization_pct": ("utilization (%)", 1),
              "flowtime_gain_s": ("mean flow time gain on SLURM (s)", 2),
              "runtime_gain_s": ("mean runtime gain on SLURM (s)", 2)}


def ratio_value(label):
    """A communication ratio written as a fraction p/q (1/3, 1/2, 1/10)."""
    m = re.fullmatch(r"(\d+)/(\d+)", label)
    if not m or int(m.group(2)) == 0 or not 0 < int(m.group(1)) <= int(m.group(2)):
        return None
    return int(m.group(1)) / int(m.group(2))


def ratio_text(label):
    return f"{label} ({100 * ratio_value(label):.3g} %)"


def baseline_once(d):
    """The baseline keeps the log's runtimes whatever the ratio when Eq. 7's
    denominator is default itself (OPTIONS=denominator=default): one run
    stands for every ratio. Otherwise default's runtimes follow Eq. 7
    against default1905, which depends on the ratio: one run per ratio."""
    opts = d.params_of(d.logs[0]).get("OPTIONS", "")
    return "denominator=default" in opts.split(",")


def validate_treematch(d, where):
    if len(d.patterns) != 1:
        raise ExperimentError(f"{where}kind treematch takes one pattern; got "
                              f"'{' '.join(d.patterns)}'")
    if not d.ratios:
        raise ExperimentError(f"{where}ratios '': expected communication ratios as "
                              "fractions, e.g. 1/3 1/2")
    seen = set()
    for label in d.ratios:
        v = ratio_value(label)
        if v is None:
            raise ExperimentError(f"{where}ratios '{' '.join(d.ratios)}': '{label}' is not "
                                  "a fraction p/q above 0 and at most 1")
        if v in seen:
            raise ExperimentError(f"{where}ratios '{' '.join(d.ratios)}': {label} twice")
        seen.add(v)
    if any(k == "RATIO" for k, _ in d.params):
        raise ExperimentError(f"{where}RATIO is each run's own in kind treematch (ratios = "
                              f"{' '.join(d.ratios)}); RATIOS='...' narrows them")
    for key in d.paper:
        metric, _, ratio, policy = key
        name = paper_key_name(key, TM_METRICS, where, d.logs)
        if ratio_value(ratio) is None:
            raise ExperimentError(f"{where}{name}: ratio '{ratio}': expected a fraction p/q")
        if policy not in d.paper_policies():
            raise ExperimentError(f"{where}{name}: policy '{policy}' is not among the "
                                  f"policies '{' '.join(d.paper_policies())}'")
        if metric.endswith("_gain_s") and policy == d.baseline:
            raise ExperimentError(f"{where}{name}: {metric} compares a strategy with the "
                                  "baseline; the baseline has none")


def plan_treematch(d):
    """Per log each policy once per ratio (RATIO), the baseline once for all
    ratios when baseline_once."""
    runs = []
    for log in d.logs:
        for i, label in enumerate(d.ratios):
            for policy in d.policies:
                if policy == d.baseline and i > 0 and baseline_once(d):
                    continue
                params = dict(d.params_of(log))
                params["RATIO"] = repr(ratio_value(label))
                runs.append({"log": log, "cluster": d.cluster_of(log),
                             "pattern": d.patterns[0], "policy": policy, "params": params})
    return runs


def treematch_key(d, r):
    """(log, ratio label, policy) of a run, the ratio from its RATIO."""
    if r.log not in d.logs:
        raise ExperimentError(f"{r.dir}: log '{r.log}' is not among the definition's "
                              f"logs '{' '.join(d.logs)}'")
    if r.policy not in d.policies:
        raise ExperimentError(f"{r.dir}: policy '{r.policy}' is not among the definition's "
                              f"policies '{' '.join(d.policies)}'")
    v = fnum(r.manifest.get("ratio"))
    found = [lb for lb in d.ratios if abs(v - ratio_value(lb)) <= 1e-6]
    if not found:
        raise ExperimentError(f"{r.dir}: RATIO={r.manifest.get('ratio')} is none of the "
                              f"definition's ratios {' '.join(d.ratios)}")
    return (r.log, found[0], r.policy)


def treematch_run(d, runs, log, label, policy):
    """The run of log x ratio x policy; the baseline's of another ratio
    when it is run once."""
    r = runs.get((log, label, policy))
    if r is None and policy == d.baseline and baseline_once(d):
        r = next((runs[(log, lb, policy)] for lb in d.ratios if (log, lb, policy) in runs),
                 None)
    return r


def treematch_stats(r, base):
    """One run's figures over its workload (the prefill left out), as the
    paper defines them (Sec. 4.1): makespan, first submission to last end;
    utilization, the jobs' node-time over the nodes x makespan; mean flow
    time (end minus submission), runtime (end minus start) and stretch
    (flow time over the runtime under SLURM, the job's base runtime T);
    and, against the baseline run `base` job by job, the mean flow time
    and runtime gains (baseline minus this run, Figs. 5 and 6). R is the
    hop-bytes of the nodes the job got over default's on the same state,
    for jobs with a matrix."""
    m, rows = r.metrics, r.rows
    nan = float("nan")
    # At GRANULARITY=core report.py's utilization counts CPUs, as the paper.
    st = {"jobs": len(rows), "makespan_s": m["makespan_s"],
          "utilization_pct": 100 * m["utilization"] if rows else nan,
          "flowtime_mean_s": m["turnaround_mean_s"],
          "runtime_mean_s": statistics.fmean(x["run_s"] for x in rows) if rows else nan,
          "stretch_mean": m["stretch_mean"]}
    rs = [x["hop_bytes"] / x["hop_bytes_default"] for x in rows
          if x["hop_bytes_default"] > 0 and not math.isnan(x["hop_bytes"])]
    st["r_mean"] = statistics.fmean(rs) if rs else nan
    gains = [1 - x["runtime_scaled_s"] / x["runtime_base_s"] for x in rows
             if x["runtime_base_s"] > 0 and not math.isnan(x["runtime_scaled_s"])]
    st["modelled_gain_pct"] = 100 * statistics.fmean(gains) if gains else nan
    st["flowtime_gain_s"] = st["runtime_gain_s"] = nan
    st["paired_jobs"] = 0
    if base is not None:
        by_id = {x["log_job_id"]: x for x in base.rows}
        pairs = [(by_id[x["log_job_id"]], x) for x in rows if x["log_job_id"] in by_id]
        if pairs:
            st["paired_jobs"] = len(pairs)
            st["flowtime_gain_s"] = statistics.fmean(b["turnaround_s"] - x["turnaround_s"]
                                                     for b, x in pairs)
            st["runtime_gain_s"] = statistics.fmean(b["run_s"] - x["run_s"] for b, x in pairs)
    return st


def table_treematch(d, runs, t):
    names = {p: TM_NAMES.get(p, p) for p in d.policies}
    stats = {}
    for log in d.logs:
        for label in d.ratios:
            base = treematch_run(d, runs, log, label, d.baseline)
            for policy in d.policies:
                r = treematch_run(d, runs, log, label, policy)
                if r is not None:
                    stats[(log, label, policy)] = (r, treematch_stats(r, base))
    t.md += ["The paper's metrics (Sec. 4.1) over the workload, the jobs that filled the "
             "machine first left out: makespan, from the workload's first submission to its "
             "last end; utilization, the workload's node-time over all nodes x makespan; "
             "flow time, end minus submission; runtime, end minus start; stretch, flow time "
             "over the job's runtime under SLURM (its log runtime x RUNTIME_FACTOR). Gains on "
             "SLURM are Figs. 5 and 6's mean per-job differences, SLURM minus the strategy, "
             "job by job against the baseline run (positive: faster). R: the job's hop-bytes "
             "over default's on the same state (jobs with a matrix); modelled gain: 1 - T'/T "
             "of Sec. 3.2's model, T' = (1 + R a - a) T, over all jobs (the paper designed "
             "its matrices for about 4, 11 and 18 % at a = 10, 30 and 50 %).", "",
             "## Ours: per ratio and strategy", "",
             "| log | a | strategy | jobs | makespan (s) | utilization (%) | mean flow time (s) "
             "| mean runtime (s) | mean stretch | mean R | modelled gain (%) | flow time gain (s) "
             "| runtime gain (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    runs_header = ["log", "ratio", "policy", "strategy", "jobs", "makespan_s",
                   "utilization_pct", "flowtime_mean_s", "runtime_mean_s", "stretch_mean",
                   "r_mean", "modelled_gain_pct", "flowtime_gain_s", "runtime_gain_s",
                   "paired_jobs", "run_id"]
    runs_rows = []
    for log in d.logs:
        for label in d.ratios:
            for policy in d.policies:
                got = stats.get((log, label, policy))
                if got is None:
                    t.md.append(f"| {log} | {ratio_text(label)} | {names[policy]} (not run) |"
                                + " - |" * 10)
                    continue
                r, st = got
                shared = ("" if (log, label, policy) in runs
                          else f" (the {treematch_key(d, r)[1]} run)")
                gain = policy != d.baseline
                t.md.append(f"| {log} | {ratio_text(label)} | {names[policy]}{shared} | "
                            f"{st['jobs']} | {fmt(st['makespan_s'], 0)} | "
                            f"{fmt(st['utilization_pct'], 1)} | {fmt(st['flowtime_mean_s'], 1)} | "
                            f"{fmt(st['runtime_mean_s'], 1)} | {fmt(st['stretch_mean'], 2)} | "
                            f"{fmt(st['r_mean'], 3)} | {fmt(st['modelled_gain_pct'], 1)} | "
                            f"{fmt(st['flowtime_gain_s'], 1) if gain else '-'} | "
                            f"{fmt(st['runtime_gain_s'], 1) if gain else '-'} |")
                runs_rows.append([log, label, policy, names[policy]]
                                 + [csv_cell(st[c]) for c in runs_header[4:15]]
                                 + [r.run_id])
    t.more_csv["table-runs.csv"] = (runs_header, runs_rows)

    # The paper's figures beside ours.
    t.csv_header = ["log", "ratio", "metric", "policy", "strategy", "paper", "paper_vs_slurm_pct",
                    "ours", "ours_vs_slurm_pct", "run_id"]
    t.md += ["", "## The paper's Table 2 and Figs. 5, 6 beside ours", "",
             "Paper: Table 2 (emulation, as printed) and the mean differences of Figs. 5 "
             "and 6; % against SLURM on each side.", "",
             "| log | a | metric | strategy | paper | vs SLURM | ours | vs SLURM |",
             "|---|---|---|---|---|---|---|---|"]
    orders = []
    for log in d.logs:
        for label in d.ratios:
            for metric, (text, digits) in TM_METRICS.items():
                if not any(k[0] == metric and k[1] in (log, "*") and k[2] == label
                           for k in d.paper):
                    continue
                gain = metric.endswith("_gain_s")
                ours, paper = {}, {}
                for policy in d.policies:
                    pv = d.paper_value(metric, log, label, policy)
                    got = stats.get((log, label, policy))
                    ov = got[1][metric] if got else None
                    if gain and policy == d.baseline:
                        pv, ov = 0.0, (0.0 if got else None)
                    pb = d.paper_value(metric, log, label, d.baseline)
                    bgot = stats.get((log, label, d.baseline))
                    ob = bgot[1][metric] if bgot else None
                    pc = None if gain else change(pv, pb)
                    oc = None if gain else change(ov, ob)
                    paper[policy], ours[policy] = pv, ov
                    if gain and policy == d.baseline:
                        continue
                    t.md.append(f"| {log} | {ratio_text(label)} | {text} | {names[policy]} | "
                                f"{fmt(pv, digits)} | "
                                f"{'-' if pc is None else fmt(pc, 1, True) + '%'} | "
                                f"{fmt(ov, digits)}{'' if got else ' (not run)'} | "
                                f"{'-' if oc is None else fmt(oc, 1, True) + '%'} |")
                    t.csv_rows.append([log, label, metric, policy, names[policy],
                                       "" if pv is None else f"{pv:g}",
                                       "" if pc is None else f"{pc:.3f}",
                                       num4(ov), "" if oc is None else f"{oc:.3f}",
                                       got[0].run_id if got else ""])
                # Orderings over the strategies the paper gives, best first
                # (a gain: highest; makespan: lowest; utilization: highest).
                given = [p for p in d.policies if paper.get(p) is not None]
                reverse = metric != "makespan_s"
                o = ordering({p: ours.get(p) for p in given}, digits, reverse)
                pr = ordering({p: paper[p] for p in given}, digits, reverse)
                orders.append((log, label, text, o, pr))
    t.md += ["", "## Orderings, best first", "",
             "Over the strategies the paper gives for the metric (`=`: equal at the precision "
             "shown; makespan: lowest first; utilization and gains: highest first, SLURM's "
             "gain being 0).", "",
             "| log | a | metric | ours | paper | agrees | same best |",
             "|---|---|---|---|---|---|---|"]
    agree = best = n = 0
    for log, label, text, o, pr in orders:
        named = (lambda x: None if x is None else re.sub(
            r"[a-z0-9-]+", lambda m: names.get(m.group(0), m.group(0)), x))
        ok = None if o is None or pr is None else o == pr
        sb = None if o is None or pr is None else (
            re.split(" [<>] ", o)[0] == re.split(" [<>] ", pr)[0])
        if ok is not None:
            n += 1
            agree += ok
            best += sb
        t.md.append(f"| {log} | {ratio_text(label)} | {text} | {named(o) or '-'} | "
                    f"{named(pr) or '-'} | {'-' if ok is None else ('yes' if ok else 'no')} | "
                    f"{'-' if sb is None else ('yes' if sb else 'no')} |")
    t.md += ["", f"The orderings agree in {agree} of {n} comparisons; the best strategy is "
             f"the paper's in {best} of {n}.", ""]


def header_treematch(d, runs):
    """The runs, the workload's window, the prefill, the runtime factor."""
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    first, n = m["first"], m["jobs"]
    pre = (f" after {m['prefill_jobs']} jobs from before it (log jobs before {first}) "
           f"filled {m.get('prefill_nodes', 0):,} of the {m['cluster_nodes']:,} nodes "
           f"(PREFILL={m['prefill']:g})" if m.get("prefill_jobs") else ", no prefill")
    factor = m.get("runtime_factor")
    return [f"Ours: {len(rs)} replays on {m['cluster']} of `{m.get('log_file', m['log'])}`, "
            f"the workload {n} jobs from job {first} (jobs {first} to {first + n - 1} of "
            f"the log's replayable jobs){pre}; runtimes x "
            f"{1 if factor is None else factor:g}, SPARSITY={m.get('sparsity')}, "
            f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
            f"Paper: {d.citation}. Times are log time.", ""]


# Runs keyed (log, ratio, policy); one pattern (mix unless given).
KIND = Kind("treematch", table_treematch, validate=validate_treematch, plan=plan_treematch,
            run_key=treematch_key, header=header_treematch, lists={"ratios": []},
            default_patterns=["mix"])
