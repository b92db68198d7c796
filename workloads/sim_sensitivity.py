"""How much a run's total wait moves when its jobs' ends move a little, on
the twin (tb-sim): the resolution of a wait comparison on that plan.

A FIFO + backfill schedule of a saturated machine is sensitive: one job
ending a few seconds later can let another job miss a backfill hole and
wait for a large job's reservation, and the schedule of hundreds of jobs
after it changes. Two emulated runs of one plan differ by many such
seconds (launch and end lags, the clock's passes), so a difference in
their wait smaller than this sensitivity says nothing about its cause.
This module runs a finished run's own plan (its policy, OPTIONS, clock
and speedup, as make simulate RUN= does) on the twin:

- `--one D`: each of `--jobs N` jobs in turn (drawn with `--seed`) ending
  D log s later (its runtime + D), every other job as planned;
- `--lags L,L,...`: every job ending L log s later (tb-sim --lag, the
  emulation's end lag as a uniform delay), with the least-squares slope of
  the total wait over L and the scatter about it.

Each result is the total wait over every job (h), its change from the
unperturbed schedule, and how many jobs' waits moved by more than
`--moved-h`. `--bf-cost` is SIM_BF_COST (3 models a rate-1000 emulation's
backfill time; docs/simulator.md). Nothing is written in the run
directory. docs/results/2026-11-27-end-guard.md ("Why Theta's wait rose")
has the reading that needed it.

    python3 -m workloads.sim_sensitivity RUN_DIR [--one D --jobs N --seed S]
        [--lags L,L,...] [--bf-cost S] [--backfill slurm|easy|none] [--moved-h H]
"""

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

from workloads.registry import build_dir
from workloads.replay.errors import ReplayError
from workloads.replay.run_dir import read_plan
from workloads.simulate import read_sim, run_sim, write_matrices

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def perturbed(plan_text, log_id, delta):
    """plan.tsv's text with job log_id's runtime `delta` log s longer."""
    lines = plan_text.split("\n")
    header = lines[0].split("\t")
    try:
        col = header.index("runtime")
    except ValueError:
        raise ReplayError("plan.tsv: no runtime column; expected a replay's plan") from None
    found = False
    for i, line in enumerate(lines[1:], 1):
        cells = line.split("\t")
        if cells[0] == log_id:
            runtime = float(cells[col]) + delta
            if runtime <= 0:
                raise ReplayError(f"job {log_id}: runtime {cells[col]} + {delta:g} s is not > 0")
            cells[col] = f"{runtime:.3f}"
            lines[i] = "\t".join(cells)
            found = True
    if not found:
        raise ReplayError(f"plan.tsv: no job {log_id}")
    return "\n".join(lines)


class Twin:
    """A run's plan on tb-sim, in a scratch directory of its own."""

    def __init__(self, run_dir, backfill="slurm", bf_cost=0.0, root=ROOT):
        for f in ("plan.tsv", "topology.json", "manifest.json"):
            if not os.path.exists(os.path.join(run_dir, f)):
                raise ReplayError(f"{run_dir}: no {f}; expected a replay's run directory")
        with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)
        if self.manifest.get("individual"):
            raise ReplayError(f"{run_dir}: INDIVIDUAL runs are not supported")
        with open(os.path.join(run_dir, "plan.tsv"), encoding="utf-8") as f:
            self.plan_text = f.read()
        self.ids = [p["log_id"] for p in read_plan(os.path.join(run_dir, "plan.tsv"))]
        self.tool = os.path.join(build_dir(root), "tb-sim")
        self.dir = tempfile.mkdtemp(prefix="sim-sensitivity-")
        shutil.copyfile(os.path.join(run_dir, "topology.json"),
                        os.path.join(self.dir, "topology.json"))
        self.matrices = write_matrices(os.path.join(self.dir, "matrices.tsv"),
                                       read_plan(os.path.join(run_dir, "plan.tsv")),
                                       self.manifest.get("seed") or 0)
        self.args = argparse.Namespace(policy=self.manifest["policy"], backfill=backfill,
                                       lag=0.0, bf_cost=bf_cost,
                                       options=self.manifest.get("options") or "")

    def waits(self, plan_text=None, lag=0.0):
        """{log id: wait (log s)} of one simulation."""
        with open(os.path.join(self.dir, "plan.tsv"), "w", encoding="utf-8") as f:
            f.write(plan_text if plan_text is not None else self.plan_text)
        self.args.lag = lag
        run_sim(self.tool, self.dir, self.args, self.manifest, self.matrices)
        return {r["log_id"]: float(r["start"]) - float(r["eligible"])
                for r in read_sim(os.path.join(self.dir, "sim.tsv"))}

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def effect(base, waits, moved_s):
    """(total wait h, change from base %, jobs moved by more than moved_s)."""
    total = sum(waits.values()) / 3600.0
    before = sum(base.values()) / 3600.0
    moved = sum(1 for k in base if abs(waits[k] - base[k]) > moved_s)
    return total, (total / before - 1) * 100 if before else 0.0, moved


