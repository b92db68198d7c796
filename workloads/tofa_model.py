"""TOFA's model figures without a cluster: what the sleep jobs of the tofa
experiments would sleep, from the library alone (build/c/tb-alloc on torus
scenarios made from the experiments' graph files).

Each figure is the runtime model of plugins/lib/tofa_runtime.c,
T = T0 ((1 - f) + f C / C0), C a placement's plain hop-bytes (tb-alloc's
`hops=`), C0 default's on the empty torus of the same shape:

- fig3a: NPB-DT-85 on the empty 8x8x8 torus, default, random (the mean over
  seeds 0-9), tofa-greedy and scotch0: Scotch's time below each (L639-640);
- table1: LAMMPS-256 on the five shapes, T(default) / T(tofa) (L657-664);
- resilience: per batch of Sec. 5.2 (Nf drawn as workloads/tofa_faults.py
  draws it), default and tofa on the torus with Nf risky: the expected
  batch time of `instances` instances, an aborted attempt costing a full
  run (L686-688): instances x T / (1 - p), p tb-alloc's `abort=` (the
  probability that an attempt meets a failed node on the job's nodes or
  routes). Expected values, not the keyed draws of a run.

f is experiments/graphs/tofa-f.tsv's unless --refit: then f is fitted again,
by the same rule as that file's comment, on the same figure (Fig. 3a's 22 %
for NPB-DT, Table 1's 8x8x8 row for LAMMPS; LAMMPS-64 takes LAMMPS-256's),
under the --options given: a reading that changes scotch0's or tofa's map
changes the fitted figure's C / C0, so it must change f too. Nothing is
fitted on any other figure.

    python3 -m workloads.tofa_model fig3a|table1|resilience|all \
        [--options "scotch_arch=build2"] [--refit] [--work DIR]
"""

import argparse
import os
import subprocess
import sys

from workloads.registry import build_dir
from workloads.tofa_faults import draw_nf
from workloads.tofa_graphs import read_f as read_f_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = os.path.join(ROOT, "experiments", "graphs")
SHAPES = ((8, 8, 8), (4, 8, 16), (8, 4, 16), (4, 4, 32), (4, 32, 4))
# Table 1 (L660-664): TOFA / default timesteps/s, as the paper prints them.
TABLE1 = {(8, 8, 8): (247.5, 217.2), (4, 8, 16): (188.9, 210.1),
          (8, 4, 16): (232.3, 240.9), (4, 4, 32): (212.8, 242.3),
          (4, 32, 4): (159.0, 207.4)}
FIG3A = {"default": 22, "tofa-greedy": 3, "random": 11}   # L639-640
RESILIENCE = (("npb-dt-c-85", 85, 16, 31.0), ("lammps-64", 64, 8, 17.5),
              ("lammps-64", 64, 16, 18.9))                  # L723-744
RANDOM_SEEDS = range(10)


class ModelError(Exception):
    pass


def edges(path):
    """The matrix file's entries as scenario `edge` lines."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            w = line.split("#", 1)[0].split()
            if not w or w[0] == "ranks":
                continue
            if len(w) != 3:
                raise ModelError(f"{path}:{n}: expected 'sender receiver bytes'")
            out.append(f"edge {w[0]} {w[1]} {w[2]}")
    return out


def scenario(shape, graph_edges, n, risky=(), job_extra=""):
    lines = ["torus %d %d %d" % shape]
    risky = list(risky)
    for k in range(0, len(risky), 100):   # the scenario's lines are short
        lines.append("risky " + ",".join(map(str, risky[k:k + 100])))
    lines += graph_edges
    lines.append(f"job nodes={n}{job_extra}")
    return "\n".join(lines) + "\n"


def parse_line(line):
    """'<policy> nodes=.. map=.. cost=.. hops=.. abort=..' into a dict."""
    w = line.split()
    if not w or len(w) < 2 or "=" not in w[1]:
        raise ModelError(f"tb-alloc: unexpected line {line!r}")
    out = {"policy": w[0]}
    for word in w[1:]:
        k, _, v = word.partition("=")
        out[k] = v
    for k in ("cost", "hops", "abort"):
        if k not in out:
            raise ModelError(f"tb-alloc: no {k}= in {line!r}")
        out[k] = float(out[k])
    return out


def place(work, name, text, policy, options):
    """Runs tb-alloc on the scenario text; the policy's parsed line."""
    path = os.path.join(work, name + ".scenario")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    cmd = [os.path.join(build_dir(ROOT), "tb-alloc"), path, policy]
    if options:
        cmd += ["--options", options]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0 or not r.stdout.strip():
        raise ModelError(f"{' '.join(cmd)}: {r.stderr.strip() or 'no output'}")
    return parse_line(r.stdout.strip().splitlines()[0])


