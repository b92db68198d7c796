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
import json
import math
import os
import re
import sys

# The repository's root is on PYTHONPATH (scripts/testbed's in_tools): the
# parts the drivers and the metrics share live in the workloads package.
from workloads import bf_window, sched_extra
from workloads.cluster_defs import DefinitionError, expand_hostlist, hostlist, parse_options
from workloads.registry import RegistryError, policy_names

HERE = os.path.dirname(os.path.abspath(__file__))
FRONTEND_BASE_PORT = 17000
DRAGONFLY_LEVELS = ("router", "chassis", "group")


def cluster_names():
    return sorted(f[:-len(".cluster")] for f in os.listdir(HERE)
                  if f.endswith(".cluster"))


def parse_kv(words, where):
    out = {}
    for w in words:
        if "=" not in w and ":" not in w:
            raise DefinitionError(f"{where}: expected key=value, got '{w}'")
        k, v = re.split("[=:]", w, maxsplit=1)
        out[k] = v
    return out


def read_definition(path):
    """Key = value lines; '#' starts a comment; `nodes` may repeat."""
    d = {"nodes": []}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = f"{path}:{lineno}"
            if "=" not in line:
                raise DefinitionError(f"{where}: expected 'key = value'")
            key, value = (s.strip() for s in line.split("=", 1))
            if key == "nodes":
                words = value.split()
                spec = parse_kv(words[1:], where)
                spec["group"] = words[0]
                d["nodes"].append(spec)
            else:
                d[key] = value
    for key in ("name", "frontends"):
        if key not in d:
            raise DefinitionError(f"{path}: missing '{key} = ...'")
    if not d["nodes"]:
        raise DefinitionError(f"{path}: no 'nodes = ...' line")
    if sum(k in d for k in ("tree", "dragonfly", "torus")) != 1:
        raise DefinitionError(
            f"{path}: give exactly one of 'tree', 'dragonfly' or 'torus'")
    return d


def dragonfly_shape(defn):
    p = {k: int(v) for k, v in parse_kv(defn["dragonfly"].split(),
                                          "dragonfly").items()}
    for key in ("nodes_per_router", "routers_per_chassis",
                "chassis_per_group", "groups"):
        if p.get(key, 0) < 1:
            raise DefinitionError(f"dragonfly: '{key}' must be a positive number")
    return p


