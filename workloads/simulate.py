"""make simulate: a replay's plan run on the emulation's twin (tb-sim,
plugins/sim) instead of the emulated cluster, in seconds.

    python3 -m workloads.simulate --cluster NAME --log LOG --policy P [replay options]

The plan is the replay's own (workloads/replay/plan.py, the same
parameters from workloads/params.tsv); the cluster's topology.json is
generated as `make up` would (emulated-clusters/generate.py, into
build/sim/<cluster>/). The run directory is a replay's: plan.tsv,
topology.json, manifest.json (engine "sim"), replay.log and a sacct.json
made from tb-sim's jobs (sim.tsv) with the fields make report reads, so
`make report` and `make compare` work on it unchanged. GRANULARITY=core:
the plan's jobs of ranks share nodes core by core on the twin too
(plugins/sim/sim_cores.c); sacct.json gives each its cores as its CPUs.
"""

import csv
import datetime
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

from workloads import bf_window, logs
from workloads.clustergen.slurm_conf import BF_MAX_TIME_MAX
from workloads.replay.cli import parse_args, shown, write_run_id
from workloads.replay.errors import ReplayError
from workloads.replay.manifest import run_manifest
from workloads.replay.matrix import comm_matrix
from workloads.replay.plan import make_plan, place_occupying
from workloads.replay.run_dir import (log_line, new_run_id, write_atomic, write_manifest,
                                      write_plan)
from workloads.replay.slurm_io import run_facts
from workloads.registry import build_dir

# Slurm's sacct states of a simulated job's end (sim_out.c).
STATES = ("COMPLETED", "TIMEOUT", "CANCELLED")
SIM_T0 = 1e9


def twin_engine():
    """The manifest's engine fields for a run on the twin (manifest.py):
    what ran it, not Slurm (make report says so), and an origin t0 that is
    not 0 (sacct's 0 is "not started"): the plan's offset 0 at 2001-09-09,
    in Slurm seconds."""
    return {"engine": "sim", "simulated": True, "slurm_version": None, "t0": SIM_T0}


def extra_args(ap):
    ap.add_argument("--cluster", required=True, help="the machine: emulated-clusters/<name>")
    ap.add_argument("--options", default="",
                    help="the library's readings, ',' or ' ' between words (OPTIONS)")
    ap.add_argument("--topologies-dir", default=os.environ.get("TOPOLOGIES_DIR", ""))
    ap.add_argument("--backfill", default="slurm", choices=("slurm", "easy", "none"),
                    help="slurm: every tested job reserves (Slurm 24.11); easy: the first")
    ap.add_argument("--lag", type=float, default=0.0,
                    help="log s every job runs past its runtime (the emulation's lag; SIM_LAG)")
    ap.add_argument("--bf-cost", type=float, default=0.0,
                    help="log s one tested job costs a backfill cycle (SIM_BF_COST; 0: none)")
    ap.add_argument("--costs", default="",
                    help="policies whose same-state cost each job's record also gives, "
                         "as the plugin's cost_<policy> (SIM_COSTS)")


def bf_max_time_log(manifest):
    """The run's bf_max_time in log seconds, as the generated slurm.conf
    has it (workloads/clustergen/slurm_conf.py, clock_settings): the clock's
    rate in Slurm seconds under the virtual clock at a rate above 1 (at
    most 3,600, Slurm's maximum), else Slurm's default, bf_interval (1
    Slurm s); a Slurm second is `speedup` log seconds (1 under the
    virtual clock)."""
    rate = float(manifest.get("clock_rate") or 1) if manifest.get("clock") == "virtual" else 1.0
    slurm_s = min(BF_MAX_TIME_MAX, math.ceil(rate)) if rate > 1 else 1
    return slurm_s * float(manifest.get("speedup") or 1)


