"""Kind nedd (NeDD, Zhang et al., CLUSTER 2021; ../shared/papers/nedd.txt,
"L.."): the one-job (L102-108, L150-154) and two-job (L158-164)
experiments, each strategy against a congestor, beside the paper's.

A definition of kind nedd names its node-set layouts as `logs`
(`consecutive`: the lane is a dragonfly group's first N node ids;
`background`: N idle nodes of a machine loaded by a replayed log,
nedd_background.py) and its own word lists:
  apps         the applications, one lane each (miniMD LAMMPS ...), or
               pairs allocated one after the other and started together
               (miniMD+MILC: the two-job experiment)
  reps         repetitions per application and strategy (L150: >= 10)
  setup        N C M: nodes of the lane (one for the control script),
               of the congestor, of each application job (L104: 201 64 32)
  base_runtime T0 of every application job, seconds
  no_congestor the strategy of the No-Congestor runs (L118: fewer-router)
  warmup       1 (default): every lane first runs a warm-up repetition
               r00, counted in no figure (the fresh cluster's first jobs,
               nedd_jobs.WARMUP); 0: none
  background   layout background's log, size factor and start (s of the
               log): theta 2.2 604800 (nedd_background.DEFAULT)
Each policy runs once per layout with the congestor, and no_congestor once
without it (workloads/experiment/nedd_jobs.py writes each run's job list).
Paper figures: paper.<metric>.<layout or *>.<app, or sensitive>.<policy>
with metric improvement_pct (NeDD's mean improvement against the policy,
L152; policy `three` for the mean over Random, Low-Stall and Fewer-Router)
or slowdown (the policy's mean over No-Congestor's, L152: miniMD's Random
5x).
"""

import math
import statistics

from . import nedd_background
from .errors import ExperimentError, paper_key_name
from .kind import Kind
from .nedd_jobs import LAYOUTS, list_facts, WARMUP, write_list
from .tables import fmt, pace_text

# The paper's names (L112-118).
NAMES = {"nedd": "NeDD", "ltr": "Low-Traffic-Router", "htr": "High-Traffic-Router",
         "random": "Random", "low-stall": "Low-Stall-Router",
         "fewer-router": "Fewer-Router", "none": "No-Congestor"}
# Table I's classes (L144-146): sensitive iff the MPI share is above 19.3 %.
SENSITIVE = ("miniMD", "LAMMPS", "MILC", "HACC")
INSENSITIVE = ("QMCPACK", "HPCG")
# NeDD against these (L152).
AGAINST = ("random", "low-stall", "fewer-router")
NO_CONGESTOR = "none"
METRICS = ("improvement_pct", "slowdown")


def items(d):
    return [tuple(a.split("+")) for a in d.apps]


def setup(d):
    return tuple(int(x) for x in d.setup)


def validate_nedd(d, where):
    known = {a.lower(): a for a in SENSITIVE + INSENSITIVE}
    if not d.apps:
        raise ExperimentError(f"{where}apps '': expected applications of Table I "
                              f"({' '.join(known.values())}) or pairs a+b")
    for it in items(d):
        if len(it) > 2 or any(a.lower() not in known for a in it):
            raise ExperimentError(f"{where}apps '{' '.join(d.apps)}': '{'+'.join(it)}' is not "
                                  f"an application of Table I ({' '.join(known.values())}) "
                                  "or a pair a+b of them")
    if len(d.reps) != 1 or not d.reps[0].isdigit() or int(d.reps[0]) < 1:
        raise ExperimentError(f"{where}reps '{' '.join(d.reps)}': expected one whole number >= 1")
    if len(d.setup) != 3 or not all(x.isdigit() and int(x) > 0 for x in d.setup):
        raise ExperimentError(f"{where}setup '{' '.join(d.setup)}': expected N C M, "
                              "three whole numbers above 0")
    try:
        t0 = float(d.base_runtime[0]) if len(d.base_runtime) == 1 else -1
    except ValueError:
        t0 = -1
    if not 0 < t0 < 1e6:
        raise ExperimentError(f"{where}base_runtime '{' '.join(d.base_runtime)}': expected "
                              "one number of seconds above 0")
    if d.warmup not in (["0"], ["1"]):
        raise ExperimentError(f"{where}warmup '{' '.join(d.warmup)}': expected 1 (a warm-up "
                              "repetition r00 in every lane, not counted) or 0")
    if len(d.no_congestor) != 1 or d.no_congestor[0] not in NAMES:
        raise ExperimentError(f"{where}no_congestor '{' '.join(d.no_congestor)}': expected "
                              "one NeDD strategy")
    for log in d.logs:
        if log not in LAYOUTS:
            raise ExperimentError(f"{where}logs '{' '.join(d.logs)}': '{log}' is not a "
                                  f"layout ({' '.join(LAYOUTS)})")
    nedd_background.parse(d.background, where)
    for key in d.paper:
        policy = key[3]
        name = paper_key_name(key, METRICS, where, d.logs)
        if policy not in d.paper_policies() + ["three"]:
            raise ExperimentError(f"{where}{name}: policy '{policy}' is not among the "
                                  "policies")


