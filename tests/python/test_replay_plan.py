"""The replay's job plan (workloads/replay/plan.py, matrix.py) and the
files and submissions made from it, without a cluster. (Moved from
tests/replay.bats, individual.bats and experiment.bats.)"""

import json
import math
import os

import pytest

from workloads import logs
from workloads.replay.cli import parse_args
from workloads.replay.driver import submit_individual
from workloads.replay.errors import ReplayError
from workloads.replay.matrix import MATRIX_LINE_MAX, comm_matrix, matrix_density
from workloads.replay.plan import make_plan
from workloads.replay.run_dir import read_plan, write_plan
from workloads.replay import slurm_io
from workloads.replay.slurm_io import job_fields


def test_sacct_json_written_by_collect_replays_with_the_plans_log_times_and_profiles(
        tmp_path, monkeypatch):
    """... without its filling jobs."""
    tmp = str(tmp_path)
    # A six-column log whose offsets SPEEDUP=300 does not divide: eligible
    # times (whole wall seconds) would move them.
    log_path = os.path.join(tmp, "w.jobs")
    with open(log_path, "w") as f:
        f.write("Job_name Submit Runtime Nodes Comment Perc\n")
        for k in range(12):
            f.write(f"{k + 1} {1000 + 137 * k * k} {60 + 17 * k} {1 + k % 4} {k % 2} "
                    f"{10 * (k % 9 + 1)}\n")
    args = parse_args(["--log", log_path, "--speedup", "300", "--seed", "3"])
    plan, _ = make_plan(args, logs.read(log_path), None, 8, args.speedup)
    run = os.path.join(tmp, "run")
    os.mkdir(run)
    write_plan(os.path.join(run, "plan.tsv"), plan)
    manifest = {"run_id": "R1", "speedup": 300.0, "t0": 5000.5, "seed": 3}

    def fake_ctl(container, command, stdin=None, check=True):
        return json.dumps({"jobs": [{
            "job_id": i + 1, "name": f"R1:{p['log_id']}", "allocation_nodes": p["nodes"],
            "state": {"current": ["COMPLETED"]},
            "time": {"eligible": math.floor(5000.5 + p["offset"] / 300 + 0.5)},
            "comment": {"administrator": f"policy=default;comm={p['comm']};"
                        f"pattern={p['pattern']};comm_percent={p['comm_percent']:g};"
                        f"runtime_base={p['runtime']:g}"}}
            for i, p in enumerate(plan)]})
    monkeypatch.setattr(slurm_io, "ctl", fake_ctl)
    ids = {p["log_id"]: i + 1 for i, p in enumerate(plan)}
    assert slurm_io.collect(None, run, manifest, ids) == []
    # Replayed at another SPEEDUP and SEED: the same log times and profiles.
    sacct = os.path.join(run, "sacct.json")
    args2 = parse_args(["--log", sacct, "--speedup", "1000", "--seed", "9"])
    plan2, _ = make_plan(args2, logs.read(sacct), None, 8, args2.speedup)
    keys = ("log_id", "offset", "runtime", "nodes", "comm", "pattern", "comm_percent")
    assert [[p[k] for k in keys] for p in plan2] == [[p[k] for k in keys] for p in plan]
    assert len(plan2) == 12
    # The jobs that filled the cluster first (PREFILL's, INDIVIDUAL's
    # occupying ones) are no part of a replay of the run.
    for p in plan[:2]:
        p["prefill"] = 1
    write_plan(os.path.join(run, "plan.tsv"), plan)
    assert slurm_io.collect(None, run, manifest, ids) == []
    got = [j.log_id for j in logs.read(sacct).jobs]
    assert got == [p["log_id"] for p in plan[2:]], (got, plan)
    # Without the recorded plan (a run made before), the manifest's SPEEDUP
    # beside sacct.json still expands eligible times into log times: within
    # a wall second x SPEEDUP of the original (BeginTime rounding).
    with open(sacct) as f:
        doc = json.load(f)
    del doc["testbed"]
    with open(sacct, "w") as f:
        json.dump(doc, f)
    with open(os.path.join(run, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    old = {j.log_id: j for j in logs.read(sacct).jobs}
    for p in plan:
        j = old[p["log_id"]]
        assert abs(j.submit - p["offset"]) <= 300, (j.submit, p)
        assert (j.pattern, j.comm, j.runtime) == (p["pattern"], p["comm"], p["runtime"]), p


def test_matrices_are_the_same_for_a_seed_and_log_id_fit_and_have_no_self_pairs():
    a = comm_matrix(0, "7", 4, 0.5)
    assert a == comm_matrix(0, "7", 4, 0.5) and a != comm_matrix(1, "7", 4, 0.5), a
    pairs = [tuple(e.split()[:2]) for e in a.split(";")[1:]]
    assert a.startswith("ranks 4;") and len(set(pairs)) == 6 and all(i != j for i, j in pairs), a
    # SPARSITY=0 on 512 nodes: thinned until it fits, and says so in the plan.
    d = matrix_density(512, 0)
    big = comm_matrix(0, "7", 512, d)
    assert d < 0.05 and len(big) <= MATRIX_LINE_MAX, (d, len(big))
    assert len(big.split(";")) - 1 > 5000, "too few entries in a 512-node matrix"


def test_granularity_core_plans_one_rank_per_core(tmp_path):
    """The log's processors where its nodes are the cluster's, else whole
    nodes' cores."""
    path = str(tmp_path / "w.swf")
    with open(path, "w") as f:
        f.write("; MaxNodes: 4\n; MaxProcs: 16\n")
        for k, procs in enumerate((16, 6, 8, 3)):
            f.write(f"{k + 1} {100 * k} 0 50 {procs} -1 -1 {procs} 100 -1 1 1 1 1 1 -1 -1 -1\n")
    log = logs.read(path)
    core = parse_args(["--log", path, "--granularity", "core", "--sparsity", "0.5",
                       "--comm", "1", "--first", "1", "--prefill", "0.5"])
    plan, _ = make_plan(core, log, None, 8, 1.0, node_cores=4)
    work = [p for p in plan if not p["prefill"]]
    assert [p["ranks"] for p in work] == [6, 8, 3], plan
    assert [p["nodes"] for p in work] == [2, 2, 1], plan
    assert [p["ranks"] for p in plan if p["prefill"]] == [0], plan
    # Nodes of another size: whole nodes' cores.
    plan2, _ = make_plan(core, log, None, 8, 1.0, node_cores=2)
    assert [p["ranks"] for p in plan2 if not p["prefill"]] == [4, 4, 2], plan2
    # The job asks for its ranks in the partition cores, with a rank x rank matrix.
    f = job_fields("R", 0, work[0], 0, 1.0, 0)
    assert f[6].startswith("TESTBED_COMM_MATRIX=ranks 6;") and f[7] == "cores=6", f
    f = job_fields("R", 0, dict(work[0], nodelist="t01"), 0, 1.0, 0, placement="nodelist=t01")
    assert f[7] == "nodelist=t01;cores=6", f
    # Whole nodes by default: no cores=, node x node matrices.
    node = parse_args(["--log", path, "--sparsity", "0.5", "--comm", "1", "--first", "1"])
    p0 = make_plan(node, log, None, 8, 1.0, node_cores=4)[0][0]
    f = job_fields("R", 0, p0, 0, 1.0, 0)
    assert p0["ranks"] == 0 and f[7] == "", (p0, f)
    assert f[6].startswith("TESTBED_COMM_MATRIX=ranks 2;"), f
    # plan.tsv keeps the ranks; a plan written before them (and before
    # NeDD's app and placement and TOFA's matrix_file after them) reads as 0.
    tsv = str(tmp_path / "plan.tsv")
    write_plan(tsv, plan)
    assert [p["ranks"] for p in read_plan(tsv)] == [p["ranks"] for p in plan]
    with open(tsv) as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh]
    k = rows[0].index("ranks")
    with open(tsv, "w") as fh:
        fh.write("".join("\t".join(r[:k]) + "\n" for r in rows))
    assert all(p["ranks"] == 0 for p in read_plan(tsv))


def test_treematch_the_plan_fills_the_machine_first_and_halves_runtimes(tmp_path):
    """PREFILL and RUNTIME_FACTOR (moved from tests/experiment.bats)."""
    path = str(tmp_path / "w.jobs")
    with open(path, "w") as f:
        f.write("Job_name Submit Runtime Nodes Comment Perc\n")
        # 6 jobs before the window (sizes 3 5 2 4 1 6), then 2 in it.
        for k, n in enumerate([3, 5, 2, 4, 1, 6, 2, 8]):
            f.write(f"{k + 1} {100 * k} {600 + 10 * k} {n} 1 50\n")
    args = parse_args(["--log", path, "--first", "6", "--jobs", "2", "--prefill", "1",
                       "--runtime-factor", "0.5", "--sparsity", "0.5", "--speedup", "1"])
    plan, _ = make_plan(args, logs.read(path), None, 10, 1.0)
    # Latest first, each when it fits in 10 nodes: 6, 1, then 2 (4 and 5
    # do not fit), 3 stops it; in log order, all at the origin.
    assert " ".join(f"{p['log_id']}:{p['nodes']}:{p['offset']:g}:{p['runtime']:g}:"
                    f"{p['comm']}:{p['prefill']}" for p in plan) == \
        "3:2:0:310:0:1 5:1:0:320:0:1 6:6:0:325:0:1 7:2:0:330:1:0 8:8:100:335:1:0"
    assert all(p["matrix_density"] == 0 for p in plan if p["prefill"])
    assert all(p["matrix_density"] > 0 for p in plan if not p["prefill"])
    # Half the nodes: 6 does not fit in 5, then 1 and 4 fill them.
    args.prefill = 0.5
    assert [p["log_id"] for p in make_plan(args, logs.read(path), None, 10, 1.0)[0]] == \
        ["4", "5", "7", "8"]
    for bad, text in (
            (["--runtime-factor", "0"], "RUNTIME_FACTOR=0: expected a number above 0 "
                                        "(0.5 halves every job's runtime)"),
            (["--prefill", "0"], "PREFILL=0: expected the share of the cluster's nodes the "
                                 "jobs before the window fill first, above 0 and at most 1"),
            (["--prefill", "1.5"], "PREFILL=1.5: expected the share of the cluster's nodes "
                                   "the jobs before the window fill first, above 0 and at "
                                   "most 1")):
        with pytest.raises(ReplayError) as e:
            parse_args(["--log", path] + bad)
        assert str(e.value) == text
    with pytest.raises(ReplayError) as e:
        make_plan(parse_args(["--log", path, "--prefill", "1"]), logs.read(path), None, 10, 1.0)
    assert str(e.value) == ("PREFILL needs jobs before the window to fill the machine with; "
                            "FIRST=0 has none")


# --- INDIVIDUAL= (the ICPP-W paper's individual runs; tests/individual.bats
# keeps the occupying jobs' placement by tb-alloc) ------------------------------

@pytest.fixture
def individual_log(tmp_path):
    """12 jobs of a 16-node machine: sizes 4 8 2 16 4 1 ... (SWF: id,
    submit, wait, runtime, procs; one core per node)."""
    path = str(tmp_path / "m.swf")
    sizes = (4, 8, 2, 16, 4, 1, 3, 6, 9, 2, 5, 7)
    with open(path, "w") as f:
        f.write("; MaxNodes: 16\n; MaxProcs: 16\n")
        for k, n in enumerate(sizes):
            f.write(f"{k + 1} {k * 100} 0 {1000 + k * 10} {n} -1 -1 {n} 9000 -1 1 1 1 -1 1 "
                    "-1 -1 -1\n")
    log = logs.read(path)

    def plan(*argv):
        args = parse_args(["--log", path, "--comm", "0.5"] + list(argv))
        return make_plan(args, log, None, 16, 1.0)[0]
    return plan


def test_the_windows_first_jobs_that_fit_occupy_and_seeds_draw_of_the_others_fits(
        individual_log):
    plan = individual_log
    p = plan("--individual", "4", "--occupy", "0.5", "--seed", "3")
    occ = [(x["log_id"], x["nodes"]) for x in p if x["prefill"]]
    drawn = [x for x in p if x["chain"]]
    # Half of 16 is 8: job 1 (4 nodes), job 3 (2), job 6 (1); the others do
    # not fit what is left (7 taken, 1 left, no other 1-node job).
    assert occ == [("1", 4), ("3", 2), ("6", 1)]
    # Every drawn job fits the 9 free nodes, chained 1..4, all due at once.
    assert all(x["nodes"] <= 16 - 7 for x in drawn)
    assert ([x["chain"] for x in drawn], {x["offset"] for x in p}, len(drawn)) == \
        ([1, 2, 3, 4], {0.0}, 4)
    assert min(x["runtime"] for x in p if x["prefill"]) >= 365 * 86400
    assert not set(x["log_id"] for x in drawn) & set(i for i, _ in occ)
    # The same SEED draws the same jobs; another SEED others.
    assert [x["log_id"] for x in drawn] == \
        [x["log_id"] for x in plan("--individual", "4", "--seed", "3") if x["chain"]]
    assert [x["log_id"] for x in drawn] != \
        [x["log_id"] for x in plan("--individual", "4", "--seed", "4") if x["chain"]]


def test_submissions_pin_the_occupying_jobs_to_their_nodes_and_chain_the_drawn_ones(
        individual_log, monkeypatch):
    p = individual_log("--individual", "3", "--occupy", "0.5")
    for k, x in enumerate(q for q in p if q["prefill"]):
        x["nodelist"] = f"n{k}"

    class Pool:
        def __init__(self):
            self.next = 100
            self.seen = []

        def submit_all(self, fields, items):
            for f, it in zip(fields, items):
                self.seen.append(f[7])
                self.next += 1
                yield it, self.next

    class Out:
        def write(self, s):
            pass

        def flush(self):
            pass

        def fileno(self):
            return 1

    monkeypatch.setattr(os, "fsync", lambda fd: None)
    pool, submitted = Pool(), {}
    manifest = {"run_id": "R", "t0": 1000.0, "speedup": 1.0, "seed": 0}
    submit_individual(pool, p, submitted, Out(), manifest, None)
    assert " ".join(pool.seen) == ("nodelist=n0 nodelist=n1 nodelist=n2 "
                                   "dependency=after:101:102:103 dependency=afterany:104 "
                                   "dependency=afterany:105")
    # A resumed run submits only what is missing, and still chains.
    del submitted[[x for x in p if x["chain"] == 3][0]["log_id"]]
    pool.seen = []
    submit_individual(pool, p, submitted, Out(), manifest, None)
    assert pool.seen == ["dependency=afterany:105"]


@pytest.mark.parametrize("argv, expect", [
    (["--individual", "0"], "INDIVIDUAL=0: expected the number of jobs"),
    (["--individual", "3", "--occupy", "1"], "OCCUPY=1: expected the share"),
    (["--occupy", "0.5"], "OCCUPY is the share INDIVIDUAL= runs occupy first"),
    (["--individual", "3", "--prefill", "0.5", "--first", "2"],
     "INDIVIDUAL and PREFILL both fill"),
    # Window: jobs 4 (16 nodes) and 5 (4): job 5 occupies, and 16 nodes do
    # not fit the 12 left.
    (["--individual", "3", "--first", "3", "--jobs", "2"],
     "no job of the window fits the 12 nodes"),
])
def test_bad_individual_and_occupy_settings_are_one_line_errors(individual_log, argv, expect):
    with pytest.raises(ReplayError) as e:
        individual_log(*argv)
    assert expect in str(e.value) and "\n" not in str(e.value)
