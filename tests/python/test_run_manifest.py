"""The run manifest (workloads/replay/manifest.py): one builder for the
replay on Slurm (cli.py) and the twin (workloads/simulate.py); their
manifests differ only in the twin's engine fields. (A real twin run's
manifest: test_simulate.py.)"""

import types

from workloads import simulate
from workloads.replay import cli
from workloads.replay.cli import parse_args
from workloads.replay.manifest import ENGINE_FIELDS, run_manifest

# The fields a new run's manifest has had since SIZES and LIMITS
# (metrics/compare.py and the experiments read them): dropping one is
# caught here.
FIELDS = {
    "run_id", "cluster", "cluster_nodes", "policy", "log", "log_file", "log_format",
    "first", "jobs", "prefill", "prefill_jobs", "prefill_nodes", "runtime_factor",
    "individual", "occupy", "skipped_no_runtime", "skipped_too_big", "seed",
    "speedup", "clock", "clock_rate", "limit_grid_s", "comm", "pattern", "ratio",
    "sparsity", "matrix", "granularity", "ta_speedup", "size_divisor", "sizes",
    "limits", "options", "bf_window_min", "topology_sha256", "git_revision", "slurm_version", "t0",
    "wall_start"}


def facts(plan):
    log = types.SimpleNamespace(format="swf", skipped_no_runtime=3)
    return {"run_id": "R", "cluster": "tiny", "cluster_nodes": 32,
            "path": "/logs/theta.swf", "log_name": "theta", "log": log, "plan": plan,
            "too_big": [{}], "speedup": 1.0, "clock": "virtual", "clock_rate": 100.0,
            "options": "", "bf_window_min": 2000, "topology_sha256": "ab"}


def test_both_engines_manifests_have_the_same_fields_but_the_twins_engine(monkeypatch):
    monkeypatch.setattr(cli, "ctl", lambda container, cmd: "slurm 24.11.5\n")
    clock = types.SimpleNamespace(now=lambda: 1000.0, pace=100.0)
    plan = [{"prefill": 1, "nodes": 8}, {"prefill": 0, "nodes": 2},
            {"prefill": 0, "nodes": 4}]
    base = ["--log", "theta", "--policy", "greedy", "--sizes", "authors"]
    replay = run_manifest(parse_args(base), facts(plan),
                          lambda: cli.slurm_engine("ctl", clock))
    twin = run_manifest(parse_args(base + ["--cluster", "tiny"], simulate.extra_args),
                        facts(plan), simulate.twin_engine)
    assert set(replay) == FIELDS
    assert set(twin) - set(ENGINE_FIELDS) == FIELDS
    assert twin["engine"] == "sim" and twin["simulated"] is True
    assert replay["slurm_version"] == "slurm 24.11.5" and replay["t0"] == 1500.0
    assert twin["slurm_version"] is None and twin["t0"] == simulate.SIM_T0
    # The counts and readings both engines take from the same plan and
    # arguments (SIZES=authors: the plan's sizes are the script's, SCALE 1).
    for m in (replay, twin):
        assert (m["jobs"], m["prefill_jobs"], m["prefill_nodes"]) == (2, 1, 8)
        assert (m["log"], m["log_file"], m["skipped_too_big"]) == ("theta", "theta.swf", 1)
        assert (m["sizes"], m["size_divisor"]) == ("authors", 1)
        assert m["bf_window_min"] == 2000
