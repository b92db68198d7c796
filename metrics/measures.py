"""The papers' metrics over a set of job rows, and what the report measures
beside them: Table 4's individual runs (Eq. 7), APH and the SC18
invariants (the library's tools), reservations backfill delayed, pauses.
"""

import json
import math
import os
import statistics
import subprocess

from metrics import eq7
from workloads.cluster_defs import expand_hostlist
from .jobs import fnum
from workloads.registry import RegistryError, policy_names
from .run_dir import ReportError


METRIC_KEYS = ["jobs", "makespan_s", "utilization", "wait_mean_s", "wait_median_s",
               "wait_p95_s", "turnaround_mean_s", "stretch_mean", "exec_hours",
               "node_hours", "comm_cost_total", "comm_cost_mean", "aph_mean",
               "hop_bytes_total"]


def policies():
    """The policies of the library's registry, in its order, as the build
    wrote them (workloads/registry.py)."""
    try:
        return tuple(policy_names())
    except RegistryError as e:
        raise ReportError(str(e)) from None


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * p
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


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


def _ms(seconds):
    return round(float(seconds) * 1000)


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
        # In milliseconds: tb-isolation reads integers, and the twin's
        # times are fractional seconds (t0 + log time / speedup,
        # workloads/simulate.py); sacct's whole seconds stay exact.
        lines.append(f"{j['job_id']} {_ms(t['start'])} {_ms(t['end'])} {idx}")
    r = subprocess.run([tool, topology, "-"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, check=False)
    if r.returncode not in (0, 1) or r.stderr.strip():
        err = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[0]
        raise ReportError(f"{os.path.basename(tool)} failed on {topology}: {err}")
    return [line for line in r.stdout.splitlines() if line.strip()]


def reservation_records(path):
    """reservations.tsv's records as [(time, log id, planned start)], epoch
    seconds as the replay wrote them (workloads/replay/driver.py
    note_reservation); a malformed line is the file's error, named."""
    records = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            try:
                records.append((float(parts[0]), parts[1], float(parts[2])))
            except (IndexError, ValueError):
                raise ReportError(f"{path}:{n}: expected <time> <log id> <planned start>, "
                                  f"got {line.strip()!r}") from None
    return records


def reservation_delays(run_dir, manifest, rows, planned):
    """How often backfill delayed the reserved job (SC18 issue, item 2):
    the plugin cannot tell Slurm's backfill which leaves the first blocked
    job will need, so a later job may take them. From reservations.tsv
    (the replay's samples, once a wall second, of the first job blocked on
    resources and the start Slurm plans for it): a reserved job counts as
    delayed when it started later than the earliest start planned for it,
    by more than two samples' worth of log time, and a job later in the log
    started between its first planned start being seen and its own start.
    An upper bound: Slurm's plan can also slip for other reasons, and a
    planned start more than bf_window ahead is one backfill does not
    protect at all (metrics/overruns.py classifies the later starts). None
    without the file (runs before it existed). Times in log seconds."""
    path = os.path.join(run_dir, "reservations.tsv")
    if not os.path.exists(path):
        return None
    t0, s = manifest["t0"], manifest["speedup"]
    pace = manifest.get("clock_rate", 1) if manifest.get("clock") == "virtual" else 1
    tol = 2.0 * pace * s
    seen, plan_first = {}, {}
    for now, log_id, at in reservation_records(path):
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


def topology_cores(path):
    """All cores of a topology.json."""
    with open(path, encoding="utf-8") as f:
        return sum(int(n.get("cores", 1)) for n in json.load(f)["nodes"])


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
