"""The end guard (workloads/endguard.py, workloads/endplan.py) without a
cluster: slurmctld's jobcomp/filetxt lines and the launch file's, the
windows (ends merged, the lead, the rate restored only once the end is
recorded, slurmctld's time zone), the give-up and the guard turning itself
off, the rate both guards share, the guard's thread, on a real clock page
too. Its place in the replay (the options, the slurm.conf lines it needs,
the driver, the manifest, summary.md and the tables):
test_end_guard_wiring.py. The lead measures it on a cluster
(docs/vclock.md#the-end-guard)."""

import shutil
import subprocess
import time

import pytest

from workloads import endguard, endplan
from workloads import vclock
from workloads.replay.errors import ReplayError
from workloads.replay.pacing import RateArbiter, rate_setter


def iso(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch))


def record(jid, name, start, end, state="COMPLETED"):
    """A line as jobcomp/filetxt writes it (jobcomp_filetxt.c, JOB_FORMAT,
    Slurm 24.11.5), empty fields included."""
    return (f"JobId={jid} UserId=root(0) GroupId=root(0) Name={name} JobState={state} "
            f"Partition=main TimeLimit=60 StartTime={iso(start)} EndTime={iso(end)} "
            f"NodeList=n[1-2] NodeCnt=2 ProcCnt=8 WorkDir=/tmp ReservationName= "
            f"Tres=cpu=8,node=2,billing=8 Account= QOS=normal WcKey= Cluster=tiny "
            f"SubmitTime={iso(start - 60)} EligibleTime={iso(start - 30)} "
            "DerivedExitCode=0:0 ExitCode=0:0 \n")


T = 1_800_000_000  # an epoch second: the virtual clock runs ahead of wall time


def test_a_jobcomp_line_gives_the_id_start_end_and_state_of_the_runs_jobs_only():
    line = record(42, "R7:1234", T, T + 3605, "TIMEOUT")
    assert endguard.parse_record(line, "R7") == ("42", T, T + 3605, "TIMEOUT")
    assert endguard.parse_record(line) == ("42", T, T + 3605, "TIMEOUT")
    # another run's job (R70 begins with R7), a torn line, a job never started
    assert endguard.parse_record(record(42, "R70:1", T, T + 1), "R7") is None
    assert endguard.parse_record("JobId=42 UserId=root(0) Name=R7:1 JobSt") is None
    assert endguard.parse_record("garbage") is None
    cancelled = record(43, "R7:2", T, T + 5).replace(f"StartTime={iso(T)}", "StartTime=Unknown")
    assert endguard.parse_record(cancelled, "R7") == ("43", None, T + 5, "COMPLETED")


def test_a_launch_line_gives_the_modelled_end_start_plus_the_runtime_slept():
    assert endguard.parse_launch(f"11\t{T}\t{T}.051\t105.500\n") == ("11", T, T + 105.5, 105.5)
    # no start from Slurm: the script sleeps from its own start
    assert endguard.parse_launch(f"12\t0\t{T}.5\t10.000") == ("12", None, T + 10.5, 10.0)
    # the launch guard's older three-column line, and a torn one
    assert endguard.parse_launch(f"13\t{T}\t{T}.2") is None
    assert endguard.parse_launch(f"x\t{T}\t{T}\t1") is None


def test_near_ends_share_one_window_opened_the_lead_before_the_first():
    plan = endplan.EndPlan(lead=3.0)
    plan.launched("1", T, T + 100, 100)
    plan.launched("2", T + 50, T + 101.5, 51.5)
    plan.launched("3", T, T + 200, 200)
    assert plan.next_open() == T + 97
    assert plan.step(T + 96.9, 0.0) == (False, [])
    assert plan.step(T + 97, 0.0) == (True, [])
    assert plan.first_due(T + 99) == T + 100
    # the first end recorded; the second's window (from T + 98.5) keeps it slow
    plan.recorded("1", T, T + 112)
    assert plan.step(T + 113, 0.1) == (True, [])
    plan.recorded("2", T + 50, T + 114)
    assert plan.step(T + 115, 0.2) == (False, [])
    assert plan.next_open() == T + 197
    assert plan.lags == {("1", T): (12, 100), ("2", T + 50): (12.5, 51.5)}