def generate_cluster(root, name, options, topologies_dir):
    """The cluster's generated files (cluster.env, topology.json) as make
    up writes them, each run in its own directory under build/sim/ (runs
    side by side must not share one), removed after: (topology.json's
    text, nodes, cores/node)."""
    if not os.path.exists(os.path.join(root, "emulated-clusters", name + ".cluster")):
        names = sorted(f[:-8] for f in os.listdir(os.path.join(root, "emulated-clusters"))
                       if f.endswith(".cluster"))
        raise ReplayError(f"unknown CLUSTER '{name}'; valid: {' '.join(names)}")
    os.makedirs(os.path.join(root, "build", "sim"), exist_ok=True)
    out = tempfile.mkdtemp(prefix=name + ".", dir=os.path.join(root, "build", "sim"))
    try:
        return _generated(root, name, out, options, topologies_dir)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _generated(root, name, out, options, topologies_dir):
    cmd = [sys.executable, os.path.join(root, "emulated-clusters", "generate.py"), name, out]
    if topologies_dir:
        cmd += ["--topologies-dir", topologies_dir]
    if options:
        cmd += ["--options", options]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False,
                       env=dict(os.environ, PYTHONPATH=root))
    if r.returncode != 0:
        raise ReplayError(f"CLUSTER={name}: generate.py failed: "
                          f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}")
    env = {}
    with open(os.path.join(out, "cluster.env"), encoding="utf-8") as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            env[k] = v
    nodes = int(env["NODES"])
    with open(os.path.join(out, "topology.json"), encoding="utf-8") as f:
        topology = f.read()
    return topology, nodes, int(env.get("CORES", 0) or 0) // max(1, nodes)


def write_matrices(path, plan, seed):
    """Each communicating job's matrix, as the replay sends it
    (slurm_io.job_fields): one line per job, "<log id>\\t<matrix>"."""
    lines = [f"{p['log_id']}\t{comm_matrix(seed, p['log_id'], p.get('ranks') or p['nodes'], p['matrix_density'])}"
             for p in plan if p["matrix_density"] > 0]
    if not lines:
        return None
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def admin_comment(row, plan_entry):
    """The plugin's AdminComment (commtree_eval.c, _record) from tb-sim's
    record: what make report reads."""
    if row["recorded"] != "1":
        return ""
    if int(row.get("ranks") or 0):
        return core_comment(row, plan_entry)
    parts = [f"policy={row['policy']}", f"comm={plan_entry['comm']}",
             f"pattern={plan_entry['pattern']}",
             f"comm_percent={plan_entry['comm_percent']:g}",
             f"cost={row['cost']}", f"cost_default={row['cost_default']}"]
    if row["policy"] != "default":
        parts.append(f"cost_{row['policy']}={row['cost']}")
    if row["denominator"] not in ("default", row["policy"]):
        parts.append(f"cost_{row['denominator']}={row['cost_denominator']}")
    # The policies asked for (SIM_COSTS), each once, as the plugin's
    # cost_<policy>: what the same-state tables read.
    named = {p.split("=", 1)[0] for p in parts}
    for kv in filter(None, (row.get("costs") or "").split(",")):
        name, _, value = kv.partition("=")
        if name != "default" and f"cost_{name}" not in named:
            parts.append(f"cost_{name}={value}")
    parts += [f"denominator={row['denominator']}",
              f"runtime_base={row['runtime_base']}", f"runtime_scaled={row['runtime_scaled']}"]
    if row["runtime_fallback"]:
        parts.append(f"runtime_fallback={row['runtime_fallback']}")
    return record_end(parts, row, plan_entry, plan_entry.get("ranks") or plan_entry["nodes"])


def record_end(parts, row, plan_entry, ranks):
    """Both records' end, joined: a job with a traffic matrix's ranks and
    hop-bytes, the allocation's fallback, the engine."""
    if plan_entry["matrix_density"] > 0:
        parts += [f"matrix_ranks={ranks}", f"hop_bytes={row['hop_bytes']}",
                  f"hop_bytes_default={row['hop_bytes_default']}"]
    if row["fallback"]:
        parts.append(f"fallback={row['fallback']}")
    parts.append("engine=sim")
    return ";".join(parts)


def core_comment(row, plan_entry):
    """A job of ranks' record (GRANULARITY=core), as commtree_cores.c's
    _record writes it: no costs, the hop-bytes at core level."""
    parts = [f"policy={row['policy']}", "granularity=core", f"comm={plan_entry['comm']}",
             f"pattern={plan_entry['pattern']}",
             f"comm_percent={plan_entry['comm_percent']:g}"]
    if float(row["runtime_base"]) > 0:
        parts += [f"runtime_base={row['runtime_base']}",
                  f"runtime_scaled={row['runtime_scaled']}"]
        if row["runtime_fallback"]:
            parts.append(f"runtime_fallback={row['runtime_fallback']}")
    return record_end(parts, row, plan_entry, row["ranks"])


