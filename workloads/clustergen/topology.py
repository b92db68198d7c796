"""The switch tree Slurm's topology plugin sees, built from a definition:
by rule ('leaf:4 pod:4 core'), from a real topology.conf's leaves, a
dragonfly's routers, chassis and groups, or one leaf of a torus' nodes.
"""

import os
import sys

from workloads.cluster_defs import DefinitionError, expand_hostlist
from workloads.clustergen.definition import dragonfly_shape, expand_nodes, parse_kv, torus_shape

DRAGONFLY_LEVELS = ("router", "chassis", "group")


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
