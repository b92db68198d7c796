"""metrics.paired: two runs of one plan compared job by job; the split of
the counted totals' difference worked by hand on six jobs."""

import csv
import os

import pytest

from metrics import paired
from metrics.run_dir import ReportError

COLUMNS = ["job_id", "log_job_id", "nodes", "submit", "start", "wait_s", "fault"]


def run(tmp_path, name, jobs, plan="log_id\n1\n2\n3\n4\n5\n6\n"):
    """A run directory: plan.tsv and jobs.csv of (log id, nodes, submit,
    start, fault) rows, times in hours."""
    d = tmp_path / name
    d.mkdir()
    (d / "plan.tsv").write_text(plan)
    with open(d / "jobs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for i, (log_id, nodes, submit, start, fault) in enumerate(jobs):
            w.writerow([100 + i, log_id, nodes, submit * 3600, start * 3600,
                        (start - submit) * 3600, fault])
    return str(d)


# Waits (h): A 1, 2, 3, 4, 5(late_launch), 6; B 1, 2, 13(not_launched), 4, 25, 6.
A_JOBS = [("1", 8, 0, 1, ""), ("2", 8, 1, 3, ""), ("3", 1, 2, 5, ""),
          ("4", 512, 3, 7, ""), ("5", 1, 4, 9, "late_launch"), ("6", 8, 5, 11, "")]
B_JOBS = [("1", 8, 0, 1, ""), ("2", 8, 1, 3, ""), ("3", 1, 2, 15, "not_launched"),
          ("4", 512, 3, 7, ""), ("5", 1, 4, 29, ""), ("6", 8, 5, 11, "")]


def test_the_counted_totals_difference_is_split_exactly(tmp_path):
    a = paired.read_waits(run(tmp_path, "a", A_JOBS))
    b = paired.read_waits(run(tmp_path, "b", B_JOBS))
    p = paired.pair(a, b)
    # A counts 1,2,3,4,6: 1+2+3+4+6 = 16 h; B counts 1,2,4,5,6: 1+2+4+25+6 = 38 h.
    assert p["counted"] == {"a": 5, "b": 5, "total_a_h": 16.0, "total_b_h": 38.0}
    assert p["only_b"] == {"jobs": 1, "wait_b_h": 25.0, "flags_a": ["late_launch"]}
    assert p["only_a"] == {"jobs": 1, "wait_a_h": 3.0, "flags_b": ["not_launched"]}
    assert p["common"] == {"jobs": 4, "total_a_h": 13.0, "total_b_h": 13.0}
    assert (p["only_b"]["wait_b_h"] - p["only_a"]["wait_a_h"]
            + p["common"]["total_b_h"] - p["common"]["total_a_h"]
            == p["counted"]["total_b_h"] - p["counted"]["total_a_h"])
    # Every job, flagged ones too: 21 h -> 51 h.
    assert p["all"] == {"jobs": 6, "total_a_h": 21.0, "total_b_h": 51.0}
    assert p["moved"] == 2 and p["moved_10x"] == 1 and p["max_moved_h"] == 20.0
    assert [j["log_id"] for j in p["largest"][:2]] == ["5", "3"]
    # Job 3 (start 5 h in A) moved 10 h, job 5 (start 9 h) 20 h: the first by A's start.
    assert p["first_moved"] == {"log_id": "3", "nodes": 1, "start_a_h": 5.0, "start_b_h": 15.0}
    # Six jobs in tenths by submission; the last (job 6) moved nothing.
    assert sum(t["jobs"] for t in p["tenths"]) == 6
    assert p["tenths"][-1]["diff_mean_h"] == 0.0


def test_a_start_moved_less_than_part_h_is_not_where_the_schedules_part(tmp_path):
    a = paired.read_waits(run(tmp_path, "a", A_JOBS))
    b = paired.read_waits(run(tmp_path, "b", B_JOBS))
    p = paired.pair(a, b, moved_s=3600.0, part_s=15 * 3600.0)
    assert p["first_moved"]["log_id"] == "5"
    assert paired.pair(a, b, part_s=30 * 3600.0)["first_moved"] is None


def test_the_command_prints_the_split_and_refuses_different_plans(tmp_path, capsys):
    ra, rb = run(tmp_path, "a", A_JOBS), run(tmp_path, "b", B_JOBS)
    assert paired.main([ra, rb]) == 0
    out = capsys.readouterr().out
    assert "16.0 h -> 38.0 h (+137.500 %)" in out
    assert "+25.0 h of 1 jobs counted by B only (flagged in A: late_launch)" in out
    assert "+0.0 h over the 4 jobs both count" in out
    other = run(tmp_path, "c", B_JOBS, plan="log_id\n1\n2\n3\n4\n5\n7\n")
    assert paired.main([ra, other]) == 1
    err = capsys.readouterr().err.strip()
    assert "different plan.tsv" in err and len(err.splitlines()) == 1
    assert paired.main([ra, rb, "--moved-h", "0"]) == 2


def test_a_run_without_jobs_csv_is_one_line(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    with pytest.raises(ReportError, match="no jobs.csv"):
        paired.read_waits(str(d))
    assert not os.path.exists(d / "jobs.csv")
