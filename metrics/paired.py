"""Two runs of one plan, job by job: what a difference in their wait is
made of.

A table's wait (metrics.json, table.md) is a total over the jobs a run
counts: metrics/jobs.py leaves out a job hit by a fault (late_launch,
not_launched, ...). Two runs of the same plan can therefore differ in
their totals only because they count different jobs. This module splits
the difference of the two counted totals exactly into

    (waits of the jobs counted by the second run only)
  - (waits of the jobs counted by the first run only)
  + (difference over the jobs both count),

gives the total over every job of the plan (a flagged job's start is
still Slurm's, so its wait is measured), and the per-job differences:
how many jobs moved, by how much, along the window (tenths of the plan
in submission order), and the first job, by the first run's start, whose
start moved: where the two schedules part. It reads, never writes a run.
docs/results/2026-11-27-end-guard.md ("Why Theta's wait rose") has the
reading that needed it.

    python3 -m metrics.paired RUN_A RUN_B [--moved-h H] [--part-h H]
"""

import argparse
import csv
import os
import sys

from .run_dir import ReportError


def read_waits(run_dir):
    """{log id: {submit, start, wait, nodes, fault}} from jobs.csv (log
    s; a job without a start is left out: it has no wait)."""
    path = os.path.join(run_dir, "jobs.csv")
    if not os.path.exists(path):
        raise ReportError(f"{run_dir}: no jobs.csv; expected a reported run "
                          "(make report RUN=<it>)")
    jobs = {}
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            try:
                jobs[r["log_job_id"]] = {
                    "submit": float(r["submit"]), "start": float(r["start"]),
                    "wait": float(r["wait_s"]), "nodes": int(r["nodes"]),
                    "fault": r.get("fault", "")}
            except (KeyError, ValueError):
                continue
    return jobs


def same_plan(run_a, run_b):
    """Refuse two runs of different plans: their jobs are not the same."""
    texts = []
    for d in (run_a, run_b):
        path = os.path.join(d, "plan.tsv")
        if not os.path.exists(path):
            raise ReportError(f"{d}: no plan.tsv; expected a replay's run directory")
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    if texts[0] != texts[1]:
        raise ReportError(f"{run_a} and {run_b}: different plan.tsv; expected two runs "
                          "of one plan (same LOG, FIRST, JOBS, SEED, sizes, limits)")


def total_h(jobs, ids):
    return sum(jobs[k]["wait"] for k in ids) / 3600.0


