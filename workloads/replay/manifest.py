"""A run's manifest.json as it is first written: what was run, on which
machine, under which readings, by which engine. One builder for both
engines, the replay on Slurm (cli.py) and the twin (workloads/simulate.py),
so that make report, make compare and the experiments read the same fields
from either; only the engine's own fields differ (ENGINE_FIELDS).
"""

import datetime
import os

from workloads import logs
from .plan import limit_grid
from .run_dir import git_revision

# The fields only the twin's manifest has (metrics/summary.py reads them).
ENGINE_FIELDS = ("engine", "simulated")


def size_divisor(args, log_name):
    """SCALE as the plan applied it: 1 when SIZES=authors scaled the sizes
    by the authors' script instead (plan.py, authors_size)."""
    if (getattr(args, "sizes", None) or "logged") == "authors":
        return 1
    return args.scale or logs.STUDY_SIZE_DIVISOR.get(log_name or "", 1)


def run_manifest(args, run, engine):
    """The manifest of a new run. run: the facts of the run both engines
    know (run_id, cluster, cluster_nodes, path, log_name, log, plan, too_big,
    speedup, clock, clock_rate, options, bf_window_min, topology_sha256);
    engine: a function giving what ran it (slurm_version and t0, and
    ENGINE_FIELDS for the twin), called last: a t0 read on a running clock
    must not lose the time the rest took."""
    plan, log = run["plan"], run["log"]
    prefill = [p for p in plan if p["prefill"]]
    manifest = {
        "run_id": run["run_id"], "cluster": run["cluster"],
        "cluster_nodes": run["cluster_nodes"],
        "policy": args.policy, "log": run["log_name"] or os.path.abspath(run["path"]),
        "log_file": os.path.basename(run["path"]), "log_format": log.format,
        # jobs: the window's; the prefill's are counted apart.
        "first": args.first, "jobs": len(plan) - len(prefill),
        "prefill": args.prefill, "prefill_jobs": len(prefill),
        "prefill_nodes": sum(p["nodes"] for p in prefill),
        "runtime_factor": args.runtime_factor,
        # INDIVIDUAL: the drawn jobs, run one at a time on OCCUPY of the
        # nodes held by the occupying (prefill) jobs.
        "individual": args.individual, "occupy": args.occupy,
        "skipped_no_runtime": log.skipped_no_runtime,
        "skipped_too_big": len(run["too_big"]), "seed": args.seed,
        # log seconds per Slurm second: SPEEDUP, or 1 under the virtual
        # clock, whose rate is clock_rate
        "speedup": run["speedup"], "clock": run["clock"],
        "clock_rate": run["clock_rate"],
        "limit_grid_s": limit_grid(args.limit_grid, run["speedup"]),
        "comm": args.comm, "pattern": args.pattern,
        "ratio": args.ratio, "sparsity": args.sparsity, "matrix": args.matrix,
        "granularity": args.granularity,
        "ta_speedup": args.ta_speedup,
        "size_divisor": size_divisor(args, run["log_name"]),
        # The ICPP-W readings (docs/readings.md): sizes, limits, and the
        # cluster's library options (ranks=, ...).
        "sizes": args.sizes, "limits": args.limits,
        "options": run["options"],
        # Backfill's bf_window in minutes (BF_WINDOW, workloads/
        # bf_window.py); None: Slurm's default, 1440.
        "bf_window_min": run.get("bf_window_min"),
        "topology_sha256": run["topology_sha256"],
        "git_revision": git_revision(args.root),
    }
    manifest.update(engine())
    manifest["wall_start"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    return manifest
