"""workloads/nedd_model.py: the router scenario it builds for a decision
(the machine's routers, the congestor, the background in the window, the
lane's free nodes), the repetitions' timing from a job list, and, where
build/c/tb-alloc is built, the factor it reads back."""

import os

import pytest

from workloads import nedd_model
from workloads.registry import build_dir

# Two chassis of one group: rt0, rt1 in chassis 0, rt2 in chassis 1; two
# nodes per router; node names n0..n5.
TOPO = {"nodes": [{"name": f"n{k}", "router": k // 2, "chassis": k // 4, "group": 0}
                  for k in range(6)]}


def test_ranges_compress_sorted_unique_ids():
    assert nedd_model.ranges([9, 0, 1, 2, 3, 3]) == "0-3,9"
    assert nedd_model.ranges([5]) == "5"
    assert nedd_model.ranges([1, 3, 4]) == "1,3-4"


def test_machine_lines_keep_router_order_chassis_and_groups():
    m = nedd_model.Machine(TOPO)
    assert m.lines == ["router rt0 2 chassis=0 group=0", "router rt1 2 chassis=0 group=0",
                       "router rt2 2 chassis=1 group=0"]
    assert m.ids(["n5", "n0"]) == [5, 0]


def test_decisions_chain_the_congestors_and_drop_the_warmup():
    jobs = {"r00-miniMD-gpcnet": (0, 850, ["n1"], "gpcnet", ""),
            "r01-miniMD-gpcnet": (0, 850, ["n2"], "gpcnet", ""),
            "r02-miniMD-gpcnet": (2000, 850, ["n3"], "gpcnet", "")}
    got = nedd_model.decisions(jobs, "miniMD", 2, True)
    # r01 waits for r00 (0 + 850); r02 is submitted later than r01 ends.
    assert got == [("r01", ["n2"], 850), ("r02", ["n3"], 2000)]
    with pytest.raises(nedd_model.ModelError, match="r03-miniMD-gpcnet"):
        nedd_model.decisions(jobs, "miniMD", 3, True)


def test_background_runs_inject_their_share_times_inj_unnamed():
    jobs = {"bg-7": (10, 100, ["n4"], "-:50", "nodelist=n4"),
            "bg-8": (0, 5, ["n5"], "-:0", "nodelist=n5"),
            "r01-miniMD-1-miniMD": (0, 100, None, "miniMD", "exclude=n0")}
    assert nedd_model.background_runs(jobs, 0.25) == [(10, 110, ["n4"], 0.125),
                                                      (0, 5, ["n5"], 0.0)]


def scenario_text():
    lane = ["n0", "n1", "n2", "n3"]    # n0: the control node
    background = [(900, 2000, ["n4"], 0.5),     # running at the decision
                  (800, 950, ["n5"], 0.25),     # ended inside the window
                  (0, 100, ["n5"], 1.0),        # ended before it
                  (1100, 1200, ["n5"], 1.0)]    # starts after the decision
    return nedd_model.scenario(nedd_model.Machine(TOPO), lane, ["n1"], 900, background,
                               "miniMD", 2, 7)


def test_scenario_is_the_machine_at_the_decision():
    lines = scenario_text().splitlines()
    assert lines[3:] == ["running nodes=1 app=gpcnet start=900",
                         "running nodes=4 inj=0.5 start=900",
                         "running nodes=5 inj=0.25 start=800 end=950",
                         # n0 the control node, n5 outside the lane.
                         "busy 0,5",
                         "now 1020 window=120",
                         "job nodes=2 app=miniMD seed=7"]


def test_the_scenario_through_tb_alloc(tmp_path):
    if not os.path.exists(os.path.join(build_dir(), "tb-alloc")):
        pytest.skip("build/c/tb-alloc not built (make -C plugins tools)")
    # The free nodes are n2, n3 (rt1): every strategy takes them.
    f = nedd_model.factor(str(tmp_path), scenario_text(), "nedd", "")
    assert f > 1
    assert nedd_model.factor(str(tmp_path), scenario_text(), "low-stall", "stall=routed") == f


def test_table_and_pressures_read_the_factors():
    # Two sensitive applications; NeDD 2 and 3 against 4 everywhere: 50 %
    # and 25 % better, so 37.5 % over the sensitive ones.
    result = {a: {p: [(0.1, 0.2, f)] for p, f in
                  zip(nedd_model.STRATEGIES, (nedd_f, 4, 4, 4))}
              for a, nedd_f in (("miniMD", 2), ("MILC", 3))}
    rows = nedd_model.table(result, 100)
    assert rows[2] == "| miniMD | 200.0 | 400.0 | 400.0 | 400.0 | 50.0 | 50.0 | 50.0 | 50.0 |"
    assert rows[-1] == "| sensitive | 250.0 | 400.0 | 400.0 | 400.0 | 37.5 | 37.5 | 37.5 | 37.5 |"
    assert nedd_model.pressure_rows(result)[2] == "| nedd | 0.1000 | 0.2000 |"
