"""BF_WINDOW (workloads/bf_window.py, params.tsv): backfill's bf_window in
minutes reaches the generated slurm.conf (make up), the replay's manifest
and the twin's --bf-window (make simulate, ENGINE=sim and both), from one
declaration; unset, nothing changes (Slurm's default, 1440 min); a bad
value is one line naming BF_WINDOW wherever it is given."""

import argparse
import json
import os
import subprocess

import pytest

from workloads import bf_window, params, simulate
from workloads.experiment.definition import apply_overrides, find_definition
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import planned_runs
from workloads.experiment.tables import pace_text
from workloads.replay import cli
from workloads.replay.cli import parse_args
from workloads.replay.errors import ReplayError


def test_one_declaration_an_int_the_replay_and_experiments_take():
    p = params.by_name()["BF_WINDOW"]
    assert (p.type, p.default, p.flag, p.experiment) == ("int", "", "--bf-window", True)
    assert "1440" in p.help and "at least as long as the highest allowed time limit" in p.help
    assert bf_window.SLURM_DEFAULT_MIN == 1440 and bf_window.MAX_MIN == 43200


@pytest.mark.needs_registry
def test_slurm_conf_gets_bf_window_only_when_set_and_resolution_stays(tmp_path, tiny):
    assert tiny.generate().returncode == 0
    words = tiny.sched_params()
    default = list(words)
    assert not any(w.startswith("bf_window") for w in words)
    assert tiny.cluster_env()["BF_WINDOW"] == ""
    assert tiny.generate("--bf-window", "2000").returncode == 0
    words = tiny.sched_params()
    # The same parameters and one more: the window, nothing else moved
    # (bf_resolution stays 1 s; no bf_window_linear).
    assert words == default + ["bf_window=2000"]
    assert "bf_resolution=1" in words and not any("linear" in w for w in words)
    assert tiny.cluster_env()["BF_WINDOW"] == "2000"
    assert tiny.generate("--bf-window", "43200").returncode == 0
    assert tiny.sched_params()[-1] == "bf_window=43200"


@pytest.mark.parametrize("bad", ["-5", "0", "1.5", "2000min", "43201"])
def test_generate_refuses_a_bad_window_in_one_line_writing_nothing(tmp_path, bad, tiny):
    r = tiny.generate("--bf-window", bad)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: BF_WINDOW={bad}: expected whole minutes from 1 to 43200 (Slurm's "
        "bf_window; unset: Slurm's default, 1440)"]
    assert not (tmp_path / "tiny").exists()


@pytest.mark.needs_registry
@pytest.mark.parametrize("bad,said", [("-5", "BF_WINDOW=-5: expected whole minutes"),
                                      ("0", "BF_WINDOW=0: expected whole minutes"),
                                      ("1.5", "BF_WINDOW=1.5: expected a whole number"),
                                      ("x", "BF_WINDOW=x: expected a whole number")])
def test_the_replays_and_the_twins_parser_refuse_a_bad_window_in_one_line(bad, said):
    for extra in (None, simulate.extra_args):
        argv = ["--log", "theta", "--bf-window", bad] + (["--cluster", "tiny"] if extra else [])
        with pytest.raises(ReplayError) as e:
            parse_args(argv, extra)
        assert str(e.value).startswith(said) and "\n" not in str(e.value)


