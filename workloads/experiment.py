#!/usr/bin/env python3
"""make experiment: experiment definitions (experiments/<name>.exp), the list
of runs one needs, and the table that sets our results beside the paper's.

    experiment.py list [--dir DIR]
    experiment.py plan NAME --id ID --out EXP_DIR [--dir DIR] [--set K=V ...]
    experiment.py table EXP_DIR [--plots]
    experiment.py table --def NAME|FILE [--set K=V ...] --out DIR RUN_DIR ...

`plan` writes EXP_DIR/experiment.json and EXP_DIR/runs.tsv (one line per
replay: k, Compose project, log, cluster, pattern, policy, make variables);
scripts/experiment starts them. `table` reads the runs' manifest.json and
sacct.json (the numbers are report.py's own functions, as in metrics.json)
and writes table.md and table.csv; the second form takes run directories
directly (tests, or runs made by hand).

A definition is key = value lines ('#' starts a comment):
  description, kind (continuous | shadow | cost-by-size), logs, cluster,
  policies, baseline, patterns, metrics (continuous), baseline_per_pattern,
  sample (shadow), size_bins (cost-by-size), parallel, note (repeatable);
  UPPERCASE keys are replay parameters (JOBS, SPEEDUP, ...), and any of
  cluster and the parameters may take a '.<log>' suffix for one log;
  paper.<metric>.<log>.<pattern>.<policy> = <number>, '*' where the paper
  gives one number for all logs, patterns or policies.
"""

import argparse
import csv
import datetime
import io
import json
import math
import os
import random
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "metrics")]
import replay  # noqa: E402
import report  # noqa: E402
from logs import admin_fields  # noqa: E402

KINDS = ("continuous", "shadow", "cost-by-size")
INT_PARAMS = ("JOBS", "FIRST", "SEED", "FRONTENDS", "EMULATORS")
FLOAT_PARAMS = ("SCALE", "SPEEDUP", "COMM", "LIMIT_GRID", "RATIO", "SPARSITY", "LEAD")
PARAMS = INT_PARAMS + FLOAT_PARAMS + ("STRICT",)
# What the command line may override besides the parameters.
LIST_OVERRIDES = {"POLICIES": "policies", "POLICY": "policies",
                  "PATTERNS": "patterns", "PATTERN": "patterns"}
METRIC_TEXT = {"exec_hours": "execution time (h, total over jobs)",
               "wait_hours": "wait time (h, total over jobs)",
               "improvement_pct": "% less execution time than the baseline",
               "cost_reduction_pct": "% less communication cost than the baseline"}


class ExperimentError(Exception):
    pass


# --- definitions -------------------------------------------------------------------

class Definition:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".exp")]
        self.description = ""
        self.kind = "continuous"
        self.logs = []
        self.cluster = {}        # log or "" -> cluster
        self.policies = []
        self.baseline = "default"
        self.patterns = []
        self.metrics = ["exec_hours", "wait_hours"]
        self.baseline_per_pattern = False
        self.sample = 200
        self.size_bins = []
        self.parallel = 0
        self.params = {}         # (name, log or "") -> value
        self.notes = []
        self.overrides = []      # "K=V given on the command line (...)"
        self.paper = {}          # (metric, log, pattern, policy) -> number

    def cluster_of(self, log):
        return self.cluster.get(log, self.cluster.get(""))

    def params_of(self, log):
        out = {k: v for (k, lg), v in self.params.items() if lg == ""}
        out.update({k: v for (k, lg), v in self.params.items() if lg == log})
        return out

    def paper_value(self, metric, log, pattern, policy):
        for key in ((metric, log, pattern, policy), (metric, log, "*", policy),
                    (metric, "*", pattern, policy), (metric, log, pattern, "*")):
            if key in self.paper:
                return self.paper[key]
        return None


def check_number(name, value, where):
    if name == "STRICT":
        if value not in ("0", "1"):
            raise ExperimentError(f"{where}STRICT={value}: expected 0 or 1")
        return value
    try:
        v = int(value) if name in INT_PARAMS else float(value)
    except ValueError:
        what = "a whole number" if name in INT_PARAMS else "a number"
        raise ExperimentError(f"{where}{name}={value}: expected {what}") from None
    if name in INT_PARAMS and v < 0 or name in FLOAT_PARAMS and not math.isfinite(v):
        raise ExperimentError(f"{where}{name}={value}: expected a number >= 0")
    return value


