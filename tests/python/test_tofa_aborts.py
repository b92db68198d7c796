"""workloads/tofa_aborts.py: its routes and exposed sets against the C
library's hand case, its closed forms against enumeration, the replay of
the keyed draws, and (with the real tb-alloc) the maps it reads, the
option exposure=own end to end, and the measured abort ratios of the
2026-11-27 LAMMPS-64 runs given back by the replay."""

import itertools
import math
import os

import pytest

from workloads import tofa_aborts as ta
from workloads import tofa_model
from workloads.tofa_faults import draw_nf, failed_nodes

CHAIN = ["edge 0 1 1", "edge 1 2 1", "edge 2 3 1"]


def test_route_and_exposed_match_the_c_hand_case():
    # tests/c/test_tofa.c, test_tofa_hit_route_and_node: the chain on
    # 3,4,5,6 of a 4x4x4 torus depends on 3-6 and, on routes only, 0, 7.
    shape = (4, 4, 4)
    assert ta.route(shape, 3, 4) == [3, 0, 4]
    assert ta.route(shape, 4, 3) == [4, 7, 3]
    prs = ta.pairs(CHAIN, 4)
    assert prs == {(0, 1), (1, 2), (2, 3)}
    assert ta.exposed(shape, [3, 4, 5, 6], prs, "routes") == {0, 3, 4, 5, 6, 7}
    assert ta.exposed(shape, [3, 4, 5, 6], prs, "own") == {3, 4, 5, 6}
    with pytest.raises(ValueError):
        ta.exposed(shape, [3, 4, 5, 6], prs, "near")
    # y first: (3,0,0) -> (3,1,0) = 7, then x the short way to (0,1,0) = 4.
    assert ta.route(shape, 3, 4, (1, 0, 2)) == [3, 7, 4]


def test_pairs_heavy_keeps_the_heaviest_half():
    assert ta.pairs(["edge 0 1 10", "edge 1 0 10", "edge 1 2 4", "edge 2 2 50"], 3,
                    heavy=True) == {(0, 1)}
    assert ta.pairs(["edge 0 1 10", "edge 1 2 4"], 3) == {(0, 1), (1, 2)}


@pytest.mark.parametrize("nodes,nf,n", [(10, 3, 3), (12, 2, 5), (9, 4, 1), (8, 0, 8)])
def test_no_window_prob_equals_enumeration(nodes, nf, n):
    combos = list(itertools.combinations(range(nodes), nf))
    miss = sum(not ta.has_window(list(c), nodes, n) for c in combos)
    assert ta.no_window_prob(nodes, nf, n) == pytest.approx(miss / len(combos))


def test_expected_fixed_equals_enumeration():
    nodes, nf, m, pf = 9, 3, 4, 0.1
    combos = list(itertools.combinations(range(nodes), nf))
    want = sum(1 - (1 - pf) ** len(set(c) & set(range(m))) for c in combos) / len(combos)
    assert ta.expected_fixed(nodes, nf, m, pf) == pytest.approx(want)
    # default on LAMMPS-64 at nf 16: E[K] = 2 risky nodes, p near 1 - 0.98^2
    assert ta.expected_fixed(512, 16, 64) == pytest.approx(0.0393, abs=5e-4)


def test_replay_counts_the_keyed_draws():
    nf = draw_nf(1, 0, 16, 512)
    assert ta.replay(1, 0, 50, nf, 0.02, set()) == (0, 50, 0)
    exp_set = set(nf)
    aborted, attempts, aborts = ta.replay(1, 0, 50, nf, 0.02, exp_set)
    first = sum(bool(failed_nodes(1, 0, i, 1, nf, 0.02)) for i in range(50))
    assert aborted == first and attempts == 50 + aborts and aborts >= aborted
    with pytest.raises(ValueError, match="attempts"):
        ta.replay(1, 0, 1, nf, 1.0, exp_set)


def tool():
    t = os.path.join(tofa_model.build_dir(tofa_model.ROOT), "tb-alloc")
    if not os.access(t, os.X_OK):
        pytest.skip("tb-alloc is not built (make -C plugins tools)")
    return t


def test_exposure_own_through_tb_alloc(tmp_path):
    # tb-alloc's abort= under exposure=own is 1 - 0.98^(risky nodes of the
    # job's own); a tofa map on a clean window has none, while its routes
    # meet some (seed 1, LAMMPS-64, nf 8, batch 1: window 53-116).
    tool()
    pl = ta.Placer(str(tmp_path), "lammps-64", 64, "")
    risky = draw_nf(1, 1, 8, 512)
    cells, _ = pl.cell("tofa", risky, "all")
    assert cells["own"][:3] == (0, 0, 0.0)
    assert cells["routes"][0] == 0 and cells["routes"][1] > 0
    text = tofa_model.scenario((8, 8, 8), pl.edges, 64, risky=risky)
    r = tofa_model.place(str(tmp_path), "own", text, "tofa", "exposure=own")
    assert r["abort"] == 0
    r = tofa_model.place(str(tmp_path), "own", text, "default", "exposure=own")
    own = len(set(range(64)) & set(risky))
    assert own > 0 and r["abort"] == pytest.approx(ta.abort_p(own), abs=1e-6)


def test_replay_gives_the_measured_lammps_64_nf8_run_back(tmp_path):
    # docs/results/2026-11-27-tofa-lammps-64.md (scotch_arch=build2 then):
    # nf 8, default 46 / tofa 44 aborted instances, 1049 / 1047 attempts.
    tool()
    pl = ta.Placer(str(tmp_path), "lammps-64", 64, "scotch_arch=build2")
    got = {}
    for policy in ("default", "tofa"):
        tot = [0, 0, 0]
        for b in range(10):
            risky = draw_nf(1, b, 8, 512)
            e = pl.cell(policy, risky, "all")[0]["routes"][3]
            for j, v in enumerate(ta.replay(1, b, 100, risky, 0.02, e)):
                tot[j] += v
        got[policy] = tuple(tot[:2])
    assert got == {"default": (46, 1049), "tofa": (44, 1047)}
    assert math.isclose(ta.abort_p(2), 0.0396)
