"""make compare: several runs of one experiment in one table, against a
baseline run, with their plots; runs that are not one experiment are
refused unless FORCE=1.
"""

import csv
import hashlib
import json
import os
import subprocess
import sys

from .measures import METRIC_KEYS
from .run_dir import csv_cell, load_run, ReportError, write_atomic
from .summary import fmt, pace, pace_label


# Baselines make compare measures against, first found first.
BASELINES = ("default1905", "default", "firstfit")


# What makes two replays one experiment, as (make variable, manifest key):
# runs that differ in any of these do not measure a policy's effect alone.
SAME_EXPERIMENT = [("LOG", "log_file"), ("FIRST", "first"), ("JOBS", "jobs"),
                   ("SEED", "seed"), ("COMM", "comm"), ("PATTERN", "pattern"),
                   ("RATIO", "ratio"), ("SPARSITY", "sparsity"), ("SCALE", "size_divisor"),
                   ("RUNTIME_FACTOR", "runtime_factor"), ("PREFILL", "prefill"),
                   ("LIMIT_GRID", "limit_grid_s"), ("CLUSTER", "cluster"),
                   ("CLUSTER nodes", "cluster_nodes"), ("SIZES", "sizes"),
                   ("LIMITS", "limits")]
# What a run made before a key was recorded had (the ICPP-W readings).
RECORDED_SINCE = {"sizes": "logged", "limits": "ours"}


def run_topology(run_dir, manifest):
    """The sha256 of the topology the run had, or None (older runs)."""
    if manifest.get("topology_sha256"):
        return manifest["topology_sha256"]
    path = os.path.join(run_dir, "topology.json")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def differences(runs):
    """[(parameter, "value (run) vs value (run) ...")] over the runs:
    every SAME_EXPERIMENT parameter, the topology (among runs that kept
    theirs) and SPEEDUP unless all runs have one policy (a SPEEDUP study)."""
    def shown(v):
        return "unset" if v is None else format(v, "g") if isinstance(v, float) else str(v)
    checks = [(name, [(m.get(key, RECORDED_SINCE.get(key)), m["run_id"]) for _, m, _ in runs])
              for name, key in SAME_EXPERIMENT]
    topo = [(run_topology(d, m), m["run_id"]) for d, m, _ in runs]
    checks.append(("topology", [(t[:12], r) for t, r in topo if t]))
    if len({m["policy"] for _, m, _ in runs}) > 1:
        checks.append(("SPEEDUP", [(pace(m, short=True), m["run_id"]) for _, m, _ in runs]))
    out = []
    for name, values in checks:
        if len({shown(v) for v, _ in values}) > 1:
            first = {}
            for v, r in values:
                first.setdefault(shown(v), r)
            out.append((name, " vs ".join(f"{v} ({r})" for v, r in first.items())))
    return out