def spread(count, bins):
    """Sizes of `count` items spread over `bins` as evenly as possible."""
    return [count // bins + (1 if b < count % bins else 0) for b in range(bins)]


def dragonfly_slots(spec, shape):
    """Slot numbers for a partition spread over a range of groups: each group
    gets an even share, each of its chassis an even share of that, filled
    from the chassis' first slot. The empty slots stand for the service
    nodes and gaps of the real machine, whose placement is not published."""
    lo, _, hi = spec["groups"].partition("-")
    lo, hi = int(lo), int(hi or lo)
    if not 0 <= lo <= hi < shape["groups"]:
        raise DefinitionError(f"groups={spec['groups']}: outside 0-{shape['groups'] - 1}")
    per_chassis = shape["nodes_per_router"] * shape["routers_per_chassis"]
    chassis = shape["chassis_per_group"]
    slots = []
    for g, in_group in zip(range(lo, hi + 1), spread(int(spec["count"]), hi - lo + 1)):
        for c, in_chassis in enumerate(spread(in_group, chassis)):
            if in_chassis > per_chassis:
                raise DefinitionError(f"group {g}: {in_group} nodes do not fit")
            base = (g * chassis + c) * per_chassis
            slots.extend(range(base, base + in_chassis))
    return slots


def expand_nodes(defn):
    """One dict per node, in index order."""
    nodes = []
    for spec in defn["nodes"]:
        digits = int(spec.get("digits", 4))
        if "groups" in spec:
            numbers = dragonfly_slots(spec, dragonfly_shape(defn))
        else:
            first = int(spec.get("first", 0))
            numbers = range(first, first + int(spec["count"]))
        for num in numbers:
            nodes.append({
                "name": f"{spec['prefix']}{num:0{digits}d}",
                "number": num,
                "group_name": spec["group"],
                "cores": int(spec["cores"]),
                "sockets": int(spec.get("sockets", 1)),
                "memory_mb": int(spec.get("memory_mb", 1000)),
                "feature": spec.get("feature"),
            })
    names = [n["name"] for n in nodes]
    if len(set(names)) != len(names):
        raise DefinitionError(f"{defn['name']}: node names overlap")
    return nodes


class Switch:
    def __init__(self, name, level):
        self.name = name
        self.level = level
        self.parent = None
        self.children = []      # switch indexes
        self.nodes = []         # direct node indexes (leaves only)


def tree_by_rule(nodes, rule):
    """'leaf:4 pod:4 core': leaves of 4 nodes, 4 leaves per pod, one root."""
    words = rule.split()
    levels = []
    for w in words[:-1]:
        name, _, fan = w.partition(":")
        if not fan.isdigit() or int(fan) < 1:
            raise DefinitionError(f"tree: '{w}' needs a positive fan-out")
        levels.append((name, int(fan)))
    root_name = words[-1]
    switches = []
    below = []
    width = len(str(max(1, -(-len(nodes) // levels[0][1]) - 1)))
    for i in range(0, len(nodes), levels[0][1]):
        s = Switch(f"{levels[0][0]}{len(below):0{width}d}", 0)
        s.nodes = list(range(i, min(i + levels[0][1], len(nodes))))
        below.append(len(switches))
        switches.append(s)
    for depth, (name, _) in enumerate(levels[1:], 1):
        fan = levels[depth][1]
        above = []
        width = len(str(max(1, -(-len(below) // fan) - 1)))
        for i in range(0, len(below), fan):
            s = Switch(f"{name}{len(above):0{width}d}", depth)
            s.children = below[i:i + fan]
            above.append(len(switches))
            switches.append(s)
        below = above
    root = Switch(root_name, len(levels))
    root.children = below
    switches.append(root)
    return switches, [lv[0] for lv in levels] + [root_name]


def tree_by_import(nodes, path, root_name):
    """Leaves of a real topology.conf; every switch above them is collapsed
    into one root (redundant spines are not a tree)."""
    index = {n["name"]: i for i, n in enumerate(nodes)}
    switches = []
    seen = set()
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "Nodes" not in kv:
                continue
            s = Switch(kv["SwitchName"], 0)
            for name in expand_hostlist(kv["Nodes"]):
                if name not in index:
                    raise DefinitionError(
                        f"{path}:{lineno}: node {name} is not in the definition")
                if name in seen:
                    raise DefinitionError(f"{path}:{lineno}: node {name} twice")
                seen.add(name)
                s.nodes.append(index[name])
            s.nodes.sort()
            switches.append(s)
    if len(seen) != len(nodes):
        raise DefinitionError(
            f"{path}: covers {len(seen)} of {len(nodes)} nodes")
    root = Switch(root_name, 1)
    root.children = list(range(len(switches)))
    switches.append(root)
    return switches, ["leaf", root_name]


def tree_dragonfly(nodes, spec, leaf_level):
    """Routers, chassis and groups from slot numbers; Slurm's tree starts at
    leaf_level and ends in one top switch."""
    p = spec
    per_router = p["nodes_per_router"]
    per_chassis = per_router * p["routers_per_chassis"]
    per_group = per_chassis * p["chassis_per_group"]
    if leaf_level not in DRAGONFLY_LEVELS:
        raise DefinitionError(
            f"leaf_level '{leaf_level}': expected one of {', '.join(DRAGONFLY_LEVELS)}")
    for n in nodes:
        slot = n["number"]
        n["router"] = slot // per_router
        n["chassis"] = slot // per_chassis
        n["group"] = slot // per_group
        if n["group"] >= p["groups"]:
            raise DefinitionError(f"node {n['name']}: slot beyond {p['groups']} groups")
    levels = list(DRAGONFLY_LEVELS[DRAGONFLY_LEVELS.index(leaf_level):])
    prefix = {"router": "rt", "chassis": "ch", "group": "g"}
    switches = []
    by_key = {}
    for depth, level in enumerate(levels):
        used = sorted({n[level] for n in nodes})
        width = len(str(max(used)))
        width = max(width, 2)
        for k in used:
            by_key[(level, k)] = len(switches)
            switches.append(Switch(f"{prefix[level]}{k:0{width}d}", depth))
    for i, n in enumerate(nodes):
        switches[by_key[(levels[0], n[levels[0]])]].nodes.append(i)
    for depth, level in enumerate(levels[1:], 1):
        below = levels[depth - 1]
        for key, idx in list(by_key.items()):
            if key[0] != below:
                continue
            any_node = next(n for n in nodes if n[below] == key[1])
            switches[by_key[(level, any_node[level])]].children.append(idx)
    root = Switch("top", len(levels))
    root.children = [idx for key, idx in by_key.items() if key[0] == levels[-1]]
    switches.append(root)
    return switches, levels + ["top"]


def torus_shape(defn):
    """'8 8 8' -> (8, 8, 8): a 3D torus' dimensions X Y Z."""
    words = defn["torus"].split()
    if len(words) != 3 or not all(w.isdigit() and int(w) >= 1 for w in words):
        raise DefinitionError(f"torus = {defn['torus']}: expected three "
                              "positive numbers X Y Z")
    return tuple(int(w) for w in words)


def tree_torus(nodes, shape):
    """A 3D torus (TOFA): node i sits at x = i mod X, y = i / X mod Y,
    z = i / XY, so node id = x + X*y + X*Y*z and Slurm's node order is the
    paper's sequential order (L577, L610-612). Slurm 24.11 has no torus
    with wrap-around routes (its 3D plugin exports none, L505-508): Slurm
    sees one leaf switch of every node, routes live in the library."""
    x, y, z = shape
    if len(nodes) != x * y * z:
        raise DefinitionError(f"torus {x}x{y}x{z}: {x * y * z} nodes, the "
                              f"definition has {len(nodes)}")
    for i, n in enumerate(nodes):
        n["coord"] = [i % x, i // x % y, i // (x * y)]
    leaf = Switch("torus", 0)
    leaf.nodes = list(range(len(nodes)))
    return [leaf], ["torus"]


def link_parents(switches):
    for i, s in enumerate(switches):
        for c in s.children:
            switches[c].parent = i


def descendant_nodes(switches, i, memo):
    if i not in memo:
        s = switches[i]
        out = list(s.nodes)
        for c in s.children:
            out.extend(descendant_nodes(switches, c, memo))
        memo[i] = sorted(out)
    return memo[i]


def build(defn, topologies_dir):
    nodes = expand_nodes(defn)
    if "torus" in defn:
        switches, levels = tree_torus(nodes, torus_shape(defn))
        kind = "torus"
    elif "dragonfly" in defn:
        switches, levels = tree_dragonfly(nodes, dragonfly_shape(defn),
                                          defn.get("leaf_level", "chassis"))
        kind = "dragonfly"
    else:
        kind = "fat-tree"
        switches = levels = None
        if "import" in defn:
            words = defn["import"].split()
            opts = parse_kv(words[1:], "import")
            path = os.path.join(topologies_dir, words[0])
            if os.path.exists(path):
                switches, levels = tree_by_import(nodes, path,
                                                  opts.get("root", "top"))
            else:
                print(f"note: {path} not found; {defn['name']} uses the rule "
                      f"'{defn['tree']}' instead", file=sys.stderr)
        if switches is None:
            switches, levels = tree_by_rule(nodes, defn["tree"])
    link_parents(switches)
    return nodes, switches, levels, kind


def frontend_layout(frontends, emulators):
    """fe001.. spread round-robin-free: consecutive blocks per container."""
    names = [f"fe{i + 1:03d}" for i in range(frontends)]
    per = -(-frontends // emulators)
    return [names[k * per:(k + 1) * per] for k in range(emulators)
            if names[k * per:(k + 1) * per]]


# Slurm's wall-time constants, at clock rate 1 (or Slurm's own default).
TIMEOUTS = {"MessageTimeout": 30, "TCPTimeout": 2, "BatchStartTimeout": 10,
            "UnkillableStepTimeout": 60}
# Slurm keeps these in 16 bits.
TIMEOUT_MAX = 65000
# Slurm 24.11 refuses a larger bf_max_time (backfill.c, MAX_BF_MAX_TIME:
# an error in its log and bf_interval, 1 s, instead).
BF_MAX_TIME_MAX = 3600
# cred_expire's default (interfaces/cred.c, DEFAULT_EXPIRATION_WINDOW).
CRED_EXPIRE = 120
# The exit status of an attempt that TOFA's failures abort (RequeueExitHold).
TOFA_ABORT_EXIT = 85


def clock_settings(rate):
    """slurm.conf lines for a cluster whose clock runs `rate` times faster
    than wall time (docs/vclock.md). Under the virtual clock Slurm's
    timeouts are virtual seconds too, so each is multiplied by the rate to
    keep its length in wall time (a 30-s MessageTimeout would be 30 ms of
    wall time at rate 1000). SlurmdTimeout is 0 (Slurm never sets a front
    end DOWN for not answering): an idle jump of hours would make every
    front end's last answer look that old; the replay's health watch finds
    dead emulators instead. bf_max_time: backfill's budget (default
    bf_interval, 1 s here) is CPU time, which the clock does not speed up,
    so it grows with the rate too and a pass covers the same queue depth,
    up to Slurm's own maximum (3,600 s: above rate 3600 a pass is cut
    sooner in wall time). max_sched_time is not scaled: Slurm 24.11
    defaults it to min(MessageTimeout / 2, 2) s (job_scheduler.c), 2 s
    at any rate, so at rate 1000 a main pass stops after 1-2 wall ms
    (docs/results/2026-11-27-end-lag.md)."""
    if rate == 1:
        return {"SlurmdTimeout": "300", "MessageTimeout": "30"}, ""
    k = max(1.0, rate)
    conf = {"SlurmdTimeout": "0"}
    for key, base in TIMEOUTS.items():
        conf[key] = str(min(TIMEOUT_MAX, math.ceil(base * k)))
    conf["AuthInfo"] = f"cred_expire={math.ceil(CRED_EXPIRE * k)}"
    return conf, f",bf_max_time={min(BF_MAX_TIME_MAX, math.ceil(k))}"


def jobcomp_lines(loc):
    """JobComp lines: none, or (the replay's end guard, workloads/
    endguard.py) jobcomp/filetxt to `loc`, beside the clock page, where
    slurmctld writes one line per job as it records the job's end. Only
    while the guard is on: the line is written under the job write lock,
    microseconds of a write(2), on the end path the guard measures. It is
    not accounting (sacct reads slurmdbd unless given --completion)."""
    if not loc:
        return "JobCompType=jobcomp/none\n"
    return f"JobCompType=jobcomp/filetxt\nJobCompLoc={loc}\n"


def scheduler_parameters(rate, window, extra=()):
    """SchedulerParameters' value: ours (see write_slurm_conf), the
    clock's bf_max_time, BF_WINDOW's bf_window, then SCHED_EXTRA's words
    (workloads/sched_extra.py: ValueError for a name set already)."""
    return sched_extra.append(
        "nohold_on_prolog_fail,batch_sched_delay=0,bf_interval=1,bf_resolution=1,"
        "bf_continue,bf_max_job_test=1000,default_queue_depth=1000,sched_interval=1"
        f"{clock_settings(rate)[1]}{bf_window.sched_param(window)}", extra)


def write_slurm_conf(f, defn, nodes, layout, policy, timing=False, options=(),
                     rate=1, jobcomp="", window=None, extra=()):
    frontends = sum(len(b) for b in layout)
    timeouts, _ = clock_settings(rate)
    timeout_lines = "".join(f"{k}={v}\n" for k, v in timeouts.items())
    f.write(f"""# Generated by emulated-clusters/generate.py from {defn['name']}.cluster.
# Do not edit: run `make config CLUSTER={defn['name']}` instead.
ClusterName={defn['name']}
SlurmctldHost=slurmctld
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=error
# Front-end emulation: no cgroups, no task binding, no accounting sampler.
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=slurmdbd
AccountingStoreFlags=job_comment,job_extra
{jobcomp_lines(jobcomp)}SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# The project's plugin: Slurm's topology/tree with the node choice made by
# the policy below (policy_default keeps tree's own choice); commtree_timing
# logs the time of every decision (make bench BENCH=decision).
TopologyPlugin=topology/commtree
TopologyParam=policy_{policy}{',commtree_timing' if timing else ''}{''.join(',' + w for w in options)}
# More front ends than TreeWidth is fatal.
TreeWidth={max(16, frontends + 1)}
ReturnToService=2
# The clock's rate is {rate:g} (1: wall time; see clock_settings).
{timeout_lines}KillWait=5
InactiveLimit=0
PropagateResourceLimits=NONE
# A job's user environment from the front end's cache file only
# (<StateSaveLocation>/env_cache/<user>, which the emulator's entrypoint
# writes), never from `su - <user>` run in clone(CLONE_NEWPID|CLONE_NEWNS):
# an emulator container has no CAP_SYS_ADMIN, Docker refuses the clone
# (EPERM) and slurmd dies, fatal("clone: %m") (Slurm 24.11.5
# src/common/env.c:2287, 2342-2356). sbatch asks for that environment on
# --get-user-env and on every --export but ALL and NIL: NONE or a list,
# even ALL,NAME=value (src/sbatch/sbatch.c:446-458). docs/cluster.md.
GetEnvTimeout=0
# Replays compress time: schedule at once and often, keep few finished jobs.
# A job whose BeginTime passes changes no state, so backfill (which runs
# only after a change) misses it and only the periodic main pass starts
# it: sched_interval=1 keeps that within a second (at 10 it cost up to
# 10 s of wall time, 1,000 s of log time at SPEEDUP=100).
# nohold_on_prolog_fail: a batch launch that fails is requeued, not held.
# A controller killed between starting a job and saving its state starts
# it again on recovery; the front end refuses the second copy ("already
# running") and Slurm would hold the job forever, so the replay would
# never end. Requeued, it runs again and the report flags it "requeued".
# bf_window: Slurm's default (none written) unless BF_WINDOW sets it
# (workloads/bf_window.py); bf_resolution stays 1 s whatever the window:
# in 24.11 the plan is a table of bf_node_space_size records (default
# bf_max_job_test), which neither sizes (backfill.c:2159-2165).
SchedulerType=sched/backfill
SchedulerParameters={scheduler_parameters(rate, window, extra)}
MinJobAge=10
MaxJobCount=200000
MaxArraySize=100001
""")
    if "torus" in defn:
        # TOFA's faults (workloads/tofa_faults.py): a job that ends an
        # attempt aborted (a failed node among those it depends on) exits
        # TOFA_ABORT_EXIT; Slurm requeues it held, the driver sets the
        # failed nodes DOWN, resumes them and releases it (L270). A job's
        # node set DOWN while it runs would requeue it unheld, eligible
        # again after cred_expire, before the node is back.
        f.write(f"RequeueExitHold={TOFA_ABORT_EXIT}\n")
    for b, block in enumerate(layout):
        for fe in block:
            port = FRONTEND_BASE_PORT + int(fe[2:])
            f.write(f"FrontendName={fe} FrontendAddr=emu{b + 1} Port={port}\n")
    groups = {}
    for n in nodes:
        groups.setdefault(n["group_name"], []).append(n)
    for gname, members in groups.items():
        n0 = members[0]
        cores = n0["cores"]
        sockets = n0["sockets"]
        line = (f"NodeName={hostlist([m['name'] for m in members])} "
                f"CPUs={cores} Boards=1 SocketsPerBoard={sockets} "
                f"CoresPerSocket={cores // sockets} ThreadsPerCore=1 "
                f"RealMemory={n0['memory_mb']} State=UNKNOWN")
        if n0["feature"]:
            line += f" Feature={n0['feature']}"
        f.write(line + "\n")
    f.write("PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE "
            "State=UP OverSubscribe=EXCLUSIVE\n")
    # Core granularity (TreeMatch, IJHPCA 2018: the paper's Slurm used
    # CR_Core, so partly busy nodes count): `sbatch -p cores -n <ranks>`
    # shares nodes core by core. Hidden, so sinfo's node counts stay one
    # line per state.
    f.write("PartitionName=cores Nodes=ALL Hidden=YES MaxTime=INFINITE "
            "State=UP OverSubscribe=NO\n")


def write_topology_conf(f, defn, nodes, switches):
    f.write(f"# Generated from {defn['name']}.cluster; leaf switches first.\n")
    for s in sorted(switches, key=lambda s: s.level):
        if s.level == 0:
            members = hostlist([nodes[i]["name"] for i in s.nodes])
            f.write(f"SwitchName={s.name} Nodes={members}\n")
        else:
            members = hostlist([switches[c].name for c in s.children])
            f.write(f"SwitchName={s.name} Switches={members}\n")


def write_topology_json(f, defn, nodes, switches, levels, kind):
    """One node or switch per line so the file diffs and greps well."""
    memo = {}
    f.write("{\n")
    f.write(f'  "name": {json.dumps(defn["name"])},\n')
    f.write(f'  "kind": "{kind}",\n')
    f.write(f'  "levels": {json.dumps(levels)},\n')
    if kind == "dragonfly":
        spec = dict(dragonfly_shape(defn))
        spec["leaf_level"] = defn.get("leaf_level", "chassis")
        f.write(f'  "dragonfly": {json.dumps(spec)},\n')
    if kind == "torus":
        f.write(f'  "torus": {json.dumps(list(torus_shape(defn)))},\n')
    f.write(f'  "assumed": {json.dumps(defn.get("assumed", "").split())},\n')
    f.write('  "nodes": [\n')
    for i, n in enumerate(nodes):
        rec = {"name": n["name"], "cores": n["cores"]}
        if kind == "dragonfly":
            rec.update(router=n["router"], chassis=n["chassis"], group=n["group"])
        if kind == "torus":
            rec["coord"] = n["coord"]
        f.write("    " + json.dumps(rec, separators=(",", ":"))
                + ("," if i + 1 < len(nodes) else "") + "\n")
    f.write("  ],\n")
    f.write('  "switches": [\n')
    for i, s in enumerate(switches):
        rec = {"name": s.name, "level": s.level,
               "parent": switches[s.parent].name if s.parent is not None else None,
               "nodes": descendant_nodes(switches, i, memo)}
        f.write("    " + json.dumps(rec, separators=(",", ":"))
                + ("," if i + 1 < len(switches) else "") + "\n")
    f.write("  ]\n}\n")


def write_emulators_yml(f, layout):
    f.write("# Generated: one container per block of front-end slurmd daemons.\n")
    f.write("services:\n")
    for b, block in enumerate(layout):
        f.write(f"""  emu{b + 1}:
    image: testbed-slurm:${{TESTBED_TAG:-latest}}
    hostname: emu{b + 1}
    networks: [slurm]
    init: true
    command: ["emulator", {", ".join(json.dumps(fe) for fe in block)}]
    secrets: [munge_key]
    environment:
      LD_PRELOAD: /usr/local/lib/libtbvclock.so
      TB_VCLOCK_FILE: /run/testbed-vclock/clock
    volumes:
      - ${{CLUSTER_DIR}}:/etc/testbed/cluster:ro
      - ${{VCLOCK_DIR}}:/run/testbed-vclock
    depends_on: [slurmctld]
""")


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
    ap.add_argument("--topologies-dir",
                    default=os.path.join(HERE, "..", "..", "shared", "topologies"))
    args = ap.parse_args(argv)
    # Named alone, as the make variable (no cluster prefix): a bad value
    # is the caller's, not the machine definition's.
    try:
        window = bf_window.check(args.bf_window)
        extra = sched_extra.check(args.sched_extra)
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
                 window, extra)
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
        f"SCHED_EXTRA={','.join(extra)}\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
