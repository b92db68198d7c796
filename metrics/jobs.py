"""The report's job rows: one per log job from sacct.json and the plugin's
record (times in log time), with the jobs a fault hit, a late launch or
PREFILL set apart.
"""

import csv
import os

from workloads import faults
from workloads.logs import admin_fields


JOB_FIELDS = ["job_id", "log_job_id", "nodes", "cpus", "submit", "eligible", "start", "end",
              "wait_s", "run_s", "turnaround_s", "node_hours", "comm", "pattern",
              "comm_percent", "policy", "cost", "cost_default", "runtime_base_s",
              "runtime_scaled_s", "leaves", "aph", "matrix_ranks", "hop_bytes",
              "hop_bytes_default", "fallback", "fault", "rerun_of", "prefill",
              "runtime_fallback"]


def fnum(value, default=float("nan")):
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


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
            # NeDD's record (commtree_nedd.c): the application, the
            # strategy applied, the runtime model's factor.
            "app": a.get("app", ""), "strategy": a.get("strategy", ""),
            "runtime_factor": fnum(a.get("runtime_factor")),
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
            # TOFA on a torus (tofa.h): the map's plain hop-bytes, C0 of
            # the runtime model, and which model set the runtime.
            "tofa_hops": fnum(a.get("tofa_hops")), "tofa_c0": fnum(a.get("tofa_c0")),
            "tofa_abort": fnum(a.get("tofa_abort")),
            "runtime_model": a.get("runtime_model", ""),
            "tofa_fallback": a.get("tofa_fallback", ""),
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


# A job whose script began this long (log s) after its own end (start +
# runtime) is the emulator's artefact, not the policy's: launch.tsv's late_s
# (workloads/launch.py). It is flagged like a fault and left out.
LATE_LAUNCH_S = 60.0


def launch_column(run_dir, column):
    """{job id: float} of one column of the run's launch.tsv
    (workloads/launch.py), lines without a number skipped; None without
    the file (not the virtual clock, or a run made before it)."""
    path = os.path.join(run_dir, "launch.tsv")
    if not os.path.exists(path):
        return None
    values = {}
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            try:
                values[str(row["job_id"])] = float(row[column])
            except (KeyError, TypeError, ValueError):
                continue
    return values


def mark_late_launches(rows, run_dir):
    """Sets fault "late_launch" on the rows launch.tsv says ended more than
    LATE_LAUNCH_S late; returns how many."""
    late = launch_column(run_dir, "late_s")
    if late is None:
        return 0
    n = 0
    for r in rows:
        if not r["fault"] and late.get(str(r["job_id"]), 0.0) > LATE_LAUNCH_S:
            r["fault"] = "late_launch"
            n += 1
    return n


# A job Slurm started and ended whose script had not begun by its end
# (launch.tsv, a run on the virtual clock) was not ended by its script:
# in front-end mode a front end's registration completes, with exit code
# 0 (COMPLETED), every running batch job of its own it does not report
# and that started more than 5 s before ("Killing orphan batch", Slurm
# 24.11 node_mgr.c validate_nodes_via_front_end): a launch still on its
# way (5 s are 50 ms of wall time at rate 100). Its sacct times measure
# that registration, not the policy. Seen on a fresh cori: the first
# repetitions of nedd-cori-onejob (docs/results/2026-11-26-nedd.md).
NOT_LAUNCHED = "not_launched"


def mark_unlaunched(rows, run_dir):
    """Sets fault NOT_LAUNCHED on the rows of a run with a launch.tsv whose
    script has no line there (never began) or began at or after the job's
    end; returns how many. Without launch.tsv (not the virtual clock, or a
    run made before it) nothing is known and nothing is marked."""
    lag = launch_column(run_dir, "launch_lag_s")
    if lag is None:
        return 0
    n = 0
    for r in rows:
        if r["fault"] or r["end"] <= r["start"]:
            continue
        began = lag.get(str(r["job_id"]))
        if began is None or r["start"] + began >= r["end"]:
            r["fault"] = NOT_LAUNCHED
            n += 1
    return n


def foreign_policy_jobs(rows, policy):
    """{policy: jobs} of the rows whose record names a policy other than
    the run's without a fallback reason (a fallback records default)."""
    out = {}
    for r in rows:
        if r["recorded"] and not r["fallback"] and r["policy"] != policy:
            out[r["policy"]] = out.get(r["policy"], 0) + 1
    return out
