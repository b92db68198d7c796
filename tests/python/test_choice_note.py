"""Table 3's note (workloads/experiment/choice_note.py, metrics.choices'
greedy_vs_balanced): the count of starts where greedy and balanced would
part, on hand-made runs of three leaves of 4 nodes, worked by hand; with
the library's tb-alloc when it is built, else a stand-in."""

import csv
import json
import os
import stat
import subprocess
from types import SimpleNamespace

import pytest

from metrics import choices
from metrics.run_dir import ReportError
from workloads.experiment import choice_note

# Leaves L0 cn1-cn4, L1 cn5-cn8, L2 cn9-cn12 under one switch.
# (log id, nodes, comm, start, end, nodes taken), in sim.tsv's order.
SAME = [
    # All free, 2 whole leaves for 8 nodes (a whole tie: tb-alloc asked):
    # both take L0 and L1.
    ("E", 8, 1, 0, 100, "cn1,cn2,cn3,cn4,cn5,cn6,cn7,cn8"),
    # L2 alone is free: one leaf, not asked.
    ("F", 4, 1, 0, 100, "cn9,cn10,cn11,cn12"),
]
DIFFER = [
    ("A", 1, 1, 0, 100, "cn1"),
    ("B", 1, 0, 0, 100, "cn5"),
    ("C", 2, 1, 0, 100, "cn9,cn10"),
    # Free: L0 3 (one communicating busy), L1 3 (one quiet busy), L2 2.
    # Greedy (Eq. 1 ratio up: L1 0/1 + 1/4 first) takes L1's 3 and one of
    # L0; balanced (free down, tie by ratio: L1) halves S = 4 to 2 and
    # takes 2 of L1 and 2 of L0 (Alg. 2 l. 8-19).
    ("D", 4, 1, 0, 100, "cn6,cn7,cn8,cn2"),
]
GREEDY_D = {"cn6", "cn7", "cn8", "cn2"}
BALANCED_D = {"cn6", "cn7", "cn2", "cn3"}


def make_run(tmp_path, name, jobs, sim=True):
    d = tmp_path / name
    d.mkdir()
    (d / "topology.json").write_text(json.dumps({
        "levels": ["leaf", "top"],
        "nodes": [{"name": f"cn{i}"} for i in range(1, 13)],
        "switches": [{"name": f"L{k}", "level": 0, "parent": "top",
                      "nodes": list(range(4 * k, 4 * k + 4))}
                     for k in range(3)] + [{"name": "top", "level": 1}]}))
    with open(d / "plan.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["log_id", "nodes", "comm", "pattern"])
        for log_id, nodes, comm, *_ in jobs:
            w.writerow([log_id, nodes, comm, "rd"])
    if sim:
        with open(d / "sim.tsv", "w", newline="") as f:
            w = csv.writer(f, delimiter="\t")
            w.writerow(["log_id", "start", "end", "nodes", "policy", "backfilled"])
            for log_id, _, _, start, end, taken in jobs:
                w.writerow([log_id, start, end, taken, "greedy", 0])
    return str(d)


# Stand-in: answers as the library does on these states (the sets above
# for D's state, the same nodes otherwise) and logs each call.
FAKE = """#!/bin/sh
echo "$*" >>"$(dirname "$0")/calls"
case "$*" in
*--busy-comm*cn1,cn9,cn10*) echo "greedy cn6,cn7,cn8,cn2"; echo "balanced cn6,cn7,cn2,cn3" ;;
*) echo "greedy cn1,cn2,cn3,cn4,cn5,cn6,cn7,cn8"; echo "balanced cn1,cn2,cn3,cn4,cn5,cn6,cn7,cn8" ;;
esac
"""


def real_tool():
    """The library's tb-alloc, when built and runnable here."""
    path = os.path.join(os.environ.get("TB_BUILD") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "build", "c"), "tb-alloc")
    try:
        ok = subprocess.run([path, "--list-policies"], capture_output=True,
                            check=False).returncode == 0
    except OSError:
        ok = False
    return path if ok else None


