"""metrics.overruns: later jobs started past a reserved job's recorded
planned start, classified (beyond bf_window / within with room / within
without), worked by hand on eight jobs of an 8-node machine."""

import csv
import json
import os

import pytest

from metrics import overruns
from metrics.run_dir import ReportError

T0 = 1000.0

# (log id, nodes, submit, start, end, limit min), in plan (priority) order.
# A holds 6 nodes to its limit end 6,000 s; B (4 nodes) is planned there.
# C and D start on the 2 free nodes past 6,000 s, within bf_window, with
# room at 6,000 s for B beside them (backfill reserves 4 of 8 nodes). After
# B starts, E (the whole machine) is planned at B's limit end, 9,000 s; F
# starts past it with no room (E needs every node): F's limit end becomes
# E's plan, 123,010 s, and G starts past that 119,980 s ahead, beyond the
# 86,400-s window. H was submitted before E: not E's to delay.
JOBS = [("A", 6, 0, 0, 3000, 100),
        ("B", 4, 1, 3000, 3500, 100),
        ("C", 1, 2, 10, 2000, 2000),
        ("D", 1, 3, 20, 3200, 100),
        ("H", 1, 3.5, 3040, 3300, 2000),
        ("E", 8, 4, 3500, 3600, 10),
        ("F", 1, 5, 3010, 3100, 2000),
        ("G", 1, 6, 3030, 3200, 2000)]
# Slurm time, log id, planned start (epoch s).
RECORDS = [(5, "B", 6000), (3001, "E", 9000), (3020, "E", 123010)]


