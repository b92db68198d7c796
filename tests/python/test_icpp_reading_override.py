"""READING=<sizes>/<limits>/<ranks> on a make experiment line: a Table 3
definition (or any continuous one) under a named reading of issue 26 in one
command, e.g. `make experiment EXP=icpp-table3-mira READING=authors/none/authors`,
without knowing that the authors' sizes replace SCALE; and experiment.json
naming the policies the twin costs at every start (SIM_COSTS)."""

import json
import os

import pytest

from workloads.experiment.definition import (ROOT, apply_overrides, override_names,
                                             parse_definition)
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import plan, planned_runs


def runs_of(name, sets):
    d = parse_definition(os.path.join(ROOT, "experiments", name + ".exp"))
    apply_overrides(d, sets)
    return d, planned_runs(d)


@pytest.mark.parametrize("log", ["theta", "mira", "intrepid"])
def test_the_authors_reading_sets_sizes_limits_ranks_and_drops_scale(log):
    d, runs = runs_of(f"icpp-table3-{log}", ["READING=authors/none/authors"])
    assert len(runs) == 7
    for r in runs:
        p = r["params"]
        assert (p["SIZES"], p["LIMITS"], p["OPTIONS"]) == ("authors", "none", "ranks=authors")
        # The authors' scale() replaces SCALE (the replay refuses both).
        assert "SCALE" not in p
    # The table says what the command line changed, and from what.
    (said,) = d.overrides
    assert said.startswith("READING=authors/none/authors given on the command line")
    assert "SIZES logged" in said and "LIMITS ours" in said
    assert ("SCALE 4" in said) == (log != "theta")


def test_the_projects_reading_is_the_definitions_own():
    _, plain = runs_of("icpp-table3-mira", [])
    _, named = runs_of("icpp-table3-mira", ["READING=logged/ours/taken"])
    assert [r["params"] for r in named] == [r["params"] for r in plain]
    assert plain[0]["params"]["SCALE"] == "4" and "OPTIONS" not in plain[0]["params"]


def test_ranks_replace_only_the_ranks_word_of_options():
    _, runs = runs_of("icpp-table3-theta", ["OPTIONS=eq3=path,ranks=index",
                                            "READING=authors/ours/authors"])
    assert {r["params"]["OPTIONS"] for r in runs} == {"eq3=path,ranks=authors"}
    _, runs = runs_of("icpp-table3-theta", ["OPTIONS=eq3=path,ranks=index",
                                            "READING=logged/none/taken"])
    assert {r["params"]["OPTIONS"] for r in runs} == {"eq3=path"}
    assert {r["params"]["LIMITS"] for r in runs} == {"none"}


@pytest.mark.parametrize("value", ["halved/none/taken", "authors/none", "authors/none/authors@theta",
                                   "authors/never/taken"])
def test_a_bad_reading_is_one_line_naming_the_form(value):
    with pytest.raises(ExperimentError) as e:
        runs_of("icpp-table3-theta", [f"READING={value}"])
    assert str(e.value).startswith(f"READING={value}: expected <sizes>/<limits>/<ranks>")
    assert "\n" not in str(e.value)


def test_kind_readings_refuses_one_reading_for_all_runs():
    with pytest.raises(ExperimentError, match="kind readings sets it per run"):
        runs_of("icpp-readings", ["READING=authors/none/authors"])


def test_scripts_experiment_passes_reading_and_experiment_json_names_the_policies(tmp_path):
    # scripts/experiment passes what `overrides` prints as --set K=V.
    assert "READING" in override_names()
    d = parse_definition(os.path.join(ROOT, "experiments", "icpp-fig8.exp"))
    apply_overrides(d, ["READING=authors/none/authors"])
    out = str(tmp_path / "exp")
    plan(d, "fig8-test", out, ["READING=authors/none/authors"])
    with open(os.path.join(out, "experiment.json")) as f:
        meta = json.load(f)
    # Figure 8 runs the baseline alone; the twin costs all four at each start.
    assert meta["policies"] == ["default1905", "greedy", "balanced", "adaptive"]
    with open(os.path.join(out, "runs.tsv")) as f:
        params = [line.rstrip("\n").split("\t")[6] for line in f]
    assert len(params) == 3 and all("SIZES=authors" in p and "SCALE" not in p for p in params)