@pytest.fixture(params=["stand-in", "library"])
def tool(request, tmp_path):
    if request.param == "library":
        path = real_tool()
        if not path:
            pytest.skip("tb-alloc is not built (make -C plugins tools)")
        return path
    fake = tmp_path / "bin" / "tb-alloc"
    fake.parent.mkdir()
    fake.write_text(FAKE)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return str(fake)


def test_the_hand_worked_state_parts_greedy_and_balanced(tool, tmp_path):
    run = make_run(tmp_path, "differ", DIFFER)
    *_, busy, busy_comm = list(choices.states(run))[3]
    sets = choices.alloc_sets(tool, os.path.join(run, "topology.json"), 4, 1, "rd",
                              busy, busy_comm)
    assert (sets["greedy"], sets["balanced"]) == (GREEDY_D, BALANCED_D)


def test_identical_choices_count_zero(tool, tmp_path):
    run = make_run(tmp_path, "same", SAME)
    assert choices.greedy_vs_balanced(run, tool, stop_share=0.01) == (0, 2, 2)
    assert choice_note.verdict(0, 2, 2).startswith(
        "greedy and balanced would choose differently at 0 of 2 starts of this "
        "run: their rows differ by the schedule's noise, not by the policies")


def test_different_choices_are_counted(tool, tmp_path):
    run = make_run(tmp_path, "differ", DIFFER)
    # Only D's start: A-C each fit one leaf.
    assert choices.greedy_vs_balanced(run, tool) == (1, 4, 4)
    # 1 of 4 is not below 1 %: the policies part.
    assert "the policies part" in choice_note.verdict(1, 4, 4)


def test_only_choices_ask_tb_alloc_and_counting_stops(tmp_path):
    fake = tmp_path / "bin" / "tb-alloc"
    fake.parent.mkdir()
    fake.write_text(FAKE)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    run = make_run(tmp_path, "same", SAME)
    choices.greedy_vs_balanced(run, str(fake))
    # E's whole tie is asked; F's one leaf is not, unless fit=quiet
    # (greedy then picks its leaf by ratio), passed on as OPTIONS.
    assert len((tmp_path / "bin" / "calls").read_text().splitlines()) == 1
    choices.greedy_vs_balanced(run, str(fake), options="fit=quiet")
    calls = (tmp_path / "bin" / "calls").read_text().splitlines()
    assert len(calls) == 3 and all("--options fit=quiet" in c for c in calls[1:])
    # Twice D's state: at the first difference the count is 1 % of 2.
    twice = DIFFER + [("G", 1, 1, 150, 160, "cn12")] + [
        (x + "2", n, c, s + 200, e + 200, t) for x, n, c, s, e, t in DIFFER]
    run2 = make_run(tmp_path, "twice", twice)
    assert choices.greedy_vs_balanced(run2, str(fake), stop_share=0.01) == (1, 4, 9)
    assert choices.greedy_vs_balanced(run2, str(fake)) == (2, 9, 9)


@pytest.mark.parametrize("share,n,count", [(0.01, 1000, 10), (0.01, 700, 7),
                                           (0.01, 4, 1), (0.01, 150, 2)])
def test_share_count(share, n, count):
    assert choices.share_count(share, n) == count


def test_below_the_share_is_noise():
    assert "mostly by the schedule's noise" in choice_note.verdict(9, 1000, 1000)
    assert "the policies part" in choice_note.verdict(10, 1000, 1000)
    # Stopped early: never called noise.
    assert "10 or more of 1,000" in choice_note.verdict(10, 45, 1000)