def test_the_rate_is_restored_only_once_the_end_is_recorded_not_when_it_passes():
    plan = endplan.EndPlan(lead=3.0)
    plan.launched("1", T, T + 100, 100)
    for now in (T + 97, T + 100, T + 150, T + 900):
        assert plan.step(now, 1.0)[0] is True
    # another job's record, or this job's earlier start (a requeue), is not it
    plan.recorded("9", T, T + 101)
    plan.recorded("1", T - 500, T - 400)
    assert plan.step(T + 901, 1.0)[0] is True
    plan.recorded("1", T, T + 901)
    assert plan.step(T + 902, 1.0) == (False, [])
    assert plan.lags[("1", T)] == (801, 100)


def test_an_end_recorded_before_its_window_opens_none_at_all_and_a_record_read_first():
    plan = endplan.EndPlan(lead=3.0)
    plan.launched("1", T, T + 100, 100)
    plan.recorded("1", T, T + 40)          # cancelled at T + 40
    # the record read before the script's line (two files, two reads)
    plan.recorded("2", T, T + 60)
    plan.launched("2", T, T + 59.2, 59.2)
    plan.launched("1", T, T + 100, 100)    # read again: not a new end
    assert plan.step(T + 120, 0.0) == (False, [])
    assert plan.early == 2 and plan.next_open() is None


def test_an_end_not_recorded_within_the_lost_wall_time_is_given_up_once():
    plan = endplan.EndPlan(lead=3.0, lost_wall=10.0)
    plan.launched("1", T, T + 100, 100)
    plan.launched("2", T, T + 300, 300)
    assert plan.step(T + 98, 50.0) == (True, [])
    assert plan.step(T + 99, 59.9) == (True, [])
    assert plan.step(T + 99.5, 60.0) == (False, [("1", T)])
    # a late record changes nothing; the next window opens on its own
    plan.recorded("1", T, T + 400)
    assert plan.step(T + 297, 61.0) == (True, [])
    assert plan.given_up == [("1", T)] and ("1", T) not in plan.lags


class Page:
    """A clock page at Slurm's time `t` (set by the test) and a rate,
    anchored now (endguard's monotonic clock: FrozenTime in the tests
    that use the `guarded` fixture)."""

    def __init__(self, t, rate):
        self.t, self.rate, self.rates = t, rate, []

    def read(self):
        return endguard.time.monotonic_ns(), int(self.t * 1e9), self.rate

    def set_rate(self, rate):
        self.rate = rate
        self.rates.append(rate)


class Running(Page):
    """A page whose clock runs: re-anchored at each new rate, as
    tb-vclock set-rate does."""

    def __init__(self, t, rate):
        super().__init__(t, rate)
        self.mono = time.monotonic_ns()

    def read(self):
        return self.mono, int(self.t * 1e9), self.rate

    def set_rate(self, rate):
        now = time.monotonic_ns()
        self.t += self.rate * (now - self.mono) / 1e9
        self.mono = now
        super().set_rate(rate)


class Guarded:
    """An EndGuard at rate 1000 slowing to 100, 3 s ahead, on files in
    tmp_path, its page and log kept."""

    def __init__(self, tmp_path, lost_wall=endguard.END_LOST_WALL, run_rate=1000.0):
        self.page = Page(T, run_rate)
        self.launch = tmp_path / "launched-R.tsv"
        self.comp = tmp_path / "jobcomp.txt"
        self.comp.write_text(record(1, "OTHER:1", T - 9, T - 5))   # another run's
        self.logs = []
        self.rates = RateArbiter(run_rate, self.page.set_rate)
        # no setter delay: the windows open exactly END_LEAD ahead
        self.g = endguard.EndGuard(str(self.launch), str(self.comp), "R", run_rate, 100.0,
                                   3.0, self.rates.setter("end"), self.page.read,
                                   self.logs.append, lost_wall=lost_wall, set_wall=0.0,
                                   adapt=False)

    def launched(self, *lines):
        with open(self.launch, "a") as f:
            f.writelines(lines)

    def recorded(self, *lines):
        with open(self.comp, "a") as f:
            f.writelines(lines)

    def at(self, t):
        """A look at Slurm's time t: the clock jumped there (a poke)."""
        self.page.t = t
        self.g.poke()
        return self.g.tick()


@pytest.fixture
def guarded(tmp_path, frozen):
    return Guarded(tmp_path)


