"""The experiment kinds' registry (workloads/experiment/kinds.py): a kind
registered in the table alone, with no edit of the generic code
(definition, planning, results), is parsed, checked, planned and
tabulated; and the generic modules name no kind."""

import csv
import glob
import os
import re

import pytest

from workloads.experiment import definition, kinds
from workloads.experiment.definition import apply_overrides, parse_definition
from workloads.experiment.errors import ExperimentError, paper_key_name
from workloads.experiment.kind import Kind
from workloads.experiment.planning import plan, planned_runs
from workloads.experiment.results import build_table

PACKAGE = os.path.dirname(os.path.abspath(definition.__file__))


def widths_table(d, runs, t):
    t.csv_header = ["key", "jobs"]
    for key, r in sorted(runs.items()):
        t.csv_rows.append(["/".join(key), len(r.rows)])
        t.md.append(f"| {'/'.join(key)} | {len(r.rows)} |")


def widths_validate(d, where):
    if not all(w.isdigit() for w in d.widths):
        raise ExperimentError(f"{where}widths '{' '.join(d.widths)}': expected whole numbers")


def widths_plan(d):
    """The baseline once per log and width, JOBS = the width."""
    return [{"log": log, "cluster": d.cluster_of(log), "pattern": d.patterns[0],
             "policy": d.baseline, "params": dict(d.params_of(log), JOBS=w)}
            for log in d.logs for w in d.widths]


@pytest.fixture
def widths(monkeypatch):
    """A test-only kind with its own word list (widths), a check, a plan
    and a table; the policies default and greedy, pattern mix unless given."""
    monkeypatch.setitem(kinds.KINDS, "widths",
                        Kind("widths", widths_table, validate=widths_validate,
                             plan=widths_plan, lists={"widths": ["1"]},
                             default_patterns=["mix"]))


def write(tmp_path, name, text):
    path = tmp_path / f"{name}.exp"
    path.write_text("logs = theta\ncluster = tiny\npolicies = default greedy\n"
                    "baseline = default\n" + text)
    return str(path)


def test_a_registered_kind_is_parsed_checked_and_planned(widths, tmp_path):
    d = parse_definition(write(tmp_path, "w", "kind = widths\nwidths = 2 5\n"))
    assert (d.kind, d.widths, d.patterns) == ("widths", ["2", "5"], ["mix"])
    runs = planned_runs(d)
    assert [(r["log"], r["pattern"], r["policy"], r["params"]) for r in runs] == [
        ("theta", "mix", "default", {"JOBS": "2"}), ("theta", "mix", "default", {"JOBS": "5"})]
    out = tmp_path / "exp"
    plan(d, "w", str(out))
    lines = (out / "runs.tsv").read_text().splitlines()
    assert lines == ["1\tw-1\ttheta\ttiny\tmix\tdefault\tJOBS=2",
                     "2\tw-2\ttheta\ttiny\tmix\tdefault\tJOBS=5"]
    # Its list is overridden from the command line (WIDTHS=...), and
    # checked by its own hook.
    apply_overrides(d, ["WIDTHS=7"])
    assert d.widths == ["7"]
    assert d.overrides == ["WIDTHS=7 given on the command line (definition: 2 5)"]
    with pytest.raises(ExperimentError, match=r"widths 'x': expected whole numbers$"):
        parse_definition(write(tmp_path, "bad", "kind = widths\nwidths = x\n"))


def test_a_registered_kinds_list_is_refused_in_another_kinds_definition(widths, tmp_path):
    path = write(tmp_path, "c", "patterns = rd\nwidths = 3\n")
    with pytest.raises(ExperimentError,
                       match=r"c\.exp: widths are for kind widths, not continuous$"):
        parse_definition(path)
    # Unset, it is at its default in every definition.
    d = parse_definition(write(tmp_path, "c2", "patterns = rd\n"))
    assert (d.kind, d.widths) == ("continuous", ["1"])
    with pytest.raises(ExperimentError, match=r"kind = nope: expected one of continuous "
                       r"shadow individual cost-by-size sc18 treematch readings nedd tofa "
                       r"tofa-resilience widths$"):
        parse_definition(write(tmp_path, "n", "kind = nope\n"))
    with pytest.raises(ExperimentError, match=r"an experiment takes CLUSTER, POLICIES, "
                       r"PATTERNS, BASELINE, LOGS, COST_STATE, COST_JOBS, AGGREGATE, LOADS, TA_SPEEDUPS, RATIOS, SIZE_READINGS, "
                       r"LIMIT_READINGS, TABLE3_READINGS, "
                       r"APPS, REPS, SETUP, BASE_RUNTIME, NO_CONGESTOR, WARMUP, BACKGROUND, SHAPES, SUBJECT, FITTED, CONFIGS, WIDTHS and "):
        apply_overrides(d, ["WIDTH=3"])


def test_a_registered_kinds_table_gets_the_runs_by_its_key(widths, tmp_path, fixtures):
    d = parse_definition(write(tmp_path, "t", "kind = widths\npatterns = rd\n"))
    runs_dir = os.path.join(fixtures, "experiment", "runs")
    out = tmp_path / "table"
    build_table(d, [os.path.join(runs_dir, "default"), os.path.join(runs_dir, "greedy")],
                str(out), plots=True)
    with open(out / "table.csv", encoding="utf-8") as f:
        assert list(csv.reader(f)) == [["key", "jobs"], ["theta/rd/default", "3"],
                                       ["theta/rd/greedy", "3"]]
    md = (out / "table.md").read_text()
    # The default header, the kind's rows, the default plot section.
    assert "Ours: 2 replays, 3 jobs each of " in md
    assert "| theta/rd/greedy | 3 |" in md
    assert "No plot: each run's own plots" in md