def read_f():
    """{graph: f} of experiments/graphs/tofa-f.tsv."""
    return {g: v[0] for g, v in read_f_table(GRAPHS).items()}


def fit_fig3a(c_over_c0):
    """f from Fig. 3a's "22 % lower than Default-slurm" (L639): 0.78 =
    1 - f (1 - C/C0), C/C0 scotch0's (tofa-f.tsv's rule)."""
    return 0.22 / (1 - c_over_c0)


def fit_table1(c_over_c0):
    """f from Table 1's 8x8x8 row (L660): T(tofa) / T(default) = 247.5 /
    217.2 = 1 + f (C/C0 - 1), C/C0 tofa's (tofa-f.tsv's rule)."""
    default, tofa = TABLE1[(8, 8, 8)]
    return (default / tofa - 1) / (c_over_c0 - 1)


def runtime(f, c_over_c0):
    """T / T0 of the runtime model."""
    return (1 - f) + f * c_over_c0


def fig3a(work, options, f_given, refit):
    g = edges(os.path.join(GRAPHS, "npb-dt-c-85.matrix"))
    c = {}
    for p in ("default", "tofa-greedy", "scotch0"):
        c[p] = place(work, "fig3a", scenario((8, 8, 8), g, 85), p, options)["hops"]
    c["random"] = sum(place(work, "fig3a-r", scenario((8, 8, 8), g, 85, job_extra=f" seed={s}"),
                            "random", options)["hops"] for s in RANDOM_SEEDS) / len(RANDOM_SEEDS)
    ratio = {p: c[p] / c["default"] for p in c}
    f = fit_fig3a(ratio["scotch0"]) if refit else f_given
    t = {p: runtime(f, ratio[p]) for p in ratio}
    rows = [(p, ratio[p], t[p], 100 * (1 - t["scotch0"] / t[p]), FIG3A.get(p))
            for p in ("default", "random", "tofa-greedy", "scotch0")]
    return f, rows


def table1(work, options, f_given, refit):
    g = edges(os.path.join(GRAPHS, "lammps-256.matrix"))
    ratio = {}
    for shape in SHAPES:
        d = place(work, "t1", scenario(shape, g, 256), "default", options)["hops"]
        t = place(work, "t1", scenario(shape, g, 256), "tofa", options)["hops"]
        ratio[shape] = t / d
    paper = {s: TABLE1[s][1] / TABLE1[s][0] for s in SHAPES}
    f = fit_table1(ratio[(8, 8, 8)]) if refit else f_given
    rows = [(s, ratio[s], 1 / runtime(f, ratio[s]), paper[s]) for s in SHAPES]
    return f, rows


def resilience(work, options, f, seed, batches, instances, pf):
    """Per configuration: per batch (default, tofa) expected batch times
    and abort probabilities; f per graph."""
    out = []
    for graph, n, nf, paper in RESILIENCE:
        g = edges(os.path.join(GRAPHS, graph + ".matrix"))
        c0 = place(work, "res", scenario((8, 8, 8), g, n), "default", options)["hops"]
        per = []
        for b in range(batches):
            risky = draw_nf(seed, b, nf, 512)
            text = scenario((8, 8, 8), g, n, risky=risky)
            cell = {}
            for p in ("default", "tofa"):
                r = place(work, "res", text, p, options)
                if pf != 0.02:
                    raise ModelError("risky lines carry the paper's pf 0.02 only")
                t = runtime(f[graph], r["hops"] / c0)
                cell[p] = (instances * t / (1 - r["abort"]), r["abort"], r["hops"] / c0)
            per.append(cell)
        out.append((graph, nf, paper, per))
    return out