def test_the_guard_slows_the_clock_for_one_window_and_restores_it_on_the_record(guarded):
    guarded.launched(f"11\t{T - 100}\t{T - 99.9}\t105.000\n",
                     f"12\t{T - 50}\t{T - 49.9}\t56.500\n", f"13\t{T}\t{T}.1\t50")
    # asleep until the window, at most IDLE_WALL
    assert guarded.at(T - 10) == endguard.IDLE_WALL and guarded.page.rates == []
    # (log s to the window) / rate 1000, exact up to T's float rounding
    assert guarded.at(T - 1) == pytest.approx(0.003, abs=1e-8)
    assert guarded.at(T + 1.99) == pytest.approx(1e-5, abs=1e-8)
    assert guarded.page.rates == []
    assert guarded.at(T + 2.0) == endguard.POLL_WALL
    assert guarded.page.rates == [100.0] and guarded.g.slowed()
    guarded.recorded(record(11, "R:a", T - 100, T + 17))
    assert guarded.at(T + 17.5) == endguard.POLL_WALL and guarded.page.rates == [100.0]
    guarded.recorded(record(12, "R:b", T - 50, T + 18))
    guarded.at(T + 18.2)
    assert guarded.page.rates == [100.0, 1000.0] and not guarded.g.slowed()
    s = guarded.g.summary({"rate": 100.0, "lead_s": 3.0})
    assert (s["rate"], s["windows"], s["given_up"], s["late_windows"], s["ends"]) == \
        (100.0, 1, 0, 0, 2)
    assert s["lag_max_s"] == 12 and s["lag_median_s"] == 12
    assert s["lag_total_s"] == 23.5 and s["lag_percent_of_runtimes"] == round(
        100 * 23.5 / 161.5, 3)
    # job 13's line was being written: its end is not known yet
    assert guarded.g.plan.next_open() is None


def test_after_a_restore_the_next_window_is_planned_at_the_restored_rate(guarded, frozen):
    """A wait planned at the slow rate read before the restore would sleep
    ten times too long and miss the next window (seen: every other end)."""
    guarded.launched(f"11\t{T}\t{T}.1\t5\n", f"12\t{T}\t{T}.1\t300\n")
    guarded.at(T + 2)
    guarded.recorded(record(11, "R:a", T, T + 6))
    assert guarded.at(T + 6.5) == 0 and guarded.page.rates == [100.0, 1000.0]
    assert guarded.g.deadline is None
    guarded.page.t = T + 10             # no poke: the clock ran at 1000
    assert guarded.g.tick() == endguard.IDLE_WALL
    # job 12's window opens at T + 297: 0.287 wall s away at rate 1000
    assert guarded.g.deadline - frozen.monotonic() == pytest.approx(0.287, abs=1e-8)


def test_between_windows_a_look_with_nothing_new_reads_no_page(guarded):
    guarded.launched(f"11\t{T}\t{T}.1\t105\n")
    assert guarded.at(T) == endguard.IDLE_WALL
    guarded.page.t = T + 103          # time passed without a jump: not looked at
    guarded.g.read_page = None
    assert 0 < guarded.g.tick() <= endguard.IDLE_WALL
    guarded.launched(f"12\t{T}\t{T}.1\t1\n")   # a new line: looked at
    with pytest.raises(TypeError):
        guarded.g.tick()


def test_the_setters_delay_opens_the_window_that_much_early_and_joins_near_ones(guarded):
    guarded.g.set_wall = 0.002          # 2 log s at rate 1000
    guarded.launched(f"11\t{T}\t{T}.1\t5\n", f"12\t{T}\t{T}.1\t12\n",
                     f"13\t{T}\t{T}.1\t30\n")
    assert guarded.at(T - 0.5) == pytest.approx(0.0005, abs=1e-8)
    assert guarded.at(T + 0.01) == endguard.POLL_WALL and guarded.page.rates == [100.0]
    # job 11 recorded; job 12's window opens at T + 9, within a restore and
    # a slow-down (2 x 2 ms at rate 1000) of T + 5.5: joined
    guarded.recorded(record(11, "R:a", T, T + 5))
    assert guarded.at(T + 5.5) == endguard.POLL_WALL and guarded.page.rates == [100.0]
    guarded.recorded(record(12, "R:b", T, T + 13))
    guarded.at(T + 13.2)                # job 13's at T + 27: restored
    assert guarded.page.rates == [100.0, 1000.0] and guarded.g.windows == 1


def test_a_window_that_opens_after_its_first_end_is_counted_late(guarded):
    # the script began after its own end (a late launch): the end is past
    guarded.launched(f"21\t{T - 100}\t{T + 5}\t20.000\n")
    guarded.at(T + 5)
    s = guarded.g.summary({})
    assert guarded.page.rates == [100.0] and s["late_windows"] == 1
    assert s["slow_at_max_s"] == pytest.approx(85, abs=1)


