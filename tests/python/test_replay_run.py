"""The replay's run directory, RESUME's bookkeeping, its talks with a
controller that does not answer, and what its progress line says, without
a cluster (workloads/replay/; moved from tests/replay.bats and
rerun.bats)."""

import json
import os
import time

import pytest

from workloads.replay import slurm_io
from workloads.replay.cli import parse_args
from workloads.replay.driver import note_reservation
from workloads.replay.errors import ReplayError
from workloads.replay.pacing import time_left
from workloads.replay.progress import held_note
from workloads.replay.resume import mark_stopped, reconcile, record_pause, stopped_at
from workloads.replay.run_dir import read_reruns, read_submitted, write_manifest


def test_a_pause_is_measured_from_when_the_driver_stopped_and_late_jobs_are_named(tmp_path):
    run_dir = str(tmp_path)
    manifest = {"run_id": "R1", "t0": 1000.0, "speedup": 10.0, "cluster": "tiny"}
    write_manifest(run_dir, manifest)
    open(os.path.join(run_dir, "replay.log"), "w").close()
    # Killed at wall 1012 (nothing recorded, so the last write counts): a
    # and b were submitted, c (due at 1015) and d (at 1030) not. Resumed
    # at 1020: c is late.
    os.utime(os.path.join(run_dir, "replay.log"), (1012, 1012))
    os.utime(os.path.join(run_dir, "manifest.json"), (1005, 1005))
    plan = [{"log_id": k, "offset": o} for k, o in (("a", 0), ("b", 100), ("c", 150), ("d", 300))]
    stopped = stopped_at(manifest, run_dir)
    assert stopped == (1012, True), stopped
    late = record_pause(run_dir, manifest, plan, {"a": 1, "b": 2}, stopped, 1020.0)
    assert late == ["c"], late
    with open(os.path.join(run_dir, "manifest.json")) as f:
        m = json.load(f)
    assert m["resumed"] is True and m["paused_s"] == 8 and m["jobs_late"] == 1, m
    p = m["pauses"][0]
    assert (p["start_epoch"], p["end_epoch"], p["late_log_ids"], p["start_estimated"]) == \
        (1012, 1020, ["c"], True), p
    # Ctrl-C records when the driver stopped; the first stop counts (a
    # RESUME that fails early does not shorten the pause); pauses add up.
    mark_stopped(run_dir, "")
    with open(os.path.join(run_dir, "manifest.json")) as f:
        t = json.load(f)["stopped_at"]
    mark_stopped(run_dir, "")
    with open(os.path.join(run_dir, "manifest.json")) as f:
        m = json.load(f)
    assert m["stopped_at"] == t and abs(t - time.time()) < 5, m
    stopped = stopped_at(m, run_dir)
    assert stopped == (t, False), stopped
    record_pause(run_dir, m, plan, {"a": 1, "b": 2, "c": 3}, stopped, t + 30)
    with open(os.path.join(run_dir, "manifest.json")) as f:
        m = json.load(f)
    assert len(m["pauses"]) == 2 and m["jobs_late"] == 2 and abs(m["paused_s"] - 38) < 1e-6, m
    assert "stopped_at" not in m, m
    assert m["paused_s"] == 38.0


def test_a_submitted_tsv_cut_short_by_a_full_disk_is_read_and_repaired(tmp_path):
    f = tmp_path / "submitted.tsv"
    # A complete line, a partial one glued to the next append, a duplicate
    # log id, a log id outside the plan and a cut-off last line.
    f.write_text("11 101\n12 1013 103\n11 999\n77 107\n14 10")
    plan = [{"log_id": str(i)} for i in (11, 12, 13, 14)]
    assert sorted(read_submitted(str(f), plan).items()) == [("11", 101)]
    assert f.read_text() == "11 101\n"


def test_a_rerun_tsv_cut_short_is_read_and_repaired_as_submitted_tsv_is(tmp_path):
    f = tmp_path / "rerun.tsv"
    # Kept: 11's first and second attempts. Dropped: a glued line, attempt
    # 0, a repeated (id, attempt), a log id outside the plan, a cut-off end.
    f.write_text("11 1 201\n11 2 202\n12 1 2013 1 203\n12 0 204\n11 1 999\n"
                 "77 1 207\n14 1 20")
    plan = [{"log_id": str(i)} for i in (11, 12, 13, 14)]
    assert read_reruns(str(f), plan) == {("11", 1): 201, ("11", 2): 202}
    assert f.read_text() == "11 1 201\n11 2 202\n"
    intact = tmp_path / "intact.tsv"
    intact.write_text("13 1 5\n")
    before = os.stat(intact).st_mtime_ns
    assert read_reruns(str(intact), plan) == {("13", 1): 5}
    assert os.stat(intact).st_mtime_ns == before
    assert read_reruns(str(tmp_path / "absent.tsv"), plan) == {}


