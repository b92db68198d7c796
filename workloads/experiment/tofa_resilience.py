"""Kind tofa-resilience (TOFA's Sec. 5.2, shared/papers/tofa.txt L674-768):
batches of one application on the 8x8x8 torus with nf nodes at outage
probability pf, default against tofa, the faults realized inside Slurm
(workloads/tofa_faults.py, `make tofa-faults`).

Definition keys of its own:
  configs = npb-dt-c-85:16 lammps-64:8 lammps-64:16   application:nf pairs
            (each application one of `logs`: its matrix is
            experiments/graphs/<application>.matrix); CONFIGS='...' narrows
  TOFA_BATCHES, TOFA_INSTANCES, TOFA_PF, TOFA_T0, SEED, SPEEDUP: the runs'
            (workloads/params.tsv)
Runs: one per configuration and policy, each on its own testbed, run by
`scripts/testbed tofa-faults` (RUNNER in its parameters), every batch of
the configuration in it. The same SEED gives every policy the same Nf per
batch and the same failure draws (common random numbers).

Paper figures: paper.reduction_pct.<application>.nf<nf>.<policy> (the mean
reduction of the batch completion time against the baseline, L724, L743)
and paper.abort_pct.<application>.nf<nf>.<policy> (the abort ratio over
all instances, L727-729, L757-759).

Table: per configuration, per batch the completion time of each policy
(the sum of its attempts' run times as sacct has them, L686-688) and the
reduction; the same reduction on the run times the controller gave the
attempts (the record's runtime_scaled: sacct's times add the emulator's
launch and end lag, which grows with the machine's load); the mean reduction (of the per-batch reductions, and of the
summed times), the pooled abort ratio (instances aborted at least once over
instances, L682-683; aborts over attempts beside it), ours beside the
paper's; then the paper's directions checked.
"""

import json
import os

from .errors import ExperimentError
from .kind import Kind

DEFAULT_CONFIGS = ["npb-dt-c-85:16", "lammps-64:8", "lammps-64:16"]


def parse_config(text, where=""):
    app, sep, nf = text.partition(":")
    if not sep or not app or not nf.isdigit():
        raise ExperimentError(f"{where}configs '{text}': expected <application>:<nf>, "
                              "e.g. lammps-64:8")
    return app, int(nf)


def validate(d, where):
    for c in d.configs:
        app, _ = parse_config(c, where)
        if app not in d.logs:
            raise ExperimentError(f"{where}configs '{c}': '{app}' is not among the logs "
                                  f"'{' '.join(d.logs)}'")


def plan(d):
    runs = []
    for c in d.configs:
        app, nf = parse_config(c)
        for policy in d.policies:
            params = dict(d.params_of(app))
            params.update({"RUNNER": "tofa-faults", "TOFA_APP": app, "TOFA_NF": str(nf)})
            runs.append({"log": app, "cluster": d.cluster_of(app), "pattern": f"nf{nf}",
                         "policy": policy, "params": params})
    return runs


class TofaRun:
    """One finished `make tofa-faults` run, as the generic table code reads
    a replay (results.Run's attributes) plus its batches."""

    def __init__(self, run_dir):
        self.dir = run_dir
        try:
            with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
                self.manifest = json.load(f)
            with open(os.path.join(run_dir, "batches.json"), encoding="utf-8") as f:
                self.batches = json.load(f)
        except (OSError, ValueError) as e:
            raise ExperimentError(f"{run_dir}: not a finished tofa-faults run ({e})") from None
        m = self.manifest
        if m.get("kind") != "tofa-faults" or not m.get("finished"):
            raise ExperimentError(f"{run_dir}: not a finished tofa-faults run")
        self.run_id = m["run_id"]
        self.policy = m["policy"]
        self.log = self.app = m["app"]
        self.nf = int(m["nf"])
        self.pattern = f"nf{self.nf}"
        self.missing = list(m.get("missing_from_sacct", []))
        self.unrecorded, self.foreign, self.resumed = 0, {}, False
        # Attempts that ended otherwise than completed or aborted by the
        # fault model (a timeout, a node failure of the emulator's own).
        self.fault_jobs = sum(b.get("other_ends", 0) for b in self.batches)
        self.rerun_jobs = 0


