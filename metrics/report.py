#!/usr/bin/env python3
"""Metrics, tables and plots of a replay: results/<run-id>/ -> jobs.csv,
metrics.json, summary.md and plots; or a comparison of several runs.

    report.py report <run-dir> [--aph-tool PATH --topology JSON]
    report.py compare <run-dir> <run-dir> ... --out <dir>

Times are in log time: wall-clock seconds since the replay's origin (t0)
multiplied by the run's SPEEDUP, so runs at different speedups compare.
"""

import argparse
import csv
import functools
import hashlib
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "workloads"),
                os.path.join(HERE, "..", "emulated-clusters")]
import eq7  # noqa: E402
import faults  # noqa: E402
from generate import RegistryError, expand_hostlist, policy_registry  # noqa: E402
from logs import admin_fields  # noqa: E402

METRIC_KEYS = ["jobs", "makespan_s", "utilization", "wait_mean_s", "wait_median_s",
               "wait_p95_s", "turnaround_mean_s", "stretch_mean", "exec_hours",
               "node_hours", "comm_cost_total", "comm_cost_mean", "aph_mean",
               "hop_bytes_total"]
JOB_FIELDS = ["job_id", "log_job_id", "nodes", "cpus", "submit", "eligible", "start", "end",
              "wait_s", "run_s", "turnaround_s", "node_hours", "comm", "pattern",
              "comm_percent", "policy", "cost", "cost_default", "runtime_base_s",
              "runtime_scaled_s", "leaves", "aph", "matrix_ranks", "hop_bytes",
              "hop_bytes_default", "fallback", "fault", "rerun_of", "prefill",
              "runtime_fallback"]
# Baselines make compare measures against, first found first.
BASELINES = ("default1905", "default", "firstfit")


class ReportError(Exception):
    pass


@functools.lru_cache(maxsize=None)
def policies():
    """The policies of the library's registry, in its order, as the build
    wrote them (generate.policy_registry: the build's policies.tsv)."""
    try:
        return tuple(p[0] for p in policy_registry())
    except RegistryError as e:
        raise ReportError(str(e)) from None


def fnum(value, default=float("nan")):
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def load_run(run_dir):
    for f in ("manifest.json", "sacct.json"):
        if not os.path.exists(os.path.join(run_dir, f)):
            raise ReportError(f"{run_dir}: no {f}; is this a finished replay?")
    with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    with open(os.path.join(run_dir, "sacct.json"), encoding="utf-8") as f:
        sacct = json.load(f)
    planned = []
    plan_path = os.path.join(run_dir, "plan.tsv")
    if os.path.exists(plan_path):
        with open(plan_path, encoding="utf-8") as f:
            planned = [row["log_id"] for row in csv.DictReader(f, delimiter="\t")]
    return manifest, sacct, planned


def prefill_ids(run_dir):
    """The log ids of the jobs a replay ran before its window to fill the
    machine (PREFILL; plan.tsv's prefill column): not the workload, so no
    metric counts them."""
    path = os.path.join(run_dir, "plan.tsv")
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return {row["log_id"] for row in csv.DictReader(f, delimiter="\t")
                if row.get("prefill") == "1"}


def mark_prefill(rows, ids):
    """Sets each row's "prefill" (1: a PREFILL job); returns the workload's
    rows, the others."""
    for r in rows:
        r["prefill"] = int(r["log_job_id"] in ids)
    return [r for r in rows if not r["prefill"]]


