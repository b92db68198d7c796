"""The named readings the cluster definitions accept (workloads/cluster_defs.py,
OPTION_VALUES) are the library's (plugins/lib/options.c's key table), in
the same order of values: the first is the paper's form and the default."""

import os
import re
import subprocess

import pytest

from workloads.cluster_defs import NEDD_STALL, OPTION_VALUES, DefinitionError, parse_options
from workloads.registry import build_dir

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def library_keys():
    with open(os.path.join(ROOT, "plugins", "lib", "options.c"), encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r'\[KEY_\w+\] = \{ "(\w+)", \{ ([^}]*) \} \}', text)
    return {k: tuple(re.findall(r'"([^"]+)"', v)) for k, v in rows}


def test_the_definitions_accept_the_librarys_words_in_its_order():
    assert OPTION_VALUES == library_keys()


def test_adaptive_tie_is_a_word_of_both_and_other_values_are_refused():
    assert parse_options("adaptive_tie=greedy,ranks=authors") == ["adaptive_tie=greedy",
                                                                  "ranks=authors"]
    assert OPTION_VALUES["adaptive_tie"] == ("balanced", "greedy")
    with pytest.raises(DefinitionError, match="'adaptive_tie=first': expected one of"):
        parse_options("adaptive_tie=first")


def test_nedds_numeric_words_are_those_the_library_reads():
    # nedd_profile.c reads jitter= (the runtime's seeded noise); the
    # definitions once refused it although the library accepts it.
    assert parse_options("jitter=0.05,stall_noise=0.1") == ["jitter=0.05",
                                                           "stall_noise=0.1"]
    with pytest.raises(DefinitionError, match="jitter=high"):
        parse_options("jitter=high")


def test_nedds_stall_model_words_are_the_librarys():
    # nedd_profile.c reads stall=chassis|routed (nedd_options.h).
    with open(os.path.join(ROOT, "plugins", "lib", "nedd_profile.c"), encoding="utf-8") as f:
        text = f.read()
    assert re.findall(r'!strncmp\(v, "(\w+)", \d+\)', text) == list(NEDD_STALL)
    assert parse_options("stall=routed") == ["stall=routed"]
    with pytest.raises(DefinitionError, match="stall=transit"):
        parse_options("stall=transit")


def test_tb_allocs_usage_lists_every_word_of_the_librarys_table():
    # tb-alloc's usage prints the option words from options.c's table
    # (key=first|second...), not a list of its own that can fall behind:
    # the TOFA family's words (mapper= ... exposure=) were missing.
    tool = os.path.join(build_dir(ROOT), "tb-alloc")
    if not os.access(tool, os.X_OK):
        pytest.skip("tb-alloc is not built (make -C plugins tools)")
    r = subprocess.run([tool], capture_output=True, text=True, check=False)
    assert r.returncode == 2
    words = r.stderr.split()
    for key, values in library_keys().items():
        assert f"{key}={'|'.join(values)}" in words, key
    assert "stall=chassis|routed" in words and "seed=<n>" in words