def check_names(what, names, valid, where):
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise ExperimentError(f"{where}{what} '{' '.join(names)}': expected some of "
                              f"{' '.join(valid)}")


def clusters_available():
    d = os.path.join(ROOT, "emulated-clusters")
    return sorted(f[:-len(".cluster")] for f in os.listdir(d) if f.endswith(".cluster"))


def parse_definition(path):
    if not os.path.isfile(path):
        raise ExperimentError(f"{path}: no such experiment definition")
    d = Definition(path)
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for lineno, raw in enumerate(lines, 1):
        where = f"{path}:{lineno}: "
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ExperimentError(f"{where}expected 'key = value', got '{line}'")
        base, _, log = key.partition(".")
        if base == "paper":
            parts = key.split(".")
            if len(parts) != 5:
                raise ExperimentError(f"{where}expected paper.<metric>.<log>.<pattern>."
                                      f"<policy> = <number>, got '{key}'")
            try:
                d.paper[tuple(parts[1:])] = float(value)
            except ValueError:
                raise ExperimentError(f"{where}{key} = {value}: expected a number") from None
        elif base in PARAMS:
            d.params[(base, log)] = check_number(base, value, where)
        elif base == "cluster":
            d.cluster[log] = value
        elif log:
            raise ExperimentError(f"{where}'{key}': only cluster and UPPERCASE "
                                  "parameters take a .<log> suffix")
        elif key == "description":
            d.description = value
        elif key == "kind":
            if value not in KINDS:
                raise ExperimentError(f"{where}kind = {value}: expected one of {' '.join(KINDS)}")
            d.kind = value
        elif key in ("logs", "policies", "patterns", "metrics", "size_bins"):
            setattr(d, key, value.split())
        elif key == "baseline":
            d.baseline = value
        elif key == "baseline_per_pattern":
            if value not in ("yes", "no"):
                raise ExperimentError(f"{where}baseline_per_pattern = {value}: expected yes or no")
            d.baseline_per_pattern = value == "yes"
        elif key in ("sample", "parallel"):
            if not value.isdigit() or int(value) < 1:
                raise ExperimentError(f"{where}{key} = {value}: expected a whole number >= 1")
            setattr(d, key, int(value))
        elif key == "note":
            d.notes.append(value)
        else:
            raise ExperimentError(f"{where}unknown key '{key}'")
    validate(d, f"{path}: ")
    return d


def validate(d, where):
    if not d.logs:
        raise ExperimentError(f"{where}no logs")
    check_names("policies", d.policies, replay.POLICIES, where)
    if d.baseline not in d.policies:
        raise ExperimentError(f"{where}the baseline '{d.baseline}' is not among the "
                              f"policies '{' '.join(d.policies)}'")
    check_names("patterns", d.patterns, replay.PATTERNS + ["mix"], where)
    for log in d.logs:
        c = d.cluster_of(log)
        if c is None:
            raise ExperimentError(f"{where}no cluster for log '{log}'")
        if c not in clusters_available():
            raise ExperimentError(f"{where}cluster '{c}': expected one of "
                                  f"{' '.join(clusters_available())}")
    valid_metrics = report.METRIC_KEYS + ["wait_hours"]
    if d.kind == "continuous":
        check_names("metrics", d.metrics, valid_metrics, where)
    for b in d.size_bins:
        if not re.fullmatch(r"\d+(-\d+)?", b):
            raise ExperimentError(f"{where}size_bins '{b}': expected <n> or <from>-<to>")


def find_definition(name_or_path, directory):
    if os.sep in name_or_path or name_or_path.endswith(".exp"):
        return parse_definition(name_or_path)
    path = os.path.join(directory, name_or_path + ".exp")
    if not os.path.exists(path):
        raise ExperimentError(f"unknown EXP '{name_or_path}'; valid: "
                              f"{' '.join(list_names(directory))}")
    return parse_definition(path)


def list_names(directory):
    return sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".exp"))


