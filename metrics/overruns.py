"""Later jobs that started past the reserved job's recorded planned start,
each classified by what let Slurm 24.11's backfill start it.

reservations.tsv (workloads/replay/driver.py, note_reservation) samples,
about once a wall second, the first job blocked on resources and squeue's
StartTime for it. That StartTime is backfill's estimate, and backfill does
not protect every estimate it shows: it reserves nodes for a job only if
the planned start lies within bf_window of the cycle's start (backfill.c
:3390-3404, "StartTime set to time after current backfill window. No
reservation created"; the window is 1440 min by default, BACKFILL_WINDOW,
and the emulated slurm.conf sets none). An overrun is a job k submitted
after the reserved job b that started at s, while b was the recorded
reserved job, with s + k's limit past b's recorded planned start c (by
more than 1 s). Each is one of:

- beyond:        c - s > bf_window: no reservation existed, as Slurm means;
- within, room:  enough nodes are free, in Slurm's view (running jobs hold
                 their nodes to start + limit), for b beside k's at c or at
                 the later start Slurm's batched will-run test plans for b
                 as k starts (batched_plan): backfill reserves specific
                 nodes and k may have run outside them (a check of counts
                 only: it cannot prove k did);
- within, none:  b cannot start at c beside k: backfill started k while b
                 had no reservation in that cycle, or b's plan had moved.

docs/results/2026-11-27-backfill-overruns.md has the reading that needed
it and the Slurm source behind each class. It reads, never writes a run.

    python3 -m metrics.overruns RUN [--bf-window-min M]
"""

import argparse
import collections
import csv
import json
import sys

from workloads import bf_window
from .measures import reservation_records
from .run_dir import ReportError, run_files

# Slurm 24.11's default bf_window, minutes (backfill.c, BACKFILL_WINDOW).
BF_WINDOW_MIN = bf_window.SLURM_DEFAULT_MIN
# Slurm's YEAR_MINUTES (365 days), a job's limit when it has none.
YEAR_MIN = 365 * 24 * 60
CLASSES = ("beyond", "within, room", "within, none")


def read_run(run_dir):
    """The run as plain numbers, times in log seconds from t0: nodes,
    {log id: {order, submit, start, end, nodes, limit}} of the jobs that
    started, and the reservation records [(time, log id, planned start)]."""
    paths = run_files(run_dir, ("manifest.json", "plan.tsv", "jobs.csv", "reservations.tsv"),
                      "expected a reported replay run (make report RUN=<it>) recorded "
                      "with reservations.tsv")
    with open(paths["manifest.json"], encoding="utf-8") as f:
        m = json.load(f)
    try:
        t0, nodes, speedup = float(m["t0"]), int(m["cluster_nodes"]), float(m.get("speedup") or 1)
    except (KeyError, TypeError, ValueError):
        raise ReportError(f"{paths['manifest.json']}: expected t0 and cluster_nodes") from None
    # The plan's limits are Slurm minutes: speedup log s a Slurm second;
    # 0 (LIMITS=none, no --time under MaxTime=INFINITE) is what backfill
    # takes for a year (backfill.c:2621-2629, YEAR_MINUTES).
    with open(paths["plan.tsv"], encoding="utf-8") as f:
        plan = {r["log_id"]: (i, (int(r["limit_min"]) or YEAR_MIN) * 60 * speedup)
                for i, r in enumerate(csv.DictReader(f, delimiter="\t"))}
    jobs = {}
    with open(paths["jobs.csv"], encoding="utf-8") as f:
        for r in csv.DictReader(f):
            k = r["log_job_id"]
            if k not in plan or not r.get("start") or not r.get("end"):
                continue
            jobs[k] = {"order": plan[k][0], "limit": plan[k][1], "nodes": int(r["nodes"]),
                       "submit": float(r["submit"]), "start": float(r["start"]),
                       "end": float(r["end"]),
                       # Slurm's end_time: its whole-second start + the limit.
                       "slurm_end": round(t0 + float(r["start"]) / speedup) + plan[k][1] / speedup}
    records = [((t - t0) * speedup, log_id, (at - t0) * speedup)
               for t, log_id, at in reservation_records(paths["reservations.tsv"])]
    # The run's own window (BF_WINDOW, the manifest's bf_window_min).
    return {"nodes": nodes, "speedup": speedup, "t0": t0, "jobs": jobs, "records": records,
            "bf_window_min": bf_window.of_manifest(m)}


def overruns(run):
    """[{b, k, s, c}]: the later jobs k started while b was the recorded
    reserved job (from its record to the next record or b's start) whose
    start + limit passes b's planned start c (the counting snippet of
    docs/results/2026-11-27-end-guard.md)."""
    jobs, recs = run["jobs"], run["records"]
    found = []
    for i, (t, b, c) in enumerate(recs):
        if b not in jobs:
            continue
        e = min(recs[i + 1][0] if i + 1 < len(recs) else float("inf"), jobs[b]["start"])
        for k, j in jobs.items():
            if (t <= j["start"] < e and j["start"] + j["limit"] > c + 1
                    and j["submit"] > jobs[b]["submit"]):
                found.append({"b": b, "k": k, "s": j["start"], "c": c})
    return sorted(found, key=lambda o: (o["s"], jobs[o["k"]]["order"]))


