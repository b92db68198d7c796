"""Kind nedd's layout background (workloads/experiment/nedd_background.py,
issue 24): the history of a replayed log on the machine, worked by hand on
tests/fixtures/nedd/background.jobs; the lanes chosen among the idle nodes
at the start and kept from the background afterwards; the job list with
its pinned background jobs and their shares; the consecutive layout's
lists unchanged by it; and the default's figures on the real Theta log and
Cori (skipped without ../shared's logs)."""

import os

import pytest

from workloads import cluster_defs, logs
from workloads.experiment import nedd, nedd_background as nb, nedd_jobs
from workloads.experiment.errors import ExperimentError

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "fixtures", "nedd", "background.jobs")


def topo(groups=3, per_group=16, cores=4):
    """3 dragonfly groups of 16 nodes (d00-d47), 4-node routers."""
    nodes = [{"name": f"d{g * per_group + k:02d}", "cores": cores,
              "router": (g * per_group + k) // 4, "chassis": (g * per_group + k) // 8,
              "group": g}
             for g in range(groups) for k in range(per_group)]
    return {"name": "hand", "nodes": nodes}


def history(start=100, horizon=3000, n_lanes=1, n=10, seed="0"):
    return nb.history(logs.read(FIXTURE).jobs, nb.main_nodes(topo())[1], 1.0, start, horizon,
                      n_lanes, n, seed)


def test_the_history_is_first_come_first_served_as_worked_by_hand():
    # 48 nodes. Job 1 (8 nodes) runs 0-1000, 2 (4) 10-60, 3 (20) 20-2020;
    # 4 (24) finds 16 free at 30, 20 at 60, 10 once the lane's 10 are
    # taken at 100, 18 at 1000: it starts when 3 ends, 2020-2520; 5 and 6
    # wait behind it (first come first served) and start with it.
    lanes, runs, too_big = history()
    got = {r[0]: (r[1], r[2], len(r[3]), r[4]) for r in runs}
    assert got == {"1": (0, 1000, 8, 50), "3": (20, 2020, 20, 90), "4": (2020, 2520, 24, 30),
                   "5": (2020, 2120, 2, 70), "6": (2020, 2030, 2, 0)}
    assert too_big == 0
    # Job 2 ended before the start: not in the background; job 7 comes
    # after the horizon.
    assert "2" not in got and "7" not in got


def test_the_lane_is_idle_at_the_start_and_no_background_job_touches_it():
    lanes, runs, _ = history()
    assert len(lanes) == 1 and len(lanes[0]) == 10
    lane = set(lanes[0])
    busy_at_start = {x for r in runs if r[1] <= 100 < r[2] for x in r[3]}
    assert len(busy_at_start) == 28
    assert not lane & busy_at_start
    # The jobs that start later keep off the lane too (it is the
    # experiment's from the start on).
    assert not lane & {x for r in runs if r[1] > 100 for x in r[3]}
    # The lane: the idle nodes of lowest ids of the fewest consecutive
    # groups that hold 10 idle ones.
    groups = {x["name"]: x["group"] for x in topo()["nodes"]}
    idle = sorted(set(groups) - busy_at_start)
    used = sorted({groups[x] for x in lane})
    in_used = [x for x in idle if groups[x] in used]
    assert sorted(lane) == in_used[:10]
    assert len([x for x in idle if groups[x] in used[:-1]]) < 10


def test_lanes_take_groups_of_their_own_and_too_few_idle_nodes_is_an_error():
    groups = {x["name"]: x["group"] for x in topo()["nodes"]}
    idle = [f"d{k:02d}" for k in (0, 1, 2, 17, 18, 19, 20, 33, 40, 41)]
    lanes = nb.choose_lanes(idle, groups, 2, 3)
    assert lanes == [["d00", "d01", "d02"], ["d17", "d18", "d19"]]
    assert nb.choose_lanes(idle, groups, 3, 3)[2] == ["d33", "d40", "d41"]
    with pytest.raises(ExperimentError, match="too few for 4 lanes of 3 nodes"):
        nb.choose_lanes(idle, groups, 4, 3)
    # A lane may span groups, never one another lane holds: the first
    # takes group 0's three and group 1's first, and leaves group 1's
    # other three idle; group 2's three are too few for a second.
    assert nb.choose_lanes(idle, groups, 1, 4) == [["d00", "d01", "d02", "d17"]]
    with pytest.raises(ExperimentError, match="too few for 2 lanes of 4 nodes"):
        nb.choose_lanes(idle, groups, 2, 4)