def apply_overrides(d, sets):
    """K=V from the command line replace the definition's values; each one
    is recorded, so that the table says what differs from the definition."""
    for kv in sets:
        key, sep, value = kv.partition("=")
        if not sep:
            raise ExperimentError(f"--set {kv}: expected K=V")
        where = ""
        if key == "CLUSTER":
            old = " ".join(sorted(set(d.cluster_of(lg) for lg in d.logs)))
            d.cluster = {"": value}
        elif key in LIST_OVERRIDES:
            attr = LIST_OVERRIDES[key]
            old = " ".join(getattr(d, attr))
            setattr(d, attr, value.split())
        elif key == "BASELINE":
            old = d.baseline
            d.baseline = value
        elif key in PARAMS:
            check_number(key, value, where)
            olds = sorted({f"{v}{' for ' + lg if lg else ''}"
                           for (k, lg), v in d.params.items() if k == key})
            old = ", ".join(olds) or "unset"
            d.params = {(k, lg): v for (k, lg), v in d.params.items() if k != key}
            d.params[(key, "")] = value
        else:
            raise ExperimentError(f"{key}={value}: an experiment takes CLUSTER, POLICIES, "
                                  f"PATTERNS, BASELINE and {' '.join(PARAMS)}")
        d.overrides.append(f"{key}={value} given on the command line (definition: {old})")
    validate(d, "")


# --- the runs ----------------------------------------------------------------------

