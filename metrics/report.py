"""Metrics, tables and plots of a replay: results/<run-id>/ -> jobs.csv,
metrics.json, summary.md and plots; or a comparison of several runs.

    python3 -m metrics.report report <run-dir> [--aph-tool PATH --topology JSON]
    python3 -m metrics.report compare <run-dir> <run-dir> ... --out <dir>

Times are in log time: wall-clock seconds since the replay's origin (t0)
multiplied by the run's SPEEDUP, so runs at different speedups compare.
"""

import argparse
import csv
import json
import os
import sys

from workloads import faults
from .compare import compare
from .jobs import (foreign_policy_jobs, JOB_FIELDS, job_rows, mark_late_launches, mark_prefill,
                   mark_unlaunched, NOT_LAUNCHED)
from .measures import (check_isolation, compute_aph, individual_runs, metrics, pauses,
                       policies, reservation_delays, topology_cores)
from .plots import plot
from .run_dir import clean, csv_cell, load_run, prefill_ids, ReportError, write_atomic
from .summary import fmt, summary_md


def report(run_dir, aph_tool, topology, isolation_tool=None):
    manifest, sacct, planned = load_run(run_dir)
    aph = compute_aph(None, sacct, aph_tool, topology)
    deaths = faults.deaths(run_dir)
    all_rows = job_rows(manifest, sacct, aph, deaths)
    late_launches = mark_late_launches(all_rows, run_dir)
    # Ended by Slurm before their script began (a front end's registration).
    unlaunched = mark_unlaunched(all_rows, run_dir)
    cluster_nodes = manifest["cluster_nodes"]
    got = {r["log_job_id"] for r in all_rows}
    missing = [x for x in planned if x not in got]
    # Jobs hit by a fault are never counted: they are in jobs.csv with the
    # reason, and the metrics are over the others (the run is damaged).
    # Nor are the jobs that filled the machine before the window (PREFILL).
    workload = mark_prefill(all_rows, prefill_ids(run_dir))
    rows = [r for r in workload if not r["fault"]]
    cores = topology_cores(topology) if manifest.get("granularity") == "core" else 0
    m = metrics(rows, cluster_nodes, cores)
    m["prefill_jobs"] = len(all_rows) - len(workload)
    m["comm"] = metrics([r for r in rows if r["comm"]], cluster_nodes, cores)
    m["compute"] = metrics([r for r in rows if not r["comm"]], cluster_nodes, cores)
    m["individual_runs_improvement_percent"], left = individual_runs(rows)
    m["individual_runs_left_out"] = left
    # Jobs the plugin ran for their log runtime for lack of a cost: named,
    # since a figure over them is not Eq. 7's.
    fell_back = [r["log_job_id"] for r in rows if r["runtime_fallback"]]
    m["runtime_fallback_jobs"] = len(fell_back)
    if fell_back:
        m["runtime_fallback_ids"] = fell_back
    m["fault_jobs"] = len(workload) - len(rows)
    m["fault_events"] = len(deaths)
    m["requeued_jobs"] = sum(1 for r in all_rows if r["fault"] == "requeued")
    m["late_launch_jobs"] = sum(1 for r in workload if r["fault"] == "late_launch")
    m["late_launch_all_jobs"] = late_launches
    m["not_launched_jobs"] = sum(1 for r in workload if r["fault"] == NOT_LAUNCHED)
    m["not_launched_all_jobs"] = unlaunched
    m["damaged"] = bool(m["fault_jobs"] or deaths)
    # Log jobs counted by their rerun (RERUN_FAULTED=1), not the faulted job.
    m["rerun_jobs"] = sum(1 for r in all_rows if r["attempt"])
    m["run_id"] = manifest["run_id"]
    m["policy"] = manifest["policy"]
    m["incomplete"] = bool(missing)
    if missing:
        m["missing_jobs"] = missing
    m.update(pauses(manifest, run_dir))
    m.update(reservation_delays(run_dir, manifest, rows, planned) or {})
    # Under the isolated policy (SC18) no two jobs may ever have shared a
    # link: proved on the run's node lists, for every pair that overlapped.
    if manifest.get("policy") == "isolated" and isolation_tool and topology:
        violations = check_isolation(sacct, isolation_tool, topology)
        m["isolation_violations"] = len(violations)
        if violations:
            write_atomic(os.path.join(run_dir, "isolation.txt"), "\n".join(violations) + "\n")
    # A job without the plugin's record was not placed by the run's policy
    # (and a fallback one by tree): the run does not measure its policy.
    m["unrecorded_jobs"] = sum(1 for r in rows if not r["recorded"])
    m["fallback_jobs"] = sum(1 for r in rows if r["fallback"])
    # A record naming another policy without a fallback reason: the
    # controller ran another policy than the run's (a switch during it).
    m["foreign_policy_jobs"] = foreign_policy_jobs(rows, manifest["policy"])
    m["valid"] = m["unrecorded_jobs"] == 0 and not m["foreign_policy_jobs"]
    # The tree APH was measured on: the run's own copy, or (runs made
    # before runs kept theirs) one generated again at report time.
    m["aph_topology"] = (None if not (aph_tool and topology) else "run"
                         if os.path.abspath(topology) ==
                         os.path.abspath(os.path.join(run_dir, "topology.json"))
                         else "regenerated")
    write_atomic(os.path.join(run_dir, "metrics.json"),
                 json.dumps(clean(m), indent=2) + "\n")
    with open(os.path.join(run_dir, "jobs.csv.tmp"), "w", newline="",
              encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=JOB_FIELDS, extrasaction="ignore",
                           lineterminator="\n")
        w.writeheader()
        for r in all_rows:
            w.writerow({k: csv_cell(r[k]) for k in JOB_FIELDS})
    os.replace(os.path.join(run_dir, "jobs.csv.tmp"), os.path.join(run_dir, "jobs.csv"))
    plots = plot(run_dir, rows, cluster_nodes) if rows else []
    write_atomic(os.path.join(run_dir, "summary.md"), summary_md(manifest, m, plots, missing))
    return m, missing


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("run_dir")
    r.add_argument("--aph-tool")
    r.add_argument("--isolation-tool")
    r.add_argument("--topology")
    c = sub.add_parser("compare")
    c.add_argument("run_dirs", nargs="+")
    c.add_argument("--out", required=True)
    c.add_argument("--force", action="store_true",
                   help="compare runs that are not one experiment, with a warning")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "report":
            m, missing = report(args.run_dir, args.aph_tool, args.topology,
                                args.isolation_tool)
            print(f"report: {m['jobs']} jobs, makespan {fmt(m['makespan_s'] / 3600, 2)} h, "
                  f"utilization {fmt(m['utilization'], 3)}, mean wait "
                  f"{fmt(m['wait_mean_s'] / 3600, 2)} h -> {args.run_dir}/summary.md")
            ir = m["individual_runs_improvement_percent"]
            print("report: individual runs, % less execution time than the log's "
                  "runtimes at equal state: " +
                  ", ".join(f"{p} {fmt(ir['all'][p], 2)}" for p in policies()) +
                  " (comm jobs: " + ", ".join(f"{p} {fmt(ir['comm'][p], 2)}" for p in policies()) + ")")
            left = m["individual_runs_left_out"].get("all", {})
            if left:
                print("report: individual runs: jobs without a same-state cost left out "
                      "of that policy's figure: " +
                      ", ".join(f"{p} {len(ids)}" for p, ids in left.items()) +
                      " (see summary.md)")
            if m["runtime_fallback_jobs"]:
                print(f"report: {m['runtime_fallback_jobs']} jobs ran their log runtime for "
                      "lack of a cost (runtime_fallback; see summary.md)")
            if m.get("resumed"):
                print(f"report: resumed run: paused {fmt(m.get('paused_log_s'))} s of log "
                      f"time, {fmt(m.get('jobs_late'))} jobs made late (see summary.md)")
            if m.get("damaged") or m.get("rerun_jobs"):
                print(f"report: {m['fault_jobs']} jobs hit by a fault left out, "
                      f"{m['rerun_jobs']} counted by their rerun (see summary.md)")
            if not m["valid"]:
                print(f"report: invalid: {m['unrecorded_jobs']} jobs without the plugin's "
                      f"record, {sum(m['foreign_policy_jobs'].values())} placed by another "
                      "policy (see summary.md)", file=sys.stderr)
            if missing:
                print(f"report: incomplete: {len(missing)} jobs missing from sacct.json "
                      f"(first: {missing[0]})", file=sys.stderr)
                return 1
        else:
            compare(args.run_dirs, args.out, args.force)
            print(f"compare: {len(args.run_dirs)} runs -> {args.out}/compare.md")
        return 0
    except ReportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