def one_summary(results, moved_s):
    """results: [(log id, total h, change %, moved)]: the share that moved
    more than one job (a cascade), the changes' range and spread."""
    changes = [r[2] for r in results]
    cascades = [r for r in results if r[3] > 1]
    return {"tried": len(results), "cascades": len(cascades),
            "min_percent": min(changes), "max_percent": max(changes),
            "sd_percent": statistics.pstdev(changes),
            "moved_max": max(r[3] for r in results), "moved_s": moved_s}


def lag_summary(points):
    """points: [(lag s, total h)]: the least-squares slope (h per lag s)
    and the scatter about it (h)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if len(set(xs)) < 2:
        return None
    fit = statistics.linear_regression(xs, ys)
    resid = [y - (fit.intercept + fit.slope * x) for x, y in points]
    return {"slope_h_per_s": fit.slope, "scatter_h": statistics.pstdev(resid)}


def numbers(text, name):
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ReplayError(f"{name} {text}: expected log seconds, ',' between them") from None


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.sim_sensitivity",
                                 description="A run's total wait under small end moves, on the twin.")
    ap.add_argument("run_dir")
    ap.add_argument("--one", type=float, help="move one job's end by this many log s, each in turn")
    ap.add_argument("--jobs", type=int, default=100, help="how many jobs --one tries (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="which jobs --one tries (default 1)")
    ap.add_argument("--lags", default="", help="uniform end lags, log s, ',' between them")
    ap.add_argument("--bf-cost", type=float, default=0.0, help="SIM_BF_COST (log s; default 0)")
    ap.add_argument("--backfill", default="slurm", choices=("slurm", "easy", "none"))
    ap.add_argument("--moved-h", type=float, default=1.0,
                    help="a job's wait moved if it changed by more (h; default 1)")
    args = ap.parse_args(argv)
    twin = None
    try:
        lags = numbers(args.lags, "--lags")
        if any(x < 0 for x in lags) or args.bf_cost < 0 or args.moved_h <= 0 or args.jobs < 1:
            raise ReplayError("--lags and --bf-cost: expected log s >= 0; --moved-h > 0; --jobs >= 1")
        if args.one is None and not lags:
            raise ReplayError("nothing to do: give --one D and/or --lags L,L,...")
        twin = Twin(args.run_dir, args.backfill, args.bf_cost)
        moved_s = args.moved_h * 3600.0
        base = twin.waits()
        print(f"{twin.manifest.get('run_id')}: {len(base)} jobs under {twin.manifest['policy']} "
              f"on the twin (bf_cost {args.bf_cost:g}): total wait {sum(base.values()) / 3600:,.0f} h")
        if args.one is not None:
            ids = list(twin.ids)
            random.Random(args.seed).shuffle(ids)
            results = []
            for log_id in ids[:args.jobs]:
                w = twin.waits(perturbed(twin.plan_text, log_id, args.one))
                results.append((log_id,) + effect(base, w, moved_s))
            s = one_summary(results, moved_s)
            print(f"one job's end {args.one:+g} s, {s['tried']} jobs (seed {args.seed}): "
                  f"{s['cascades']} moved more than one job's wait by > {args.moved_h:g} h; "
                  f"total wait {s['min_percent']:+.3f} % to {s['max_percent']:+.3f} % "
                  f"(sd {s['sd_percent']:.3f} %); at most {s['moved_max']} jobs moved")
            for log_id, total, change, moved in sorted(results, key=lambda r: -abs(r[2]))[:5]:
                if moved > 1:
                    print(f"  job {log_id}: {total:,.0f} h ({change:+.3f} %), {moved} jobs moved")
        points = []
        for lag in lags:
            total, change, moved = effect(base, twin.waits(lag=lag), moved_s)
            points.append((lag, total))
            print(f"every end {lag:+g} s: total wait {total:,.0f} h ({change:+.3f} %), "
                  f"{moved} jobs moved")
        fit = lag_summary(points) if points else None
        if fit:
            print(f"slope {fit['slope_h_per_s']:+,.1f} h per lag s "
                  f"({fit['slope_h_per_s'] / (sum(base.values()) / 3600) * 100:+.4f} % per s), "
                  f"scatter about it {fit['scatter_h']:,.0f} h "
                  f"({fit['scatter_h'] / (sum(base.values()) / 3600) * 100:.2f} %)")
    except ReplayError as e:
        print(f"sim_sensitivity: {e}", file=sys.stderr)
        return 1
    finally:
        if twin:
            twin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
