"""TOFA's faults (workloads/tofa_faults.py) and kind tofa-resilience
(workloads/experiment/tofa_resilience.py) without a cluster: the keyed
failure streams (common random numbers), the per-batch figures from sacct's
attempts, the plan and the table on hand-made runs, worked by hand."""

import json
import os

import pytest

from workloads import tofa_faults as tf
from workloads.experiment.definition import parse_definition
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import planned_runs
from workloads.experiment.results import build_table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_streams_are_keyed_and_common_to_every_policy():
    nf = tf.draw_nf(7, 3, 16, 512)
    assert nf == sorted(set(nf)) and len(nf) == 16 and all(0 <= n < 512 for n in nf)
    assert tf.draw_nf(7, 3, 16, 512) == nf          # the same batch, the same Nf
    assert tf.draw_nf(7, 4, 16, 512) != nf          # another batch, another
    # An attempt's draw depends on its key alone, not on what ran before.
    a = tf.failed_nodes(7, 3, 10, 2, nf, 0.5)
    tf.failed_nodes(7, 3, 10, 1, nf, 0.5)
    assert tf.failed_nodes(7, 3, 10, 2, nf, 0.5) == a
    assert tf.failed_nodes(7, 3, 10, 2, nf, 0.0) == []
    assert tf.failed_nodes(7, 3, 10, 2, nf, 1.0) == nf
    # pf = 0.02 over many attempts: about 2 % of the draws fail.
    fails = sum(len(tf.failed_nodes(1, 0, i, 1, list(range(16)), 0.02)) for i in range(5000))
    assert 0.015 < fails / (5000 * 16) < 0.025
    with pytest.raises(tf.DriverError):
        tf.draw_nf(0, 0, 65, 64)


def test_the_faults_file_lists_every_attempt():
    text = tf.faults_text(50, 0, 2, [0], 0.5, ["t000"], attempts=2)
    lines = text.splitlines()
    assert lines[0] == "batch 0"
    assert [ln.split()[:2] for ln in lines[1:]] == [["0", "1"], ["0", "2"], ["1", "1"],
                                                    ["1", "2"]]
    # Seed 50 (tests/tofa_faults.bats): instance 0 fails at attempt 1, not 2.
    assert lines[1] == "0 1 t000" and lines[2] == "0 2 -"
    assert tf.outage_text([0, 2], 0.02, ["t000", "t001", "t002"]) == "t000 0.02\nt002 0.02\n"


def att(batch, inst, state, code, start, end, elapsed):
    return {"batch": batch, "instance": inst, "State": state, "ExitCode": code,
            "Start": start, "End": end, "ElapsedRaw": str(elapsed)}


def test_summarize_counts_attempts_aborts_and_times():
    rows = [att(0, 0, "REQUEUED", "85:0", "2026-01-01T00:00:00", "2026-01-01T00:00:30", 30),
            att(0, 0, "COMPLETED", "0:0", "2026-01-01T00:00:31", "2026-01-01T00:01:01", 30),
            att(0, 1, "COMPLETED", "0:0", "2026-01-01T00:01:02", "2026-01-01T00:01:32", 30),
            att(1, 0, "COMPLETED", "0:0", "2026-01-01T00:02:00", "2026-01-01T00:02:20", 20)]
    b0, b1 = tf.summarize(rows, [0, 1], 2)
    # Batch 0: 3 attempts, the aborted one counted whole (L686-688).
    assert b0 == {"batch": 0, "instances": 2, "completed": 2, "attempts": 3, "aborts": 1,
                  "other_ends": 0, "aborted_instances": 1, "completion_s": 90, "span_s": 92.0,
                  "modelled_s": 0}
    assert b1["attempts"] == 1 and b1["aborts"] == 0 and b1["completion_s"] == 20
    # The record's runtime_scaled, summed over the attempts.
    rows[0]["AdminComment"] = "policy=tofa;runtime_scaled=29.5;tofa_hops=4"
    rows[1]["AdminComment"] = "policy=tofa;runtime_scaled=30"
    assert tf.summarize(rows, [0], 2)[0]["modelled_s"] == 59.5


