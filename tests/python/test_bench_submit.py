"""bench/submit.py (make bench BENCH=submit): the plan read from the
policy registry, the rows and their table, and the submitters against an
echo loop on this machine (no container, no Slurm)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "submit.py"

# A registry as tb-alloc --list-policies writes it (name, family, traits,
# paper); made-up names, so that nothing here is a second list of the
# library's policies.
REGISTRY = "\n".join([
    "p-base\tfam-a\tcores\tpaper A's baseline",
    "p-one\tfam-b\toptions\tpaper B, Algorithm 1",
    "p-two\tfam-b\t-\tpaper B, Algorithm 2",
    "p-torus\tfam-t\tmatrix,options,torus\tpaper T, on a torus only",
    "p-torus2\tfam-t\tmatrix,torus\tpaper T again",
    "p-last\tfam-c\t-\tpaper C",
]) + "\n"


def load():
    spec = importlib.util.spec_from_file_location("bench_submit", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bench():
    return load()


def run(*args, stdin=""):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(SCRIPT), *args], input=stdin,
                          capture_output=True, text=True, env=env, check=False)


def test_plan_takes_each_family_first_policy_tree_first(bench):
    assert bench.plan(REGISTRY) == [
        ("p-base", "fam-a", "tree"), ("p-one", "fam-b", "tree"),
        ("p-last", "fam-c", "tree"), ("p-torus", "fam-t", "torus")]


def test_plan_only_names_checked_against_the_registry(bench):
    assert bench.plan(REGISTRY, "p-torus2, p-two p-two") == [
        ("p-two", "fam-b", "tree"), ("p-torus2", "fam-t", "torus")]
    with pytest.raises(bench.PlanError, match="unknown nope; valid: p-base p-one"):
        bench.plan(REGISTRY, "p-one nope")
    with pytest.raises(bench.PlanError, match="empty"):
        bench.plan("")


def test_plan_on_the_command_line():
    r = run("plan", "--only", "p-last", stdin=REGISTRY)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "p-last\tfam-c\ttree\n"
    r = run("plan", "--only", "bogus", stdin=REGISTRY)
    assert r.returncode == 2 and "BENCH_POLICIES: unknown bogus" in r.stderr


def test_plan_of_the_built_registry_has_one_policy_per_family(bench):
    built = Path(os.environ.get("TB_BUILD", ROOT / "build" / "c")) / "policies.tsv"
    if not built.exists():
        pytest.skip("no built registry (make -C plugins tools)")
    text = built.read_text()
    families = {line.split("\t")[1] for line in text.splitlines() if line}
    chosen = bench.plan(text)
    assert sorted(f for _, f, _ in chosen) == sorted(families)
    # TOFA's family, the only one that refuses a tree, goes last.
    assert [p for p in chosen if p[2] == "torus"] == chosen[len(chosen) - 1:]


def test_rows_and_table(bench):
    row = bench.format_row("p-one", "fam-b", "curie", 1000, "at once", 4.0, "1.50", 7.5,
                           2.25)
    assert row == "p-one\tfam-b\tcurie\t1000\tat once\t4.0\t250\t7.50\t2.25\t1.50"
    assert bench.parse_row(row)[6] == "250"
    with pytest.raises(ValueError):
        bench.parse_row("p-one\tfam-b\t1000")
    with pytest.raises(ValueError):
        bench.parse_row(row.replace("2.25", "x"))
    text = bench.table([row + "\n", "# a comment\n",
                        bench.format_row("-", "-", "curie", 1000, "client", 0.5, "1.2")])
    lines = text.splitlines()
    assert lines[0].split() == ["policy", "family", "machine", "jobs", "mode",
                                "wall_s", "submissions/s", "ctld_ms", "lock_ms", "load"]
    assert lines[1].split() == ["p-one", "fam-b", "curie", "1000", "at", "once",
                                "4.0", "250", "7.50", "2.25", "1.50"]
    assert lines[2].split()[4:] == ["client", "0.5", "2000", "-", "-", "1.2"]
    # Columns aligned: every line as long as the header's columns make it.
    assert len({len(x) for x in lines}) == 1


# sdiag's lines as Slurm 24.11 prints them (src/sdiag/sdiag.c:240).
SDIAG = """Remote Procedure Call statistics by message type
\tREQUEST_PARTITION_INFO                  ( 2009) count:12     ave_time:150    total_time:1800
\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:1000   ave_time:7421   total_time:7421000
\tREQUEST_JOB_INFO                        ( 2003) count:3      ave_time:305    total_time:915

