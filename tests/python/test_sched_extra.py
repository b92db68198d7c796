"""SCHED_EXTRA (workloads/sched_extra.py, params.tsv): SchedulerParameters
words appended to the generated line by make up, for measuring one
setting; unset, the line is unchanged; a bad word, or a name the line sets
already (Slurm reads the first occurrence), is one line naming SCHED_EXTRA
and nothing is written."""

import pytest

from workloads import params, sched_extra


def test_one_declaration_a_cluster_text_no_experiment_sets():
    p = params.by_name()["SCHED_EXTRA"]
    assert (p.section, p.type, p.default, p.flag, p.experiment) == (
        "cluster", "text", "", "", False)


def test_check_takes_words_and_refuses_the_rest_in_one_line():
    assert sched_extra.check("") == [] and sched_extra.check(None) == []
    assert sched_extra.check("bf_yield_interval=200000,bf_yield_sleep=200000") == [
        "bf_yield_interval=200000", "bf_yield_sleep=200000"]
    assert sched_extra.check("enable_job_state_cache") == ["enable_job_state_cache"]
    for bad in ["a b", "bf_yield_sleep=", "x=1,,y=2", "max_rpc_cnt=8,max_rpc_cnt=9",
                "SlurmctldParameters=enable_rpc_queue", "bf_yield_sleep=1;x"]:
        with pytest.raises(ValueError) as e:
            sched_extra.check(bad)
        assert str(e.value).startswith(f"SCHED_EXTRA={bad}: ") and "\n" not in str(e.value)


def test_append_refuses_a_name_the_line_sets_already():
    assert sched_extra.append("a=1,b", []) == "a=1,b"
    assert sched_extra.append("a=1,b", ["c=2"]) == "a=1,b,c=2"
    with pytest.raises(ValueError, match="SCHED_EXTRA: b=3,a: already set"):
        sched_extra.append("a=1,b", ["b=3", "c", "a"])


@pytest.mark.needs_registry
def test_slurm_conf_gets_the_words_last_only_when_set(tmp_path, tiny):
    assert tiny.generate().returncode == 0
    default = tiny.sched_params()
    assert tiny.cluster_env()["SCHED_EXTRA"] == ""
    r = tiny.generate("--sched-extra", "bf_yield_interval=200000,bf_yield_sleep=200000")
    assert r.returncode == 0, r.stderr
    assert tiny.sched_params() == default + ["bf_yield_interval=200000",
                                                "bf_yield_sleep=200000"]
    assert tiny.cluster_env()["SCHED_EXTRA"] == "bf_yield_interval=200000,bf_yield_sleep=200000"
    # After BF_WINDOW's word, which stays where it was.
    assert tiny.generate("--bf-window", "2000", "--sched-extra", "max_rpc_cnt=10").returncode == 0
    assert tiny.sched_params() == default + ["bf_window=2000", "max_rpc_cnt=10"]


@pytest.mark.needs_registry
@pytest.mark.parametrize("words,rate", [("bf_interval=5", "1"), ("bf_window=10", "1"),
                                        ("bf_max_time=2", "100")])
def test_generate_refuses_a_name_set_already_writing_nothing(tmp_path, words, rate, tiny):
    extra = ("--bf-window", "60") if words.startswith("bf_window") else ()
    r = tiny.generate("--clock-rate", rate, *extra, "--sched-extra", words)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: SCHED_EXTRA: {words}: already set by the generated SchedulerParameters "
        "(Slurm reads the first occurrence); change it where it is generated instead"]
    assert not (tmp_path / "tiny").exists()


@pytest.mark.needs_registry
def test_bf_max_time_is_free_at_rate_1(tmp_path, tiny):
    # At rate 1 the clock writes no bf_max_time: Slurm's default (bf_interval).
    assert tiny.generate("--sched-extra", "bf_max_time=1").returncode == 0
    assert tiny.sched_params()[-1] == "bf_max_time=1"


@pytest.mark.needs_registry
def test_generate_refuses_a_bad_word_in_one_line_writing_nothing(tmp_path, tiny):
    r = tiny.generate("--sched-extra", "bf yield")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("error: SCHED_EXTRA=bf yield: ")
    assert not (tmp_path / "tiny").exists()


@pytest.mark.needs_registry
def test_ctld_extra_writes_a_slurmctld_parameters_line_only_when_set(tmp_path, tiny):
    def ctld_lines():
        return [x for x in tiny.slurm_conf() if x.startswith("SlurmctldParameters")]
    assert tiny.generate().returncode == 0
    default = tiny.slurm_conf()
    assert ctld_lines() == []
    assert tiny.cluster_env()["CTLD_EXTRA"] == ""
    r = tiny.generate("--ctld-extra", "enable_rpc_queue,max_dbd_msg_action=discard")
    assert r.returncode == 0, r.stderr
    assert ctld_lines() == ["SlurmctldParameters=enable_rpc_queue,max_dbd_msg_action=discard"]
    assert tiny.cluster_env()["CTLD_EXTRA"] == "enable_rpc_queue,max_dbd_msg_action=discard"
    # Nothing else moves.
    assert [x for x in tiny.slurm_conf() if not x.startswith("SlurmctldParameters")] == default


@pytest.mark.needs_registry
def test_ctld_extra_refuses_a_bad_word_in_one_line_naming_it(tmp_path, tiny):
    r = tiny.generate("--ctld-extra", "enable rpc queue")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: CTLD_EXTRA=enable rpc queue: expected SlurmctldParameters words separated "
        "by commas, each name or name=value, each name once (e.g. enable_rpc_queue)"]
    assert not (tmp_path / "tiny").exists()
