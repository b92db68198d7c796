"""Kind cost-by-size's forms of §6.4's reductions (workloads/experiment/
cost_by_size.py): cost_state same | own, cost_jobs comm | all, aggregate
total | job-mean | range-mean, each worked by hand on five jobs; the
default form is the table as before; the words are checked; own plans
every policy's run."""

from types import SimpleNamespace

import pytest

from workloads.experiment.cost_by_size import job_costs, reduction, table_cost_by_size
from workloads.experiment.definition import apply_overrides, parse_definition
from workloads.experiment.errors import ExperimentError
from workloads.experiment.planning import planned_runs
from workloads.experiment.tables import Table

# Jobs (log job id, nodes, comm): a 4 comm, e 3 comm, b 2 comm, d 1 comm,
# c 2 compute. Same-state costs (default, greedy) on the baseline's run:
# a 10 -> 5 (-50 %), e 2 -> 2 (0 %), b 4 -> 3 (-25 %), d 0 -> 0 (no %),
# c 4 -> 8 (+100 %).
SAME = {"a": (4, 1, 10, 5), "e": (3, 1, 2, 2), "b": (2, 1, 4, 3), "d": (1, 1, 0, 0),
        "c": (2, 0, 4, 8)}
# Each policy's cost in its own run: default as above; greedy a 8, e 2,
# b 4, d 0, c 4 (x only in the baseline's run: left out under own).
OWN_GREEDY = {"a": 8, "e": 2, "b": 4, "d": 0, "c": 4}


def row(job, nodes, comm, cost, costs):
    return {"log_job_id": job, "nodes": nodes, "comm": comm, "cost": cost, "costs": costs}


def runs(pattern="rd"):
    base = [row(j, n, c, b, {"default": b, "greedy": g}) for j, (n, c, b, g) in SAME.items()]
    base.append(row("x", 4, 1, 6, {"default": 6, "greedy": float("nan")}))
    greedy = [row(j, SAME[j][0], SAME[j][1], v, {}) for j, v in OWN_GREEDY.items()]
    return {("theta", pattern, "default"): SimpleNamespace(rows=base, run_id="RB", pattern=pattern),
            ("theta", pattern, "greedy"): SimpleNamespace(rows=greedy, run_id="RG",
                                                          pattern=pattern)}


def write(tmp_path, extra=""):
    path = tmp_path / "f8.exp"
    path.write_text("kind = cost-by-size\nlogs = theta\ncluster = tiny\n"
                    "policies = default greedy\nbaseline = default\npatterns = rd\n"
                    "size_bins = 1-2 3-4\n"
                    "paper.cost_reduction_pct.theta.rd.greedy = 5.56\n" + extra)
    return str(path)


@pytest.mark.parametrize("jobs_word, aggregate, expected", [
    ("comm", "total", 37.5),              # 16 -> 10
    ("comm", "job-mean", 25.0),           # (50 + 0 + 25) / 3, d left out
    ("comm", "range-mean", 100 / 3),      # 1-2: 4 -> 3 (25); 3-4: 12 -> 7 (41.67)
    ("all", "total", 10.0),               # 20 -> 18
    ("all", "job-mean", -6.25),           # (50 + 0 + 25 - 100) / 4
    ("all", "range-mean", 25 / 12),       # 1-2: 8 -> 11 (-37.5); 3-4: 41.67
])
def test_each_aggregation_of_the_same_state_costs(tmp_path, jobs_word, aggregate, expected):
    d = parse_definition(write(tmp_path))
    jobs = job_costs(d, runs(), "theta", "rd", "same")
    # x has no greedy cost: left out, as before.
    assert len(jobs) == 5
    sel = [x for x in jobs if x["comm"] or jobs_word == "all"]
    assert reduction(sel, "greedy", "default", aggregate, d.size_bins) == pytest.approx(expected)


