"""Which jobs of a replay a fault hit, and their reruns.

One classification for everyone: the report flags these jobs and leaves
them out of the metrics (metrics/report.py), the experiment tables do the
same (workloads/experiment/), and `make replay RESUME=<id>
RERUN_FAULTED=1` submits them again (workloads/replay/reruns.py).

A rerun is a new Slurm job named `<run id>:<log id>:rerun<n>` (n = 1, 2,
... if a rerun is hit too); the job it replaces keeps its record in
sacct.json. Everything that reads a run takes, per log job, its latest
attempt (one_per_log), so a run has one row per log job.
"""

import json
import os
import re

# Slurm states of a job that has not ended yet (a requeued job is pending
# again): such a job is neither collected nor run again.
NOT_FINAL = ("PENDING", "RUNNING", "REQUEUED", "SUSPENDED")

RERUN = re.compile(r"(.*):rerun([1-9][0-9]*)")


def read_faults(run_dir):
    """The run's fault events (faults.jsonl, written by health.py), oldest
    first ([] when none)."""
    path = os.path.join(run_dir, "faults.jsonl")
    events = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        events.append(json.loads(line))
                    except ValueError:
                        continue    # a line cut by a crash
    except FileNotFoundError:
        pass
    return events


def deaths(run_dir):
    """The run's service deaths (events of kind "died")."""
    return [e for e in read_faults(run_dir) if e.get("kind") == "died"]


def _number(value, default=0.0):
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def state_of(job):
    """A sacct JSON record's current state ("" when it has none)."""
    return ((job.get("state") or {}).get("current") or [""])[0]


def is_final(job):
    return state_of(job) not in NOT_FINAL


def job_fault(job, died=()):
    """Why a job's figures are not the policy's: '' or the reason. A job
    that ended NODE_FAIL or was requeued was hit by a node (front end)
    failure; one the health watch cancelled when a front end died (it
    could not be requeued) is named after that death; a TIMEOUT is a
    fault in a replay (limits are at least five times the runtime), and is
    named after a death during its run when the health watch saw one (a
    front end or the controller: in front-end mode a controller restart
    drops running jobs' steps, which then time out). `died`: the run's
    deaths (deaths())."""
    state = state_of(job)
    t = job.get("time") or {}
    start, end = t.get("start") or 0, t.get("end") or 0
    if state == "NODE_FAIL":
        return "node_fail"
    if _number(job.get("restart_cnt")) > 0:
        return "requeued"
    if state == "CANCELLED":
        jid = str(job.get("job_id"))
        hit = [d["service"] for d in died
               if jid in {str(x) for x in d.get("jobs") or ()}]
        return f"cancelled_after_{hit[0]}_died" if hit else ""
    if state == "TIMEOUT":
        hit = [d["service"] for d in died if start <= _number(d.get("time")) <= end]
        return f"timeout_after_{hit[0]}_died" if hit else "timeout"
    return ""


# --- reruns -----------------------------------------------------------------------

def rerun_name(run_id, log_id, n):
    """The Slurm job name of a log job's n-th attempt (0: the first)."""
    return f"{run_id}:{log_id}" + (f":rerun{n}" if n else "")


def strip_rerun(name):
    """(the name without its rerun suffix, the attempt: 0 for the first)."""
    m = RERUN.fullmatch(name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


def log_id_of(name, run_id):
    """(log id, attempt) of one of the run's job names, or None for a
    name that is not the run's."""
    base, n = strip_rerun(name)
    if not base.startswith(run_id + ":"):
        return None
    return base[len(run_id) + 1:], n


def one_per_log(items, key):
    """Per log job, the latest attempt among `items` (in their order of
    first appearance), and {log id: [the attempts it replaces]}.
    key(item) -> (log id, attempt)."""
    best, replaced, order = {}, {}, []
    for item in items:
        log_id, n = key(item)
        if log_id not in best:
            order.append(log_id)
            best[log_id] = (n, item)
        elif n > best[log_id][0]:
            replaced.setdefault(log_id, []).append(best[log_id][1])
            best[log_id] = (n, item)
        else:
            replaced.setdefault(log_id, []).append(item)
    return [best[k][1] for k in order], replaced


def to_rerun(jobs, run_id, died=()):
    """What RERUN_FAULTED runs again: per log job, its latest attempt
    among `jobs` (sacct JSON records of the run), if it has ended and a
    fault hit it. [(log id, next attempt, the record it replaces, the
    fault)], in the records' order. A job that has not ended (a requeued
    one pending again) is not run again: its end decides."""
    mine = [(log_id_of(j.get("name", ""), run_id), j) for j in jobs]
    latest, _ = one_per_log([(k, j) for k, j in mine if k], key=lambda x: x[0])
    out = []
    for (log_id, n), j in latest:
        fault = job_fault(j, died) if is_final(j) else ""
        if fault:
            out.append((log_id, n + 1, j, fault))
    return out