def test_emulated_starts_from_sacct(tmp_path):
    run = make_run(tmp_path, "emu", DIFFER, sim=False)
    with open(os.path.join(run, "sacct.json"), "w") as f:
        json.dump({"jobs": [{"job_id": 10 + i, "nodes": n} for i, n in enumerate(
            ["cn1", "cn5", "cn[9-10]", "cn[2,6-8]", "None assigned"])]}, f)
    rows = [{"job_id": 10 + i, "log_job_id": j[0], "start": j[3], "end": j[4],
             "policy": "greedy"} for i, j in enumerate(DIFFER)]
    rows.append({"job_id": 14, "log_job_id": "X", "start": None, "end": None})
    started = choices.emulated_starts(run, rows)
    assert [(s["log_id"], s["nodes"]) for s in started] == [
        ("A", "cn1"), ("B", "cn5"), ("C", "cn9,cn10"), ("D", "cn2,cn6,cn7,cn8")]
    free = [st[3] for st in choices.states(run, started)]
    assert free[3] == [3, 3, 2]


def definition():
    return SimpleNamespace(logs=["theta"], patterns=["rhvd", "rd"], baseline="default1905",
                           policies=["default1905", "greedy", "balanced"],
                           baseline_per_pattern=False)


def fake_run(run_dir, policy, pattern, run_id):
    return SimpleNamespace(dir=run_dir, policy=policy, pattern=pattern, run_id=run_id,
                           manifest={"options": ""}, all_rows=[])


def test_note_lines_per_run_and_not_counted(tmp_path):
    tool = tmp_path / "bin" / "tb-alloc"
    tool.parent.mkdir()
    tool.write_text(FAKE)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    same = make_run(tmp_path, "same", SAME)
    differ = make_run(tmp_path, "differ", DIFFER)
    bare = tmp_path / "bare"          # an emulation without sacct.json
    bare.mkdir()
    runs = {("theta", "rhvd", "default1905"): fake_run(same, "default1905", "rhvd", "r0"),
            ("theta", "rhvd", "greedy"): fake_run(differ, "greedy", "rhvd", "r1"),
            ("theta", "rhvd", "balanced"): fake_run(str(bare), "balanced", "rhvd", "r2")}
    out = choice_note.lines(definition(), runs, str(tool))
    rows = [x for x in out if x.startswith("| theta")]
    # The baseline once (it serves both patterns); the rd runs are missing.
    assert len(rows) == 3
    assert "r0 | greedy and balanced would choose differently at 0 of 2 starts" in rows[0]
    assert "r1 | greedy and balanced would choose differently at 1 of 4 starts of this run: " \
        "the policies part" in rows[1]
    assert "r2 | not counted:" in rows[2] and "sacct.json" in rows[2]
    # No tb-alloc: every run not counted, the table still written.
    out = choice_note.lines(definition(), runs, str(tmp_path / "none" / "tb-alloc"))
    assert all("not counted: no tb-alloc at" in x for x in out if x.startswith("| theta"))


def test_a_failing_tb_alloc_is_not_counted(tmp_path):
    tool = tmp_path / "tb-alloc"
    tool.write_text("#!/bin/sh\necho 'tb-alloc: --busy: unknown node' >&2\nexit 2\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(ReportError, match="exit 2.*unknown node"):
        choices.greedy_vs_balanced(make_run(tmp_path, "same", SAME), str(tool))


def test_the_continuous_table_carries_the_note(tmp_path):
    from workloads.experiment.continuous import table_continuous
    from workloads.experiment.tables import Table
    same = make_run(tmp_path, "same", SAME)
    d = definition()
    d.metrics = ["exec_hours"]
    d.paper_value = lambda *a: None
    runs = {}
    for i, p in enumerate(d.policies):
        r = fake_run(same, p, "rhvd", f"r{i}")
        r.metrics, r.log_runtime_hours = {"exec_hours": 10.0}, 10.0
        runs[("theta", "rhvd", p)] = r
    t = Table()
    table_continuous(d, runs, t)
    assert sum("greedy and balanced would choose differently" in x or "not counted" in x
               for x in t.md) == 3
    d.policies = ["default1905", "greedy"]     # nothing to compare: no note
    t = Table()
    table_continuous(d, runs, t)
    assert not any("Room to choose" in x for x in t.md)
