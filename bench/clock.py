#!/usr/bin/env python3
"""The virtual clock's fidelity (make bench BENCH=clock; docs/vclock.md).

    clock.py REFERENCE_METRICS RUN_DIR...

Compares each run's metrics.json (make report) with a reference run's,
grouped by the run's pace (the virtual clock's rate, or SPEEDUP), and
prints, per pace and metric, each run's deviation from the reference and
the spread between the runs, against issue 13's targets: within 2 % of the
reference, and the runs within 1 % of each other.
"""

import json
import os
import sys
from datetime import datetime

METRICS = [("makespan_s", "makespan"), ("utilization", "utilization"),
           ("wait_mean_s", "mean wait")]
# Issue 13's targets (per cent).
TO_REFERENCE = 2.0
BETWEEN_RUNS = 1.0


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"error: {path}: {e}; expected a run's metrics.json") from None


def pace(manifest):
    if manifest.get("clock") == "virtual":
        return f"virtual x{manifest['clock_rate']:g}"
    return f"S={manifest['speedup']:g}"


def main(argv):
    if len(argv) < 2:
        print("usage: clock.py REFERENCE_METRICS RUN_DIR...", file=sys.stderr)
        return 2
    ref = load(argv[0])
    groups = {}
    for d in argv[1:]:
        m = load(os.path.join(d, "metrics.json"))
        man = load(os.path.join(d, "manifest.json"))
        wall = None
        if man.get("wall_start") and man.get("wall_end"):
            wall = (datetime.fromisoformat(man["wall_end"]) -
                    datetime.fromisoformat(man["wall_start"])).total_seconds()
        groups.setdefault(pace(man), []).append((m, wall))
    ok = True
    print(f"reference {ref.get('run_id', argv[0])}: " + ", ".join(
        f"{name} {ref[key]:.4g}" for key, name in METRICS))
    print(f"{'pace':<14} {'metric':<12} {'runs vs reference (%)':<28} "
          f"{'spread (%)':>10}  verdict")
    for p, runs in groups.items():
        for key, name in METRICS:
            devs = [100 * (m[key] - ref[key]) / ref[key] for m, _ in runs]
            vals = [m[key] for m, _ in runs]
            spread = 100 * (max(vals) - min(vals)) / ref[key]
            good = (all(abs(d) <= TO_REFERENCE for d in devs)
                    and spread <= BETWEEN_RUNS)
            ok &= good
            print(f"{p:<14} {name:<12} "
                  f"{', '.join(f'{d:+.1f}' for d in devs):<28} {spread:>10.1f}  "
                  f"{'within' if good else 'OUTSIDE'} "
                  f"({TO_REFERENCE:g} % / {BETWEEN_RUNS:g} %)")
        walls = [w for _, w in runs if w is not None]
        if walls:
            print(f"{p:<14} {'wall time':<12} "
                  f"{', '.join(f'{w:.0f} s' for w in walls)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