def job_cpus(row, names, cores_of):
    """CPUs Slurm allocates: a job of ranks' cores (one CPU per task in the
    partition cores), else its whole nodes' (metrics/jobs.py reads them:
    utilization in CPUs at core level)."""
    ranks = int(row.get("ranks") or 0)
    return ranks if ranks else sum(cores_of.get(n, 0) for n in names)


# Slurm's YEAR_MINUTES (sim.h, SIM_NO_LIMIT_MIN).
YEAR_MINUTES = 365 * 24 * 60


def sacct_limit(limit_min, backfilled):
    """sacct's time limit of a job: a plan limit of 0 (LIMITS=none) is
    what Slurm records for a job without one under MaxTime=INFINITE, a year
    when its backfill started it, else UNLIMITED (docs/readings.md)."""
    if limit_min:
        return {"set": True, "infinite": False, "number": limit_min}
    if backfilled:
        return {"set": True, "infinite": False, "number": YEAR_MINUTES}
    return {"set": True, "infinite": True, "number": 0}


def sacct_doc(manifest, plan, rows, cores_of):
    """sacct.json as collect() writes it, with the fields metrics/jobs.py
    reads; times in Slurm seconds: t0 + log time / speedup."""
    s, t0 = manifest["speedup"], manifest["t0"]
    by_id = {p["log_id"]: p for p in plan}
    order = {p["log_id"]: k for k, p in enumerate(plan)}
    jobs = []
    for r in rows:
        p = by_id[r["log_id"]]
        names = r["nodes"].split(",")
        eligible, start, end = (t0 + float(r[k]) / s for k in ("eligible", "start", "end"))
        jobs.append({
            "job_id": order[r["log_id"]] + 1,
            "name": f"{manifest['run_id']}:{r['log_id']}",
            "nodes": r["nodes"], "allocation_nodes": len(names),
            "comment": {"administrator": admin_comment(r, p), "job": "", "system": ""},
            "time": {"eligible": eligible, "start": start, "end": end,
                     "submission": eligible, "elapsed": round(end - start),
                     "limit": sacct_limit(p["limit_min"], r.get("backfilled") == "1")},
            "state": {"current": [r["state"]], "reason": "None"},
            "tres": {"allocated": [{"type": "cpu", "count": job_cpus(r, names, cores_of)},
                                   {"type": "node", "count": len(names)}]},
            "partition": "cores" if int(r.get("ranks") or 0) else "main",
            "cluster": manifest["cluster"],
        })
    return {"jobs": sorted(jobs, key=lambda j: j["job_id"]),
            "meta": {"engine": "sim", "tool": "tb-sim"},
            "errors": [], "warnings": [], "testbed": run_facts(manifest, plan)}