def job_rows(manifest, sacct, aph, deaths=()):
    """One dict per log job, times in log time: a job run again after a
    fault (RERUN_FAULTED=1) stands for its log job in place of the job it
    replaces, whose Slurm id is its rerun_of (faults.py)."""
    t0, s = manifest["t0"], manifest["speedup"]
    run_id = manifest["run_id"]
    rows = []
    # Every attempt's Slurm id, ended or not: a rerun names the one before.
    attempts = {}
    for j in sacct.get("jobs", []):
        attempts.setdefault(job_log_id(j.get("name", ""), run_id), {})[
            faults.strip_rerun(j.get("name", ""))[1]] = j["job_id"]
    for j in sacct.get("jobs", []):
        a = admin_fields(j.get("comment", {}).get("administrator"))
        t = j["time"]
        eligible, start, end = t["eligible"], t["start"], t["end"]
        if not start or not end:
            continue
        name = j.get("name", "")
        log_id, attempt = job_log_id(name, run_id), faults.strip_rerun(name)[1]
        before = [n for n in attempts[log_id] if n < attempt]
        nodes = int(j.get("allocation_nodes", 0))
        run_s = (end - start) * s
        leaves, pairwise = aph.get(j["job_id"], (float("nan"), float("nan")))
        rows.append({
            "job_id": j["job_id"], "log_job_id": log_id, "nodes": nodes,
            "submit": round((eligible - t0) * s, 3),
            "eligible": round((eligible - t0) * s, 3),
            "start": round((start - t0) * s, 3), "end": round((end - t0) * s, 3),
            "wait_s": (start - eligible) * s, "run_s": run_s,
            "turnaround_s": (end - eligible) * s,
            "node_hours": nodes * run_s / 3600,
            # CPUs Slurm allocated: whole nodes' under the partition main,
            # the job's cores under cores (GRANULARITY=core).
            "cpus": next((int(x.get("count", 0))
                          for x in j.get("tres", {}).get("allocated", [])
                          if x.get("type") == "cpu"), 0),
            "comm": int(fnum(a.get("comm"), 0)), "pattern": a.get("pattern", ""),
            "comm_percent": fnum(a.get("comm_percent")),
            "policy": a.get("policy", manifest.get("policy", "")),
            "cost": fnum(a.get("cost")), "cost_default": fnum(a.get("cost_default")),
            # Eq. 7's Cost_Default: the record names it (default1905, the
            # paper's baseline); records before it was named used default.
            "denominator": a.get("denominator", "default"),
            # Every cost the record holds, by policy name (cost_default is
            # the default policy's): Eq. 7's numerators and denominator.
            "cost_by_policy": {k[len("cost_"):]: fnum(v) for k, v in a.items()
                               if k.startswith("cost_")},
            "runtime_base_s": fnum(a.get("runtime_base")),
            "runtime_scaled_s": fnum(a.get("runtime_scaled")),
            "leaves": leaves, "aph": pairwise,
            # Only jobs with a communication matrix (SPARSITY) have these.
            "matrix_ranks": fnum(a.get("matrix_ranks")),
            "hop_bytes": fnum(a.get("hop_bytes")),
            "hop_bytes_default": fnum(a.get("hop_bytes_default")),
            # No record: the plugin did not choose this job's nodes (a
            # controller that lost its topology, or not running commtree).
            "recorded": "policy" in a,
            "fallback": a.get("fallback", ""),
            # The plugin had a cost missing and ran the log's runtime
            # (no_cost, no_denominator): not a modelled runtime.
            "runtime_fallback": a.get("runtime_fallback", ""),
            "fault": faults.job_fault(j, deaths),
            "attempt": attempt,
            "rerun_of": attempts[log_id][max(before)] if before else "",
        })
    rows, _ = faults.one_per_log(rows, key=lambda r: (r["log_job_id"], r["attempt"]))
    return sorted(rows, key=lambda r: (r["eligible"], r["job_id"]))


def job_log_id(name, run_id):
    """The log job a Slurm job name stands for (a rerun's too); a name
    that is not the run's is its own."""
    base = faults.strip_rerun(name)[0]
    return base[len(run_id) + 1:] if base.startswith(run_id + ":") else name


def metrics(rows, cluster_nodes, cluster_cores=0):
    """The papers' metrics over a set of jobs. cluster_cores: for a run whose
    jobs share nodes (GRANULARITY=core), utilization counts CPUs."""
    if not rows:
        return {k: (0 if k == "jobs" else float("nan")) for k in METRIC_KEYS}
    first = min(r["eligible"] for r in rows)
    last = max(r["end"] for r in rows)
    makespan = last - first
    waits = [r["wait_s"] for r in rows]
    costs = [r["cost"] for r in rows if not math.isnan(r["cost"])]
    aphs = [r["aph"] for r in rows if not math.isnan(r["aph"])]
    hop_bytes = [r["hop_bytes"] for r in rows if not math.isnan(r["hop_bytes"])]
    stretches = [r["turnaround_s"] / r["runtime_base_s"] for r in rows
                 if r["runtime_base_s"] > 0]
    return {
        "jobs": len(rows),
        "makespan_s": makespan,
        "utilization": (
            (sum(r["cpus"] * r["run_s"] for r in rows) / (cluster_cores * makespan))
            if cluster_cores else
            (sum(r["nodes"] * r["run_s"] for r in rows) / (cluster_nodes * makespan))
        ) if makespan > 0 else float("nan"),
        "wait_mean_s": statistics.fmean(waits),
        "wait_median_s": statistics.median(waits),
        "wait_p95_s": percentile(waits, 0.95),
        "turnaround_mean_s": statistics.fmean(r["turnaround_s"] for r in rows),
        # Flow time over the runtime the job has under default (its log
        # runtime), as in the TreeMatch paper.
        "stretch_mean": statistics.fmean(stretches) if stretches else float("nan"),
        "exec_hours": sum(r["run_s"] for r in rows) / 3600,
        "node_hours": sum(r["node_hours"] for r in rows),
        "comm_cost_total": sum(costs),
        "comm_cost_mean": statistics.fmean(costs) if costs else float("nan"),
        "aph_mean": statistics.fmean(aphs) if aphs else float("nan"),
        "hop_bytes_total": sum(hop_bytes) if hop_bytes else float("nan"),
    }