def test_a_guard_at_the_launch_guards_rate_1_leaves_it_there(guarded):
    launch = guarded.rates.setter("launch")
    launch(1.0)
    guarded.launched(f"11\t{T}\t{T}.1\t5\n")
    guarded.at(T + 2.5)
    assert guarded.page.rates == [1.0] and guarded.g.slowed()
    launch(1000.0)                       # the launch guard lets go: still slow
    assert guarded.page.rates == [1.0, 100.0]
    guarded.recorded(record(11, "R:a", T, T + 6))
    guarded.at(T + 6.1)
    assert guarded.page.rates == [1.0, 100.0, 1000.0]


def test_ends_given_up_in_a_row_turn_the_guard_off_records_that_match_nothing_too(
        tmp_path, frozen):
    guarded = Guarded(tmp_path, lost_wall=0.0)
    # this run's records, but of other starts (not a time zone's offset
    # away: 3,700 s)
    guarded.recorded(*(record(j, f"R:{j}", T + 3700, T + 3800) for j in range(1, 7)))
    guarded.launched(*(f"{j}\t{T}\t{T}.1\t{10 * j}\n" for j in range(1, 7)))
    n = endguard.GIVE_UP_OFF
    for j in range(1, n):
        assert guarded.at(T + 10 * j - 3) is not None    # job j's end given up
    assert guarded.at(T + 10 * n - 3) is None             # the GIVE_UP_OFF-th: off
    assert not guarded.g.enabled and not guarded.g.slowed()
    assert any("turned off" in line and "JobCompLoc" in line and "6 records" in line
               for line in guarded.logs)
    s = guarded.g.summary({})
    assert s["given_up"] == n and s["given_up_jobs"] == list(range(1, n + 1))
    assert s["off_because"] and s["records_unmatched"] == 6


def test_an_end_recorded_between_give_ups_keeps_the_guard_on(tmp_path, frozen):
    guarded = Guarded(tmp_path, lost_wall=0.0)
    n = endguard.GIVE_UP_OFF
    guarded.launched(*(f"{j}\t{T}\t{T}.1\t{10 * j}\n" for j in range(1, n + 2)))
    for j in range(1, n + 2):
        if j == n:      # n - 1 given up, then job n's end recorded in time
            guarded.recorded(record(n, f"R:{n}", T, T + 10 * n + 1))
        assert guarded.at(T + 10 * j - 3) is not None
    # n given up in all, not in a row (more would be the share's business:
    # the next test)
    s = guarded.g.summary({})
    assert guarded.g.enabled and s["given_up"] == n and s["ends"] == 1


def test_the_guard_thread_slows_and_restores_on_its_own(tmp_path):
    """The thread (start/poke/stop) on a page running at rate 1000."""
    page = Running(T, 1000.0)
    launch, comp = tmp_path / "l.tsv", tmp_path / "c.txt"
    launch.write_text(f"5\t{T}\t{T}.01\t100\n")       # ends 0.1 wall s from now
    rates = RateArbiter(1000.0, page.set_rate)
    g = endguard.EndGuard(str(launch), str(comp), "R", 1000.0, 100.0, 3.0,
                          rates.setter("end"), page.read, lambda text: None, set_wall=0.0,
                          adapt=False)
    rates.on_change = g.poke
    g.start()
    deadline = time.monotonic() + 10
    while not g.slowed() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert page.rates == [100.0]
    comp.write_text(record(5, "R:e", T, T + 101))
    while g.slowed() and time.monotonic() < deadline:
        time.sleep(0.005)
    g.stop()
    assert page.rates == [100.0, 1000.0] and g.windows == 1


def test_off_at_zero_or_at_the_runs_rate_or_more():
    assert endguard.active(100, 1000) and not endguard.active(0, 1000)
    assert not endguard.active(100, 100) and not endguard.active(1000, 100)


def test_both_guards_share_the_rate_the_lowest_ask_wins_the_page_written_on_change():
    writes, pokes = [], []
    r = RateArbiter(1000.0, writes.append, lambda: pokes.append(1))
    assert r.ask("end", 100.0) and writes == [100.0]
    assert r.ask("launch", 1.0) and writes == [100.0, 1.0]
    assert not r.ask("end", None) and writes == [100.0, 1.0]
    assert r.ask("launch", 1000.0) and writes == [100.0, 1.0, 1000.0]
    assert not r.setter("launch")(1000.0) and len(pokes) == 3


