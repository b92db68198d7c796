"""The switch tree written out: topology.conf for Slurm's topology plugins,
topology.json (with the dragonfly's fields or the torus' dimensions and
coordinates) for the policy library.
"""

import json

from workloads.cluster_defs import hostlist
from workloads.clustergen.definition import dragonfly_shape, torus_shape


def descendant_nodes(switches, i, memo):
    if i not in memo:
        s = switches[i]
        out = list(s.nodes)
        for c in s.children:
            out.extend(descendant_nodes(switches, c, memo))
        memo[i] = sorted(out)
    return memo[i]


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
