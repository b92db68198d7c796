"""The runs' results: each finished replay read as make report reads it,
the runs by key, the table's header, and the table of any kind written
out (table.md, table.csv), with compare's plots.
"""

import csv
import io
import os

from metrics.compare import compare
from metrics.jobs import fnum, foreign_policy_jobs, job_rows, mark_late_launches, mark_prefill
from metrics.measures import metrics, pauses
from metrics.run_dir import ReportError, load_run, prefill_ids
from workloads import faults
from .continuous import table_continuous
from .cost_by_size import table_cost_by_size
from .errors import ExperimentError
from .individual import table_individual
from .sc18 import base_scale, sc18_key, table_sc18
from .shadow import table_shadow
from .tables import run_for, Table, write_atomic
from .treematch import table_treematch, treematch_key


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
        workload = mark_prefill(rows, prefill_ids(run_dir))
        self.rows = [r for r in workload if not r["fault"]]
        self.fault_jobs = len(workload) - len(self.rows)
        self.rerun_jobs = sum(1 for r in rows if r["attempt"])
        self.metrics = metrics(self.rows, m["cluster_nodes"])
        # The paper's Table 3 gives wait hours summed over the jobs.
        self.metrics["wait_hours"] = sum(r["wait_s"] for r in self.rows) / 3600
        got = {r["log_job_id"] for r in rows}
        self.missing = [x for x in planned if x not in got]
        # As make report's "valid": every job placed by the run's policy.
        self.unrecorded = sum(1 for r in self.rows if not r["recorded"])
        self.foreign = foreign_policy_jobs(self.rows, self.policy)
        self.resumed = pauses(m, run_dir).get("resumed", False)
        # {policy: cost}, every cost the job's record holds.
        for r in self.rows:
            r["costs"] = r["cost_by_policy"]


def load_runs(run_dirs, d=None):
    """The runs by log, pattern and policy; by log, load and setup (sc18)."""
    runs = {}
    for rd in run_dirs:
        try:
            r = Run(rd)
        except ReportError as e:
            raise ExperimentError(str(e)) from None
        except (OSError, ValueError, KeyError) as e:
            raise ExperimentError(f"{rd}: not a readable replay ({e})") from None
        if d is not None and d.kind == "sc18":
            key = sc18_key(d, r)
        elif d is not None and d.kind == "treematch":
            key = treematch_key(d, r)
        else:
            key = (r.log, r.pattern, r.policy)
        if key in runs:
            raise ExperimentError(f"two runs of {'/'.join(key)}: {runs[key].run_id} "
                                  f"and {r.run_id}")
        runs[key] = r
    return runs


def pace_text(m):
    """How a run compressed time: the virtual clock's rate, or SPEEDUP."""
    if m.get("clock") == "virtual":
        return f"CLOCK=virtual at rate {fnum(m.get('clock_rate')):g}"
    return f"SPEEDUP={m['speedup']:g}"


def header_md(d, runs, meta):
    out = [f"# Experiment {d.name}" + (f" ({meta['id']})" if meta else ""), "",
           d.description, ""]
    if runs and d.kind == "sc18":
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        windows = []
        for log in d.logs:
            r = next((x for x in rs if x.log == log), None)
            if r:
                mm = r.manifest
                n = mm["jobs"] + mm.get("skipped_too_big", 0)
                windows.append(f"{log} (`{mm.get('log_file', log)}`, {n} jobs from job "
                               f"{mm['first']}, sizes / {base_scale(d, log):g} at load 1)")
        out += [f"Ours: {len(rs)} replays on {m['cluster']} ({m['cluster_nodes']:,} nodes) of "
                + ", ".join(windows) + f"; {pace_text(m)}, seed {m['seed']}, "
                f"git {m.get('git_revision', '?')}. Paper: {d.citation}. Times are log time.", ""]
    elif runs and d.kind == "treematch":
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        first, n = m["first"], m["jobs"]
        pre = (f" after {m['prefill_jobs']} jobs from before it (log jobs before {first}) "
               f"filled {m.get('prefill_nodes', 0):,} of the {m['cluster_nodes']:,} nodes "
               f"(PREFILL={m['prefill']:g})" if m.get("prefill_jobs") else ", no prefill")
        factor = m.get("runtime_factor")
        out += [f"Ours: {len(rs)} replays on {m['cluster']} of `{m.get('log_file', m['log'])}`, "
                f"the workload {n} jobs from job {first} (jobs {first} to {first + n - 1} of "
                f"the log's replayable jobs){pre}; runtimes x "
                f"{1 if factor is None else factor:g}, SPARSITY={m.get('sparsity')}, "
                f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
                f"Paper: {d.citation}. Times are log time.", ""]
    elif runs:
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        out += [f"Ours: {len(rs)} replays, {m['jobs']} jobs each of `{m.get('log_file', m['log'])}`"
                f"{' (and others)' if len(d.logs) > 1 else ''} from job {m['first']}, "
                f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
                f"Paper: {d.citation}. Times are log time.", ""]
    out += ["What differs from the paper's setting:", ""]
    out += [f"- {n}" for n in d.notes] or ["- nothing noted"]
    out += [f"- {o}" for o in d.overrides]
    if d.kind == "sc18":
        skipped = sorted({(k[0], float(k[1]), k[1], r.manifest.get("skipped_too_big", 0))
                          for k, r in runs.items() if r.manifest.get("skipped_too_big")})
        out += [f"- {n} job{'s' if n != 1 else ''} of the {lg} window larger than the cluster "
                f"skipped at load x{load}" for lg, _, load, n in skipped]
    else:
        skipped = sorted({(r.log, r.manifest.get("skipped_too_big", 0)) for r in runs.values()
                          if r.manifest.get("skipped_too_big")})
        out += [f"- {n} jobs of the {lg} window larger than the cluster were skipped"
                for lg, n in skipped]
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
        out += ["- **damaged runs**, jobs hit by a fault or launched after their own "
                "end (`late_launch`) left out of their figures "
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
    seed = int(d.params_of(d.logs[0]).get("SEED", 0))
    if d.kind == "continuous":
        table_continuous(d, runs, t)
    elif d.kind == "shadow":
        table_shadow(d, runs, t, seed)
    elif d.kind == "individual":
        table_individual(d, runs, t)
    elif d.kind == "sc18":
        table_sc18(d, runs, t)
    elif d.kind == "treematch":
        table_treematch(d, runs, t)
    else:
        table_cost_by_size(d, runs, t)
    t.md += plot_section(d, runs, out) if plots else []
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


def plot_section(d, runs, out):
    """report.py compare's plots (execution and mean wait by policy, per-job
    times) for each log x pattern of a continuous experiment."""
    if d.kind in ("sc18", "treematch"):
        return ["No plot: each run's own plots (utilization over time, wait CDF) are in "
                "its directory.", ""]
    if d.kind != "continuous":
        return ["No plot: report.py has no plot of same-state costs to reuse.", ""]
    lines = []
    for log in d.logs:
        for pattern in d.patterns:
            group = [run_for(d, runs, log, pattern, p) for p in d.policies]
            if any(r is None for r in group):
                continue
            dest = os.path.join(out, f"compare-{log}-{pattern}")
            try:
                compare([r.dir for r in group], dest)
                lines += [f"![{log} {pattern}](compare-{log}-{pattern}/policies.png)", ""]
            except Exception as e:  # noqa: BLE001 - a plot is optional; say why not
                lines += [f"No plot for {log} {pattern}: {type(e).__name__}: {e}", ""]
    return lines
