"""The ICPP-W readings of issue 26 without a cluster: the authors' sizes
(SIZES=authors) and no limits (LIMITS=none) in the replay's plan, the
scaled clock refused for a paper table, the baseline's execution beside
the log's runtimes in the continuous table, and kind readings' plan."""

import os
import shutil
import subprocess
import sys

import pytest

from workloads import logs
from workloads.experiment.definition import ROOT, apply_overrides, parse_definition
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import planned_runs
from workloads.experiment.readings import parse_reading, ranks_of
from workloads.experiment.results import build_table
from workloads.replay.cli import parse_args
from workloads.replay.errors import ReplayError
from workloads.replay.plan import authors_size, limit_grid, make_plan


def six_column(tmp_path, sizes, runtime=100):
    path = tmp_path / "w.jobs"
    lines = ["Job_name Submit Runtime Nodes Comment Perc"]
    lines += [f"{k + 1} {1000 + 10 * k} {runtime + k} {n} 1 50" for k, n in enumerate(sizes)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


SIZES = [1, 2, 3, 8, 512, 6, 64]


@pytest.mark.parametrize("log_name, want", [
    # continuous_run.py scale(): Theta halves jobs of more than one node
    # (integer division), Mira and Intrepid ('anl') divide by 4; never 0.
    ("theta", [1, 1, 1, 4, 256, 3, 32]),
    ("mira", [1, 1, 1, 2, 128, 1, 16]),
    ("intrepid", [1, 1, 1, 2, 128, 1, 16]),
])
def test_authors_sizes_are_their_scale_per_log(tmp_path, log_name, want):
    path = six_column(tmp_path, SIZES)
    args = parse_args(["--log", path, "--sizes", "authors"])
    plan, too_big = make_plan(args, logs.read(path), log_name, 4096, 1000.0)
    assert [p["nodes"] for p in plan] == want
    assert [authors_size(log_name, n) for n in SIZES] == want
    assert too_big == []
    # As logged: the log's sizes (SCALE=1); Mira and Intrepid's replay
    # default divides by 4, rounding up.
    args = parse_args(["--log", path, "--sizes", "logged", "--scale", "1"])
    plan, _ = make_plan(args, logs.read(path), log_name, 4096, 1000.0)
    assert [p["nodes"] for p in plan] == SIZES
    args = parse_args(["--log", path])
    plan, _ = make_plan(args, logs.read(path), log_name, 4096, 1000.0)
    assert [p["nodes"] for p in plan] == (
        SIZES if log_name == "theta" else [1, 1, 1, 2, 128, 2, 16])


def test_authors_sizes_refuse_another_log_and_a_scale(tmp_path):
    path = six_column(tmp_path, SIZES)
    args = parse_args(["--log", path, "--sizes", "authors"])
    with pytest.raises(ReplayError, match=r"^SIZES=authors: the authors' scale\(\) covers "
                       r"theta, mira, intrepid, not 'curie'; use SIZES=logged"):
        make_plan(args, logs.read(path), "curie", 4096, 1000.0)
    args = parse_args(["--log", path, "--sizes", "authors", "--scale", "2"])
    with pytest.raises(ReplayError, match=r"^SIZES=authors replaces SCALE=2: drop SCALE"):
        make_plan(args, logs.read(path), "theta", 4096, 1000.0)
    with pytest.raises(ReplayError, match=r"^SIZES=halved: expected logged or authors$"):
        parse_args(["--log", path, "--sizes", "halved"])
    with pytest.raises(ReplayError, match=r"^LIMITS=5x: expected ours or none$"):
        parse_args(["--log", path, "--limits", "5x"])


def test_limits_none_gives_no_limit_and_ours_five_runtimes_on_the_grid(tmp_path):
    path = six_column(tmp_path, [1, 2, 4], runtime=20000)
    args = parse_args(["--log", path, "--limits", "none"])
    plan, _ = make_plan(args, logs.read(path), "theta", 512, 1000.0)
    # 0: tb-submit sends no limit (NO_VAL), the partition's INFINITE.
    assert [p["limit_min"] for p in plan] == [0, 0, 0]
    args = parse_args(["--log", path, "--limit-grid", "60000"])
    assert args.limits == "ours"
    plan, _ = make_plan(args, logs.read(path), "theta", 512, 1000.0)
    grid = limit_grid(60000, 1000.0)
    # 5 x 20000 = 100000 log s, up to 120000 on the 60000-s grid: 2 wall min.
    assert grid == 60000
    assert [p["limit_min"] for p in plan] == [2, 2, 2]


def test_limits_none_rests_on_every_partition_being_infinite_with_no_default(tmp_path):
    """LIMITS=none submits without --time; the job is unlimited only because
    every partition generate.py writes has MaxTime=INFINITE and no
    DefaultTime (Slurm's backfill then records 525,600 min, a year, for the
    jobs it starts: docs/readings.md, time limits)."""
    out = tmp_path / "tiny"
    subprocess.run([sys.executable, os.path.join(ROOT, "emulated-clusters", "generate.py"),
                    "tiny", str(out)], check=True, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=ROOT))
    conf = (out / "slurm.conf").read_text()
    parts = [line for line in conf.splitlines() if line.startswith("PartitionName=")]
    assert len(parts) == 2
    for line in parts:
        assert "MaxTime=INFINITE" in line.split() and "DefaultTime" not in line, line
    assert "DefaultTime" not in conf


