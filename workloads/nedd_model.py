"""NeDD's one-job experiment's modelled figures without a cluster (Zhang et
al., CLUSTER 2021; ../shared/papers/nedd.txt, "L.."): what the emulated
jobs of experiments/nedd-cori-onejob.exp would sleep, from the library
alone (build/c/tb-alloc --pressure on router scenarios of cori).

For each layout, application lane and repetition the tool takes the job
list kind nedd writes (workloads/experiment/nedd_jobs.py: the lane, the
congestor's nodes, layout background's pinned background jobs) and builds
the machine at the application's decision as a router scenario: every
router of cori's topology.json (its chassis and group), the congestor
running since the window began (it starts two minutes before the job,
L104), the background jobs running in the window with their injection
(inj_unnamed x their communication share, as the plugin's
tb_nedd_unnamed_injection), every node outside the lane and the lane's
control node busy. Each strategy then places the job and tb-alloc prints
the runtime model's factor 1 + sigma (a G + b U) of that placement
(plugins/lib/nedd_runtime.c); the modelled mean is T0 x the mean factor.

What differs from a cluster run's records (the `modelled` columns of
kind nedd's table), all ours:
- no timing lag: repetition i's congestor starts when the list's
  dependencies first allow it (consecutive: i congestor spans in;
  background: i paces in), its job two minutes later; application jobs of
  earlier repetitions are over before the window (true of both layouts'
  spans) and other lanes are in other groups, so neither is in the
  scenario;
- no jitter (its mean is 1);
- seeds: the job's seed (random's draw, the stall noise) is a hash of the
  lane and the repetition, the same for every strategy and stall model;
  the congestor's kernel/canary draw is the scenario's (its running line's
  index). Slurm hashes job ids instead, so single repetitions differ.

    python3 -m workloads.nedd_model consecutive|background \\
        [--options "stall=routed inj_unnamed=0.25"] [--apps miniMD ...] \\
        [--reps 10] [--work DIR]
"""

import argparse
import hashlib
import os
import statistics
import subprocess
import sys

from workloads.cluster_defs import expand_hostlist
from workloads.registry import build_dir
from workloads.experiment import nedd_background, nedd_jobs
from workloads.experiment.definition import parse_definition
from workloads.experiment.nedd import AGAINST, SENSITIVE, improvement
from workloads.experiment.errors import ExperimentError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFINITION = os.path.join(ROOT, "experiments", "nedd-cori-onejob.exp")
STRATEGIES = ("nedd",) + AGAINST
WINDOW = 120


class ModelError(Exception):
    pass


def ranges(ids):
    """'0-3,9' of sorted unique ints."""
    ids = sorted(set(ids))
    out, start = [], None
    for a, b in zip(ids, ids[1:] + [None]):
        start = a if start is None else start
        if b != a + 1:
            out.append(f"{start}" if start == a else f"{start}-{a}")
            start = None
    return ",".join(out)


class Machine:
    """The topology's routers as scenario lines, in id order (a router's
    slot, its rank by id in its chassis, is kept), and each node's index
    in the scenario."""

    def __init__(self, topo):
        by_router = {}
        for x in topo["nodes"]:
            by_router.setdefault(x["router"], []).append(x)
        self.lines, self.index = [], {}
        for r in sorted(by_router):
            nodes = sorted(by_router[r], key=lambda x: x["name"])
            c, g = nodes[0]["chassis"], nodes[0]["group"]
            self.lines.append(f"router rt{r} {len(nodes)} chassis={c} group={g}")
            for x in nodes:
                self.index[x["name"]] = len(self.index)

    def ids(self, names):
        return [self.index[n] for n in names]


def parse_list(path):
    """The job list's jobs: {name: (submit, runtime, names or None, app,
    placement)}, in file order."""
    jobs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line[:1] in "#J" or not line.strip():
                continue
            w = line.split()
            place = w[7] if len(w) > 7 else ""
            names = None
            for part in place.split(";"):
                if part.startswith("nodelist="):
                    names = expand_hostlist(part[len("nodelist="):])
            jobs[w[0]] = (float(w[1]), float(w[2]), names, w[5], place)
    return jobs


