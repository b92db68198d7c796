"""workloads/tofa_model.py: the scenario it writes from a graph file, what it
reads from tb-alloc, the fit rules (tofa-f.tsv's own numbers give its f
back), and Fig. 3a's rows through a stand-in tb-alloc (TB_BUILD)."""

import os
import stat

import pytest

from workloads import tofa_model


def test_edges_skip_comments_and_ranks_and_refuse_bad_lines(tmp_path):
    m = tmp_path / "g.matrix"
    m.write_text("# a graph\nranks 3\n0 1 10\n1 2 5  # tail\n\n")
    assert tofa_model.edges(str(m)) == ["edge 0 1 10", "edge 1 2 5"]
    m.write_text("ranks 3\n0 1\n")
    with pytest.raises(tofa_model.ModelError, match=r"g.matrix:2: expected"):
        tofa_model.edges(str(m))


def test_scenario_splits_long_risky_lists():
    text = tofa_model.scenario((8, 8, 8), ["edge 0 1 1"], 2, risky=range(150),
                               job_extra=" seed=3")
    lines = text.splitlines()
    assert lines[0] == "torus 8 8 8"
    assert lines[1] == "risky " + ",".join(map(str, range(100)))
    assert lines[2] == "risky " + ",".join(map(str, range(100, 150)))
    assert lines[3:] == ["edge 0 1 1", "job nodes=2 seed=3"]


def test_parse_line_reads_costs_and_refuses_other_lines():
    r = tofa_model.parse_line("tofa nodes=3-6 map=3,4,5,6 cost=3 hops=3 abort=0.02")
    assert (r["policy"], r["map"], r["hops"], r["abort"]) == ("tofa", "3,4,5,6", 3.0, 0.02)
    with pytest.raises(tofa_model.ModelError):
        tofa_model.parse_line("tofa -")
    with pytest.raises(tofa_model.ModelError, match="no abort="):
        tofa_model.parse_line("tofa nodes=1 cost=1 hops=1")


def test_direction_says_tie_when_ours_rounds_to_one():
    assert tofa_model.direction(0.9996, 1.112) == "tie"
    assert tofa_model.direction(1.027, 1.112) == "yes"
    assert tofa_model.direction(0.982, 1.037) == "no"
    assert tofa_model.direction(0.878, 0.878) == "yes"


def test_fit_rules_give_tofa_f_tsv_back_from_its_own_numbers():
    # tofa-f.tsv's comment (scotch_arch=build0, the default): scotch0's
    # C/C0 3.62388e10 / 9.105e10, tofa's 3.33237e9 / 2.25933e9 on 8x8x8.
    f = tofa_model.read_f()
    assert tofa_model.fit_fig3a(3.62388e10 / 9.105e10) == pytest.approx(f["npb-dt-c-85"], abs=5e-5)
    assert tofa_model.fit_table1(3.33237e9 / 2.25933e9) == pytest.approx(f["lammps-256"], abs=5e-5)
    assert tofa_model.runtime(0.5, 0.5) == pytest.approx(0.75)


def test_tofa_f_tsv_is_fitted_under_the_librarys_default_options(tmp_path):
    # The real tb-alloc, no option word: the two fitted figures' C/C0
    # give tofa-f.tsv's f back. Fails if the library's default Scotch
    # call (scotch_arch=) changes without f being refitted.
    tool = os.path.join(tofa_model.build_dir(tofa_model.ROOT), "tb-alloc")
    if not os.access(tool, os.X_OK):
        pytest.skip("tb-alloc is not built (make -C plugins tools)")
    f = tofa_model.read_f()
    work = str(tmp_path)
    for graph, n, subject, fit in (("npb-dt-c-85", 85, "scotch0", tofa_model.fit_fig3a),
                                   ("lammps-256", 256, "tofa", tofa_model.fit_table1)):
        g = tofa_model.edges(os.path.join(tofa_model.GRAPHS, graph + ".matrix"))
        text = tofa_model.scenario((8, 8, 8), g, n)
        c0 = tofa_model.place(work, graph, text, "default", "")["hops"]
        c = tofa_model.place(work, graph, text, subject, "")["hops"]
        assert fit(c / c0) == pytest.approx(f[graph], abs=5e-5), graph


FAKE = """#!/bin/sh
# tb-alloc stand-in: hops by policy (default 100, greedy 30, scotch0 40,
# random 130), whatever the scenario.
case "$2" in
default) h=100 ;; tofa-greedy) h=30 ;; scotch0) h=40 ;; random) h=130 ;; *) exit 1 ;;
esac
echo "$2 nodes=0 map=0 cost=$h hops=$h abort=0"
"""


def test_fig3a_rows_through_a_stand_in(tmp_path, monkeypatch):
    tool = tmp_path / "tb-alloc"
    tool.write_text(FAKE)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TB_BUILD", str(tmp_path))
    f, rows = tofa_model.fig3a(str(tmp_path), "", 0.5, refit=False)
    got = {p: (r, t, below) for p, r, t, below, _ in rows}
    assert f == 0.5
    assert got["scotch0"][0] == pytest.approx(0.4)
    assert got["scotch0"][1] == pytest.approx(0.7)     # 0.5 + 0.5 x 0.4
    # Scotch below greedy: 1 - 0.7 / 0.65; below random: 1 - 0.7 / 1.15.
    assert got["tofa-greedy"][2] == pytest.approx(100 * (1 - 0.7 / 0.65))
    assert got["random"][2] == pytest.approx(100 * (1 - 0.7 / 1.15))
    f, _ = tofa_model.fig3a(str(tmp_path), "", 0.5, refit=True)
    assert f == pytest.approx(0.22 / 0.6)
    assert os.path.exists(tmp_path / "fig3a.scenario")
