"""TOFA's communication graphs, RECONSTRUCTED (the paper's profiled
matrices, Fig. 1, are not published): NPB-DT class C's black-hole graph
and a LAMMPS-like halo + allreduce graph, written in the matrix format
jobs give with --comm-matrix (plugins/lib/matrix.h). The files the
experiments use are experiments/graphs/*.matrix, written by

    python3 -m workloads.tofa_graphs [--out DIR] [--collective-share S]

(each graph's <graph>.matrix, and <graph>.jobs, the job file the kind tofa
replays), and checked against this generator by tests/python/test_tofa_graphs.py.

NPB-DT class C, graph BH (npb-dt-c-85): NPB 3.3's dt.c, buildBH(): 64
sources ("num_sources = 4*16" for class C), then layers of comparators
with in-degree 4 (maxInDeg) until at most 4 are left: 64 -> 16 -> 4, and
one sink fed by those 4 (85 nodes, the paper's 85 processes, L586). Node
i runs on rank i (dt.c's main: node[i]->address = i). Comparator j of a
layer reads nodes 4j..4j+3 of the layer before. Every arc carries one
feature array: an int (its length) and num_samples * fielddim doubles,
num_samples = 1728 * 4096 for class C, fielddim = 4, as dt.c counts its
own "bytes transmitted" (featnum per arc). A source's array is really
(num_samples - 2048 + r) * 4 doubles with r < 4096 drawn by randlc (0.03 %
either way); we take the nominal length. The sink sends its checksum (one
double) to rank 0. The paper weights edges by total bytes (L205-207).

LAMMPS-like (lammps-64, lammps-256): the ranks on a periodic process grid
(4x4x4 for 64, 8x8x4 for 256; rank = x + X*y + X*Y*z), each exchanging a
halo with its six face neighbours (LAMMPS's staged x, y, z exchange; equal
faces: a cubic box), plus recursive-doubling allreduce pairs (rank r with
r XOR 2^k, k < log2 N), which carry --collective-share of all bytes
(default 0.1: "light"; the paper says LAMMPS has "a significant amount of
collective traffic", L599-600, but gives no share: an option). The
halo's volume per neighbour and direction is HALO_BYTES; only ratios
matter to the mappers and the runtime model. Each pair is one line, the
volume of both directions (the paper's Gv(i,j), L217-219).
"""

import argparse
import os
import sys

# dt.c, class C.
DT_C_SOURCES = 4 * 16
DT_C_SAMPLES = 1728 * 4096
DT_FIELDDIM = 4
DT_MAX_IN_DEG = 4
DT_ARC_BYTES = 4 + 8 * DT_C_SAMPLES * DT_FIELDDIM
DT_CHECKSUM_BYTES = 8

# LAMMPS-like: bytes one rank sends one face neighbour (per direction).
HALO_BYTES = 1 << 20
COLLECTIVE_SHARE = 0.1
LAMMPS_GRIDS = {64: (4, 4, 4), 256: (8, 8, 4)}

GRAPHS = ("npb-dt-c-85", "lammps-64", "lammps-256")


