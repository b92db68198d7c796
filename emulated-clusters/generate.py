#!/usr/bin/env python3
"""Turn a machine definition (emulated-clusters/<name>.cluster) into the files
an emulated cluster runs on:

  slurm.conf      nodes, front ends, partitions (main: whole nodes; cores, hidden:
                  core by core), replay-friendly scheduler
  topology.conf   the switch tree Slurm's topology plugins read
  topology.json   the same tree for the policy library, with dragonfly fields
                  or a torus' dimensions and coordinates
  cgroup.conf     cgroups off (front-end emulation runs no real job steps)
  emulators.yml   Compose services that run the front-end slurmd daemons
  cluster.env     a few facts for `make up` and `make status`

Usage: generate.py <name> <outdir> [--frontends N] [--emulators N]
       [--policy P] [--topologies-dir DIR]
with the clone's root on PYTHONPATH (scripts/testbed's in_tools sets it).
"""

import argparse
import math
import os
import sys

# The repository's root is on PYTHONPATH (scripts/testbed's in_tools): the
# parts the drivers and the metrics share live in the workloads package,
# the generator's own in workloads.clustergen.
from workloads import bf_window, sched_extra
from workloads.cluster_defs import DefinitionError, parse_options
from workloads.clustergen.definition import read_definition
from workloads.clustergen.frontends import frontend_layout, write_emulators_yml
from workloads.clustergen.slurm_conf import scheduler_parameters, write_slurm_conf
from workloads.clustergen.topology import DRAGONFLY_LEVELS, build
from workloads.clustergen.topology_files import write_topology_conf, write_topology_json
from workloads.registry import RegistryError, policy_names

HERE = os.path.dirname(os.path.abspath(__file__))


def cluster_names():
    return sorted(f[:-len(".cluster")] for f in os.listdir(HERE)
                  if f.endswith(".cluster"))


def atomic_write(path, writer, *args):
    """Write to a temporary name, then rename: a failed run leaves the last
    good file in place and running containers never read half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        writer(f, *args)
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name")
    ap.add_argument("outdir")
    ap.add_argument("--frontends", type=int)
    ap.add_argument("--emulators", type=int)
    ap.add_argument("--policy", default="default")
    ap.add_argument("--timing", action="store_true",
                    help="log the time of every allocation decision")
    ap.add_argument("--options", default="",
                    help="the library's named readings, e.g. 'eq3=path fit=quiet'")

    ap.add_argument("--leaf-level", choices=DRAGONFLY_LEVELS,
                    help="a dragonfly's level Slurm's tree treats as leaf, "
                    "in place of the cluster file's leaf_level")
    ap.add_argument("--clock-rate", type=float, default=1.0,
                    help="the virtual clock's rate the timeouts are scaled for")
    ap.add_argument("--jobcomp-loc", default="",
                    help="the replay's end guard: slurmctld's jobcomp/filetxt "
                    "file (default: jobcomp/none)")
    ap.add_argument("--bf-window", default="",
                    help="backfill's bf_window in minutes (BF_WINDOW; default: "
                    "none written, Slurm's 1440)")
    ap.add_argument("--sched-extra", default="",
                    help="SchedulerParameters words to append (SCHED_EXTRA)")
    ap.add_argument("--ctld-extra", default="",
                    help="SlurmctldParameters words to write (CTLD_EXTRA)")
    ap.add_argument("--topologies-dir",
                    default=os.path.join(HERE, "..", "..", "shared", "topologies"))
    args = ap.parse_args(argv)
    # Named alone, as the make variable (no cluster prefix): a bad value
    # is the caller's, not the machine definition's.
    try:
        window = bf_window.check(args.bf_window)
        extra = sched_extra.check(args.sched_extra)
        ctld_extra = sched_extra.check(args.ctld_extra, "CTLD_EXTRA",
                                       "SlurmctldParameters", "enable_rpc_queue")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    try:
        policies = policy_names()
    except RegistryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.policy not in policies:
        print(f"error: unknown POLICY '{args.policy}'; valid: {' '.join(policies)}",
              file=sys.stderr)
        return 2
    if args.name not in cluster_names():
        print(f"error: unknown CLUSTER '{args.name}'; valid: "
              f"{' '.join(cluster_names())}", file=sys.stderr)
        return 2
    try:
        defn = read_definition(os.path.join(HERE, args.name + ".cluster"))
        if args.leaf_level:
            if "dragonfly" not in defn:
                raise DefinitionError(
                    f"--leaf-level: {args.name} is not a dragonfly")
            defn["leaf_level"] = args.leaf_level
        frontends = args.frontends or int(defn["frontends"])
        emulators = args.emulators or int(defn.get("emulators", 1))
        if frontends < 1 or emulators < 1 or emulators > frontends:
            raise DefinitionError(
                f"FRONTENDS={frontends} EMULATORS={emulators}: expected "
                "1 <= EMULATORS <= FRONTENDS")
        if frontends > 999:
            raise DefinitionError(f"FRONTENDS={frontends}: at most 999")
        options = parse_options(args.options)
        if not (math.isfinite(args.clock_rate) and 0 < args.clock_rate <= 1e6):
            raise DefinitionError(f"clock rate {args.clock_rate:g}: expected "
                                  "a number above 0, at most 1e6")
        if args.jobcomp_loc and (not args.jobcomp_loc.startswith("/")
                                 or any(c.isspace() for c in args.jobcomp_loc)):
            raise DefinitionError(f"--jobcomp-loc {args.jobcomp_loc}: expected an "
                                  "absolute path without spaces")
        nodes, switches, levels, kind = build(defn, args.topologies_dir)
    except (DefinitionError, KeyError, ValueError) as e:
        print(f"error: {args.name}: {e}", file=sys.stderr)
        return 1
    try:
        # A word the generated line sets already: refused before writing.
        scheduler_parameters(args.clock_rate, window, extra)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    layout = frontend_layout(frontends, emulators)
    os.makedirs(args.outdir, exist_ok=True)
    out = lambda f: os.path.join(args.outdir, f)
    atomic_write(out("slurm.conf"), write_slurm_conf, defn, nodes, layout,
                 args.policy, args.timing, options, args.clock_rate, args.jobcomp_loc,
                 window, extra, ctld_extra)
    atomic_write(out("topology.conf"), write_topology_conf, defn, nodes, switches)
    atomic_write(out("topology.json"), write_topology_json, defn, nodes,
                 switches, levels, kind)
    atomic_write(out("cgroup.conf"),
                 lambda f: f.write("CgroupPlugin=disabled\n"))
    atomic_write(out("emulators.yml"), write_emulators_yml, layout)
    leaves = sum(1 for s in switches if s.level == 0)
    atomic_write(out("cluster.env"), lambda f: f.write(
        f"CLUSTER={defn['name']}\nNODES={len(nodes)}\nCORES="
        f"{sum(n['cores'] for n in nodes)}\nLEAVES={leaves}\n"
        f"LEVELS={len(levels)}\nSWITCHES={len(switches)}\n"
        f"FRONTENDS={frontends}\nEMULATORS={len(layout)}\nPOLICY={args.policy}\n"
        f"OPTIONS={' '.join(options)}\nCLOCK_RATE={args.clock_rate:g}\n"
        f"BF_WINDOW={'' if window is None else window}\n"
        f"SCHED_EXTRA={','.join(extra)}\n"
        f"CTLD_EXTRA={','.join(ctld_extra)}\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))