def background_runs(jobs, inj_unnamed):
    """Layout background's jobs: (start, end, names, injection per node);
    pinned, each starts at its submission."""
    out = []
    for name, (submit, runtime, names, app, _) in jobs.items():
        if not name.startswith(nedd_background.PREFIX):
            continue
        share = float(app.partition(":")[2] or 0) if app.startswith("-:") else 0
        out.append((submit, submit + runtime, names, inj_unnamed * share / 100))
    return out


def decisions(jobs, item, reps, warmup):
    """Per counted repetition of the lane: (rep, congestor's names, its
    start). Repetition i's congestor starts at max(its submission, the last
    one's start + its runtime): the list's afterany chain, no lag."""
    out, last = [], None
    tags = ([f"r{nedd_jobs.WARMUP:02d}"] if warmup else []) + \
        [f"r{k + 1:02d}" for k in range(reps)]
    for tag in tags:
        name = f"{tag}-{item}-gpcnet"
        if name not in jobs:
            raise ModelError(f"job list: no congestor {name}")
        submit, runtime, names, _, _ = jobs[name]
        start = submit if last is None else max(submit, last[0] + last[1])
        last = (start, runtime)
        if tag != f"r{nedd_jobs.WARMUP:02d}" or not warmup:
            out.append((tag, names, start))
    return out


def scenario(machine, lane, congestor, start, background, app, m, seed):
    """The router scenario of the decision two minutes after the
    congestor's start."""
    now = start + WINDOW
    lines = list(machine.lines)
    held = set(machine.ids(congestor))
    lines.append(f"running nodes={ranges(machine.ids(congestor))} app=gpcnet start={start:g}")
    for s, e, names, inj in background:
        if s >= now or e <= now - WINDOW:
            continue
        ids = machine.ids(names)
        if e <= now:
            if inj > 0:     # ended in the window: traffic, no nodes
                lines.append(f"running nodes={ranges(ids)} inj={inj:.9g} start={s:g} "
                             f"end={e:g}")
            continue
        held.update(ids)
        lines.append(f"running nodes={ranges(ids)} inj={inj:.9g} start={s:g}")
    free = set(machine.ids(lane[1:])) - held
    busy = [k for k in range(len(machine.index)) if k not in free and k not in held]
    if busy:
        lines.append(f"busy {ranges(busy)}")
    lines.append(f"now {now:g} window={WINDOW}")
    lines.append(f"job nodes={m} app={app} seed={seed}")
    return "\n".join(lines) + "\n"


def seed_of(item, tag):
    return int(hashlib.sha256(f"nedd-model:{item}:{tag}".encode()).hexdigest()[:12], 16)


def factor(work, text, policy, options):
    """tb-alloc --pressure's runtime_factor for the policy's placement."""
    return pressures(work, text, policy, options)[2]


