"""How much later than its modelled end Slurm ended each job of a run on
the virtual clock (the end lag), and what it goes with.

A replayed job's script sleeps until Slurm's start + its modelled runtime
(workloads/replay/slurm_io.py), so sacct's End - Start exceeds the
runtime by the time from the script's end to slurmctld's job_complete()
(REQUEST_COMPLETE_BATCH_SCRIPT under the job write lock), in log seconds:
wall time on that path times the clock's rate. This module measures that
excess per job from a run's jobs.csv and sets it beside what could drive
it: the runtime, jobs ending or starting near the same log second, the
queue depth, the running jobs, the launch lag at the job's start
(launch.tsv: how loaded the emulator was then), and the event jumps of
replay.log (an end just after a jump's landing). It reads, never writes a
run. docs/results/2026-11-27-end-lag.md has the readings.

    python3 -m metrics.end_lag RUN_DIR [RUN_DIR ...]
"""

import bisect
import csv
import json
import os
import re
import statistics
import sys

# Log seconds either side of a job's end within which other ends or
# starts count as "at the same moment".
NEAR_S = 10.0

JUMP = re.compile(r"event jump: ([0-9.]+) -> ([0-9.]+)")


def fnum(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_jobs(run_dir, faulted=False):
    """jobs.csv's rows with a start, an end and a modelled runtime, each
    as {job_id, eligible, start, end, runtime, excess} (log s from t0);
    rows with a fault (a late launch, metrics/jobs.py) only if
    `faulted`: their excess is the launch's, not the end's."""
    rows = []
    with open(os.path.join(run_dir, "jobs.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            start, end = fnum(r.get("start")), fnum(r.get("end"))
            runtime = fnum(r.get("runtime_scaled_s"))
            if None in (start, end, runtime) or (r.get("fault")
                                                  and not faulted):
                continue
            rows.append({"job_id": r["job_id"], "eligible": fnum(r["eligible"]),
                         "start": start, "end": end, "runtime": runtime,
                         "excess": end - start - runtime})
    return rows


def read_jumps(run_dir, t0):
    """[(from, to)] of replay.log's event jumps, log s from t0."""
    path = os.path.join(run_dir, "replay.log")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [(float(m[1]) - t0, float(m[2]) - t0)
                for m in map(JUMP.search, f) if m]


def read_launch(run_dir, column="launch_lag_s"):
    """{job id: float} of one column of launch.tsv (launch_lag_s: script
    start - Slurm's start; late_s: how far past start + runtime the script
    began), {} without the file."""
    path = os.path.join(run_dir, "launch.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {r["job_id"]: fnum(r[column])
                for r in csv.DictReader(f, delimiter="\t")
                if fnum(r.get(column)) is not None}


def totals(run_dir, faulted=False):
    """The run's whole excess over its modelled runtimes, over the jobs
    the tables count (no fault; `faulted` adds the rest), split into the
    late launches' part (launch.tsv late_s: the script began after its
    end) and the rest, the end lag: {runtime_s, excess_s, late_s,
    end_lag_s}."""
    rows = read_jobs(run_dir, faulted)
    late = read_launch(run_dir, "late_s")
    runtime = sum(r["runtime"] for r in rows)
    excess = sum(r["excess"] for r in rows)
    late_s = sum(max(0.0, late.get(r["job_id"]) or 0.0) for r in rows)
    return {"runtime_s": runtime, "excess_s": excess, "late_s": late_s,
            "end_lag_s": excess - late_s}


def count_in(sorted_values, lo, hi):
    return (bisect.bisect_right(sorted_values, hi)
            - bisect.bisect_left(sorted_values, lo))


def features(rows, jumps, lags):
    """Per job: the excess and what it might go with (see the module's
    comment). `modelled_end` is start + runtime, when the script ended."""
    ends = sorted(r["start"] + r["runtime"] for r in rows)
    starts = sorted(r["start"] for r in rows)
    landings = sorted(to for _, to in jumps)
    out = []
    for r in rows:
        e = r["start"] + r["runtime"]
        k = bisect.bisect_right(landings, e)
        out.append({
            "job_id": r["job_id"], "excess": r["excess"],
            "runtime": r["runtime"],
            "ends_near": count_in(ends, e - NEAR_S, e + NEAR_S) - 1,
            "starts_near": count_in(starts, e - NEAR_S, e + NEAR_S),
            "pending": sum(1 for o in rows if o["eligible"] <= e < o["start"]),
            "running": sum(1 for o in rows if o["start"] <= e < o["end"]),
            "since_jump": e - landings[k - 1] if k else None,
            "launch_lag": lags.get(r["job_id"]),
        })
    return out


def quantile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def ranks(values):
    order = sorted(range(len(values)), key=values.__getitem__)
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rank correlation (ties at their mean rank); nan when
    either side is constant or fewer than 3 pairs."""
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < 3:
        return float("nan")
    rx, ry = ranks([p[0] for p in pairs]), ranks([p[1] for p in pairs])
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


FEATURES = ("runtime", "ends_near", "starts_near", "pending", "running",
            "since_jump", "launch_lag")


def summary(feats):
    ex = [f["excess"] for f in feats]
    return {
        "jobs": len(ex), "mean": statistics.fmean(ex) if ex else float("nan"),
        "median": quantile(ex, 0.5), "p10": quantile(ex, 0.1),
        "p90": quantile(ex, 0.9), "max": max(ex, default=float("nan")),
        "min": min(ex, default=float("nan")),
        "rho": {k: spearman([f[k] for f in feats], ex) for k in FEATURES},
    }


def by_bins(feats, key, edges):
    """[(label, jobs, median excess)] of the jobs binned by feature `key`
    at `edges` (each bin [lo, hi))."""
    out = []
    for lo, hi in zip(edges, edges[1:] + [float("inf")]):
        ex = [f["excess"] for f in feats
              if f[key] is not None and lo <= f[key] < hi]
        if ex:
            out.append((f"{lo:g}-{hi:g}", len(ex), statistics.median(ex)))
    return out


def analyse(run_dir):
    with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    rows = read_jobs(run_dir)
    return features(rows, read_jumps(run_dir, manifest["t0"]),
                    read_launch(run_dir))


BINS = {"pending": [0, 1, 2, 5, 10, 50, 100, 200, 400],
        "running": [0, 5, 10, 20, 40],
        "ends_near": [0, 1, 2, 4],
        "starts_near": [0, 1, 2, 4, 8],
        "since_jump": [0, 60, 200, 1000, 5000],
        "launch_lag": [0, 10, 60, 200, 600],
        "runtime": [0, 600, 3600, 10800, 43200]}


def pct(part, whole):
    return f"{100 * part / whole:+.2f} %" if whole else "n/a"


def report(run_dirs):
    lines, every = [], []
    for d in run_dirs:
        feats = analyse(d)
        every += feats
        s, t = summary(feats), totals(d)
        pending_s = sum(f["excess"] for f in feats if f["pending"])
        lines.append(f"{os.path.basename(os.path.normpath(d))}: {s['jobs']} jobs, "
                     f"excess median {s['median']:.1f} p10 {s['p10']:.1f} "
                     f"p90 {s['p90']:.1f} max {s['max']:.1f} mean {s['mean']:.1f}; "
                     f"counted jobs: excess {pct(t['excess_s'], t['runtime_s'])} "
                     f"of the modelled runtimes, late launches "
                     f"{pct(t['late_s'], t['runtime_s'])}, end lag "
                     f"{pct(t['end_lag_s'], t['runtime_s'])}; end lag with "
                     f"jobs pending {pct(pending_s, t['runtime_s'])}")
    s = summary(every)
    lines.append(f"all: {s['jobs']} jobs, excess median {s['median']:.1f} "
                 f"p10 {s['p10']:.1f} p90 {s['p90']:.1f} max {s['max']:.1f} "
                 f"mean {s['mean']:.1f} min {s['min']:.1f}")
    lines.append("Spearman rho with the excess: " + ", ".join(
        f"{k} {v:+.2f}" for k, v in s["rho"].items()))
    for key, edges in BINS.items():
        lines.append(f"median excess by {key}: " + "; ".join(
            f"{lab}: {n} jobs, {m:.1f}" for lab, n, m in by_bins(every, key, edges)))
    return "\n".join(lines)


def main(argv):
    if not argv:
        print("usage: python3 -m metrics.end_lag RUN_DIR [RUN_DIR ...]",
              file=sys.stderr)
        return 2
    for d in argv:
        if not os.path.exists(os.path.join(d, "jobs.csv")):
            print(f"end_lag: {d}: no jobs.csv (expected a run directory "
                  f"with its metrics)", file=sys.stderr)
            return 1
    print(report(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
