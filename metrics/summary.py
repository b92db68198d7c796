"""summary.md: a run's metrics and everything that qualifies them, in words."""

import math
import os

from metrics import eq7
from .jobs import fnum, LATE_LAUNCH_S
from .measures import METRIC_KEYS, policies


def fmt(v, digits=1):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, int):
        return str(v)
    return f"{v:,.{digits}f}"


def pace(manifest, short=False):
    """How a run's time was compressed: SPEEDUP=S (CLOCK=scaled), or the
    virtual clock's rate (CLOCK=virtual, where Slurm lives in log time).
    short: S (a number) or "virtual xR", for tables. A run of the twin
    (make simulate, engine "sim") had no clock: "simulated"."""
    if manifest.get("engine") == "sim":
        return "sim" if short else "simulated by the twin (tb-sim), not emulated"
    if manifest.get("clock") == "virtual":
        rate = f"x{fnum(manifest.get('clock_rate')):g}"
        return f"virtual {rate}" if short else f"virtual clock {rate}"
    return manifest["speedup"] if short else f"SPEEDUP={manifest['speedup']:g}"


def pace_label(manifest):
    p = pace(manifest, short=True)
    return p if isinstance(p, str) else f"S={p:g}"


def summary_md(manifest, m, plots, missing):
    out = [f"# Replay {manifest['run_id']}", "",
           f"{manifest['jobs']} jobs of `{manifest.get('log_file', manifest['log'])}` "
           f"(first {manifest['first']}) on `{manifest['cluster']}` "
           f"({manifest['cluster_nodes']} nodes) under `{manifest['policy']}`, "
           f"{pace(manifest)}, seed {manifest['seed']}. "
           "Times are in log time.", ""]
    if manifest.get("engine") == "sim":
        sim = manifest.get("sim", {})
        out += [f"**Simulated:** this run is the twin's (`make simulate`, tb-sim, "
                f"backfill `{sim.get('backfill', '?')}`, {sim.get('wall_s', '?')} s), "
                "not Slurm's: no daemons, no launch lag; the same plan, policy library "
                "and runtime models (docs/simulator.md).", ""]
    if m.get("prefill_jobs"):
        out += [f"**Prefill:** {m['prefill_jobs']} jobs from before the window filled "
                f"{manifest.get('prefill_nodes', '?')} nodes first (PREFILL="
                f"{manifest.get('prefill')}); they are in jobs.csv (prefill=1) and in no "
                "metric." + (f" {manifest['prefill_cancelled']} of them, still running when "
                             "the window's jobs had all ended, were cancelled then."
                             if manifest.get("prefill_cancelled") else ""), ""]
    if manifest.get("bf_window_min"):
        out += [f"**Backfill** planned {manifest['bf_window_min']} min ahead (BF_WINDOW; "
                "Slurm's default is 1440): a job whose planned start lay beyond that got "
                "no reservation.", ""]
    if manifest.get("runtime_factor") is not None:
        out += [f"**Runtimes** are the log's x {manifest['runtime_factor']:g} "
                "(RUNTIME_FACTOR).", ""]
    launch = manifest.get("launch")
    if launch and launch.get("jobs"):
        guard = (f"the launch guard slowed the clock {launch['slowdowns']} times for "
                 f"{launch['slow_wall_s']:g} wall s" if launch.get("guard")
                 else "the launch guard was off (LAUNCH_GUARD=0)")
        out += [f"**Launches:** {launch['jobs']} jobs' scripts began a median "
                f"{launch['lag_median_s']:g} s (at most {launch['lag_max_s']:g} s) of log "
                f"time after Slurm started them; {launch.get('late_jobs', 0)} ended later "
                f"than start + runtime because of it (by at most "
                f"{launch.get('late_max_s', 0):g} s; launch.tsv); {guard}"
                + (f"; {len(launch['lost_launches'])} jobs Slurm started never began "
                   f"their script and were no longer waited for (Slurm ids "
                   f"{', '.join(str(j) for j in launch['lost_launches'][:10])})"
                   if launch.get("lost_launches") else "") + ".", ""]
    out += end_guard_lines(manifest.get("end_guard"))
    if m.get("aph_topology") == "regenerated":
        out += ["**APH** is measured on the topology of "
                f"`{manifest['cluster']}` as generated at report time: this run "
                "predates runs keeping their own `topology.json`.", ""]
    if m.get("isolation_violations") is not None:
        out += [(f"**Isolation:** every pair of jobs that ran at the same time "
                 "kept the SC18 invariants (tb-isolation)." if not m["isolation_violations"] else
                 f"**Isolation broken:** {m['isolation_violations']} violations of the "
                 "SC18 invariants (isolation.txt)."), ""]
    if m.get("reservations") is not None:
        out += [f"**Reservations:** {m['reservations']} jobs were the first blocked on "
                f"resources (Slurm's reserved job) with a planned start; "
                f"{m['reservation_delays']} of them started more than "
                f"{m['reservation_tolerance_s'] / 3600:.2g} h after their first planned start "
                "while a job later in the log started before them (backfill may have taken "
                f"their nodes; mean delay {m['reservation_delay_mean_s'] / 3600:.2f} h).", ""]
    if m.get("damaged"):
        again = (" Every job a fault hit was run again (below)."
                 if m.get("rerun_jobs") and not m["fault_jobs"] else "")
        out += [f"**Damaged:** {m['fault_events']} service deaths during the run "
                f"(faults.jsonl); {m['fault_jobs']} jobs hit by a fault (NODE_FAIL, "
                "requeued, TIMEOUT, cancelled when their front end died, or launched "
                f"more than {LATE_LAUNCH_S:g} s after their own end: `late_launch`, "
                f"{m.get('late_launch_jobs', 0)} of them; or ended by Slurm before "
                "their script began, at a front end's registration: `not_launched`, "
                f"{m.get('not_launched_jobs', 0)} of them; the `fault` "
                "column of jobs.csv) are left out of every metric below." + again, ""]
        if m.get("requeued_jobs") and not m["fault_events"]:
            out += [f"**Requeued without a fault:** Slurm requeued {m['requeued_jobs']} "
                    "jobs although no service died: their launch was not answered in "
                    "time (an overloaded host, or a burst of starts at a high clock "
                    "rate), and a requeued job waits `cred_expire` before it may start "
                    "again. Replay at a lower SPEEDUP or with fewer replays at once.", ""]
    if m.get("rerun_jobs"):
        out += [f"**Rerun:** {m['rerun_jobs']} jobs hit by a fault were run again "
                "(`make replay RESUME=<id> RERUN_FAULTED=1`); each counts by its rerun "
                "(`rerun_of` in jobs.csv names the faulted job it replaces, whose record "
                "stays in sacct.json). A rerun became eligible when it was submitted, "
                "after its log time; its wait starts then, and the time between the "
                "fault and the rerun counts in makespan and utilization.", ""]
    if m.get("unrecorded_jobs"):
        out += [f"**Invalid:** {m['unrecorded_jobs']} jobs have no record of the "
                "plugin in their AdminComment: their nodes were not chosen by "
                f"`{manifest['policy']}` (was topology/commtree running with its "
                "topology?). Do not compare this run.", ""]
    if m.get("foreign_policy_jobs"):
        named = ", ".join(f"{n} by `{p}`" for p, n in sorted(m["foreign_policy_jobs"].items()))
        out += [f"**Invalid:** jobs placed by another policy than the run's "
                f"`{manifest['policy']}`: {named} (the controller's policy changed during "
                "the run?). Do not compare this run.", ""]
    if m.get("fallback_jobs"):
        out += [f"**Fallbacks:** {m['fallback_jobs']} jobs got topology/tree's nodes "
                "instead of the policy's (`fallback=` in jobs.csv and AdminComment).", ""]
    if m.get("resumed"):
        if m.get("pauses") is None:
            out += ["**Resumed:** the replay was stopped and resumed (RESUME); its "
                    "manifest predates the recording of pauses, so their length and the "
                    "jobs they made late are unknown. Jobs due during a pause became "
                    "eligible at the resume, and the pause counts in makespan and "
                    "utilization.", ""]
        else:
            late = m["jobs_late"] or 0
            out += [f"**Resumed:** the replay was stopped {m['pauses']} time(s) for "
                    f"{fmt(m['paused_log_s'])} s of log time in all "
                    f"({fmt(manifest.get('paused_s'))} s of wall time; manifest.json "
                    "lists the pauses). " +
                    (f"{late} jobs due during a pause became eligible late, together at "
                     "the resume; their waits start then, and the pause counts in "
                     "makespan and utilization." if late else
                     "No job was due during a pause; the pause still counts in makespan "
                     "and utilization if it left the cluster idle."), ""]
    if missing:
        out += [f"**Incomplete:** {len(missing)} jobs of the window are missing from "
                f"sacct.json: {', '.join(missing[:20])}{' ...' if len(missing) > 20 else ''}",
                ""]
    out += ["| metric | all | communication-intensive | compute |", "|---|---|---|---|"]
    for k in METRIC_KEYS:
        digits = 3 if k in ("utilization", "stretch_mean", "aph_mean") else 1
        out.append(f"| {k} | {fmt(m[k], digits)} | {fmt(m['comm'][k], digits)} | "
                   f"{fmt(m['compute'][k], digits)} |")
    ir = m["individual_runs_improvement_percent"]
    out += ["", "Individual runs (the study's Table 4): % less execution time than "
            "the log's runtimes (the record's Eq. 7 denominator) had each job been "
            "placed by each policy on the same cluster state.",
            "", "| jobs | " + " | ".join(policies()) + " |", "|---|" + "---|" * len(policies())]
    for subset in ("all", "comm"):
        out.append(f"| {subset} | " + " | ".join(fmt(ir[subset][p], 2) for p in policies()) + " |")
    for subset, left in m.get("individual_runs_left_out", {}).items():
        out += ["", f"{subset} jobs: " + eq7.left_out_text(left)]
    if m.get("runtime_fallback_jobs"):
        ids = [str(i) for i in m.get("runtime_fallback_ids", [])]
        out += ["", f"**{m['runtime_fallback_jobs']} jobs ran their log runtime** for "
                "lack of a cost (`runtime_fallback` in jobs.csv): the plugin could not "
                f"apply the runtime model to them ({', '.join(ids[:20])}"
                f"{' ...' if len(ids) > 20 else ''})."]
    out += [""] + [f"![{os.path.basename(p)}]({p})" for p in plots] + [""]
    return "\n".join(out)


