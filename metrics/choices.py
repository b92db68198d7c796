"""How much choice the ICPP policies had at each start of a twin run.

Rebuilds, from a twin run (`make simulate`, `ENGINE=sim`: sim.tsv,
plan.tsv, topology.json), the free and communicating nodes of every leaf
at each job's start, and sorts the decisions by what left greedy (Alg. 1)
and balanced (Alg. 2) room to differ (ICPP-W 2020, Sec. 4; plugins/lib):

- one leaf:   some leaf has the job's nodes free; both algorithms take them
              from the tightest such leaf (l. 2-5, the same lines in both);
- exact:      the free nodes are exactly the job's: any policy takes them all;
- whole tie:  a communication-intensive job of a power of two times the
              leaf's nodes, with enough whole free leaves; or a
              compute-intensive job that needs every partly free leaf's
              nodes: every whole free leaf has Eq. 1 ratio 0 and a full
              free count, so both sort orders reach the same leaves, by
              topology order (all leaves of one size, two levels);
- open:       the rest: partly free leaves compete, sorted by Eq. 1 ratio
              (greedy) or free count (balanced, in powers of two).

With --alloc <tb-alloc> it also runs the library's policies (ICPP-W's
among them) on each rebuilt state (tb-alloc's state mode) and counts the
starts where their node sets differ, per class, and how many rebuilt
states give the run's own policy the nodes it took (a check of the
rebuild: jobs that start at the same second are taken in sim.tsv's
order, backfilled ones last, which is not always the twin's).

    python3 -m metrics.choices RUN [--alloc build/c/tb-alloc]

docs/results/2026-11-27-icpp-policies-theta.md has the reading.
"""

import argparse
import collections
import csv
import json
import math
import os
import subprocess
import sys

from workloads.cluster_defs import expand_hostlist
from .run_dir import ReportError, run_files

CLASSES = ("one leaf", "exact", "whole tie", "open")


