"""A RESUME's end guard (review L2): each part of a run reads the run's
launch file and jobcomp records from their start, so the lags are the
whole run's, while what a part did (windows, their wall time, give-ups)
is added to the earlier parts' in the manifest (endguard.accumulate), not
put in their place."""

import time

import pytest

from workloads import endguard
from workloads.replay.pacing import RateArbiter

T = 1_800_000_000


def record(jid, start, end, run="R"):
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
    return (f"JobId={jid} UserId=root(0) GroupId=root(0) Name={run}:{jid} "
            f"JobState=COMPLETED Partition=main TimeLimit=60 StartTime={iso(start)} "
            f"EndTime={iso(end)} NodeList=n1 NodeCnt=1 ProcCnt=4\n")


@pytest.fixture
def wall(frozen):
    """The wall clock the parts share (conftest's stopped one)."""
    return frozen


class Part:
    """One part of a run: a new EndGuard (rate 1000 slowing to 100, 3 s
    ahead) on the run's files, as the driver makes one per part."""

    def __init__(self, tmp_path, wall):
        self.wall = wall
        self.t = T
        self.rates = []
        arbiter = RateArbiter(1000.0, self.rates.append)
        self.g = endguard.EndGuard(
            str(tmp_path / "launched-R.tsv"), str(tmp_path / "jobcomp.txt"), "R", 1000.0,
            100.0, 3.0, arbiter.setter("end"),
            lambda: (wall.monotonic_ns(), int(self.t * 1e9), 1000.0), print,
            set_wall=0.0, adapt=False)

    def at(self, t, wall_s=0.0):
        self.t = t
        self.wall.ns += int(wall_s * 1e9)
        self.g.poke()
        return self.g.tick()


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def test_a_resumed_part_adds_its_windows_to_the_first_parts_and_reads_the_whole_runs_lags(
        tmp_path, wall):
    launch, comp = tmp_path / "launched-R.tsv", tmp_path / "jobcomp.txt"
    settings = endguard.new_run(100.0, 3.0, str(comp))
    # part 1: job 1's window (slow 2 wall s), recorded 4 s late
    one = Part(tmp_path, wall)
    one.g.prime()
    append(launch, f"1\t{T}\t{T}.1\t100\n")
    one.at(T + 98)
    assert one.g.slowed()
    append(comp, record(1, T, T + 104))
    one.at(T + 104.5, wall_s=2.0)
    assert not one.g.slowed()
    one.g.stop()
    m = endguard.accumulate(settings, one.g.summary(settings))
    assert m["windows"] == 1 and m["slow_wall_s"] == 2.0 and m["ends"] == 1
    assert m["recorded_before_window"] == 0 and len(m["parts"]) == 1
    # part 2 (a RESUME): job 1's line and record are read again, before
    # any window of this part; job 2 (cancelled: recorded before its
    # window) and job 3's window (slow 3 wall s) are the part's own
    two = Part(tmp_path, wall)
    two.g.prime()
    assert two.g.plan.matched == 1 and two.g.early_before == 1
    append(launch, f"2\t{T + 200}\t{T + 200}.1\t500\n3\t{T + 200}\t{T + 200}.1\t100\n")
    append(comp, record(2, T + 200, T + 250))
    two.at(T + 298)
    assert two.g.slowed()
    append(comp, record(3, T + 200, T + 302))
    two.at(T + 303, wall_s=3.0)
    two.g.stop()
    part = two.g.summary(endguard.settings({"end_guard": m}, 3.0))
    assert part["windows"] == 1 and part["recorded_before_window"] == 1
    m = endguard.accumulate(m, part)
    # summed: each part's windows, wall time and early records once
    assert m["windows"] == 2 and m["slow_wall_s"] == 5.0
    assert m["recorded_before_window"] == 1
    # the whole run's lags, read again by part 2: jobs 1 and 3 (job 2
    # ended before its modelled end), not part 1's plus part 2's
    assert m["ends"] == 2 and m["lag_total_s"] == 6.0
    assert [p["windows"] for p in m["parts"]] == [1, 1]
    assert m["enabled"] and m["off_because"] is None and "summed" in m["accumulated"]
    assert m["rate"] == 100.0 and m["jobcomp_offset"] == settings["jobcomp_offset"]


def test_accumulate_keeps_the_max_the_larger_parts_median_give_ups_and_a_part_turned_off():
    first = {"rate": 100.0, "windows": 10, "slow_wall_s": 4.5, "late_windows": 2,
             "slow_at_median_s": -2.5, "slow_at_max_s": 1.0, "given_up": 1,
             "given_up_jobs": [7], "recorded_before_window": 3, "enabled": True,
             "off_because": None, "ends": 40, "lag_median_s": 1, "lag_total_s": 50.0,
             "records_unmatched": 0}
    m = endguard.accumulate({"rate": 100.0}, first)
    assert m["parts"] == [{k: first.get(k) for k in endguard.PART}] and m["windows"] == 10
    # a part that turned itself off at once: read nothing (no ends)
    off = {"rate": 100.0, "windows": 1, "slow_wall_s": 10.0, "late_windows": 0,
           "slow_at_median_s": -3.0, "slow_at_max_s": -3.0, "given_up": 6,
           "given_up_jobs": [7, 8], "recorded_before_window": 0, "enabled": False,
           "off_because": "6 ends in a row were never recorded", "ends": 0,
           "lag_median_s": None, "lag_total_s": 0.0, "records_unmatched": 5}
    m = endguard.accumulate(m, off)
    assert (m["windows"], m["slow_wall_s"], m["late_windows"], m["given_up"]) == (11, 14.5, 2, 7)
    assert m["slow_at_max_s"] == 1.0 and m["slow_at_median_s"] == -2.5
    assert m["given_up_jobs"] == [7, 8] and m["recorded_before_window"] == 3
    assert m["ends"] == 40 and m["lag_total_s"] == 50.0 and m["records_unmatched"] == 0
    assert m["enabled"] is False and m["off_because"] == (
        "part 2: 6 ends in a row were never recorded")
    assert len(m["parts"]) == 2
