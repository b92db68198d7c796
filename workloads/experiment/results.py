"""The runs' results: each finished replay read as make report reads it,
the runs by key, the table's header, and the table of any kind written
out (table.md, table.csv), with its plots; what differs by kind are the
kind's hooks (kind.py).
"""

import csv
import io
import os

from metrics.jobs import (foreign_policy_jobs, job_rows, mark_late_launches, mark_prefill,
                          mark_unlaunched)
from metrics.measures import metrics, pauses
from metrics.run_dir import ReportError, load_run, prefill_ids
from workloads import faults
from .errors import ExperimentError
from .kind import key_per_pattern
from .kinds import kind_of
from .tables import Table, write_atomic


class Run:
    """One finished replay: what it ran and its jobs."""

    def __init__(self, run_dir):
        self.dir = run_dir
        self.manifest, sacct, planned = load_run(run_dir)
        m = self.manifest
        log = m.get("log", "")
        self.log = log if os.sep not in log else os.path.basename(log)
        self.pattern = m.get("pattern", "")
        self.policy = m["policy"]
        self.run_id = m["run_id"]
        # As make report: one row per log job (a rerun in place of the job
        # a fault hit), and jobs hit by a fault left out of every figure,
        # as are the jobs that filled the machine before the window.
        rows = job_rows(m, sacct, {}, faults.deaths(run_dir))
        # As make report: a job launched after its own end is the
        # emulator's artefact, flagged late_launch and left out.
        mark_late_launches(rows, run_dir)
        # And one Slurm ended before its script began (`not_launched`).
        mark_unlaunched(rows, run_dir)
        workload = mark_prefill(rows, prefill_ids(run_dir))
        # Every row, the first set's and the faulted ones too (a kind may
        # judge a job by another's fate: NeDD's by its congestor's).
        self.all_rows = rows
        self.rows = [r for r in workload if not r["fault"]]
        self.fault_jobs = len(workload) - len(self.rows)
        self.rerun_jobs = sum(1 for r in rows if r["attempt"])
        self.metrics = metrics(self.rows, m["cluster_nodes"])
        # The paper's Table 3 gives wait hours summed over the jobs.
        self.metrics["wait_hours"] = sum(r["wait_s"] for r in self.rows) / 3600
        # The log's runtimes of the same jobs (plan.tsv), which the
        # baseline's execution hours should equal (Eq. 7 leaves its jobs
        # alone): a gap is the clock's or the limits'.
        self.log_runtime_hours = planned_runtime_hours(
            run_dir, {r["log_job_id"] for r in self.rows})
        got = {r["log_job_id"] for r in rows}
        self.missing = [x for x in planned if x not in got]
        # As make report's "valid": every job placed by the run's policy.
        self.unrecorded = sum(1 for r in self.rows if not r["recorded"])
        self.foreign = foreign_policy_jobs(self.rows, self.policy)
        self.resumed = pauses(m, run_dir).get("resumed", False)
        # {policy: cost}, every cost the job's record holds.
        for r in self.rows:
            r["costs"] = r["cost_by_policy"]


def planned_runtime_hours(run_dir, log_ids):
    """The sum of plan.tsv's runtimes (log seconds) of these jobs, in
    hours; None without a plan."""
    path = os.path.join(run_dir, "plan.tsv")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return sum(float(row["runtime"]) for row in csv.DictReader(f, delimiter="\t")
                   if row["log_id"] in log_ids and row.get("prefill") != "1") / 3600


def load_runs(run_dirs, d=None):
    """The runs by the kind's key (log, pattern, policy unless the kind
    keys them otherwise); without a definition, by log, pattern, policy."""
    key_of = kind_of(d).run_key if d is not None else key_per_pattern
    load = (kind_of(d).load if d is not None else None) or Run
    runs = {}
    for rd in run_dirs:
        try:
            r = load(rd)
        except ReportError as e:
            raise ExperimentError(str(e)) from None
        except (OSError, ValueError, KeyError) as e:
            raise ExperimentError(f"{rd}: not a readable replay ({e})") from None
        key = key_of(d, r)
        if key in runs:
            raise ExperimentError(f"two runs of {'/'.join(key)}: {runs[key].run_id} "
                                  f"and {r.run_id}")
        runs[key] = r
    return runs


def header_md(d, runs, meta):
    out = [f"# Experiment {d.name}" + (f" ({meta['id']})" if meta else ""), "",
           d.description, ""]
    if d.paper_from:
        out += [f"The paper's numbers: the `paper.*` lines of {', '.join(d.paper_from)}.", ""]
    kind = kind_of(d)
    if runs:
        out += kind.header(d, runs)
    out += ["What differs from the paper's setting:", ""]
    out += [f"- {n}" for n in d.notes] or ["- nothing noted"]
    out += [f"- {o}" for o in d.overrides]
    out += kind.skipped(d, runs)
    incomplete = [r.run_id for r in runs.values() if r.missing]
    if incomplete:
        out += [f"- **incomplete runs** (jobs missing from sacct.json): {', '.join(incomplete)}"]
    invalid = [f"{r.run_id} ({r.unrecorded + sum(r.foreign.values())})"
               for r in sorted(runs.values(), key=lambda r: r.run_id)
               if r.unrecorded or r.foreign]
    if invalid:
        out += ["- **invalid runs**, jobs without the plugin's record or placed by another "
                "policy than the run's (their figures do not measure the policy; see each "
                f"run's summary.md): {', '.join(invalid)}"]
    resumed = sorted(r.run_id for r in runs.values() if r.resumed)
    if resumed:
        out += ["- resumed runs (jobs due during a pause became eligible together; the "
                f"pause counts in makespan and utilization): {', '.join(resumed)}"]
    damaged = [f"{r.run_id} ({r.fault_jobs})" for r in sorted(runs.values(), key=lambda r: r.run_id)
               if r.fault_jobs]
    if damaged:
        out += ["- **damaged runs**, jobs hit by a fault, ended by Slurm before their "
                "script began (`not_launched`: a front end's registration) or "
                "launched after their own end (`late_launch`) left out of their figures "
                f"(`make replay RESUME=<run-id> RERUN_FAULTED=1` runs them again): "
                f"{', '.join(damaged)}"]
    rerun = [f"{r.run_id} ({r.rerun_jobs})" for r in sorted(runs.values(), key=lambda r: r.run_id)
             if r.rerun_jobs]
    if rerun:
        out += ["- runs with jobs run again after a fault (RERUN_FAULTED=1), counted by "
                f"their rerun: {', '.join(rerun)}"]
    return out + [""]


def build_table(d, run_dirs, out, meta=None, plots=False):
    runs = load_runs(run_dirs, d)
    t = Table()
    t.md = header_md(d, runs, meta)
    kind = kind_of(d)
    kind.table(d, runs, t)
    t.md += kind.plots(d, runs, out) if plots else []
    os.makedirs(out, exist_ok=True)
    for name, (header, rows) in [("table.csv", (t.csv_header, t.csv_rows))] + \
            sorted(t.more_csv.items()):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        write_atomic(os.path.join(out, name), buf.getvalue())
    write_atomic(os.path.join(out, "table.md"), "\n".join(t.md))
    return runs