def test_own_state_reads_each_policys_own_run_matched_by_job(tmp_path):
    d = parse_definition(write(tmp_path))
    jobs = job_costs(d, runs(), "theta", "rd", "own")
    assert sorted((x["costs"]["default"], x["costs"]["greedy"]) for x in jobs) == \
        [(0, 0), (2, 2), (4, 4), (4, 4), (10, 8)]
    comm = [x for x in jobs if x["comm"]]
    assert reduction(comm, "greedy", "default", "total", d.size_bins) == pytest.approx(12.5)
    # Without the policy's run there is no own-state figure.
    only_base = {k: v for k, v in runs().items() if k[2] == "default"}
    assert job_costs(d, only_base, "theta", "rd", "own") is None


def test_the_default_form_is_the_table_as_before(tmp_path):
    d = parse_definition(write(tmp_path))
    assert (d.cost_state, d.cost_jobs, d.aggregate) == (["same"], ["comm"], ["total"])
    t = Table()
    table_cost_by_size(d, runs(), t)
    assert "| theta | rd | greedy | 37.50 | 5.56 |" in t.md
    assert ["theta", "rd", "all", 4, "4", "0.000", "2.5", "-37.500", "RB"] in t.csv_rows
    header, rows = t.more_csv["reductions.csv"]
    assert rows == [["theta", "rd", "greedy", "same", "comm", "total", 4, "37.500"]]


def test_every_form_asked_for_is_a_column(tmp_path):
    d = parse_definition(write(tmp_path, "cost_state = same own\ncost_jobs = comm all\n"
                               "aggregate = total job-mean\n"))
    t = Table()
    table_cost_by_size(d, runs(), t)
    head = next(line for line in t.md if line.startswith("| log | pattern | policy |"))
    assert head == ("| log | pattern | policy | same/comm/total | same/comm/job-mean | "
                    "same/all/total | same/all/job-mean | own/comm/total | own/comm/job-mean | "
                    "own/all/total | own/all/job-mean | paper |")
    assert ("| theta | rd | greedy | 37.50 | 25.00 | 10.00 | -6.25 | 12.50 | 6.67 | 10.00 | "
            "5.00 | 5.56 |") in t.md
    # The by-size table keeps the first word of each list: same, comm.
    assert "| theta | rd | **all** | 4 | 4.0 | 2.5 (-37.5%) |" in t.md


@pytest.mark.parametrize("extra, message", [
    ("cost_state = same later\n", r"cost_state 'same later': expected some of same own, each once$"),
    ("cost_jobs = comm comm\n", r"cost_jobs 'comm comm': expected some of comm all, each once$"),
    ("aggregate = median\n", r"aggregate 'median': expected some of total job-mean range-mean"),
])
def test_unknown_or_repeated_words_are_refused(tmp_path, extra, message):
    with pytest.raises(ExperimentError, match=message):
        parse_definition(write(tmp_path, extra))


def test_range_mean_needs_size_bins(tmp_path):
    path = tmp_path / "nb.exp"
    path.write_text("kind = cost-by-size\nlogs = theta\ncluster = tiny\n"
                    "policies = default greedy\nbaseline = default\npatterns = rd\n"
                    "aggregate = range-mean\n")
    with pytest.raises(ExperimentError, match=r"aggregate range-mean needs size_bins$"):
        parse_definition(str(path))


def test_own_state_plans_every_policy_per_log_and_pattern(tmp_path):
    d = parse_definition(write(tmp_path, "patterns = rd binomial\n"))
    assert [(r["pattern"], r["policy"]) for r in planned_runs(d)] == \
        [("rd", "default"), ("binomial", "default")]
    apply_overrides(d, ["COST_STATE=same own"])
    assert d.cost_state == ["same", "own"]
    assert [(r["pattern"], r["policy"]) for r in planned_runs(d)] == \
        [("rd", "default"), ("rd", "greedy"), ("binomial", "default"),
         ("binomial", "greedy")]
