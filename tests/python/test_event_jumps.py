"""Event-driven virtual time (workloads/replay/events.py) without a
cluster: when the clock may jump while jobs run, and where to. A cluster
run is in tests/vclock.bats."""

from workloads.replay.events import (Backfill, EventJumps, margin, parse_backfill,
                                     parse_idle, parse_queue)

RATE = 1000.0
CHECK_NS = 50_000_000           # the page's default slice, 50 ms
NOW = 1_000_000.0

# sdiag's backfill lines as LOOK keeps them, one cycle running
SDIAG = ("Backfilling stats (WARNING: data obtained in the middle of backfilling execution.)\n"
         "\tTotal cycles: 24\n"
         "\tLast cycle when: Mon Nov 30 06:02:30 2026 (1796018550)\n")


def jumps(begins=None, ends=None, nodes=None):
    """An EventJumps at rate 1000: begin times, runtimes, sizes by log id."""
    begins, ends, nodes = begins or {}, ends or {}, nodes or {}
    return EventJumps(RATE, CHECK_NS, begins.get,
                      lambda log_id, start, jid: start + ends[log_id], nodes.get)


def job(state, start=None, jid="1", reason=""):
    """queue_state's tuple."""
    return (state, start, None, None, jid, reason)


def cycles(n):
    """Backfill with n completed cycles, nothing else known."""
    return Backfill(cycles=n)


def saturated():
    """Two jobs running (ends at NOW + 500 and NOW + 3000), one of 128
    nodes waiting for nodes, one waiting for its begin time (NOW + 2000)."""
    queued = {1: job("RUNNING", NOW - 100, "11"), 2: job("RUNNING", NOW - 10, "12"),
              3: job("PENDING", None, "13", "Resources"),
              4: job("PENDING", None, "14", "BeginTime")}
    ej = jumps(begins={3: NOW - 50, 4: NOW + 2000}, ends={1: 600, 2: 3010},
               nodes={3: 128, 4: 256})
    return ej, queued


def launched(jid):
    return True


def test_margin_is_one_slice_at_the_rate_plus_a_second():
    assert margin(1000, 50_000_000) == 51.0
    assert margin(100, 50_000_000) == 6.0


def test_saturated_machine_jumps_to_the_next_end_after_two_backfill_cycles():
    ej, queued = saturated()
    # 200 idle nodes: job 3 could start, so backfill must have seen the state
    assert ej.decide(NOW, queued, launched, cycles(5), 200) is None
    assert ej.decide(NOW + 1, queued, launched, cycles(6), 200) is None
    # two completed cycles since the state was first seen: the next
    # event is job 1's end, NOW + 500, and the clock lands its margin before
    assert ej.decide(NOW + 2, queued, launched, cycles(7), 200) == NOW + 500 - 51.0
    assert ej.held == {"new state": 1, "backfill": 1}


def test_one_finished_cycle_begun_after_the_state_was_seen_is_enough():
    ej, queued = saturated()
    assert ej.decide(NOW, queued, launched, Backfill(5, NOW - 3, True), 200) is None
    # running, or begun before the state was seen: not yet
    assert ej.decide(NOW + 2, queued, launched, Backfill(5, NOW + 1, True), 200) is None
    assert ej.decide(NOW + 2, queued, launched, Backfill(6, NOW - 3, False), 200) is None
    assert ej.decide(NOW + 3, queued, launched, Backfill(6, NOW + 1, False), 200) == NOW + 449


def test_too_few_idle_nodes_for_any_waiting_job_jumps_at_once():
    ej, queued = saturated()
    # 100 idle nodes, the smallest eligible job needs 128: nothing can start
    assert ej.decide(NOW, queued, launched, cycles(5), 100) == NOW + 449
    # unknown idle count or job size: backfill must be waited for
    ej, queued = saturated()
    assert ej.decide(NOW, queued, launched, cycles(5), None) is None
    ej = jumps(begins={3: NOW - 50}, ends={1: 600}, nodes={3: None})
    queued = {1: job("RUNNING", NOW - 100, "11"), 3: job("PENDING", None, "13", "Resources")}
    assert ej.decide(NOW, queued, launched, cycles(5), 0) is None


def test_arrivals_are_events_too():
    ej, queued = saturated()
    # the plan's next job, not submitted yet, arrives before any end
    assert ej.decide(NOW, queued, launched, cycles(7), 0, next_arrival=NOW + 300) == NOW + 249


def test_no_jump_while_a_started_job_has_not_begun_its_script():
    ej, queued = saturated()
    assert ej.decide(NOW, queued, lambda jid: jid != "12", cycles(9), 0) is None
    assert ej.held["launching"] == 1


