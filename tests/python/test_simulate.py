"""make simulate (workloads/simulate.py): a log on the twin (tb-sim, built
by make test before pytest) gives a replay's run directory that make
report reads unchanged, marked simulated, with the twin's schedule."""

import csv
import json
import os

import pytest

from metrics.report import report
from workloads import simulate
from workloads.registry import build_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def log(tmp_path):
    """Six jobs for the 32-node tiny: a full-machine job first, so the
    others wait for it (SWF, one core per node)."""
    path = str(tmp_path / "six.swf")
    jobs = [(0, 1000, 32), (10, 500, 8), (20, 500, 8), (30, 300, 16), (40, 100, 4),
            (5000, 200, 2)]
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 32\n")
        for k, (submit, run, n) in enumerate(jobs):
            f.write(f"{k + 1} {submit} 0 {run} {n} -1 -1 {n} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
    return path


@pytest.mark.skipif(not os.access(os.path.join(build_dir(ROOT), "tb-sim"), os.X_OK),
                    reason="tb-sim not built (make -C plugins tools)")
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


def test_core_level_and_unknown_clusters_are_one_line(log, tmp_path, capsys):
    base = ["--log", log, "--root", ROOT, "--results", str(tmp_path / "runs")]
    assert simulate.main(base + ["--cluster", "atlantis"]) == 1
    assert "unknown CLUSTER 'atlantis'" in capsys.readouterr().err
    assert simulate.main(base + ["--cluster", "tiny", "--granularity", "core"]) == 1
    assert "GRANULARITY=core" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "runs") or not os.listdir(tmp_path / "runs")


@pytest.mark.skipif(not os.access(os.path.join(build_dir(ROOT), "tb-sim"), os.X_OK),
                    reason="tb-sim not built (make -C plugins tools)")
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


@pytest.mark.skipif(not os.access(os.path.join(build_dir(ROOT), "tb-sim"), os.X_OK),
                    reason="tb-sim not built (make -C plugins tools)")
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
