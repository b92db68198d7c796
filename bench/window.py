#!/usr/bin/env python3
"""The saturated 1,000-job Theta window's speed and fidelity with event
jumps (make bench BENCH=window; issue 30 point 3; docs/vclock.md).

    window.py REFERENCE_JSON RUN_DIR...

Each RUN_DIR is a finished replay of the window with make report's
metrics.json. Prints per run its wall time, clock jumps and late
launches, then each metric (makespan, utilization, mean wait) against the
committed reference (bench/reference/theta1000-greedy-r1000.json, the
mean of its runs) and, when runs without event jumps are given, the mean
of the jump runs against the mean of those: the issue's target is the
window in at most 5 wall min within 2 % of the rate-1000 figures. Exit 1
when a target is missed, 2 on bad input.
"""

import json
import os
import sys
from datetime import datetime

# (metrics.json key, reference key, name, reference's unit in metrics' unit)
METRICS = [("makespan_s", "makespan_h", "makespan", 3600.0),
           ("utilization", "utilization", "utilization", 1.0),
           ("wait_mean_s", "wait_mean_h", "mean wait", 3600.0)]
TO_REFERENCE = 2.0   # per cent (issue 30)
WALL_TARGET_S = 300.0


def load(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: {path}: {e}; expected {what}", file=sys.stderr)
        sys.exit(2)


def run_facts(d):
    m = load(os.path.join(d, "metrics.json"), "a run's metrics.json (make report)")
    man = load(os.path.join(d, "manifest.json"), "a run's manifest.json")
    wall = None
    if man.get("wall_start") and man.get("wall_end"):
        wall = (datetime.fromisoformat(man["wall_end"]) -
                datetime.fromisoformat(man["wall_start"])).total_seconds()
    jumps = bool(man.get("event_jumps"))
    late = m.get("late_launch_all_jobs")
    return {"id": man.get("run_id", os.path.basename(d)), "m": m, "wall": wall,
            "jumps": jumps, "clock_jumps": man.get("clock_jumps"),
            "jobs": m.get("jobs"), "late": late}


def mean(xs):
    return sum(xs) / len(xs)


def pct(a, b):
    return 100.0 * (a - b) / b


def main(argv):
    if len(argv) < 2:
        print("usage: window.py REFERENCE_JSON RUN_DIR...", file=sys.stderr)
        return 2
    ref = load(argv[0], "the reference's JSON (bench/reference/)")
    refruns = ref.get("runs") or []
    if not refruns:
        print(f"error: {argv[0]}: no 'runs'; expected the reference's runs", file=sys.stderr)
        return 2
    runs = [run_facts(d) for d in argv[1:]]
    print(f"{'run':<34} {'event jumps':>11} {'wall s':>7} {'clock jumps':>11} "
          f"{'jobs':>5} {'late':>5} {'makespan h':>10} {'util':>6} {'wait h':>7}")
    for r in runs:
        m = r["m"]
        print(f"{r['id']:<34} {('yes' if r['jumps'] else 'no'):>11} "
              f"{(r['wall'] or 0):>7.0f} {str(r['clock_jumps']):>11} {str(r['jobs']):>5} {str(r['late']):>5} "
              f"{m['makespan_s'] / 3600:>10.1f} {m['utilization']:>6.3f} "
              f"{m['wait_mean_s'] / 3600:>7.1f}")
    ok = True
    with_j = [r for r in runs if r["jumps"]]
    without = [r for r in runs if not r["jumps"]]
    print(f"reference ({len(refruns)} runs, {ref.get('what', '')[:60]}...): " + ", ".join(
        f"{name} {mean([x[rk] for x in refruns]):.4g}" for _, rk, name, _ in METRICS))
    for label, group in (("event jumps", with_j), ("no event jumps", without)):
        if not group:
            continue
        for key, rk, name, unit in METRICS:
            d = pct(mean([r["m"][key] for r in group]), mean([x[rk] for x in refruns]) * unit)
            good = abs(d) <= TO_REFERENCE
            ok &= good or label != "event jumps"
            print(f"{label:<15} {name:<12} vs reference {d:+6.1f} %  "
                  f"{'within' if good else 'OUTSIDE'} {TO_REFERENCE:g} %")
    if with_j and without:
        for key, _, name, _ in METRICS:
            d = pct(mean([r["m"][key] for r in with_j]), mean([r["m"][key] for r in without]))
            print(f"jumps vs none   {name:<12} {d:+6.1f} %  "
                  f"{'within' if abs(d) <= TO_REFERENCE else 'OUTSIDE'} {TO_REFERENCE:g} %")
    walls = [r["wall"] for r in with_j if r["wall"] is not None]
    if walls:
        good = max(walls) <= WALL_TARGET_S
        ok &= good
        print(f"wall time with event jumps: {', '.join(f'{w:.0f} s' for w in walls)}  "
              f"target {WALL_TARGET_S:.0f} s: {'met' if good else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
