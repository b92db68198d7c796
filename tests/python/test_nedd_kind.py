"""Kind nedd (workloads/experiment/nedd.py, nedd_jobs.py): the job lists'
lanes and shape, the summary statistics and NeDD's improvement, and the
table's sections from hand-made runs."""

import math
import re
import types

import pytest

from workloads import logs
from workloads.experiment import nedd, nedd_jobs
from workloads.experiment.errors import ExperimentError
from workloads.experiment.tables import Table


def topo(groups=2, per_group=16, cores=4):
    nodes = [{"name": f"d{g * per_group + k:02d}", "cores": cores, "router": (g * per_group + k) // 4,
              "chassis": (g * per_group + k) // 8, "group": g}
             for g in range(groups) for k in range(per_group)]
    return {"name": "hand", "nodes": nodes}


def test_hostlist_compresses_runs_of_ids():
    assert nedd_jobs.hostlist(["nid00003", "nid00001", "nid00002", "nid00007"]) == \
        "nid[00001-00003,00007]"
    assert nedd_jobs.hostlist(["d01"]) == "d[01]"


def test_lanes_are_each_groups_first_ids_of_the_main_core_count():
    t = topo()
    t["nodes"][16]["cores"] = 8      # one odd node in group 1: not the main kind
    lanes, names = nedd_jobs.lanes(t, 2, 12)
    assert lanes[0] == [f"d{k:02d}" for k in range(12)]
    assert lanes[1] == [f"d{k:02d}" for k in range(17, 29)]
    assert len(names) == 32
    with pytest.raises(ExperimentError, match="2 dragonfly groups have 12 nodes"):
        nedd_jobs.lanes(t, 3, 12)


def test_job_list_chains_each_lane_by_dependencies(tmp_path):
    lines = nedd_jobs.job_list(topo(), [("miniMD",), ("HPCG",)], 2, (12, 4, 3), 100, True, 0)
    path = tmp_path / "x.jobs"
    path.write_text("\n".join(lines) + "\n")
    log = logs.read(str(path))
    assert log.format == "nedd"
    assert len(log.jobs) == 8
    by = {j.log_id: j for j in log.jobs}
    cong = [j for j in log.jobs if j.app == "gpcnet"]
    apps = [j for j in log.jobs if j.app != "gpcnet"]
    assert all(j.submit == 0 for j in log.jobs)
    assert all(j.prefill == 1 and j.nodes == 4 and j.placement.startswith("nodelist=")
               for j in cong)
    assert all(j.prefill == 0 and j.nodes == 3 and j.placement.startswith("exclude=")
               for j in apps)
    # Each job two minutes after its congestor started (L104); the next
    # repetition's congestor after this one's jobs and congestor ended.
    assert by["r01-miniMD-1-miniMD"].placement.endswith(";dependency=after:@r01-miniMD-gpcnet+2")
    assert ";" not in by["r01-miniMD-gpcnet"].placement
    assert by["r02-miniMD-gpcnet"].placement.endswith(
        ";dependency=afterany:@r01-miniMD-gpcnet:@r01-miniMD-1-miniMD")
    # Every job's dependency is on a job listed before it.
    seen = set()
    for j in log.jobs:
        for name in re.findall(r"@([^:+;,]+)", j.placement):
            assert name in seen, (j.log_id, name)
        seen.add(j.log_id)
    # The control node (the lane's first, d00) is excluded from the job
    # and never in a congestor; repetitions re-choose the congestor.
    assert by["r01-miniMD-1-miniMD"].placement.startswith("exclude=d[00,12-")
    assert all("d[00" not in j.placement and ",00" not in j.placement for j in cong)
    assert by["r01-miniMD-gpcnet"].placement != by["r02-miniMD-gpcnet"].placement
    # Without the congestor: the jobs, each repetition after the last
    # one's and a wait on the control node with no application.
    lines = nedd_jobs.job_list(topo(), [("miniMD",)], 2, (12, 4, 3), 100, False, 0)
    assert sum(1 for x in lines if "gpcnet" in x) == 0
    path.write_text("\n".join(lines) + "\n")
    by = {j.log_id: j for j in logs.read(str(path)).jobs}
    assert list(by) == ["r01-miniMD-1-miniMD", "r01-miniMD-wait", "r02-miniMD-1-miniMD",
                        "r02-miniMD-wait"]
    assert (by["r01-miniMD-wait"].app, by["r01-miniMD-wait"].prefill) == ("", 1)
    assert by["r01-miniMD-wait"].placement == \
        "nodelist=d00;dependency=afterany:@r01-miniMD-1-miniMD"
    assert by["r02-miniMD-1-miniMD"].placement.endswith(";dependency=afterany:@r01-miniMD-wait")
    assert by["r01-miniMD-wait"].runtime >= 120
    # A pair: both jobs after the congestor, in the pair's order.
    lines = nedd_jobs.job_list(topo(), [("miniMD", "MILC")], 1, (12, 4, 3), 100, True, 0)
    assert [x.split()[0] for x in lines[2:]] == ["r01-miniMD_MILC-gpcnet",
                                                "r01-miniMD_MILC-1-miniMD",
                                                "r01-miniMD_MILC-2-MILC"]
    with pytest.raises(ExperimentError, match="nodes left for 2 job"):
        nedd_jobs.job_list(topo(), [("miniMD", "MILC")], 1, (12, 6, 3), 100, True, 0)


def test_list_facts_reads_the_layout_and_the_congestor():
    assert nedd_jobs.list_facts("x-y-consecutive-gpcnet.0123abcd.jobs") == ("consecutive", True)
    assert nedd_jobs.list_facts("x-consecutive-none.0123abcd.jobs") == ("consecutive", False)
    assert nedd_jobs.list_facts("theta") is None


def test_summary_and_improvement():
    s = nedd.summary([1.0, 2.0, 3.0, 4.0, 10.0])
    assert (s["n"], s["mean"], s["median"], s["q1"], s["q3"], s["min"], s["max"]) == \
        (5, 4.0, 3.0, 2.0, 4.0, 1.0, 10.0)
    assert math.isclose(s["sem"], math.sqrt(12.5) / math.sqrt(5))
    # NeDD 66 against Random 100: 34 % better (L152's miniMD figure).
    assert nedd.improvement({"mean": 66.0}, {"mean": 100.0}) == pytest.approx(34.0)
    assert nedd.improvement(None, {"mean": 1.0}) is None


def run(policy, times):
    """A hand-made run: {app: [runtimes]} of one-job items."""
    rows = [{"log_job_id": f"r{k + 1:02d}-{app}-1-{app}", "run_s": t}
            for app, ts in times.items() for k, t in enumerate(ts)]
    return types.SimpleNamespace(rows=rows, policy=policy, run_id=policy,
                                 manifest={"cluster": "hand", "seed": 0})


def definition(apps, policies):
    d = types.SimpleNamespace(apps=apps, policies=policies, logs=["consecutive"],
                              setup=["201", "64", "32"], base_runtime=["100"], reps=["3"],
                              background=["theta", "2.2", "604800"],
                              paper={("improvement_pct", "*", "miniMD", "random"): 34.0})

    def paper_value(metric, log, app, policy):
        return d.paper.get((metric, "*", app, policy))
    d.paper_value = paper_value
    d.paper_policies = lambda: d.policies  # Definition's, not narrowed
    return d


def test_table_gives_statistics_improvements_order_and_band():
    d = definition(["miniMD", "HPCG"], ["nedd", "random", "low-stall", "fewer-router"])
    runs = {("consecutive", "nedd"): run("nedd", {"miniMD": [300, 330, 360],
                                                  "HPCG": [101, 99, 100]}),
            ("consecutive", "random"): run("random", {"miniMD": [450, 500, 550],
                                                      "HPCG": [100, 102, 98]}),
            ("consecutive", "low-stall"): run("low-stall", {"miniMD": [400, 450, 500],
                                                            "HPCG": [100, 100, 100]}),
            ("consecutive", "fewer-router"): run("fewer-router", {"miniMD": [310, 340, 370],
                                                                  "HPCG": [100, 101, 105]}),
            ("consecutive", "none"): run("fewer-router", {"miniMD": [99, 100, 101],
                                                          "HPCG": [98, 100, 102]})}
    t = Table()
    nedd.table_nedd(d, runs, t)
    md = "\n".join(t.md)
    assert "| miniMD | NeDD | 3 | 330.0 | 330.0 | 315.0 | 345.0 | 300.0 | 360.0 | 3.30 | - |" in md
    # (500 - 330) / 500 = 34 %: the calibrated cell, within 5 points.
    assert "| miniMD | Random | 34.0 | - | 34 | yes | calibrated |" in md
    assert "| miniMD | Fewer-Router | 2.9 | - | - | - | predicted |" in md
    assert "| miniMD | NeDD < Fewer-Router < Low-Stall-Router < Random | yes | yes |" in md
    # HPCG's means all inside No-Congestor's 98-102 band.
    assert "| HPCG | 98.0-102.0 | NeDD, Random, Low-Stall-Router, Fewer-Router | - |" in md
    assert t.csv_header[:4] == ["layout", "app", "place", "strategy"]
    assert len(t.csv_rows) == 2 * 5


def test_table_of_pairs_gives_mean_and_error_per_job():
    d = definition(["miniMD+QMCPACK"], ["nedd", "fewer-router"])
    rows = lambda a, b: [{"log_job_id": f"r{k:02d}-miniMD_QMCPACK-{j}-{app}", "run_s": t}  # noqa: E731
                         for k in (1, 2) for j, app, t in ((1, "miniMD", a + k),
                                                           (2, "QMCPACK", b + k))]
    runs = {("consecutive", p): types.SimpleNamespace(rows=rows(a, b), policy=p, run_id=p,
                                                      manifest={})
            for p, a, b in (("nedd", 200, 101), ("fewer-router", 300, 100),
                            ("none", 100, 100))}
    t = Table()
    nedd.table_nedd(d, runs, t)
    md = "\n".join(t.md)
    # No records: the modelled columns are empty.
    assert "| miniMD then QMCPACK | NeDD | 201.5 | 0.5 | - | - | 102.5 | 0.5 | - | - |" in md
    assert "best for miniMD NeDD, for QMCPACK Fewer-Router" in md
    assert ", modelled:" not in md
    assert "miniMD against Fewer-Router 33.2 % better" in md


def pair_run(policy, times):
    """A hand-made run of pairs: {(a, b): [(a's s, b's s, a's modelled,
    b's modelled)]} per repetition."""
    rows = []
    for (a, b), reps in times.items():
        for k, (ta, tb, ma, mb) in enumerate(reps):
            rows += [{"log_job_id": f"r{k + 1:02d}-{a}_{b}-1-{a}", "run_s": ta,
                      "runtime_scaled_s": ma},
                     {"log_job_id": f"r{k + 1:02d}-{a}_{b}-2-{b}", "run_s": tb,
                      "runtime_scaled_s": mb}]
    return types.SimpleNamespace(rows=rows, policy=policy, run_id=policy,
                                 manifest={"cluster": "hand", "seed": 0})


def test_table_of_pairs_gives_measured_and_modelled_means_and_statements():
    d = definition(["miniMD+QMCPACK"], ["nedd", "fewer-router"])
    pair = ("miniMD", "QMCPACK")
    runs = {("consecutive", "nedd"): pair_run("nedd", {pair: [(300, 110, 200, 100),
                                                              (320, 112, 220, 102)]}),
            ("consecutive", "fewer-router"): pair_run("fewer-router",
                                                      {pair: [(400, 100, 300, 101),
                                                              (420, 100, 340, 101)]}),
            ("consecutive", "none"): pair_run("fewer-router", {pair: [(190, 180, 100, 100),
                                                                      (200, 185, 100, 100)]})}
    t = Table()
    nedd.table_nedd(d, runs, t)
    md = "\n".join(t.md)
    assert ("| miniMD then QMCPACK | NeDD | 310.0 | 10.0 | 210.0 | 10.0 | 111.0 | 1.0 | "
            "101.0 | 1.0 |") in md
    # Measured: NeDD best for miniMD (310 against 410), QMCPACK 11 % above
    # Fewer-Router's 100; modelled: 101 against 101, even.
    assert ("- miniMD then QMCPACK, measured: best for miniMD NeDD, for QMCPACK Fewer-Router; "
            "NeDD against the best: miniMD +0.0 %, QMCPACK +11.0 %; miniMD against "
            "Fewer-Router 24.4 % better") in md
    assert ("- miniMD then QMCPACK, modelled: best for miniMD NeDD, for QMCPACK NeDD; NeDD "
            "against the best: miniMD +0.0 %, QMCPACK +0.0 %; miniMD against Fewer-Router "
            "34.4 % better") in md


def test_the_warm_up_repetition_runs_first_in_each_lane_and_changes_no_other_draw(tmp_path):
    plain = nedd_jobs.job_list(topo(), [("miniMD",), ("HPCG",)], 2, (12, 4, 3), 100, True, 0)
    warm = nedd_jobs.job_list(topo(), [("miniMD",), ("HPCG",)], 2, (12, 4, 3), 100, True, 0,
                              warmup=True)
    path = tmp_path / "w.jobs"
    path.write_text("\n".join(warm) + "\n")
    jobs = logs.read(str(path)).jobs
    by = {j.log_id: j for j in jobs}
    assert [j.log_id for j in jobs][:4] == ["r00-miniMD-gpcnet", "r00-miniMD-1-miniMD",
                                            "r01-miniMD-gpcnet", "r01-miniMD-1-miniMD"]
    assert len(jobs) == 12
    # r01 waits for the warm-up's jobs as r02 for r01's.
    assert ";" not in by["r00-miniMD-gpcnet"].placement
    assert by["r00-miniMD-1-miniMD"].placement.endswith(
        ";dependency=after:@r00-miniMD-gpcnet+2")
    assert by["r01-miniMD-gpcnet"].placement.endswith(
        ";dependency=afterany:@r00-miniMD-gpcnet:@r00-miniMD-1-miniMD")
    # The repetitions that count draw their congestors as without it.
    def drawn(lines):
        return [x.split()[-1].split(";")[0] for x in lines[2:]
                if "-gpcnet " in x and not x.startswith("r00-")]
    assert drawn(warm) == drawn(plain)
    assert by["r00-miniMD-gpcnet"].placement != by["r01-miniMD-gpcnet"].placement.split(";")[0]
    # Without the congestor too.
    warm = nedd_jobs.job_list(topo(), [("miniMD",)], 1, (12, 4, 3), 100, False, 0, warmup=True)
    assert [x.split()[0] for x in warm[2:]] == ["r00-miniMD-1-miniMD", "r00-miniMD-wait",
                                                "r01-miniMD-1-miniMD", "r01-miniMD-wait"]
    assert warm[2 + 2].endswith(";dependency=afterany:@r00-miniMD-wait")


def row(log_id, start, end, fault=""):
    return {"log_job_id": log_id, "start": start, "end": end, "fault": fault,
            "prefill": int(log_id.endswith("-gpcnet"))}


def test_the_table_counts_neither_the_warm_up_nor_a_job_started_after_its_congestor_ended():
    # As on the fresh cori (run 20261126T230542Z-log-nedd, times in s):
    # congestor r01-LAMMPS-gpcnet ended by Slurm at 18 before its script
    # began, its job started at 74 with no congestor; MILC's at 128, its
    # congestor gone at 57. HACC's own job was not launched either. In
    # 20261126T231231Z the congestors were ended at 187-190, after their
    # jobs had started (126-144): those jobs' records saw them whole.
    rows = [row("r00-miniMD-gpcnet", 0, 20, "not_launched"),
            row("r00-miniMD-1-miniMD", 30, 60, "not_launched"),
            row("r01-miniMD-gpcnet", 0, 851), row("r01-miniMD-1-miniMD", 127, 463),
            row("r01-LAMMPS-gpcnet", 0, 18, "not_launched"), row("r01-LAMMPS-1-LAMMPS", 74, 210),
            row("r01-MILC-gpcnet", 0, 57, "not_launched"), row("r01-MILC-1-MILC", 128, 309),
            row("r02-LAMMPS-gpcnet", 151, 1001), row("r02-LAMMPS-1-LAMMPS", 310, 522),
            row("r01-HACC-gpcnet", 0, 20, "not_launched"),
            row("r01-HACC-1-HACC", 36, 55, "not_launched"),
            row("r01-QMCPACK-gpcnet", 0, 188, "not_launched"),
            row("r01-QMCPACK-1-QMCPACK", 136, 250),
            row("r01-HPCG-wait", 100, 230), row("r00-HPCG-1-HPCG", 0, 100)]
    keep, out = nedd.count_rows(rows)
    assert [r["log_job_id"] for r in keep] == ["r01-miniMD-1-miniMD", "r02-LAMMPS-1-LAMMPS",
                                               "r01-QMCPACK-1-QMCPACK"]
    assert out == 2
    assert rows[5]["fault"] == rows[7]["fault"] == "congestor_lost"
    assert rows[11]["fault"] == "not_launched"
    assert rows[1]["fault"] == "not_launched"


def test_warmup_is_one_or_zero():
    d = definition(["miniMD"], ["nedd", "random"])
    d.no_congestor, d.warmup = ["fewer-router"], ["2"]
    with pytest.raises(ExperimentError, match="warmup '2': expected 1"):
        nedd.validate_nedd(d, "")
    d.warmup = ["0"]
    nedd.validate_nedd(d, "")