def test_no_jump_while_a_job_completes_or_waits_unseen_by_the_scheduler():
    ej, queued = saturated()
    queued[5] = job("COMPLETING", NOW - 5, "15")
    assert ej.decide(NOW, queued, launched, cycles(9), 0) is None
    ej, queued = saturated()
    queued[5] = job("PENDING", None, "15", "None")
    ej.nodes_of = {3: 128, 5: 64}.get
    ej.decide(NOW, queued, launched, cycles(5), 200)
    assert ej.decide(NOW, queued, launched, cycles(9), 200) is None
    assert ej.held["not looked at"] == 1


def test_a_begin_time_passed_but_not_yet_seen_by_the_scheduler_holds_the_clock():
    ej, queued = saturated()
    del queued[1]
    ej.decide(NOW, queued, launched, cycles(5), 300)
    # job 4's begin time has passed; Slurm still says BeginTime
    assert ej.decide(NOW + 2500, queued, launched, cycles(9), 300) is None
    assert ej.decide(NOW + 2501, queued, launched, cycles(12), 300) is None
    assert ej.held["not looked at"] == 1


def test_a_changed_queue_or_reset_counters_wait_for_backfill_again():
    ej, queued = saturated()
    ej.decide(NOW, queued, launched, cycles(5), 200)
    assert ej.decide(NOW, queued, launched, cycles(7), 200) is not None
    # job 1 ended: a new state, two more cycles
    del queued[1]
    assert ej.decide(NOW + 520, queued, launched, cycles(7), 200) is None
    assert ej.decide(NOW + 521, queued, launched, cycles(8), 200) is None
    assert ej.decide(NOW + 522, queued, launched, cycles(9), 200) == NOW + 2000 - 51.0
    # backfill's counters reset (midnight): a new state again
    assert ej.decide(NOW + 523, queued, launched, cycles(0), 200) is None


def test_nothing_eligible_needs_no_backfill_cycle():
    ej = jumps(begins={4: NOW + 2000}, ends={1: 600})
    queued = {1: job("RUNNING", NOW - 100, "11"), 4: job("PENDING", None, "14", "BeginTime")}
    assert ej.decide(NOW, queued, launched, None, None) == NOW + 500 - 51.0


def test_an_event_closer_than_the_margin_is_not_jumped_to():
    ej = jumps(ends={1: 160})
    queued = {1: job("RUNNING", NOW - 100, "11")}
    assert ej.decide(NOW, queued, launched, cycles(5), 0) is None
    assert ej.held["event near"] == 1


def test_jumps_are_counted():
    ej, queued = saturated()
    target = ej.decide(NOW, queued, launched, cycles(7), 0)
    ej.jumped(NOW, target)
    summary = ej.summary()
    assert summary["jumps"] == 1 and summary["jumped_s"] == 449.0
    assert summary["busy_jumps"] == 1


def test_backfill_idle_nodes_and_the_queue_from_one_look():
    bf = parse_backfill(SDIAG)
    assert (bf.cycles, bf.last_when, bf.active) == (24, 1796018550, True)
    bf = parse_backfill(SDIAG.replace(" (WARNING: data obtained in the middle of "
                                      "backfilling execution.)", ""))
    assert bf.active is False
    bf = parse_backfill("sdiag: error: Unable to contact slurm controller")
    assert (bf.cycles, bf.last_when, bf.active) == (None, None, None)
    assert parse_idle("0\n12\nidle-known\n") == 12
    # no idle node: sinfo prints nothing; sinfo failed: unknown
    assert parse_idle("idle-known\n") == 0 and parse_idle("") is None
    queue = parse_queue("r1:7|RUNNING|1000|42|None\nother|PENDING|N/A|43|None\n", "r1")
    assert queue == {"7": ("RUNNING", 1000, None, None, "42", "None")}


def test_a_job_ends_at_the_runtime_its_script_sleeps_not_the_plans(tmp_path):
    """Under a policy that scales runtimes (greedy: Eq. 7) the script
    sleeps the plugin's runtime, not the log's; a jump past the plan's end
    would make such a job end late by the jump."""
    from workloads import launch, vclock
    from workloads.replay.driver import event_jumps
    page = tmp_path / "clock"
    page.write_bytes(vclock.PAGE.pack(vclock.MAGIC, vclock.VERSION, 0, 0, 0, 0, 0,
                                      1000.0, CHECK_NS).ljust(4096, b"\0"))
    started = tmp_path / "launched.tsv"
    # the script's line: Slurm id, Slurm's start, its own start, its runtime
    started.write_text("42\t1000.000\t1001.500\t700.000\n43\t1000\t1001\n")
    guard = launch.LaunchGuard(str(started), 1000.0, lambda rate: None, lambda text: None)
    guard.read()
    assert guard.runtimes == {"42": 700.0}

    class Clock:
        rate = 1000.0

    Clock.page = str(page)
    plan = [{"log_id": 7, "offset": 0, "limit_min": 100, "nodes": 4},
            {"log_id": 8, "offset": 0, "limit_min": 10, "nodes": 4},
            {"log_id": 9, "offset": 0, "limit_min": 0, "nodes": 4}]
    ej = event_jumps(plan, NOW, 1.0, Clock, {7: 1000.0, 8: 1000.0, 9: 1000.0},
                     guard.runtimes)
    assert ej.end_of(7, 1000, "42") == 1700.0      # the script's runtime
    assert ej.end_of(7, 1000, "43") == 2000.0      # no runtime said: the plan's
    assert ej.end_of(8, 1000, "44") == 1600.0      # the limit, if shorter
    # LIMITS=none (limit 0): no limit, so its runtime, not an end at its start
    assert ej.end_of(9, 1000, "45") == 2000.0
    assert ej.margin == 51.0