def test_the_draw_is_seeded():
    a, b, c = history(seed="0"), history(seed="0"), history(seed="1")
    assert a == b
    assert [r[3] for r in a[1]] != [r[3] for r in c[1]]


def test_plan_writes_pinned_jobs_from_the_start_cut_at_the_horizon():
    loaded = nb.plan(topo(), 1, 10, [FIXTURE, "1", "100"], 2000, "0", "")
    by = {line.split()[0]: line.split() for line in loaded.lines}
    # Running at the start: submitted at once for what is left; later
    # ones at their start's offset; all cut at start + horizon = 2100.
    assert [by[k][1:7] for k in ("bg-1", "bg-3", "bg-4", "bg-5", "bg-6")] == [
        ["0", "900", "8", "900", "-:50", "1"], ["0", "1920", "20", "1920", "-:90", "1"],
        ["1920", "80", "24", "80", "-:30", "1"], ["1920", "80", "2", "80", "-:70", "1"],
        ["1920", "10", "2", "10", "-:0", "1"]]
    assert all(f[7].startswith("nodelist=") for f in by.values())
    assert "busy_at_start=0.583" in loaded.facts and "jobs=5" in loaded.facts


def test_size_factor_and_jobs_too_big():
    lanes, runs, too_big = nb.history(logs.read(FIXTURE).jobs, nb.main_nodes(topo())[1], 2.0,
                                      100, 3000, 1, 4, "0")
    # x2: job 4 (48 nodes) would need the whole machine less the lane.
    sizes = {r[0]: len(r[3]) for r in runs}
    assert sizes["1"] == 16 and sizes["3"] == 40
    assert too_big == 0
    lanes, runs, too_big = nb.history(logs.read(FIXTURE).jobs, nb.main_nodes(topo())[1], 3.0,
                                      100, 3000, 1, 4, "0")
    assert too_big == 2      # jobs 3 (60) and 4 (72) exceed 48 nodes


def test_the_job_list_holds_lanes_experiment_and_background_apart(tmp_path):
    loaded = nb.plan(topo(), 2, 5, [FIXTURE, "1", "100"], 2000, "0", "")
    out = {}
    for cong in (True, False):
        lines = nedd_jobs.job_list(topo(), [("miniMD",), ("HPCG",)], 2, (5, 1, 3), 100,
                                   cong, 0, loaded=loaded)
        path = tmp_path / f"{cong}.jobs"
        path.write_text("\n".join(lines) + "\n")
        out[cong] = logs.read(str(path))
        assert "background=background.jobs" in lines[0]
    log = out[True]
    bg = [j for j in log.jobs if j.log_id.startswith(nb.PREFIX)]
    exp = [j for j in log.jobs if not j.log_id.startswith(nb.PREFIX)]
    # The same background with and without the congestor.
    assert [(j.log_id, j.submit, j.runtime, j.placement) for j in bg] == [
        (j.log_id, j.submit, j.runtime, j.placement)
        for j in out[False].jobs if j.log_id.startswith(nb.PREFIX)]
    # A background job: no application, its share as the comment's
    # percent (the job compute: no cost model), in no figure.
    assert all(j.app == "" and j.comm == 0 and j.prefill == 1 for j in bg)
    assert {j.log_id: j.comm_percent for j in bg}["bg-3"] == 90
    # Lanes: the loaded ones; the jobs' limits 21 T0 and the congestor
    # as long (LIMIT_FACTOR_LOADED).
    lane_nodes = {x for lane in loaded.lanes for x in lane}
    bg_nodes = {x for j in bg
                for x in cluster_defs.expand_hostlist(j.placement[len("nodelist="):])}
    assert not lane_nodes & bg_nodes
    for j in exp:
        if j.app == "gpcnet":
            assert j.runtime == 120 + 21 * 100 + 30
            chosen = cluster_defs.expand_hostlist(j.placement.split(";")[0][len("nodelist="):])
            assert set(chosen) <= lane_nodes
        else:
            assert j.requested_time == 21 * 100
            excluded = set(cluster_defs.expand_hostlist(
                j.placement.split(";")[0][len("exclude="):]))
            # Confined to its lane less the control node: every background
            # node is excluded.
            assert bg_nodes <= excluded
            assert len(set(x["name"] for x in topo()["nodes"]) - excluded) == 4


