"""A machine definition (emulated-clusters/<name>.cluster) read: its key =
value lines, its nodes one by one in index order, and the shapes of a
dragonfly and of a torus.
"""

import re

from workloads.cluster_defs import DefinitionError


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


def torus_shape(defn):
    """'8 8 8' -> (8, 8, 8): a 3D torus' dimensions X Y Z."""
    words = defn["torus"].split()
    if len(words) != 3 or not all(w.isdigit() and int(w) >= 1 for w in words):
        raise DefinitionError(f"torus = {defn['torus']}: expected three "
                              "positive numbers X Y Z")
    return tuple(int(w) for w in words)
