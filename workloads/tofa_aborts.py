"""TOFA's abort ratios by computation, no cluster (issue 25;
shared/papers/tofa.txt, "L<n>" its lines: the fault model L267-279, the
resilience experiment L674-768; docs/results/2026-11-27-tofa-aborts.md).

For Sec. 5.2's three configurations (NPB-DT-85 nf 16, LAMMPS-64 nf 8 and
16, pf 0.02, 8x8x8 torus) and default against tofa, under each reading
of which nodes an attempt depends on (the library's option exposure=:
routes, ours and the default, L272-275 and L714-717; own, L755-757) and of
tofa's fallback (fallback=all, the paper's l. 12; window, ours):

- windows: the exact probability that a random Nf leaves no n consecutive
  clean node ids (Listing 1.1 l. 10-11), and how many of the experiment's
  batches have none;
- seed: the experiment's own batches (Nf drawn as workloads/tofa_faults.py
  draws it): p per attempt for each policy (tb-alloc's map; the exposed
  set recomputed here and checked against tb-alloc's abort=), the nodes
  behind p (risky nodes of the job's own, risky nodes on its routes only),
  and the keyed failure draws replayed: the aborted instances and attempts
  a run in Slurm gives, attempt for attempt (the placement is the same in
  every attempt on the otherwise empty machine);
- spread: over many seeds, the expected abort ratio (the mean of p over
  every Nf drawn) and the range of the ten-batch ratio the paper reports,
  to place the paper's figures;
- routes: exposure=routes under the other five dimension orders and with
  the heaviest pairs only (sensitivities, computed here only), and where
  tofa's route-only risky nodes sit.

The expected share of instances aborted at least once equals the expected
aborts per attempt, p (attempts of one instance are independent draws with
the same placement: P(at least one abort) = p, aborts / attempts = p in
expectation); aborts per instance is p / (1 - p).

    python3 -m workloads.tofa_aborts windows|seed|spread|routes|all \
        [--options "scotch_arch=build2"] [--seed 1] [--seeds 20]
"""

import argparse
import math
import os
import statistics
import sys

from workloads import tofa_model
from workloads.tofa_faults import MAX_ATTEMPTS, draw_nf, failed_nodes

SHAPE = (8, 8, 8)
NODES = 512
PF = 0.02
# Sec. 5.2's configurations and the paper's abort ratios (%), default /
# tofa: L727-729 (NPB-DT), L755-759 (LAMMPS-64; nf 8's default not given).
CONFIGS = (("npb-dt-c-85", 85, 16, (7.4, 2.0)), ("lammps-64", 64, 8, (None, 0.0)),
           ("lammps-64", 64, 16, (4.0, 1.1)))
EXPOSURES = ("routes", "own")
FALLBACKS = ("all", "window")