def planned_runs(d):
    """One replay per log x pattern x policy (continuous; the baseline once
    per log unless baseline_per_pattern), or one under the baseline per log
    x pattern (the same-state kinds, which read every policy's cost from it)."""
    runs = []
    for log in d.logs:
        for i, pattern in enumerate(d.patterns):
            policies = d.policies if d.kind == "continuous" else [d.baseline]
            for policy in policies:
                if (d.kind == "continuous" and policy == d.baseline and i > 0
                        and not d.baseline_per_pattern):
                    continue
                runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": pattern,
                             "policy": policy, "params": d.params_of(log)})
    return runs


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def plan(d, exp_id, out, sets=()):
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", exp_id):
        raise ExperimentError(f"experiment id '{exp_id}': expected lowercase letters, "
                              "digits, '-' and '_' (a Compose project name)")
    if os.path.exists(out):
        raise ExperimentError(f"{out}: already exists")
    runs = planned_runs(d)
    tmp = f"{out}.tmp-{os.getpid()}"
    try:
        os.makedirs(os.path.join(tmp, "runs"))
        os.makedirs(os.path.join(tmp, "state"))
        lines = []
        for k, r in enumerate(runs, 1):
            params = " ".join(f"{key}={v}" for key, v in sorted(r["params"].items()))
            lines.append("\t".join([str(k), f"{exp_id}-{k}", r["log"], r["cluster"],
                                    r["pattern"], r["policy"], params]))
        write_atomic(os.path.join(tmp, "runs.tsv"), "\n".join(lines) + "\n")
        with open(d.path, encoding="utf-8") as f:
            text = f.read()
        # The table reads this copy: a later edit of the definition does
        # not change what an experiment ran.
        write_atomic(os.path.join(tmp, "definition.exp"), text)
        meta = {"id": exp_id, "name": d.name, "definition_file": os.path.relpath(d.path, ROOT),
                "definition": text, "overrides": d.overrides,
                "sets": list(sets),
                "parallel": d.parallel, "runs": len(runs),
                "git_revision": replay.git_revision(ROOT),
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        write_atomic(os.path.join(tmp, "experiment.json"), json.dumps(meta, indent=2) + "\n")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return runs


# --- results -------------------------------------------------------------------------

class Run:
    """One finished replay: what it ran and its jobs."""

    def __init__(self, run_dir):
        self.dir = run_dir
        self.manifest, sacct, planned = report.load_run(run_dir)
        m = self.manifest
        log = m.get("log", "")
        self.log = log if os.sep not in log else os.path.basename(log)
        self.pattern = m.get("pattern", "")
        self.policy = m["policy"]
        self.run_id = m["run_id"]
        self.rows = report.job_rows(m, sacct, {})
        self.metrics = report.metrics(self.rows, m["cluster_nodes"])
        # The paper's Table 3 gives wait hours summed over the jobs.
        self.metrics["wait_hours"] = sum(r["wait_s"] for r in self.rows) / 3600
        got = {r["log_job_id"] for r in self.rows}
        self.missing = [x for x in planned if x not in got]
        self.costs = {}          # job id -> {policy: cost}, all recorded costs
        for j in sacct.get("jobs", []):
            a = admin_fields(j.get("comment", {}).get("administrator"))
            self.costs[j["job_id"]] = {k[len("cost_"):]: report.fnum(v)
                                       for k, v in a.items() if k.startswith("cost_")}
        for r in self.rows:
            r["costs"] = self.costs.get(r["job_id"], {})


def load_runs(run_dirs):
    runs = {}
    for rd in run_dirs:
        try:
            r = Run(rd)
        except report.ReportError as e:
            raise ExperimentError(str(e)) from None
        except (OSError, ValueError, KeyError) as e:
            raise ExperimentError(f"{rd}: not a readable replay ({e})") from None
        key = (r.log, r.pattern, r.policy)
        if key in runs:
            raise ExperimentError(f"two runs of {'/'.join(key)}: {runs[key].run_id} "
                                  f"and {r.run_id}")
        runs[key] = r
    return runs


def run_for(d, runs, log, pattern, policy):
    """The run of log x pattern x policy; the baseline of another pattern
    when the baseline is run once per log."""
    r = runs.get((log, pattern, policy))
    if r is None and policy == d.baseline and not d.baseline_per_pattern:
        r = next((runs[(log, p, policy)] for p in d.patterns if (log, p, policy) in runs), None)
    return r


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


def shadow_runtimes(rows, policies):
    """Total runtime of the jobs had each policy placed every job on the
    state it met (Eq. 7 with the recorded same-state costs), as
    report.individual_runs computes it, for any policy names recorded."""
    totals = {p: 0.0 for p in policies}
    for r in rows:
        b, f = r["runtime_base_s"], r["comm_percent"] / 100
        if not b > 0:
            continue
        cd = r["costs"].get("default", float("nan"))
        for p in policies:
            cp = r["costs"].get(p, float("nan"))
            if math.isnan(cp) or math.isnan(cd):
                totals[p] += b
            else:
                totals[p] += b * (1 - f) + b * f * (cp / cd if cd > 0 else 1)
    return totals


def improvement(rows, policies, baseline):
    t = shadow_runtimes(rows, policies)
    base = t[baseline]
    return {p: (100 * (base - t[p]) / base if base > 0 else float("nan")) for p in policies}


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


def header_md(d, runs, meta):
    out = [f"# Experiment {d.name}" + (f" ({meta['id']})" if meta else ""), "",
           d.description, ""]
    if runs:
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        out += [f"Ours: {len(rs)} replays, {m['jobs']} jobs each of `{m.get('log_file', m['log'])}`"
                f"{' (and others)' if len(d.logs) > 1 else ''} from job {m['first']}, "
                f"SPEEDUP={m['speedup']:g}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
                "Paper: Agrawal et al., ICPP-W 2020. Times are log time.", ""]
    out += ["What differs from the paper's setting:", ""]
    out += [f"- {n}" for n in d.notes] or ["- nothing noted"]
    out += [f"- {o}" for o in d.overrides]
    skipped = sorted({(r.log, r.manifest.get("skipped_too_big", 0)) for r in runs.values()
                      if r.manifest.get("skipped_too_big")})
    out += [f"- {n} jobs of the {lg} window larger than the cluster were skipped"
            for lg, n in skipped]
    incomplete = [r.run_id for r in runs.values() if r.missing]
    if incomplete:
        out += [f"- **incomplete runs** (jobs missing from sacct.json): {', '.join(incomplete)}"]
    return out + [""]


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
                    t.csv_rows.append([log, pattern, policy, m, report.csv_cell(ours),
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
    t.md += ["", "Ordering of the policies, lowest first (`=`: equal at the precision shown):",
             "", "| log | pattern | metric | ours | paper | agrees | same best |",
             "|---|---|---|---|---|---|---|"]
    for log, pattern, m, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        best = "-" if o is None or p is None else (
            "yes" if o.split(" < ")[0] == p.split(" < ")[0] else "no")
        t.md.append(f"| {log} | {pattern} | {m} | {o or '-'} | {p or '-'} | {agrees} | {best} |")
    t.md.append("")


def table_shadow(d, runs, t, seed):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "policy", "jobs", "ours_sample_pct", "ours_all_pct",
                    "ours_comm_pct", "paper_pct", "run_id"]
    t.md += [f"% less execution time than `{d.baseline}` at equal cluster state (the "
             "paper's Table 4 sign: positive is better). Ours: each job's runtime under "
             "each policy from the same-state costs through Eq. 7, totalled over "
             f"{d.sample} jobs drawn with SEED={seed} (sample), over all jobs, and over "
             "the communication-intensive ones.", "",
             "| log | pattern | policy | ours (sample) | ours (all jobs) | ours (comm jobs) | paper |",
             "|---|---|---|---|---|---|---|"]
    orders = []
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r:
                chosen = sample_rows(r.rows, d.sample, seed)
                s = improvement(chosen, d.policies, d.baseline)
                a = improvement(r.rows, d.policies, d.baseline)
                c = improvement([x for x in r.rows if x["comm"]], d.policies, d.baseline)
            ours, paper = {}, {}
            for policy in others:
                pv = d.paper_value("improvement_pct", log, pattern, policy)
                vals = (s[policy], a[policy], c[policy]) if r else (None, None, None)
                ours[policy], paper[policy] = vals[0], pv
                t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                            + " | ".join(fmt(v, 2) for v in vals) + f" | {fmt(pv, 2)} |")
                t.csv_rows.append([log, pattern, policy, len(chosen) if r else "",
                                   *("" if v is None else f"{v:.4f}" for v in vals),
                                   "" if pv is None else f"{pv:g}", r.run_id if r else ""])
            orders.append((log, pattern, ordering(ours, 2, True), ordering(paper, 2, True)))
    t.md += ["", "Ordering by improvement, highest first (ours: the sample):", "",
             "| log | pattern | ours | paper | agrees |", "|---|---|---|---|---|"]
    for log, pattern, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        t.md.append(f"| {log} | {pattern} | {o or '-'} | {p or '-'} | {agrees} |")
    t.md.append("")


def table_cost_by_size(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "size_range", "jobs"] + \
        [x for p in d.policies for x in (f"mean_cost_{p}", f"change_pct_{p}")] + ["run_id"]
    t.md += ["Mean communication cost (Eq. 6) of the communication-intensive jobs of each "
             f"size range (nodes), each policy's cost on the same cluster state; in "
             f"brackets the % change of the total against `{d.baseline}`.", "",
             "| log | pattern | nodes | jobs | " + " | ".join(d.policies) + " |",
             "|---|---|---|---|" + "---|" * len(d.policies)]
    reductions = {}          # (log, pattern) -> {policy: % less total cost}
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r is None:
                t.md.append(f"| {log} | {pattern} | (not run) | | " + " | " * len(d.policies))
                continue
            jobs = [x for x in r.rows if x["comm"] and all(
                not math.isnan(x["costs"].get(p, float("nan"))) for p in d.policies)]
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
                if b == "all":
                    reductions[(log, pattern)] = {
                        p: (-change(tot[p], tot[d.baseline]) if sel and tot[d.baseline] else None)
                        for p in others}
    t.md += ["", "The paper's numbers (text of §6.4; the figure is missing from our copy): "
             "% less communication cost than the baseline. \"All policies\" is the paper's "
             "\"across all algorithms\", read here as the mean of the three policies' "
             "reductions of the total.", "",
             "| log | pattern | policy | ours | paper |", "|---|---|---|---|---|"]
    for (metric, log, pattern, policy), pv in sorted(d.paper.items()):
        if metric != "cost_reduction_pct":
            continue
        ours = None
        if log == "*":
            vals = [reductions[(lg, pattern)][policy] for lg in d.logs
                    if (lg, pattern) in reductions and reductions[(lg, pattern)].get(policy) is not None]
            ours = sum(vals) / len(vals) if vals and len(vals) == len(d.logs) else None
            shown_log = "mean of " + ", ".join(d.logs)
        else:
            red = reductions.get((log, pattern))
            if red and policy == "*":
                vals = [v for v in red.values() if v is not None]
                ours = sum(vals) / len(vals) if vals else None
            elif red:
                ours = red.get(policy)
            shown_log = log
        run = "" if ours is not None else " (not run)"
        t.md.append(f"| {shown_log} | {pattern} | "
                    f"{'all policies' if policy == '*' else policy} | {fmt(ours, 2)}{run} | {pv:g} |")
    t.md.append("")


def build_table(d, run_dirs, out, meta=None, plots=False):
    runs = load_runs(run_dirs)
    t = Table()
    t.md = header_md(d, runs, meta)
    seed = int(d.params_of(d.logs[0]).get("SEED", 0))
    if d.kind == "continuous":
        table_continuous(d, runs, t)
    elif d.kind == "shadow":
        table_shadow(d, runs, t, seed)
    else:
        table_cost_by_size(d, runs, t)
    t.md += plot_section(d, runs, out) if plots else []
    os.makedirs(out, exist_ok=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(t.csv_header)
    w.writerows(t.csv_rows)
    write_atomic(os.path.join(out, "table.csv"), buf.getvalue())
    write_atomic(os.path.join(out, "table.md"), "\n".join(t.md))
    return runs


def plot_section(d, runs, out):
    """report.py compare's plots (execution and mean wait by policy, per-job
    times) for each log x pattern of a continuous experiment."""
    if d.kind != "continuous":
        return ["No plot: report.py has no plot of same-state costs to reuse.", ""]
    lines = []
    for log in d.logs:
        for pattern in d.patterns:
            group = [run_for(d, runs, log, pattern, p) for p in d.policies]
            if any(r is None for r in group):
                continue
            dest = os.path.join(out, f"compare-{log}-{pattern}")
            try:
                report.compare([r.dir for r in group], dest)
                lines += [f"![{log} {pattern}](compare-{log}-{pattern}/policies.png)", ""]
            except Exception as e:  # noqa: BLE001 - a plot is optional; say why not
                lines += [f"No plot for {log} {pattern}: {type(e).__name__}: {e}", ""]
    return lines


# --- entry -----------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    p = sub.add_parser("plan")
    p.add_argument("name")
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    p.add_argument("--set", action="append", default=[])
    t = sub.add_parser("table")
    t.add_argument("paths", nargs="+", metavar="EXP_DIR | RUN_DIR")
    t.add_argument("--def", dest="definition")
    t.add_argument("--set", action="append", default=[])
    t.add_argument("--out")
    t.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    t.add_argument("--plots", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "list":
            for name in list_names(args.dir):
                d = parse_definition(os.path.join(args.dir, name + ".exp"))
                print(f"{name:22s} {d.description}")
        elif args.cmd == "plan":
            d = find_definition(args.name, args.dir)
            apply_overrides(d, args.set)
            runs = plan(d, args.id, args.out, args.set)
            print(f"experiment {args.id}: {len(runs)} replays")
        elif args.definition:
            if not args.out:
                raise ExperimentError("table --def needs --out <dir>")
            d = find_definition(args.definition, args.dir)
            apply_overrides(d, args.set)
            build_table(d, args.paths, args.out, plots=args.plots)
            print(f"table: {len(args.paths)} runs -> {args.out}/table.md")
        else:
            if len(args.paths) != 1:
                raise ExperimentError("table: one experiment directory, or --def with run directories")
            exp_dir = args.paths[0]
            meta_path = os.path.join(exp_dir, "experiment.json")
            if not os.path.exists(meta_path):
                raise ExperimentError(f"{exp_dir}: no experiment.json; not an experiment directory")
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
            d = parse_definition(os.path.join(exp_dir, "definition.exp"))
            d.name = meta["name"]
            apply_overrides(d, meta.get("sets", []))
            dirs = []
            for line in open(os.path.join(exp_dir, "runs.tsv"), encoding="utf-8"):
                k = line.split("\t", 1)[0]
                rid_path = os.path.join(exp_dir, "state", f"{k}.run")
                if os.path.exists(os.path.join(exp_dir, "state", f"{k}.done")):
                    rid = open(rid_path, encoding="utf-8").read().strip()
                    dirs.append(os.path.join(exp_dir, "runs", rid))
            build_table(d, dirs, args.out or exp_dir, meta, plots=args.plots)
            print(f"table: {len(dirs)} runs -> {args.out or exp_dir}/table.md")
        return 0
    except ExperimentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
