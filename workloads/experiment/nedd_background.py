"""Kind nedd's layout `background` (issue 24; NeDD, Zhang et al., CLUSTER
2021, ../shared/papers/nedd.txt, "L.."): the lanes are idle nodes of a
machine loaded by a replayed background log, as the paper's were idle
nodes of the production Cori that Slurm gave it (L90, L102, L104: "we
first get N idle nodes ... from the system by the Slurm scheduler").

The paper says neither which nodes those were nor what ran beside them;
every step below is ours (docs/readings.md, "NeDD"):

1. The history. The log's jobs (definition list `background = <log>
   <size factor> <start s>`; a named log of WORKLOADS_DIR or a path) run
   in log order, first come first served (a job waits while the one
   before it waits), each on a seeded uniform draw of the free nodes of
   the machine's main node kind (Cori's KNL, L98) -- a production
   machine's scattered free set -- its size the log's times the factor
   (Theta's 4,392 KNL nodes x 2.2 ~ Cori's 9,688: the log's load carries
   over). The history is computed here, with no cluster.
2. The lanes. At <start> s of the log the machine is loaded; each lane
   (one per application, as in `consecutive`) takes the N idle nodes of
   lowest ids of the fewest consecutive dragonfly groups that have N idle
   nodes, each lane in groups of its own (the lanes cannot see each other:
   T is per router, G per group, the stall model per chassis).
3. Reserved. From <start> on the history leaves the lanes' nodes alone:
   they are the experiment's, as the paper's allocation was its own. The
   emulation keeps them so by placement rather than by a reservation:
   every background job is pinned to the nodes the history gave it
   (tb-submit's nodelist=) and every experiment job is confined to its
   lane (exclude=, nodelist=). The background is then the same under
   every strategy, whatever Slurm's policy of the run.
4. The replay. Jobs running at <start> are submitted at the experiment's
   start (Submit 0) for what is left of their runtime, jobs the history
   starts later at their start (its offset from <start>), on the virtual
   clock as any log; each is cut at the horizon (the experiment's span,
   see horizon()), so that the background lasts as long as the
   experiment and no longer.
5. The traffic. A background job names no application; it injects its
   communication share per node (the log's percent for a job the log
   marks communication-intensive, 0 for a compute one), through the
   plugin's inj_unnamed=1 (plugins/lib/nedd_options.h): the same rule as
   an application's injection f. Its runtime is the log's: a pinned job
   skips the plugin's choice and its runtime models (commtree_eval.c:
   Slurm's tree places a job with required nodes), and its profile says
   compute besides.
"""

import heapq
import math
import os
import random
from collections import deque

from .. import logs
from .errors import ExperimentError

# The definition's default: Theta (a Cray XC40 of KNL nodes on an Aries
# dragonfly, as Cori's KNL partition), sizes x 2.2 (Cori's 9,688 KNL nodes
# over Theta's 4,392: the log's load, 46 % of the machine over its 10.6
# days, carries over), from a week in (604,800 s): on Cori's KNL the
# history's busy share is then 0.51, and 0.5-0.72 over the one-job
# experiment's span (docs/readings.md).
DEFAULT = ["theta", "2.2", "604800"]
# Each job of the list is named so (nedd.py leaves them out of every figure).
PREFIX = "bg-"


class Loaded:
    """What the layout gives the job list: the lanes (node names), the
    background's lines of the nedd format (submission order) and the
    facts for the list's header."""

    def __init__(self, lanes, lines, facts):
        self.lanes = lanes
        self.lines = lines
        self.facts = facts


def parse(words, where=""):
    """(log, size factor, start s) from the definition's list."""
    if len(words) != 3:
        raise ExperimentError(f"{where}background '{' '.join(words)}': expected <log> "
                              "<size factor> <start s>, e.g. 'theta 2.2 604800'")
    try:
        factor, start = float(words[1]), float(words[2])
    except ValueError:
        factor = start = -1
    if not 0 < factor <= 1000 or not 0 <= start < 1e9:
        raise ExperimentError(f"{where}background '{' '.join(words)}': expected a size "
                              "factor above 0 and a start of 0 or more seconds")
    return words[0], factor, start


def read_log(name, workloads_dir):
    """The background log's jobs: a named log of workloads_dir, or a path."""
    try:
        path, named = logs.resolve(name, workloads_dir or "")
        return logs.read(path), named or os.path.basename(path)
    except logs.LogError as e:
        raise ExperimentError(f"background log: {e}") from None


def main_nodes(topo):
    """The machine's most common core count (Cori's KNL, L98) and its
    nodes in id order with their groups: where every layout's lanes are
    (nedd_jobs.lanes too)."""
    nodes = topo["nodes"]
    if not nodes or "group" not in nodes[0]:
        raise ExperimentError(f"cluster {topo.get('name')}: no dragonfly groups in its "
                              "topology; the NeDD experiments need routers and groups")
    cores = {}
    for x in nodes:
        cores[x.get("cores", 0)] = cores.get(x.get("cores", 0), 0) + 1
    main = max(cores, key=lambda c: (cores[c], c))
    return main, sorted(((x["name"], x["group"]) for x in nodes
                         if x.get("cores", 0) == main))


