"""Kind tofa (the TOFA preprint, ../shared/papers/tofa.txt: Fig. 3a, Table
1): one application's job, one instance at a time on the otherwise empty
torus, per torus shape and policy; each job's time relative to the
baseline's beside the paper's.

A definition of kind tofa names graphs as its logs: each is
experiments/graphs/<graph>.matrix (its --comm-matrix, MATRIX=) and
<graph>.jobs (the instances, LOG=), written by workloads/tofa_graphs.py;
each run's RATIO is the graph's f from experiments/graphs/tofa-f.tsv (the
runtime model's share, plugins/lib/tofa_runtime.c) unless the definition
sets RATIO. Its own keys:
  shapes = <cluster> ...   the tori, one run per shape x policy (default:
                           the definition's cluster)
  subject = <policy>       the policy whose time the paper's below_pct
                           figures compare (Fig. 3a: scotch0)
  fitted = <shape>.<policy> ...  the paper figures f was fitted on; every
                           other figure is a prediction
Its paper figures, as printed, paper.<metric>.<graph>.<shape>.<policy>:
  below_pct         the subject's time is this % below the policy's
                    (Fig. 3a, L639-640)
  timesteps_per_s   the policy's rate (Table 1, L657-664); ours is 1 / T,
                    so the ratio to the baseline is compared
The runs are keyed (graph, shape, policy).
"""

import math
import os
import statistics

from metrics.run_dir import csv_cell
from workloads import tofa_graphs
from .errors import ExperimentError, paper_key_name
from .kind import Kind
from .tables import fmt, pace_text

# The repository (definition.py's ROOT; importing it here would be circular:
# definition imports the kinds).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPHS_DIR = os.path.join(ROOT, "experiments", "graphs")
METRICS = {"below_pct": "the subject's time below the policy's (%)",
           "timesteps_per_s": "timesteps/s (ours: 1 / T)"}


def graph_files(graph):
    return (os.path.join(GRAPHS_DIR, f"{graph}.jobs"),
            os.path.join(GRAPHS_DIR, f"{graph}.matrix"))


def shapes_of(d):
    return d.shapes or [d.cluster_of(lg) for lg in d.logs[:1]]


def validate_tofa(d, where):
    try:
        fs = tofa_graphs.read_f(GRAPHS_DIR)
    except (OSError, ValueError) as e:
        raise ExperimentError(f"{where}{e}") from None
    for g in d.logs:
        if not all(os.path.isfile(p) for p in graph_files(g)):
            raise ExperimentError(f"{where}graph '{g}': no experiments/graphs/{g}.jobs and "
                                  ".matrix (python3 -m workloads.tofa_graphs writes them)")
        if g not in fs and not any(k == "RATIO" for k, _ in d.params):
            raise ExperimentError(f"{where}graph '{g}': no f in experiments/graphs/"
                                  f"{tofa_graphs.F_TABLE}, and no RATIO")
    clusters = {f[:-len(".cluster")] for f in os.listdir(os.path.join(ROOT, "emulated-clusters"))
                if f.endswith(".cluster")}
    for s in d.shapes:
        if s not in clusters:
            raise ExperimentError(f"{where}shapes: '{s}' is no cluster of emulated-clusters/")
    if len(d.subject) > 1 or any(p not in d.policies for p in d.subject):
        raise ExperimentError(f"{where}subject '{' '.join(d.subject)}': expected one of the "
                              f"policies '{' '.join(d.policies)}'")
    if len(d.patterns) != 1:
        raise ExperimentError(f"{where}kind tofa takes one pattern (a matrix job's pattern "
                              "changes nothing)")
    for f in d.fitted:
        shape, _, policy = f.partition(".")
        if shape not in shapes_of(d) or policy not in d.paper_policies():
            raise ExperimentError(f"{where}fitted '{f}': expected <shape>.<policy> of the "
                                  "definition's shapes and policies")
    for key in d.paper:
        metric, graph, shape, policy = key
        name = paper_key_name(key, METRICS, where)
        if graph not in d.logs or shape not in shapes_of(d) or policy not in d.paper_policies():
            raise ExperimentError(f"{where}{name}: expected a graph, shape and policy of "
                                  "the definition")
        if metric == "below_pct" and not d.subject:
            raise ExperimentError(f"{where}{name}: below_pct needs subject = <policy>")