@pytest.mark.skipif(not shutil.which("tb-vclock"), reason="tb-vclock not installed (tools image)")
def test_on_a_real_clock_page_the_slow_rate_stays_past_the_end_until_the_record(tmp_path):
    """The guard with the driver's own setter (tb-vclock set-rate on a page
    made by tb-vclock init, pacing.rate_setter) at rate 1000: the slow rate
    reaches the page, stays past the modelled end, and the run's rate
    comes back once the record is written."""
    page = str(tmp_path / "clock")
    subprocess.run(["tb-vclock", "init", page, "--rate", "1000"], check=True,
                   capture_output=True)
    clock = vclock.Clock("virtual", 1000.0, page)
    rates = RateArbiter(1000.0, rate_setter(None, clock))
    launch, comp = tmp_path / "launched-R.tsv", tmp_path / endguard.FILE_NAME
    g = endguard.EndGuard(str(launch), str(comp), "R", 1000.0, 100.0, 3.0,
                          rates.setter("end"), lambda: vclock.read_page(page), print)
    rates.on_change = g.poke
    t = clock.now()
    start = int(t)
    end = t + 300.0                               # 0.3 wall s away
    launch.write_text(f"7\t{start}\t{t:.3f}\t{end - start:.3f}\n")
    g.start()
    try:
        deadline = time.monotonic() + 10
        while not g.slowed() and time.monotonic() < deadline:
            time.sleep(0.002)
        assert vclock.read_page(page)[2] == 100.0
        while clock.now() < end + 5 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert g.slowed() and vclock.read_page(page)[2] == 100.0
        comp.write_text(record(7, "R:x", start, int(clock.now())))
        while g.slowed() and time.monotonic() < deadline:
            time.sleep(0.002)
    finally:
        g.stop()
    assert vclock.read_page(page)[2] == 1000.0
    s = g.summary({"rate": 100.0, "lead_s": 3.0})
    # Never earlier than END_LEAD + the setter's delay at rate 1000 (about
    # 2 ms: 2 log s) before the end; on a quiet machine about END_LEAD
    # before it. How late a loaded machine wakes the thread is the
    # manifest's late_windows, measured on a cluster, not here.
    assert s["windows"] == 1 and -3 - 1000 * g.set_wall - 0.5 < s["slow_at_max_s"], s


def test_a_setter_that_fails_leaves_no_stale_ask_and_the_guard_withdraws_its_own():
    """B2: the end guard's ask whose write raised must not stay in the
    arbiter: the launch guard letting go would then write the end guard's
    slow rate, and the clock stay slow for the rest of the run."""
    writes, fail = [], [True]

    def set_rate(rate):
        if fail.pop() if fail else False:
            raise ReplayError("tb-vclock: cannot write the page")
        writes.append(rate)
    r = RateArbiter(1000.0, set_rate)
    with pytest.raises(ReplayError):
        r.ask("end", 100.0)
    assert r.asks == {} and r.current == 1000.0
    assert r.ask("launch", 1.0) and r.ask("launch", None)
    assert writes == [1.0, 1000.0] and r.current == 1000.0


def test_a_guard_turned_off_withdraws_its_ask_even_when_not_slow_and_if_that_fails(tmp_path):
    asks = []
    g = endguard.EndGuard(str(tmp_path / "l"), str(tmp_path / "c"), "R", 1000.0, 100.0, 3.0,
                          asks.append, None, lambda text: None)
    g._turn_off(0.0, "test")
    assert asks == [None] and not g.enabled

    def broken(rate):
        raise ReplayError("no page")
    logs = []
    g = endguard.EndGuard(str(tmp_path / "l"), str(tmp_path / "c"), "R", 1000.0, 100.0, 3.0,
                          broken, None, logs.append)
    g.slow_since = 1.0
    g._turn_off(3.0, "test")
    assert not g.slowed() and g.slow_wall == 2.0
    assert "could not be restored: no page" in g.why_off and logs


def test_after_stop_the_guard_writes_no_rate_and_stop_is_idempotent(guarded):
    """B3: the driver's final rate 1 comes after stop(); a look the thread
    makes after it (a join that timed out) must not write a rate."""
    guarded.launched(f"11\t{T}\t{T}.1\t5\n", f"12\t{T}\t{T}.1\t50\n")
    guarded.at(T + 2.5)
    assert guarded.page.rates == [100.0] and guarded.g.slowed()
    guarded.g.stop()
    assert guarded.page.rates == [100.0, 1000.0] and not guarded.g.slowed()
    guarded.page.rates.clear()
    guarded.recorded(record(11, "R:a", T, T + 6))
    guarded.at(T + 6.1)                  # would restore
    guarded.at(T + 48)                   # job 12's window: would slow
    guarded.g._turn_off(0.0, "test")
    guarded.g.stop()
    assert guarded.page.rates == [] and guarded.rates.asks == {}