def coord(shape, n):
    """Node id -> (x, y, z): id = x + X (y + Y z) (emulated-clusters'
    torus order, the library's)."""
    x, y, _ = shape
    return (n % x, (n // x) % y, n // (x * y))


def node_id(shape, c):
    return c[0] + shape[0] * (c[1] + shape[1] * c[2])


def route(shape, u, v, order=(0, 1, 2)):
    """The nodes of the dimension-order route u -> v, u first: x, then y,
    then z (order: another order, a sensitivity only), each ring the
    shorter way, a tie the + way (tb_torus_route)."""
    cur, dst, path = list(coord(shape, u)), coord(shape, v), [u]
    for d in order:
        k = shape[d]
        fwd = (dst[d] - cur[d]) % k
        step = 1 if fwd <= k - fwd else -1
        for _ in range(fwd if step > 0 else k - fwd):
            cur[d] = (cur[d] + step) % k
            path.append(node_id(shape, cur))
    return path


def pairs(graph_edges, n, heavy=False):
    """The processes that communicate: {(a, b), a < b} of a graph's
    `edge` lines (ranks = n, self-traffic and empty arcs dropped; heavy:
    only pairs with at least half the heaviest pair's bytes, LAMMPS-64's
    halo without its allreduce-only pairs, a sensitivity)."""
    w = {}
    for line in graph_edges:
        _, a, b, v = line.split()
        a, b = int(a), int(b)
        if a != b and float(v) > 0 and 0 <= a < n and 0 <= b < n:
            key = (min(a, b), max(a, b))
            w[key] = w.get(key, 0.0) + float(v)
    top = max(w.values(), default=0.0)
    return {k for k, v in w.items() if not heavy or v >= top / 2}


def exposed(shape, mp, prs, exposure, order=(0, 1, 2)):
    """The node ids one attempt depends on (tb_tofa_exposed): its own
    (mp[p], the node of process p) and, under routes, every node on either
    direction's route between two processes that communicate."""
    if exposure not in EXPOSURES:
        raise ValueError(f"exposure={exposure}: expected routes or own")
    out = set(mp)
    if exposure == "routes":
        for a, b in prs:
            out.update(route(shape, mp[a], mp[b], order))
            out.update(route(shape, mp[b], mp[a], order))
    return out


def abort_p(k, pf=PF):
    """One attempt's abort probability with k exposed risky nodes."""
    return 1 - (1 - pf) ** k


def no_window_prob(nodes, nf, n):
    """P(no n consecutive ids free of risk) when nf of `nodes` linear ids
    are risky, uniformly: the nf + 1 gaps sum to nodes - nf, all below n
    (compositions with a bound, by inclusion-exclusion)."""
    m, k, count = nodes - nf, nf + 1, 0
    for j in range(k + 1):
        r = m - j * n
        if r < 0:
            break
        count += (-1) ** j * math.comb(k, j) * math.comb(r + k - 1, k - 1)
    return count / math.comb(nodes, nf)


def has_window(risky, nodes, n):
    prev = -1
    for x in sorted(risky) + [nodes]:
        if x - prev - 1 >= n:
            return True
        prev = x
    return False


def expected_fixed(nodes, nf, m, pf=PF):
    """E[p] over random Nf for a placement whose exposed set has m nodes
    (default's: the same ids whatever Nf is): K ~ hypergeometric."""
    return sum(math.comb(nf, k) * math.comb(nodes - nf, m - k) / math.comb(nodes, m) *
               abort_p(k, pf) for k in range(min(nf, m) + 1))


def replay(seed, batch, instances, nf_nodes, pf, exp_set):
    """The keyed failure draws of a batch (tofa_faults.failed_nodes) met
    by a placement that depends on exp_set in every attempt: (instances
    aborted at least once, attempts, aborts), as Slurm realizes them."""
    aborted = attempts = aborts = 0
    for i in range(instances):
        a, hit = 1, False
        while True:
            if a > MAX_ATTEMPTS:   # the driver's limit too
                raise ValueError(f"batch {batch} instance {i}: more than {MAX_ATTEMPTS} "
                                 "attempts")
            attempts += 1
            if set(failed_nodes(seed, batch, i, a, nf_nodes, pf)) & exp_set:
                aborts, hit, a = aborts + 1, True, a + 1
                continue
            break
        aborted += hit
    return aborted, attempts, aborts


class Placer:
    """tb-alloc's maps for one graph; every map's routes-abort checked
    against tb-alloc's abort=."""

    def __init__(self, work, graph, n, options):
        self.work, self.n, self.options = work, n, options
        self.edges = tofa_model.edges(os.path.join(tofa_model.GRAPHS, graph + ".matrix"))
        self.pairs = pairs(self.edges, n)
        self.c0 = None
        self.default_map = None

    def place(self, policy, risky, fallback):
        if policy == "default" and self.default_map is not None:
            # Slurm's default reads no pf: ids 0..n-1 on the empty torus.
            return self.default_map, self.c0
        words = " ".join(w for w in (self.options, f"fallback={fallback}",
                                     "exposure=routes") if w)
        r = tofa_model.place(self.work, "aborts", tofa_model.scenario(
            SHAPE, self.edges, self.n, risky=risky), policy, words)
        mp = [int(x) for x in r["map"].split(",")]
        k = len(exposed(SHAPE, mp, self.pairs, "routes") & set(risky))
        if abs(abort_p(k) - r["abort"]) > 1e-5:
            raise tofa_model.ModelError(f"{policy}: exposed set gives p {abort_p(k):.6f}, "
                                        f"tb-alloc abort={r['abort']}")
        return mp, r["hops"]

    def cell(self, policy, risky, fallback):
        """{exposure: (own risky, route-only risky, p)}, C/C0."""
        if self.c0 is None:
            self.default_map, self.c0 = self.place("default", [], "all")
        mp, hops = self.place(policy, risky, fallback)
        own = len(set(mp) & set(risky))
        out = {}
        for e in EXPOSURES:
            k = len(exposed(SHAPE, mp, self.pairs, e) & set(risky))
            out[e] = (own, k - own, abort_p(k), exposed(SHAPE, mp, self.pairs, e))
        return out, hops / self.c0


def pct(x):
    return "-" if x is None else f"{100 * x:.1f}"


def windows_report(seed, batches):
    lines = ["| configuration | P(no clean window), exact (%) | batches without one, seed "
             f"{seed} | expected of {batches} |", "|---|---|---|---|"]
    for graph, n, nf, _ in CONFIGS:
        q = no_window_prob(NODES, nf, n)
        miss = sum(not has_window(draw_nf(seed, b, nf, NODES), NODES, n) for b in range(batches))
        lines.append(f"| {graph}, nf {nf} | {100 * q:.4g} | {miss} | {batches * q:.2f} |")
    return lines


def seed_report(work, options, seed, batches, instances, f):
    """Per configuration: per batch and reading, p (own / route-only risky
    behind it) and the replayed counts; then the totals."""
    lines = []
    for graph, n, nf, paper in CONFIGS:
        pl = Placer(work, graph, n, options)
        tot = {}
        rows = []
        for b in range(batches):
            risky = draw_nf(seed, b, nf, NODES)
            row = [str(b), "yes" if has_window(risky, NODES, n) else "**no**"]
            for policy, fb in (("default", "all"), ("tofa", "all"), ("tofa", "window")):
                cells, ratio = pl.cell(policy, risky, fb)
                t_t0 = tofa_model.runtime(f.get(graph, 0), ratio)
                for e in EXPOSURES:
                    own, route_only, p, exp_set = cells[e]
                    acc = tot.setdefault((policy, fb, e), [0, 0, 0, 0.0, 0.0])
                    got = replay(seed, b, instances, risky, PF, exp_set)
                    for j in range(3):
                        acc[j] += got[j]
                    acc[3] += p
                    # pf per T0 of run time, not per attempt: a sensitivity.
                    acc[4] += abort_p((own + route_only) * t_t0)
                own, route_only, p, _ = cells["routes"]
                row.append(f"{own}+{route_only} ({100 * p:.1f})")
            rows.append("| " + " | ".join(row) + " |")
        lines += [f"### {graph}, nf {nf} (seed {seed}, {batches} x {instances})", "",
                  "Risky nodes behind p under exposure=routes: own + on routes only "
                  "(p per attempt, %); under exposure=own only the first count counts.", "",
                  "| batch | clean window | default | tofa, fallback=all | tofa, fallback=window |",
                  "|---|---|---|---|---|"] + rows + [""]
        lines += ["| policy | fallback | exposure | expected p (%) | p if pf were per T0 of "
                  "run time (%) | replayed: instances aborted (%) | aborts / attempts (%) | "
                  "paper (%) |", "|---|---|---|---|---|---|---|---|"]
        for (policy, fb, e), acc in tot.items():
            if policy == "default" and fb != "all":
                continue
            paper_v = paper[0] if policy == "default" else paper[1]
            lines.append(f"| {policy} | {fb if policy == 'tofa' else '-'} | {e} | "
                         f"{100 * acc[3] / batches:.2f} | {100 * acc[4] / batches:.2f} | "
                         f"{100 * acc[0] / (batches * instances):.1f} | "
                         f"{100 * acc[2] / acc[1]:.2f} | "
                         f"{'-' if paper_v is None else paper_v} |")
        lines.append("")
    return lines


def spread_report(work, options, seeds, batches):
    """Over seeds 1..seeds (seeds x batches Nf draws): the expected p (the
    mean over every draw) and the ten-batch mean's min / median / max."""
    lines = ["| configuration | policy | fallback | exposure | expected p (%) | "
             f"{batches}-batch mean: min / median / max (%) | paper (%) |",
             "|---|---|---|---|---|---|---|"]
    for graph, n, nf, paper in CONFIGS:
        pl = Placer(work, graph, n, options)
        per = {}
        for s in range(1, seeds + 1):
            for b in range(batches):
                risky = draw_nf(s, b, nf, NODES)
                for policy, fb in (("default", "all"), ("tofa", "all"), ("tofa", "window")):
                    if policy == "tofa" and fb == "window" and has_window(risky, NODES, n):
                        cells = per_all_cells   # no fallback: fallback=all's map
                    else:
                        cells = pl.cell(policy, risky, fb)[0]
                    if policy == "tofa" and fb == "all":
                        per_all_cells = cells
                    for e in EXPOSURES:
                        per.setdefault((policy, fb, e), {}).setdefault(s, []).append(cells[e][2])
        for (policy, fb, e), by_seed in per.items():
            if policy == "default" and fb != "all":
                continue
            means = sorted(statistics.fmean(v) for v in by_seed.values())
            allp = [p for v in by_seed.values() for p in v]
            paper_v = paper[0] if policy == "default" else paper[1]
            lines.append(f"| {graph}, nf {nf} | {policy} | {fb if policy == 'tofa' else '-'} | "
                         f"{e} | {100 * statistics.fmean(allp):.2f} | "
                         f"{100 * means[0]:.1f} / {100 * statistics.median(means):.1f} / "
                         f"{100 * means[-1]:.1f} | {'-' if paper_v is None else paper_v} |")
    return lines


ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def sensitivity_report(work, options, seeds, batches):
    """exposure=routes under the six dimension orders and, for the
    heaviest pairs only, x-y-z: expected p over seeds 1..seeds for default
    and tofa (fallback=all; the maps are the library's, made for x-y-z);
    and where tofa's route-only risky nodes sit (the node just before its
    window, id s - 1, or elsewhere)."""
    lines = ["| configuration | policy | " + " | ".join(
        "".join("xyz"[d] for d in o) for o in ORDERS) + " | xyz, heaviest pairs | "
        "tofa's route-only risky nodes: id s - 1 / elsewhere |",
        "|---|---|" + "---|" * (len(ORDERS) + 2)]
    for graph, n, nf, _ in CONFIGS:
        pl = Placer(work, graph, n, options)
        pl.cell("default", [], "all")   # default's map, kept (it reads no pf)
        heavy = pairs(pl.edges, n, heavy=True)
        acc = {}
        border = [0, 0]
        for s in range(1, seeds + 1):
            for b in range(batches):
                risky = draw_nf(s, b, nf, NODES)
                rs = set(risky)
                for policy in ("default", "tofa"):
                    mp = pl.place(policy, risky, "all")[0]
                    row = acc.setdefault(policy, [[] for _ in range(len(ORDERS) + 1)])
                    for j, o in enumerate(ORDERS):
                        row[j].append(abort_p(len(exposed(SHAPE, mp, pl.pairs, "routes", o) & rs)))
                    row[-1].append(abort_p(len(exposed(SHAPE, mp, heavy, "routes") & rs)))
                    if policy == "tofa":
                        for x in (exposed(SHAPE, mp, pl.pairs, "routes") & rs) - set(mp):
                            border[0 if x == min(mp) - 1 else 1] += 1
        for policy, row in acc.items():
            lines.append(f"| {graph}, nf {nf} | {policy} | " + " | ".join(
                f"{100 * statistics.fmean(v):.2f}" for v in row) + " | " +
                (f"{border[0]} / {border[1]}" if policy == "tofa" else "-") + " |")
    return lines


def default_report():
    """default's expectation over random Nf, exactly: its placement is
    ids 0..n-1 whatever Nf is."""
    lines = ["| configuration | exposure | exposed nodes | E[p] over random Nf (%) | paper (%) |",
             "|---|---|---|---|---|"]
    for graph, n, nf, paper in CONFIGS:
        prs = pairs(tofa_model.edges(os.path.join(tofa_model.GRAPHS, graph + ".matrix")), n)
        for e in EXPOSURES:
            m = len(exposed(SHAPE, list(range(n)), prs, e))
            lines.append(f"| {graph}, nf {nf} | {e} | {m} | "
                         f"{100 * expected_fixed(NODES, nf, m):.2f} | "
                         f"{'-' if paper[0] is None else paper[0]} |")
    return lines


def report(a):
    os.makedirs(a.work, exist_ok=True)
    out = [f"options: `{a.options or '(defaults)'}`", ""]
    if a.what in ("windows", "all"):
        out += ["## Clean windows", ""] + windows_report(a.seed, a.batches) + [""]
        out += ["## Default over random Nf (exact)", ""] + default_report() + [""]
    if a.what in ("seed", "all"):
        f = tofa_model.read_f()
        out += ["## The experiment's batches", ""]
        out += seed_report(a.work, a.options, a.seed, a.batches, a.instances, f)
    if a.what in ("spread", "all"):
        out += [f"## Over seeds 1-{a.seeds}", ""]
        out += spread_report(a.work, a.options, a.seeds, a.batches) + [""]
    if a.what in ("routes", "all"):
        out += [f"## Sensitivity of exposure=routes, seeds 1-{a.seeds} (expected p, %)", ""]
        out += sensitivity_report(a.work, a.options, a.seeds, a.batches) + [""]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.tofa_aborts",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("windows", "seed", "spread", "routes", "all"))
    ap.add_argument("--options", default="", help="library option words (not fallback=, "
                    "exposure=: both are varied here)")
    ap.add_argument("--seed", type=int, default=1, help="the experiment's SEED")
    ap.add_argument("--seeds", type=int, default=20, help="spread: seeds 1..N")
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--instances", type=int, default=100)
    ap.add_argument("--work", default=os.path.join(tofa_model.ROOT, "results", "tofa-aborts"))
    a = ap.parse_args(argv)
    if any(w.startswith(("fallback=", "exposure=")) for w in a.options.replace(",", " ").split()):
        ap.error("--options: fallback= and exposure= are varied here, not given")
    try:
        sys.stdout.write(report(a))
    except (tofa_model.ModelError, OSError, ValueError) as e:
        sys.stderr.write(f"tofa_aborts: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