def pressures(work, text, policy, options):
    """tb-alloc --pressure's (U, G, runtime_factor) for the policy's
    placement."""
    path = os.path.join(work, "decision.scenario")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    cmd = [os.path.join(build_dir(ROOT), "tb-alloc"), path, policy, "--pressure"]
    if options:
        cmd += ["--options", options]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    words = dict(w.partition("=")[::2] for w in r.stdout.split()[1:] if "=" in w)
    if r.returncode != 0 or "runtime_factor" not in words:
        raise ModelError(f"{' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
    return tuple(float(words[k]) for k in ("pressure_u", "pressure_g", "runtime_factor"))


def model(layout, options, apps, reps, work, workloads_dir):
    """{app: {strategy: [(U, G, factor) per repetition]}}."""
    d = parse_definition(DEFINITION)
    params = d.params_of(layout)
    seed = params.get("SEED", "0")
    setup = tuple(int(x) for x in d.setup)
    t0 = float(d.base_runtime[0])
    warmup = d.warmup == ["1"]
    items = [(a,) for a in apps]
    path = nedd_jobs.write_list(d.cluster_of(layout), d.name, layout, items, reps, setup, t0,
                                True, seed, warmup, d.background, workloads_dir)
    jobs = parse_list(path)
    topo = nedd_jobs.cluster_topology(d.cluster_of(layout))
    machine = Machine(topo)
    if layout == "background":
        loaded = nedd_jobs.load_background(topo, items, reps, setup, t0, seed, warmup,
                                           d.background, workloads_dir)
        lanes = loaded.lanes
    else:
        lanes, _ = nedd_jobs.lanes(topo, len(items), setup[0])
    inj_unnamed = 0.0
    for w in options.split():
        if w.startswith("inj_unnamed="):
            inj_unnamed = float(w.partition("=")[2])
    background = background_runs(jobs, inj_unnamed)
    out = {}
    for k, app in enumerate(apps):
        out[app] = {p: [] for p in STRATEGIES}
        for tag, congestor, start in decisions(jobs, app, reps, warmup):
            text = scenario(machine, lanes[k], congestor, start, background, app,
                            setup[2], seed_of(app, tag))
            for p in STRATEGIES:
                out[app][p].append(pressures(work, text, p, options))
    return out, path


def table(result, t0):
    """The markdown rows: per application and for the sensitive ones,
    NeDD's improvement against each strategy (L152) and over the three."""
    mean = {a: {p: {"mean": t0 * statistics.fmean(x[2] for x in v)} for p, v in s.items()}
            for a, s in result.items()}
    rows = ["| application | " + " | ".join(f"T0 x mean factor, {p}" for p in STRATEGIES)
            + " | vs Random (%) | vs Low-Stall (%) | vs Fewer-Router (%) | mean of the three (%) |",
            "|---|" + "---|" * (len(STRATEGIES) + 4)]
    sens = [a for a in result if a in SENSITIVE]
    for label, group in [(a, [a]) for a in result] + ([("sensitive", sens)] if sens else []):
        imp = [statistics.fmean(improvement(mean[a]["nedd"], mean[a][p]) for a in group)
               for p in AGAINST]
        cells = [f"{statistics.fmean(mean[a][p]['mean'] for a in group):.1f}"
                 for p in STRATEGIES]
        rows.append(f"| {label} | " + " | ".join(cells) + " | "
                    + " | ".join(f"{x:.1f}" for x in imp) + f" | {statistics.fmean(imp):.1f} |")
    return rows


def pressure_rows(result):
    """The sensitive applications' mean U and G per strategy: what the
    runtime model charged each placement (a G + b U)."""
    sens = [a for a in result if a in SENSITIVE]
    rows = ["| strategy | mean U, sensitive | mean G, sensitive |", "|---|---|---|"]
    for p in STRATEGIES:
        v = [x for a in sens for x in result[a][p]]
        if v:
            rows.append(f"| {p} | {statistics.fmean(x[0] for x in v):.4f} | "
                        f"{statistics.fmean(x[1] for x in v):.4f} |")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m workloads.nedd_model",
                                 description="NeDD's one-job modelled figures, no cluster")
    ap.add_argument("layout", choices=nedd_jobs.LAYOUTS)
    ap.add_argument("--options", default="", help="library option words (nedd_options.h)")
    ap.add_argument("--apps", nargs="+",
                    default=["miniMD", "LAMMPS", "MILC", "HACC", "QMCPACK", "HPCG"])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--work", default=os.path.join(ROOT, "results", "nedd-model"))
    ap.add_argument("--workloads-dir", default=os.environ.get("WORKLOADS_DIR", ""))
    a = ap.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    try:
        result, path = model(a.layout, a.options, a.apps, a.reps, a.work, a.workloads_dir)
    except (ModelError, ExperimentError) as e:
        print(f"nedd_model: {e}", file=sys.stderr)
        return 1
    t0 = float(parse_definition(DEFINITION).base_runtime[0])
    print(f"# layout {a.layout}, options '{a.options}', {a.reps} repetitions, "
          f"list {os.path.relpath(path, ROOT)}")
    print("\n".join(table(result, t0)))
    print()
    print("\n".join(pressure_rows(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