def plan_tofa(d):
    fs = tofa_graphs.read_f(GRAPHS_DIR)
    runs = []
    for graph in d.logs:
        jobs, matrix = graph_files(graph)
        for shape in shapes_of(d):
            for policy in d.policies:
                params = dict(d.params_of(graph))
                params.setdefault("RATIO", repr(fs[graph][0]))
                params["MATRIX"] = matrix
                runs.append({"log": jobs, "cluster": shape, "pattern": d.patterns[0],
                             "policy": policy, "params": params})
    return runs


def tofa_key(d, r):
    graph = r.log[:-len(".jobs")] if r.log.endswith(".jobs") else r.log
    if graph not in d.logs:
        raise ExperimentError(f"{r.dir}: graph '{graph}' is not among the definition's "
                              f"logs '{' '.join(d.logs)}'")
    return (graph, r.manifest.get("cluster", ""), r.policy)


def mean(xs):
    xs = [x for x in xs if not (isinstance(x, float) and math.isnan(x))]
    return statistics.fmean(xs) if xs else float("nan")


def run_stats(r):
    """A run's figures over its instances: measured time (sacct, end -
    start), the plugin's modelled time, C / C0, fallbacks, aborts."""
    rows = r.rows
    return {"jobs": len(rows),
            "time_s": mean([x["run_s"] for x in rows]),
            "modelled_s": mean([x["runtime_scaled_s"] for x in rows]),
            "t0_s": mean([x["runtime_base_s"] for x in rows]),
            "c_over_c0": mean([x["tofa_hops"] / x["tofa_c0"] for x in rows
                               if x.get("tofa_c0", 0) > 0]),
            "f": r.manifest.get("ratio"),
            "not_tofa_model": sum(1 for x in rows if x.get("runtime_model") != "tofa"),
            # tofa found no clean window (its record's tofa_fallback)
            "fallbacks": sum(1 for x in rows if x.get("tofa_fallback"))}


def ratio(a, b):
    if a is None or b is None or not b or any(math.isnan(x) for x in (a, b)):
        return float("nan")
    return a / b


def paper_rows(d, stats):
    """[(graph, shape, metric, policy, paper, ours, fitted, agrees)]: each
    paper figure beside ours, as a comparable number: below_pct as
    printed; timesteps_per_s as the policy's rate over the baseline's."""
    out = []
    for (metric, graph, shape, policy), pv in sorted(d.paper.items()):
        st = stats.get((graph, shape, policy))
        fitted = "fitted" if f"{shape}.{policy}" in d.fitted else "predicted"
        if metric == "below_pct":
            sub = stats.get((graph, shape, d.subject[0]))
            ours = (100 * (1 - ratio(sub["time_s"], st["time_s"]))
                    if st and sub else float("nan"))
            paper = pv
            agrees = None if math.isnan(ours) else (ours > 0) == (paper > 0)
        else:
            if policy == d.baseline:
                continue
            pb = d.paper.get((metric, graph, shape, d.baseline))
            base = stats.get((graph, shape, d.baseline))
            paper = ratio(pv, pb)
            ours = ratio(base["time_s"], st["time_s"]) if st and base else float("nan")
            agrees = (None if math.isnan(ours) or math.isnan(paper)
                      else (ours > 1) == (paper > 1))
        out.append((graph, shape, metric, policy, paper, ours, fitted, agrees))
    return out


