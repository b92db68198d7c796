"""Kind nedd's job lists (workloads/experiment/nedd_jobs.py) under Slurm's
dependency rules, whatever the lag: a small event model of what Slurm may
do with a list (after:<id>+<m>: once <id> started m minutes ago, Slurm
24.11's _test_job_dependency_common; afterany:<id>: once it ended; the
begin time of a Submit 0 job is the replay's t0) with random launch and
scheduling delays and random runtimes up to the job's limit, as a loaded
machine gives them. The properties the experiments rely on must hold in
every draw: No-Congestor's repetitions of a lane never overlap and each
begins at least the traffic window (120 s, L104) after the last one's jobs
ended (commit 707797d); with the congestor, each job starts at least two
minutes after its congestor started, while it runs, and a repetition's
congestor starts only once the last repetition's jobs and congestor ended.
"""

import random
import re

import pytest

from workloads import logs
from workloads.experiment import nedd_jobs

WINDOW = 120


def topo(groups=2, per_group=16, cores=4):
    """A hand-made dragonfly: groups of 4-node routers, 8-node chassis."""
    nodes = [{"name": f"d{g * per_group + k:02d}", "cores": cores, "router": (g * per_group + k) // 4,
              "chassis": (g * per_group + k) // 8, "group": g}
             for g in range(groups) for k in range(per_group)]
    return {"name": "hand", "nodes": nodes}


def simulate(jobs, rng, max_delay):
    """Start and end times of every job (list order: each depends only on
    jobs above it). A job starts at the earliest time its dependencies
    allow plus a random delay in [0, max_delay] (the scheduler's pass,
    the launch); it runs a random time up to its limit."""
    times = {}
    for j in jobs:
        earliest = float(j.submit)
        deps = re.search(r"dependency=([^;]+)", j.placement or "")
        if deps:
            for part in deps.group(1).split(","):
                kind, _, ids = part.partition(":")
                for dep in ids.split(":"):
                    name, _, minutes = dep.lstrip("@").partition("+")
                    start, end = times[name]
                    if kind == "after":
                        earliest = max(earliest, start + 60 * int(minutes or 0))
                    elif kind == "afterany":
                        earliest = max(earliest, end)
                    else:
                        raise AssertionError(f"{j.log_id}: dependency type {kind}")
        start = earliest + rng.uniform(0, max_delay)
        # An application job sleeps what the model gives it (anything up
        # to its limit); a job of no application (the congestor, the
        # No-Congestor wait) sleeps its runtime, longer if launched late.
        shortest = 1 if j.app and j.app != "gpcnet" else j.runtime
        times[j.log_id] = (start, start + rng.uniform(shortest, j.requested_time))
    return times


def read_list(tmp_path, lines):
    path = tmp_path / "x.jobs"
    path.write_text("\n".join(lines) + "\n")
    return logs.read(str(path)).jobs


def lane_reps(jobs):
    """{lane item: {rep: [application jobs' names]}} from r<rep>-<item>-<k>-<app>."""
    out = {}
    for j in jobs:
        m = re.fullmatch(r"r(\d+)-(.+?)-(\d+)-(\w+)", j.log_id)
        if m:
            out.setdefault(m.group(2), {}).setdefault(int(m.group(1)), []).append(j.log_id)
    return out


@pytest.mark.parametrize("items", [[("miniMD",), ("HPCG",)], [("miniMD", "MILC")]])
@pytest.mark.parametrize("max_delay", [0.0, 50.0, 500.0])
def test_no_congestor_repetitions_never_overlap(tmp_path, items, max_delay):
    jobs = read_list(tmp_path, nedd_jobs.job_list(topo(), items, 5, (12, 4, 3), 100, False, 0))
    rng = random.Random(f"nc:{max_delay}:{items}")
    for _ in range(200):
        t = simulate(jobs, rng, max_delay)
        for item, reps in lane_reps(jobs).items():
            for rep in sorted(reps)[1:]:
                ended = max(t[x][1] for x in reps[rep - 1])
                began = min(t[x][0] for x in reps[rep])
                assert began >= ended + WINDOW, (item, rep, ended, began)


@pytest.mark.parametrize("max_delay", [0.0, 50.0, 500.0])
def test_congestor_two_minutes_before_each_job_and_repetitions_in_turn(tmp_path, max_delay):
    items = [("miniMD",), ("QMCPACK", "miniMD")]
    jobs = read_list(tmp_path, nedd_jobs.job_list(topo(), items, 5, (12, 4, 3), 100, True, 0))
    rng = random.Random(f"c:{max_delay}")
    for _ in range(200):
        t = simulate(jobs, rng, max_delay)
        for item, reps in lane_reps(jobs).items():
            for rep, names in reps.items():
                cong = t[f"r{rep:02d}-{item}-gpcnet"]
                for x in names:
                    assert cong[0] + WINDOW <= t[x][0] < cong[1], (x, cong, t[x])
                if rep > 1:
                    last = reps[rep - 1] + [f"r{rep - 1:02d}-{item}-gpcnet"]
                    assert cong[0] >= max(t[x][1] for x in last), (item, rep)


def test_the_spaced_no_congestor_list_before_707797d_overlapped(tmp_path):
    """The check can fail: No-Congestor's list before 707797d spaced its
    repetitions by submission times (period LEAD_S + 7 T0 + 60 s), not by
    dependencies, and with a driver or launch late by more than the period
    two repetitions of a lane ran at once (on cori three of 60 jobs got a
    factor above 1 from a neighbour, docs/results/2026-11-26-nedd.md)."""
    period = nedd_jobs.LEAD_S + nedd_jobs.LIMIT_FACTOR * 100 + 60
    lines = nedd_jobs.job_list(topo(), [("miniMD",)], 5, (12, 4, 3), 100, False, 0)[:2]
    for rep in range(5):
        lines.append(f"r{rep + 1:02d}-miniMD-1-miniMD {rep * period + nedd_jobs.LEAD_S} 100 3 "
                     f"{nedd_jobs.LIMIT_FACTOR * 100} miniMD 0 exclude=d[00,12-31]")
    jobs = read_list(tmp_path, lines)
    rng = random.Random("old")
    overlaps = 0
    for _ in range(200):
        t = simulate(jobs, rng, 1000.0)
        reps = lane_reps(jobs)["miniMD"]
        overlaps += any(min(t[x][0] for x in reps[r]) < max(t[x][1] for x in reps[r - 1]) + WINDOW
                        for r in sorted(reps)[1:])
    assert overlaps > 0