def read_sim(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        if r["state"] not in STATES:
            raise ReplayError(f"{path}: job {r['log_id']}: unknown state '{r['state']}'")
    return rows


def run_sim(tool, run_dir, args, manifest, matrices):
    cmd = [tool, "--topology", os.path.join(run_dir, "topology.json"),
           "--plan", os.path.join(run_dir, "plan.tsv"),
           "--speedup", f"{manifest['speedup']:g}", "--policy", args.policy,
           "--backfill", args.backfill, "--lag", f"{args.lag:g}",
           # slurm.conf's scheduler times are Slurm seconds: log seconds
           # x speedup under CLOCK=scaled (1 under the virtual clock, whose
           # begin times keep t0's fraction: no tick).
           "--bf-interval", f"{manifest['speedup']:g}",
           "--bf-resolution", f"{manifest['speedup']:g}",
           # BF_WINDOW as the run's manifest has it (Slurm's default,
           # 1440 min, when unset): the emulation's own for a RUN= twin;
           # every digit (:g would write 43200 min as 2.592e+06).
           "--bf-window", f"{bf_window.log_seconds(manifest):.15g}",
           "--tick", f"{manifest['speedup'] if manifest['clock'] != 'virtual' else 0:g}",
           "--out", os.path.join(run_dir, "sim.tsv")]
    if matrices:
        cmd += ["--matrices", matrices]
    # The emulated backfill's own time (SIM_BF_COST), cut where the
    # emulated Slurm cuts it.
    if getattr(args, "bf_cost", 0) > 0:
        cmd += ["--bf-cost", f"{args.bf_cost:g}",
                "--bf-max-time", f"{bf_max_time_log(manifest):g}"]
    words = args.options.replace(",", " ").strip()
    if words:
        cmd += ["--options", words]
    costs = ",".join(getattr(args, "costs", "").replace(",", " ").split())
    if costs:
        cmd += ["--costs", costs]
    t = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise ReplayError(f"{tool}: {e.strerror}; build it with make -C plugins tools") from None
    wall = time.monotonic() - t
    if r.returncode != 0:
        raise ReplayError((r.stderr.strip().splitlines() or [f"{tool} failed"])[-1])
    return cmd, wall, r.stderr.strip()


def simulate(args):
    root = args.root
    if args.lag < 0:
        raise ReplayError(f"SIM_LAG={args.lag:g}: expected log seconds >= 0")
    if args.bf_cost < 0:
        raise ReplayError(f"SIM_BF_COST={args.bf_cost:g}: expected log seconds >= 0")
    if args.resume:
        raise ReplayError("RESUME: a simulation is not resumed; run it again (seconds)")
    if not args.log:
        raise ReplayError(f"LOG is not set; valid: {' '.join(sorted(logs.NAMED_LOGS))}, "
                          "or a path")
    path, log_name = logs.resolve(args.log, args.workloads_dir)
    log = logs.read(path)
    topo_text, cluster_nodes, node_cores = generate_cluster(root, args.cluster, args.options,
                                                       args.topologies_dir)
    # The virtual clock runs Slurm in log seconds (speedup 1); CLOCK=scaled
    # divides them by SPEEDUP (limits are Slurm minutes either way).
    speedup = 1.0 if args.clock == "virtual" else args.speedup
    plan, too_big = make_plan(args, log, log_name, cluster_nodes, speedup, node_cores)
    results = os.path.join(root, args.results)
    os.makedirs(results, exist_ok=True)
    run_id = new_run_id(results, log_name or "log", args.policy + "-sim")
    run_dir = os.path.join(results, run_id)
    os.mkdir(run_dir)
    try:
        write_atomic(os.path.join(run_dir, "topology.json"), topo_text)
        if args.individual:
            place_occupying(plan, os.path.join(run_dir, "topology.json"),
                            os.path.join(build_dir(root), "tb-alloc"))
        write_plan(os.path.join(run_dir, "plan.tsv"), plan)
        manifest = run_manifest(args, {
            "run_id": run_id, "cluster": args.cluster, "cluster_nodes": cluster_nodes,
            "path": path, "log_name": log_name, "log": log, "plan": plan,
            "too_big": too_big, "speedup": speedup, "clock": args.clock,
            "clock_rate": args.speedup if args.clock == "virtual" else 1,
            "options": args.options or None, "bf_window_min": args.bf_window,
            "topology_sha256": hashlib.sha256(topo_text.encode("utf-8")).hexdigest()},
            twin_engine)
        write_manifest(run_dir, manifest)
        if args.run_id_file:
            write_run_id(args.run_id_file, run_id)
        matrices = write_matrices(os.path.join(run_dir, "matrices.tsv"), plan, args.seed)
        cmd, wall, said = run_sim(os.path.join(build_dir(root), "tb-sim"), run_dir, args,
                                  manifest, matrices)
        rows = read_sim(os.path.join(run_dir, "sim.tsv"))
        with open(os.path.join(run_dir, "topology.json"), encoding="utf-8") as f:
            cores_of = {n["name"]: int(n.get("cores", 0) or 0) for n in json.load(f)["nodes"]}
        write_atomic(os.path.join(run_dir, "sacct.json"),
                     json.dumps(sacct_doc(manifest, plan, rows, cores_of), indent=1))
        manifest["sim"] = {"command": " ".join(os.path.relpath(c, root) if c.startswith(root)
                                               else c for c in cmd),
                           "backfill": args.backfill, "lag_s": args.lag,
                           "bf_cost_s": args.bf_cost,
                           "wall_s": round(wall, 3),
                           "said": said}
        manifest["wall_end"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
        manifest["finished"] = len(rows) == len(plan)
        write_manifest(run_dir, manifest)
        log_line(run_dir, f"simulated by tb-sim in {wall:.2f} s: {len(rows)} jobs ({said})")
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    print(f"simulate {run_id}: {len(plan)} jobs of {path} on {args.cluster} under "
          f"{args.policy}, simulated in {wall:.2f} s -> {shown(run_dir, root)}/")
    return 0


def main(argv):
    try:
        args = parse_args(argv, extra_args,
                          "Run a job log on the emulation's twin (tb-sim).")
        return simulate(args)
    except (ReplayError, logs.LogError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.argv[0] = "python3 -m workloads.simulate"
    sys.exit(main(sys.argv[1:]))