# The replay's job script under the virtual clock (slurm_io.py), run with
# stubs for the clock: `date` reads a virtual now from a file, and the
# page's time jumps right after the script has read it, as an event jump
# may once the script has written its start to the launch guard's file.
# Each sleep writes the virtual time it would end at. A bare clone's
# 12-job replay ended one job 1,774 log s late so (issue 30): the script
# slept a length taken from its reading, and the jump was added to it.

STUB_DATE = """#!/bin/bash
now=$(cat "$CLOCK")
awk -v t="$now" -v j="$JUMP" 'BEGIN {printf "%.3f\\n", t + j}' > "$CLOCK"
echo "$now"
"""
# coreutils sleep (a length from now) and tb-vclock sleep-until (a
# deadline), each ending where it would on the page.
STUB_SLEEP = """#!/bin/bash
awk -v t="$(cat "$CLOCK")" -v d="$1" 'BEGIN {printf "%.3f\\n", t + d}' > "$ENDED"
"""
STUB_VCLOCK = """#!/bin/bash
[ "$1" = sleep-until ] && [ "$2" = "$PAGE" ] || exit 2
awk -v t="$(cat "$CLOCK")" -v d="$3" 'BEGIN {printf "%.3f\\n", (t > d ? t : d)}' > "$ENDED"
"""


def run_job_script(tmp_path, start, began, runtime, jump):
    """The virtual time the job's script ends at, and its launch line:
    Slurm started it at `start`, its script read the clock at `began`,
    the clock jumped by `jump` right after."""
    import os
    import subprocess
    from workloads.replay import slurm_io

    captured = {}
    original = slurm_io.ctl
    slurm_io.ctl = lambda container, command, stdin=None, check=True: captured.update(
        script=stdin)
    try:
        slurm_io.install_batch_script("none")
    finally:
        slurm_io.ctl = original
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name, text in (("date", STUB_DATE), ("sleep", STUB_SLEEP),
                       ("tb-vclock", STUB_VCLOCK)):
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    script = tmp_path / "job.sh"
    script.write_text(captured["script"])
    (tmp_path / "clock").write_text(f"{began:.3f}\n")
    page, launched = tmp_path / "page", tmp_path / "launched.tsv"
    env = dict(os.environ, PATH=f"{stubs}:{os.environ['PATH']}",
               CLOCK=str(tmp_path / "clock"), JUMP=str(jump), PAGE=str(page),
               ENDED=str(tmp_path / "ended"), SLURM_JOB_ID="5",
               SLURM_JOB_START_TIME=str(start))
    env.pop("TESTBED_RUNTIME_SCALED", None)
    subprocess.run(["bash", str(script), "1", str(runtime), str(page), str(launched)],
                   env=env, check=True, capture_output=True, text=True)
    return float((tmp_path / "ended").read_text()), launched.read_text().split("\t")


def test_a_jump_after_the_job_read_the_clock_does_not_make_it_end_late(tmp_path):
    # the bare clone's job 200007: runtime 12,035 s, a 1,774-s jump
    ended, line = run_job_script(tmp_path, start=1_000_000, began=1_000_300,
                                 runtime=12035, jump=1774)
    assert ended == 1_000_000 + 12035
    # what it told the launch guard: its Slurm id and start, and the
    # runtime the event jumps take for its end
    assert line[0] == "5" and float(line[1]) == 1_000_000
    assert float(line[3]) == 12035


def test_a_jump_past_the_jobs_end_ends_it_at_once(tmp_path):
    ended, _ = run_job_script(tmp_path, start=1_000_000, began=1_000_300,
                              runtime=1000, jump=5000)
    assert ended == 1_000_300 + 5000


def test_a_job_started_between_the_looks_squeue_and_sinfo_holds_the_jump():
    # The 1,000-job window's jobs 260 and 261: squeue saw job 3 pending
    # (128 nodes); it started before sinfo counted the idle nodes (100
    # left), so "too few idle nodes" held and the decision jumped to job
    # 1's end, past job 3's, which was in no event.
    ej, queued = saturated()
    target = ej.decide(NOW, queued, launched, cycles(5), 100)
    assert target == NOW + 449
    again = dict(queued)
    again[3] = job("RUNNING", NOW - 1, "13")
    assert ej.confirm(queued, again) is False
    assert ej.confirm(queued, None) is False
    assert ej.held["changed during the look"] == 2
    # unchanged: the jump is made
    assert ej.confirm(queued, dict(queued)) is True
