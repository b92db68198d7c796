"""The end guard's wiring in the replay loop (workloads/replay/driver.py;
review M6), without a cluster: the controller, the queue, the submitters
and the health watch are fakes; the clock is a real page (tb-vclock init,
rate 1000) in tmp_path. What it checks: the guard's thread is started
inside the loop's try (whatever fails after it, the loop's own finally
stops it), it is stopped (its slow rate withdrawn) before the run's final
rate 1, a stopped part's counts reach the manifest, and no event jump is
made while the end guard holds the clock slow."""

import json
import os
import subprocess
import time
from types import SimpleNamespace

import pytest

from workloads import health, launch, vclock
from workloads.replay import driver
from workloads.replay.errors import ReplayError

RUN = "R"


def plan_of(n):
    return [{"log_id": str(k), "offset": 0.0, "runtime": 100.0, "nodes": 1, "limit_min": 0,
             "prefill": False, "chain": 0, "placement": "", "nodelist": ""}
            for k in range(1, n + 1)]


class Replay:
    """driver.run on fakes: `said` is what happened, in order (("ctl",
    command), ("rate", r) for each rate the guards' arbiter writes, and
    what the fakes add); queue(k) gives the k-th look's queue."""

    def __init__(self, tmp_path, monkeypatch, jobs=1, event_jumps=False):
        self.tmp = tmp_path
        self.said = []
        self.looks = 0
        self.queue = lambda k: {}
        page = tmp_path / "vclock" / "clock"
        page.parent.mkdir()
        subprocess.run(["tb-vclock", "init", str(page), "--rate", "1000"], check=True,
                       capture_output=True)
        self.clock = vclock.Clock("virtual", 1000.0, str(page))
        self.run_dir = tmp_path / "run"
        self.run_dir.mkdir()
        (self.run_dir / "replay.log").write_text("")
        # the cluster's slurm.conf writes the records (make replay's)
        monkeypatch.setenv("TESTBED_PROJECT", "testbed")
        monkeypatch.setenv("TESTBED_CLONE_PROJECT", "testbed")
        conf = tmp_path / "build" / "clusters" / "tiny" / "slurm.conf"
        conf.parent.mkdir(parents=True)
        conf.write_text("JobCompType=jobcomp/filetxt\n"
                        "JobCompLoc=/run/testbed-vclock/jobcomp.txt\n")
        self.plan = plan_of(jobs)
        self.manifest = {
            "run_id": RUN, "cluster": "tiny", "cluster_nodes": 4, "seed": 1,
            "t0": self.clock.now(), "speedup": 1.0, "clock": "virtual",
            "clock_rate": 1000.0,
            "end_guard": {"rate": 100.0, "lead_s": 3.0, "jobcomp_offset": 0}}
        self.args = SimpleNamespace(
            root=str(tmp_path), state_dir=str(tmp_path), lead=5.0, auto_recover=0,
            launch_guard=0, idle_jumps=1, event_jumps=1 if event_jumps else 0,
            report_every=600.0, end_lead=3.0, rerun_faulted=False)
        self.ends = None
        real_end_guard, real_setter = driver.end_guard, driver.rate_setter

        def end_guard(*a):
            self.ends = real_end_guard(*a)
            return self.ends

        def rate_setter(container, clock):
            write = real_setter(None, clock)     # the page itself, tb-vclock

            def set_rate(rate):
                self.said.append(("rate", rate))
                write(rate)
            return set_rate

        def queue_state(container, run_id, shell=None):
            self.looks += 1
            return self.queue(self.looks)

        said = self.said
        monkeypatch.setattr(driver, "controller", lambda: "ctl")
        monkeypatch.setattr(driver, "run_clock", lambda m, d: self.clock)
        monkeypatch.setattr(driver, "ctl", lambda c, command: said.append(("ctl", command)))
        monkeypatch.setattr(driver, "read_plan", lambda path: self.plan)
        monkeypatch.setattr(driver, "read_submitted", lambda path, plan: {})
        monkeypatch.setattr(driver, "read_reruns", lambda path, plan: {})
        monkeypatch.setattr(driver, "reconcile", lambda *a: 0)
        monkeypatch.setattr(driver, "install_batch_script", lambda c: None)
        monkeypatch.setattr(driver, "job_fields", lambda *a, **k: {})
        monkeypatch.setattr(driver, "SubmitterPool", FakeSubmitters)
        monkeypatch.setattr(driver, "Shell", FakeShell)
        monkeypatch.setattr(driver, "queue_state", queue_state)
        monkeypatch.setattr(driver, "end_guard", end_guard)
        monkeypatch.setattr(driver, "rate_setter", rate_setter)
        monkeypatch.setattr(driver, "progress", lambda *a, **k: None)
        monkeypatch.setattr(health, "HealthWatch", FakeHealth)

    def launched(self, jid, runtime):
        """A script's line in the launch file: started now, ends in
        `runtime` Slurm s."""
        now = self.clock.now()
        path = os.path.join(os.path.dirname(self.clock.page), launch.file_name(RUN))
        with open(path, "a") as f:
            f.write(f"{jid}\t{now:.3f}\t{now:.3f}\t{runtime:.3f}\n")

    def run(self):
        return driver.run(self.args, str(self.run_dir), self.manifest)

    def on_disk(self):
        with open(self.run_dir / "manifest.json") as f:
            return json.load(f)