Remote Procedure Call statistics by user
\troot            (       0) count:1015   ave_time:7000   total_time:7105715
"""


def test_submit_rpc_ms_from_sdiag(bench):
    assert bench.submit_rpc_ms(SDIAG) == pytest.approx(7.421)
    assert bench.submit_rpc_ms(SDIAG.replace("count:1000", "count:0")) is None
    assert bench.submit_rpc_ms("") is None


# slurmctld's log as the controller container gives it (SlurmctldDebug=info;
# Slurm 24.11.5 src/slurmctld/proc_req.c:3676-3677), with lines of other
# jobs and RPCs between.
CTLD_LOG = """[2026-11-27T15:00:37.101] _slurm_rpc_submit_batch_job: JobId=7 InitPrio=1 usec=90000
[2026-11-27T15:00:37.120] _slurm_rpc_submit_batch_job: JobId=11 InitPrio=4294901 usec=9000
[2026-11-27T15:00:37.121] sched: Allocate JobId=7 NodeList=c[0-5039] #CPUs=1 Partition=main
[2026-11-27T15:00:37.130] _slurm_rpc_submit_batch_job: JobId=12 InitPrio=4294900 usec=10500
[2026-11-27T15:00:37.140] _slurm_rpc_submit_batch_job: Requested node configuration is not available
[2026-11-27T15:00:37.150] _slurm_rpc_submit_batch_job: JobId=13 InitPrio=4294899 usec=8000
"""


def test_submit_lock_ms_from_the_log_of_the_pass_jobs(bench):
    # Job 7 (the at-once pass's filler, or a job before the pass) is left
    # out: (9000 + 10500 + 8000) / 3 us.
    assert bench.submit_lock_ms(CTLD_LOG, {11, 12, 13}) == pytest.approx(9.1667, abs=1e-4)
    assert bench.submit_lock_ms(CTLD_LOG, {12}) == pytest.approx(10.5)
    assert bench.submit_lock_ms(CTLD_LOG, {99}) is None
    assert bench.submit_lock_ms("", {11}) is None


def test_submit_collects_the_job_ids_answered(bench):
    ids = set()
    done, _ = bench.submit("", 20, 3, command=bench.ECHO, ids=ids)
    # The echo loops answer 1, 2, ... each: ids repeat across submitters.
    assert done == 20 and ids and ids <= set(range(1, 21))


def test_table_on_the_command_line():
    r = run("table", stdin="p\tf\tm\t10\tlater\t2.0\t5\t-\t-\t0.1\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].split() == ["p", "f", "m", "10", "later", "2.0", "5",
                                                "-", "-", "0.1"]


def test_job_fields_as_the_replay_gives_them(bench):
    f = bench.job_fields(3, 1234)
    assert [x[0] for x in f] == ["bench-submit:0", "bench-submit:1", "bench-submit:2"]
    assert all(x[1] == 1 and x[3] == 1234 for x in f)
    assert f[0][4] > f[1][4] > f[2][4]


def test_dry_pass_submits_every_job_through_the_pool(bench):
    done, wall = bench.submit("", 300, 4, command=bench.ECHO)
    assert done == 300 and wall > 0


def test_the_later_pass_stops_submitting_when_its_time_is_up(bench):
    # stop_after 0: nothing is given; the pass submits no job.
    assert bench.submit("", 50, 2, stop_after=0, command=bench.ECHO)[0] == 0


def test_dry_mode_prints_one_row():
    r = run("dry", "200", "--submitters", "2")
    assert r.returncode == 0, r.stderr
    f = r.stdout.rstrip("\n").split("\t")
    assert f[:5] == ["-", "-", "-", "200", "dry"] and int(f[6]) > 0 and f[7:9] == ["-", "-"]


def test_controller_log_gives_up_on_a_docker_that_does_not_answer(bench, tmp_path,
                                                                  monkeypatch, capsys):
    # A docker that hangs: the bench warns and goes on with no lock figure.
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(bench, "LOG_TIMEOUT_S", 1)
    assert bench.controller_log("ctld", 0) == ""
    assert capsys.readouterr().err == "warning: docker logs ctld: no answer in 1 s\n"
    fake.write_text("#!/bin/sh\necho 'usec=5 line'\n")
    assert bench.controller_log("ctld", 0) == "usec=5 line\n"
