"""RERUN_FAULTED=1: the jobs a fault hit, run again as new jobs at their log
times, recorded in rerun.tsv and the manifest.
"""

import os

from workloads import faults
from .progress import progress
from .run_dir import append_synced, log_line, write_manifest
from .slurm_io import job_fields, previous_records, sacct_records


def latest_attempts(run_id, submitted, reruns):
    """{Slurm id: job name} of each log job's latest attempt."""
    latest = {log_id: (0, jid) for log_id, jid in submitted.items()}
    for (log_id, n), jid in reruns.items():
        if n > latest.get(log_id, (-1, None))[0]:
            latest[log_id] = (n, jid)
    return {jid: faults.rerun_name(run_id, log_id, n)
            for log_id, (n, jid) in latest.items()}


def faulted(container, run_dir, manifest, submitted, reruns):
    """RERUN_FAULTED's jobs: faults.to_rerun over the latest attempt of
    each log job, as Slurm has it, else as the run's sacct.json has it (a
    testbed made again no longer has the run's jobs)."""
    expected = latest_attempts(manifest["run_id"], submitted, reruns)
    kept, _ = previous_records(run_dir, expected)
    ask = sorted(set(expected) - set(kept))
    live = {j["job_id"]: j for j in sacct_records(
        container, ask, expected, "how the run's jobs ended", run_dir)}
    records = [live.get(jid) or kept.get(jid) for jid in sorted(expected)]
    return faults.to_rerun([j for j in records if j], manifest["run_id"],
                           faults.deaths(run_dir))


def note_reruns(manifest, plan, reruns, again=(), submitted=None):
    """The manifest's "reruns": per rerun its log id, attempt, Slurm id
    (None until submitted), the Slurm id of the job it replaces and that
    job's fault (None for a rerun reconcile() found that no entry names:
    the driver died before it recorded it)."""
    entries = {(r["log_id"], r["attempt"]): r for r in manifest.get("reruns", [])}
    for log_id, n, old, fault in again:
        e = entries.setdefault((log_id, n), {"log_id": log_id, "attempt": n, "job_id": None})
        e.update({"replaces": old["job_id"], "fault": fault})
    for (log_id, n), jid in reruns.items():
        before = (reruns.get((log_id, n - 1)) if n > 1 else (submitted or {}).get(log_id))
        e = entries.setdefault((log_id, n), {"log_id": log_id, "attempt": n,
                                             "replaces": before, "fault": None})
        e["job_id"] = jid
    order = {p["log_id"]: k for k, p in enumerate(plan)}
    manifest["reruns"] = sorted(entries.values(),
                                key=lambda r: (order.get(r["log_id"], 0), r["attempt"]))


def submit_reruns(submitters, again, plan, manifest, run_dir, reruns, page):
    """RERUN_FAULTED: each job a fault hit is submitted again as a new job
    (faults.rerun_name) with its original log time as begin time, so one
    whose time has passed is eligible at once, and its place in the log's
    priority order. rerun.tsv and the manifest's "reruns" record them."""
    run_id, t0, speedup = manifest["run_id"], manifest["t0"], manifest["speedup"]
    index = {p["log_id"]: k for k, p in enumerate(plan)}
    items = [a for a in again if a[0] in index]
    fields = []
    for log_id, n, _, _ in items:
        k = index[log_id]
        f = job_fields(run_id, k, plan[k], t0, speedup, manifest["seed"], page)
        f[0] = faults.rerun_name(run_id, log_id, n)
        fields.append(f)
    rerun_path = os.path.join(run_dir, "rerun.tsv")
    # What is about to be submitted, first: a driver that dies meanwhile
    # leaves the reason on record, and RESUME finds the jobs (reconcile).
    note_reruns(manifest, plan, {}, items)
    write_manifest(run_dir, manifest)
    for (log_id, n, _, _), jid in submitters.submit_all(fields, items):
        reruns[(log_id, n)] = jid
        append_synced(rerun_path, [f"{log_id} {n} {jid}\n"])
    note_reruns(manifest, plan, reruns)
    write_manifest(run_dir, manifest)
    log_line(run_dir, f"rerun: {len(items)} jobs hit by a fault submitted again: "
             + " ".join(f"{log_id} ({fault})" for log_id, _, _, fault in items))
    progress(f"replay {run_id}: {len(items)} jobs hit by a fault run again "
             "(RERUN_FAULTED=1), eligible at once (recorded in the manifest)", final=True)