def run_dir(tmp_path, records=RECORDS, jobs=JOBS):
    d = tmp_path / "run"
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps({"t0": T0, "cluster_nodes": 8,
                                                 "speedup": 1.0}))
    with open(d / "plan.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["log_id", "offset", "nodes", "limit_min"])
        for log_id, nodes, submit, _, _, limit in jobs:
            w.writerow([log_id, submit, nodes, limit])
    with open(d / "jobs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "log_job_id", "nodes", "submit", "start", "end"])
        for i, (log_id, nodes, submit, start, end, _) in enumerate(jobs):
            w.writerow([i + 1, log_id, nodes, submit, start, end])
    (d / "reservations.tsv").write_text(
        "".join(f"{T0 + t:.3f}\t{b}\t{T0 + c:.0f}\n" for t, b, c in records))
    return str(d)


def test_each_overrun_is_classified_as_worked_by_hand(tmp_path):
    p = overruns.summary(overruns.read_run(run_dir(tmp_path)))
    got = {o["k"]: (o["b"], o["class"]) for o in p["list"]}
    assert got == {"C": ("B", "within, room"), "D": ("B", "within, room"),
                   "F": ("E", "within, none"), "G": ("E", "beyond")}
    assert p["by_class"] == {"beyond": 1, "within, room": 2, "within, none": 1}
    assert p["overruns"] == 4 and p["reserved_jobs"] == 2
    # D still ran when B started (on another node); C, F and G had ended.
    assert p["still_running_at_reserved_start"] == 1
    # Planned start - start: C 5,990 s, D 5,980, F 5,990, G 119,980 (median the third).
    assert p["ahead_h"] == pytest.approx((5980 / 3600, 5990 / 3600, 119980 / 3600))


def test_a_wider_bf_window_turns_beyond_into_within(tmp_path):
    p = overruns.summary(overruns.read_run(run_dir(tmp_path)), bf_window_min=2000)
    # G at 3,030 s: c - s = 119,980 s <= 120,000; E (8 nodes) has no room.
    assert p["by_class"] == {"beyond": 0, "within, room": 2, "within, none": 2}


def test_the_runs_own_bf_window_is_the_default(tmp_path):
    """A run made with BF_WINDOW=2000 (manifest bf_window_min) is
    classified against its own window unless told another."""
    d = run_dir(tmp_path)
    m = json.loads(open(os.path.join(d, "manifest.json")).read())
    m["bf_window_min"] = 2000
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(m, f)
    run = overruns.read_run(d)
    assert overruns.summary(run)["by_class"]["beyond"] == 0
    assert overruns.summary(run)["bf_window_min"] == 2000
    assert overruns.summary(run, bf_window_min=1440)["by_class"]["beyond"] == 1


def test_a_job_that_holds_its_nodes_to_the_planned_start_within_a_second_leaves_room(tmp_path):
    # A started 0.4 s after t0: its limit end, 6,000.4 s from t0, is B's
    # planned start 6,000 in Slurm's whole seconds (jobs.csv keeps t0's
    # fraction). Counted as held past it, A's 6 nodes would leave no room.
    jobs = [j if j[0] != "A" else ("A", 6, 0, 0.4, 3000, 100) for j in JOBS]
    p = overruns.summary(overruns.read_run(run_dir(tmp_path, jobs=jobs)))
    assert {o["k"]: o["class"] for o in p["list"] if o["b"] == "B"} == {
        "C": "within, room", "D": "within, room"}


def test_the_will_run_plan_takes_the_running_jobs_in_batches():
    # 48 nodes free, a 64-node job: ends 1,000 (8 nodes), 1,016 (8), 1,022,
    # 1,032, 1,036, 1,040 (64 each), 1,069 (64). The first end's 30-s
    # boundary is 1,020; the batch takes every end up to 1,020 + 30: the
    # plan is 1,040, though 64 nodes are free at 1,016 (B's 164891 at
    # 68,618 s: the recorded 128,044, then 128,068 after a later job).
    ends = [(1000, 8), (1016, 8), (1022, 64), (1032, 64), (1036, 64), (1040, 64),
            (1069, 64)]
    assert overruns.batched_plan(ends, 48, 64) == 1040
    # Not enough after a batch: the window doubles (30, 60, 120) until the
    # next end is inside it, and that batch takes 1,130 with 1,100.
    assert overruns.batched_plan([(1000, 8), (1100, 8), (1130, 8)], 0, 16) == 1130
    assert overruns.batched_plan([(1000, 8), (1100, 8), (1300, 8)], 0, 24) == 1300
    assert overruns.batched_plan([(1000, 8)], 0, 16) is None
    assert overruns.batched_plan([(1000, 8)], 16, 16) is None


def test_a_later_job_beside_the_batched_plan_has_room(tmp_path):
    # 16 nodes: P holds 6 to 7,000 s (t0 + its limit end), Q 8 to 7,010;
    # R (8 nodes) is planned at 7,000 (the 2 free + P's 6). K takes the 2
    # free nodes at 20 s, past it: at 7,000 R would need K's nodes (8 free
    # beside K, 2 short); Slurm's batch takes Q's end too (7,010 <= the
    # boundary 7,020 + 30), so R's plan is 7,010 on 8 of the 14 nodes
    # free beside K: room.
    jobs = [("P", 6, 0, 0, 3000, 100), ("Q", 8, 0.5, 10, 3000, 100),
            ("R", 8, 1, 3000, 3500, 100), ("K", 2, 2, 20, 2000, 2000)]
    d = run_dir(tmp_path, records=[(5, "R", 6000)], jobs=jobs)
    with open(f"{d}/manifest.json", "w") as f:
        json.dump({"t0": T0, "cluster_nodes": 16, "speedup": 1.0}, f)
    p = overruns.summary(overruns.read_run(d))
    assert [(o["k"], o["class"]) for o in p["list"]] == [("K", "within, room")]


def test_no_limit_is_a_year_as_backfill_takes_it(tmp_path):
    # LIMITS=none: limit_min 0, no --time under MaxTime=INFINITE.
    jobs = [j if j[0] != "G" else ("G", 1, 6, 3030, 3200, 0) for j in JOBS]
    run = overruns.read_run(run_dir(tmp_path, jobs=jobs))
    assert run["jobs"]["G"]["limit"] == 365 * 24 * 3600
    assert {o["k"]: o["class"] for o in overruns.summary(run)["list"]}["G"] == "beyond"


def test_a_bad_record_is_named(tmp_path):
    d = run_dir(tmp_path)
    with open(f"{d}/reservations.tsv", "a") as f:
        f.write("1795740224.0\t165131\n")
    with pytest.raises(ReportError, match=r"reservations.tsv:4: expected <time> <log id>"):
        overruns.read_run(d)


def test_a_run_without_reservations_is_refused(tmp_path, capsys):
    d = run_dir(tmp_path)
    (tmp_path / "run" / "reservations.tsv").unlink()
    assert overruns.main([d]) == 1
    assert "no reservations.tsv" in capsys.readouterr().err


def test_the_command_prints_the_classes(tmp_path, capsys):
    assert overruns.main([run_dir(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "4 later jobs started past the recorded planned start of 2 reserved jobs" in out
    assert "beyond bf_window (no reservation): 1" in out
    assert "within, none: F at 3010 s past E's 9000 s" in out