def read_run(run_dir, started=None):
    """(leaf of each node name, nodes of each leaf, plan by log id, the started
    jobs of sim.tsv in the order they took their nodes). started: rows of
    sim.tsv's form (log_id, start, end, nodes, policy, backfilled) given
    instead of sim.tsv (an emulated run's, emulated_starts)."""
    files = ("topology.json", "plan.tsv") + (("sim.tsv",) if started is None
                                              else ())
    paths = run_files(run_dir, files,
                      "expected a twin run (make simulate, or ENGINE=sim)")
    with open(paths["topology.json"], encoding="utf-8") as f:
        topo = json.load(f)
    names = [n["name"] for n in topo["nodes"]]
    leaves = [s for s in topo["switches"] if s.get("level") == 0]
    leaf_of = {names[k]: i for i, s in enumerate(leaves) for k in s["nodes"]}
    if not leaves or len(topo.get("levels", [])) != 2:
        raise ReportError(f"{paths['topology.json']}: expected a tree of "
                          "leaf switches under one top switch (two levels)")
    sizes = [len(s["nodes"]) for s in leaves]
    with open(paths["plan.tsv"], encoding="utf-8", newline="") as f:
        plan = {r["log_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    if started is None:
        with open(paths["sim.tsv"], encoding="utf-8", newline="") as f:
            started = list(csv.DictReader(f, delimiter="\t"))
    rows = [r for r in started
            if str(r["start"]) not in ("", "nan", "None") and r["nodes"]]
    missing = sorted({r["log_id"] for r in rows} - plan.keys())
    if missing:
        raise ReportError(f"{paths['plan.tsv']}: no job {missing[0]} (and "
                          f"{len(missing) - 1} more) of the run's starts")
    order = sorted(range(len(rows)), key=lambda i: (
        float(rows[i]["start"]), rows[i].get("backfilled") == "1", i))
    return leaf_of, sizes, plan, [rows[i] for i in order]


def states(run_dir, started=None):
    """Per start, in order: (sim row, its plan row, nodes of each leaf,
    free nodes per leaf, busy node names, busy communicating node names).
    started: as read_run's."""
    yield from states_of(*read_run(run_dir, started))


def states_of(leaf_of, sizes, plan, started):
    """states() of read_run's answer, lazily (a caller may stop early)."""
    for pos, job in enumerate(started):
        t = float(job["start"])
        busy, busy_comm = [], []
        for k in started[:pos]:
            if float(k["end"]) > t:
                comm = plan[k["log_id"]]["comm"] == "1"
                (busy_comm if comm else busy).extend(k["nodes"].split(","))
        free = list(sizes)
        for n in busy + busy_comm:
            free[leaf_of[n]] -= 1
        yield job, plan[job["log_id"]], sizes, free, busy, busy_comm


def classify(nodes, comm, free, sizes):
    """The class (CLASSES) of one decision; free: free nodes per leaf,
    sizes: nodes per leaf. Whole leaves tie only when all leaves are of
    one size (else their free counts order them, and balanced's powers of
    two need not fill them)."""
    if max(free) >= nodes:
        return "one leaf"
    if sum(free) == nodes:
        return "exact"
    if len(set(sizes)) != 1:
        return "open"
    size = sizes[0]
    whole = sum(f == size for f in free)
    partly = sum(f for f in free if 0 < f < size)
    # Balanced's chunk S = N, halved while above a leaf's free nodes
    # (l. 8, 14-15), reaches a whole leaf exactly when N / size is a power
    # of two; greedy's and balanced's sorts put whole free leaves (ratio 0,
    # most free) first, ties by topology order. A compute-intensive job
    # takes the partly free leaves first in both (ratio > 0; fewest free):
    # if it needs them all, their order cannot matter.
    k = nodes // size
    if comm and nodes % size == 0 and k & (k - 1) == 0 and whole >= k:
        return "whole tie"
    if not comm and partly <= nodes:
        return "whole tie"
    return "open"


def span_facts(nodes, free, sizes):
    """For a start that spans leaves (no leaf holds the job): "spans",
    "no partly free leaf" when every leaf is wholly free or wholly busy,
    and "whole leaves exactly" when the wholly free leaves are exactly the
    job's (leaves of one size). Empty for a start within one leaf."""
    if max(free) >= nodes:
        return ()
    facts = ["spans"]
    if all(f in (0, s) for f, s in zip(free, sizes)):
        facts.append("no partly free leaf")
    if len(set(sizes)) == 1 and \
            sum(f == sizes[0] for f in free) * sizes[0] == nodes:
        facts.append("whole leaves exactly")
    return facts


def alloc_sets(tb_alloc, topology, nodes, comm, pattern, busy, busy_comm,
               options=""):
    """{policy: frozenset of node names} from tb-alloc's state mode;
    options: the run's OPTIONS (the library's readings, options.h)."""
    cmd = [tb_alloc, "--topology", topology]
    if options:
        cmd += ["--options", options]
    if busy:
        cmd += ["--busy", ",".join(busy)]
    if busy_comm:
        cmd += ["--busy-comm", ",".join(busy_comm)]
    cmd += ["--job", f"nodes={nodes},comm={comm},pattern={pattern}", "all"]
    # A policy that cannot place the job prints "<policy> -" and tb-alloc
    # exits 1; the others still print their nodes.
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        err = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ReportError(f"{tb_alloc} failed (exit {done.returncode}): {err}")
    out = done.stdout
    sets = {}
    for line in out.splitlines():
        policy, _, picked = line.partition(" ")
        if picked:
            sets[policy] = frozenset(picked.split(","))
    return sets


def emulated_starts(run_dir, rows):
    """sim.tsv's rows for a run without one (an emulation's): each job's
    start and end as make report reads them (rows: metrics.jobs.job_rows,
    log seconds) and its nodes from sacct.json. Nothing says which jobs
    backfill started, so jobs of one second keep sacct's order."""
    path = os.path.join(run_dir, "sacct.json")
    if not os.path.exists(path):
        raise ReportError(f"{run_dir}: no sacct.json, so no job's nodes")
    with open(path, encoding="utf-8") as f:
        jobs = json.load(f)
    nodes_of = {str(j.get("job_id")): j.get("nodes") or ""
                for j in (jobs.get("jobs", []) if isinstance(jobs, dict)
                          else jobs)}
    out = []
    for r in rows:
        nodes = nodes_of.get(str(r["job_id"]), "")
        if r.get("start") is None or not nodes or nodes == "None assigned":
            continue
        out.append({"log_id": str(r["log_job_id"]), "start": r["start"],
                    "end": r["end"], "policy": r.get("policy", ""),
                    "nodes": ",".join(expand_hostlist(nodes)),
                    "backfilled": ""})
    return out


def quiet_fit(options):
    """Whether the run's OPTIONS set fit=quiet (options.h): greedy then
    picks among the leaves that hold a job by its ratio, balanced still
    by best fit, so a start within one leaf is a choice too."""
    return "fit=quiet" in (options or "").split()


def share_count(share, n):
    """The fewest of n starts that are not below share of them (at least
    one; rounded first, so 0.01 of 700 is 7, not 8)."""
    return max(1, math.ceil(round(share * n, 9)))


def greedy_vs_balanced(run_dir, tb_alloc, options="", started=None,
                       stop_share=None):
    """(starts where greedy and balanced take other nodes, starts looked
    at, all starts) of a run, each start's state rebuilt (states) and both
    run on it by tb-alloc. Counting stops once such starts are no longer
    below stop_share of all (share_count; the caller's question is only
    whether there are fewer). Two classes need
    no tb-alloc: at an exact start the free nodes are the only set, and
    within one leaf both algorithms run the same lines (l. 2-5) to the
    same tightest leaf and its first free nodes unless fit=quiet; the
    Theta page found 0 differences among 830 such starts by tb-alloc."""
    run = read_run(run_dir, started)
    starts = run[3]
    topology = os.path.join(run_dir, "topology.json")
    differ = looked = 0
    stop_at = None if stop_share is None else share_count(stop_share, len(starts))
    for job, p, sizes, free, busy, busy_comm in states_of(*run):
        if stop_at is not None and differ >= stop_at:
            break
        looked += 1
        nodes, comm = int(p["nodes"]), int(p["comm"])
        cls = classify(nodes, comm, free, sizes)
        if cls == "exact" or (cls == "one leaf" and not quiet_fit(options)):
            continue
        sets = alloc_sets(tb_alloc, topology, nodes, comm,
                          p.get("pattern") or "rd", busy, busy_comm, options)
        if "greedy" not in sets and "balanced" not in sets:
            raise ReportError(f"{tb_alloc} gave neither greedy's nor "
                              f"balanced's nodes for job {job['log_id']}")
        differ += sets.get("greedy") != sets.get("balanced")
    return differ, looked, len(starts)


def survey(run_dir, tb_alloc=None):
    """{class: starts}, {span fact: starts} (span_facts), and with
    tb_alloc {(a, b): {class: starts where a and b take other nodes}} and
    how many rebuilt states reproduce the run's own choice, out of how
    many."""
    counts, facts = collections.Counter(), collections.Counter()
    differ = collections.defaultdict(collections.Counter)
    own_ok = total = 0
    topology = os.path.join(run_dir, "topology.json")
    for job, p, sizes, free, busy, busy_comm in states(run_dir):
        nodes, comm = int(p["nodes"]), int(p["comm"])
        cls = classify(nodes, comm, free, sizes)
        counts[cls] += 1
        facts.update(span_facts(nodes, free, sizes))
        total += 1
        if not tb_alloc:
            continue
        sets = alloc_sets(tb_alloc, topology, nodes, comm,
                          p.get("pattern") or "rd", busy, busy_comm)
        own = sets.get(job["policy"])
        own_ok += own == frozenset(job["nodes"].split(","))
        for a, b in (("greedy", "balanced"), ("greedy", "adaptive"),
                     ("greedy", "default1905")):
            if sets.get(a) != sets.get(b):
                differ[(a, b)][cls] += 1
        if sets.get("greedy") != sets.get("balanced"):
            side = "balanced" if sets.get("adaptive") == sets.get(
                "balanced") else "greedy" if sets.get("adaptive") == \
                sets.get("greedy") else "neither"
            differ[("adaptive takes", side)][
                "comm" if comm else "compute"] += 1
    return counts, facts, differ, own_ok, total


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m metrics.choices",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a twin run directory (sim.tsv)")
    ap.add_argument("--alloc", help="tb-alloc, to run the policies on "
                    "each rebuilt state (build/c/tb-alloc)")
    a = ap.parse_args(argv)
    try:
        counts, facts, differ, own_ok, total = survey(a.run, a.alloc)
    except (ReportError, OSError, KeyError, ValueError,
            subprocess.CalledProcessError) as e:
        print(f"metrics.choices: {e}", file=sys.stderr)
        return 1
    print(f"{a.run}: {total} starts: " + ", ".join(
        f"{c} {counts[c]}" for c in CLASSES))
    print(f"starts spanning leaves: {facts['spans']}, with no partly free "
          f"leaf {facts['no partly free leaf']}, with the whole free leaves "
          f"exactly the job's {facts['whole leaves exactly']}")
    if a.alloc:
        print(f"rebuilt states giving the run's policy its own nodes: "
              f"{own_ok}/{total}")
        for (x, y) in (("greedy", "balanced"), ("greedy", "adaptive"),
                       ("greedy", "default1905")):
            d = differ[(x, y)]
            print(f"{x} vs {y}: other nodes at {sum(d.values())} starts ("
                  + ", ".join(f"{c} {d[c]}" for c in CLASSES) + ")")
        print("adaptive's pick where greedy and balanced part: " + ", ".join(
            f"{side}'s {sum(differ[('adaptive takes', side)].values())} "
            f"(communication-intensive "
            f"{differ[('adaptive takes', side)]['comm']})"
            for side in ("greedy", "balanced", "neither")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