def test_the_consecutive_list_is_as_before(tmp_path):
    """Layout consecutive's list does not change with the new layout:
    the same lines as job_list without it (7 T0 limits, no background)."""
    lines = nedd_jobs.job_list(topo(), [("miniMD",)], 1, (12, 4, 3), 100, True, 0)
    assert lines[0] == ("# nedd-jobs (workloads/experiment/nedd_jobs.py): N=12 C=4 M=3 "
                        "T0=100 reps=1 congestor=1 seed=0")
    assert lines[2].split()[:5] == ["r01-miniMD-gpcnet", "0", "850", "4", "850"]
    assert lines[3].split()[:5] == ["r01-miniMD-1-miniMD", "0", "100", "3", "700"]
    assert len(lines) == 4


def test_nedd_format_reads_a_share_and_refuses_a_bad_one(tmp_path):
    head = "# nedd-jobs x\nJob_name Submit Runtime Nodes Requested App Prefill Placement\n"
    p = tmp_path / "a.jobs"
    p.write_text(head + "bg-1 0 10 2 10 -:30 1 nodelist=d[00-01]\nw 0 10 1 10 - 1 -\n")
    a, b = logs.read(str(p)).jobs
    assert (a.app, a.comm, a.comm_percent) == ("", 0, 30)
    assert (b.app, b.comm, b.comm_percent) == ("", 0, 0)
    p.write_text(head + "bg-1 0 10 2 10 -:130 1 -\n")
    with pytest.raises(logs.LogError, match=r"a.jobs:3: App '-:130': expected"):
        logs.read(str(p))


def test_definition_words_and_the_plugin_option():
    assert nb.parse(["theta", "2.2", "604800"]) == ("theta", 2.2, 604800.0)
    for bad in (["theta"], ["theta", "0", "1"], ["theta", "x", "1"], ["theta", "1", "-1"]):
        with pytest.raises(ExperimentError, match="expected"):
            nb.parse(bad)
    with pytest.raises(ExperimentError, match="background log: unknown LOG 'nosuch'"):
        nb.read_log("nosuch", "")
    # A start past the log's last submission would leave the machine
    # empty (tests/fixtures/workloads' made-up Theta log spans less than
    # the default's week).
    with pytest.raises(ExperimentError, match=r"background log background.jobs: its jobs "
                       r"span 5000 s, fewer than the start's 6000 s"):
        nb.plan(topo(), 1, 5, [FIXTURE, "1", "6000"], 2000, "0", "")
    assert cluster_defs.parse_options("inj_unnamed=1") == ["inj_unnamed=1"]


def test_the_table_counts_no_background_job():
    rows = [{"log_job_id": "bg-165587", "fault": "", "start": 0, "end": 10},
            {"log_job_id": "r01-miniMD-gpcnet", "fault": "", "start": 0, "end": 900},
            {"log_job_id": "r01-miniMD-1-miniMD", "fault": "", "start": 120, "end": 300}]
    keep, out = nedd.count_rows(rows)
    assert [r["log_job_id"] for r in keep] == ["r01-miniMD-1-miniMD"] and out == 0


