"""The end guard in the replay, without a cluster: its options and
defaults, the slurm.conf lines it needs (generate.py's --jobcomp-loc),
the driver starting it (at the manifest's jobcomp offset) or turning it
off and stopping it before the final rate, a new run's and a resume's
settings, what summary.md and the tables say of it. The guard itself:
test_end_guard.py."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from workloads import endguard
from workloads import vclock
from workloads.replay import cli
from workloads.replay.driver import end_guard
from workloads.replay.errors import ReplayError
from workloads.replay.pacing import RateArbiter

# The records, and the guard on files, as test_end_guard.py makes them.
from test_end_guard import T, Guarded, record

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_options_and_their_defaults(capsys, tmp_path):
    args = cli.parse_args(["--log", "theta"])
    # off by default (ours, measured once); the ICPP paper definitions set it
    assert (args.end_guard, args.end_lead) == (0.0, 3.0)
    for argv, said in ((["--end-guard", "-1"], "END_GUARD=-1: expected a number, at least 0"),
                       (["--end-lead", "nan"], "END_LEAD=nan: expected a number, at least 0"),
                       (["--end-guard", "x"], "END_GUARD=x: expected a number")):
        with pytest.raises(ReplayError) as e:
            cli.parse_args(["--log", "theta"] + argv)
        assert str(e.value).startswith(said), str(e.value)
    log = os.path.join(ROOT, "tests", "fixtures", "tofa-chain4.txt")

    def jobcomp(*argv):
        assert cli.check(cli.parse_args(["--log", log] + list(argv)), str(tmp_path)) == 0
        out = capsys.readouterr().out
        return [x for x in out.splitlines() if x.startswith("jobcomp=")]
    assert jobcomp("--clock", "virtual") == ["jobcomp="]
    on = ["--end-guard", "100"]
    assert jobcomp("--clock", "virtual", *on) == [f"jobcomp={endguard.CONTAINER_FILE}"]
    assert jobcomp("--clock", "virtual", "--end-guard", "0") == ["jobcomp="]
    # a guard at the run's rate would slow nothing: refused, not silently
    # off (TreeMatch Curie, END_GUARD=100 at SPEEDUP=100, read as guarded)
    with pytest.raises(ReplayError) as e:
        cli.parse_args(["--log", log, "--clock", "virtual", "--speedup", "100"] + on)
    assert str(e.value) == ("END_GUARD=100 at SPEEDUP=100: the guard slows the clock "
                            "to its rate, so it must be below the run's; expected 0 "
                            "(off) or a rate below 100")
    assert jobcomp("--clock", "virtual", "--speedup", "100", "--end-guard", "99") == [
        f"jobcomp={endguard.CONTAINER_FILE}"]
    assert jobcomp("--clock", "scaled", *on) == ["jobcomp="]


def test_a_resumed_run_keeps_its_settings_and_one_from_before_the_guard_has_none():
    assert endguard.settings({"end_guard": {"rate": 10.0, "lead_s": 1.0,
                                            "jobcomp_offset": 512}}, 3.0) == \
        {"rate": 10.0, "lead_s": 1.0, "lost_wall_s": endguard.END_LOST_WALL,
         "jobcomp_offset": 512}
    assert endguard.settings({}, 3.0)["rate"] == 0.0


def test_the_driver_turns_the_guard_off_when_slurm_conf_does_not_write_the_records(
        tmp_path, monkeypatch):
    monkeypatch.setenv("TESTBED_PROJECT", "testbed")
    monkeypatch.setenv("TESTBED_CLONE_PROJECT", "testbed")
    conf = tmp_path / "build" / "clusters" / "tiny" / "slurm.conf"
    conf.parent.mkdir(parents=True)
    args = SimpleNamespace(root=str(tmp_path), end_lead=3.0)
    manifest = {"run_id": "R", "cluster": "tiny", "end_guard": {"rate": 100.0, "lead_s": 3.0}}
    clock = vclock.Clock("virtual", 1000.0, str(tmp_path / "vclock" / "clock"))
    run_dir = tmp_path / "run"
    run_dir.mkdir()

    def guard(text):
        conf.write_text(text)
        return end_guard(args, manifest, str(run_dir), clock, RateArbiter(1000.0, print))
    off = guard("ClusterName=tiny\nJobCompType=jobcomp/none\n")
    assert not off.enabled and "has no JobCompType=jobcomp/filetxt" in off.why_off
    on = guard("JobCompType=jobcomp/filetxt\nJobCompLoc=/run/testbed-vclock/jobcomp.txt\n")
    assert on.enabled and on.comp.path == str(tmp_path / "vclock" / "jobcomp.txt")
    assert on.launch.path == str(tmp_path / "vclock" / "launched-R.tsv")
    manifest["end_guard"]["rate"] = 0.0
    assert not guard("JobCompType=jobcomp/filetxt\n"
                     "JobCompLoc=/run/testbed-vclock/jobcomp.txt\n").enabled


def generate(tmp_path, *extra):
    return subprocess.run([sys.executable, os.path.join(ROOT, "emulated-clusters", "generate.py"),
                           "tiny", str(tmp_path / "tiny"), *extra], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=ROOT))


def test_slurm_conf_gets_jobcomp_filetxt_only_when_the_replay_asks(tmp_path):
    assert generate(tmp_path).returncode == 0
    conf = (tmp_path / "tiny" / "slurm.conf").read_text().splitlines()
    assert "JobCompType=jobcomp/none" in conf
    assert not any(x.startswith("JobCompLoc") for x in conf)
    assert generate(tmp_path, "--jobcomp-loc", endguard.CONTAINER_FILE).returncode == 0
    conf = (tmp_path / "tiny" / "slurm.conf").read_text().splitlines()
    assert "JobCompType=jobcomp/filetxt" in conf
    assert f"JobCompLoc={endguard.CONTAINER_FILE}" in conf
    assert "JobCompType=jobcomp/none" not in conf
    bad = generate(tmp_path, "--jobcomp-loc", "jobcomp.txt")
    assert bad.returncode == 1 and "expected an absolute path" in bad.stderr


def test_summary_md_says_what_the_guard_did_and_nothing_without_it(tmp_path, frozen):
    from metrics.summary import end_guard_lines
    g = Guarded(tmp_path)
    g.launched(f"11\t{T}\t{T}.1\t5\n")
    g.at(T + 2)
    g.recorded(record(11, "R:a", T, T + 17))
    g.at(T + 17.1)
    (line, _) = end_guard_lines(g.g.summary({"rate": 100.0, "lead_s": 3.0}))
    assert line.startswith("**Ends:** the end guard slowed the clock to rate 100 from 3 log s")
    assert "1 windows" in line and "a median 12 log s (at most 12)" in line
    assert "240 % of their runtimes" in line
    assert end_guard_lines({"rate": 100.0, "lead_s": 3.0}) == []     # stopped before the end
    assert end_guard_lines({"rate": 0.0, "windows": 0}) == []
    off = end_guard_lines({"rate": 100.0, "windows": 0, "enabled": False,
                           "off_because": "no JobCompLoc"})
    assert off[0] == "**Ends:** the end guard (END_GUARD=100) was off: no JobCompLoc."


def test_a_tables_clock_statement_names_the_end_guard_and_says_when_runs_mix():
    from workloads.experiment.tables import pace_text
    on = {"clock": "virtual", "clock_rate": 1000.0, "speedup": 1000.0,
          "end_guard": {"rate": 100.0, "lead_s": 3.0}}
    off = dict(on, end_guard={"rate": 0.0, "lead_s": 3.0})
    old = {"clock": "virtual", "clock_rate": 1000.0, "speedup": 1000.0}   # before the guard
    assert pace_text(on) == "CLOCK=virtual at rate 1000, END_GUARD=100"
    assert pace_text(off) == pace_text(old) == "CLOCK=virtual at rate 1000"
    assert pace_text(on, [on]) == pace_text(on)
    assert pace_text(on, [off, old]) == ("CLOCK=virtual at rate 1000, runs MIXED in the end "
                                         "guard: 2 with END_GUARD off; 1 with END_GUARD=100")
    gave_up = dict(on, end_guard=dict(on["end_guard"], enabled=False))
    assert pace_text(gave_up).endswith("END_GUARD=100 (turned itself off)")
    assert pace_text({"clock": "scaled", "speedup": 100.0, "end_guard": {"rate": 100.0}}) == \
        "SPEEDUP=100"


def test_the_replay_stops_the_guards_before_its_final_rate_1_whatever_ended_it(
        tmp_path, monkeypatch):
    from workloads.replay import driver
    said = []

    class FakeGuard:
        def stop(self):
            said.append("stop")

    def run_at_rate(args, run_dir, manifest, stopped, container, clock, guards):
        guards.append(FakeGuard())
        raise ReplayError("the controller went away")
    monkeypatch.setattr(driver, "controller", lambda: "ctl")
    monkeypatch.setattr(driver, "run_clock", lambda m, d: vclock.Clock(
        "virtual", 1000.0, str(tmp_path / "clock")))
    monkeypatch.setattr(driver, "ctl", lambda container, command: said.append(command))
    monkeypatch.setattr(driver, "run_at_rate", run_at_rate)
    with pytest.raises(ReplayError):
        driver.run(SimpleNamespace(state_dir=str(tmp_path)), str(tmp_path), {})
    assert said == [vclock.set_rate_command(1000.0), "stop", vclock.set_rate_command(1)]


def test_a_new_run_reads_jobcomp_from_the_files_end_and_a_resume_from_there_again(tmp_path):
    """M2: the file keeps every run of the testbed; a new run starts at
    its last complete line (kept in the manifest), a RESUME there too."""
    comp = tmp_path / endguard.FILE_NAME
    old = "".join(record(j, f"OLD:{j}", T, T + 5) for j in range(1, 301))
    comp.write_text(old + "JobId=999 UserId=root(0) Name=OLD:999 JobSt")   # being written
    kept = endguard.new_run(100.0, 3.0, str(comp))
    assert kept["jobcomp_offset"] == len(old.encode())
    assert endguard.new_run(0.0, 3.0, str(comp))["jobcomp_offset"] == 0
    assert endguard.new_run(100.0, 3.0, str(tmp_path / "none"))["jobcomp_offset"] == 0
    assert endguard.line_end(str(comp)) == len(old.encode())
    (tmp_path / "empty").write_text("")
    assert endguard.line_end(str(tmp_path / "empty")) == 0
    settings = endguard.settings({"end_guard": kept}, 3.0)
    g = endguard.EndGuard(str(tmp_path / "launched-R.tsv"), str(comp), "R", 1000.0, 100.0,
                          3.0, print, None, print, comp_offset=settings["jobcomp_offset"])
    with open(comp, "a") as f:
        f.write(" Partition=main StartTime=Unknown EndTime=Unknown\n")
        f.write(record(5, "R:5", T, T + 9))
    assert g.read() == 2          # the old runs' 300 lines are not read
    assert g.plan.records == {"5": [(T, T + 9)]}
    # the file made again (a new state directory): read from its start
    comp.write_text(record(6, "R:6", T, T + 9))
    g.read()
    assert "6" in g.plan.records


def test_the_driver_starts_the_guard_at_the_manifests_offset(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTBED_PROJECT", "testbed")
    monkeypatch.setenv("TESTBED_CLONE_PROJECT", "testbed")
    conf = tmp_path / "build" / "clusters" / "tiny" / "slurm.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("JobCompType=jobcomp/filetxt\nJobCompLoc=/run/testbed-vclock/jobcomp.txt\n")
    manifest = {"run_id": "R", "cluster": "tiny",
                "end_guard": {"rate": 100.0, "lead_s": 3.0, "jobcomp_offset": 4096}}
    clock = vclock.Clock("virtual", 1000.0, str(tmp_path / "vclock" / "clock"))
    (tmp_path / "run").mkdir()
    g = end_guard(SimpleNamespace(root=str(tmp_path), end_lead=3.0), manifest,
                  str(tmp_path / "run"), clock, RateArbiter(1000.0, print))
    assert g.enabled and g.comp.offset == 4096
    assert g.summary(endguard.settings(manifest, 3.0))["jobcomp_offset"] == 4096