def plan_nedd(d):
    """Per layout no_congestor without the congestor (first: every table
    cell needs its band), then each policy with it."""
    runs = []
    n_items = items(d)
    for log in d.logs:
        params = dict(d.params_of(log))
        for policy, cong in [(d.no_congestor[0], False)] + [(p, True) for p in d.policies]:
            path = write_list(d.cluster_of(log), d.name, log, n_items, int(d.reps[0]),
                              setup(d), float(d.base_runtime[0]), cong,
                              params.get("SEED", "0"), d.warmup == ["1"], d.background)
            with open(path, encoding="utf-8") as f:
                jobs = sum(1 for line in f if line[:1] not in "#J")
            runs.append({"log": path, "cluster": d.cluster_of(log), "pattern": d.patterns[0],
                         "policy": policy, "params": dict(params, JOBS=str(jobs), FIRST="0")})
    return runs


def nedd_key(d, r):
    facts = list_facts(r.log)
    if facts is None:
        raise ExperimentError(f"{r.dir}: log '{r.log}' is not a NeDD job list")
    layout, cong = facts
    return (layout, r.policy if cong else NO_CONGESTOR)


def rep_tag(log_id):
    """r<rep>-<item> of a job of the lists (its congestor is <tag>-gpcnet)."""
    return "-".join(log_id.split("-")[:2])


def count_rows(rows):
    """The application jobs the table counts, and how many more it leaves
    out: the warm-up repetition's (r00), and those that started once
    their congestor had ended (after:<congestor>+2 holds at its end): the
    job's record saw no congestor, or one gone before its two minutes. A
    congestor outlasts its jobs unless Slurm ended it early, as on the
    fresh cori's first repetitions (`not_launched`, metrics/jobs.py).
    Each such job gets fault congestor_lost (warm-up jobs keep theirs)."""
    lost = {rep_tag(r["log_job_id"]): r["end"] for r in rows
            if r["log_job_id"].endswith("-gpcnet")}
    keep, out = [], 0
    for r in rows:
        if r["log_job_id"].endswith("-gpcnet") or r["log_job_id"].endswith("-wait"):
            continue
        # Layout background's log jobs: the machine's load, in no figure.
        if r["log_job_id"].startswith(nedd_background.PREFIX):
            continue
        if r["log_job_id"].startswith(f"r{WARMUP:02d}-"):
            continue
        if r["fault"]:
            continue
        if r["start"] >= lost.get(rep_tag(r["log_job_id"]), math.inf):
            r["fault"] = "congestor_lost"
            out += 1
            continue
        keep.append(r)
    return keep, out


def load_nedd(run_dir):
    """A finished run as results.Run reads it, less the jobs count_rows
    leaves out (the damaged ones in the header's count)."""
    from .results import Run  # results imports the kinds
    r = Run(run_dir)
    r.rows, _ = count_rows(r.all_rows)
    # The warm-up's are no damage: it is there to take it.
    r.fault_jobs = sum(1 for x in r.all_rows if x["fault"] and not x.get("prefill")
                       and not x["log_job_id"].startswith(f"r{WARMUP:02d}-"))
    return r