def direction(ours, paper):
    """Whether our ratio is on the paper's side of 1 ('tie' when ours
    rounds to 1.000)."""
    if round(ours, 3) == 1.0:
        return "tie"
    return "yes" if (ours - 1) * (paper - 1) > 0 else "no"


def fmt_shape(s):
    return "x".join(map(str, s))


def report(args):
    os.makedirs(args.work, exist_ok=True)
    f = read_f()
    lines = [f"options: `{args.options or '(defaults)'}`, f "
             f"{'refitted' if args.refit else 'from tofa-f.tsv'}", ""]
    if args.what in ("fig3a", "all"):
        fit, rows = fig3a(args.work, args.options, f["npb-dt-c-85"], args.refit)
        lines += [f"Fig. 3a, NPB-DT-85, f = {fit:.4f}", "",
                  "| policy | C / C0 | T / T0 | Scotch below it (%) | paper (%) |",
                  "|---|---|---|---|---|"]
        lines += [f"| {p} | {r:.4f} | {t:.4f} | {b:.1f} | {'-' if q is None else q} |"
                  for p, r, t, b, q in rows]
        lines.append("")
    if args.what in ("table1", "all"):
        fit, rows = table1(args.work, args.options, f["lammps-256"], args.refit)
        f["lammps-256"] = f["lammps-64"] = fit
        lines += [f"Table 1, LAMMPS-256, f = {fit:.4f}", "",
                  "| shape | C / C0 (tofa) | T(default) / T(tofa) | paper | same direction |",
                  "|---|---|---|---|---|"]
        lines += [f"| {fmt_shape(s)} | {r:.4f} | {m:.3f} | {p:.3f} | {direction(m, p)} |"
                  for s, r, m, p in rows]
        lines.append("")
    if args.what in ("resilience", "all"):
        if args.refit and args.what != "all":
            raise ModelError("--refit with resilience needs 'all' (f comes from fig3a, table1)")
        if args.refit and args.what == "all":
            f["npb-dt-c-85"] = fig3a(args.work, args.options, 0, True)[0]
        for graph, nf, paper, per in resilience(args.work, args.options, f, args.seed,
                                                args.batches, args.instances, args.pf):
            red = [100 * (1 - c["tofa"][0] / c["default"][0]) for c in per]
            lines += [f"Resilience, {graph}, nf {nf}, f = {f[graph]:.4f}, seed {args.seed}: "
                      f"mean reduction {sum(red) / len(red):.1f} % (paper {paper} %); "
                      f"mean abort per attempt default {sum(c['default'][1] for c in per) / len(per):.4f}, "
                      f"tofa {sum(c['tofa'][1] for c in per) / len(per):.4f}", "",
                      "| batch | default T (s) | default p | tofa C/C0 | tofa T (s) | tofa p | reduction (%) |",
                      "|---|---|---|---|---|---|---|"]
            lines += [f"| {b} | {c['default'][0] * args.t0:.1f} | {c['default'][1]:.4f} | "
                      f"{c['tofa'][2]:.4f} | {c['tofa'][0] * args.t0:.1f} | {c['tofa'][1]:.4f} | "
                      f"{r:.1f} |" for b, (c, r) in enumerate(zip(per, red))]
            lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.tofa_model",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("fig3a", "table1", "resilience", "all"))
    ap.add_argument("--options", default="", help="library option words (options.h)")
    ap.add_argument("--refit", action="store_true",
                    help="fit f again on its figure under these options")
    ap.add_argument("--work", default=os.path.join(ROOT, "results", "tofa-model"),
                    help="where the scenario files go")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--instances", type=int, default=100)
    ap.add_argument("--pf", type=float, default=0.02)
    ap.add_argument("--t0", type=float, default=30.0)
    a = ap.parse_args(argv)
    try:
        sys.stdout.write(report(a) + "\n")
    except (ModelError, OSError, ValueError) as e:
        sys.stderr.write(f"tofa_model: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