def write_run(runs_dir, rid, app, nf, policy, batches):
    d = runs_dir / rid
    d.mkdir(parents=True)
    m = {"run_id": rid, "kind": "tofa-faults", "finished": True, "cluster": "torus512",
         "policy": policy, "app": app, "nf": nf, "pf": 0.02, "t0": 30, "seed": 1,
         "rate": 100, "batches": len(batches), "instances": batches[0][2]}
    (d / "manifest.json").write_text(json.dumps(m))
    (d / "batches.json").write_text(json.dumps([
        {"batch": k, "instances": n, "completed": n, "attempts": n + ab, "aborts": ab,
         "other_ends": 0, "aborted_instances": ab, "completion_s": s, "span_s": s,
         "modelled_s": s - 10}
        for k, (s, ab, n) in enumerate(batches)]))
    return str(d)


DEF = """kind = tofa-resilience
logs = npb-dt-c-85 lammps-64
cluster = torus512
policies = default tofa
baseline = default
configs = npb-dt-c-85:16
TOFA_INSTANCES = 10
paper.reduction_pct.npb-dt-c-85.nf16.tofa = 31
paper.abort_pct.npb-dt-c-85.nf16.default = 7.4
paper.abort_pct.npb-dt-c-85.nf16.tofa = 2
"""


def test_plan_one_run_per_configuration_and_policy(tmp_path):
    p = tmp_path / "r.exp"
    p.write_text(DEF.replace("configs = npb-dt-c-85:16",
                             "configs = npb-dt-c-85:16 lammps-64:8"))
    runs = planned_runs(parse_definition(str(p)))
    assert [(r["log"], r["pattern"], r["policy"]) for r in runs] == [
        ("npb-dt-c-85", "nf16", "default"), ("npb-dt-c-85", "nf16", "tofa"),
        ("lammps-64", "nf8", "default"), ("lammps-64", "nf8", "tofa")]
    assert runs[2]["params"]["RUNNER"] == "tofa-faults"
    assert runs[2]["params"]["TOFA_APP"] == "lammps-64"
    assert runs[2]["params"]["TOFA_NF"] == "8"
    assert runs[2]["params"]["TOFA_INSTANCES"] == "10"
    p.write_text(DEF.replace("configs = npb-dt-c-85:16", "configs = bt-64:16"))
    with pytest.raises(ExperimentError, match="'bt-64' is not among the logs"):
        parse_definition(str(p))
    p.write_text(DEF.replace("configs = npb-dt-c-85:16", "configs = npb-dt-c-85"))
    with pytest.raises(ExperimentError, match="expected <application>:<nf>"):
        parse_definition(str(p))


def test_the_table_by_hand(tmp_path):
    p = tmp_path / "r.exp"
    p.write_text(DEF)
    d = parse_definition(str(p))
    runs = tmp_path / "runs"
    # Two batches of 10 instances. default: 400 s with 1 aborted instance,
    # 300 s with none; tofa: 300 s and 240 s, none aborted.
    dirs = [write_run(runs, "a", "npb-dt-c-85", 16, "default", [(400, 1, 10), (300, 0, 10)]),
            write_run(runs, "b", "npb-dt-c-85", 16, "tofa", [(300, 0, 10), (240, 0, 10)])]
    build_table(d, dirs, str(tmp_path / "out"))
    md = (tmp_path / "out" / "table.md").read_text()
    # Per batch: (400-300)/400 = 25 %, (300-240)/300 = 20 %; mean 22.5 %;
    # of the sums (700-540)/700 = 22.857 %.
    assert "| 0 | 400 | 300 | 1 | 0 | 25.0 |" in md
    assert "| 1 | 300 | 240 | 0 | 0 | 20.0 |" in md
    # Modelled run times 10 s below: (390-290)/390 and (290-230)/290,
    # mean 23.2 %.
    assert "| tofa | 22.5 | 31 | 22.9 | 23.2 | 0.0 | 2 | 0.0 | 20 | 20 |" in md
    # default: 1 of 20 instances aborted, 1 abort in 21 attempts.
    assert "| default | (baseline) |  |  |  | 5.0 | 7.4 | 4.8 | 20 | 21 |" in md
    assert "tofa's batch time below default's in 2 of 2 batches" in md
    assert "tofa's abort ratio 0.0 % below default's 5.0 %" in md
    assert "default's abort ratio 5.0 % against the paper's 7.4 %: 2.4 points (NOT within 1.5)" in md
    rows = (tmp_path / "out" / "table.csv").read_text().splitlines()
    assert rows[0].startswith("application,nf,policy,batches")
    assert rows[2] == "npb-dt-c-85,16,tofa,2,20,20,0,540,22.500,22.857,0.000,0.000,31.0,2.0"


