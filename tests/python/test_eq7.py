"""Eq. 7 on recorded jobs (metrics/eq7.py), with the values worked out by
hand in tests/experiment.bats's "one Eq. 7" test on
tests/fixtures/experiment/eq7-runs/default1905: the ICPP runs' denominator
(default1905) costs twice default's on job a; compute job b's costs differ
by policy (it keeps its runtime, P:275); c lacks greedy's cost, d the
denominator's. Against the log's runtimes (default1905's):
  a (80 s, f 0.5): greedy 40 + 40 x 6/8 = 70, balanced 60, default 60
  c (20 s, f 0.9): balanced 2 + 18 x 2/4 = 11, default 20, greedy -
  all jobs with a cost (d never, c not for greedy):
  greedy 180 -> 170: 5.5556 %; balanced 200 -> 171: 14.5 %;
  default 200 -> 180: 10 %; comm jobs: 12.5, 29, 20 %."""

import json
import math
import os

import pytest

from metrics import eq7
from metrics.jobs import job_rows

POLICIES = ["default1905", "greedy", "balanced", "default"]


@pytest.fixture
def rows(fixtures):
    run = os.path.join(fixtures, "experiment", "eq7-runs", "default1905")
    with open(os.path.join(run, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(run, "sacct.json")) as f:
        sacct = json.load(f)
    return {r["log_job_id"]: r for r in job_rows(manifest, sacct, {})}


def test_the_fixtures_rows_carry_the_records_costs_and_denominator(rows):
    assert sorted(rows) == ["a", "b", "c", "d"]
    assert all(r["denominator"] == "default1905" for r in rows.values())
    assert rows["a"]["cost_by_policy"]["default1905"] == 8
    assert math.isnan(rows["c"]["cost_by_policy"]["greedy"])
    assert math.isnan(rows["d"]["cost_by_policy"]["default1905"])


def test_runtime_by_hand(rows):
    a, b, c, d = (rows[k] for k in "abcd")
    assert eq7.runtime(a, "greedy") == (70, None)
    assert eq7.runtime(a, "balanced") == (60, None)
    assert eq7.runtime(a, "default") == (60, None)
    assert eq7.runtime(a, "default1905") == (80, None)
    assert eq7.runtime(c, "balanced") == (11, None)
    assert eq7.runtime(c, "default") == (20, None)
    # A compute-intensive job keeps its runtime, whatever the costs.
    assert eq7.runtime(b, "greedy") == (100, None)
    # The log's runtime (no policy).
    assert eq7.runtime(a, None) == (80, None)


def test_a_missing_cost_gives_no_runtime_and_says_why(rows):
    # The plugin recorded NaN: the policy could not place the job there.
    assert eq7.runtime(rows["c"], "greedy") == (None, "no_cost")
    assert eq7.runtime(rows["d"], "balanced") == (None, "no_denominator")
    # A policy the record has no cost of at all (older than the policy).
    assert eq7.runtime(rows["a"], "tm-a") == (None, "not_recorded")


def test_a_denominator_cost_of_0_gives_a_ratio_of_1():
    one_node = {"runtime_base_s": 50.0, "comm": 1, "comm_percent": 50.0,
                "denominator": "default1905",
                "cost_by_policy": {"default1905": 0.0, "greedy": 0.0}}
    assert eq7.runtime(one_node, "greedy") == (50.0, None)


def test_changes_over_all_jobs_and_the_communicating_ones(rows):
    pct, left = eq7.changes(list(rows.values()), POLICIES)
    assert round(pct["greedy"], 4) == 5.5556
    assert pct["balanced"] == pytest.approx(14.5)
    assert pct["default"] == pytest.approx(10.0)
    assert pct["default1905"] == pytest.approx(0.0)
    assert left == {"default1905": ["d"], "greedy": ["c", "d"], "balanced": ["d"],
                    "default": ["d"]}
    comm = [r for r in rows.values() if r["comm"]]
    pct, _ = eq7.changes(comm, POLICIES)
    assert pct["greedy"] == pytest.approx(12.5)
    assert pct["balanced"] == pytest.approx(29.0)
    assert pct["default"] == pytest.approx(20.0)


def test_change_against_a_policy_rather_than_the_logs_runtimes(rows):
    # balanced against default over a, b, c (d has no denominator):
    # 60 + 100 + 20 = 180 -> 60 + 100 + 11 = 171: 5 %.
    pct, left = eq7.change(list(rows.values()), "balanced", "default")
    assert pct == pytest.approx(5.0) and left == ["d"]


def test_no_communicating_job_counted_although_some_ran_is_nan_not_no_change(rows):
    # greedy over c and d alone: both left out; a figure over nothing would
    # read as "no change".
    pct, left = eq7.change([rows["c"], rows["d"]], "greedy")
    assert math.isnan(pct) and left == ["c", "d"]
    # Compute jobs alone: their runtimes are every policy's, 0 %.
    assert eq7.change([rows["b"]], "greedy") == (0.0, [])


def test_the_left_out_jobs_in_one_line(rows):
    _, left = eq7.changes(list(rows.values()), POLICIES)
    assert eq7.left_out_text(left) == (
        "Left out for a missing same-state cost (Eq. 7 cannot be applied; not counted as no "
        "change): default1905 1 (d); greedy 2 (c, d); balanced 1 (d); default 1 (d).")
    assert eq7.left_out_text({}) == ""
    many = {"greedy": [str(k) for k in range(12)]}
    assert eq7.left_out_text(many).endswith("greedy 12 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9 ...).")


def test_records_from_before_the_denominator_was_named_use_default():
    row = {"runtime_base_s": 100.0, "comm": 1, "comm_percent": 50.0, "denominator": "default",
           "cost_by_policy": {"default": 4.0, "greedy": 2.0}}
    assert eq7.runtime(row, "greedy") == (75.0, None)