def test_a_lookup_the_controller_does_not_answer_is_waited_for_never_taken_for_absent(
        tmp_path, monkeypatch):
    run_dir = str(tmp_path)
    shown, calls = [], []
    monkeypatch.setattr(slurm_io, "progress", lambda text, final=False: shown.append(text))
    monkeypatch.setattr(time, "sleep", lambda s: None)

    def fake_ctl(container, command, stdin=None, check=True):
        # The controller is down for three lookups, then has the job as 42;
        # like ctl(), a failed command raises unless check=False.
        calls.append(command)
        if len(calls) <= 3:
            if check:
                raise ReplayError("'squeue' failed: Unable to contact slurm controller")
            return ""
        return "42\n7 R1:a\n8|R1:b\n" if "%j" in command else "42\n42\n"
    monkeypatch.setattr(slurm_io, "ctl", fake_ctl)

    class Dying:
        """Took job 42, died before answering; a second submission would be 43."""
        container, n = "c", 0

        def submit(self, fields):
            self.n += 1
            if self.n == 1:
                raise ReplayError("tb-submit: no answer")
            return 43
    sub = Dying()
    assert slurm_io.submit_with_retry(sub, ["R1:a"], run_dir) == 42 and sub.n == 1, sub.n
    assert any("does not answer" in t for t in shown), shown
    # RESUME's reconcile: no answer is waited for, not taken for "no jobs".
    calls.clear()
    submitted = {}
    added = reconcile("c", "R1", submitted, os.path.join(run_dir, "submitted.tsv"))
    assert added == 2 and submitted == {"a": 7, "b": 8}, submitted

    # A controller that never answers stops the run after ANSWER_WAIT, in
    # one line, with nothing submitted again.
    def silent(*a, **k):
        raise ReplayError("'squeue' failed: Unable to contact slurm controller")
    monkeypatch.setattr(slurm_io, "ctl", silent)
    monkeypatch.setattr(slurm_io, "ANSWER_WAIT", 5)
    sub = Dying()
    with pytest.raises(ReplayError) as e:
        slurm_io.submit_with_retry(sub, ["R1:c"], run_dir)
    assert sub.n == 1 and "\n" not in str(e.value), (sub.n, e.value)
    assert "the controller gave no answer in " in str(e.value)
    assert "nothing was submitted again" in str(e.value)


def test_the_time_left_shown_is_the_work_not_done_on_the_whole_machine():
    # a done; b running for 2 of its 5 wall seconds; c pending; d not
    # submitted yet: (0 + 2 x 3 + 8 x 1 + 4 x 4) node-s on 8 nodes.
    plan = [{"log_id": k, "nodes": n, "runtime": r}
            for k, n, r in (("a", 4, 100), ("b", 2, 50), ("c", 8, 10), ("d", 4, 40))]
    queued = {"b": ("RUNNING", 1000, None, None), "c": ("PENDING", None, None, None)}
    assert time_left(plan, {"a": 1, "b": 2, "c": 3}, queued, 1002, 10, 8) == 3.75


def test_reservations_tsv_notes_the_first_job_blocked_on_resources_when_it_changes(tmp_path):
    p = str(tmp_path / "r.tsv")
    order = {"a": 0, "b": 1, "c": 2}
    q = {"a": ("RUNNING", 5, None, None), "b": ("PENDING", None, None, 100),
         "c": ("PENDING", None, None, 50)}
    last = note_reservation(p, order, q, 1.0, None)
    last = note_reservation(p, order, q, 2.0, last)
    q["b"] = ("PENDING", None, None, 90)
    last = note_reservation(p, order, q, 3.0, last)
    last = note_reservation(p, order, {"c": ("PENDING", None, None, None)}, 4.0, last)
    with open(p) as f:
        assert f.read() == "1.000\tb\t100\n3.000\tb\t90\n"


def test_held_jobs_of_the_run_are_named_in_the_progress_line():
    assert held_note({"b": ("RUNNING", 1000, None, None),
                      "c": ("PENDING", None, None, None)}) == ""
    assert held_note({"c": ("PENDING", None, "17", None), "d": ("PENDING", None, "9", None),
                      "e": ("PENDING", None, None, None)}) == \
        ", 2 held by Slurm (make exec CMD='squeue -j 9,17'; scontrol release to go on)"


def test_bad_rerun_faulted_and_auto_recover_values_are_one_line_errors():
    """(tests/rerun.bats checks make replay's own check of them.)"""
    said = []
    for argv in (["--resume", "F", "--rerun-faulted", "yes"], ["--rerun-faulted", "1"],
                 ["--auto-recover", "2"]):
        with pytest.raises(ReplayError) as e:
            parse_args(["--log", "theta"] + argv)
        said.append(str(e.value))
    assert said == ["RERUN_FAULTED=yes: expected 0 or 1",
                    "RERUN_FAULTED=1 needs RESUME=<run-id>: the run whose jobs a fault hit",
                    "AUTO_RECOVER=2: expected 0 or 1"]