def table_tofa(d, runs, t):
    stats = {k: run_stats(r) for k, r in runs.items()}
    t.md += ["Each run: the graph's job, one instance at a time on the empty torus, under "
             "one policy. T: measured time per instance (sacct end - start, log s); "
             "modelled: the plugin's runtime_scaled, T0 ((1 - f) + f C / C0), which the job "
             "slept; C / C0: its plain hop-bytes over default's on the empty torus "
             "(plugins/lib/tofa_runtime.c). The model and f are ours (the paper simulates "
             "in SimGrid); f comes from experiments/graphs/tofa-f.tsv.", "",
             "## Ours: per graph, shape and policy", "",
             f"| graph | shape | policy | instances | f | C / C0 | modelled T (s) | "
             f"measured T (s) | T / T({d.baseline}) | fallbacks |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    header = ["graph", "shape", "policy", "jobs", "f", "c_over_c0", "modelled_s", "time_s",
              "vs_baseline", "fallbacks", "run_id"]
    rows = []
    for graph in d.logs:
        for shape in shapes_of(d):
            base = stats.get((graph, shape, d.baseline))
            for policy in d.policies:
                st = stats.get((graph, shape, policy))
                if st is None:
                    t.md.append(f"| {graph} | {shape} | {policy} (not run) |" + " - |" * 7)
                    continue
                vs = ratio(st["time_s"], base["time_s"]) if base else float("nan")
                t.md.append(f"| {graph} | {shape} | {policy} | {st['jobs']} | "
                            f"{fmt(st['f'], 4)} | {fmt(st['c_over_c0'], 4)} | "
                            f"{fmt(st['modelled_s'], 1)} | {fmt(st['time_s'], 1)} | "
                            f"{fmt(vs, 4)} | {st['fallbacks']} |")
                rows.append([graph, shape, policy, st["jobs"]]
                            + [csv_cell(st[c]) for c in ("f", "c_over_c0", "modelled_s",
                                                         "time_s")]
                            + [csv_cell(vs), st["fallbacks"],
                               runs[(graph, shape, policy)].run_id])
    odd = [f"{'/'.join(k)} ({s['not_tofa_model']})" for k, s in sorted(stats.items())
           if s["not_tofa_model"]]
    if odd:
        t.md += ["", "**Jobs whose runtime did not follow the TOFA model** (no torus record "
                 f"or a missing cost): {', '.join(odd)}"]
    t.more_csv["table-runs.csv"] = (header, rows)

    t.csv_header = ["graph", "shape", "metric", "policy", "paper", "ours", "fitted",
                    "direction_agrees"]
    t.md += ["", "## The paper beside ours", "",
             f"below_pct: {d.subject[0] if d.subject else '-'}'s time this % below the "
             "policy's (paper as printed). timesteps_per_s: the policy's rate over the "
             f"baseline's ({d.baseline}): the paper's Table 1 ratio, ours T({d.baseline}) / "
             "T(policy). fitted: f was fitted on that figure (it matches by construction, "
             "up to the emulation's error); predicted: not used to fit anything.", "",
             "| graph | shape | figure | policy | paper | ours | fitted or predicted | "
             "same direction |", "|---|---|---|---|---|---|---|---|"]
    agree = n = 0
    for graph, shape, metric, policy, paper, ours, fitted, ok in paper_rows(d, stats):
        digits = 1 if metric == "below_pct" else 3
        t.md.append(f"| {graph} | {shape} | {metric} | {policy} | {fmt(paper, digits)} | "
                    f"{fmt(ours, digits)} | {fitted} | "
                    f"{'-' if ok is None else ('yes' if ok else 'no')} |")
        t.csv_rows.append([graph, shape, metric, policy, csv_cell(paper), csv_cell(ours),
                           fitted, "" if ok is None else int(ok)])
        if ok is not None and fitted == "predicted":
            n += 1
            agree += ok
    t.md += ["", f"Predicted figures in the paper's direction: {agree} of {n}.", ""]


def header_tofa(d, runs):
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    return [f"Ours: {len(rs)} runs, each {m['jobs']} instances of the graph's job "
            f"(`{m.get('log_file', m['log'])}` and others), {pace_text(m)}, seed {m['seed']}, "
            f"git {m.get('git_revision', '?')}. Paper: {d.citation}. Times are log time.", ""]


KIND = Kind("tofa", table_tofa, validate=validate_tofa, plan=plan_tofa, run_key=tofa_key,
            header=header_tofa, lists={"shapes": [], "subject": [], "fitted": []},
            default_patterns=["rd"])