def write_def(tmp_path, name, text):
    path = tmp_path / f"{name}.exp"
    path.write_text("logs = theta\ncluster = tiny\npolicies = default greedy\n"
                    "baseline = default\npatterns = rd\n" + text)
    return str(path)


def test_a_paper_table_on_the_scaled_clock_is_refused_unless_it_says_why(tmp_path):
    paper = "paper.exec_hours.theta.*.default = 10\n"
    with pytest.raises(ExperimentError, match=r"p\.exp: CLOCK = scaled \(all logs\) in a "
                       r"definition with the paper's numbers: the scaled clock is for smoke "
                       r"tests; use CLOCK = virtual, or say why in 'clock_reason = \.\.\.'$"):
        parse_definition(write_def(tmp_path, "p", "CLOCK = scaled\n" + paper))
    with pytest.raises(ExperimentError, match=r"CLOCK = scaled \(theta\)"):
        parse_definition(write_def(tmp_path, "q", "CLOCK.theta = scaled\n" + paper))
    d = parse_definition(write_def(tmp_path, "r", "CLOCK = scaled\nclock_reason = a "
                                   "comparison with the old runs\n" + paper))
    assert d.notes == ["CLOCK = scaled (all logs): a comparison with the old runs"]
    # A smoke definition (no paper numbers) and a virtual paper table pass.
    parse_definition(write_def(tmp_path, "s", "CLOCK = scaled\n"))
    parse_definition(write_def(tmp_path, "v", "CLOCK = virtual\n" + paper))
    parse_definition(os.path.join(ROOT, "experiments", "smoke-tiny.exp"))


@pytest.mark.parametrize("name", ["icpp-table3", "icpp-table3-theta", "icpp-table3-mira",
                                  "icpp-table3-intrepid", "icpp-fig8", "icpp-table4-theta",
                                  "icpp-readings"])
def test_every_icpp_paper_table_runs_on_the_virtual_clock(name):
    d = parse_definition(os.path.join(ROOT, "experiments", f"{name}.exp"))
    clocks = {v for (k, _), v in d.params.items() if k == "CLOCK"}
    assert clocks == {"virtual"}, name
    assert d.paper and not d.clock_reason
    # the end guard (ours, off by default) is on in the paper's tables
    runs = planned_runs(d)
    assert runs and all(r["params"].get("END_GUARD") == "100" for r in runs), name


