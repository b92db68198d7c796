"""make simulate (workloads/simulate.py): a log on the twin (tb-sim, built
by make test before pytest) gives a replay's run directory that make
report reads unchanged, marked simulated, with the twin's schedule."""

import csv
import json
import os

import pytest

from metrics.report import report
from workloads import simulate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def log(six_job_swf):
    """conftest's six jobs for the 32-node tiny: a full-machine job first,
    so the others wait for it."""
    return six_job_swf


@pytest.mark.needs_tb_sim
def test_a_simulated_run_is_a_replays_directory_and_says_so(log, tmp_path, capsys):
    rc = simulate.main(["--cluster", "tiny", "--log", log, "--policy", "greedy", "--root", ROOT,
                        "--results", str(tmp_path / "runs"), "--comm", "1"])
    assert rc == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    run_dir = str(tmp_path / "runs" / run_id)
    for f in ("plan.tsv", "topology.json", "manifest.json", "sacct.json", "sim.tsv"):
        assert os.path.exists(os.path.join(run_dir, f)), f
    with open(os.path.join(run_dir, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["engine"] == "sim" and manifest["finished"] and manifest["jobs"] == 6
    # The replay's readings too (one builder: test_run_manifest.py).
    assert (manifest["sizes"], manifest["limits"], manifest["matrix"]) == ("logged", "ours", None)
    with open(os.path.join(run_dir, "sim.tsv")) as f:
        rows = {r["log_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    # The 32-node job holds the machine 0-1000; the next ones wait for it.
    assert float(rows["1"]["start"]) == 0 and float(rows["1"]["end"]) == 1000
    assert float(rows["2"]["start"]) == 1000
    m, missing = report(run_dir, None, None)
    assert not missing and m["jobs"] == 6 and m["valid"]
    assert m["wait_mean_s"] == pytest.approx(
        sum(float(r["start"]) - float(r["eligible"]) for r in rows.values()) / 6)
    with open(os.path.join(run_dir, "summary.md")) as f:
        assert "**Simulated:**" in f.read()


@pytest.mark.needs_registry
def test_unknown_clusters_are_one_line(log, tmp_path, capsys):
    base = ["--log", log, "--root", ROOT, "--results", str(tmp_path / "runs")]
    assert simulate.main(base + ["--cluster", "atlantis"]) == 1
    assert "unknown CLUSTER 'atlantis'" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "runs") or not os.listdir(tmp_path / "runs")


@pytest.mark.needs_tb_sim
def test_core_level_shares_nodes_and_counts_cpus(tmp_path):
    """GRANULARITY=core on tiny (32 nodes of 4 cores; the log's 4 processors
    a node are its cores, so each job asks for its processors as cores):
    126 cores leave 2 free on one node, where the 2-core job starts at once;
    the 4-core job waits for the first's end (4 cores free only then). sacct.json gives each job its
    cores (partition cores) and a core-level record, and make report counts
    utilization in CPUs over the machine's 128."""
    path = str(tmp_path / "cores.swf")
    jobs = [(0, 1000, 126), (10, 500, 2), (20, 300, 4)]
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 128\n")
        for k, (submit, run, n) in enumerate(jobs):
            f.write(f"{k + 1} {submit} 0 {run} {n} -1 -1 {n} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
    rc = simulate.main(["--cluster", "tiny", "--log", path, "--policy", "tm-i", "--root", ROOT,
                        "--results", str(tmp_path / "runs"), "--comm", "1",
                        "--sparsity", "0.5", "--granularity", "core"])
    assert rc == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    run_dir = str(tmp_path / "runs" / run_id)
    with open(os.path.join(run_dir, "sim.tsv")) as f:
        rows = {r["log_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    assert [rows[k]["ranks"] for k in "123"] == ["126", "2", "4"]
    # (Runtimes by TreeMatch's law: the first ends a little before 1000.)
    assert [float(rows[k]["start"]) for k in "12"] == [0, 10]
    assert float(rows["3"]["start"]) == float(rows["1"]["end"]) > 900
    # The 2-core job runs on a node of the first job's (its 2 free cores).
    assert rows["2"]["nodes"] in rows["1"]["nodes"].split(",")
    assert len(rows["1"]["nodes"].split(",")) == 32
    with open(os.path.join(run_dir, "sacct.json")) as f:
        sacct = {j["name"].split(":")[1]: j for j in json.load(f)["jobs"]}
    cpu = {k: next(x["count"] for x in j["tres"]["allocated"] if x["type"] == "cpu")
           for k, j in sacct.items()}
    assert cpu == {"1": 126, "2": 2, "3": 4}
    assert all(j["partition"] == "cores" for j in sacct.values())
    comment = sacct["2"]["comment"]["administrator"]
    assert "granularity=core" in comment and "policy=tm-i" in comment
    assert "matrix_ranks=2" in comment and "cost=" not in comment
    m, missing = report(run_dir, None, os.path.join(run_dir, "topology.json"))
    assert not missing and m["jobs"] == 3
    run = {k: float(rows[k]["end"]) - float(rows[k]["start"]) for k in rows}
    makespan = max(float(r["end"]) for r in rows.values())
    assert m["utilization"] == pytest.approx(
        sum(cpu[k] * run[k] for k in rows) / (128 * makespan))


@pytest.mark.needs_tb_sim
def test_limits_none_runs_on_the_twin_as_slurm_records_no_limit(log, tmp_path):
    """LIMITS=none (plan limit 0): the twin plans a year, as Slurm's backfill
    does, and sacct.json says what Slurm's sacct says: UNLIMITED for a job
    the main scheduler started, 525,600 min for one backfill started."""
    rc = simulate.main(["--cluster", "tiny", "--log", log, "--policy", "greedy", "--root", ROOT,
                        "--results", str(tmp_path / "runs"), "--limits", "none"])
    assert rc == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    run_dir = str(tmp_path / "runs" / run_id)
    with open(os.path.join(run_dir, "sim.tsv")) as f:
        rows = {r["log_id"]: r for r in csv.DictReader(f, delimiter="\t")}
    assert all(r["state"] == "COMPLETED" for r in rows.values())
    with open(os.path.join(run_dir, "sacct.json")) as f:
        jobs = json.load(f)["jobs"]
    for j in jobs:
        log_id = j["name"].split(":")[1]
        want = ({"set": True, "infinite": False, "number": 525600}
                if rows[log_id]["backfilled"] == "1" else
                {"set": True, "infinite": True, "number": 0})
        assert j["time"]["limit"] == want
    assert simulate.sacct_limit(12, True) == {"set": True, "infinite": False, "number": 12}
    assert simulate.sacct_limit(0, True)["number"] == 525600


@pytest.mark.needs_tb_sim
def test_a_core_level_prefill_run_validates_on_the_twin(tmp_path, twin_of_emulation):
    """make simulate RUN= on a core-level run with PREFILL (as
    treematch-curie's): a twin run standing in for the emulation's (its
    engine fields dropped) is re-run from its own plan.tsv and compared;
    the same plan on the same twin differs in nothing. The first set (log
    job 1, whole nodes) fills tiny; the window's jobs of cores follow."""
    path = str(tmp_path / "cores.swf")
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 128\n")
        for k, (submit, run, n) in enumerate([(0, 1000, 126), (10, 500, 2), (20, 300, 4)]):
            f.write(f"{k + 1} {submit} 0 {run} {n} -1 -1 {n} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
    runs = tmp_path / "runs"
    assert simulate.main(["--cluster", "tiny", "--log", path, "--policy", "tm-a", "--root", ROOT,
                          "--results", str(runs), "--comm", "1", "--sparsity", "0.5",
                          "--granularity", "core", "--first", "1", "--prefill", "1"]) == 0
    (run_id,) = os.listdir(runs)
    emu = str(runs / run_id)
    with open(os.path.join(emu, "plan.tsv")) as f:
        plan = list(csv.DictReader(f, delimiter="\t"))
    assert [(p["prefill"], p["ranks"]) for p in plan] == [("1", "0"), ("0", "2"), ("0", "4")]
    with open(twin_of_emulation(emu, ROOT) / "validation.json") as f:
        v = json.load(f)
    by = {r["metric"]: r for r in v["metrics"]}
    assert by["makespan_s"]["emulation"] > 1000
    assert all(r["difference_percent"] in (0, None) for r in v["metrics"])


def test_bf_max_time_is_the_generated_slurm_confs_in_log_seconds():
    """SIM_BF_COST's cut (tb-sim --bf-max-time): slurm_conf.py's clock_settings
    sets bf_max_time to the rate (Slurm s, at most Slurm's 3,600) under the virtual
    clock; otherwise Slurm's default, bf_interval, 1 Slurm s = SPEEDUP log s."""
    assert simulate.bf_max_time_log({"clock": "virtual", "clock_rate": 1000.0,
                                     "speedup": 1.0}) == 1000
    assert simulate.bf_max_time_log({"clock": "virtual", "clock_rate": 100000.0,
                                     "speedup": 1.0}) == 3600
    assert simulate.bf_max_time_log({"clock": "virtual", "clock_rate": 1.0,
                                     "speedup": 1.0}) == 1
    assert simulate.bf_max_time_log({"clock": "scaled", "clock_rate": None,
                                     "speedup": 100.0}) == 100


@pytest.mark.needs_tb_sim
def test_sim_bf_cost_reaches_the_twin_and_the_manifest(log, tmp_path, capsys):
    """SIM_BF_COST: tb-sim gets --bf-cost and the run's --bf-max-time, the
    manifest records it, and a cost that is negative is one line."""
    base = ["--cluster", "tiny", "--log", log, "--policy", "greedy", "--root", ROOT,
            "--results", str(tmp_path / "runs")]
    assert simulate.main(base + ["--bf-cost", "-1"]) == 1
    assert "SIM_BF_COST=-1" in capsys.readouterr().err
    assert simulate.main(base + ["--bf-cost", "3"]) == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    with open(tmp_path / "runs" / run_id / "manifest.json") as f:
        sim = json.load(f)["sim"]
    assert sim["bf_cost_s"] == 3
    assert "--bf-cost 3 --bf-max-time 1000" in sim["command"]


@pytest.mark.needs_tb_sim
def test_sim_costs_give_every_named_policys_same_state_cost_as_the_plugins_record(log, tmp_path):
    """SIM_COSTS (--costs): each recorded job's AdminComment carries
    cost_<policy> of every policy named, once, from the twin's costs column,
    as the plugin's record does for every policy; what the same-state
    tables (Figure 8, Table 4) read. Without it, only the run's own."""
    def run(extra, results):
        assert simulate.main(["--cluster", "tiny", "--log", log, "--policy", "default1905",
                              "--root", ROOT, "--results", str(results), "--comm", "1"]
                             + extra) == 0
        (run_id,) = os.listdir(results)
        run_dir = str(results / run_id)
        with open(os.path.join(run_dir, "sim.tsv")) as f:
            rows = {r["log_id"]: r for r in csv.DictReader(f, delimiter="\t")}
        with open(os.path.join(run_dir, "sacct.json")) as f:
            comments = {j["name"].split(":")[1]: j["comment"]["administrator"]
                        for j in json.load(f)["jobs"]}
        return run_dir, rows, comments

    run_dir, rows, comments = run(["--costs", "greedy, balanced,default1905,default"],
                                  tmp_path / "with")
    assert rows and all(r["costs"].startswith("greedy=") for r in rows.values())
    for log_id, r in rows.items():
        costs = dict(kv.split("=") for kv in r["costs"].split(","))
        assert list(costs) == ["greedy", "balanced", "default1905", "default"]
        assert costs["default1905"] == r["cost"] and costs["default"] == r["cost_default"]
        keys = [kv.split("=")[0] for kv in comments[log_id].split(";")]
        assert len(keys) == len(set(keys)), comments[log_id]
        assert f"cost_greedy={costs['greedy']}" in comments[log_id].split(";")
        assert f"cost_balanced={costs['balanced']}" in comments[log_id].split(";")
    m, missing = report(run_dir, None, None)
    assert not missing and m["valid"]
    _, rows, comments = run([], tmp_path / "without")
    assert all(r["costs"] == "" for r in rows.values())
    assert not any("cost_greedy" in c for c in comments.values())


def test_both_records_end_with_the_matrix_the_fallback_and_the_engine():
    """admin_comment at node and at core level (commtree_eval.c's and
    commtree_cores.c's records): a job with a traffic matrix names its
    ranks (node level: the plan's, else its nodes; core level: tb-sim's)
    and hop-bytes, then the fallback, then engine=sim."""
    row = {"recorded": "1", "ranks": "0", "policy": "greedy", "cost": "5", "cost_default": "6",
           "denominator": "default", "cost_denominator": "6", "costs": "",
           "runtime_base": "12.5", "runtime_scaled": "13", "runtime_fallback": "",
           "hop_bytes": "100", "hop_bytes_default": "120", "fallback": "leaf"}
    entry = {"comm": 1, "pattern": "rd", "comm_percent": 40.0, "matrix_density": 0.5,
             "ranks": 0, "nodes": 4}
    assert simulate.admin_comment(row, entry) == (
        "policy=greedy;comm=1;pattern=rd;comm_percent=40;cost=5;cost_default=6;"
        "cost_greedy=5;denominator=default;runtime_base=12.5;runtime_scaled=13;"
        "matrix_ranks=4;hop_bytes=100;hop_bytes_default=120;fallback=leaf;engine=sim")
    assert simulate.admin_comment(dict(row, ranks="8", runtime_base="0"), entry) == (
        "policy=greedy;granularity=core;comm=1;pattern=rd;comm_percent=40;"
        "matrix_ranks=8;hop_bytes=100;hop_bytes_default=120;fallback=leaf;engine=sim")
    assert simulate.admin_comment(dict(row, fallback=""), dict(entry, matrix_density=0.0)) == (
        "policy=greedy;comm=1;pattern=rd;comm_percent=40;cost=5;cost_default=6;"
        "cost_greedy=5;denominator=default;runtime_base=12.5;runtime_scaled=13;engine=sim")
