"""The log reader, the faults' bookkeeping and SC18's runtime model
(workloads/logs.py, faults.py, ta_speedup.py). (Moved from
tests/paths.bats, rerun.bats and report.bats.)"""

import json
import os

import pytest

from workloads import faults, logs, ta_speedup


def test_the_log_reader_a_missing_path_is_no_such_file_a_bad_name_lists_the_names(tmp_path):
    where = tmp_path / "my files"
    where.mkdir()
    with pytest.raises(logs.LogError) as e:
        logs.resolve(str(where / "theta_2022.swf"), "/nowhere")
    assert str(e.value) == f"LOG={where}/theta_2022.swf: no such file"
    with pytest.raises(logs.LogError) as e:
        logs.resolve("thta", "/nowhere")
    assert "unknown LOG 'thta'; valid: curie intrepid lublin mira theta" in str(e.value)


def test_rerun_faulted_selects_the_latest_attempt_of_each_log_job_if_it_ended_and_a_fault_hit_it(
        fixtures):
    """tests/fixtures/fault-run: run F, 7 jobs on tiny (see tests/rerun.bats)."""
    run_dir = os.path.join(fixtures, "fault-run")
    with open(os.path.join(run_dir, "sacct.json")) as f:
        jobs = json.load(f)["jobs"]
    died = faults.deaths(run_dir)

    def picked(jobs):
        return [(k, n, j["job_id"], f) for k, n, j, f in faults.to_rerun(jobs, "F", died)]
    # The fixture: every job make report flags, as a first rerun.
    assert picked(jobs) == [("b", 1, 2, "node_fail"), ("c", 1, 3, "cancelled_after_emu1_died"),
                            ("d", 1, 4, "timeout_after_slurmctld_died"),
                            ("e", 1, 5, "requeued"), ("g", 1, 7, "timeout")], picked(jobs)

    def job(jid, name, state, start=1200, end=1210, **kw):
        return dict({"job_id": jid, "name": name, "state": {"current": [state]},
                     "time": {"eligible": start, "start": start, "end": end}}, **kw)
    later = jobs + [
        job(8, "F:b:rerun1", "COMPLETED"),          # b's rerun ran clean
        job(9, "F:c:rerun1", "PENDING", 0, 0),      # c's has not ended: its end decides
        job(10, "F:d:rerun1", "NODE_FAIL"),         # d's was hit too: a second rerun
        job(11, "F:e:rerun2", "COMPLETED"),         # the latest attempt counts
        job(12, "G:g", "NODE_FAIL"),                # another run's job
    ]
    assert picked(later) == [("d", 2, 10, "node_fail"), ("g", 1, 7, "timeout")], picked(later)
    # A requeued job pending again is not run twice.
    jobs[4]["state"]["current"] = ["PENDING"]
    assert ("e", 1, 5, "requeued") not in picked(jobs), picked(jobs)
    # Names: a rerun stands for its log job.
    assert faults.rerun_name("F", "d", 2) == "F:d:rerun2"
    assert faults.rerun_name("F", "d", 0) == "F:d"
    assert faults.log_id_of("F:d:rerun2", "F") == ("d", 2)
    assert faults.log_id_of("F:x:y", "F") == ("x:y", 0) and faults.log_id_of("G:d", "F") is None


def test_sc18s_runtime_model_x_percent_above_four_nodes_v1_and_v2_by_size_up_to_512():
    t = ta_speedup
    assert [t.reduction("10", n, 0, "a") for n in (1, 4, 5, 4096)] == [0, 0, 0.1, 0.1]
    assert t.reduction("20", 5, 0, "a") == 0.2
    for s in ("v1", "v2"):
        for n in (1, 5, 64, 128, 129, 300, 512, 4096):
            r = t.reduction(s, n, 7, "job")
            # The same draw for the same seed and job, whatever the call order.
            assert r == t.reduction(s, n, 7, "job")
            assert 0 <= r <= 0.3, (s, n, r)
            if n >= 512:
                assert r in (0.1, 0.2, 0.3), (s, n, r)     # the top of its range
    # V2: four nodes or fewer get nothing; above 128, at least 10 % at 512.
    assert t.reduction("v2", 4, 7, "job") == 0
    assert all(t.reduction("v2", 512, 7, str(k)) >= 0.1 for k in range(50))
    # V1: all three ranges are drawn.
    assert {t.reduction("v1", 512, 7, str(k)) for k in range(200)} == {0.1, 0.2, 0.3}
    with pytest.raises(ValueError) as e:
        t.reduction("v3", 10, 0, "a")
    assert str(e.value) == "TA_SPEEDUP=v3: expected one of 5, 10, 20, v1, v2"