def dt_bh(sources=DT_C_SOURCES, max_in_deg=DT_MAX_IN_DEG):
    """NPB-DT's BH graph as dt.c's buildBH builds it: (number of nodes,
    arcs [(tail, head)], the sink's id), node i on rank i."""
    arcs = []
    n = sources
    layer_first, layer_len = 0, sources
    while layer_len > max_in_deg:
        next_len = -(-layer_len // max_in_deg)
        for i in range(next_len):
            node = n + i
            for j in range(max_in_deg):
                sid = i * max_in_deg + j
                if sid >= layer_len:
                    break
                arcs.append((layer_first + sid, node))
        layer_first, n = n, n + next_len
        layer_len = next_len
    sink = n
    for i in range(layer_len):
        arcs.append((layer_first + i, sink))
    return n + 1, arcs, sink


def dt_matrix():
    """{(from, to): bytes} of NPB-DT class C BH, 85 ranks."""
    n, arcs, sink = dt_bh()
    m = {arc: DT_ARC_BYTES for arc in arcs}
    m[(sink, 0)] = m.get((sink, 0), 0) + DT_CHECKSUM_BYTES
    return n, m


def lammps_matrix(ranks, share=COLLECTIVE_SHARE):
    """{(a, b): bytes, a < b} of the LAMMPS-like graph on `ranks` ranks
    (a key of LAMMPS_GRIDS), `share` of the bytes in the allreduce."""
    if ranks not in LAMMPS_GRIDS:
        raise ValueError(f"ranks {ranks}: expected one of "
                         f"{' '.join(map(str, LAMMPS_GRIDS))}")
    if not 0 <= share < 1:
        raise ValueError(f"collective share {share}: expected 0 <= share < 1")
    gx, gy, gz = LAMMPS_GRIDS[ranks]

    def rank(x, y, z):
        return x % gx + gx * (y % gy) + gx * gy * (z % gz)

    m = {}
    for z in range(gz):
        for y in range(gy):
            for x in range(gx):
                r = rank(x, y, z)
                for nb in (rank(x + 1, y, z), rank(x, y + 1, z), rank(x, y, z + 1)):
                    # a dimension of 2 has one neighbour both ways: one
                    # pair, twice the faces (none here; kept general)
                    key = (min(r, nb), max(r, nb))
                    m[key] = m.get(key, 0) + 2 * HALO_BYTES
    halo_total = sum(m.values())
    levels = ranks.bit_length() - 1
    if share > 0:
        pairs = ranks * levels // 2
        per_pair = share / (1 - share) * halo_total / pairs
        for r in range(ranks):
            for k in range(levels):
                p = r ^ (1 << k)
                if r < p:
                    m[(r, p)] = m.get((r, p), 0) + per_pair
    return ranks, m


def render(ranks, m, header):
    out = [f"# {line}" if line else "#" for line in header]
    out.append(f"ranks {ranks}")
    for (a, b) in sorted(m):
        v = m[(a, b)]
        out.append(f"{a} {b} {v:.0f}" if v == int(v) else f"{a} {b} {v:.6f}")
    return "\n".join(out) + "\n"


def graph_text(name, share=COLLECTIVE_SHARE):
    """The file's text of graph `name` (one of GRAPHS)."""
    if name == "npb-dt-c-85":
        ranks, m = dt_matrix()
        header = ["NPB-DT class C, graph BH (black hole), 85 processes: 64 sources ->",
                  "16 -> 4 comparators -> 1 sink. RECONSTRUCTED from NPB 3.3's dt.c",
                  "(buildBH, ProcessNodes): the TOFA paper's profiled matrix is not",
                  "published. One line per arc (sender receiver bytes); each arc",
                  f"{DT_ARC_BYTES} bytes, the sink's checksum to rank 0 8 bytes.",
                  "Written by python3 -m workloads.tofa_graphs; do not edit."]
    elif name.startswith("lammps-"):
        ranks, m = lammps_matrix(int(name.split("-")[1]), share)
        gx, gy, gz = LAMMPS_GRIDS[ranks]
        header = [f"LAMMPS-like, {ranks} processes: a periodic {gx}x{gy}x{gz} process grid",
                  "(rank = x + X*y + X*Y*z), halo to the six face neighbours, plus",
                  "recursive-doubling allreduce pairs (r, r XOR 2^k) carrying",
                  f"{share:g} of the bytes. RECONSTRUCTED: the TOFA paper's profiled",
                  "LAMMPS (rhodopsin) matrix is not published. Each pair once, the",
                  "bytes of both directions (the paper's Gv, L217-219).",
                  "Written by python3 -m workloads.tofa_graphs; do not edit."]
    else:
        raise ValueError(f"graph '{name}': expected one of {' '.join(GRAPHS)}")
    return render(ranks, m, header)


# The job files (the study's six-column format, workloads/logs.py): the
# graph's job, INSTANCES times, each alone on the machine (GAP_S apart, more
# than any modelled runtime), T0 = RUNTIME_S. The paper's runs last about
# 30 s (L730); ours 300 s, so that sacct's whole seconds weigh 0.2 %, not 2 %.
INSTANCES = 10
RUNTIME_S = 300
GAP_S = 1000
F_TABLE = "tofa-f.tsv"


def read_f(directory):
    """{graph: (f, fitted_on)} from DIRECTORY/tofa-f.tsv (the runtime model's
    f per graph, plugins/lib/tofa_runtime.c)."""
    path = os.path.join(directory, F_TABLE)
    out = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            try:
                f = float(cols[1])
                if len(cols) != 3 or not 0 <= f <= 1:
                    raise ValueError
            except (ValueError, IndexError):
                raise ValueError(f"{path}:{lineno}: expected 'graph<TAB>f (0-1)<TAB>"
                                 f"fitted_on', got '{line.strip()}'") from None
            out[cols[0]] = (f, cols[2])
    return out


def jobs_text(name, f, instances=INSTANCES, runtime=RUNTIME_S, gap=GAP_S):
    """The job file of graph `name`: its ranks as nodes, communicating, Perc
    100 f rounded (the kind gives each run f itself, RATIO)."""
    ranks = int(graph_text(name).split("ranks ", 1)[1].split()[0])
    # The format has no comments: the header line comes first.
    lines = ["Job_name Submit Runtime Nodes Comment Perc"]
    lines += [f"{k + 1} {k * gap} {runtime} {ranks} 1 {round(100 * f)}" for k in range(instances)]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.tofa_graphs",
                                 description="Write TOFA's reconstructed graphs.")
    ap.add_argument("--out", default="experiments/graphs",
                    help="directory for <graph>.matrix (default experiments/graphs)")
    ap.add_argument("--collective-share", type=float, default=COLLECTIVE_SHARE,
                    help="LAMMPS: share of bytes in the allreduce pairs (default 0.1)")
    ap.add_argument("--f-dir", default="experiments/graphs",
                    help=f"where {F_TABLE} (each graph's f) is (default experiments/graphs)")
    ap.add_argument("graphs", nargs="*", default=list(GRAPHS),
                    help=f"which graphs (default all: {' '.join(GRAPHS)})")
    a = ap.parse_args(argv)
    try:
        texts = {f"{g}.matrix": graph_text(g, a.collective_share) for g in a.graphs}
        fs = read_f(a.f_dir)
        for g in a.graphs:
            if g not in fs:
                raise ValueError(f"{os.path.join(a.f_dir, F_TABLE)}: no f for graph '{g}'")
            texts[f"{g}.jobs"] = jobs_text(g, fs[g][0])
    except (ValueError, OSError) as e:
        print(f"tofa_graphs: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    for name, text in texts.items():
        path = os.path.join(a.out, name)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
