#!/usr/bin/env python3
"""Decision-time benchmark inside slurmctld (make bench BENCH=decision).

    decision.py fill <nodes> <seed>      tb-submit lines filling ~3/4 of
                                         the machine with long jobs
    decision.py cancel <seed>            of the job ids on stdin, those to
                                         cancel to bring it to about half
    decision.py probes <nodes> <count> <seed>   probe sizes, one per line
    decision.py summary                  the table, from slurmctld's
                                         "topology/commtree: timing" lines

topology/commtree with TopologyParam=commtree_timing logs, for every eval,
the time of its snapshot, of each policy's decision on that snapshot and
of topology/tree's eval. Under policy default, tree's eval runs on every
usable node: that is Slurm's own selection, so the same line compares it
with each policy on the very same request. Under another policy, tree's
eval only accounts cores on the nodes the policy chose; the policy's whole
cost in slurmctld is then snapshot + decision + that eval.
"""

import random
import re
import statistics
import sys

# A timing line gives every policy of the plugin's registry, in its order
# (commtree_eval.c, _log_timing): the policies come from there. Names may
# hold '-' (tm-a).
LINE = re.compile(r"topology/commtree: timing nodes=(\d+) policy=(\S+) "
                  r"snapshot_us=([\d.]+) tree_us=([\d.]+)(.*)")
PART = re.compile(r"([\w-]+)_us=([\d.]+)(\(refused\))?")


def fill(nodes, seed):
    rng = random.Random(seed)
    used, i = 0, 0
    while used < nodes * 3 // 4:
        n = min(int(2 ** rng.uniform(0, 9)), nodes * 3 // 4 - used)
        comment = "1:2" if rng.random() < 0.9 else "0"
        print(f"bench-fill-{i}\t{n}\t6000\t0\t0\t{comment}")
        used += n
        i += 1


def cancel(seed):
    ids = [line.split() for line in sys.stdin if line.strip()]
    rng = random.Random(seed)
    # ids: "<job id> <nodes>"; cancel at random until about half is busy.
    total = sum(int(n) for _, n in ids)
    rng.shuffle(ids)
    busy = total
    for jid, n in ids:
        if busy <= total * 2 // 3:
            break
        print(jid)
        busy -= int(n)


def probes(nodes, count, seed):
    rng = random.Random(seed)
    top = max(1, nodes // 6)
    for _ in range(count):
        print(max(1, min(top, int(2 ** rng.uniform(0, top.bit_length())))))


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def summary():
    rows, policies = {}, []
    for line in sys.stdin:
        m = LINE.search(line)
        if not m:
            continue
        nodes, phase, snap, tree, rest = m.groups()
        parts = {k: (float(v), bool(r)) for k, v, r in PART.findall(rest)}
        policies += [p for p in parts if p not in policies]
        rows.setdefault(phase, []).append((int(nodes), float(snap), float(tree), parts))
    base = rows.get("default", [])
    if not base:
        print("error: no timing lines under policy default; was the cluster "
              "up with COMMTREE_TIMING=1?", file=sys.stderr)
        return 1
    tree = [r[2] for r in base]
    print(f"# {len(base)} evals under policy default (Slurm's topology/tree "
          "selects; the library decides on the same snapshot)")
    print(f"{'':34s} {'median_us':>10s} {'p90_us':>10s} {'x tree':>7s}")
    t_med = statistics.median(tree)
    print(f"{'slurm topology/tree eval':34s} {t_med:10.1f} {pct(tree, 0.9):10.1f} {1:7.2f}")
    snap = [r[1] for r in base]
    print(f"{'commtree snapshot':34s} {statistics.median(snap):10.1f} "
          f"{pct(snap, 0.9):10.1f} {statistics.median(snap) / t_med:7.2f}")
    for p in policies:
        dec = [r[1] + r[3][p][0] for r in base if p in r[3]]
        if dec:
            med = statistics.median(dec)
            print(f"{'snapshot + ' + p:34s} {med:10.1f} {pct(dec, 0.9):10.1f} "
                  f"{med / t_med:7.2f}")
    for p in policies:
        phase = rows.get(p, []) if p != "default" else []
        if not phase:
            continue
        whole = [r[1] + r[3][p][0] + r[2] for r in phase if p in r[3]]
        med = statistics.median(whole)
        print(f"{'under ' + p + ': all of commtree':34s} {med:10.1f} "
              f"{pct(whole, 0.9):10.1f} {med / t_med:7.2f}   ({len(phase)} evals)")
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "fill" and len(argv) == 4:
        fill(int(argv[2]), int(argv[3]))
    elif cmd == "cancel" and len(argv) == 3:
        cancel(int(argv[2]))
    elif cmd == "probes" and len(argv) == 5:
        probes(int(argv[2]), int(argv[3]), int(argv[4]))
    elif cmd == "summary":
        return summary()
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