class FakeSubmitters:
    def __init__(self, container, n, run_dir):
        self.next = 100

    def submit_all(self, fields_list, items):
        for p in items:
            self.next += 1
            yield p, self.next

    def close(self):
        pass


class FakeShell:
    def __init__(self, container):
        pass

    def close(self):
        pass


class FakeHealth:
    def __init__(self, *a, **k):
        pass

    def check(self, now=None):
        return True


def running(*log_ids):
    return {k: ("RUNNING", int(time.time()), None, None, str(100 + int(k)), "None")
            for k in log_ids}


def wait_for(what, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not what() and time.monotonic() < deadline:
        time.sleep(0.005)
    return what()


def test_the_end_guard_is_stopped_and_its_slow_rate_withdrawn_before_the_final_rate_1(
        tmp_path, monkeypatch):
    r = Replay(tmp_path, monkeypatch)
    r.launched(101, 2.0)      # ends within END_LEAD: its window opens at once

    def queue(k):
        # the loop's looks, its end guard running: the last one comes
        # once the guard holds the clock slow (the run ends in a window)
        assert r.ends.thread is not None and r.ends.thread.is_alive()
        if k < 3:
            return running("1")
        assert wait_for(r.ends.slowed), "the end guard never slowed the clock"
        return {}
    r.queue = queue
    r.run()
    assert r.said[0] == ("ctl", vclock.set_rate_command(1000.0))
    assert ("rate", 100.0) in r.said
    # stop() withdrew the slow rate (the arbiter wrote the run's), then
    # the final rate 1; nothing after it
    assert r.said[-2:] == [("rate", 1000.0), ("ctl", vclock.set_rate_command(1))], r.said
    assert r.ends.thread is None and not r.ends.slowed()
    assert vclock.read_page(r.clock.page)[2] == 1000.0     # the fake ctl set no rate 1
    g = r.on_disk()["end_guard"]
    assert g["windows"] == 1 and g["enabled"] and len(g["parts"]) == 1


def test_a_failure_right_after_the_guard_starts_stops_it_in_the_loops_own_finally(
        tmp_path, monkeypatch):
    """The thread is started inside run_at_rate's try: the launch guard's
    burst timer failing to start is caught by its finally, which stops
    the end guard (not only run()'s), and the stopped part's counts are
    added to the manifest's (a RESUME adds its own)."""
    r = Replay(tmp_path, monkeypatch)
    r.manifest["end_guard"].update(windows=4, slow_wall_s=2.5, enabled=True, ends=4)

    def watch(self, begins, now):
        raise ReplayError("no thread for the burst timer")
    monkeypatch.setattr(launch.LaunchGuard, "watch", watch)
    guards = []
    with pytest.raises(ReplayError, match="burst timer"):
        driver.run_at_rate(r.args, str(r.run_dir), r.manifest, None, "ctl", r.clock, guards)
    assert r.ends in guards and r.ends.stopped.is_set() and r.ends.thread is None
    g = r.on_disk()["end_guard"]
    assert g["windows"] == 4 and g["slow_wall_s"] == 2.5 and len(g["parts"]) == 2


class FakeEvents:
    jumps, jumped_s = 0, 0.0

    def summary(self):
        return {"held": {}}


def test_no_event_jump_is_tried_while_the_end_guard_holds_the_clock_slow(
        tmp_path, monkeypatch):
    r = Replay(tmp_path, monkeypatch, event_jumps=True)
    tried = []
    slow = {1: True, 2: True, 3: False, 4: True, 5: False}

    class Ends:
        """The end guard as the loop sees it, slow as the test says."""
        def __init__(self):
            self.slow = False

        def start(self):
            pass

        def stop(self):
            r.said.append("ends stop")

        def poke(self):
            pass

        def slowed(self):
            return self.slow

        def summary(self, settings):
            return dict(settings, windows=0, enabled=True)
    ends = Ends()

    def look(shell, run_id):
        r.looks += 1
        if r.looks in slow:
            ends.slow = slow[r.looks]
            return running("1"), None, set()
        return {}, None, set()

    def event_jump(events, jump, guard, queued, *rest):
        tried.append((r.looks, ends.slowed()))
    monkeypatch.setattr(driver, "end_guard", lambda *a: ends)
    monkeypatch.setattr(driver, "event_jumps", lambda *a: FakeEvents())
    monkeypatch.setattr(driver, "jumper", lambda container, clock: lambda target: None)
    monkeypatch.setattr(driver, "look", look)
    monkeypatch.setattr(driver, "event_jump", event_jump)
    r.run()
    # only the looks at which the end guard let the clock run
    assert tried == [(3, False), (5, False)]
    assert r.said[-2:] == ["ends stop", ("ctl", vclock.set_rate_command(1))], r.said