def compare(run_dirs, out_dir, force=False):
    runs = []
    for d in run_dirs:
        with open(os.path.join(d, "metrics.json"), encoding="utf-8") as f:
            m = json.load(f)
        manifest, _, _ = load_run(d)
        runs.append((d, manifest, m))
    # Against a baseline run: default1905 (the ICPP-W paper's, Eq. 7's
    # denominator), else default (Slurm 24.11's tree), else firstfit (the
    # SC18 paper's); among runs of one policy (a SPEEDUP study), against
    # the first one given.
    base = next((r for b in BASELINES for r in runs if r[1]["policy"] == b), None)
    if base is None:
        if len({r[1]["policy"] for r in runs}) > 1:
            raise ReportError("RUNS mixes policies but has no baseline run to compare "
                              f"against (POLICY={', '.join(BASELINES)})")
        base = runs[0]
    invalid = [r[1]["run_id"] for r in runs if r[2].get("valid") is False]
    if invalid and not force:
        raise ReportError(f"RUNS: {', '.join(invalid)} invalid (jobs not placed by the "
                          "run's policy; see its summary.md); FORCE=1 to compare anyway")
    differ = differences(runs)
    if differ and not force:
        also = (f" (also {', '.join(n for n, _ in differ[1:])})" if differ[1:] else "")
        raise ReportError(f"RUNS differ in {differ[0][0]}: {differ[0][1]}{also}; compare "
                          "runs of one experiment, or FORCE=1 to compare anyway")
    warning = ""
    if differ:
        warning = ("**Warning (FORCE=1): these runs are not one experiment; they differ in "
                   + "; ".join(f"{n}: {v}" for n, v in differ) +
                   ". The changes below mix the policies' effect with these differences.**")
        print(f"compare: warning: FORCE=1: the runs differ in "
              f"{', '.join(n for n, _ in differ)}", file=sys.stderr)
    os.makedirs(out_dir, exist_ok=True)
    by_speedup = len({pace_label(r[1]) for r in runs}) > 1
    header = ["metric"] + [f"{r[1]['policy']}"
                           f"{' ' + pace_label(r[1]) if by_speedup else ''}"
                           f" ({r[1]['run_id']})" for r in runs]
    # Which engine made each run: Slurm on the emulated cluster, or the twin
    # (make simulate; a table of both is a cross-validation, not a policy's
    # effect).
    rows = [["engine"] + [("sim (tb-sim)" if r[1].get("engine") == "sim" else "emulation")
                          for r in runs]]
    for k in METRIC_KEYS:
        b = base[2].get(k)
        row = [k]
        for _, _, m in runs:
            v = m.get(k)
            change = ("" if (v is None or not b) else f" ({100 * (v - b) / b:+.1f}%)")
            row.append(f"{fmt(v, 3 if k in ('utilization', 'stretch_mean', 'aph_mean') else 1)}{change}")
        rows.append(row)
    with open(os.path.join(out_dir, "compare.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["metric"] + [x for r in runs for x in
                                 (r[1]["run_id"], f"{r[1]['run_id']} change %")])
        for k in METRIC_KEYS:
            b = base[2].get(k)
            cells = []
            for r in runs:
                v = r[2].get(k)
                cells += [csv_cell(v), "" if v is None or not b else f"{100 * (v - b) / b:.3f}"]
            w.writerow([k] + cells)
    if invalid:
        warning = ((warning + " ") if warning else "") + (
            "**Warning (FORCE=1): invalid runs, jobs not placed by the run's policy: "
            + ", ".join(f"`{i}`" for i in invalid) + ".**")
        print(f"compare: warning: FORCE=1: invalid runs {', '.join(invalid)}", file=sys.stderr)
    resumed = [f"`{r[1]['run_id']}`" for r in runs if r[2].get("resumed")]
    if resumed:
        warning = ((warning + " ") if warning else "") + (
            "**Resumed runs** (stopped and resumed: jobs due during a pause became "
            "eligible together, and the pause counts in makespan and utilization): "
            + ", ".join(resumed) + ".")
    damaged = [f"`{r[1]['run_id']}` ({r[2].get('fault_jobs', 0)} jobs hit by faults left out)"
               for r in runs if r[2].get("damaged")]
    if damaged:
        warning = ((warning + " ") if warning else "") + (
            "**Damaged runs:** " + "; ".join(damaged) +
            ". Their metrics are over the jobs no fault hit.**".replace("**.", "."))
    md = ["# Comparison", ""] + ([warning, ""] if warning else []) + [
          f"Change in % against the `{base[1]['policy']}` run "
          f"`{base[1]['run_id']}`.", "", "| " + " | ".join(header) + " |",
          "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]
    bars = os.path.join(out_dir, "bars.dat")
    write_atomic(bars, "".join(f"{r[1]['policy']} {r[2]['exec_hours']} "
                               f"{r[2]['wait_mean_s'] / 3600}\n" for r in runs))
    script = ""
    for term, ext in (("pngcairo size 900,500", "png"), ("svg size 900,500", "svg")):
        script += (f"set terminal {term}\nset output '{out_dir}/policies.{ext}'\n"
                   "set style data histograms\nset style fill solid 0.8\nset grid ytics\n"
                   "set ylabel 'hours'\nset title 'Execution time and mean wait by policy'\n"
                   f"plot '{bars}' using 2:xtic(1) title 'execution (h)', "
                   f"'' using 3 title 'mean wait (h)'\n")
    per_job = []
    for i, (d, man, _) in enumerate(runs):
        with open(os.path.join(d, "jobs.csv"), encoding="utf-8") as f:
            data = [(r["log_job_id"], float(r["run_s"]) / 3600) for r in csv.DictReader(f)]
        path = os.path.join(out_dir, f"perjob-{i}.dat")
        write_atomic(path, "".join(f"{k} {v}\n" for k, (_, v) in enumerate(sorted(data))))
        per_job.append((path, man["policy"]))
    for term, ext in (("pngcairo size 900,500", "png"), ("svg size 900,500", "svg")):
        plots = ", ".join(f"'{p}' using 1:2 with points pt 7 ps 0.5 title '{pol}'"
                          for p, pol in per_job)
        script += (f"set terminal {term}\nset output '{out_dir}/per_job.{ext}'\n"
                   "set style data points\nset title 'Execution time per job by policy'\n"
                   "set xlabel 'job'\nset ylabel 'execution time (h)'\n"
                   f"plot {plots}\n")
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise ReportError(f"gnuplot failed: {r.stderr.strip()[-300:]}")
    md += ["", "![policies](policies.png)", "", "![per job](per_job.png)", ""]
    write_atomic(os.path.join(out_dir, "compare.md"), "\n".join(md))
