"""metrics/end_lag.py: each job's end lag (sacct's elapsed minus the
runtime its script slept) and what it goes with, on a hand-made run of
four jobs (t0 = 1000):

    job  eligible start runtime  end    excess  fault
    1    0        0     100      110    10
    2    0        0     105      140    35
    3    50       120   40       165     5      (pending from 50 to 120)
    4    0        0     10       200   190      late_launch (late_s 150)

Modelled ends (start + runtime): 100, 105, 160, 10. Job 3 was pending at
job 1's (100) and job 2's (105) modelled ends; at 160 nothing was. One
event jump landed at 90 (1090 in the log's epoch)."""

import json

import pytest

from metrics import end_lag

JOBS = [  # job_id, eligible, start, end, runtime, fault
    (1, 0, 0, 110, 100, ""),
    (2, 0, 0, 140, 105, ""),
    (3, 50, 120, 165, 40, ""),
    (4, 0, 0, 200, 10, "late_launch"),
]


@pytest.fixture
def run(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"t0": 1000.0}))
    lines = ["job_id,eligible,start,end,run_s,runtime_scaled_s,fault"]
    lines += [f"{j},{e},{s},{n},{n - s},{r},{f}" for j, e, s, n, r, f in JOBS]
    (tmp_path / "jobs.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "launch.tsv").write_text(
        "log_id\tjob_id\tlaunch_lag_s\tlate_s\n"
        "1\t1\t2.0\t0.000\n2\t2\t3.0\t0.000\n3\t3\t4.0\t0.000\n"
        "4\t4\t160.0\t150.000\n")
    (tmp_path / "replay.log").write_text(
        "02:00:00 plan: 4 jobs\n"
        "02:00:01 event jump: 1030.500 -> 1090.000 (59 s skipped, 2 running)\n")
    return str(tmp_path)


def by_id(feats):
    return {f["job_id"]: f for f in feats}


def test_the_excess_is_elapsed_minus_the_modelled_runtime(run):
    f = by_id(end_lag.analyse(run))
    assert sorted(f) == ["1", "2", "3"]  # the late launch is left out
    assert [f[k]["excess"] for k in ("1", "2", "3")] == [10, 35, 5]


def test_what_goes_with_each_end(run):
    f = by_id(end_lag.analyse(run))
    assert (f["1"]["pending"], f["2"]["pending"], f["3"]["pending"]) == (1, 1, 0)
    # Ends 100 and 105 are within NEAR_S of each other; 160 alone.
    assert (f["1"]["ends_near"], f["2"]["ends_near"], f["3"]["ends_near"]) == (1, 1, 0)
    # Job 3's start (120) is more than NEAR_S from every modelled end.
    assert [f[k]["starts_near"] for k in ("1", "2", "3")] == [0, 0, 0]
    assert (f["1"]["since_jump"], f["3"]["since_jump"]) == (10, 70)
    assert f["2"]["launch_lag"] == 3.0
    # Running at 100: jobs 1 and 2 (job 3 pending, job 4 left out); at
    # 160: job 3 alone.
    assert (f["1"]["running"], f["3"]["running"]) == (2, 1)


def test_totals_split_the_late_launches_from_the_end_lag(run):
    t = end_lag.totals(run)
    assert (t["runtime_s"], t["excess_s"], t["late_s"]) == (245, 50, 0)
    t = end_lag.totals(run, faulted=True)
    assert (t["runtime_s"], t["excess_s"], t["late_s"], t["end_lag_s"]) == (
        255, 240, 150, 90)


def test_spearman_on_ranks_with_ties():
    assert end_lag.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1)
    assert end_lag.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1)
    # Ranks (0.5, 0.5, 2, 3) against (0, 1, 2, 3), both of mean 1.5:
    # sums of products 4.5, of squares 4.5 and 5.
    assert end_lag.spearman([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(
        4.5 / (4.5 * 5) ** 0.5)
    assert end_lag.spearman([1, 1, 1], [1, 2, 3]) != end_lag.spearman(
        [1, 1, 1], [1, 2, 3])  # nan: a constant side


def test_a_directory_without_jobs_csv_is_refused(tmp_path, capsys):
    assert end_lag.main([str(tmp_path)]) == 1
    assert "no jobs.csv" in capsys.readouterr().err


def test_the_report_names_the_run_and_the_split(run):
    text = end_lag.report([run])
    assert "3 jobs, excess median 10.0" in text
    assert "end lag +20.41 %" in text  # 50 of 245 s