def choose_lanes(idle, groups, n_lanes, n):
    """Each lane the n idle nodes of lowest ids of the fewest consecutive
    groups (in group order, after the last lane's) that hold n idle."""
    by_group = {}
    for name in sorted(idle):
        by_group.setdefault(groups[name], []).append(name)
    order = sorted(set(groups.values()))
    lanes, k = [], 0
    for _ in range(n_lanes):
        lane = []
        while len(lane) < n and k < len(order):
            lane += by_group.get(order[k], [])
            k += 1
        if len(lane) < n:
            raise ExperimentError(f"layout background: {len(idle)} idle nodes at the "
                                  f"start, too few for {n_lanes} lanes of {n} nodes in "
                                  "groups of their own (another start, or a smaller "
                                  "size factor)")
        lanes.append(sorted(lane)[:n])
    return lanes


def history(jobs, nodes, factor, start, horizon, n_lanes, n, seed):
    """Steps 1-3 of the module's text. jobs: the log's (submit, runtime,
    nodes, comm, comm_percent, log_id); nodes: [(name, group)]. Returns
    the lanes, the background's runs [(log_id, start, end, names, share
    %)] that overlap [start, start + horizon], and the count of jobs too
    big for the machine."""
    groups = dict(nodes)
    free = set(groups)
    rng = random.Random(f"nedd-background:{seed}")
    t_first = jobs[0].submit if jobs else 0
    arrivals = deque(sorted(((j.submit - t_first, i, j) for i, j in enumerate(jobs)),
                            key=lambda a: (a[0], a[1])))
    queue, running, runs = deque(), [], []
    lanes, too_big, seq = None, 0, 0
    end_of_all = start + horizon
    while True:
        # The next event: a job's end (first at a tie), the lanes' choice
        # at the start, an arrival.
        cands = ([running[0][0]] if running else []) + \
            ([start] if lanes is None else []) + ([arrivals[0][0]] if arrivals else [])
        t = min(cands) if cands else math.inf
        if t >= end_of_all and lanes is not None:
            break
        while running and running[0][0] <= t:
            free.update(heapq.heappop(running)[2])
        if lanes is None and start <= t:
            # The machine at the start: the lanes are the experiment's
            # from now on (step 3), whatever ends or arrives later.
            lanes = choose_lanes(free, groups, n_lanes, n)
            free.difference_update(x for lane in lanes for x in lane)
            t = start
        while arrivals and arrivals[0][0] <= t:
            _, _, j = arrivals.popleft()
            size = max(1, math.ceil(j.nodes * factor))
            if size > len(groups):
                too_big += 1
                continue
            queue.append((j, size))
        # First come first served: the head waits for its nodes, the rest
        # behind it.
        while queue and queue[0][1] <= len(free):
            j, size = queue.popleft()
            names = sorted(rng.sample(sorted(free), size))
            free.difference_update(names)
            seq += 1
            heapq.heappush(running, (t + j.runtime, seq, names))
            share = (j.comm_percent or 0) if j.comm else 0
            runs.append((str(j.log_id), t, t + j.runtime, names, share))
    return lanes, [r for r in runs if r[2] > start and r[1] < end_of_all], too_big


# Log seconds per repetition the emulation may add to a repetition's
# planned span (launch and completion lags of its chained jobs: 50-230
# virtual s each at rate 100, docs/results/2026-11-26-nedd.md).
LAG_S = 300


def horizon(repetitions, congestor_s):
    """The background's span from the start: every repetition (the
    warm-up's too) as long as its congestor, which the next one's waits
    for, plus LAG_S: the pace at which nedd_jobs.job_list begins the
    repetitions of every run of the layout, No-Congestor's too, so that
    the k-th repetitions of all runs meet the same background."""
    return repetitions * (congestor_s + LAG_S)


def plan(topo, n_lanes, n, words, horizon_s, seed, workloads_dir):
    """The layout's lanes and background lines (Loaded)."""
    from .nedd_jobs import hostlist  # nedd_jobs imports this module
    log, factor, start = parse(words)
    lg, name = read_log(log, workloads_dir)
    if not lg.jobs or lg.jobs[-1].submit - lg.jobs[0].submit < start:
        span = lg.jobs[-1].submit - lg.jobs[0].submit if lg.jobs else 0
        raise ExperimentError(f"background log {name}: its jobs span {span:g} s, fewer "
                              f"than the start's {start:g} s: the machine would not be "
                              "loaded (another log, or an earlier start)")
    _, nodes = main_nodes(topo)
    lanes, runs, too_big = history(lg.jobs, nodes, factor, start, horizon_s, n_lanes, n,
                                   seed)
    busy = sum(len(r[3]) for r in runs if r[1] <= start < r[2])
    lines = []
    for log_id, s, e, names, share in runs:
        submit = max(0, round(s - start))
        runtime = round(min(e, start + horizon_s) - max(s, start))
        if runtime < 1:
            continue
        lines.append((submit, log_id, f"{PREFIX}{log_id} {submit} {runtime} {len(names)} "
                                      f"{runtime} -:{share:g} 1 nodelist={hostlist(names)}"))
    lines.sort(key=lambda x: (x[0], x[1]))
    facts = (f"background={name} factor={factor:g} start={start:g} horizon={horizon_s:g} "
             f"jobs={len(lines)} busy_at_start={busy / len(nodes):.3f} too_big={too_big}")
    return Loaded(lanes, [x[2] for x in lines], facts)