def test_every_registered_kind_is_one_module_with_its_kind():
    assert list(kinds.KINDS) == ["continuous", "shadow", "individual", "cost-by-size",
                                 "sc18", "treematch", "readings", "nedd",
                                 "tofa", "tofa-resilience"]
    assert kinds.DEFAULT == "continuous"
    for name, module in zip(kinds.KINDS, kinds.MODULES):
        path = os.path.join(PACKAGE, f"{module}.py")
        with open(path, encoding="utf-8") as f:
            assert f.read().startswith(f'"""Kind {name} ('), path


def test_the_generic_modules_name_no_kind():
    """What differs by kind is in the kind's module: the rest compares no
    kind, names none in its code, imports no kind's module."""
    own = {f"{m}.py" for m in kinds.MODULES}
    names = "|".join(re.escape(k) for k in kinds.KINDS)
    generic = [p for p in glob.glob(os.path.join(PACKAGE, "*.py"))
               if os.path.basename(p) not in own]
    assert len(generic) >= 8
    for path in generic:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # The code without its docstrings and comments.
        code = re.sub(r'"""(.|\n)*?"""|#.*', "", text)
        where = os.path.basename(path)
        assert not re.search(r"kind\s*(==|!=|\bin\b|\bnot in\b)", code), where
        # kinds.py, the registry, names the kinds' modules.
        if where != "kinds.py":
            assert not re.search(rf"[\"']({names})[\"']", code), where
        assert not re.search(rf"from \.({'|'.join(kinds.MODULES)}) import", code), where


def test_a_paper_line_is_checked_for_its_metric_and_its_log():
    """errors.paper_key_name, the kinds' one check of a paper.* line's
    metric and, when given the logs, its log (or *)."""
    assert paper_key_name(("m", "a", "x"), ("m", "k"), "w: ", ["a"]) == "paper.m.a.x"
    assert paper_key_name(("k", "*", "x"), {"k": 0}, "w: ", ["a"]) == "paper.k.*.x"
    assert paper_key_name(("m", "b", "x"), ("m",), "w: ") == "paper.m.b.x"
    with pytest.raises(ExperimentError, match=re.escape(
            "w: paper.n.a: unknown metric 'n'; expected one of m k")):
        paper_key_name(("n", "a"), ("m", "k"), "w: ", ["a"])
    with pytest.raises(ExperimentError, match=re.escape(
            "w: paper.m.b: log 'b' is not among the logs 'a c'")):
        paper_key_name(("m", "b"), ("m",), "w: ", ["a", "c"])


def test_authors_sizes_beside_a_definitions_scale_is_refused_before_any_run(tmp_path):
    # icpp-table3-intrepid gives SCALE=4; SIZES=authors on the command line
    # was refused by each replay once its cluster was up (2026-11-28).
    d = parse_definition(os.path.join(definition.ROOT, "experiments",
                                      "icpp-table3-intrepid.exp"))
    apply_overrides(d, ["SIZES=authors"])
    out = tmp_path / "e"
    with pytest.raises(ExperimentError, match=re.escape(
            "icpp-table3-intrepid, log intrepid: SIZES=authors replaces SCALE=4: "
            "drop SCALE (or use SIZES=logged)")):
        plan(d, "e", str(out))
    assert not out.exists()
    d = parse_definition(os.path.join(definition.ROOT, "experiments",
                                      "icpp-table3-intrepid.exp"))
    apply_overrides(d, ["LIMITS=none"])
    assert plan(d, "e", str(out))


def test_an_end_guard_at_the_runs_rate_is_refused_before_any_run(tmp_path):
    # treematch-curie runs at SPEEDUP=100: END_GUARD=100 on the command line
    # was silently off in every run, and the run was read as guarded
    # (2026-11-28).
    path = os.path.join(definition.ROOT, "experiments", "treematch-curie.exp")
    d = parse_definition(path)
    apply_overrides(d, ["END_GUARD=100", "RATIOS=1/3"])
    out = tmp_path / "e"
    with pytest.raises(ExperimentError, match=re.escape(
            "treematch-curie: END_GUARD=100 at SPEEDUP=100: the guard slows")):
        plan(d, "e", str(out))
    assert not out.exists()
    d = parse_definition(path)
    apply_overrides(d, ["END_GUARD=10", "RATIOS=1/3"])
    assert plan(d, "e", str(out))


@pytest.mark.parametrize("exp, policies", [("treematch-curie", "default"),
                                           ("nedd-cori-onejob", None),
                                           ("tofa-table1", None)])
def test_policies_narrowed_on_the_command_line_keep_the_paper_lines(tmp_path, exp, policies):
    # POLICIES=default on treematch-curie was refused: its paper lines name
    # tm-a (2026-11-28). A paper line may name any of the definition's own
    # policies; a name none of them has is still refused.
    path = os.path.join(definition.ROOT, "experiments", f"{exp}.exp")
    d = parse_definition(path)
    keep = policies or d.baseline
    named = sorted({k[3] for k in d.paper} - {keep, "three", "*"})
    assert named, "the test needs paper lines for another policy"
    apply_overrides(d, [f"POLICIES={keep}"])
    assert d.policies == [keep] and named[0] in d.paper_policies()
    bad = tmp_path / f"{exp}.exp"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    key = next(k for k in d.paper if k[3] == named[0])
    bad.write_text(text + f"\npaper.{key[0]}.{key[1]}.{key[2]}.nosuch = 1\n")
    with pytest.raises(ExperimentError, match="nosuch"):
        apply_overrides(parse_definition(str(bad)), [f"POLICIES={keep}"])