def job_app(row):
    """The application and its place in the pair (1 or 2) from the job's
    name, r<rep>-<item>-<k>-<app> (a pair's item a_b)."""
    parts = row["log_job_id"].split("-")
    return parts[-1], int(parts[-2])


def summary(xs):
    """n, mean, median, quartiles, min, max (statistics' exclusive method,
    as matplotlib's box plots draw them: the paper's Fig. 4)."""
    if not xs:
        return None
    q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0]] * 3
    return {"n": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs),
            "q1": q[0], "q3": q[2], "min": min(xs), "max": max(xs),
            "sem": statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")}


def times(runs, layout, key, item, k, field="run_s"):
    """The runtimes (s) of application k of item in run key: as measured
    (sacct's end - start), or field runtime_scaled_s, the model's."""
    r = runs.get((layout, key))
    if r is None:
        return []
    want = "_".join(item)
    return [row.get(field, math.nan) for row in r.rows
            if row["log_job_id"].split("-")[1:-2] == [want]
            and job_app(row) == (item[k - 1], k)]


def modelled(runs, layout, key, item, k):
    """The mean runtime the plugin's records gave (runtime_scaled): what
    the sleeps aimed at, before the emulation's launch and completion."""
    xs = [x for x in times(runs, layout, key, item, k, "runtime_scaled_s") if not math.isnan(x)]
    return statistics.fmean(xs) if xs else None


def improvement(nedd, other):
    """NeDD's mean improvement against another strategy, % of its mean."""
    if nedd is None or other is None or not other["mean"]:
        return None
    return 100 * (other["mean"] - nedd["mean"]) / other["mean"]


