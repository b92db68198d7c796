"""The job plan from a log: the window's jobs mapped to the cluster with
their profiles (communication, pattern, ratio, matrix density), limits and
runtimes; PREFILL's first set and INDIVIDUAL's occupying and drawn jobs.
"""

import math
import random
import subprocess

from workloads import logs, ta_speedup
from .errors import ReplayError
from .matrix import file_matrix, matrix_density


PATTERNS = ["rhvd", "rd", "binomial", "ring", "cmc"]   # study ids 1-5
PERCENTS = [10, 30, 50, 70, 90]


def make_plan(args, log, log_name, cluster_nodes, speedup, node_cores=0):
    """The window's jobs, mapped to the cluster, with their profiles;
    limits in Slurm's minutes, `speedup` log seconds to Slurm's second.
    node_cores: the cluster's cores per node, for GRANULARITY=core."""
    window = log.jobs[args.first:args.first + args.jobs]
    if not window:
        raise ReplayError(f"{log.path}: FIRST={args.first} is past the log's "
                          f"{len(log.jobs)} replayable jobs")
    cores = logs.CORES_PER_NODE.get(log_name or "", 0)
    if not cores and log.format == "swf":
        max_procs = int(log.header.get("MaxProcs", 0) or 0)
        max_nodes = int(log.header.get("MaxNodes", 0) or 0)
        cores = max(1, max_procs // max_nodes) if max_procs and max_nodes else 1
    sizes = getattr(args, "sizes", None) or "logged"
    if sizes == "authors":
        check_authors_sizes(args, log_name)
        divisor = 1
    else:
        divisor = args.scale or logs.STUDY_SIZE_DIVISOR.get(log_name or "", 1)
    no_limits = (getattr(args, "limits", None) or "ours") == "none"
    rng = random.Random(args.seed)
    grid = limit_grid(args.limit_grid, speedup)
    t_first = window[0].submit
    # RUNTIME_FACTOR scales every job's runtime and requested time (the
    # TreeMatch paper halves its workload's: 0.5).
    factor = args.runtime_factor if args.runtime_factor is not None else 1.0

    def size(j):
        nodes = j.nodes if j.nodes else math.ceil(j.procs / cores)
        if sizes == "authors":
            return authors_size(log_name, nodes)
        return max(1, math.ceil(nodes / divisor))

    def ranks_of(j, nodes):
        """GRANULARITY=core: one rank per core the job asked for (the TreeMatch
        paper's jobs ask for cores, CR_Core): the log's processors when they
        are this cluster's cores (same cores per node, sizes not scaled),
        else its nodes' cores. 0: whole nodes."""
        if getattr(args, "granularity", "node") != "core":
            return 0
        if not node_cores:
            raise ReplayError("GRANULARITY=core: the cluster's cluster.env has no CORES")
        if j.procs and cores == node_cores and divisor == 1:
            return j.procs
        return nodes * node_cores

    def limit_of(j):
        # LIMITS=none: 0, which tb-submit sends as no limit at all (the
        # partition's MaxTime=INFINITE), as the authors' sbatch lines
        # gave no --time (docs/readings.md).
        if no_limits:
            return 0
        # Policies can slow a job by their cost ratio (Eq. 7); a limit of
        # five times the log runtime lets that show instead of a TIMEOUT.
        limit = max((j.requested_time or 0) * factor, 5 * j.runtime * factor)
        return round(math.ceil(limit / grid) * grid / speedup / 60)

    plan, too_big = [], []
    for j in prefill_jobs(log, args, cluster_nodes, size):
        # The machine filled before the workload (PREFILL): compute jobs
        # without a matrix, so every policy gives them default's nodes and
        # their runtimes; all eligible at the window's first submission, in
        # log order, before (and with priority over) the window's jobs.
        plan.append({
            "log_id": str(j.log_id), "offset": 0.0, "runtime": j.runtime * factor,
            "nodes": size(j), "comm": 0, "pattern": PATTERNS[0], "comm_percent": 0,
            "limit_min": limit_of(j), "matrix_density": 0.0, "ta_reduction": 0.0,
            "prefill": 1, "nodelist": "", "chain": 0, "ranks": 0,
        })
    for j in window:
        nodes = size(j)
        # Profiles are drawn for every job, in order, whether or not the
        # log has one: the same SEED gives the same profiles everywhere.
        r_comm, r_pattern, r_perc = rng.random(), rng.randrange(5), rng.randrange(5)
        if nodes > cluster_nodes:
            too_big.append(j.log_id)
            continue
        comm = j.comm if j.comm is not None else int(r_comm < args.comm)
        # PATTERN other than mix, else the log's (a replayed run's), else drawn.
        if args.pattern != "mix":
            pattern = args.pattern
        elif j.pattern is not None:
            pattern = j.pattern
            if pattern not in PATTERNS:
                raise ReplayError(f"{log.path}: job {j.log_id}: unknown pattern "
                                  f"'{pattern}'; valid: {' '.join(PATTERNS)}")
        else:
            pattern = PATTERNS[r_pattern]
        if args.ratio is not None:
            perc = args.ratio * 100
        elif j.comm_percent is not None:
            perc = j.comm_percent
        else:
            perc = PERCENTS[r_perc]
        ranks = ranks_of(j, nodes)
        density = (matrix_density(ranks or nodes, args.sparsity)
                   if args.sparsity is not None and comm else 0.0)
        # MATRIX: every communicating job of the file's size gets the file.
        matrix_file = ""
        if getattr(args, "matrix", None) and comm and \
                (ranks or nodes) == file_matrix(args.matrix)[0]:
            matrix_file = args.matrix
        # SC18's runtime model: only the isolated policy's jobs speed up.
        ta = (ta_speedup.reduction(args.ta_speedup, nodes, args.seed, j.log_id)
              if args.ta_speedup and args.policy == "isolated" else 0.0)
        plan.append({
            "log_id": str(j.log_id), "offset": j.submit - t_first,
            "runtime": j.runtime * factor, "nodes": nodes, "comm": comm,
            "pattern": pattern, "comm_percent": perc,
            "limit_min": limit_of(j),
            "matrix_density": round(density, 6),
            "ta_reduction": round(ta, 6), "prefill": int(j.prefill or 0), "nodelist": "",
            "chain": 0, "ranks": ranks, "matrix_file": matrix_file,
            # NeDD's job lists: the application (the comment's fifth
            # field) and tb-submit's placement.
            "app": j.app or "", "placement": j.placement or "",
        })
    if too_big and args.strict:
        raise ReplayError(f"{len(too_big)} jobs need more than the cluster's "
                          f"{cluster_nodes} nodes (first: log job {too_big[0]}); "
                          "drop STRICT=1 to skip them")
    if args.individual:
        plan = individual_plan(plan, args, cluster_nodes, speedup)
    return plan, too_big


# SIZES=authors: the node counts the ICPP-W authors' script gives a log
# (gaganmangat/MTech-Thesis, JobLogs/continuous_run.py, scale(), l. 45-59,
# commit eb495bb, commented out there; its README says it "performs the
# relevant scaling of the number of nodes"): Theta (l. 49-55) halves jobs of
# more than one node, Mira (l. 56-59) and Intrepid ('anl', l. 45-48) divide
# by 4, all by integer division. Its Submit and Runtime //10 are not taken:
# the paper ran "for the same duration as their execution times" (L227).
AUTHORS_SIZES = {"theta": "halve jobs of more than one node",
                 "mira": "divide by 4", "intrepid": "divide by 4"}


def authors_size(log_name, nodes):
    """A job's node count under the authors' scale() (AUTHORS_SIZES); at
    least 1 (their floor division never reaches 0 on these logs)."""
    if log_name == "theta":
        return nodes // 2 if nodes > 1 else nodes
    return max(1, nodes // 4)


def check_authors_sizes(args, log_name):
    if log_name not in AUTHORS_SIZES:
        raise ReplayError(f"SIZES=authors: the authors' scale() covers "
                          f"{', '.join(AUTHORS_SIZES)}, not '{log_name or 'a file'}'; "
                          "use SIZES=logged (with SCALE=)")
    if args.scale not in (None, 1, 1.0):
        raise ReplayError(f"SIZES=authors replaces SCALE={args.scale:g}: drop SCALE "
                          "(or use SIZES=logged)")


# An occupying job of an individual run holds its nodes for the whole run
# (it is cancelled at the end, as PREFILL's jobs are): a year of log time.
OCCUPY_RUNTIME = 365 * 86400.0


def individual_plan(window, args, cluster_nodes, speedup):
    """INDIVIDUAL=n, the ICPP-W 2020 paper's "individual runs" (Sec. 5.4:
    "we first ran a few jobs to partially occupy the cluster and then
    submitted one job at a time, i.e., the next job was submitted after the
    completion of the previous job"; Sec. 6.3: "200 randomly selected
    jobs"). Which jobs occupy the cluster, and how much of it, the paper
    does not say. Ours: the window's jobs in log order, each taken when it
    fits in what is left of OCCUPY x the nodes (as PREFILL fills), hold
    their nodes until the end; n of the others that fit the nodes left
    free are drawn with SEED and run one after another (a Slurm dependency
    chain), each from the same state. The occupying jobs' nodes are chosen
    once, by default1905 (place_occupying), and given as node lists, so
    that every policy's run starts from the same state."""
    left = math.floor(args.occupy * cluster_nodes + 1e-9)
    occupying, others = [], []
    for p in window:
        if p["nodes"] <= left:
            left -= p["nodes"]
            occupying.append(dict(
                p, offset=0.0, runtime=OCCUPY_RUNTIME, ta_reduction=0.0, prefill=1,
                limit_min=math.ceil(2 * OCCUPY_RUNTIME / speedup / 60)))
        else:
            others.append(p)
    free = cluster_nodes - sum(p["nodes"] for p in occupying)
    fitting = [p for p in others if p["nodes"] <= free]
    if not fitting:
        raise ReplayError(f"INDIVIDUAL={args.individual}: no job of the window fits the "
                          f"{free} nodes OCCUPY={args.occupy:g} leaves free")
    rng = random.Random(f"individual:{args.seed}")
    picked = sorted(rng.sample(range(len(fitting)), min(args.individual, len(fitting))))
    drawn = [dict(fitting[k], offset=0.0, chain=n) for n, k in enumerate(picked, 1)]
    return occupying + drawn


def place_occupying(plan, topology, tool):
    """Each occupying job's nodes (INDIVIDUAL), in log order, as the
    library's default1905 (the paper's baseline, SLURM's own choice) places
    it on the nodes the earlier ones left: tb-alloc's state mode on the
    run's topology.json. Sets the entries' nodelist in place."""
    busy, busy_comm = [], []
    for p in plan:
        if not p["prefill"]:
            continue
        cmd = [tool, "--topology", topology, "--job",
               f"nodes={p['nodes']},comm={p['comm']},pattern={p['pattern']}"]
        if busy:
            cmd += ["--busy", ",".join(busy)]
        if busy_comm:
            cmd += ["--busy-comm", ",".join(busy_comm)]
        try:
            r = subprocess.run(cmd + ["default1905"], capture_output=True, text=True,
                               check=False)
        except OSError as e:
            raise ReplayError(f"{tool}: {e.strerror}; build it with "
                              "make -C plugins tools") from None
        words = r.stdout.split()
        if r.returncode != 0 or len(words) != 2 or words[0] != "default1905":
            raise ReplayError(f"placing occupying job {p['log_id']} ({p['nodes']} nodes): "
                              f"tb-alloc said '{(r.stderr or r.stdout).strip()[:200]}'")
        nodes = words[1].split(",")
        if len(nodes) != p["nodes"]:
            raise ReplayError(f"placing occupying job {p['log_id']}: tb-alloc gave "
                              f"{len(nodes)} nodes for {p['nodes']}")
        p["nodelist"] = words[1]
        (busy_comm if p["comm"] else busy).extend(nodes)


def prefill_jobs(log, args, cluster_nodes, size):
    """PREFILL=f: the jobs just before the window, latest first, each taken
    when it fits in what is left of f x the cluster's nodes, until that is
    filled (or the log's start is reached); returned in log order. The
    TreeMatch paper's first set, which "fills the cluster" and is always
    scheduled by SLURM (Sec. 4.1)."""
    if args.prefill is None:
        return []
    if args.first == 0:
        raise ReplayError("PREFILL needs jobs before the window to fill the machine "
                          "with; FIRST=0 has none")
    left = math.floor(args.prefill * cluster_nodes + 1e-9)
    out = []
    for j in reversed(log.jobs[:args.first]):
        if left == 0:
            break
        n = size(j)
        if n <= left:
            out.append(j)
            left -= n
    return out[::-1]


def limit_grid(grid, speedup):
    """The step, in log seconds, that time limits are rounded up to.

    Slurm counts limits in whole minutes of wall time, i.e. 60 x SPEEDUP
    log seconds. Rounding to that step would give a job other limits at
    another SPEEDUP, and backfill plans with limits, so replays at
    different speedups would schedule differently. Rounding to a fixed
    log-time step instead (LIMIT_GRID, made a whole number of wall minutes)
    gives every job the same limit, in log time, at every SPEEDUP whose
    minute divides that step.
    """
    minute = 60 * speedup
    return minute * max(1, math.ceil(grid / minute - 1e-9))
