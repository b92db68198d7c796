"""workloads.sim_sensitivity: a run's plan on the twin with one job's end,
or every job's, moved; the moves worked by hand on six jobs."""

import os

import pytest

from workloads import sim_sensitivity, simulate
from workloads.replay.errors import ReplayError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PLAN = "log_id\toffset\truntime\tnodes\n1\t0\t1000.0\t32\n2\t10\t500.0\t8\n"


def test_perturbed_moves_one_jobs_runtime_only():
    out = sim_sensitivity.perturbed(PLAN, "2", 5)
    assert out.split("\n")[2] == "2\t10\t505.000\t8"
    assert out.split("\n")[:2] == PLAN.split("\n")[:2]
    with pytest.raises(ReplayError, match="no job 3"):
        sim_sensitivity.perturbed(PLAN, "3", 5)
    with pytest.raises(ReplayError, match="is not > 0"):
        sim_sensitivity.perturbed(PLAN, "2", -500)


def test_the_summaries():
    s = sim_sensitivity.one_summary([("a", 10.0, 0.0, 0), ("b", 11.0, 10.0, 5),
                                     ("c", 9.0, -10.0, 1)], 3600)
    assert (s["tried"], s["cascades"], s["min_percent"], s["max_percent"]) == (3, 1, -10.0, 10.0)
    assert s["moved_max"] == 5
    fit = sim_sensitivity.lag_summary([(0, 100.0), (10, 110.0), (20, 120.0)])
    assert fit["slope_h_per_s"] == pytest.approx(1.0) and fit["scatter_h"] == pytest.approx(0.0)
    assert sim_sensitivity.lag_summary([(0, 100.0)]) is None


@pytest.fixture
def run_dir(tmp_path, six_job_swf):
    """Six jobs on the 32-node tiny, simulated (as test_simulate): a
    full-machine job 0-1000 s; jobs 2-4 (8+8+16 nodes) start at its end,
    job 5 (4 nodes) when job 4 (300 s) ends, job 6 alone at 5000 s."""
    path = six_job_swf
    assert simulate.main(["--cluster", "tiny", "--log", path, "--policy", "default1905",
                          "--root", ROOT, "--results", str(tmp_path / "runs")]) == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    return str(tmp_path / "runs" / run_id)


@pytest.mark.needs_tb_sim
def test_moving_the_full_machine_jobs_end_moves_the_four_behind_it(run_dir):
    twin = sim_sensitivity.Twin(run_dir)
    try:
        base = twin.waits()
        assert base == {"1": 0, "2": 990, "3": 980, "4": 970, "5": 1260, "6": 0}
        # Job 1 ends 10 s later: jobs 2-4 start 10 s later, job 5 too (job 4
        # ends 10 s later); job 6 is alone.
        w = twin.waits(sim_sensitivity.perturbed(twin.plan_text, "1", 10))
        assert {k: w[k] - base[k] for k in base} == {"1": 0, "2": 10, "3": 10, "4": 10,
                                                     "5": 10, "6": 0}
        assert sim_sensitivity.effect(base, w, 5)[2] == 4
        # Every end 10 s later: job 5 also waits for job 4's own lag (+20).
        w = twin.waits(lag=10)
        assert w["2"] - base["2"] == 10 and w["5"] - base["5"] == 20
    finally:
        twin.close()
    assert not os.path.exists(twin.dir)


@pytest.mark.needs_tb_sim
def test_the_command_prints_both_studies_and_writes_nothing_in_the_run(run_dir, capsys):
    before = sorted(os.listdir(run_dir))
    assert sim_sensitivity.main([run_dir, "--one", "10", "--jobs", "6", "--lags", "0,10,20",
                                 "--moved-h", "0.001"]) == 0
    out = capsys.readouterr().out
    assert "6 jobs under default1905" in out and "total wait 1 h" in out
    assert "one job's end +10 s, 6 jobs (seed 1): 1 moved more than one job's wait" in out
    assert "every end +20 s:" in out and "slope" in out
    assert sorted(os.listdir(run_dir)) == before
    assert sim_sensitivity.main([run_dir]) == 1
    assert "nothing to do" in capsys.readouterr().err