def run_key(d, r):
    return (r.app, r.pattern, r.policy)


def header(d, runs):
    rs = sorted(runs.values(), key=lambda r: r.run_id)
    m = rs[0].manifest
    return [f"Ours: {len(rs)} runs on {m['cluster']}, {m['batches']} batches x "
            f"{m['instances']} instances each, pf {m['pf']:g}, T0 {m['t0']:g} s, seed "
            f"{m['seed']}, virtual clock rate {m['rate']:g}, git "
            f"{m.get('git_revision', '?')}. Paper: {d.citation}. Times are virtual "
            "(Slurm's) seconds from sacct.", ""]


def pct(x):
    return "" if x is None else f"{x:.1f}"


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def config_figures(runs, app, nf, policy):
    r = runs.get((app, f"nf{nf}", policy))
    if r is None:
        return None
    bs = r.batches
    instances = sum(b["instances"] for b in bs)
    attempts = sum(b["attempts"] for b in bs)
    return {"run": r, "batches": {b["batch"]: b for b in bs},
            "total_s": sum(b["completion_s"] for b in bs),
            "abort_pct": 100 * sum(b["aborted_instances"] for b in bs) / instances
            if instances else None,
            "aborts_per_attempt_pct": 100 * sum(b["aborts"] for b in bs) / attempts
            if attempts else None,
            "instances": instances, "attempts": attempts,
            "aborts": sum(b["aborts"] for b in bs)}


