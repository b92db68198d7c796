#!/usr/bin/env python3
"""Replay a job log on the running emulated cluster.

Every job of the window is submitted with `--begin` set to its compressed
submit time (t0 + submit / SPEEDUP), a little ahead of that time (LEAD
seconds), rather than at that moment: the submitter then never has to keep
pace with bursts, and Slurm makes each job eligible at its own time (BeginTime
has one-second resolution, so a job becomes eligible within 1 s of it).

Jobs are sleeps of T_scaled / SPEEDUP seconds, T_scaled being the runtime
the allocation plugin computed from the log runtime and the cost of the
nodes the job got (Eq. 7). Under `default1905`, Eq. 7's denominator, T_scaled
is the log runtime.

Results go to results/<run-id>/: plan.tsv (the window as replayed),
submitted.tsv (log id -> Slurm id, fsynced after each job, which is what
RESUME continues from), rerun.tsv (log id, attempt, Slurm id of the jobs
RERUN_FAULTED=1 ran again), sacct.json, manifest.json and replay.log.
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import json
import math
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faults  # noqa: E402
import health  # noqa: E402
import launch  # noqa: E402
import logs  # noqa: E402
import ta_speedup  # noqa: E402
import vclock  # noqa: E402

PATTERNS = ["rhvd", "rd", "binomial", "ring", "cmc"]   # study ids 1-5
PERCENTS = [10, 30, 50, 70, 90]
BATCH_SCRIPT = "/tmp/testbed-replay-job.sh"


class ReplayError(Exception):
    pass


def build_dir(root):
    """The policy library's build: its tools and policies.tsv ($TB_BUILD,
    default build/c in the clone)."""
    return os.environ.get("TB_BUILD") or os.path.join(root, "build", "c")


def policy_names(root=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
    """The policies of the library's registry, in its order, as the build
    wrote them (policies.tsv: name, family, traits, paper per line; make -C
    plugins registry writes it from plugins/lib/policy_registry.def)."""
    path = os.path.join(build_dir(root), "policies.tsv")
    try:
        with open(path, encoding="utf-8") as f:
            names = [line.split("\t")[0] for line in f if line.strip()]
    except OSError as e:
        raise ReplayError(f"{path}: {e.strerror}; make -C plugins registry "
                          "writes it") from None
    if not names:
        raise ReplayError(f"{path}: no policies")
    return names


def log_line(run_dir, text):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    with open(os.path.join(run_dir, "replay.log"), "a", encoding="utf-8") as f:
        f.write(f"{stamp} {text}\n")


# --- the controller ------------------------------------------------------------

def controller():
    out = subprocess.run(
        ["docker", "ps", "-q", "--filter",
         f"label=com.docker.compose.project={os.environ.get('TESTBED_PROJECT', 'testbed')}",
         "--filter", "label=com.docker.compose.service=slurmctld"],
        capture_output=True, text=True, check=False).stdout.split()
    if not out:
        raise ReplayError("no cluster is up; run 'make up CLUSTER=<name>' first")
    return out[0]


def ctl(container, command, stdin=None, check=True):
    r = subprocess.run(["docker", "exec", "-i", container, "bash", "-c", command],
                       input=stdin, capture_output=True, text=True, check=False)
    if check and r.returncode != 0:
        raise ReplayError(f"'{command[:60]}' failed: {r.stderr.strip()[-200:]}")
    return r.stdout


class _Pipe:
    """A process kept open in the controller container (subclasses start
    it); closed politely, killed if it does not end within `wait` s."""

    wait = 5

    def __init__(self, container):
        self.container = container
        self.p = None

    def close(self):
        if self.p is None:
            return
        try:
            self.p.stdin.close()
            self.p.wait(timeout=self.wait)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
        self.p = None


class Shell(_Pipe):
    """One bash in the controller container, kept open: a command a line
    in, its output and a sentinel line with its status out. A docker exec
    takes 0.1 to 1 wall s on a loaded machine; this takes what the command
    takes, so the launch guard can look at the queue several times a wall
    second. Restarted once if it died; ReplayError if it fails again."""

    END = "__testbed_end__"

    def _start(self):
        loop = (f'while IFS= read -r c; do eval "$c" 2>/dev/null; '
                f'echo "{self.END} $?"; done')
        self.p = subprocess.Popen(
            ["docker", "exec", "-i", self.container, "bash", "-c", loop],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1)

    def run(self, command):
        for attempt in (1, 2):
            if self.p is None or self.p.poll() is not None:
                self._start()
            try:
                self.p.stdin.write(command + "\n")
                self.p.stdin.flush()
                out = []
                for line in self.p.stdout:
                    # output without a final newline ends on the same line
                    at = line.find(self.END + " ")
                    if at >= 0:
                        out.append(line[:at])
                        if line[at:].split()[1] != "0":
                            raise ReplayError(f"'{command[:60]}' failed")
                        return "".join(out)
                    out.append(line)
            except OSError:
                pass
            self.close()
        raise ReplayError(f"'{command[:60]}': the controller's shell died")


class Submitter(_Pipe):
    """tb-submit (plugins/tools/submit.c) in the controller container: one
    libslurm submission per line in, a job id (or an error) per line out.
    It loads Slurm's configuration once, where one sbatch per job spent
    most of its time starting up. Restarted if it dies (a controller
    restart can take its container down)."""

    wait = 10

    def _start(self):
        self.p = subprocess.Popen(
            ["docker", "exec", "-i", self.container, "tb-submit", "-s", "-x",
             BATCH_SCRIPT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def submit(self, fields):
        if self.p is None or self.p.poll() is not None:
            self._start()
        try:
            self.p.stdin.write("\t".join(str(f) for f in fields) + "\n")
            self.p.stdin.flush()
            reply = self.p.stdout.readline().strip()
        except OSError as e:
            self.close()
            raise ReplayError(f"tb-submit: {e}") from e
        if not reply.isdigit():
            if not reply:
                self.close()
            raise ReplayError(f"tb-submit: {reply or 'no answer'}")
        return int(reply)


# --- the plan -------------------------------------------------------------------

def current_cluster(root):
    """The name of the cluster `make up` started last."""
    state = os.environ.get("TESTBED_STATE_DIR") or os.path.join(root, ".state")
    try:
        with open(os.path.join(state, "cluster"), encoding="utf-8") as f:
            return f.read().strip()
    except FileNotFoundError:
        raise ReplayError("no cluster is up; run 'make up CLUSTER=<name>' first")


def cluster_dir(root, name):
    """scripts/testbed's cluster_dir: another project (TESTBED_PROJECT) has
    its own generated configuration."""
    project = os.environ.get("TESTBED_PROJECT", "testbed")
    clusters = (os.path.join(root, "build", "clusters") if project == "testbed" else
                os.path.join(root, "build", "projects", project, "clusters"))
    return os.path.join(clusters, name)


def cluster_facts(root):
    name = current_cluster(root)
    env = {}
    with open(os.path.join(cluster_dir(root, name), "cluster.env"), encoding="utf-8") as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            env[k] = v
    nodes = int(env["NODES"])
    return name, nodes, int(env.get("CORES", 0) or 0) // max(1, nodes)


def keep_topology(root, name, run_dir):
    """The running cluster's topology.json (make up generated it) into the
    run directory, whole or not at all: the report measures APH on the
    tree the run had, not on one generated again later. Its sha256."""
    src = os.path.join(cluster_dir(root, name), "topology.json")
    try:
        with open(src, encoding="utf-8") as f:
            data = f.read()
    except OSError as e:
        raise ReplayError(f"{src}: {e.strerror}; run 'make up CLUSTER={name}' again")
    write_atomic(os.path.join(run_dir, "topology.json"), data)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def topology_sha256(root, name):
    """The sha256 of the running cluster's topology.json, or None."""
    try:
        with open(os.path.join(cluster_dir(root, name), "topology.json"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


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
    divisor = args.scale or logs.STUDY_SIZE_DIVISOR.get(log_name or "", 1)
    rng = random.Random(args.seed)
    grid = limit_grid(args.limit_grid, speedup)
    t_first = window[0].submit
    # RUNTIME_FACTOR scales every job's runtime and requested time (the
    # TreeMatch paper halves its workload's: 0.5).
    factor = args.runtime_factor if args.runtime_factor is not None else 1.0

    def size(j):
        nodes = j.nodes if j.nodes else math.ceil(j.procs / cores)
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
        # SC18's runtime model: only the isolated policy's jobs speed up.
        ta = (ta_speedup.reduction(args.ta_speedup, nodes, args.seed, j.log_id)
              if args.ta_speedup and args.policy == "isolated" else 0.0)
        plan.append({
            "log_id": str(j.log_id), "offset": j.submit - t_first,
            "runtime": j.runtime * factor, "nodes": nodes, "comm": comm,
            "pattern": pattern, "comm_percent": perc,
            "limit_min": limit_of(j),
            "matrix_density": round(density, 6),
            "ta_reduction": round(ta, 6), "prefill": 0, "nodelist": "", "chain": 0,
            "ranks": ranks,
        })
    if too_big and args.strict:
        raise ReplayError(f"{len(too_big)} jobs need more than the cluster's "
                          f"{cluster_nodes} nodes (first: log job {too_big[0]}); "
                          "drop STRICT=1 to skip them")
    if args.individual:
        plan = individual_plan(plan, args, cluster_nodes, speedup)
    return plan, too_big


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


PLAN_FIELDS = ["log_id", "offset", "runtime", "nodes", "comm", "pattern",
               "comm_percent", "limit_min", "matrix_density", "ta_reduction", "prefill",
               "nodelist", "chain", "ranks"]

# The longest matrix a job's SPANK environment carries (MATRIX_LINE_MAX in
# plugins/slurm/spank_testbed.c: the environment string Linux still passes).
MATRIX_LINE_MAX = 120_000
# Message volumes are drawn from 1 KiB to 16 MiB, powers of two.
MATRIX_VOLUME_LOG2 = (10, 24)


def matrix_room(nodes):
    """How many entries surely fit in MATRIX_LINE_MAX, at their longest."""
    entry = 2 * len(str(nodes - 1)) + len(str(2 ** MATRIX_VOLUME_LOG2[1])) + 3
    return (MATRIX_LINE_MAX - len(f"ranks {nodes};")) // entry


def matrix_density(nodes, sparsity):
    """The share of ordered node pairs that communicate: 1 - SPARSITY, or
    less for a job whose matrix would not fit in MATRIX_LINE_MAX."""
    pairs = nodes * (nodes - 1)
    if pairs == 0:
        return 0.0
    return min(1.0 - sparsity, matrix_room(nodes) / pairs)


def comm_matrix(seed, log_id, nodes, density):
    """A job's node x node matrix on one line (plugins/lib/matrix.h, entries
    separated by ';'). It depends on SEED and the job alone, not on the
    other jobs' draws, so a job has the same matrix under every policy and
    in every window that contains it."""
    rng = random.Random(f"{seed}:{log_id}")
    pairs = nodes * (nodes - 1)
    # The plan keeps the density to 6 digits: never round past the room.
    count = min(round(density * pairs), matrix_room(nodes))
    chosen = sorted(rng.sample(range(pairs), count))
    out = [f"ranks {nodes}"]
    for k in chosen:
        i, r = divmod(k, nodes - 1)
        j = r if r < i else r + 1
        out.append(f"{i} {j} {2 ** rng.randint(*MATRIX_VOLUME_LOG2)}")
    return ";".join(out)


def write_atomic(path, text):
    """The whole file or, on any error (a full disk), none of it."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_plan(path, plan):
    rows = ["\t".join(PLAN_FIELDS)]
    rows += ["\t".join(str(p.get(k, 0) if k == "ranks" else p[k]) for k in PLAN_FIELDS)
             for p in plan]
    write_atomic(path, "\n".join(rows) + "\n")


def read_plan(path):
    plan = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            row.setdefault("matrix_density", "0")
            row.setdefault("ta_reduction", "0")
            row.setdefault("prefill", "0")
            row.setdefault("nodelist", "")
            row.setdefault("chain", "0")
            row.setdefault("ranks", "0")
            for k in ("offset", "runtime", "comm_percent", "matrix_density",
                      "ta_reduction"):
                row[k] = float(row[k])
            for k in ("nodes", "comm", "limit_min", "prefill", "chain", "ranks"):
                row[k] = int(row[k])
            plan.append(row)
    return plan


# --- running ----------------------------------------------------------------------

def read_submitted(path, plan):
    """submitted.tsv as {log id: job id}. A write cut short (a full disk)
    can leave a partial last line, and later appends glued to it: lines
    that are not a planned log id and a job id are dropped, and the file
    is rewritten without them; reconcile() then finds those jobs in Slurm."""
    done, bad = {}, 0
    if not os.path.exists(path):
        return done
    planned = {p["log_id"] for p in plan}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if (line.endswith("\n") and len(parts) == 2 and parts[0] in planned
                    and parts[1].isdigit() and parts[0] not in done):
                done[parts[0]] = int(parts[1])
            else:
                bad += 1
    if bad:
        write_atomic(path, "".join(f"{k} {v}\n" for k, v in done.items()))
    return done


def read_reruns(path, plan):
    """rerun.tsv as {(log id, attempt): job id}; lines cut short are
    dropped as in read_submitted."""
    done, bad = {}, 0
    if not os.path.exists(path):
        return done
    planned = {p["log_id"] for p in plan}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if (line.endswith("\n") and len(parts) == 3 and parts[0] in planned
                    and parts[1].isdigit() and int(parts[1]) > 0 and parts[2].isdigit()
                    and (parts[0], int(parts[1])) not in done):
                done[(parts[0], int(parts[1]))] = int(parts[2])
            else:
                bad += 1
    if bad:
        write_atomic(path, "".join(f"{k} {n} {v}\n" for (k, n), v in done.items()))
    return done


def append_synced(path, lines):
    if not lines:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(lines)
        f.flush()
        os.fsync(f.fileno())


def reconcile(container, run_id, submitted, path, reruns=None, rerun_path=None):
    """Jobs Slurm has for this run that submitted.tsv (or, for the jobs run
    again after a fault, rerun.tsv) lacks (the driver died between
    submission and the write) are recorded, not submitted again. A
    controller that does not answer is waited for: its silence says
    nothing about which jobs it has."""
    out = slurm_answer(container, f"squeue -h -a -o '%i %j' && sacct -X -n -P -a "
                       f"--starttime=now-7days -o JobID,JobName",
                       "which jobs of the run Slurm has", os.path.dirname(path))
    lines, rerun_lines = [], []
    for line in out.splitlines():
        parts = line.replace("|", " ").split()
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        mine = faults.log_id_of(parts[1], run_id)
        if mine is None:
            continue
        log_id, attempt = mine
        if attempt == 0 and log_id not in submitted:
            submitted[log_id] = int(parts[0])
            lines.append(f"{log_id} {parts[0]}\n")
        elif attempt and reruns is not None and (log_id, attempt) not in reruns:
            reruns[(log_id, attempt)] = int(parts[0])
            rerun_lines.append(f"{log_id} {attempt} {parts[0]}\n")
    append_synced(path, lines)
    if rerun_path:
        append_synced(rerun_path, rerun_lines)
    return len(lines) + len(rerun_lines)


# How long the driver waits for a controller that does not answer whether
# it has a job, asking again every few seconds, before it stops.
ANSWER_WAIT = 600


def slurm_answer(container, command, what, run_dir):
    """The output of squeue/sacct `command` once every command of it
    succeeded. A failed lookup is no answer, not an empty one: taking it
    for "absent" would submit again a job the controller accepted before
    it died. Waits up to ANSWER_WAIT seconds, saying so, then stops the
    run; RESUME continues it once the controller is back."""
    waited, delay = 0.0, 1.0
    while True:
        try:
            return ctl(container, command)
        except ReplayError as e:
            reason = str(e)
        if waited >= ANSWER_WAIT:
            raise ReplayError(f"the controller gave no answer in {waited:.0f} s on "
                              f"{what} ({reason}); nothing was submitted again: bring "
                              f"it back, then {resume_hint(run_dir)}")
        progress(f"replay: the controller does not answer on {what}; "
                 f"asking again ({waited:.0f} of {ANSWER_WAIT} s)")
        log_line(run_dir, f"no answer on {what}: {reason}")
        time.sleep(delay)
        waited += delay
        delay = min(10.0, 2 * delay)


def install_batch_script(container):
    script = ("#!/bin/bash\n"
              "# Replayed job: sleep the scaled runtime, compressed by SPEEDUP ($1).\n"
              "# TESTBED_RUNTIME_SCALED comes from the allocation plugin; the\n"
              "# log runtime ($2) stands in if the plugin recorded none.\n"
              "t=${TESTBED_RUNTIME_SCALED:-$2}\n"
              "# Under the virtual clock ($3 names its page) the job's environment\n"
              "# is the submitter's, without the preload: it is set here, and the\n"
              "# job ends at its start + its runtime, so that launch latency\n"
              "# (wall time, hence many virtual seconds) is not added to it.\n"
              "# Its start goes to the launch guard's file ($4, workloads/launch.py).\n"
              "if [ -n \"${3:-}\" ]; then\n"
              "\texport LD_PRELOAD=/usr/local/lib/libtbvclock.so TB_VCLOCK_FILE=$3\n"
              "\tnow=$(date +%s.%N)\n"
              "\t[ -z \"${4:-}\" ] || printf '%s\\t%s\\t%s\\n' \"${SLURM_JOB_ID:-}\" "
              "\"${SLURM_JOB_START_TIME:-0}\" \"$now\" >> \"$4\" || true\n"
              "\texec sleep \"$(awk -v t=\"$t\" -v s=\"$1\" -v st=\"${SLURM_JOB_START_TIME:-0}\" "
              "-v now=\"$now\" "
              "'BEGIN {d = t / s; if (st > 0) d = st + d - now; printf \"%.3f\", (d > 0 ? d : 0)}')\"\n"
              "fi\n"
              "exec sleep \"$(awk -v t=\"$t\" -v s=\"$1\" "
              "'BEGIN {printf \"%.3f\", t / s}')\"\n")
    ctl(container, f"cat > {BATCH_SCRIPT} && chmod 755 {BATCH_SCRIPT}", stdin=script)


def progress(text, final=False):
    if sys.stdout.isatty():
        sys.stdout.write("\r\033[K" + text + ("\n" if final else ""))
    else:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()


def queue_state(container, run_id, shell=None):
    """{log id: (state, start epoch or None, Slurm id or None when it is
    not held, the start backfill plans for a job blocked on resources or
    None, Slurm id, Slurm's reason)} of the run's jobs still in the queue, or None while the
    controller does not answer (restarting): an empty queue must not end
    the run."""
    try:
        command = "SLURM_TIME_FORMAT=%s squeue -h -o '%j|%T|%S|%i|%r'"
        out = shell.run(command) if shell else ctl(container, command)
    except ReplayError:
        return None
    jobs = {}
    for line in out.splitlines():
        name, state, start, jid, reason = (line.split("|") + [""] * 4)[:5]
        mine = faults.log_id_of(name, run_id)
        if mine is None:
            continue
        # A rerun stands for its log job (the job it replaces has ended).
        pending = state == "PENDING"
        jobs[mine[0]] = (
            state, int(start) if not pending and start.isdigit() else None,
            jid if pending and "held" in reason.lower() else None,
            int(start) if pending and reason == "Resources" and start.isdigit() else None,
            jid, reason)
    return jobs


def note_reservation(path, order, queued, now, last):
    """Appends to reservations.tsv (Slurm time, log id, planned start)
    when the first job blocked on resources (EASY's reserved job: the
    highest priority, i.e. earliest in the log, with reason Resources) or
    its planned start changes; returns what it noted. make report counts
    the reservations that a later job's start delayed (issue: the plugin
    cannot tell backfill which leaves the reserved job needs)."""
    blocked = [(order[k], k, q[3]) for k, q in queued.items()
               if q[0] == "PENDING" and q[3] is not None and k in order]
    top = min(blocked)[1:] if blocked else None
    if top and top != last:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{now:.3f}\t{top[0]}\t{top[1]}\n")
    return top or last


def held_note(queued):
    """The progress line's note on held jobs: a held job never starts by
    itself, so the replay would drain forever without saying why."""
    held = sorted((q[2] for q in queued.values() if q[2]), key=int)
    if not held:
        return ""
    return (f", {len(held)} held by Slurm (make exec CMD='squeue -j "
            f"{','.join(held)}'; scontrol release to go on)")


def waiting_for_time(container, run_id):
    """The log ids of this run's jobs if every job in the queue is this
    run's and waits for its begin time only (nothing runs, completes or
    waits for nodes), else None (also while the controller is silent)."""
    try:
        out = ctl(container, "squeue -h -o '%j|%T|%r'")
    except ReplayError:
        return None
    ids = []
    for line in out.splitlines():
        name, state, reason = (line.split("|") + ["", ""])[:3]
        mine = faults.log_id_of(name, run_id)
        if mine is None or state != "PENDING" or reason != "BeginTime":
            return None
        ids.append(mine[0])
    return ids


# An idle jump lands this many wall seconds (at the virtual clock's pace)
# before the next begin time: Slurm then makes that job eligible on time.
# Jumps shorter than twice that are not worth making.
JUMP_MARGIN_WALL = 1.0


def idle_jump(container, clock, plan, i, t0, now, run_dir, manifest):
    """Under the virtual clock, when nothing runs and every queued job
    waits for its begin time: the clock jumps to just before the next
    begin time, a queued job's or the next submission's (docs/vclock.md;
    forward only). Returns the time jumped to, or None."""
    waiting = waiting_for_time(container, manifest["run_id"])
    if waiting is None:
        return None
    queued = set(waiting)
    begins = [t0 + p["offset"] for p in plan if p["log_id"] in queued]
    if i < len(plan):
        begins.append(t0 + plan[i]["offset"])
    if not begins:
        return None
    target = min(begins) - JUMP_MARGIN_WALL * clock.pace
    now = clock.now()
    if target - now < 2 * JUMP_MARGIN_WALL * clock.pace:
        return None
    try:
        ctl(container, vclock.jump_command(target))
    except ReplayError as e:
        log_line(run_dir, f"idle jump to {target:.0f} refused: {e}")
        return None
    manifest["clock_jumps"] = manifest.get("clock_jumps", 0) + 1
    manifest["jumped_s"] = round(manifest.get("jumped_s", 0.0) + target - now, 3)
    log_line(run_dir, f"idle jump: {target - now:.0f} s skipped (nothing ran; "
             f"{len(waiting)} jobs waited for their begin time)")
    return target


def time_left(plan, submitted, queued, now, speedup, nodes):
    """A lower bound on the wall time the replay still needs: the work not
    done yet (log runtimes; a policy's slowdown comes on top) on the whole
    machine. The last submission alone says little: the queue of a busy
    log drains for hours after it."""
    node_s = 0.0
    for p in plan:
        if p.get("nodelist"):
            continue            # INDIVIDUAL's occupying jobs end with the run
        start = queued.get(p["log_id"], ("PENDING", None, None, None, None, ""))[1]
        if p["log_id"] in submitted and p["log_id"] not in queued:
            continue
        left = p["runtime"] / speedup
        if start is not None:
            left = max(0.0, left - (now - start))
        node_s += p["nodes"] * left
    return node_s / nodes


# Submissions in flight at once. One round trip takes about 12 ms on curie,
# mostly the controller's own work on the job: one submitter reached 75
# jobs/s, four reach 159 (make bench BENCH=submit).
SUBMITTERS = 4

# Jobs carry explicit priorities in log order, so the order of equally
# eligible jobs is the log's, whatever order parallel submissions (or a
# RESUME) give their job ids. Slurm's priority/basic would otherwise rank
# them by submission.
PRIORITY_TOP = 1_000_000_000


SUBMIT_CHUNK = 64
# How often (wall s) the launch guard looks at the queue: 250 log s at rate
# 1000; through a docker exec a look took 1.3 s.
LOOK_EVERY = 0.25
# A begin time this many seconds of Slurm's time in the past still counts
# as due: the slowed clock (rate 1) gives Slurm that long to start the jobs
# before the launch guard sees only the backlog.
DUE_GRACE = 3.0


def end_prefill(container, run_dir, manifest, queued, prefill_of):
    """Once no job of the window is in the queue, cancels the first set's
    jobs still there (PREFILL): they are in no metric, and the longest of
    them (12 log hours on curie) would set the replay's length. Returns
    whether that time has come; the manifest records how many."""
    if any(k not in prefill_of for k in queued):
        return False
    ids = [q[4] for k, q in queued.items() if q[4]]
    if ids:
        try:
            ctl(container, "scancel " + " ".join(ids))
        except ReplayError as e:
            log_line(run_dir, f"could not cancel the first set's jobs: {e}")
            return False
        log_line(run_dir, f"the window's jobs have ended: {len(ids)} jobs of the first "
                 "set cancelled (in no metric)")
    manifest["prefill_cancelled"] = len(ids)
    write_manifest(run_dir, manifest)
    return True


def rate_setter(container, clock):
    """set_rate(rate) for the launch guard: tb-vclock on the page itself
    where this container has it (the tools image: milliseconds), else
    through the controller's container (a docker exec)."""
    local = shutil.which("tb-vclock")

    def set_rate(rate):
        if local and os.path.exists(clock.page):
            r = subprocess.run([local, "set-rate", clock.page, f"{rate:g}"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                return
        ctl(container, vclock.set_rate_command(rate))
    return set_rate


def due_soon(plan, t0, speedup, now, ahead, queued, submitted):
    """How many of the plan's jobs may start at once soon (the launch
    guard keeps the clock slow for them): not started yet with begin times
    from DUE_GRACE s ago to `ahead` s from now, in Slurm's time; and,
    whatever their begin time, those not submitted yet (a burst is
    submitted in chunks) and those the scheduler has not looked at yet
    (pending with reason None)."""
    n = 0
    for p in plan:
        begin = t0 + p["offset"] / speedup
        if begin > now + ahead:
            break
        if p.get("chain"):
            continue            # INDIVIDUAL's jobs start one at a time
        q = queued.get(p["log_id"])
        if q is None:
            n += p["log_id"] not in submitted or begin >= now - DUE_GRACE
        elif q[0] == "PENDING":
            n += begin >= now - DUE_GRACE or q[5] in ("None", "")
    return n


def launch_file(page, run_id):
    """The launch guard's file beside the clock page."""
    return os.path.join(os.path.dirname(page), launch.file_name(run_id))


def job_fields(run_id, index, p, t0, speedup, seed, page=None, placement=""):
    """tb-submit -s -x's fields for plan entry `index` (page: the virtual
    clock's page in the containers, the batch script's third argument;
    placement: -x's node list and dependency, INDIVIDUAL's)."""
    begin = math.floor(t0 + p["offset"] / speedup + 0.5)
    pid = PATTERNS.index(p["pattern"]) + 1
    ranks = p.get("ranks", 0)
    matrix = ("TESTBED_COMM_MATRIX=" +
              comm_matrix(seed, p["log_id"], ranks or p["nodes"], p["matrix_density"])
              if p["matrix_density"] > 0 else "")
    if ranks:
        # GRANULARITY=core: that many one-CPU tasks in the partition that
        # shares nodes core by core (tb-submit's cores=).
        placement = ";".join(x for x in (placement, f"cores={ranks}") if x)
    # The job's runtime: the log's, less SC18's speed-up under isolation.
    runtime = p["runtime"] * (1 - p.get("ta_reduction", 0.0))
    return [f"{run_id}:{p['log_id']}", p["nodes"], p["limit_min"], begin,
            PRIORITY_TOP - index,
            f"{p['comm']}:{pid}:{p['comm_percent']:g}:{runtime:g}",
            matrix, placement, f"{speedup:g}", f"{runtime:g}"] + (
                [page, launch_file(page, run_id)] if page else [])


class SubmitterPool:
    """Several Submitters working through a batch of due jobs at once."""

    def __init__(self, container, n, run_dir):
        self.run_dir = run_dir
        self.idle = queue.Queue()
        self.all = [Submitter(container) for _ in range(n)]
        for sub in self.all:
            self.idle.put(sub)
        self.executor = concurrent.futures.ThreadPoolExecutor(n)

    def _one(self, fields, item):
        sub = self.idle.get()
        try:
            return item, submit_with_retry(sub, fields, self.run_dir)
        finally:
            self.idle.put(sub)

    def submit_all(self, fields_list, items):
        """Yields (item, job id) as each submission is answered."""
        futures = [self.executor.submit(self._one, f, it)
                   for f, it in zip(fields_list, items)]
        for f in concurrent.futures.as_completed(futures):
            yield f.result()

    def close(self):
        self.executor.shutdown(wait=False, cancel_futures=True)
        for sub in self.all:
            sub.close()


def stopped_at(manifest, run_dir):
    """When a stopped run's driver stopped, and whether that is an estimate:
    the time it recorded on the way out, else (killed, or the disk was
    full) the last write to the run directory; the driver touches
    replay.log at every progress line, so that is within one of them."""
    if manifest.get("stopped_at"):
        return float(manifest["stopped_at"]), bool(manifest.get("stopped_estimated"))
    last = 0.0
    for name in ("replay.log", "submitted.tsv", "manifest.json"):
        try:
            last = max(last, os.path.getmtime(os.path.join(run_dir, name)))
        except OSError:
            pass
    return last, True


def mark_stopped(run_dir, state_dir):
    """Records in the manifest when the driver stopped (for RESUME to
    measure the pause), in Slurm's time. The first stop counts: a RESUME
    that fails before it submits anything does not shorten the pause. Best
    effort: on a full disk (or an unreadable clock) the last write's time
    stands in."""
    path = os.path.join(run_dir or "", "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        if not manifest.get("finished") and not manifest.get("stopped_at"):
            manifest["stopped_at"] = run_clock(manifest, state_dir).now()
            write_manifest(run_dir, manifest)
    except (OSError, ValueError, KeyError, vclock.ClockError):
        pass


def iso(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).isoformat()


def record_pause(run_dir, manifest, plan, submitted, stopped, now, rerun=()):
    """A RESUME changes the experiment: jobs whose time came while the
    driver was stopped are submitted now, all eligible at once, and the
    pause can idle the cluster, which makespan and utilization then count.
    The manifest says so: each pause (start, end, the jobs made late, the
    log jobs a fault hit that RERUN_FAULTED=1 runs again, also eligible at
    once) and, over the run, resumed, paused_s (wall seconds), jobs_late
    and jobs_rerun."""
    start, estimated = stopped
    start = min(start or now, now)
    t0, speedup = manifest["t0"], manifest["speedup"]
    late = [p["log_id"] for p in plan if p["log_id"] not in submitted
            and t0 + p["offset"] / speedup < now]
    pause = {
        "start": iso(start), "end": iso(now), "start_epoch": round(start, 3),
        "end_epoch": round(now, 3), "seconds": round(now - start, 3),
        "start_estimated": estimated, "jobs_late": len(late), "late_log_ids": late}
    if rerun:
        pause.update({"jobs_rerun": len(rerun), "rerun_log_ids": list(rerun)})
    manifest.setdefault("pauses", []).append(pause)
    manifest["resumed"] = True
    manifest["paused_s"] = round(sum(p["seconds"] for p in manifest["pauses"]), 3)
    manifest["jobs_late"] = sum(p["jobs_late"] for p in manifest["pauses"])
    if any("jobs_rerun" in p for p in manifest["pauses"]):
        manifest["jobs_rerun"] = sum(p.get("jobs_rerun", 0) for p in manifest["pauses"])
    manifest.pop("stopped_at", None)
    manifest.pop("stopped_estimated", None)
    write_manifest(run_dir, manifest)
    log_line(run_dir, f"resume: paused {now - start:.0f} s"
             f"{' (estimated from the last write)' if estimated else ''}, "
             f"{len(late)} jobs made late"
             + (f", {len(rerun)} jobs hit by a fault run again" if rerun else ""))
    return late


def latest_attempts(run_id, submitted, reruns):
    """{Slurm id: job name} of each log job's latest attempt."""
    latest = {log_id: (0, jid) for log_id, jid in submitted.items()}
    for (log_id, n), jid in reruns.items():
        if n > latest.get(log_id, (-1, None))[0]:
            latest[log_id] = (n, jid)
    return {jid: faults.rerun_name(run_id, log_id, n)
            for log_id, (n, jid) in latest.items()}


def previous_records(run_dir, expected):
    """The run's sacct.json records (from an earlier collect) of the
    expected {Slurm id: job name} jobs that had ended, by Slurm id, and
    that file's document ({} without one)."""
    try:
        with open(os.path.join(run_dir, "sacct.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}, {}
    kept = {j["job_id"]: j for j in doc.get("jobs", [])
            if expected.get(j.get("job_id")) == j.get("name") and faults.is_final(j)}
    return kept, doc


def sacct_records(container, ids, expected, what, run_dir):
    """Slurm's sacct records of these jobs, those named as expected."""
    jobs = []
    for k in range(0, len(ids), 400):
        chunk = ",".join(str(x) for x in ids[k:k + 400])
        doc = json.loads(slurm_answer(container, f"sacct -X --json -j {chunk}", what, run_dir))
        jobs.extend(j for j in doc.get("jobs", [])
                    if expected.get(j.get("job_id")) == j.get("name"))
    return jobs


def faulted(container, run_dir, manifest, submitted, reruns):
    """RERUN_FAULTED's jobs: faults.to_rerun over the latest attempt of
    each log job, as Slurm has it, else as the run's sacct.json has it (a
    testbed made again no longer has the run's jobs)."""
    expected = latest_attempts(manifest["run_id"], submitted, reruns)
    kept, _ = previous_records(run_dir, expected)
    ask = sorted(set(expected) - set(kept))
    live = {j["job_id"]: j for j in sacct_records(
        container, ask, expected, "how the run's jobs ended", run_dir)}
    records = [live.get(jid) or kept.get(jid) for jid in sorted(expected)]
    return faults.to_rerun([j for j in records if j], manifest["run_id"],
                           faults.deaths(run_dir))


def run_clock(manifest, state_dir):
    """The run's Clock (its manifest says which)."""
    if manifest.get("clock") == "virtual":
        return vclock.Clock("virtual", manifest["clock_rate"], vclock.page_path(state_dir))
    return vclock.Clock("scaled", manifest["speedup"], vclock.page_path(state_dir))


def run(args, run_dir, manifest, stopped=None):
    container = controller()
    clock = run_clock(manifest, args.state_dir)
    if clock.kind == "virtual":
        # From here on Slurm lives at the run's rate; back to 1 on the
        # way out, whatever ends the run (a kill -9 leaves it: make up
        # and RESUME set it again).
        ctl(container, vclock.set_rate_command(clock.rate))
    elif clock.page and os.path.exists(clock.page):
        # CLOCK=scaled runs Slurm's clock at rate 1 (an interrupted
        # virtual replay killed with -9 may have left another rate).
        ctl(container, vclock.set_rate_command(1))
    try:
        return run_at_rate(args, run_dir, manifest, stopped, container, clock)
    finally:
        if clock.kind == "virtual":
            try:
                ctl(container, vclock.set_rate_command(1))
            except ReplayError as e:
                log_line(run_dir, f"could not set the clock back to rate 1: {e}")


def run_at_rate(args, run_dir, manifest, stopped, container, clock):
    plan = read_plan(os.path.join(run_dir, "plan.tsv"))
    sub_path = os.path.join(run_dir, "submitted.tsv")
    rerun_path = os.path.join(run_dir, "rerun.tsv")
    submitted = read_submitted(sub_path, plan)
    reruns = read_reruns(rerun_path, plan)
    known = len(reruns)
    added = reconcile(container, manifest["run_id"], submitted, sub_path, reruns, rerun_path)
    if added:
        log_line(run_dir, f"resume: {added} jobs found in Slurm, not submitted again")
    if len(reruns) > known:
        note_reruns(manifest, plan, reruns, submitted=submitted)
        write_manifest(run_dir, manifest)
    again = []
    if getattr(args, "rerun_faulted", False):
        again = faulted(container, run_dir, manifest, submitted, reruns)
        if not again:
            progress(f"replay {manifest['run_id']}: no job of the run that has ended was "
                     "hit by a fault; none to run again", final=True)
            if manifest.get("finished"):
                return container, None, reruns
    if stopped is not None:
        late = record_pause(run_dir, manifest, plan, submitted, stopped, clock.now(),
                            [log_id for log_id, _, _, _ in again])
        if late:
            progress(f"replay {manifest['run_id']}: resumed; {len(late)} jobs whose time "
                     "passed during the pause become eligible now (recorded in the "
                     "manifest)", final=True)
    if again and manifest.get("finished"):
        # Not complete until its reruns are: a plain RESUME continues it.
        manifest["finished"] = False
        write_manifest(run_dir, manifest)
    install_batch_script(container)
    t0 = manifest["t0"]
    speedup = manifest["speedup"]
    run_id = manifest["run_id"]
    span = max(p["offset"] for p in plan) / speedup
    nodes = manifest["cluster_nodes"]
    # Lead and the loop's sleeps are wall time; begin times are Slurm's.
    lead = args.lead * clock.pace
    page = vclock.CONTAINER_PAGE if clock.kind == "virtual" else None
    last_jump_check = 0.0
    # The reserved job is sampled once a wall second (reservations.tsv).
    last_sample, reserved = 0.0, None
    order = {p["log_id"]: k for k, p in enumerate(plan)}
    res_path = os.path.join(run_dir, "reservations.tsv")
    submitters = SubmitterPool(container, SUBMITTERS, run_dir)
    watch = health.HealthWatch(
        os.environ.get("TESTBED_PROJECT", "testbed"),
        cluster_dir(args.root, manifest["cluster"]),
        run_dir, args.auto_recover,
        say=lambda text: progress(f"replay {run_id}: {text}", final=True),
        log=lambda text: log_line(run_dir, text), slurm_now=clock.now)
    # The launch guard (launch.py) looks at the queue LOOK_EVERY wall s,
    # through a shell kept open in the controller's container.
    guard, last_guard, shell = None, 0.0, None
    # The job's sleep in Slurm's time (job_fields' runtime over SPEEDUP).
    runtime_of = {p["log_id"]: p["runtime"] * (1 - p.get("ta_reduction", 0.0)) / speedup
                  for p in plan}
    if clock.kind == "virtual":
        guard = launch.LaunchGuard(
            os.path.join(os.path.dirname(clock.page), launch.file_name(run_id)),
            clock.rate, rate_setter(container, clock),
            lambda text: log_line(run_dir, text), enabled=args.launch_guard == 1)
        guard.watch(sorted(t0 + p["offset"] / speedup for p in plan
                           if p["log_id"] not in submitted and not p.get("chain")),
                    clock.now_and_rate)
        shell = Shell(container)
    # PREFILL's first set is in no metric: once the window's jobs have all
    # ended, the first set's jobs still running are cancelled (end_prefill).
    prefill_of = {p["log_id"] for p in plan if p.get("prefill")}
    cancelled_prefill = False
    last_report = 0.0
    i = 0
    try:
        if again:
            submit_reruns(submitters, again, plan, manifest, run_dir, reruns, page)
        with open(sub_path, "a", encoding="utf-8") as out:
            if any(p.get("chain") for p in plan):
                submit_individual(submitters, plan, submitted, out, manifest, page)
            while True:
                now = clock.now()
                due = []
                # A dead service pauses submissions until it is back
                # (AUTO_RECOVER=1 brings it back at once).
                if not watch.check(time.time()):
                    time.sleep(1.0)
                    continue
                # At most SUBMIT_CHUNK jobs at a time: submitting takes wall
                # seconds (25 s for 409 jobs under load), and the launch
                # guard looks at the queue between two chunks.
                while (i < len(plan) and len(due) < SUBMIT_CHUNK
                       and t0 + plan[i]["offset"] / speedup <= now + lead):
                    p = plan[i]
                    if p["log_id"] not in submitted:
                        due.append((i, p))
                    i += 1
                for p, jid in submitters.submit_all(
                        [job_fields(run_id, idx, p, t0, speedup, manifest["seed"], page)
                         for idx, p in due],
                        [p for _, p in due]):
                    submitted[p["log_id"]] = jid
                    out.write(f"{p['log_id']} {jid}\n")
                    out.flush()
                    os.fsync(out.fileno())
                # Once everything is submitted the queue is read every second
                # to notice the end, but the line is still printed at the
                # reporting interval: a log of hours stays readable.
                # Idle jumps: at most one queue check a wall second.
                if (clock.kind == "virtual" and args.idle_jumps
                        and time.monotonic() - last_jump_check >= 1.0):
                    last_jump_check = time.monotonic()
                    if idle_jump(container, clock, plan, i, t0, now, run_dir, manifest):
                        write_manifest(run_dir, manifest)
                        continue
                report = now - last_report >= args.report_every * clock.pace
                if report:
                    # A heartbeat: a killed driver's pause starts about here
                    # (in Slurm's time: the mtime is set to the cluster's
                    # clock, virtual or not).
                    heartbeat = os.path.join(run_dir, "replay.log")
                    os.utime(heartbeat, (now, now))
                sample = time.monotonic() - last_sample >= 1.0
                guard_due = (guard is not None
                             and time.monotonic() - last_guard >= LOOK_EVERY)
                if report or i >= len(plan) or sample or guard_due:
                    queued = queue_state(container, run_id, shell)
                    if queued is None:
                        if report:
                            progress(f"replay {run_id}: the controller does not answer; waiting")
                            last_report = now
                        time.sleep(1.0)
                        continue
                    if sample:
                        last_sample = time.monotonic()
                        reserved = note_reservation(res_path, order, queued, now, reserved)
                    if guard_due:
                        last_guard = time.monotonic()
                        # now is from before the submissions: seconds old
                        fresh = clock.now()
                        guard.update([(q[4], q[1], runtime_of.get(k))
                                      for k, q in queued.items() if q[0] == "RUNNING"],
                                     last_guard, due_soon(plan, t0, speedup, fresh,
                                                          guard.ahead(), queued, submitted),
                                     fresh)
                    if i >= len(plan) and prefill_of and not cancelled_prefill:
                        cancelled_prefill = end_prefill(container, run_dir, manifest,
                                                        queued, prefill_of)
                    pending = sum(1 for st, *_ in queued.values() if st == "PENDING")
                    running = len(queued) - pending
                    finished = i >= len(plan) and pending == 0 and running == 0
                    if report and not finished:
                        done = len(submitted) - pending - running
                        log_clock = max(0.0, (now - t0) * speedup)
                        left = clock.wall(max(t0 + span - now, time_left(
                            plan, submitted, queued, now, speedup, nodes)))
                        progress(f"replay {run_id}: submitted {len(submitted)}/{len(plan)}, "
                                 f"running {running}, done {done}, "
                                 f"log clock {fmt_time(log_clock)}, "
                                 f"{'' if i < len(plan) else 'draining, '}"
                                 f"at least {fmt_time(left)} left"
                                 f"{held_note(queued)}")
                        last_report = now
                    if finished:
                        break
                time.sleep(0.2 if i < len(plan) else LOOK_EVERY if guard else 1.0)
    finally:
        submitters.close()
        if shell is not None:
            shell.close()
        if guard is not None:
            guard.stop()
            try:
                guard.restore(time.monotonic())
            except ReplayError as e:
                log_line(run_dir, f"launch guard: could not restore the rate: {e}")
    if guard is not None:
        manifest["launch"] = guard.write(run_dir, {str(j): k for k, j in submitted.items()},
                                         runtime_of)
        write_manifest(run_dir, manifest)
    progress(f"replay {run_id}: all {len(plan)} jobs done", final=True)
    return container, submitted, reruns


def submit_individual(submitters, plan, submitted, out, manifest, page):
    """INDIVIDUAL: every job at once, in plan order, so that each knows the
    ids it depends on: the occupying jobs on their node lists, the first
    drawn job after they have all started (Slurm's after:), each next one
    after the one before has ended (afterany:). Slurm then runs the drawn
    jobs one at a time on the state the occupying jobs hold."""
    run_id, t0, speedup = manifest["run_id"], manifest["t0"], manifest["speedup"]
    occupying = [p["log_id"] for p in plan if p["prefill"]]
    previous = None
    for k, p in enumerate(plan):
        if p["chain"]:
            if p["chain"] == 1:
                after = "after:" + ":".join(str(submitted[x]) for x in occupying)
                placement = f"dependency={after}" if occupying else ""
            else:
                placement = f"dependency=afterany:{submitted[previous]}"
            previous = p["log_id"]
        else:
            placement = f"nodelist={p['nodelist']}" if p["nodelist"] else ""
        if p["log_id"] in submitted:
            continue
        fields = job_fields(run_id, k, p, t0, speedup, manifest["seed"], page, placement)
        for _, jid in submitters.submit_all([fields], [p]):
            submitted[p["log_id"]] = jid
            out.write(f"{p['log_id']} {jid}\n")
            out.flush()
            os.fsync(out.fileno())


def note_reruns(manifest, plan, reruns, again=(), submitted=None):
    """The manifest's "reruns": per rerun its log id, attempt, Slurm id
    (None until submitted), the Slurm id of the job it replaces and that
    job's fault (None for a rerun reconcile() found that no entry names:
    the driver died before it recorded it)."""
    entries = {(r["log_id"], r["attempt"]): r for r in manifest.get("reruns", [])}
    for log_id, n, old, fault in again:
        e = entries.setdefault((log_id, n), {"log_id": log_id, "attempt": n, "job_id": None})
        e.update({"replaces": old["job_id"], "fault": fault})
    for (log_id, n), jid in reruns.items():
        before = (reruns.get((log_id, n - 1)) if n > 1 else (submitted or {}).get(log_id))
        e = entries.setdefault((log_id, n), {"log_id": log_id, "attempt": n,
                                             "replaces": before, "fault": None})
        e["job_id"] = jid
    order = {p["log_id"]: k for k, p in enumerate(plan)}
    manifest["reruns"] = sorted(entries.values(),
                                key=lambda r: (order.get(r["log_id"], 0), r["attempt"]))


def submit_reruns(submitters, again, plan, manifest, run_dir, reruns, page):
    """RERUN_FAULTED: each job a fault hit is submitted again as a new job
    (faults.rerun_name) with its original log time as begin time, so one
    whose time has passed is eligible at once, and its place in the log's
    priority order. rerun.tsv and the manifest's "reruns" record them."""
    run_id, t0, speedup = manifest["run_id"], manifest["t0"], manifest["speedup"]
    index = {p["log_id"]: k for k, p in enumerate(plan)}
    items = [a for a in again if a[0] in index]
    fields = []
    for log_id, n, _, _ in items:
        k = index[log_id]
        f = job_fields(run_id, k, plan[k], t0, speedup, manifest["seed"], page)
        f[0] = faults.rerun_name(run_id, log_id, n)
        fields.append(f)
    rerun_path = os.path.join(run_dir, "rerun.tsv")
    # What is about to be submitted, first: a driver that dies meanwhile
    # leaves the reason on record, and RESUME finds the jobs (reconcile).
    note_reruns(manifest, plan, {}, items)
    write_manifest(run_dir, manifest)
    for (log_id, n, _, _), jid in submitters.submit_all(fields, items):
        reruns[(log_id, n)] = jid
        append_synced(rerun_path, [f"{log_id} {n} {jid}\n"])
    note_reruns(manifest, plan, reruns)
    write_manifest(run_dir, manifest)
    log_line(run_dir, f"rerun: {len(items)} jobs hit by a fault submitted again: "
             + " ".join(f"{log_id} ({fault})" for log_id, _, _, fault in items))
    progress(f"replay {run_id}: {len(items)} jobs hit by a fault run again "
             "(RERUN_FAULTED=1), eligible at once (recorded in the manifest)", final=True)


def submit_with_retry(submitter, fields, run_dir):
    """A controller restart mid-replay costs retries, not jobs; a job the
    controller took before its answer was lost is found by name, not
    submitted twice (and while the controller cannot say, it is waited for)."""
    name = fields[0]
    for attempt in range(30):
        try:
            return submitter.submit(fields)
        except ReplayError as e:
            log_line(run_dir, f"retry {attempt + 1}: {e}")
            time.sleep(min(10, 1 + attempt))
            found = sorted({int(x) for x in slurm_answer(
                submitter.container,
                f"squeue -h -a -n '{name}' -o %i && "
                f"sacct -X -n -P -a --starttime=now-7days --name='{name}' -o JobID",
                f"whether it has job {name}", run_dir).split() if x.isdigit()})
            if len(found) > 1:
                log_line(run_dir, f"{name} is in Slurm {len(found)} times: "
                         f"{' '.join(map(str, found))}; keeping {found[0]}")
            if found:
                return found[0]
    raise ReplayError(f"submissions kept failing; see {run_dir}/replay.log")


def fmt_time(seconds):
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return (f"{d}d " if d else "") + f"{h:02d}:{m:02d}:{s:02d}"


def run_facts(manifest, plan):
    """What a replay of this run's sacct.json needs and Slurm does not
    keep exactly: the SPEEDUP that compressed it, its origin, and each
    job's plan entry (log offset, base runtime, profile), in plan order.
    Eligible times alone would move a job by up to SPEEDUP / 2 log seconds
    (BeginTime has whole seconds), or more after a pause."""
    def number(v):
        return int(v) if isinstance(v, float) and v.is_integer() else v
    # prefill: read_sacct_json leaves the filling jobs (PREFILL,
    # INDIVIDUAL's occupying jobs) out of a replay of this run.
    keep = ("log_id", "offset", "runtime", "nodes", "comm", "pattern",
            "comm_percent", "matrix_density", "prefill", "ranks")
    return {"run_id": manifest["run_id"], "speedup": manifest["speedup"],
            "t0": manifest["t0"], "seed": manifest.get("seed"),
            "plan": [{k: number(p[k]) for k in keep if k in p} for p in plan]}


def collect(container, run_dir, manifest, submitted, timeout=120, reruns=None):
    """sacct --json for exactly this run's jobs (every attempt of a job run
    again after a fault too), once accounting has them all in a final
    state, with the run's facts (run_facts) as "testbed". Jobs an earlier
    collect found ended are kept from sacct.json (a RERUN_FAULTED on a
    testbed made again)."""
    run_id = manifest["run_id"]
    expected = {jid: faults.rerun_name(run_id, log_id, 0) for log_id, jid in submitted.items()}
    for (log_id, n), jid in (reruns or {}).items():
        expected[jid] = faults.rerun_name(run_id, log_id, n)
    kept, doc = previous_records(run_dir, expected)
    ids = sorted(set(expected) - set(kept))
    deadline = time.time() + timeout
    final = []
    while ids:
        jobs = []
        for k in range(0, len(ids), 400):
            chunk = ",".join(str(x) for x in ids[k:k + 400])
            doc = json.loads(ctl(container, f"sacct -X --json -j {chunk}"))
            jobs.extend(j for j in doc.get("jobs", [])
                        if expected.get(j.get("job_id")) == j.get("name"))
        final = [j for j in jobs if faults.is_final(j)]
        if len(final) == len(ids) or time.time() > deadline:
            break
        time.sleep(2)
    final += kept.values()
    missing = sorted(set(expected) - {j["job_id"] for j in final})
    doc["jobs"] = sorted(final, key=lambda j: j["job_id"])
    doc["testbed"] = run_facts(manifest, read_plan(os.path.join(run_dir, "plan.tsv")))
    write_atomic(os.path.join(run_dir, "sacct.json"), json.dumps(doc, indent=1))
    return missing


# --- entry ------------------------------------------------------------------------

def new_run_id(results, log_label, policy):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-{log_label}-{policy}"
    run_id, n = base, 1
    while os.path.exists(os.path.join(results, run_id)):
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def git_revision(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True, check=False)
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return (r.stdout.strip() or "unknown") + ("-dirty" if dirty else "")


def write_manifest(run_dir, manifest):
    write_atomic(os.path.join(run_dir, "manifest.json"),
                 json.dumps(manifest, indent=2) + "\n")


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line naming the make variable, not a usage."""

    def error(self, message):
        m = re.fullmatch(r"argument --([\w-]+): invalid (float|int) value: '(.*)'",
                         message)
        if m:
            name = m.group(1).replace("-", "_").upper()
            what = "a number" if m.group(2) == "float" else "a whole number"
            raise ReplayError(f"{name}={m.group(3)}: expected {what}")
        m = re.fullmatch(r"argument --([\w-]+): invalid choice: '(.*)' \(choose from (.*)\)",
                         message)
        if m:
            name = m.group(1).replace("-", "_").upper()
            choices = m.group(3).replace("'", "").replace(", ", " or ")
            raise ReplayError(f"{name}={m.group(2)}: expected {choices}")
        raise ReplayError(message)


def parse_args(argv):
    ap = _Parser(description="Replay a job log on the running cluster.")
    ap.add_argument("--log")
    ap.add_argument("--policy", default="default")
    ap.add_argument("--speedup", type=float,
                    help="SPEEDUP: 100 by default under CLOCK=scaled, 1000 under virtual")
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--comm", type=float, default=0.9)
    ap.add_argument("--pattern", default="mix")
    ap.add_argument("--ratio", type=float)
    ap.add_argument("--sparsity", type=float)
    ap.add_argument("--scale", type=float)
    ap.add_argument("--runtime-factor", type=float,
                    help="multiply every job's runtime and requested time (0.5 halves them)")
    ap.add_argument("--prefill", type=float,
                    help="fill this share of the nodes with the jobs before the window first")
    ap.add_argument("--individual", type=int,
                    help="individual runs: this many drawn jobs, one at a time, "
                         "from a partly occupied cluster")
    ap.add_argument("--occupy", type=float,
                    help="with --individual: the share of the nodes occupied first")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--resume")
    ap.add_argument("--lead", type=float, default=30.0)
    ap.add_argument("--limit-grid", type=float, default=6000.0)
    ap.add_argument("--report-every", type=float,
                    default=5.0 if sys.stdout.isatty() else 30.0)
    ap.add_argument("--workloads-dir", default=os.environ.get("WORKLOADS_DIR", ""))
    ap.add_argument("--results", default="results")
    ap.add_argument("--root", default=".")
    ap.add_argument("--granularity", default="node", choices=("node", "core"),
                    help="core: jobs ask for one core per rank in the partition "
                         "cores (TreeMatch's CR_Core), with rank x rank matrices")
    ap.add_argument("--ta-speedup",
                    help="SC18's runtime model under the isolated policy")
    ap.add_argument("--clock", default="virtual",
                    help="scaled (divide the log's times by SPEEDUP) or virtual "
                         "(Slurm's clock runs SPEEDUP times faster)")
    ap.add_argument("--idle-jumps", type=int, default=1, choices=(0, 1),
                    help="under the virtual clock, jump over idle time")
    ap.add_argument("--launch-guard", type=int, default=1, choices=(0, 1),
                    help="under the virtual clock, slow it while job launches "
                         "lag behind Slurm's starts (launch.py)")
    ap.add_argument("--state-dir", default=os.environ.get("TESTBED_STATE_DIR", ".state"),
                    help="the testbed's state directory (the clock page's)")
    ap.add_argument("--auto-recover", default="0", choices=("0", "1"),
                    help="restart a service that dies during the replay")
    ap.add_argument("--rerun-faulted", default="0", choices=("0", "1"),
                    help="with --resume: run again the jobs a fault hit")
    args = ap.parse_args(argv)
    args.auto_recover = args.auto_recover == "1"
    args.rerun_faulted = args.rerun_faulted == "1"
    if args.rerun_faulted and not args.resume:
        raise ReplayError("RERUN_FAULTED=1 needs RESUME=<run-id>: the run whose jobs "
                          "a fault hit")
    policies = policy_names(args.root)
    if args.policy not in policies:
        raise ReplayError(f"unknown POLICY '{args.policy}'; valid: {' '.join(policies)}")
    if args.pattern not in PATTERNS + ["mix"]:
        raise ReplayError(f"unknown PATTERN '{args.pattern}'; valid: "
                          f"{' '.join(PATTERNS)} mix")
    if args.clock not in ("scaled", "virtual"):
        raise ReplayError(f"CLOCK={args.clock}: expected scaled or virtual")
    if args.speedup is None:
        args.speedup = 1000.0 if args.clock == "virtual" else 100.0
    if args.speedup <= 0 or args.jobs < 1 or args.first < 0:
        raise ReplayError("SPEEDUP must be > 0, JOBS >= 1, FIRST >= 0")
    if args.limit_grid <= 0:
        raise ReplayError(f"LIMIT_GRID={args.limit_grid:g}: expected log seconds > 0")
    if not 0 <= args.comm <= 1 or (args.ratio is not None and not 0 <= args.ratio <= 1):
        raise ReplayError("COMM and RATIO must be between 0 and 1")
    if args.sparsity is not None and not 0 <= args.sparsity < 1:
        raise ReplayError(f"SPARSITY={args.sparsity:g}: expected the share of node "
                          "pairs that do not communicate, at least 0 and below 1")
    if args.runtime_factor is not None and not (math.isfinite(args.runtime_factor)
                                                and args.runtime_factor > 0):
        raise ReplayError(f"RUNTIME_FACTOR={args.runtime_factor:g}: expected a number above 0 "
                          "(0.5 halves every job's runtime)")
    if args.prefill is not None and not 0 < args.prefill <= 1:
        raise ReplayError(f"PREFILL={args.prefill:g}: expected the share of the cluster's nodes "
                          "the jobs before the window fill first, above 0 and at most 1")
    if args.individual is not None:
        if args.individual < 1:
            raise ReplayError(f"INDIVIDUAL={args.individual}: expected the number of "
                              "jobs to run one at a time, at least 1")
        if args.prefill is not None:
            raise ReplayError("INDIVIDUAL and PREFILL both fill the cluster first; "
                              "set one (OCCUPY= is INDIVIDUAL's share)")
        if args.occupy is None:
            args.occupy = 0.5
        if not 0 <= args.occupy < 1:
            raise ReplayError(f"OCCUPY={args.occupy:g}: expected the share of the nodes "
                              "occupied before the individual runs, at least 0 and below 1")
    elif args.occupy is not None:
        raise ReplayError("OCCUPY is the share INDIVIDUAL= runs occupy first; "
                          "set INDIVIDUAL=<jobs> too")
    if args.ta_speedup is not None and args.ta_speedup not in ta_speedup.SCENARIOS:
        raise ReplayError(f"TA_SPEEDUP={args.ta_speedup}: expected one of "
                          f"{', '.join(ta_speedup.SCENARIOS)}")
    return args


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    # A shell may start us with SIGINT ignored (background jobs); both
    # signals must end the run cleanly so that RESUME can continue it.
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)
    run_dir = None
    state_dir = ""
    try:
        args = parse_args(argv)
        state_dir = args.state_dir
        results = os.path.join(args.root, args.results)
        if args.resume:
            run_dir = os.path.join(results, args.resume)
            if not os.path.exists(os.path.join(run_dir, "manifest.json")):
                runs = sorted(os.listdir(results)) if os.path.isdir(results) else []
                raise ReplayError(f"RESUME={args.resume}: no such run; runs: "
                                  f"{' '.join(runs[-10:]) or 'none'}")
            with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
                manifest = json.load(f)
            if manifest.get("finished") and not args.rerun_faulted:
                raise ReplayError(f"run {args.resume} is already complete (RERUN_FAULTED=1 "
                                  "runs its jobs a fault hit again)")
            cluster = current_cluster(args.root)
            if cluster != manifest["cluster"]:
                raise ReplayError(f"RESUME={args.resume} ran on cluster "
                                  f"'{manifest['cluster']}', but '{cluster}' is up; "
                                  f"make down, then make up CLUSTER={manifest['cluster']}")
            # The same name with another tree (a changed machine definition
            # or generator): the resumed jobs would run on another machine.
            sha = topology_sha256(args.root, cluster)
            if manifest.get("topology_sha256") and sha != manifest["topology_sha256"]:
                raise ReplayError(f"RESUME={args.resume} ran on another topology of "
                                  f"'{cluster}' (sha256 {manifest['topology_sha256'][:12]}, "
                                  f"now {(sha or 'none')[:12]}); the run's own is its "
                                  "topology.json")
            stopped = stopped_at(manifest, run_dir)
            if not manifest.get("stopped_at") and not manifest.get("finished"):
                # Kept, so that a RESUME failing before it submits (no
                # controller) neither loses nor shortens the pause.
                manifest["stopped_at"], manifest["stopped_estimated"] = stopped
                write_manifest(run_dir, manifest)
            log_line(run_dir, "resumed")
        else:
            if not args.log:
                raise ReplayError(f"LOG is not set; valid: "
                                  f"{' '.join(sorted(logs.NAMED_LOGS))}, or a path")
            path, log_name = logs.resolve(args.log, args.workloads_dir)
            log = logs.read(path)
            cluster, cluster_nodes, node_cores = cluster_facts(args.root)
            clock = vclock.Clock(args.clock, args.speedup, vclock.page_path(state_dir))
            plan, too_big = make_plan(args, log, log_name, cluster_nodes, clock.speedup,
                                      node_cores)
            prefill = [p for p in plan if p["prefill"]]
            run_id = new_run_id(results, log_name or "log", args.policy)
            os.makedirs(results, exist_ok=True)
            run_dir = os.path.join(results, run_id)
            os.mkdir(run_dir)
            write_plan(os.path.join(run_dir, "plan.tsv"), plan)
            try:
                topology_sha = keep_topology(args.root, cluster, run_dir)
                if args.individual:
                    place_occupying(plan, os.path.join(run_dir, "topology.json"),
                                    os.path.join(build_dir(args.root), "tb-alloc"))
                    write_plan(os.path.join(run_dir, "plan.tsv"), plan)
                container = controller()
            except ReplayError:
                shutil.rmtree(run_dir, ignore_errors=True)
                raise
            manifest = {
                "run_id": run_id, "cluster": cluster, "cluster_nodes": cluster_nodes,
                "policy": args.policy, "log": log_name or os.path.abspath(path),
                "log_file": os.path.basename(path), "log_format": log.format,
                # jobs: the window's; the prefill's are counted apart.
                "first": args.first, "jobs": len(plan) - len(prefill),
                "prefill": args.prefill, "prefill_jobs": len(prefill),
                "prefill_nodes": sum(p["nodes"] for p in prefill),
                "runtime_factor": args.runtime_factor,
                # INDIVIDUAL: the drawn jobs, run one at a time on OCCUPY
                # of the nodes held by the occupying (prefill) jobs.
                "individual": args.individual, "occupy": args.occupy,
                "skipped_no_runtime": log.skipped_no_runtime,
                "skipped_too_big": len(too_big), "seed": args.seed,
                # log seconds per Slurm second: SPEEDUP, or 1 under the
                # virtual clock, whose rate is clock_rate
                "speedup": clock.speedup, "clock": clock.kind,
                "clock_rate": clock.rate,
                "limit_grid_s": limit_grid(args.limit_grid, clock.speedup),
                "comm": args.comm, "pattern": args.pattern,
                "ratio": args.ratio, "sparsity": args.sparsity,
                "granularity": args.granularity,
                "ta_speedup": args.ta_speedup,
                "size_divisor": args.scale or logs.STUDY_SIZE_DIVISOR.get(log_name or "", 1),
                "topology_sha256": topology_sha,
                "git_revision": git_revision(args.root),
                "slurm_version": ctl(container, "sinfo --version").strip(),
                "t0": clock.now() + 5 * clock.pace,
                "wall_start": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            }
            write_manifest(run_dir, manifest)
            log_line(run_dir, f"plan: {len(plan) - len(prefill)} jobs, "
                     f"{len(prefill)} prefill jobs, {len(too_big)} too big, "
                     f"{log.skipped_no_runtime} without runtime")
            print(f"replay {run_id}: {len(plan)} jobs of {path} on {cluster} "
                  f"under {args.policy} " + (
                      f"on the virtual clock at rate {clock.rate:g}"
                      if clock.kind == "virtual" else f"at SPEEDUP={args.speedup:g}"))
        container, submitted, reruns = run(args, run_dir, manifest,
                                           stopped if args.resume else None)
        if submitted is None:
            return 0            # RERUN_FAULTED on a finished run: none to run again
        missing = collect(container, run_dir, manifest, submitted, reruns=reruns)
        manifest["wall_end"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
        manifest["finished"] = not missing
        if missing:
            manifest["missing_from_sacct"] = missing
        write_manifest(run_dir, manifest)
        log_line(run_dir, "finished" + (f", {len(missing)} jobs missing from sacct"
                                         if missing else ""))
        print(f"results in {shown(run_dir, args.root)}/")
        if missing:
            ids = ",".join(str(j) for j in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            print(f"error: {len(missing)} submitted jobs are not in Slurm's accounting "
                  f"(Slurm ids {ids}{more}; manifest: missing_from_sacct)"
                  + ("; slurmctld died during the run, and a crash loses the jobs it "
                     "accepted in its last 5 s (README, Faults)"
                     if any(d.get("service") == "slurmctld"
                            for d in faults.deaths(run_dir)) else ""),
                  file=sys.stderr)
        return 0 if not missing else 1
    except (ReplayError, logs.LogError, vclock.ClockError) as e:
        mark_stopped(run_dir, state_dir)
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        mark_stopped(run_dir, state_dir)
        print(f"error: {os_error(e, run_dir)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        mark_stopped(run_dir, state_dir)
        print(f"\ninterrupted; continue with {resume_hint(run_dir)}", file=sys.stderr)
        return 130


def shown(path, root):
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def resume_hint(run_dir):
    if run_dir and os.path.exists(os.path.join(run_dir, "manifest.json")):
        return f"make replay RESUME={os.path.basename(run_dir)}"
    return "make replay RESUME=<run-id>"


def os_error(e, run_dir):
    """One line for a failed write (a full disk, say). Before the manifest
    exists nothing was submitted, and the run directory goes; after, it
    stays, and RESUME continues the run: submitted jobs keep running, and
    those missing from submitted.tsv are found in Slurm by name."""
    where = e.filename or run_dir or "results"
    text = f"{where}: {e.strerror or e}"
    if not run_dir:
        return text
    if not os.path.exists(os.path.join(run_dir, "manifest.json")):
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"{text}; nothing was submitted"
    return (f"{text}; jobs already submitted keep running: "
            f"make room, then {resume_hint(run_dir)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
