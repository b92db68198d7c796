"""The whole ICPP-W Table 3 in one command (issue 26): experiments/
icpp-table3.exp plans exactly the union of the three per-log definitions'
runs, each with the same cluster and parameters, and takes the paper's
numbers from their paper.* lines (paper_from) rather than a copy; the
experiment's own directory keeps copies of those definitions, so its
table reads the same numbers later (icpp-readings reads them so too).
paper_from's refusals."""

import collections
import os

import pytest

from workloads.experiment.cli import main
from workloads.experiment.definition import ROOT, apply_overrides, parse_definition
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import plan

EXPERIMENTS = os.path.join(ROOT, "experiments")
PER_LOG = ["icpp-table3-theta", "icpp-table3-mira", "icpp-table3-intrepid"]


def definition(name):
    return parse_definition(os.path.join(EXPERIMENTS, name + ".exp"))


def planned(tmp_path, name, sets=()):
    """The offline plan's runs.tsv (make experiment's), without each line's
    number and Compose project: log, cluster, pattern, policy, parameters."""
    d = definition(name)
    apply_overrides(d, list(sets))
    out = str(tmp_path / name)
    plan(d, "x", out, list(sets))
    with open(os.path.join(out, "runs.tsv"), encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")[2:]) for line in f]


def test_the_whole_table_plans_the_union_of_the_three_definitions_runs(tmp_path):
    whole = planned(tmp_path, "icpp-table3")
    union = [r for name in PER_LOG for r in planned(tmp_path, name)]
    # 3 logs x (the baseline once + 3 policies x 2 patterns).
    assert len(whole) == len(union) == 21
    assert collections.Counter(whole) == collections.Counter(union)
    # A cluster and a SCALE per log (cluster.<log>, SCALE.<log>).
    assert {(r[0], r[1], "SCALE=4" in r[4].split()) for r in whole} == {
        ("theta", "hpc2010", False), ("mira", "cori", True), ("intrepid", "cori", True)}


@pytest.mark.parametrize("log", ["theta", "mira", "intrepid"])
def test_one_log_of_the_whole_table_is_that_logs_definition(tmp_path, log):
    assert planned(tmp_path, "icpp-table3", [f"LOGS={log}"]) == \
        planned(tmp_path, f"icpp-table3-{log}")


@pytest.mark.parametrize("name", ["icpp-table3", "icpp-readings"])
def test_the_paper_numbers_are_the_three_definitions_and_not_copied(name):
    d = definition(name)
    want, text = {}, {}
    for per_log in PER_LOG:
        one = definition(per_log)
        want.update(one.paper)
        text.update(one.paper_text)
    assert len(want) == 3 * 2 * 7
    assert d.paper == want and d.paper_text == text
    assert d.paper_from == PER_LOG
    with open(os.path.join(EXPERIMENTS, name + ".exp"), encoding="utf-8") as f:
        assert not [line for line in f if line.startswith("paper.")]


def test_the_experiment_directory_reads_the_same_numbers_later(tmp_path):
    d = definition("icpp-table3")
    out = tmp_path / "exp"
    plan(d, "x", str(out), [])
    assert sorted(p.name for p in out.glob("*.exp")) == sorted(
        ["definition.exp"] + [n + ".exp" for n in PER_LOG])
    assert parse_definition(str(out / "definition.exp")).paper == d.paper
    # The table of the experiment (no run finished yet): every log's rows,
    # the paper's side filled from the per-log definitions.
    assert main(["table", str(out)]) == 0
    md = (out / "table.md").read_text()
    assert "The paper's numbers: the `paper.*` lines of icpp-table3-theta, " \
        "icpp-table3-mira, icpp-table3-intrepid." in md
    for log, cell in [("theta", "1,740"), ("mira", "3,956"), ("intrepid", "1,351")]:
        row = next(line for line in md.splitlines()
                   if line.startswith(f"| {log} | rhvd | greedy (not run) |"))
        assert f"| {cell} |" in row


def write(tmp_path, name, text, paper=""):
    path = tmp_path / f"{name}.exp"
    path.write_text("logs = theta\ncluster = tiny\npolicies = default greedy\n"
                    "baseline = default\npatterns = rd\nCLOCK = virtual\n" + text + paper)
    return str(path)


def test_paper_from_reads_other_definitions_of_the_same_directory(tmp_path):
    write(tmp_path, "a", "", "paper.exec_hours.theta.*.default = 10\n")
    write(tmp_path, "b", "paper_from = a\n", "paper.exec_hours.theta.rd.greedy = 9\n")
    d = parse_definition(write(tmp_path, "c", "paper_from = b\n"))
    assert d.paper == {("exec_hours", "theta", "*", "default"): 10.0,
                       ("exec_hours", "theta", "rd", "greedy"): 9.0}
    assert [os.path.basename(p) for p in d.paper_files] == ["b.exp", "a.exp"]


@pytest.mark.parametrize("files, error", [
    ({"c": "paper_from = nowhere\n"},
     r"c\.exp: paper_from nowhere: expected the name of a definition beside this one"),
    ({"c": "paper_from = ../c\n"}, r"paper_from \.\./c: expected the name of a definition"),
    ({"a": "paper.exec_hours.theta.*.default = 10\n",
      "c": "paper_from = a\npaper.exec_hours.theta.*.default = 10\n"},
     r"paper\.exec_hours\.theta\.\*\.default: given by this definition and by a$"),
    ({"a": "paper.wait_hours.theta.rd.greedy = 1\n",
      "b": "paper.wait_hours.theta.rd.greedy = 2\n", "c": "paper_from = a b\n"},
     r"paper\.wait_hours\.theta\.rd\.greedy: given by a and by b$"),
    ({"a": "paper_from = c\n", "c": "paper_from = a\n"},
     r"paper_from c: a definition that reads its own paper lines$"),
    ({"c": "paper_from = c\n"}, r"paper_from c: a definition that reads its own paper lines$"),
])
def test_paper_from_refuses_what_it_cannot_read_once(tmp_path, files, error):
    for name, text in files.items():
        write(tmp_path, name, text)
    with pytest.raises(ExperimentError, match=error):
        parse_definition(str(tmp_path / "c.exp"))
