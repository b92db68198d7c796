"""workloads/sim_validate.py: the twin-against-emulation comparison
(make simulate RUN=, make experiment ENGINE=both)."""

import json
import os

from workloads.sim_validate import compare, subset_metrics, table


def _job(start, wait, runtime="100", prefill="0"):
    return {"start": str(start), "wait_s": str(wait), "runtime_scaled_s": runtime,
            "runtime_base_s": runtime, "prefill": prefill, "nodes": "n[0-1]"}


def test_compare_metrics_targets_and_starts():
    emu_m = {"makespan_s": 1000.0, "utilization": 0.5, "wait_mean_s": 100.0,
             "exec_hours": 1.0, "jobs": 3}
    sim_m = {"makespan_s": 1030.0, "utilization": 0.5, "wait_mean_s": 95.0,
             "exec_hours": 0.9}
    plan = [{"log_id": i, "nodes": 2, "prefill": 0} for i in ("a", "b", "c")]
    emu = {"a": _job(0, 0, "1200"), "b": _job(500, 200, "1200"), "c": _job(900, 100, "1200")}
    sim = {"a": _job(10, 10), "b": _job(300, 0), "c": _job(1000, 200)}
    c = compare(emu_m, sim_m, emu, sim, plan)
    by = {r["metric"]: r for r in c["metrics"]}
    assert round(by["makespan_s"]["difference_percent"], 6) == 3.0
    assert by["makespan_s"]["met"] is False          # beyond 2 %
    assert round(by["wait_mean_s"]["difference_percent"], 6) == -5.0
    assert by["wait_mean_s"]["met"] is True           # within 10 %
    assert by["utilization"]["met"] is None           # no target
    # 3 x 1,200 s modelled = 1 h: the emulation's 1.0 h is no lag.
    assert round(c["emulation_lag"]["gap_percent"], 6) == 0.0
    st = c["starts"]
    assert (st["jobs"], st["within_60s"], st["twin_earlier"], st["twin_later"]) == (3, 1, 1, 1)
    assert st["first_differing"]["log_id"] == "b"
    assert [d["log_id"] for d in st["largest"]] == ["b", "c", "a"]


def test_table_one_row_per_run(tmp_path):
    d = tmp_path / "exp"
    (d / "state").mkdir(parents=True)
    (d / "runs.tsv").write_text("1\tp1\ttheta\thpc2010\trhvd\tgreedy\tJOBS=10\n"
                                "2\tp2\ttheta\thpc2010\trhvd\tdefault1905\tJOBS=10\n")
    (d / "state" / "1.run").write_text("R1\n")
    twin = d / "twin" / "R1-sim"
    twin.mkdir(parents=True)
    v = compare({"makespan_s": 100.0, "wait_mean_s": 10.0, "exec_hours": 1.0,
                 "utilization": 0.5}, {"makespan_s": 101.0, "wait_mean_s": 8.0,
                                       "exec_hours": 1.0, "utilization": 0.5}, {}, {}, [])
    v["emulation"] = "R1"

    (twin / "validation.json").write_text(json.dumps(v))
    text = open(table(str(d)), encoding="utf-8").read()
    rows = [line for line in text.splitlines() if line.startswith("| 1 ") or
            line.startswith("| 2 ")]
    assert len(rows) == 2
    assert "+1.0 %" in rows[0] and "**-20.0 %**" in rows[0]   # wait beyond 10 %
    assert rows[1].count(" - |") == 13                          # run 2: no twin yet
    assert os.path.exists(d / "validation.md")


def test_delays_run_lag_and_start_after_end():
    from workloads.sim_validate import delays
    jobs = {"a": {"run_s": "110", "runtime_scaled_s": "100", "end": "110", "wait_s": "0",
                  "start": "0"},
            "b": {"run_s": "50", "runtime_scaled_s": "50", "end": "190", "wait_s": "140",
                  "start": "140"}}
    d = delays(jobs)
    assert d["run_past_model_s"]["max"] == 10
    assert d["start_after_last_end_s"]["median"] == 30      # b started 30 s after a ended


def test_core_level_subset_counts_cpus():
    """A damaged core-level emulation (GRANULARITY=core) is compared over
    the jobs it counts with utilization in CPUs, as its report counts it:
    (4 x 100 + 12 x 50) CPU-s over 16 cores x 100 s."""
    jobs = {"a": {"eligible": "0", "end": "100", "nodes": "1", "cpus": "4",
                  "run_s": "100", "wait_s": "0"},
            "b": {"eligible": "0", "end": "80", "nodes": "3", "cpus": "12",
                  "run_s": "50", "wait_s": "30"}}
    m = subset_metrics(jobs, ["a", "b"], 4, 16)
    assert m["utilization"] == (4 * 100 + 12 * 50) / (16 * 100)
    assert subset_metrics(jobs, ["a", "b"], 4)["utilization"] == (100 + 150) / (4 * 100)