def end_guard_lines(guard):
    """summary.md's paragraph on the end guard (workloads/endguard.py):
    what it did and the ends' lag it left; none for a run without it."""
    if not guard or not guard.get("rate") or "windows" not in guard:
        return []
    if not guard.get("enabled") and not guard.get("windows"):
        return [f"**Ends:** the end guard (END_GUARD={fnum(guard['rate']):g}) was off: "
                f"{guard.get('off_because') or 'see replay.log'}.", ""]
    text = (f"**Ends:** the end guard slowed the clock to rate {fnum(guard['rate']):g} from "
            f"{fnum(guard.get('lead_s')):g} log s before each job's modelled end until "
            f"slurmctld had recorded it: {guard['windows']} windows, "
            f"{guard['slow_wall_s']:g} wall s")
    if guard.get("late_windows"):
        text += f" ({guard['late_windows']} slowed only after their first end)"
    if guard.get("given_up"):
        text += f"; {guard['given_up']} ends were never recorded and were given up"
    if guard.get("ends"):
        text += (f". The {guard['ends']} recorded ends came a median "
                 f"{fnum(guard['lag_median_s']):g} log s (at most "
                 f"{fnum(guard['lag_max_s']):g}) after the modelled end, in all "
                 f"{fnum(guard.get('lag_percent_of_runtimes')):g} % of their runtimes")
    if guard.get("off_because"):
        text += f"; it turned itself off: {guard['off_because']}"
    return [text + ".", ""]