def test_the_definitions_parse():
    for name in ("tofa-resilience", "tofa-resilience-smoke"):
        d = parse_definition(os.path.join(ROOT, "experiments", f"{name}.exp"))
        assert d.kind == "tofa-resilience"
        assert {r["policy"] for r in planned_runs(d)} == {"default", "tofa"}


def test_a_held_attempt_is_released_to_start_a_second_later():
    # At starttime=now the relaunch could fall in the second the last
    # attempt's credential was revoked in, and slurmd refused it (the job
    # ended FAILED 1:0 with no run; RELAUNCH_DELAY).
    cmd = tf.realize_command("t002", "b0 i0 a1", "7")
    assert cmd.split(" && ") == [
        "scontrol update nodename=t002 state=down reason='tofa fault b0 i0 a1'",
        "scontrol update nodename=t002 state=resume",
        "scontrol release 7",
        f"scontrol update jobid=7 starttime=now+{tf.RELAUNCH_DELAY}"]
    assert tf.RELAUNCH_DELAY >= 1
    # A failed node of an attempt that completed: no job to release.
    assert "release" not in tf.realize_command("t040", "b0 i0 a1")


def run_instance_script(tmp_path, env_extra):
    """What the instance's script slept: ('sleep-until', page, deadline) or
    ('sleep', length), with stubbed tb-vclock and sleep, a faults file
    where attempt 1 of instance 0 of batch 0 sees no failure."""
    import subprocess
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "tb-vclock").write_text('#!/bin/bash\necho "$@" > "$SLEPT"\n')
    (stubs / "sleep").write_text('#!/bin/bash\necho "sleep $*" > "$SLEPT"\n')
    for f in stubs.iterdir():
        f.chmod(0o755)
    (tmp_path / tf.FAULTS_FILE).write_text("batch 0\n0 1 -\n")
    script = tmp_path / "job.sh"
    script.write_text(tf.JOB_SCRIPT.replace(tf.CONTAINER_DIR, str(tmp_path)))
    env = {k: v for k, v in os.environ.items()
           if k not in ("TB_VCLOCK_FILE", "SLURM_JOB_START_TIME", "TESTBED_RUNTIME_SCALED")}
    env.update(PATH=f"{stubs}:{os.environ['PATH']}", SLEPT=str(tmp_path / "slept"),
               TB_TOFA_BATCH="0", TB_TOFA_INSTANCE="0", TB_TOFA_T0="30", **env_extra)
    subprocess.run(["bash", str(script)], env=env, check=True, capture_output=True, text=True)
    return (tmp_path / "slept").read_text().split()


def test_an_attempt_ends_at_slurms_start_plus_its_time_on_the_virtual_clock(tmp_path):
    # Slurm's start is taken before the policy decides and the launch
    # follows, both in wall time: a sleep of a length from the script's
    # start added them (x rate) to every attempt's ElapsedRaw.
    slept = run_instance_script(tmp_path, {"TB_VCLOCK_FILE": "/page",
                                           "SLURM_JOB_START_TIME": "1000",
                                           "TESTBED_RUNTIME_SCALED": "30.54"})
    assert slept == ["sleep-until", "/page", "1030.540"]


def test_an_attempt_without_the_virtual_clock_sleeps_its_time(tmp_path):
    # the multi-host stack (no clock page): a plain sleep of T0
    assert run_instance_script(tmp_path, {"SLURM_JOB_START_TIME": "1000"}) == ["sleep", "30"]