def batched_plan(ends, free, need, window=30):
    """The start Slurm's will-run test plans for a job of `need` nodes
    when `free` are free now and the running jobs hold theirs to their
    ends [(Slurm end time, nodes)] (select/cons_tres, job_test.c:2467-2569,
    _future_run_test): it removes the running jobs in end order, a batch
    at a time: those ending within `window` s of the first end's 30-s
    boundary, the window doubling after each batch that is not enough;
    the start is the batch's last end. The manual's bf_window_linear: "the
    expected start time of pending jobs being gradually deferred due to
    lack of precision". None if the job never fits."""
    ends = sorted(ends)
    if free >= need:
        return None
    end_time, i = 0, 0
    while i < len(ends):
        while True:
            e, n = ends[i]
            if not end_time:
                end_time = e + (window - e % window)
            free += n
            last = e
            i += 1
            if i == len(ends) or ends[i][0] > end_time + window:
                break
        if free >= need:
            return last
        window *= 2
        while i < len(ends) and ends[i][0] > end_time + window:
            window *= 2
    return None


def classify(run, o, bf_window_s):
    """One overrun's class (CLASSES). Within the window there is room if,
    at the reserved job's planned start, the nodes free in Slurm's view
    (the machine less those of the jobs running as k starts, k aside,
    held to start + limit) are enough for it beside k's: at the recorded
    start, or at the start Slurm's will-run test plans as k starts
    (batched_plan: later, with more nodes free). A job started in the same
    second as k counts if it comes before k in the plan; Slurm's times are
    whole seconds, jobs.csv's from t0 with its fraction."""
    if o["c"] - o["s"] > bf_window_s:
        return "beyond"
    jobs, k = run["jobs"], o["k"]
    running = [j for x, j in jobs.items()
               if x != k and j["start"] <= o["s"] < j["end"]
               and (j["start"] < o["s"] or j["order"] < jobs[k]["order"])]
    need = jobs[o["b"]]["nodes"] + jobs[k]["nodes"]
    slurm_c = round(run["t0"] + o["c"] / run["speedup"])
    plans = [slurm_c]
    batched = batched_plan([(j["slurm_end"], j["nodes"]) for j in running],
                           run["nodes"] - sum(j["nodes"] for j in running),
                           jobs[o["b"]]["nodes"])
    if batched is not None:
        plans.append(batched)
    for p in plans:
        if run["nodes"] - sum(j["nodes"] for j in running if j["slurm_end"] > p) >= need:
            return "within, room"
    return "within, none"


def summary(run, bf_window_min=None):
    """Counts by class, by reserved job, and how many of the later jobs
    still ran when their reserved job started (a delay it really met);
    bf_window_min: another window than the run's own (its manifest's,
    else Slurm's default)."""
    if bf_window_min is None:
        bf_window_min = run.get("bf_window_min") or BF_WINDOW_MIN
    bf_window_s = bf_window_min * 60 * run["speedup"]
    found = overruns(run)
    jobs = run["jobs"]
    by_class = collections.Counter()
    by_job = collections.defaultdict(collections.Counter)
    for o in found:
        o["class"] = classify(run, o, bf_window_s)
        by_class[o["class"]] += 1
        by_job[o["b"]][o["class"]] += 1
    ahead = sorted(o["c"] - o["s"] for o in found)
    return {
        "overruns": len(found), "reserved_jobs": len(by_job),
        "by_class": {c: by_class[c] for c in CLASSES},
        "by_job": sorted(((b, jobs[b]["nodes"], dict(v)) for b, v in by_job.items()),
                         key=lambda x: (-sum(x[2].values()), x[0])),
        "still_running_at_reserved_start": sum(
            1 for o in found if jobs[o["k"]]["end"] > jobs[o["b"]]["start"]),
        "ahead_h": (ahead[0] / 3600, ahead[len(ahead) // 2] / 3600, ahead[-1] / 3600)
        if ahead else None,
        "bf_window_min": bf_window_min,
        "list": found,
    }


def text(p, top=5):
    c = p["by_class"]
    lines = [f"{p['overruns']} later jobs started past the recorded planned start of "
             f"{p['reserved_jobs']} reserved jobs (bf_window {p['bf_window_min']:g} min):",
             f"  beyond bf_window (no reservation): {c['beyond']}",
             f"  within, room for the reserved job beside them: {c['within, room']}",
             f"  within, no room: {c['within, none']}",
             f"  still running when their reserved job started: "
             f"{p['still_running_at_reserved_start']}"]
    if p["ahead_h"]:
        lines.append("  planned start - later job's start (h): min {:.1f}, median {:.1f}, "
                     "max {:.1f}".format(*p["ahead_h"]))
    for b, n, v in p["by_job"][:top]:
        lines.append(f"  at {b} ({n} nodes): " + ", ".join(f"{k} {v[k]}" for k in CLASSES if k in v))
    for o in p["list"]:
        if o["class"] == "within, none":
            lines.append(f"  within, none: {o['k']} at {o['s']:.0f} s past {o['b']}'s "
                         f"{o['c']:.0f} s ({(o['c'] - o['s']) / 3600:.2f} h ahead)")
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m metrics.overruns",
                                 description="Later jobs started past a reserved job's "
                                             "recorded planned start, classified.")
    ap.add_argument("run")
    ap.add_argument("--bf-window-min", type=float,
                    help="the emulated Slurm's bf_window (min; default the run's own, "
                         "BF_WINDOW, else Slurm's 1440)")
    args = ap.parse_args(argv)
    if args.bf_window_min is not None and args.bf_window_min <= 0:
        print(f"overruns: --bf-window-min {args.bf_window_min:g}: expected minutes > 0",
              file=sys.stderr)
        return 2
    try:
        p = summary(read_run(args.run), args.bf_window_min)
    except ReportError as e:
        print(f"overruns: {e}", file=sys.stderr)
        return 1
    print(text(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