def run_copy(fixtures, tmp_path, name, runtimes):
    """A fixture run with plan.tsv's runtimes replaced (log seconds)."""
    dst = tmp_path / name
    shutil.copytree(os.path.join(fixtures, "experiment", "runs", name), dst)
    lines = (dst / "plan.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    k = head.index("runtime")
    out = [lines[0]]
    for line, rt in zip(lines[1:], runtimes):
        cols = line.split("\t")
        cols[k] = str(rt)
        out.append("\t".join(cols))
    (dst / "plan.tsv").write_text("\n".join(out) + "\n")
    return str(dst)


@pytest.mark.parametrize("runtimes, cell", [
    # The fixture's jobs ran 28800 + 36000 + 7200 s = 20 h.
    ([28800, 36000, 7200], "| theta | 20.0 | 20.0 | +0.0% |"),
    # The log says 19.6 h: the run's 20 h is 2 % above, flagged.
    ([28800, 34560, 7200], "| theta | 20.0 | 19.6 | +2.0% **more than 1 %: check the clock** |"),
])
def test_the_table_sets_the_baselines_execution_beside_the_logs_runtimes(
        tmp_path, fixtures, runtimes, cell):
    d = parse_definition(write_def(tmp_path, "t", "CLOCK = virtual\n"))
    base = run_copy(fixtures, tmp_path, "default", runtimes)
    greedy = os.path.join(fixtures, "experiment", "runs", "greedy")
    out = tmp_path / "table"
    build_table(d, [base, greedy], str(out))
    md = (out / "table.md").read_text()
    assert "| log | baseline exec h | log runtimes h | gap |" in md
    assert cell in md, md


def test_readings_plan_one_baseline_per_sizes_and_limits_then_table3_per_reading():
    d = parse_definition(os.path.join(ROOT, "experiments", "icpp-readings.exp"))
    apply_overrides(d, [])
    runs = planned_runs(d)
    # A plain run: the Theta baselines under the four sizes x limits.
    assert [(r["log"], r["policy"], r["params"]["SIZES"], r["params"]["LIMITS"])
            for r in runs] == [("theta", "default1905", s, lim)
                               for s in ("logged", "authors") for lim in ("ours", "none")]
    assert all("SCALE" not in r["params"] for r in runs if r["params"]["SIZES"] == "authors")
    d = parse_definition(os.path.join(ROOT, "experiments", "icpp-readings.exp"))
    apply_overrides(d, ["LOGS=mira", "TABLE3_READINGS=authors/none/authors"])
    runs = planned_runs(d)
    # 4 baselines, then 3 policies x 2 patterns with ranks=authors; the
    # baseline of authors/none serves them.
    assert len(runs) == 4 + 6
    assert {r["params"].get("OPTIONS") for r in runs[4:]} == {"ranks=authors"}
    assert {r["cluster"] for r in runs} == {"cori"}
    assert parse_reading("authors/none/authors@theta") == ("authors", "none", "authors",
                                                            "theta")
    with pytest.raises(ExperimentError, match=r"table3_readings 'halved/none/taken': expected"):
        parse_reading("halved/none/taken")
    assert ranks_of("eq3=pair,ranks=authors") == "authors" and ranks_of("") == "taken"
    # LOGS= narrowing the logs leaves out the readings of the others.
    d = parse_definition(os.path.join(ROOT, "experiments", "icpp-readings.exp"))
    apply_overrides(d, ["LOGS=theta", "FULL=1"])
    assert {r["log"] for r in planned_runs(d)} == {"theta"}
    with pytest.raises(ExperimentError, match=r"'authors/none/authors@thta': thta is not a "
                       r"named log"):
        apply_overrides(d, ["TABLE3_READINGS=authors/none/authors@thta"])


def test_readings_table_sets_baselines_table3_and_cost_ratios(tmp_path, fixtures):
    path = tmp_path / "rt.exp"
    path.write_text("kind = readings\nlogs = theta\ncluster = tiny\npolicies = default greedy\n"
                    "baseline = default\npatterns = rd\nsize_readings = logged\n"
                    "limit_readings = ours\ntable3_readings = logged/ours/taken\n"
                    "CLOCK = virtual\npaper.wait_hours.theta.*.default = 10\n"
                    "paper.exec_hours.theta.*.default = 20\n"
                    "paper.exec_hours.theta.rd.greedy = 15\n")
    d = parse_definition(str(path))
    base = run_copy(fixtures, tmp_path, "default", [28800, 36000, 7200])
    greedy = os.path.join(fixtures, "experiment", "runs", "greedy")
    out = tmp_path / "table"
    build_table(d, [base, greedy], str(out))
    md = (out / "table.md").read_text()
    # The baseline: 20 h of execution on 20 h of log runtimes, 2 h of
    # wait against the paper's 10 (0.2x), the closest of one reading.
    assert ("| theta | logged | ours | 20.0 | 20.0 | +0.0% | 20 | 2.0 | 10 | 0.20x | - | RD |"
            in md), md
    assert "- theta: closest to the paper's baseline wait: sizes logged, limits ours " \
           "(a factor 5.00 away)" in md
    # Table 3 under the reading: greedy 10 % slower where the paper has
    # 25 % faster, the order disagreeing.
    assert "| theta | rd | greedy | 22.0 | +10.0% | 15 | -25.0% | 3.0 | +50.0% | - | - |" in md
    assert "| theta | rd | exec_hours | default < greedy | greedy < default | no |" in md
    # The fixture's costs: of the two communication-intensive jobs one
    # had greedy cost the same as default, one 1.5 x.
    assert "| theta | rd | greedy | greedy | 2 | 0% | 50% | 50% | 1.250 |" in md
