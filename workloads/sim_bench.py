"""make bench BENCH=sim: the twin's speed (issue 28's targets, printed,
never asserted): the study's 1,000-job Theta window under each ICPP-W
policy (the registry's family icpp) and default, on hpc2010 (the
experiments' machine) and theta, target < 5 s; and a 100,000-job synthetic
log on cori, target < 1 min; and core level (GRANULARITY=core), the
TreeMatch Curie experiment's plan (experiments/treematch-curie.exp: 349
whole-node jobs, then 60 jobs of cores with rank x rank matrices) under
default and the TreeMatch policies, no target. Each figure is `make
simulate`'s whole run (plan, tb-sim, sacct.json) in wall time, and
tb-sim's own share.

    python3 -m workloads.sim_bench --root R --workloads-dir W --out DIR [--jobs N]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

from workloads.registry import policy_registry
from workloads.simulate import generate_cluster


def synthetic_swf(path, jobs, nodes, seed=0, load=0.9):
    """A synthetic SWF log: sizes 2^k nodes (k uniform up to a quarter of
    the machine), runtimes log-uniform from 1 min to 12 h, requested time
    twice the runtime, Poisson arrivals at `load` of the machine's
    node-seconds. Ours, for speed only: no paper's workload."""
    rng = random.Random(seed)
    kmax = max(0, (nodes // 4).bit_length() - 1)
    sizes = [2 ** rng.randint(0, kmax) for _ in range(jobs)]
    runs = [round(60 * (720 ** rng.random())) for _ in range(jobs)]
    mean_work = sum(s * r for s, r in zip(sizes, runs)) / jobs
    gap = mean_work / (load * nodes)
    t = 0.0
    lines = [f"; MaxNodes: {nodes}", f"; MaxProcs: {nodes}",
             f"; Note: synthetic, workloads/sim_bench.py, seed {seed}, load {load}"]
    for i in range(jobs):
        t += rng.expovariate(1 / gap)
        lines.append(f"{i + 1} {int(t)} 0 {runs[i]} {sizes[i]} -1 -1 {sizes[i]} "
                     f"{2 * runs[i]} -1 1 1 1 -1 1 -1 -1 -1")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def simulate(root, out, cluster, policy, log, workloads_dir, extra=()):
    cmd = [sys.executable, "-m", "workloads.simulate", "--cluster", cluster, "--policy", policy,
           "--log", log, "--root", root, "--results", out, "--workloads-dir", workloads_dir,
           *extra]
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, check=False,
                       env=dict(os.environ, PYTHONPATH=root))
    wall = time.monotonic() - t
    if r.returncode != 0:
        raise SystemExit(f"sim_bench: {' '.join(cmd[2:])}: {r.stderr.strip()}")
    run_dir = r.stdout.strip().rsplit("-> ", 1)[-1].rstrip("/")
    with open(os.path.join(root, run_dir, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    # tb-sim's own line: "..., <s> s CPU" (its clock(), the CPU time).
    said = m["sim"].get("said", "")
    cpu = said.rsplit(", ", 1)[-1] if said.endswith("CPU") else "CPU ?"
    return wall, m["sim"]["wall_s"], m["jobs"], cpu


# experiments/treematch-curie.exp's replay parameters, at a = 1/2.
TREEMATCH_CURIE = ["--jobs", "60", "--first", "2980", "--scale", "1", "--prefill", "1",
                   "--runtime-factor", "0.5", "--comm", "1", "--sparsity", "0.9",
                   "--granularity", "core", "--seed", "0", "--options", "denominator=default",
                   "--clock", "virtual", "--speedup", "100", "--ratio", "0.5"]


def load():
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--workloads-dir", default="")
    ap.add_argument("--out", required=True, help="where the runs go")
    ap.add_argument("--jobs", type=int, default=100000, help="the synthetic log's jobs")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    icpp = [name for name, family, _, _ in policy_registry(args.root) if family == "icpp"]
    print(f"# make bench BENCH=sim: the twin (tb-sim); host {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC; load {load()} "
          "(1/5/15 min: other work on the host slows wall times; tb-sim's CPU time is "
          "the cleaner figure)")
    for cluster in ("hpc2010", "theta"):
        for policy in ["default"] + icpp:
            wall, sim, jobs, cpu = simulate(args.root, args.out, cluster, policy, "theta",
                                            args.workloads_dir)
            print(f"theta window ({jobs} jobs) on {cluster} under {policy}: "
                  f"{wall:.2f} s (tb-sim {sim:.2f} s wall, {cpu}); target < 5 s")
    for policy in ("default", "tm-a", "tm-i", "tm-sub"):
        wall, sim, jobs, cpu = simulate(args.root, args.out, "curie", policy, "curie",
                                        args.workloads_dir, TREEMATCH_CURIE)
        print(f"treematch-curie at core level ({jobs} jobs, a = 1/2) on curie under {policy}: "
              f"{wall:.2f} s (tb-sim {sim:.2f} s wall, {cpu})")
    log = os.path.join(args.out, f"synthetic-{args.jobs}.swf")
    t = time.monotonic()
    _, cori_nodes, _ = generate_cluster(args.root, "cori", "",
                                        os.environ.get("TOPOLOGIES_DIR", ""))
    synthetic_swf(log, args.jobs, cori_nodes)
    gen = time.monotonic() - t
    for policy in ("default", "greedy"):
        wall, sim, jobs, cpu = simulate(args.root, args.out, "cori", policy, log,
                                        args.workloads_dir, ["--jobs", str(args.jobs)])
        print(f"synthetic log ({jobs} jobs, {cori_nodes} nodes, load 0.9; made in {gen:.1f} s) "
              f"on cori under {policy}: {wall:.2f} s (tb-sim {sim:.2f} s wall, {cpu}); "
              f"target < 60 s; host load {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