def test_scattered_give_ups_beyond_max_5_and_2_percent_of_the_ends_turn_the_guard_off(
        tmp_path, frozen):
    """M1: an end recorded between give-ups resets the in-a-row count; the
    share still turns the guard off."""
    guarded = Guarded(tmp_path, lost_wall=0.0)
    guarded.launched(*(f"{j}\t{T}\t{T}.1\t{10 * j}\n" for j in range(1, 31)))
    off_at = None
    for j in range(1, 31):
        if j % 3:       # recorded in time: the in-a-row count starts again
            guarded.recorded(record(j, f"R:{j}", T, T + 10 * j))
        if guarded.at(T + 10 * j - 3) is None:
            off_at = j
            break
    # given up: jobs 3, 6, ..., the 6th (job 18) is more than max(5, 2 % of 18)
    assert off_at == 18 and not guarded.g.enabled
    assert "6 of 18 ends were never recorded" in guarded.g.why_off


def test_a_few_give_ups_among_many_recorded_ends_keep_the_guard_on(tmp_path, frozen):
    guarded = Guarded(tmp_path, lost_wall=0.0)
    n = 400
    guarded.launched(*(f"{j}\t{T}\t{T}.1\t{10 * j}\n" for j in range(1, n + 1)))
    # 7 given up (1.75 %), one every 50 ends
    for j in range(1, n + 1):
        if j % 50 or j == n:
            guarded.recorded(record(j, f"R:{j}", T, T + 10 * j))
        assert guarded.at(T + 10 * j - 3) is not None, j
    s = guarded.g.summary({})
    assert guarded.g.enabled and s["given_up"] == 7 and s["ends"] == n - 7


def test_records_match_by_id_in_file_order_whatever_slurmctlds_time_zone():
    """M3: a slurmctld in another zone (here UTC+1) writes its local time;
    the records still match, the zone is learned from the first id with
    one end, and the lags are in epoch s."""
    plan = endplan.EndPlan(lead=3.0)
    h = 3600
    plan.launched("1", T, T + 100, 100)
    plan.recorded("1", T + h, T + h + 112)
    assert plan.tz == h and plan.lags[("1", T)] == (12, 100)
    # a requeue: both starts' lines read before either record; the records
    # go to the starts in file order
    plan.launched("2", T, T + 50, 50)
    plan.launched("2", T + 60, T + 110, 50)
    plan.recorded("2", T + h, T + h + 51)          # REQUEUED
    plan.recorded("2", T + h + 60, T + h + 113)
    assert plan.lags[("2", T)] == (1, 50) and plan.lags[("2", T + 60)] == (3, 50)
    # a start whose script never wrote its line: its record waits, the
    # next start's record (the zone known) goes to its own end
    plan.launched("3", T + 300, T + 400, 100)
    plan.recorded("3", T + h + 120, T + h + 200)
    assert ("3", T + 300) in plan.ends and plan.records["3"] == [(T + h + 120, T + h + 200)]
    plan.recorded("3", T + h + 300, T + h + 405)
    assert plan.lags[("3", T + 300)] == (5, 100) and plan.records == {"3": [(T + h + 120,
                                                                              T + h + 200)]}
    # a record without a start (cancelled while pending) ends the first
    plan.launched("4", T, T + 9, 9)
    plan.recorded("4", None, T + h + 9)
    assert plan.lags[("4", T)] == (0, 9) and not plan.ends


def test_before_the_zone_is_known_a_start_off_by_no_zone_is_another_starts_record():
    plan = endplan.EndPlan(lead=3.0)
    plan.launched("1", T, T + 100, 100)
    plan.recorded("1", T - 500, T - 400)            # an earlier start's
    assert plan.tz is None and plan.ends and plan.records == {"1": [(T - 500, T - 400)]}
    plan.recorded("1", T, T + 101)
    assert plan.tz == 0 and plan.lags == {("1", T): (1, 100)}
    assert endplan.zone_offset(-5 * 3600 - 0.5) == -5 * 3600
    assert endplan.zone_offset(3700) is None and endplan.zone_offset(15 * 3600) is None
