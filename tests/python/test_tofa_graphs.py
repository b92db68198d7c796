"""TOFA's reconstructed graphs (workloads/tofa_graphs.py): their shape, and
that the files the experiments use are the generator's output."""

import os
from collections import defaultdict

import pytest

from workloads import tofa_graphs as tg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPHS_DIR = os.path.join(ROOT, "experiments", "graphs")


def parse(text):
    ranks, m = None, {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if ranks is None:
            word, n = line.split()
            assert word == "ranks"
            ranks = int(n)
            continue
        a, b, v = line.split()
        m[(int(a), int(b))] = m.get((int(a), int(b)), 0) + float(v)
    return ranks, m


@pytest.mark.parametrize("name", tg.GRAPHS)
def test_files_are_the_generators(name):
    with open(os.path.join(GRAPHS_DIR, f"{name}.matrix"), encoding="utf-8") as f:
        assert f.read() == tg.graph_text(name), \
            f"experiments/graphs/{name}.matrix: run python3 -m workloads.tofa_graphs"


def test_dt_bh_is_64_16_4_1():
    ranks, m = parse(tg.graph_text("npb-dt-c-85"))
    assert ranks == 85
    arcs = [k for k, v in m.items() if v == tg.DT_ARC_BYTES]
    assert len(arcs) == 64 + 16 + 4
    into = defaultdict(list)
    for a, b in arcs:
        into[b].append(a)
    # layer 1: comparator 64 + j reads sources 4j..4j+3
    for j in range(16):
        assert sorted(into[64 + j]) == [4 * j + i for i in range(4)]
    for j in range(4):
        assert sorted(into[80 + j]) == [64 + 4 * j + i for i in range(4)]
    assert sorted(into[84]) == [80, 81, 82, 83]
    # sources receive nothing; every node but the sink sends exactly once
    assert not any(into[s] for s in range(64))
    outs = defaultdict(int)
    for a, _ in arcs:
        outs[a] += 1
    assert all(outs[k] == 1 for k in range(84)) and outs[84] == 0
    # the sink's checksum to rank 0, light
    assert m[(84, 0)] == tg.DT_CHECKSUM_BYTES


def test_dt_bh_other_classes():
    # class A (16 sources): 16 + 4 + 1 = 21 nodes; class B (32): 32 + 8 + 2 + 1
    assert tg.dt_bh(16)[0] == 21
    n, arcs, sink = tg.dt_bh(32)
    assert n == 43 and sink == 42 and len(arcs) == 42


@pytest.mark.parametrize("ranks,grid", [(64, (4, 4, 4)), (256, (8, 8, 4))])
def test_lammps_halo_and_allreduce(ranks, grid):
    share = 0.1
    n, m = parse(tg.graph_text(f"lammps-{ranks}"))
    assert n == ranks
    halo_pair = 2 * tg.HALO_BYTES
    gx, gy, gz = grid
    levels = ranks.bit_length() - 1
    total = sum(m.values())
    rd = ranks * levels // 2 * (share / (1 - share)) * (ranks * 3 * halo_pair) / (ranks * levels // 2)
    assert abs(total - (ranks * 3 * halo_pair + rd)) < 1e-3 * total
    nbrs = defaultdict(set)
    for (a, b) in m:
        assert a < b
        nbrs[a].add(b)
        nbrs[b].add(a)
    for r in range(ranks):
        x, y, z = r % gx, r // gx % gy, r // (gx * gy)
        face = {(x + d) % gx + gx * y + gx * gy * z for d in (1, -1)}
        face |= {x + gx * ((y + d) % gy) + gx * gy * z for d in (1, -1)}
        face |= {x + gx * y + gx * gy * ((z + d) % gz) for d in (1, -1)}
        partners = {r ^ (1 << k) for k in range(levels)}
        assert nbrs[r] == face | partners
        for p in face:
            assert m[(min(r, p), max(r, p))] >= halo_pair
        for p in partners - face:
            assert m[(min(r, p), max(r, p))] < halo_pair / 4   # "light"


def test_lammps_share_option():
    _, m0 = tg.lammps_matrix(64, 0.0)
    assert len(m0) == 64 * 3 and set(m0.values()) == {2 * tg.HALO_BYTES}
    _, m3 = tg.lammps_matrix(64, 0.3)
    assert abs(sum(m3.values()) * 0.7 - sum(m0.values())) < 1e-3
    with pytest.raises(ValueError):
        tg.lammps_matrix(64, 1.0)
    with pytest.raises(ValueError):
        tg.lammps_matrix(128)


def test_cli_refuses_unknown_graph(tmp_path, capsys):
    assert tg.main(["--out", str(tmp_path), "npb-dt-a"]) == 2
    assert "graph 'npb-dt-a'" in capsys.readouterr().err
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("name", tg.GRAPHS)
def test_job_files_are_the_generators(name):
    fs = tg.read_f(GRAPHS_DIR)
    with open(os.path.join(GRAPHS_DIR, f"{name}.jobs"), encoding="utf-8") as f:
        assert f.read() == tg.jobs_text(name, fs[name][0])


def test_job_file_reads_as_the_studys_format():
    from workloads import logs
    log = logs.read(os.path.join(GRAPHS_DIR, "npb-dt-c-85.jobs"))
    assert log.format == "study" and len(log.jobs) == tg.INSTANCES
    assert {j.nodes for j in log.jobs} == {85} and {j.comm for j in log.jobs} == {1}
    starts = [j.submit for j in log.jobs]
    assert all(b - a == tg.GAP_S for a, b in zip(starts, starts[1:]))


def test_f_table_errors(tmp_path):
    (tmp_path / tg.F_TABLE).write_text("npb-dt-c-85\t1.5\tnothing\n")
    with pytest.raises(ValueError, match=r"tofa-f.tsv:1: expected"):
        tg.read_f(str(tmp_path))