def pair(a, b, moved_s=3600.0, part_s=5 * 3600.0):
    """The comparison of two runs' jobs ({log id: row} each, read_waits)
    as a dict of plain numbers (hours unless named _s). A wait moved if it
    changed by more than moved_s; the schedules part at the first job (by
    its start in a) whose start moved by more than part_s (larger: a run
    with jobs ending earlier starts every later job a little earlier)."""
    both_ids = sorted(set(a) & set(b), key=lambda k: (a[k]["submit"], k))
    counted_a = [k for k in a if not a[k]["fault"]]
    counted_b = [k for k in b if not b[k]["fault"]]
    only_a = [k for k in counted_a if k not in b or b[k]["fault"]]
    only_b = [k for k in counted_b if k not in a or a[k]["fault"]]
    common = [k for k in both_ids if not a[k]["fault"] and not b[k]["fault"]]
    diff = {k: b[k]["wait"] - a[k]["wait"] for k in both_ids}
    tenths = []
    n = len(both_ids)
    for i in range(10):
        ids = both_ids[i * n // 10:(i + 1) * n // 10]
        if ids:
            tenths.append({"jobs": len(ids),
                           "wait_a_mean_h": total_h(a, ids) / len(ids),
                           "diff_mean_h": sum(diff[k] for k in ids) / len(ids) / 3600.0,
                           "flagged_a": sum(1 for k in ids if a[k]["fault"]),
                           "flagged_b": sum(1 for k in ids if b[k]["fault"])})
    first = None
    for k in sorted(both_ids, key=lambda k: (a[k]["start"], k)):
        if abs(b[k]["start"] - a[k]["start"]) > part_s:
            first = {"log_id": k, "nodes": a[k]["nodes"], "start_a_h": a[k]["start"] / 3600.0,
                     "start_b_h": b[k]["start"] / 3600.0}
            break
    moved = sorted(both_ids, key=lambda k: (-abs(diff[k]), k))
    return {
        "counted": {"a": len(counted_a), "b": len(counted_b),
                    "total_a_h": total_h(a, counted_a), "total_b_h": total_h(b, counted_b)},
        "only_a": {"jobs": len(only_a), "wait_a_h": total_h(a, only_a),
                   "flags_b": sorted({b[k]["fault"] for k in only_a if k in b})},
        "only_b": {"jobs": len(only_b), "wait_b_h": total_h(b, only_b),
                   "flags_a": sorted({a[k]["fault"] for k in only_b if k in a})},
        "common": {"jobs": len(common), "total_a_h": total_h(a, common),
                   "total_b_h": total_h(b, common)},
        "all": {"jobs": n, "total_a_h": total_h(a, both_ids), "total_b_h": total_h(b, both_ids)},
        "moved_s": moved_s,
        "part_s": part_s,
        "moved": sum(1 for k in both_ids if abs(diff[k]) > moved_s),
        "moved_10x": sum(1 for k in both_ids if abs(diff[k]) > 10 * moved_s),
        "max_moved_h": abs(diff[moved[0]]) / 3600.0 if moved else 0.0,
        "largest": [{"log_id": k, "nodes": a[k]["nodes"], "diff_h": diff[k] / 3600.0}
                    for k in moved[:5]],
        "tenths": tenths,
        "first_moved": first,
    }


def pct(new, old):
    return f"{(new / old - 1) * 100:+.3f} %" if old else "-"


def text(p, name_a="A", name_b="B"):
    c, oa, ob, cm, al = p["counted"], p["only_a"], p["only_b"], p["common"], p["all"]
    h = p["moved_s"] / 3600.0
    lines = [
        f"counted jobs: {name_a} {c['a']}, {name_b} {c['b']}; wait over them (the table's): "
        f"{c['total_a_h']:,.1f} h -> {c['total_b_h']:,.1f} h ({pct(c['total_b_h'], c['total_a_h'])})",
        f"  = {ob['wait_b_h']:+,.1f} h of {ob['jobs']} jobs counted by {name_b} only "
        f"(flagged in {name_a}: {', '.join(ob['flags_a']) or '-'})",
        f"  - {oa['wait_a_h']:,.1f} h of {oa['jobs']} jobs counted by {name_a} only "
        f"(flagged in {name_b}: {', '.join(oa['flags_b']) or '-'})",
        f"  {cm['total_b_h'] - cm['total_a_h']:+,.1f} h over the {cm['jobs']} jobs both count "
        f"({cm['total_a_h']:,.1f} -> {cm['total_b_h']:,.1f} h, {pct(cm['total_b_h'], cm['total_a_h'])})",
        f"every job ({al['jobs']}, flagged ones too): {al['total_a_h']:,.1f} h -> "
        f"{al['total_b_h']:,.1f} h ({pct(al['total_b_h'], al['total_a_h'])})",
        f"jobs whose wait moved by more than {h:g} h: {p['moved']}; by more than {10 * h:g} h: "
        f"{p['moved_10x']}; at most {p['max_moved_h']:.1f} h ("
        + ", ".join(f"{j['log_id']} ({j['nodes']} nodes) {j['diff_h']:+.1f}" for j in p["largest"])
        + ")",
        f"by tenths of the plan (submission order): mean wait of {name_a} (h), mean "
        f"{name_b} - {name_a} (h), flagged {name_a}/{name_b}:",
    ]
    for i, t in enumerate(p["tenths"]):
        lines.append(f"  {i}: {t['wait_a_mean_h']:8.1f} {t['diff_mean_h']:+7.2f}"
                     f"  {t['flagged_a']}/{t['flagged_b']}")
    f = p["first_moved"]
    lines.append("first job (by its start in " + name_a + ") whose start moved more than "
                 f"{p['part_s'] / 3600.0:g} h: "
                 + (f"{f['log_id']} ({f['nodes']} nodes), {f['start_a_h']:.2f} h -> "
                    f"{f['start_b_h']:.2f} h" if f else "none"))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m metrics.paired",
                                 description="Two runs of one plan compared job by job.")
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    ap.add_argument("--moved-h", type=float, default=1.0,
                    help="a job's wait moved if it changed by more than this (h; default 1)")
    ap.add_argument("--part-h", type=float, default=5.0,
                    help="the schedules part at the first start moved by more (h; default 5)")
    args = ap.parse_args(argv)
    for name, v in (("--moved-h", args.moved_h), ("--part-h", args.part_h)):
        if v <= 0:
            print(f"paired: {name} {v:g}: expected hours > 0", file=sys.stderr)
            return 2
    try:
        same_plan(args.run_a, args.run_b)
        p = pair(read_waits(args.run_a), read_waits(args.run_b), args.moved_h * 3600.0,
                 args.part_h * 3600.0)
    except ReportError as e:
        print(f"paired: {e}", file=sys.stderr)
        return 1
    print(f"A = {os.path.basename(os.path.normpath(args.run_a))}\n"
          f"B = {os.path.basename(os.path.normpath(args.run_b))}")
    print(text(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