@pytest.mark.needs_registry
def test_the_replays_check_prints_the_window_make_up_then_writes(tmp_path, capsys, root):
    log = tmp_path / "one.swf"
    log.write_text("1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    base = ["--log", str(log), "--root", root]
    assert cli.check(parse_args(base + ["--bf-window", "2000"]), "/nonexistent") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "bf_window=2000"
    assert cli.check(parse_args(base), "/nonexistent") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "bf_window="


@pytest.mark.needs_registry
def test_a_resume_keeps_its_window_and_refuses_another():
    args = parse_args(["--log", "theta", "--resume", "R"])
    assert cli.resumed_bf_window(args, {"bf_window_min": 2000}) == 2000
    assert cli.resumed_bf_window(args, {}) is None
    other = parse_args(["--log", "theta", "--resume", "R", "--bf-window", "43200"])
    with pytest.raises(ReplayError, match=r"^BF_WINDOW=43200: RESUME=R began with "
                                          r"BF_WINDOW=2000 min; drop BF_WINDOW$"):
        cli.resumed_bf_window(other, {"bf_window_min": 2000})


@pytest.mark.needs_registry
def test_a_new_run_records_the_window_the_cluster_runs(tmp_path, monkeypatch):
    """cluster.env's BF_WINDOW, which make up wrote with slurm.conf: the
    manifest's bf_window_min; a BF_WINDOW the cluster does not run is
    refused (make replay applies it first)."""
    monkeypatch.setenv("TESTBED_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("TESTBED_PROJECT", raising=False)
    monkeypatch.delenv("TESTBED_CLONE_PROJECT", raising=False)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "cluster").write_text("tiny\n")
    env = tmp_path / "build" / "clusters" / "tiny"
    env.mkdir(parents=True)
    for written, given, want in (("BF_WINDOW=2000\n", None, 2000), ("BF_WINDOW=2000\n", "2000", 2000),
                                 ("BF_WINDOW=\n", None, None), ("", None, None)):
        (env / "cluster.env").write_text("NODES=32\n" + written)
        argv = ["--log", "theta", "--root", str(tmp_path)] + (["--bf-window", given] if given else [])
        assert cli.run_bf_window(parse_args(argv)) == want
    (env / "cluster.env").write_text("NODES=32\nBF_WINDOW=\n")
    with pytest.raises(ReplayError, match=r"^BF_WINDOW=2000: the cluster runs bf_window "
                                          r"Slurm's default \(1440 min\)"):
        cli.run_bf_window(parse_args(["--log", "theta", "--root", str(tmp_path),
                                      "--bf-window", "2000"]))


def run_sim_command(monkeypatch, tmp_path, manifest):
    seen = {}

    def fake_run(cmd, **kw):
        seen["cmd"] = cmd
        return subprocess.CompletedProcess(cmd, 0, "", "")
    monkeypatch.setattr(simulate.subprocess, "run", fake_run)
    args = argparse.Namespace(policy="default1905", backfill="slurm", lag=0.0, bf_cost=0.0,
                              options="")
    simulate.run_sim("tb-sim", str(tmp_path), args, manifest, None)
    cmd = seen["cmd"]
    return cmd[cmd.index("--bf-window") + 1]


@pytest.mark.parametrize("manifest,log_s", [
    ({"speedup": 1.0, "clock": "virtual", "bf_window_min": None}, "86400"),
    ({"speedup": 1.0, "clock": "virtual"}, "86400"),          # runs before BF_WINDOW
    ({"speedup": 1.0, "clock": "virtual", "bf_window_min": 2000}, "120000"),
    ({"speedup": 1.0, "clock": "virtual", "bf_window_min": 43200}, "2592000"),
    # CLOCK=scaled: a Slurm minute is 60 x SPEEDUP log s, every digit.
    ({"speedup": 100.0, "clock": "scaled", "bf_window_min": 2000}, "12000000"),
    ({"speedup": 123.5, "clock": "scaled", "bf_window_min": 43199}, "320104590")])
def test_the_twin_plans_as_far_as_the_manifest_says_in_log_seconds(monkeypatch, tmp_path,
                                                                     manifest, log_s):
    assert run_sim_command(monkeypatch, tmp_path, manifest) == log_s


@pytest.mark.needs_tb_sim
def test_make_simulate_takes_bf_window_into_its_manifest_and_command(tmp_path, root):
    path = str(tmp_path / "two.swf")
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 32\n")
        f.write("1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
        f.write("2 10 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert simulate.main(["--cluster", "tiny", "--log", path, "--policy", "greedy",
                          "--root", root, "--results", str(tmp_path / "runs"),
                          "--bf-window", "2000"]) == 0
    (run_id,) = os.listdir(tmp_path / "runs")
    with open(tmp_path / "runs" / run_id / "manifest.json") as f:
        m = json.load(f)
    assert m["bf_window_min"] == 2000
    assert "--bf-window 120000 " in m["sim"]["command"]


@pytest.mark.needs_registry
def test_a_definition_and_the_command_line_set_it_and_refuse_bad_values_in_one_line(root):
    d = find_definition("icpp-table3-theta", os.path.join(root, "experiments"))
    assert ("BF_WINDOW", "") not in d.params            # the definition's default: unset
    apply_overrides(d, ["BF_WINDOW=2000"], select=False)
    assert all(r["params"]["BF_WINDOW"] == "2000" for r in planned_runs(d))
    assert d.overrides[-1] == "BF_WINDOW=2000 given on the command line (definition: unset)"
    for bad in ("-1", "1.5", "0", "50000"):
        d = find_definition("icpp-table3-theta", os.path.join(root, "experiments"))
        with pytest.raises(ExperimentError) as e:
            apply_overrides(d, [f"BF_WINDOW={bad}"], select=False)
        assert str(e.value).startswith(f"BF_WINDOW={bad}: expected whole minutes")
        assert "\n" not in str(e.value)


def test_the_tables_name_a_set_window_and_mixed_runs_and_stay_silent_otherwise():
    m = {"clock": "virtual", "clock_rate": 1000.0, "speedup": 1.0}
    assert pace_text(m) == "CLOCK=virtual at rate 1000"
    w = dict(m, bf_window_min=2000)
    assert pace_text(w) == "CLOCK=virtual at rate 1000, BF_WINDOW=2000 min"
    assert pace_text(w, [w]) == pace_text(w)
    assert pace_text(w, [m]) == ("CLOCK=virtual at rate 1000, runs MIXED in backfill's window: "
                                 "1 with BF_WINDOW=2000 min; 1 with bf_window Slurm's default "
                                 "(1440 min)")


@pytest.mark.needs_tb_sim
def test_the_twin_of_an_emulation_run_takes_the_runs_window(tmp_path, twin_of_emulation, root):
    """ENGINE=both and make simulate RUN=: the twin re-runs an emulation's
    plan (here a twin run standing in for it, its engine fields dropped)
    with the window its manifest records, not the default."""
    path = str(tmp_path / "two.swf")
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 32\n")
        f.write("1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
        f.write("2 10 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n")
    runs = tmp_path / "runs"
    assert simulate.main(["--cluster", "tiny", "--log", path, "--policy", "greedy",
                          "--root", root, "--results", str(runs), "--bf-window", "43200"]) == 0
    (run_id,) = os.listdir(runs)
    emu = str(runs / run_id)
    with open(twin_of_emulation(emu, root) / "manifest.json") as f:
        t = json.load(f)
    assert t["bf_window_min"] == 43200
    assert "--bf-window 2592000 " in t["sim"]["command"]
