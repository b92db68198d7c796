"""workloads/bf_cost.py: the emulated backfill's time per tested job, from
a run's sacct.json (hand-worked: ten jobs queued at 0, priorities 100 down
to 91, four of them started by backfill)."""

import json

from workloads import bf_cost
from workloads.sim_validate import backfill_lines


def record(name, prio, start, backfill, eligible=1):
    flags = ["STARTED_ON_BACKFILL" if backfill else "STARTED_ON_SCHEDULE"]
    return {"name": f"run:{name}", "priority": {"number": prio}, "flags": flags,
            "time": {"eligible": eligible, "start": start}}


def sacct():
    """J3 at 1010 from place 2 (J1, J2 above it), J10 at 1040 from place 8
    (J1, J2, J4-J9): one cycle, 30 s over 6 places, 5 s a place. J1 at
    1050 is higher in the queue than J10: a new cycle, no pair. J9 at 3000
    is 1,950 s after J1: past max_gap, no pair. The rest start at 5000 by
    the main scheduler; J2's first record (requeued) is replaced by its
    last; J11 never started."""
    starts = {1: (1050, True), 2: (5000, False), 3: (1010, True), 9: (3000, True),
              10: (1040, True)}
    jobs = [record("J2", 99, 200, True)]
    for k in range(1, 11):
        start, bf = starts.get(k, (5000, False))
        jobs.append(record(f"J{k}", 101 - k, start, bf))
    jobs.append(record("J11", 10, 0, False))
    return {"jobs": jobs}


def test_the_cost_is_the_time_per_place_between_two_starts_of_one_cycle():
    m = bf_cost.measure(sacct(), max_gap=1000)
    assert m["backfilled"] == 4
    assert m["pairs"] == 1
    assert m["cost_s"]["median"] == 5.0
    # Places of the backfilled starts: J1 0, J3 2, J9 6 (J2, J4-J8), J10 8.
    assert (m["places"]["median"], m["places"]["max"]) == (6, 8)


def test_pairs_closer_than_min_places_are_left_out():
    s = sacct()
    # J10 -> J8: place 6 at 1040 (J1, J2, J4-J7), 4 places after J3's 2.
    for j in s["jobs"]:
        if j["name"] == "run:J10":
            j["priority"]["number"] = 92.5
            j["time"]["start"] = 5000
            j["flags"] = ["STARTED_ON_SCHEDULE"]
        if j["name"] == "run:J7":
            j["time"]["start"] = 1040
            j["flags"] = ["STARTED_ON_BACKFILL"]
    m = bf_cost.measure(s, max_gap=1000)
    assert m["pairs"] == 0 and m["cost_s"] is None


def test_the_run_directory_and_validation_md(tmp_path, capsys):
    assert bf_cost.measure_run(str(tmp_path)) is None
    assert bf_cost.main([str(tmp_path)]) == 1
    assert "no sacct.json" in capsys.readouterr().err
    (tmp_path / "sacct.json").write_text(json.dumps(sacct()))
    assert bf_cost.main([str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["cost_s"]["median"] == 5.0
    lines = backfill_lines(bf_cost.measure_run(str(tmp_path)), {"sim": {"bf_cost_s": 3}})
    assert "4 jobs started by it" in lines[1]
    assert "`SIM_BF_COST=5.00`" in lines[1] and "this twin: 3" in lines[1]
    assert backfill_lines(None, {}) == []
