"""The emulated backfill's own time, measured from a run's sacct.json
(docs/results/2026-11-26-twin-wait-gap.md), for the twin's SIM_BF_COST.

    python3 -m workloads.bf_cost RUN_DIR

Slurm's backfill tests the pending jobs in priority order and starts each
one it can at the moment it tests it (sacct flags it STARTED_ON_BACKFILL).
Two such starts of one cycle, t2 - t1 apart with p2 - p1 places of the
queue between them, give the cycle's time per tested job: (t2 - t1) /
(p2 - p1). Under the virtual clock that is slurmctld's CPU per test times
the rate (about 3 log s at rate 1000 here). Pairs count as one cycle when
the second is lower in the queue and less than `max_gap` later (a cycle
lasts at most bf_max_time); only pairs more than MIN_PLACES apart are
used, so that the cost of a start itself weighs little.
"""

import json
import os
import sys

# Pairs fewer places apart are left out (see above).
MIN_PLACES = 5


def jobs_of(sacct):
    """(priority, eligible, start, backfilled) per job from sacct.json's
    records (the last record of a requeued job), epoch seconds; jobs
    never started are left out."""
    last = {}
    for j in sacct.get("jobs", []):
        last[j.get("name") or str(j.get("job_id"))] = j
    out = []
    for j in last.values():
        t = j.get("time") or {}
        start, eligible = t.get("start") or 0, t.get("eligible") or 0
        if not start or not eligible:
            continue
        prio = (j.get("priority") or {}).get("number", 0)
        out.append((prio, float(eligible), float(start),
                    "STARTED_ON_BACKFILL" in (j.get("flags") or [])))
    return out


def place(jobs, prio, t):
    """The pending jobs of higher priority than prio at time t."""
    return sum(1 for p, e, s, _ in jobs if p > prio and e <= t < s)


def quartiles(xs):
    xs = sorted(xs)
    if not xs:
        return None
    n = len(xs)
    return {"n": n, "p25": xs[n // 4], "median": xs[n // 2], "p75": xs[3 * n // 4],
            "p90": xs[9 * n // 10], "max": xs[-1]}


def measure(sacct, max_gap=1000.0):
    """{"backfilled", "places" (of the backfilled starts), "cost_s"
    (quartiles of the time per place, log s), "pairs"} from sacct.json."""
    jobs = jobs_of(sacct)
    # By start, and at one instant in the queue's order (as tested).
    bf = [(s, p) for s, _, p in sorted((s, -p, p) for p, e, s, b in jobs if b)]
    places = [place(jobs, p, s) for s, p in bf]
    costs = []
    for (t1, p1), (t2, p2), q1 in zip(bf, bf[1:], places):
        if p2 >= p1 or not 0 < t2 - t1 < max_gap:
            continue
        q2 = place(jobs, p2, t2 - 1e-3)
        if q2 > q1 + MIN_PLACES:
            costs.append((t2 - t1) / (q2 - q1))
    return {"backfilled": len(bf), "places": quartiles(places), "cost_s": quartiles(costs),
            "pairs": len(costs)}


def measure_run(run_dir, max_gap=1000.0):
    """measure() of run_dir/sacct.json, or None without one."""
    path = os.path.join(run_dir, "sacct.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return measure(json.load(f), max_gap)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 -m workloads.bf_cost RUN_DIR", file=sys.stderr)
        return 2
    try:
        m = measure_run(argv[0])
    except (OSError, ValueError) as e:
        print(f"{argv[0]}: sacct.json: {e}", file=sys.stderr)
        return 1
    if m is None:
        print(f"{argv[0]}: no sacct.json; expected a finished run directory", file=sys.stderr)
        return 1
    print(json.dumps(m, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