def test_the_onejob_definition_keeps_consecutive_for_a_plain_run():
    from workloads.experiment import definition
    d = definition.find_definition("nedd-cori-onejob", os.path.join(definition.ROOT,
                                                                    "experiments"))
    assert d.logs == ["consecutive", "background"]
    assert d.params_of("background")["OPTIONS"] == "inj_unnamed=1"
    assert "OPTIONS" not in d.params_of("consecutive")
    definition.apply_overrides(d, [])
    assert d.logs == ["consecutive"]


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THETA = os.path.join(os.environ.get("WORKLOADS_DIR")
                     or os.path.join(os.path.dirname(ROOT), "shared", "workloads"),
                     "seed000-theta-2018.jobs")


def real_theta():
    """The study's Theta log (3,000 jobs), not tests/fixtures' made-up one."""
    return os.path.exists(THETA) and len(logs.read(THETA).jobs) == 3000


@pytest.mark.skipif(not real_theta(),
                    reason="the real Theta log (../shared/workloads, WORKLOADS_DIR) is not "
                           "here: the figures below are the real log's")
def test_the_default_on_cori_and_the_real_theta_log():
    t = nedd_jobs.cluster_topology("cori")
    span = nb.horizon(11, nedd_jobs.congestor_seconds(100, nedd_jobs.LIMIT_FACTOR_LOADED))
    assert span == 28050
    loaded = nb.plan(t, 6, 201, nb.DEFAULT, span, "0", os.path.dirname(THETA))
    assert "busy_at_start=0.506" in loaded.facts and "too_big=0" in loaded.facts
    groups = {x["name"]: x["group"] for x in t["nodes"]}
    assert [sorted({groups[x] for x in lane}) for lane in loaded.lanes] == [
        [7, 8], [9, 10], [11, 12], [13, 14], [15, 16], [17, 18]]


def test_repetitions_are_paced_alike_with_and_without_the_congestor(tmp_path):
    """Layout background: repetition k of every run begins at k x (the
    congestor's length + LAG_S), No-Congestor's job 120 s in (when the
    congestor's would start), so that the runs' k-th repetitions meet the
    same background; each still after the last one (dependencies)."""
    loaded = nb.plan(topo(), 1, 5, [FIXTURE, "1", "100"], 2000, "0", "")
    pace = 120 + 21 * 100 + 30 + nb.LAG_S
    got = {}
    for cong in (True, False):
        lines = nedd_jobs.job_list(topo(), [("miniMD",)], 2, (5, 1, 3), 100, cong, 0,
                                   warmup=True, loaded=loaded)
        path = tmp_path / f"{cong}.jobs"
        path.write_text("\n".join(lines) + "\n")
        got[cong] = {j.log_id: j for j in logs.read(str(path)).jobs}
    c, n = got[True], got[False]
    assert [c[f"r0{k}-miniMD-gpcnet"].submit for k in range(3)] == [0, pace, 2 * pace]
    assert [c[f"r0{k}-miniMD-1-miniMD"].submit for k in range(3)] == [0, pace, 2 * pace]
    assert [n[f"r0{k}-miniMD-1-miniMD"].submit for k in range(3)] == [
        120, pace + 120, 2 * pace + 120]
    assert n["r02-miniMD-1-miniMD"].placement.endswith("dependency=afterany:@r01-miniMD-wait")
    # The background's lines among them, in submission order (read_nedd
    # refuses any other).
    assert any(k.startswith(nb.PREFIX) for k in c)


