"""RESUME: the jobs Slurm took that the run's files lack, when the driver
stopped, and the pause the manifest records.
"""

import datetime
import json
import os

from workloads import faults, vclock
from .pacing import run_clock
from .run_dir import append_synced, log_line, write_manifest
from .slurm_io import slurm_answer


def reconcile(container, run_id, submitted, path, reruns=None, rerun_path=None):
    """Jobs Slurm has for this run that submitted.tsv (or, for the jobs run
    again after a fault, rerun.tsv) lacks (the driver died between
    submission and the write) are recorded, not submitted again. A
    controller that does not answer is waited for: its silence says
    nothing about which jobs it has."""
    out = slurm_answer(container, f"squeue -h -a -o '%i %j' && sacct -X -n -P -a "
                       f"--starttime=now-7days -o JobID,JobName",
                       "which jobs of the run Slurm has", os.path.dirname(path))
    lines, rerun_lines = [], []
    for line in out.splitlines():
        parts = line.replace("|", " ").split()
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        mine = faults.log_id_of(parts[1], run_id)
        if mine is None:
            continue
        log_id, attempt = mine
        if attempt == 0 and log_id not in submitted:
            submitted[log_id] = int(parts[0])
            lines.append(f"{log_id} {parts[0]}\n")
        elif attempt and reruns is not None and (log_id, attempt) not in reruns:
            reruns[(log_id, attempt)] = int(parts[0])
            rerun_lines.append(f"{log_id} {attempt} {parts[0]}\n")
    append_synced(path, lines)
    if rerun_path:
        append_synced(rerun_path, rerun_lines)
    return len(lines) + len(rerun_lines)


def stopped_at(manifest, run_dir):
    """When a stopped run's driver stopped, and whether that is an estimate:
    the time it recorded on the way out, else (killed, or the disk was
    full) the last write to the run directory; the driver touches
    replay.log at every progress line, so that is within one of them."""
    if manifest.get("stopped_at"):
        return float(manifest["stopped_at"]), bool(manifest.get("stopped_estimated"))
    last = 0.0
    for name in ("replay.log", "submitted.tsv", "manifest.json"):
        try:
            last = max(last, os.path.getmtime(os.path.join(run_dir, name)))
        except OSError:
            pass
    return last, True


def mark_stopped(run_dir, state_dir):
    """Records in the manifest when the driver stopped (for RESUME to
    measure the pause), in Slurm's time. The first stop counts: a RESUME
    that fails before it submits anything does not shorten the pause. Best
    effort: on a full disk (or an unreadable clock) the last write's time
    stands in."""
    path = os.path.join(run_dir or "", "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        if not manifest.get("finished") and not manifest.get("stopped_at"):
            manifest["stopped_at"] = run_clock(manifest, state_dir).now()
            write_manifest(run_dir, manifest)
    except (OSError, ValueError, KeyError, vclock.ClockError):
        pass


def iso(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).isoformat()


def record_pause(run_dir, manifest, plan, submitted, stopped, now, rerun=()):
    """A RESUME changes the experiment: jobs whose time came while the
    driver was stopped are submitted now, all eligible at once, and the
    pause can idle the cluster, which makespan and utilization then count.
    The manifest says so: each pause (start, end, the jobs made late, the
    log jobs a fault hit that RERUN_FAULTED=1 runs again, also eligible at
    once) and, over the run, resumed, paused_s (wall seconds), jobs_late
    and jobs_rerun."""
    start, estimated = stopped
    start = min(start or now, now)
    t0, speedup = manifest["t0"], manifest["speedup"]
    late = [p["log_id"] for p in plan if p["log_id"] not in submitted
            and t0 + p["offset"] / speedup < now]
    pause = {
        "start": iso(start), "end": iso(now), "start_epoch": round(start, 3),
        "end_epoch": round(now, 3), "seconds": round(now - start, 3),
        "start_estimated": estimated, "jobs_late": len(late), "late_log_ids": late}
    if rerun:
        pause.update({"jobs_rerun": len(rerun), "rerun_log_ids": list(rerun)})
    manifest.setdefault("pauses", []).append(pause)
    manifest["resumed"] = True
    manifest["paused_s"] = round(sum(p["seconds"] for p in manifest["pauses"]), 3)
    manifest["jobs_late"] = sum(p["jobs_late"] for p in manifest["pauses"])
    if any("jobs_rerun" in p for p in manifest["pauses"]):
        manifest["jobs_rerun"] = sum(p.get("jobs_rerun", 0) for p in manifest["pauses"])
    manifest.pop("stopped_at", None)
    manifest.pop("stopped_estimated", None)
    write_manifest(run_dir, manifest)
    log_line(run_dir, f"resume: paused {now - start:.0f} s"
             f"{' (estimated from the last write)' if estimated else ''}, "
             f"{len(late)} jobs made late"
             + (f", {len(rerun)} jobs hit by a fault run again" if rerun else ""))
    return late