def individual_runs(rows):
    """The study's Table 4 from one replay: each job's runtime had each
    policy placed it on the same cluster state (Eq. 7, eq7.py), against
    the log's runtimes, that is the record's denominator (default1905).
    Returns ({subset: {policy: %}}, {subset: {policy: left-out job ids}}):
    a job whose cost a policy lacks is left out of that policy's figure
    and named, never counted as no change."""
    out, left = {}, {}
    for subset, sel in (("all", rows), ("comm", [r for r in rows if r["comm"]])):
        out[subset], gone = eq7.changes(sel, policies())
        if gone:
            left[subset] = gone
    return out, left


def clean(value):
    """JSON has no NaN: missing numbers are null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    return value


def csv_cell(v):
    """Numbers in one format whatever their type: 20.0 and 20 are "20"."""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.10g}"
    return v


def write_atomic(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def fmt(v, digits=1):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, int):
        return str(v)
    return f"{v:,.{digits}f}"


def compute_aph(rows_src, sacct, tool, topology):
    """(leaves, APH) per job id from the library's tb-aph."""
    if not tool or not topology:
        return {}
    if not os.access(tool, os.X_OK):
        raise ReportError(f"{tool}: not built; run 'make -C plugins tools'")
    if not os.path.exists(topology):
        raise ReportError(f"{topology}: no such topology file")
    lines = []
    for j in sacct.get("jobs", []):
        names = expand_hostlist(j.get("nodes", ""))
        if names and names != ["None assigned"]:
            lines.append(f"{j['job_id']} {','.join(names)}")
    r = subprocess.run([tool, topology], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    # A node the topology lacks (another cluster's tree) would leave APH
    # silently wrong: any complaint stops the report.
    err = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[0]
    if r.returncode != 0 or r.stderr.strip():
        raise ReportError(f"{os.path.basename(tool)} failed on {topology}: {err}")
    out = {}
    try:
        for line in r.stdout.splitlines():
            jid, leaves, aph = line.split()
            out[int(jid)] = (int(leaves), float(aph))
    except ValueError:
        raise ReportError(f"{os.path.basename(tool)}: unexpected output '{line}'")
    if len(out) != len(lines):
        raise ReportError(f"{os.path.basename(tool)} measured {len(out)} of "
                          f"{len(lines)} jobs on {topology}")
    return out


def check_isolation(sacct, tool, topology):
    """The SC18 invariants over every pair of jobs that ran at the same
    time (tb-isolation): the violations, one line each ([] when none)."""
    if not os.access(tool, os.X_OK):
        raise ReportError(f"{tool}: not built; run 'make -C plugins tools'")
    with open(topology, encoding="utf-8") as f:
        index = {n["name"]: i for i, n in enumerate(json.load(f)["nodes"])}
    lines = []
    for j in sacct.get("jobs", []):
        t = j.get("time", {})
        names = expand_hostlist(j.get("nodes", ""))
        if not t.get("start") or not t.get("end") or not names or names == ["None assigned"]:
            continue
        try:
            idx = ",".join(str(index[n]) for n in names)
        except KeyError as e:
            raise ReportError(f"{topology}: no node {e} (job {j['job_id']})")
        lines.append(f"{j['job_id']} {t['start']} {t['end']} {idx}")
    r = subprocess.run([tool, topology, "-"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    if r.returncode not in (0, 1) or r.stderr.strip():
        err = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[0]
        raise ReportError(f"{os.path.basename(tool)} failed on {topology}: {err}")
    return [line for line in r.stdout.splitlines() if line.strip()]


def plot(run_dir, rows, cluster_nodes):
    """Utilization over time, wait-time CDF, runtime per job; PNG and SVG."""
    data = os.path.join(run_dir, "plots")
    os.makedirs(data, exist_ok=True)
    # All starts and ends of one instant count together: applied one by one
    # they would draw dips that never happened.
    change = {}
    for r in rows:
        change[r["start"]] = change.get(r["start"], 0) + r["nodes"]
        change[r["end"]] = change.get(r["end"], 0) - r["nodes"]
    busy, util = 0, []
    for t in sorted(change):
        busy += change[t]
        util.append(f"{t / 3600:.6f} {busy / cluster_nodes:.6f}")
    waits = sorted(r["wait_s"] / 3600 for r in rows)
    cdf = [f"{w:.6f} {(i + 1) / len(waits):.6f}" for i, w in enumerate(waits)]
    runs = [f"{i} {r['run_s'] / 3600:.6f}" for i, r in enumerate(rows)]
    for name, lines in (("utilization", util), ("wait_cdf", cdf), ("runtime", runs)):
        write_atomic(os.path.join(data, name + ".dat"), "\n".join(lines) + "\n")
    specs = [
        ("utilization", "Utilization over time", "log time (h)", "busy nodes (fraction)",
         "with steps lw 1.5 title ''", "[0:*]", "[0:1.05]"),
        ("wait_cdf", "Wait time CDF", "wait (h)", "fraction of jobs",
         "with steps lw 1.5 title ''", "[0:*]", "[0:1.05]"),
        ("runtime", "Runtime per job", "job (by eligible time)", "runtime (h)",
         "with impulses lw 1 title ''", "[0:*]", "[0:*]"),
    ]
    script = []
    for name, title, xl, yl, style, xr, yr in specs:
        for term, ext in (("pngcairo size 900,500", "png"), ("svg size 900,500", "svg")):
            script.append(f"set terminal {term}\nset output '{data}/{name}.{ext}'\n"
                          f"set title '{title}'\nset xlabel '{xl}'\nset ylabel '{yl}'\n"
                          f"set xrange {xr}\nset yrange {yr}\n"
                          f"set grid\nplot '{data}/{name}.dat' using 1:2 {style}\n")
    r = subprocess.run(["gnuplot"], input="".join(script), capture_output=True,
                       text=True, check=False)
    if r.returncode != 0:
        raise ReportError(f"gnuplot failed: {r.stderr.strip()[-300:]}")
    return [f"plots/{spec[0]}.png" for spec in specs]


def reservation_delays(run_dir, manifest, rows, planned):
    """How often backfill delayed the reserved job (SC18 issue, item 2):
    the plugin cannot tell Slurm's backfill which leaves the first blocked
    job will need, so a later job may take them. From reservations.tsv
    (the replay's samples, once a wall second, of the first job blocked on
    resources and the start Slurm plans for it): a reserved job counts as
    delayed when it started later than the earliest start planned for it,
    by more than two samples' worth of log time, and a job later in the log
    started between its first planned start being seen and its own start.
    An upper bound: Slurm's plan can also slip for other reasons. None
    without the file (runs before it existed). Times in log seconds."""
    path = os.path.join(run_dir, "reservations.tsv")
    if not os.path.exists(path):
        return None
    t0, s = manifest["t0"], manifest["speedup"]
    pace = manifest.get("clock_rate", 1) if manifest.get("clock") == "virtual" else 1
    tol = 2.0 * pace * s
    seen, plan_first = {}, {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            try:
                now, log_id, at = float(parts[0]), parts[1], float(parts[2])
            except (IndexError, ValueError):
                raise ReportError(f"{path}:{n}: expected <time> <log id> <planned start>, "
                                  f"got {line.strip()!r}") from None
            seen.setdefault(log_id, (now - t0) * s)
            plan_first[log_id] = min(plan_first.get(log_id, math.inf), (at - t0) * s)
    order = {k: i for i, k in enumerate(planned)}
    by_id = {r["log_job_id"]: r for r in rows}
    delays = []
    for log_id, first in plan_first.items():
        r = by_id.get(log_id)
        if r is None or log_id not in order or r["start"] <= first + tol:
            continue
        if any(order.get(o["log_job_id"], -1) > order[log_id]
               and seen[log_id] <= o["start"] < r["start"] for o in rows):
            delays.append(r["start"] - first)
    return {"reservations": len(plan_first), "reservation_delays": len(delays),
            "reservation_delay_mean_s": statistics.fmean(delays) if delays else 0.0,
            "reservation_tolerance_s": tol}


# A job whose script began this long (log s) after its own end (start +
# runtime) is the emulator's artefact, not the policy's: launch.tsv's late_s
# (workloads/launch.py). It is flagged like a fault and left out.
LATE_LAUNCH_S = 60.0


def mark_late_launches(rows, run_dir):
    """Sets fault "late_launch" on the rows launch.tsv says ended more than
    LATE_LAUNCH_S late; returns how many."""
    path = os.path.join(run_dir, "launch.tsv")
    if not os.path.exists(path):
        return 0
    late = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            try:
                late[str(row["job_id"])] = float(row["late_s"])
            except (KeyError, TypeError, ValueError):
                continue
    n = 0
    for r in rows:
        if not r["fault"] and late.get(str(r["job_id"]), 0.0) > LATE_LAUNCH_S:
            r["fault"] = "late_launch"
            n += 1
    return n


def topology_cores(path):
    """All cores of a topology.json."""
    with open(path, encoding="utf-8") as f:
        return sum(int(n.get("cores", 1)) for n in json.load(f)["nodes"])


def report(run_dir, aph_tool, topology, isolation_tool=None):
    manifest, sacct, planned = load_run(run_dir)
    aph = compute_aph(None, sacct, aph_tool, topology)
    deaths = faults.deaths(run_dir)
    all_rows = job_rows(manifest, sacct, aph, deaths)
    late_launches = mark_late_launches(all_rows, run_dir)
    cluster_nodes = manifest["cluster_nodes"]
    got = {r["log_job_id"] for r in all_rows}
    missing = [x for x in planned if x not in got]
    # Jobs hit by a fault are never counted: they are in jobs.csv with the
    # reason, and the metrics are over the others (the run is damaged).
    # Nor are the jobs that filled the machine before the window (PREFILL).
    workload = mark_prefill(all_rows, prefill_ids(run_dir))
    rows = [r for r in workload if not r["fault"]]
    cores = topology_cores(topology) if manifest.get("granularity") == "core" else 0
    m = metrics(rows, cluster_nodes, cores)
    m["prefill_jobs"] = len(all_rows) - len(workload)
    m["comm"] = metrics([r for r in rows if r["comm"]], cluster_nodes, cores)
    m["compute"] = metrics([r for r in rows if not r["comm"]], cluster_nodes, cores)
    m["individual_runs_improvement_percent"], left = individual_runs(rows)
    m["individual_runs_left_out"] = left
    # Jobs the plugin ran for their log runtime for lack of a cost: named,
    # since a figure over them is not Eq. 7's.
    fell_back = [r["log_job_id"] for r in rows if r["runtime_fallback"]]
    m["runtime_fallback_jobs"] = len(fell_back)
    if fell_back:
        m["runtime_fallback_ids"] = fell_back
    m["fault_jobs"] = len(workload) - len(rows)
    m["fault_events"] = len(deaths)
    m["requeued_jobs"] = sum(1 for r in all_rows if r["fault"] == "requeued")
    m["late_launch_jobs"] = sum(1 for r in workload if r["fault"] == "late_launch")
    m["late_launch_all_jobs"] = late_launches
    m["damaged"] = bool(m["fault_jobs"] or deaths)
    # Log jobs counted by their rerun (RERUN_FAULTED=1), not the faulted job.
    m["rerun_jobs"] = sum(1 for r in all_rows if r["attempt"])
    m["run_id"] = manifest["run_id"]
    m["policy"] = manifest["policy"]
    m["incomplete"] = bool(missing)
    if missing:
        m["missing_jobs"] = missing
    m.update(pauses(manifest, run_dir))
    m.update(reservation_delays(run_dir, manifest, rows, planned) or {})
    # Under the isolated policy (SC18) no two jobs may ever have shared a
    # link: proved on the run's node lists, for every pair that overlapped.
    if manifest.get("policy") == "isolated" and isolation_tool and topology:
        violations = check_isolation(sacct, isolation_tool, topology)
        m["isolation_violations"] = len(violations)
        if violations:
            write_atomic(os.path.join(run_dir, "isolation.txt"), "\n".join(violations) + "\n")
    # A job without the plugin's record was not placed by the run's policy
    # (and a fallback one by tree): the run does not measure its policy.
    m["unrecorded_jobs"] = sum(1 for r in rows if not r["recorded"])
    m["fallback_jobs"] = sum(1 for r in rows if r["fallback"])
    # A record naming another policy without a fallback reason: the
    # controller ran another policy than the run's (a switch during it).
    m["foreign_policy_jobs"] = foreign_policy_jobs(rows, manifest["policy"])
    m["valid"] = m["unrecorded_jobs"] == 0 and not m["foreign_policy_jobs"]
    # The tree APH was measured on: the run's own copy, or (runs made
    # before runs kept theirs) one generated again at report time.
    m["aph_topology"] = (None if not (aph_tool and topology) else "run"
                         if os.path.abspath(topology) ==
                         os.path.abspath(os.path.join(run_dir, "topology.json"))
                         else "regenerated")
    write_atomic(os.path.join(run_dir, "metrics.json"),
                 json.dumps(clean(m), indent=2) + "\n")
    with open(os.path.join(run_dir, "jobs.csv.tmp"), "w", newline="",
              encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=JOB_FIELDS, extrasaction="ignore",
                           lineterminator="\n")
        w.writeheader()
        for r in all_rows:
            w.writerow({k: csv_cell(r[k]) for k in JOB_FIELDS})
    os.replace(os.path.join(run_dir, "jobs.csv.tmp"), os.path.join(run_dir, "jobs.csv"))
    plots = plot(run_dir, rows, cluster_nodes) if rows else []
    write_atomic(os.path.join(run_dir, "summary.md"), summary_md(manifest, m, plots, missing))
    return m, missing


def foreign_policy_jobs(rows, policy):
    """{policy: jobs} of the rows whose record names a policy other than
    the run's without a fallback reason (a fallback records default)."""
    out = {}
    for r in rows:
        if r["recorded"] and not r["fallback"] and r["policy"] != policy:
            out[r["policy"]] = out.get(r["policy"], 0) + 1
    return out


def pauses(manifest, run_dir):
    """Whether the run was stopped and resumed, and for how long (in log
    time, like every metric): jobs due meanwhile became eligible together
    at the resume, and an idle pause counts in makespan and utilization."""
    if manifest.get("resumed"):
        return {"resumed": True, "pauses": len(manifest.get("pauses", [])),
                "paused_log_s": fnum(manifest.get("paused_s")) * manifest["speedup"],
                "jobs_late": manifest.get("jobs_late")}
    # Runs resumed before the manifest recorded pauses: replay.log says so.
    try:
        with open(os.path.join(run_dir, "replay.log"), encoding="utf-8") as f:
            resumed = any(line.rstrip("\n").endswith(" resumed") for line in f)
    except OSError:
        resumed = False
    if resumed:
        return {"resumed": True, "pauses": None, "paused_log_s": None, "jobs_late": None}
    return {"resumed": False}


def pace(manifest, short=False):
    """How a run's time was compressed: SPEEDUP=S (CLOCK=scaled), or the
    virtual clock's rate (CLOCK=virtual, where Slurm lives in log time).
    short: S (a number) or "virtual xR", for tables."""
    if manifest.get("clock") == "virtual":
        rate = f"x{fnum(manifest.get('clock_rate')):g}"
        return f"virtual {rate}" if short else f"virtual clock {rate}"
    return manifest["speedup"] if short else f"SPEEDUP={manifest['speedup']:g}"


def pace_label(manifest):
    p = pace(manifest, short=True)
    return p if isinstance(p, str) else f"S={p:g}"


def summary_md(manifest, m, plots, missing):
    out = [f"# Replay {manifest['run_id']}", "",
           f"{manifest['jobs']} jobs of `{manifest.get('log_file', manifest['log'])}` "
           f"(first {manifest['first']}) on `{manifest['cluster']}` "
           f"({manifest['cluster_nodes']} nodes) under `{manifest['policy']}`, "
           f"{pace(manifest)}, seed {manifest['seed']}. "
           "Times are in log time.", ""]
    if m.get("prefill_jobs"):
        out += [f"**Prefill:** {m['prefill_jobs']} jobs from before the window filled "
                f"{manifest.get('prefill_nodes', '?')} nodes first (PREFILL="
                f"{manifest.get('prefill')}); they are in jobs.csv (prefill=1) and in no "
                "metric." + (f" {manifest['prefill_cancelled']} of them, still running when "
                             "the window's jobs had all ended, were cancelled then."
                             if manifest.get("prefill_cancelled") else ""), ""]
    if manifest.get("runtime_factor") is not None:
        out += [f"**Runtimes** are the log's x {manifest['runtime_factor']:g} "
                "(RUNTIME_FACTOR).", ""]
    launch = manifest.get("launch")
    if launch and launch.get("jobs"):
        guard = (f"the launch guard slowed the clock {launch['slowdowns']} times for "
                 f"{launch['slow_wall_s']:g} wall s" if launch.get("guard")
                 else "the launch guard was off (LAUNCH_GUARD=0)")
        out += [f"**Launches:** {launch['jobs']} jobs' scripts began a median "
                f"{launch['lag_median_s']:g} s (at most {launch['lag_max_s']:g} s) of log "
                f"time after Slurm started them; {launch.get('late_jobs', 0)} ended later "
                f"than start + runtime because of it (by at most "
                f"{launch.get('late_max_s', 0):g} s; launch.tsv); {guard}"
                + (f"; {len(launch['lost_launches'])} jobs Slurm started never began "
                   f"their script and were no longer waited for (Slurm ids "
                   f"{', '.join(str(j) for j in launch['lost_launches'][:10])})"
                   if launch.get("lost_launches") else "") + ".", ""]
    if m.get("aph_topology") == "regenerated":
        out += ["**APH** is measured on the topology of "
                f"`{manifest['cluster']}` as generated at report time: this run "
                "predates runs keeping their own `topology.json`.", ""]
    if m.get("isolation_violations") is not None:
        out += [(f"**Isolation:** every pair of jobs that ran at the same time "
                 "kept the SC18 invariants (tb-isolation)." if not m["isolation_violations"] else
                 f"**Isolation broken:** {m['isolation_violations']} violations of the "
                 "SC18 invariants (isolation.txt)."), ""]
    if m.get("reservations") is not None:
        out += [f"**Reservations:** {m['reservations']} jobs were the first blocked on "
                f"resources (Slurm's reserved job) with a planned start; "
                f"{m['reservation_delays']} of them started more than "
                f"{m['reservation_tolerance_s'] / 3600:.2g} h after their first planned start "
                "while a job later in the log started before them (backfill may have taken "
                f"their nodes; mean delay {m['reservation_delay_mean_s'] / 3600:.2f} h).", ""]
    if m.get("damaged"):
        again = (" Every job a fault hit was run again (below)."
                 if m.get("rerun_jobs") and not m["fault_jobs"] else "")
        out += [f"**Damaged:** {m['fault_events']} service deaths during the run "
                f"(faults.jsonl); {m['fault_jobs']} jobs hit by a fault (NODE_FAIL, "
                "requeued, TIMEOUT, cancelled when their front end died, or launched "
                f"more than {LATE_LAUNCH_S:g} s after their own end: `late_launch`, "
                f"{m.get('late_launch_jobs', 0)} of them; the `fault` "
                "column of jobs.csv) are left out of every metric below." + again, ""]
        if m.get("requeued_jobs") and not m["fault_events"]:
            out += [f"**Requeued without a fault:** Slurm requeued {m['requeued_jobs']} "
                    "jobs although no service died: their launch was not answered in "
                    "time (an overloaded host, or a burst of starts at a high clock "
                    "rate), and a requeued job waits `cred_expire` before it may start "
                    "again. Replay at a lower SPEEDUP or with fewer replays at once.", ""]
    if m.get("rerun_jobs"):
        out += [f"**Rerun:** {m['rerun_jobs']} jobs hit by a fault were run again "
                "(`make replay RESUME=<id> RERUN_FAULTED=1`); each counts by its rerun "
                "(`rerun_of` in jobs.csv names the faulted job it replaces, whose record "
                "stays in sacct.json). A rerun became eligible when it was submitted, "
                "after its log time; its wait starts then, and the time between the "
                "fault and the rerun counts in makespan and utilization.", ""]
    if m.get("unrecorded_jobs"):
        out += [f"**Invalid:** {m['unrecorded_jobs']} jobs have no record of the "
                "plugin in their AdminComment: their nodes were not chosen by "
                f"`{manifest['policy']}` (was topology/commtree running with its "
                "topology?). Do not compare this run.", ""]
    if m.get("foreign_policy_jobs"):
        named = ", ".join(f"{n} by `{p}`" for p, n in sorted(m["foreign_policy_jobs"].items()))
        out += [f"**Invalid:** jobs placed by another policy than the run's "
                f"`{manifest['policy']}`: {named} (the controller's policy changed during "
                "the run?). Do not compare this run.", ""]
    if m.get("fallback_jobs"):
        out += [f"**Fallbacks:** {m['fallback_jobs']} jobs got topology/tree's nodes "
                "instead of the policy's (`fallback=` in jobs.csv and AdminComment).", ""]
    if m.get("resumed"):
        if m.get("pauses") is None:
            out += ["**Resumed:** the replay was stopped and resumed (RESUME); its "
                    "manifest predates the recording of pauses, so their length and the "
                    "jobs they made late are unknown. Jobs due during a pause became "
                    "eligible at the resume, and the pause counts in makespan and "
                    "utilization.", ""]
        else:
            late = m["jobs_late"] or 0
            out += [f"**Resumed:** the replay was stopped {m['pauses']} time(s) for "
                    f"{fmt(m['paused_log_s'])} s of log time in all "
                    f"({fmt(manifest.get('paused_s'))} s of wall time; manifest.json "
                    "lists the pauses). " +
                    (f"{late} jobs due during a pause became eligible late, together at "
                     "the resume; their waits start then, and the pause counts in "
                     "makespan and utilization." if late else
                     "No job was due during a pause; the pause still counts in makespan "
                     "and utilization if it left the cluster idle."), ""]
    if missing:
        out += [f"**Incomplete:** {len(missing)} jobs of the window are missing from "
                f"sacct.json: {', '.join(missing[:20])}{' ...' if len(missing) > 20 else ''}",
                ""]
    out += ["| metric | all | communication-intensive | compute |", "|---|---|---|---|"]
    for k in METRIC_KEYS:
        digits = 3 if k in ("utilization", "stretch_mean", "aph_mean") else 1
        out.append(f"| {k} | {fmt(m[k], digits)} | {fmt(m['comm'][k], digits)} | "
                   f"{fmt(m['compute'][k], digits)} |")
    ir = m["individual_runs_improvement_percent"]
    out += ["", "Individual runs (the study's Table 4): % less execution time than "
            "the log's runtimes (the record's Eq. 7 denominator) had each job been "
            "placed by each policy on the same cluster state.",
            "", "| jobs | " + " | ".join(policies()) + " |", "|---|" + "---|" * len(policies())]
    for subset in ("all", "comm"):
        out.append(f"| {subset} | " + " | ".join(fmt(ir[subset][p], 2) for p in policies()) + " |")
    for subset, left in m.get("individual_runs_left_out", {}).items():
        out += ["", f"{subset} jobs: " + eq7.left_out_text(left)]
    if m.get("runtime_fallback_jobs"):
        ids = [str(i) for i in m.get("runtime_fallback_ids", [])]
        out += ["", f"**{m['runtime_fallback_jobs']} jobs ran their log runtime** for "
                "lack of a cost (`runtime_fallback` in jobs.csv): the plugin could not "
                f"apply the runtime model to them ({', '.join(ids[:20])}"
                f"{' ...' if len(ids) > 20 else ''})."]
    out += [""] + [f"![{os.path.basename(p)}]({p})" for p in plots] + [""]
    return "\n".join(out)


# What makes two replays one experiment, as (make variable, manifest key):
# runs that differ in any of these do not measure a policy's effect alone.
SAME_EXPERIMENT = [("LOG", "log_file"), ("FIRST", "first"), ("JOBS", "jobs"),
                   ("SEED", "seed"), ("COMM", "comm"), ("PATTERN", "pattern"),
                   ("RATIO", "ratio"), ("SPARSITY", "sparsity"), ("SCALE", "size_divisor"),
                   ("RUNTIME_FACTOR", "runtime_factor"), ("PREFILL", "prefill"),
                   ("LIMIT_GRID", "limit_grid_s"), ("CLUSTER", "cluster"),
                   ("CLUSTER nodes", "cluster_nodes")]


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
    checks = [(name, [(m.get(key), m["run_id"]) for _, m, _ in runs])
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
    rows = []
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


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("run_dir")
    r.add_argument("--aph-tool")
    r.add_argument("--isolation-tool")
    r.add_argument("--topology")
    c = sub.add_parser("compare")
    c.add_argument("run_dirs", nargs="+")
    c.add_argument("--out", required=True)
    c.add_argument("--force", action="store_true",
                   help="compare runs that are not one experiment, with a warning")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "report":
            m, missing = report(args.run_dir, args.aph_tool, args.topology,
                                args.isolation_tool)
            print(f"report: {m['jobs']} jobs, makespan {fmt(m['makespan_s'] / 3600, 2)} h, "
                  f"utilization {fmt(m['utilization'], 3)}, mean wait "
                  f"{fmt(m['wait_mean_s'] / 3600, 2)} h -> {args.run_dir}/summary.md")
            ir = m["individual_runs_improvement_percent"]
            print("report: individual runs, % less execution time than the log's "
                  "runtimes at equal state: " +
                  ", ".join(f"{p} {fmt(ir['all'][p], 2)}" for p in policies()) +
                  " (comm jobs: " + ", ".join(f"{p} {fmt(ir['comm'][p], 2)}" for p in policies()) + ")")
            left = m["individual_runs_left_out"].get("all", {})
            if left:
                print("report: individual runs: jobs without a same-state cost left out "
                      "of that policy's figure: " +
                      ", ".join(f"{p} {len(ids)}" for p, ids in left.items()) +
                      " (see summary.md)")
            if m["runtime_fallback_jobs"]:
                print(f"report: {m['runtime_fallback_jobs']} jobs ran their log runtime for "
                      "lack of a cost (runtime_fallback; see summary.md)")
            if m.get("resumed"):
                print(f"report: resumed run: paused {fmt(m.get('paused_log_s'))} s of log "
                      f"time, {fmt(m.get('jobs_late'))} jobs made late (see summary.md)")
            if m.get("damaged") or m.get("rerun_jobs"):
                print(f"report: {m['fault_jobs']} jobs hit by a fault left out, "
                      f"{m['rerun_jobs']} counted by their rerun (see summary.md)")
            if not m["valid"]:
                print(f"report: invalid: {m['unrecorded_jobs']} jobs without the plugin's "
                      f"record, {sum(m['foreign_policy_jobs'].values())} placed by another "
                      "policy (see summary.md)", file=sys.stderr)
            if missing:
                print(f"report: incomplete: {len(missing)} jobs missing from sacct.json "
                      f"(first: {missing[0]})", file=sys.stderr)
                return 1
        else:
            compare(args.run_dirs, args.out, args.force)
            print(f"compare: {len(args.run_dirs)} runs -> {args.out}/compare.md")
        return 0
    except ReportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