@pytest.mark.parametrize("max_delay", [0.0, 50.0, 500.0])
def test_the_paced_lists_keep_the_chains_properties(tmp_path, max_delay):
    """test_nedd_chains' properties hold for layout background's paced
    lists under random lags: No-Congestor's repetitions never overlap and
    begin a window after the last; each job starts two minutes after its
    congestor, while it runs; a congestor after the last repetition."""
    import random

    from test_nedd_chains import WINDOW, lane_reps, simulate
    loaded = nb.plan(topo(), 2, 5, [FIXTURE, "1", "100"], 20000, "0", "")
    for cong in (False, True):
        path = tmp_path / f"{cong}.jobs"
        path.write_text("\n".join(nedd_jobs.job_list(
            topo(), [("miniMD",), ("HPCG",)], 4, (5, 1, 3), 100, cong, 0, warmup=True,
            loaded=loaded)) + "\n")
        jobs = logs.read(str(path)).jobs
        rng = random.Random(f"bg:{cong}:{max_delay}")
        for _ in range(100):
            t = simulate(jobs, rng, max_delay)
            for item, reps in lane_reps(jobs).items():
                for rep in sorted(reps):
                    if cong:
                        c = t[f"r{rep:02d}-{item}-gpcnet"]
                        assert all(c[0] + WINDOW <= t[x][0] < c[1] for x in reps[rep])
                    if rep == min(reps):
                        continue
                    last = reps[rep - 1] + ([f"r{rep - 1:02d}-{item}-gpcnet"] if cong else [])
                    began = (t[f"r{rep:02d}-{item}-gpcnet"][0] if cong
                             else min(t[x][0] for x in reps[rep]))
                    assert began >= max(t[x][1] for x in last) + (0 if cong else WINDOW)


def test_the_replay_submits_a_background_job_compute_with_its_share_and_pinned(tmp_path):
    """Through the replay's plan and tb-submit's fields: the comment
    0:<rd>:<percent>:<runtime> (compute, so no cost model stretches it;
    the plugin's inj_unnamed= reads the percent), no application, its
    node list, its begin at the log second it is due."""
    from workloads.replay.cli import parse_args
    from workloads.replay.plan import make_plan
    from workloads.replay.slurm_io import job_fields
    loaded = nb.plan(topo(), 1, 5, [FIXTURE, "1", "100"], 2000, "0", "")
    path = tmp_path / "l.jobs"
    path.write_text("\n".join(nedd_jobs.job_list(topo(), [("miniMD",)], 1, (5, 1, 3), 100,
                                                 True, 0, loaded=loaded)) + "\n")
    log = logs.read(str(path))
    plan, too_big = make_plan(parse_args(["--log", str(path), "--jobs", str(len(log.jobs))]),
                              log, None, 48, 1.0)
    assert too_big == []
    p = {x["log_id"]: x for x in plan}["bg-4"]
    f = job_fields("R", 0, p, 0, 1.0, 0)
    assert f[5] == "0:2:30:80", f
    assert f[3] == 1920 and f[7].startswith("nodelist=d[") and ";" not in f[7], f
    assert p["prefill"] == 1


def test_the_table_calls_no_cell_of_layout_background_calibrated():
    """The calibration (nedd_runtime.c) saw layout consecutive's pressures,
    no background: miniMD against Random is calibrated there, predicted in
    layout background, and the calibration check says so."""
    import types

    from workloads.experiment.tables import Table

    def run(times):
        return types.SimpleNamespace(rows=[
            {"log_job_id": f"r{k + 1:02d}-miniMD-1-miniMD", "run_s": x}
            for k, x in enumerate(times)])
    d = types.SimpleNamespace(apps=["miniMD"], policies=["nedd", "random"],
                              logs=["consecutive", "background"], setup=["201", "64", "32"],
                              base_runtime=["100"], reps=["3"], background=list(nb.DEFAULT),
                              paper={})
    d.paper_value = lambda *a: None
    runs = {}
    for layout in d.logs:
        runs[(layout, "nedd")] = run([300, 330, 360])
        runs[(layout, "random")] = run([450, 500, 550])
        runs[(layout, "none")] = run([99, 100, 101])
    t = Table()
    nedd.table_nedd(d, runs, t)
    md = "\n".join(t.md)
    one = md.split("## NeDD's mean improvement, ours beside the paper's (background)")
    assert "| miniMD | Random | 34.0 | - | - | - | calibrated |" in one[0]
    assert "| miniMD | Random | 34.0 | - | - | - | predicted |" in one[1]
    assert "calibrated on layout consecutive, with no background: here a prediction" in one[1]
    assert "the calibration aimed at it" in one[0]