def table_nedd(d, runs, t):
    keys = list(d.policies) + [NO_CONGESTOR]
    its = items(d)
    two = any(len(i) == 2 for i in its)
    n, c, m = setup(d)
    t.md += [f"Set-up per repetition (L104): a lane of N = {n} nodes (one for the control "
             f"script), GPCNeT on C = {c} of the others re-chosen each repetition, then "
             f"{'each' if two else 'the'} application job of M = {m} nodes two minutes "
             f"after the congestor started (Slurm's after:<congestor>+2; the 120 s window "
             f"full of it); T0 = {float(d.base_runtime[0]):g} s; {d.reps[0]} repetitions. "
             "Times are the jobs' execution times as sacct measured them (end - start, "
             "Slurm's virtual seconds); each job slept what the runtime model gave it (T = "
             "T0 (1 + sigma (a G + b U)) x jitter, plugins/lib/nedd_runtime.c; the modelled "
             "mean column, from the records), and the emulation adds its launch and "
             "completion lag to it.", "",
             "Calibrated: a = 0.867, b = 0.133 and miniMD's sigma = 18.2, analytically on the "
             "paper's two miniMD figures (L152: Random 5x No-Congestor; NeDD 34 % below "
             "Random); the run below checks that calibration. Predicted: every other "
             "figure (the other applications' sigma are assumed, not fitted).", ""]
    t.csv_header = ["layout", "app", "place", "strategy", "n", "mean_s", "median_s", "q1_s",
                    "q3_s", "min_s", "max_s", "sem_s"]
    stats = {}
    for layout in d.logs:
        t.md += [f"## Execution time per application and strategy ({layout})", "",
                 "| application | strategy | n | mean (s) | median | Q1 | Q3 | min | max | "
                 "mean / No-Congestor | modelled mean (s) |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
        for item in its:
            for k, app in enumerate(item, 1):
                label = app if len(item) == 1 else f"{app} ({'+'.join(item)}, job {k})"
                base = summary(times(runs, layout, NO_CONGESTOR, item, k))
                for key in keys:
                    s = summary(times(runs, layout, key, item, k))
                    stats[(layout, "+".join(item), k, key)] = s
                    got = [x for x in times(runs, layout, key, item, k, "runtime_scaled_s")
                           if not math.isnan(x)]
                    stats[("modelled", layout, "+".join(item), k, key)] = summary(got)
                    if s is None:
                        t.md.append(f"| {label} | {NAMES.get(key, key)} | 0 (not run) "
                                    "| - | - | - | - | - | - | - | - |")
                        continue
                    ratio = s["mean"] / base["mean"] if base else None
                    t.md.append(f"| {label} | {NAMES.get(key, key)} | {s['n']} | "
                                f"{fmt(s['mean'], 1)} | {fmt(s['median'], 1)} | "
                                f"{fmt(s['q1'], 1)} | {fmt(s['q3'], 1)} | {fmt(s['min'], 1)} | "
                                f"{fmt(s['max'], 1)} | {fmt(ratio, 2)} | "
                                f"{fmt(modelled(runs, layout, key, item, k), 1)} |")
                    t.csv_rows.append([layout, app, k, key, s["n"]] + [
                        f"{s[x]:.4f}" for x in ("mean", "median", "q1", "q3", "min", "max",
                                                "sem")])
        t.md.append("")
        if two:
            table_two(d, t, layout, its, keys, stats)
        else:
            table_one(d, t, layout, its, stats)


def table_one(d, t, layout, its, stats):
    """NeDD's mean improvement beside the paper's (L152), the calibration
    check, the ordering and the insensitive applications' band (L154)."""
    def st(app, key, *model):
        return stats.get(model + (layout, app, 1, key))

    apps = [i[0] for i in its]
    against = [p for p in AGAINST if p in d.policies]
    t.md += [f"## NeDD's mean improvement, ours beside the paper's ({layout})", "",
             "100 x (mean of the strategy - NeDD's mean) / the strategy's mean (L152), on "
             "the measured times and on the records' modelled ones (what the jobs were to "
             "sleep, without the emulation's lag). miniMD against Random is what the model "
             "was calibrated on; every other cell is a prediction.", "",
             "| application | against | ours (%) | ours, modelled (%) | paper (%) | "
             "within 5 points | |", "|---|---|---|---|---|---|---|"]
    sens = [a for a in apps if a in SENSITIVE]
    rows = [(a, [a]) for a in apps] + ([("sensitive", sens)] if len(sens) > 1 else [])
    for label, group in rows:
        per, per_m = {}, {}
        for p in against:
            vals = [improvement(st(a, "nedd"), st(a, p)) for a in group]
            v = statistics.fmean(vals) if vals and None not in vals else None
            vals = [improvement(st(a, "nedd", "modelled"), st(a, p, "modelled")) for a in group]
            vm = statistics.fmean(vals) if vals and None not in vals else None
            per[p], per_m[p] = v, vm
            # The calibration saw layout consecutive's pressures only: in
            # layout background, with its traffic in G, every cell is a
            # prediction.
            show(d, t, layout, label, p, v, vm,
                 calibrated=label == "miniMD" and p == "random" and layout != "background")
        if len(per) == len(AGAINST) and None not in per.values():
            show(d, t, layout, label, "three", statistics.fmean(per.values()),
                 statistics.fmean(per_m.values()) if None not in per_m.values() else None,
                 False)
    t.md += ["", "The paper averages over the four sensitive applications (L152: 19, 12 and "
             "2 %, and 11 % over the three strategies); `sensitive` is ours over those run.", ""]
    # The calibration check: miniMD's Random against No-Congestor (5x).
    if "miniMD" in apps:
        r, base = st("miniMD", "random"), st("miniMD", NO_CONGESTOR)
        rm, bm = st("miniMD", "random", "modelled"), st("miniMD", NO_CONGESTOR, "modelled")
        if r and base:
            pv = d.paper_value("slowdown", layout, "miniMD", "random")
            mod = (f" ({rm['mean'] / bm['mean']:.2f}x on the modelled times)" if rm and bm
                   else "")
            aim = ("the calibration aimed at it" if layout != "background" else
                   "calibrated on layout consecutive, with no background: here a prediction")
            t.md += [f"Calibration check: miniMD under Random takes {r['mean'] / base['mean']:.2f}x "
                     f"its No-Congestor mean{mod} (paper, L152: {fmt(pv, 0)}x; {aim}).", ""]
    # The target ordering for the sensitive applications.
    t.md += ["## Order of the means, sensitive applications", "",
             "| application | lowest first | NeDD lowest or within its noise | "
             "NeDD <= Fewer-Router < Low-Stall < Random |", "|---|---|---|---|"]
    for a in sens:
        ss = {p: st(a, p) for p in d.policies if st(a, p)}
        if not ss:
            continue
        order = sorted(ss, key=lambda p: ss[p]["mean"])
        low = ss[order[0]]
        nd = ss.get("nedd")
        near = nd is not None and nd["mean"] <= low["mean"] + 2 * max(nd["sem"], low["sem"])
        chain = [ss.get(p) for p in ("nedd", "fewer-router", "low-stall", "random")]
        holds = (None not in chain and chain[0]["mean"] <= chain[1]["mean"] < chain[2]["mean"]
                 < chain[3]["mean"])
        t.md.append(f"| {a} | {' < '.join(NAMES.get(p, p) for p in order)} | "
                    f"{'yes' if near else 'no'} | {'yes' if holds else 'no'} |")
    t.md.append("")
    ins = [a for a in apps if a in INSENSITIVE]
    if ins:
        t.md += ["## Insensitive applications against No-Congestor's band (L154)", "",
                 "Whether each strategy's mean lies within No-Congestor's min-max (the "
                 "paper's error bars).", "",
                 "| application | No-Congestor band (s) | strategies inside | outside |",
                 "|---|---|---|---|"]
        for a in ins:
            base = st(a, NO_CONGESTOR)
            if not base:
                continue
            inside = [p for p in d.policies if st(a, p)
                      and base["min"] <= st(a, p)["mean"] <= base["max"]]
            out = [p for p in d.policies if st(a, p) and p not in inside]
            t.md.append(f"| {a} | {fmt(base['min'], 1)}-{fmt(base['max'], 1)} | "
                        f"{', '.join(NAMES[p] for p in inside) or '-'} | "
                        f"{', '.join(NAMES[p] for p in out) or '-'} |")
        t.md.append("")


def show(d, t, layout, label, p, v, vm, calibrated):
    pv = d.paper_value("improvement_pct", layout, label, p)
    near = "-" if v is None or pv is None else ("yes" if abs(v - pv) <= 5 else "no")
    t.md.append(f"| {label} | {'mean of the three' if p == 'three' else NAMES.get(p, p)} | "
                f"{fmt(v, 1)} | {fmt(vm, 1)} | {fmt(pv, 0)} | {near} | "
                f"{'calibrated' if calibrated else 'predicted'} |")


def table_two(d, t, layout, its, keys, stats):
    """Mean and standard error per job (Fig. 5, L162-164)."""
    t.md += [f"## Two jobs: mean and standard error per job ({layout})", "",
             "Measured (sacct) and modelled (the records' runtime_scaled: what each job was "
             "to sleep, without the emulation's lag).", "",
             "| pair | strategy | first job mean (s) | SEM | modelled | SEM | "
             "second job mean (s) | SEM | modelled | SEM |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for item in its:
        for key in keys:
            a = stats.get((layout, "+".join(item), 1, key))
            b = stats.get((layout, "+".join(item), 2, key))
            if not a or not b:
                continue
            am = stats.get(("modelled", layout, "+".join(item), 1, key)) or {}
            bm = stats.get(("modelled", layout, "+".join(item), 2, key)) or {}
            t.md.append(f"| {' then '.join(item)} | {NAMES.get(key, key)} | {fmt(a['mean'], 1)} "
                        f"| {fmt(a['sem'], 1)} | {fmt(am.get('mean'), 1)} | "
                        f"{fmt(am.get('sem'), 1)} | {fmt(b['mean'], 1)} | {fmt(b['sem'], 1)} | "
                        f"{fmt(bm.get('mean'), 1)} | {fmt(bm.get('sem'), 1)} |")
    t.md += ["", "The paper's statements (L160-164) beside ours:", ""]
    for item, model in [(i, m) for m in ((), ("modelled",)) for i in its]:
        s1 = {k: stats.get(model + (layout, "+".join(item), 1, k)) for k in keys}
        s2 = {k: stats.get(model + (layout, "+".join(item), 2, k)) for k in keys}
        if not s1.get("nedd") or not s2.get("nedd"):
            continue
        pol = [p for p in d.policies if s1.get(p) and s2.get(p)]
        best1 = min(pol, key=lambda p: s1[p]["mean"])
        best2 = min(pol, key=lambda p: s2[p]["mean"])
        line = (f"- {' then '.join(item)}{', modelled' if model else ', measured'}: "
                f"best for {item[0]} {NAMES[best1]}, for {item[1]} "
                f"{NAMES[best2]}; NeDD against the best: {item[0]} "
                f"{fmt(100 * (s1['nedd']['mean'] / s1[best1]['mean'] - 1), 1, True)} %, "
                f"{item[1]} {fmt(100 * (s2['nedd']['mean'] / s2[best2]['mean'] - 1), 1, True)} %")
        for k, s in ((0, s1), (1, s2)):
            if item[k] in SENSITIVE and s.get("fewer-router"):
                line += (f"; {item[k]} against Fewer-Router "
                         f"{fmt(improvement(s['nedd'], s['fewer-router']), 1)} % better")
        t.md.append(line)
    t.md += ["", "Paper: (a) miniMD then MILC, NeDD best for both; (b) miniMD then QMCPACK, "
             "NeDD best for miniMD and within 1 % of the best for QMCPACK; (c) QMCPACK then "
             "miniMD, miniMD 40 % better than under Fewer-Router, QMCPACK under 1 % worse.", ""]


def background_text(runs):
    """Layout background's facts from its job list's first line (the
    background log, its size factor and start, the horizon, its jobs and
    the machine's busy share at the start), if a run of it is here."""
    for r in sorted(runs.values(), key=lambda r: r.run_id):
        facts = list_facts(getattr(r, "log", "") or "")
        if not facts or facts[0] != "background":
            continue
        try:
            with open(r.log, encoding="utf-8") as f:
                first = f.readline()
        except OSError:
            return []
        words = [w for w in first.split() if w.split("=")[0] in (
            "background", "factor", "start", "horizon", "jobs", "busy_at_start")]
        return ["Layout background (workloads/experiment/nedd_background.py): the lanes are "
                "idle nodes of Cori's KNL loaded by a replayed log, its jobs pinned to the "
                "nodes a first-come-first-served history gave them, injecting their "
                f"communication share (inj_unnamed=): {' '.join(words)}.", ""]
    return []


def header_nedd(d, runs):
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    lost = sum(1 for r in rs for x in getattr(r, "all_rows", [])
               if x["fault"] == "congestor_lost")
    return [f"Ours: {len(rs)} runs on {m['cluster']} (one per strategy and layout, and "
            f"No-Congestor), {pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. Paper: {d.citation}.", ""] + (
                background_text(runs)) + (
                ["Warm-up: every lane first ran repetition r00, counted in no figure (on a "
                 "fresh cluster the first jobs meet front ends that have not registered "
                 "yet, and the first launches lag most).", ""]
                if any(x["log_job_id"].startswith(f"r{WARMUP:02d}-")
                       for r in rs for x in getattr(r, "all_rows", r.rows)) else []) + (
                [f"Left out: {lost} application jobs that started once their congestor had "
                 "ended (`congestor_lost`: Slurm ended it early; the job saw no congestor, "
                 "or one gone before its two minutes).", ""] if lost else [])


KIND = Kind("nedd", table_nedd, validate=validate_nedd, plan=plan_nedd, run_key=nedd_key,
            header=header_nedd, skipped=lambda d, runs: [], load=load_nedd,
            lists={"apps": [], "reps": ["10"], "setup": ["201", "64", "32"],
                   "base_runtime": ["100"], "no_congestor": ["fewer-router"],
                   "warmup": ["1"], "background": list(nedd_background.DEFAULT)},
            default_patterns=["rd"])