def table(d, runs, t):
    base = d.baseline
    others = [p for p in d.policies if p != base]
    t.csv_header = ["application", "nf", "policy", "batches", "instances", "attempts",
                    "aborts", "completion_s", "reduction_pct", "reduction_of_total_pct",
                    "abort_pct", "aborts_per_attempt_pct", "paper_reduction_pct",
                    "paper_abort_pct"]
    checks = []
    gains = {}
    for c in d.configs:
        app, nf = parse_config(c)
        pat = f"nf{nf}"
        figs = {p: config_figures(runs, app, nf, p) for p in d.policies}
        t.md += [f"## {app}, nf = {nf}", ""]
        if figs[base] is None or any(figs[p] is None for p in others):
            t.md += ["Not every policy's run is there.", ""]
            continue
        bnums = sorted(figs[base]["batches"])
        head = ["batch"] + [f"{p} (s)" for p in d.policies] + \
            [f"{p} aborted instances" for p in d.policies] + \
            [f"{p} vs {base} (%)" for p in others]
        t.md += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        red = {p: [] for p in others}
        for b in bnums:
            row = [str(b)]
            row += [str(figs[p]["batches"][b]["completion_s"]) if b in figs[p]["batches"]
                    else "" for p in d.policies]
            row += [str(figs[p]["batches"][b]["aborted_instances"])
                    if b in figs[p]["batches"] else "" for p in d.policies]
            for p in others:
                x0 = figs[base]["batches"][b]["completion_s"]
                x = figs[p]["batches"].get(b, {}).get("completion_s")
                r = 100 * (x0 - x) / x0 if x is not None and x0 else None
                if r is not None:
                    red[p].append(r)
                row.append(pct(r))
            t.md.append("| " + " | ".join(row) + " |")
        # The same reduction on the run times the controller gave the
        # attempts (the record's runtime_scaled; runs that kept it).
        mod = {}
        for p in others:
            xs = [100 * (figs[base]["batches"][b]["modelled_s"] -
                         figs[p]["batches"][b]["modelled_s"]) /
                  figs[base]["batches"][b]["modelled_s"]
                  for b in bnums if b in figs[p]["batches"]
                  and figs[base]["batches"][b].get("modelled_s")
                  and figs[p]["batches"][b].get("modelled_s")]
            mod[p] = mean(xs)
        t.md += ["", "| policy | mean reduction (%) | paper | reduction of the summed "
                 "times (%) | on modelled run times (%) | abort ratio (%) | paper | "
                 "aborts per attempt (%) | instances | attempts |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for p in d.policies:
            f = figs[p]
            mr = mean(red[p]) if p in red else None
            tot = (100 * (figs[base]["total_s"] - f["total_s"]) / figs[base]["total_s"]
                   if p != base and figs[base]["total_s"] else None)
            pr = d.paper_value("reduction_pct", app, pat, p)
            pa = d.paper_value("abort_pct", app, pat, p)
            t.md.append(f"| {p} | {pct(mr) if p != base else '(baseline)'} | "
                        f"{d.paper_text.get(('reduction_pct', app, pat, p), '')} | {pct(tot)} | "
                        f"{pct(mod.get(p))} | {pct(f['abort_pct'])} | "
                        f"{d.paper_text.get(('abort_pct', app, pat, p), '')} | "
                        f"{pct(f['aborts_per_attempt_pct'])} | {f['instances']} | "
                        f"{f['attempts']} |")
            t.csv_rows.append([app, nf, p, len(f["batches"]), f["instances"], f["attempts"],
                               f["aborts"], f["total_s"], "" if mr is None else f"{mr:.3f}",
                               "" if tot is None else f"{tot:.3f}",
                               "" if f["abort_pct"] is None else f"{f['abort_pct']:.3f}",
                               "" if f["aborts_per_attempt_pct"] is None
                               else f"{f['aborts_per_attempt_pct']:.3f}",
                               "" if pr is None else pr, "" if pa is None else pa])
            if p != base:
                gains[(app, nf, p)] = mr
                below = [b for b in bnums if b in f["batches"] and
                         f["batches"][b]["completion_s"] <
                         figs[base]["batches"][b]["completion_s"]]
                checks.append(f"- {app} nf={nf}: {p}'s batch time below {base}'s in "
                              f"{len(below)} of {len(bnums)} batches (paper: all)")
                checks.append(f"- {app} nf={nf}: {p}'s abort ratio {pct(f['abort_pct'])} % "
                              f"{'below' if f['abort_pct'] < figs[base]['abort_pct'] else 'NOT below'}"
                              f" {base}'s {pct(figs[base]['abort_pct'])} %")
            if pa is not None:
                off = abs(f["abort_pct"] - pa)
                checks.append(f"- {app} nf={nf}: {p}'s abort ratio {pct(f['abort_pct'])} % "
                              f"against the paper's {pa:g} %: {off:.1f} points "
                              f"({'within' if off <= 1.5 else 'NOT within'} 1.5)")
        t.md.append("")
    for p in d.policies:
        by_app = {}
        for (app, nf, q), g in gains.items():
            if q == p and g is not None:
                by_app.setdefault(app, []).append((nf, g))
        for app, xs in sorted(by_app.items()):
            if len(xs) > 1:
                xs.sort()
                up = all(b[1] > a[1] for a, b in zip(xs, xs[1:]))
                checks.append(f"- {app}: {p}'s gain "
                              + " -> ".join(f"{g:.1f} % (nf={nf})" for nf, g in xs)
                              + f": {'larger' if up else 'NOT larger'} with more risky nodes "
                              "(paper: 17.5 -> 18.9 %)")
    t.md += ["## The paper's directions", ""] + (checks or ["- no pair of runs"]) + [""]
    t.md += ["The runtime model (T = T0 ((1-f) + f C/C0), experiments/graphs/tofa-f.tsv) "
             "was fitted on Fig. 3a (NPB-DT) and Table 1's 8x8x8 row (LAMMPS-256; "
             "LAMMPS-64 takes its f, assumed): every figure here is a prediction.", ""]


def skipped(d, runs):
    return []


def plots(d, runs, out):
    return ["No plot: the per-batch times are in the tables above.", ""]


KIND = Kind("tofa-resilience", table, validate=validate, plan=plan, run_key=run_key,
            header=header, skipped=skipped, plots=plots,
            lists={"configs": DEFAULT_CONFIGS}, load=TofaRun,
            # The instances are submitted communicating, pattern rd (the
            # runtime model reads only their share f); patterns are unused.
            default_patterns=["rd"])
