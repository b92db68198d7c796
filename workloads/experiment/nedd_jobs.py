"""The NeDD experiments' job lists (Zhang et al., CLUSTER 2021;
../shared/papers/nedd.txt, "L.."): per repetition a lane of N idle nodes,
one kept for the control script, GPCNeT on C of the other N - 1 chosen at
random (re-chosen every repetition, L104), and after `lead` seconds of
congestor traffic the application job(s) of M nodes on what is left (L104,
L106, L160), confined to the lane by tb-submit's exclude=.

Lanes: one per application (or pair) of the experiment, each in its own
dragonfly group, so that they run side by side without touching each
other's observations: T is per router, U per the job's routers, G per its
groups and the stall model per chassis (plugins/lib/nedd.h). Layout
`consecutive` (L102, the issue): the lane is the group's first N node ids.
Layout `background` (the issue's second): the lane is N idle nodes of a
machine loaded by a replayed log, in groups of its own, the log's jobs in
the list beside the experiment's (nedd_background.py).
Repetitions follow each other (by Slurm dependencies, job_list); a
congestor ends before the next repetition's starts, so that it is out of
the next decision's window.

The written file is workloads/logs.py's nedd format, replayed as any log.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import sys

from .errors import ExperimentError
from . import nedd_background
from .nedd_background import main_nodes

# The repository (definition.py's ROOT; importing it here would be circular:
# the definition imports the kinds).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAYOUTS = ("consecutive", "background")
# The congestor runs at least this long before the application's decision:
# the window W (120 s, L104) plus 60 s for the congestor's own launch, so
# that the window sees two full minutes of it even if it starts late.
LEAD_S = 180
# An application job may run up to this many times its base runtime (its
# time limit): the runtime model's largest factor on Cori's lanes is about
# 1 + 18.2 (0.867 x 0.146 + 0.133 x 1.0) = 5.7, with the jitter 5.8.
LIMIT_FACTOR = 7
# The same in layout background: its jobs' groups carry the background's
# traffic too, G up to about 0.9 (every node injecting the log's highest
# share) + 0.146; 1 + 18.2 (0.867 x 1.05 + 0.133 x 1.0) = 20.0, with the
# jitter 20.4.
LIMIT_FACTOR_LOADED = 21
# No-Congestor's wait between repetitions: the window and a margin.
WAIT_S = 130
# The warm-up repetition's number (r00): run first in every lane, like the
# others, and counted in no figure (nedd.py). On a fresh cluster the first
# jobs meet front ends that have not registered yet: Slurm completes a
# job whose launch had not begun when its front end registers (exit 0,
# "Killing orphan batch"), and the first launches and completions lag
# most (docs/results/2026-11-26-nedd.md, "The first repetition").
WARMUP = 0


def hostlist(names):
    """Slurm's compressed form of node names (prefix + fixed-width digits),
    e.g. nid[00001-00003,00007]."""
    groups = {}
    for n in names:
        m = re.fullmatch(r"(.*?)(\d+)", n)
        if not m:
            groups.setdefault((n, 0), [])
            continue
        groups.setdefault((m.group(1), len(m.group(2))), []).append(int(m.group(2)))
    parts = []
    for (prefix, width), nums in sorted(groups.items()):
        if not width:
            parts.append(prefix)
            continue
        nums = sorted(set(nums))
        ranges, start = [], nums[0]
        for a, b in zip(nums, nums[1:] + [None]):
            if b != a + 1:
                ranges.append(f"{start:0{width}d}" + (f"-{a:0{width}d}" if a != start else ""))
                start = b
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def cluster_topology(cluster):
    """The cluster's topology.json as generate.py writes it (cached under
    build/nedd-lists/<cluster>/)."""
    out = os.path.join(ROOT, "build", "nedd-lists", cluster)
    path = os.path.join(out, "topology.json")
    if not os.path.exists(path):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "emulated-clusters", "generate.py"),
                            cluster, out], capture_output=True, text=True, check=False)
        if r.returncode != 0 or not os.path.exists(path):
            raise ExperimentError(f"generating {cluster}'s topology for the NeDD lanes: "
                                  f"{(r.stderr or r.stdout).strip()[-300:]}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lanes(topo, n_lanes, n):
    """n_lanes lanes of n node names, each the first n node ids of one
    dragonfly group: the groups whose nodes have the machine's most common
    core count (Cori's KNL, L98), in group order."""
    main, nodes = main_nodes(topo)
    by_group = {}
    for name, group in nodes:
        by_group.setdefault(group, []).append(name)
    usable = [sorted(v)[:n] for g, v in sorted(by_group.items()) if len(v) >= n]
    if len(usable) < n_lanes:
        raise ExperimentError(f"cluster {topo.get('name')}: {len(usable)} dragonfly groups "
                              f"have {n} nodes of {main} cores; the experiment needs "
                              f"{n_lanes} (one per application)")
    return usable[:n_lanes], [x["name"] for x in topo["nodes"]]


def congestor_seconds(t0, limit_factor=LIMIT_FACTOR):
    """How long a congestor runs: its two minutes, then until its jobs'
    time limit could be reached, and a margin."""
    return 120 + limit_factor * t0 + 30


def job_list(topo, items, reps, setup, t0, congestor, seed, warmup=False, loaded=None):
    """The jobs: per repetition and item (an application, or a pair run
    one after the other), in its lane. setup = (N, C, M). Returns the
    lines of the nedd format. warmup: each lane first runs repetition
    r00 (WARMUP), its congestor drawn apart so that r01.. draw as without
    it; the table counts it in no figure.

    With the congestor the timing is Slurm's, by dependencies, so that a
    driver or a launch lagging behind (a loaded machine at a high clock
    rate) cannot shorten the congestor's two minutes: the job(s) start
    after:<congestor>+2 (two minutes after it started, L104), and the
    next repetition's congestor afterany: this one's jobs and congestor.
    The congestor runs until its jobs' time limit could be reached. All
    are submitted at once (@<name> stands for that job's Slurm id).
    Without it (No-Congestor) each repetition follows the last one's jobs
    and a wait of WAIT_S on the control node, their traffic out of the
    next one's window.

    loaded (layout background, nedd_background.Loaded): the lanes are its
    own, the time limits LIMIT_FACTOR_LOADED x T0, repetitions paced (see
    pace below), and its background's lines among the experiment's, in
    submission order."""
    n, c, m = setup
    width = max(len(i) for i in items)
    if n - 1 - c < width * m:
        raise ExperimentError(f"setup N={n} C={c} M={m}: {n - 1 - c} nodes left for "
                              f"{width} job(s) of {m}")
    factor = LIMIT_FACTOR if loaded is None else LIMIT_FACTOR_LOADED
    congestor_s = congestor_seconds(t0, factor)
    if loaded is None:
        lane_nodes, all_nodes = lanes(topo, len(items), n)
    else:
        lane_nodes, all_nodes = loaded.lanes, [x["name"] for x in topo["nodes"]]
    lines = ["# nedd-jobs (workloads/experiment/nedd_jobs.py): "
             f"N={n} C={c} M={m} T0={t0:g} reps={reps} congestor={int(congestor)} "
             f"seed={seed}" + (" warmup=r00" if warmup else "")
             + (f" {loaded.facts}" if loaded is not None else ""),
             "Job_name Submit Runtime Nodes Requested App Prefill Placement"]
    # Layout background: repetition k of every run begins no earlier than
    # k x pace (its congestor; No-Congestor's job k x pace + 120, when the
    # congestor's would start), so that the runs' k-th repetitions meet
    # the same background, whatever each run's own lags (as long as they
    # stay under LAG_S per repetition). Consecutive: all at once (0).
    pace = 0
    if loaded is not None:
        pace = congestor_s + nedd_background.LAG_S
    jobs = []
    for k, item in enumerate(items):
        lane = lane_nodes[k]
        # The lane's first node holds the control script (L106): in
        # neither job.
        others = lane[1:]
        keep = set(others)
        exclude = "exclude=" + hostlist([x for x in all_nodes if x not in keep])
        before = []
        for i, rep in enumerate(([WARMUP - 1] if warmup else []) + list(range(reps))):
            at = i * pace
            tag = f"r{rep + 1:02d}-{'_'.join(item)}"
            names = [f"{tag}-{j + 1}-{app}" for j, app in enumerate(item)]
            if congestor:
                rng = random.Random(f"nedd:{seed}:{rep}:{'+'.join(item)}" if rep >= 0 else
                                    f"nedd:{seed}:warmup:{'+'.join(item)}")
                chosen = sorted(rng.sample(others, c))
                after = (";dependency=afterany:" + ":".join("@" + x for x in before)
                         if before else "")
                jobs.append((at, f"{tag}-gpcnet {at:g} {congestor_s:g} {c} {congestor_s:g} "
                                 f"gpcnet 1 nodelist={hostlist(chosen)}{after}"))
                for name, app in zip(names, item):
                    jobs.append((at, f"{name} {at:g} {t0:g} {m} {factor * t0:g} {app} 0 "
                                     f"{exclude};dependency=after:@{tag}-gpcnet+2"))
                before = [f"{tag}-gpcnet"] + names
            else:
                # Each repetition after the last one's jobs and a wait on
                # the control node (no application, no traffic) as long as
                # the window, so that their traffic is out of it.
                after = (";dependency=afterany:" + ":".join("@" + x for x in before)
                         if before else "")
                at = at + 120 if pace else 0
                for name, app in zip(names, item):
                    jobs.append((at, f"{name} {at:g} {t0:g} {m} {factor * t0:g} {app} 0 "
                                     f"{exclude}{after}"))
                jobs.append((at, f"{tag}-wait {at:g} {WAIT_S:g} 1 {WAIT_S:g} - 1 "
                                 f"nodelist={lane[0]};dependency=afterany:"
                                 + ":".join("@" + x for x in names)))
                before = [f"{tag}-wait"]
    # The background's (layout background) after the experiment's at the
    # same second. In submission order (a stable sort: each lane's jobs in
    # the order their dependencies need, the pair's in its priority order).
    if loaded is not None:
        jobs += [(int(x.split()[1]), x) for x in loaded.lines]
    return lines + [x for _, x in sorted(jobs, key=lambda j: j[0])]


def load_background(topo, items, reps, setup, t0, seed, warmup, words, workloads_dir):
    """Layout background's lanes and background (nedd_background.plan),
    the same for the runs with and without the congestor."""
    span = nedd_background.horizon(reps + (1 if warmup else 0),
                                   congestor_seconds(t0, LIMIT_FACTOR_LOADED))
    return nedd_background.plan(topo, len(items), setup[0], words, span, seed, workloads_dir)


def write_list(cluster, name, layout, items, reps, setup, t0, congestor, seed, warmup=False,
               background=None, workloads_dir=None):
    """The job list's file under build/nedd-lists/, named by its content (the
    table reads the layout and the congestor from the name). background:
    layout background's definition list (nedd_background.parse), its log
    read in workloads_dir (default: the environment's WORKLOADS_DIR)."""
    if layout not in LAYOUTS:
        raise ExperimentError(f"layout '{layout}': expected one of {' '.join(LAYOUTS)}")
    topo = cluster_topology(cluster)
    loaded = None
    if layout == "background":
        loaded = load_background(topo, items, reps, setup, t0, seed, warmup,
                                 background or nedd_background.DEFAULT,
                                 workloads_dir if workloads_dir is not None
                                 else os.environ.get("WORKLOADS_DIR", ""))
    lines = job_list(topo, items, reps, setup, t0, congestor, seed, warmup, loaded)
    text = "\n".join(lines) + "\n"
    sha = hashlib.sha256(text.encode()).hexdigest()[:8]
    out = os.path.join(ROOT, "build", "nedd-lists")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{name}-{layout}-{'gpcnet' if congestor else 'none'}.{sha}.jobs")
    if not os.path.exists(path):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return path


def list_facts(log_name):
    """(layout, congestor) from a job list's file name."""
    m = re.fullmatch(r".*-(\w+)-(gpcnet|none)\.[0-9a-f]{8}\.jobs", log_name)
    if not m:
        return None
    return m.group(1), m.group(2) == "gpcnet"
