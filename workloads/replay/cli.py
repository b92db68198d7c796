"""`make replay`'s command line (python3 -m workloads.replay): the
arguments, their checks and the run from plan to sacct.json.
"""

import argparse
import datetime
import json
import math
import os
import re
import shutil
import signal
import sys

from workloads import bf_window, endguard, faults, logs, ta_speedup, vclock
from .cluster import (cluster_bf_window, cluster_options, cluster_facts, current_cluster,
                      keep_topology, topology_sha256)
from .driver import run
from .errors import ReplayError
from .manifest import run_manifest
from .matrix import file_matrix
from .plan import make_plan, PATTERNS, place_occupying
from .resume import mark_stopped, stopped_at
from .run_dir import log_line, new_run_id, resume_hint, write_manifest, write_plan
from .slurm_io import collect, controller, ctl
from .. import params
from ..registry import RegistryError, build_dir, policy_names


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line naming the make variable, not a usage."""

    def error(self, message):
        m = re.fullmatch(r"argument --([\w-]+): invalid (float|int) value: '(.*)'",
                         message)
        if m:
            name = m.group(1).replace("-", "_").upper()
            what = "a number" if m.group(2) == "float" else "a whole number"
            raise ReplayError(f"{name}={m.group(3)}: expected {what}")
        m = re.fullmatch(r"argument --([\w-]+): invalid choice: '(.*)' \(choose from (.*)\)",
                         message)
        if m:
            name = m.group(1).replace("-", "_").upper()
            choices = m.group(3).replace("'", "").replace(", ", " or ")
            raise ReplayError(f"{name}={m.group(2)}: expected {choices}")
        raise ReplayError(message)


def parse_args(argv, extra=None, description="Replay a job log on the running cluster."):
    """The replay's arguments, checked; extra(parser), if given, adds a
    caller's own (make simulate's)."""
    ap = _Parser(description=description)
    # Every make variable the replay takes, its default, type, choices and
    # help: workloads/params.tsv, declared once.
    params.add_arguments(ap, params.replay_params())
    # The driver's own settings (scripts/lib/replay.bash passes them).
    ap.add_argument("--check", action="store_true",
                    help="check the settings (and a RESUME's run) and print the "
                         "resolved policy, clock and rate as key=value lines; run nothing")
    ap.add_argument("--report-every", type=float,
                    default=5.0 if sys.stdout.isatty() else 30.0)
    ap.add_argument("--workloads-dir", default=os.environ.get("WORKLOADS_DIR", ""))
    ap.add_argument("--results", default="results")
    ap.add_argument("--root", default=".")
    ap.add_argument("--state-dir", default=os.environ.get("TESTBED_STATE_DIR", ".state"),
                    help="the testbed's state directory (the clock page's)")
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    args.auto_recover = args.auto_recover == "1"
    args.rerun_faulted = args.rerun_faulted == "1"
    args.strict = args.strict == "1"
    args.idle_jumps = int(args.idle_jumps)
    args.event_jumps = int(args.event_jumps)
    args.launch_guard = int(args.launch_guard)
    if args.rerun_faulted and not args.resume:
        raise ReplayError("RERUN_FAULTED=1 needs RESUME=<run-id>: the run whose jobs "
                          "a fault hit")
    try:
        policies = policy_names(args.root)
    except RegistryError as e:
        raise ReplayError(str(e)) from None
    if args.policy not in policies:
        raise ReplayError(f"unknown POLICY '{args.policy}'; valid: {' '.join(policies)}")
    if args.pattern not in PATTERNS + ["mix"]:
        raise ReplayError(f"unknown PATTERN '{args.pattern}'; valid: "
                          f"{' '.join(PATTERNS)} mix")
    if args.speedup is None:
        args.speedup = vclock.default_speedup(args.clock)
    # The clock page's rate field: above 1e6 the virtual clock's pacing
    # loses its precision (docs/vclock.md).
    if args.clock == "virtual" and not 0 < args.speedup <= 1e6:
        raise ReplayError(f"SPEEDUP={args.speedup:g}: expected the virtual clock's rate, "
                          "a number above 0 and at most 1000000")
    if args.speedup <= 0 or args.jobs < 1 or args.first < 0:
        raise ReplayError("SPEEDUP must be > 0, JOBS >= 1, FIRST >= 0")
    for name, value in (("END_GUARD", args.end_guard), ("END_LEAD", args.end_lead)):
        if not (math.isfinite(value) and value >= 0):
            raise ReplayError(f"{name}={value:g}: expected a number, at least 0 "
                              "(END_GUARD=0: no end guard)")
    guard_misfit = endguard.misfit(args.end_guard, args.clock, args.speedup)
    if guard_misfit:
        raise ReplayError(guard_misfit)
    try:
        args.bf_window = bf_window.check(args.bf_window)
    except ValueError as e:
        raise ReplayError(str(e)) from None
    if args.limit_grid <= 0:
        raise ReplayError(f"LIMIT_GRID={args.limit_grid:g}: expected log seconds > 0")
    if not 0 <= args.comm <= 1 or (args.ratio is not None and not 0 <= args.ratio <= 1):
        raise ReplayError("COMM and RATIO must be between 0 and 1")
    if args.sparsity is not None and not 0 <= args.sparsity < 1:
        raise ReplayError(f"SPARSITY={args.sparsity:g}: expected the share of node "
                          "pairs that do not communicate, at least 0 and below 1")
    if args.matrix is not None:
        if args.sparsity is not None:
            raise ReplayError("MATRIX and SPARSITY both give jobs their matrices; set one")
        args.matrix = os.path.abspath(args.matrix)
        file_matrix(args.matrix)
    if args.runtime_factor is not None and not (math.isfinite(args.runtime_factor)
                                                and args.runtime_factor > 0):
        raise ReplayError(f"RUNTIME_FACTOR={args.runtime_factor:g}: expected a number above 0 "
                          "(0.5 halves every job's runtime)")
    if args.prefill is not None and not 0 < args.prefill <= 1:
        raise ReplayError(f"PREFILL={args.prefill:g}: expected the share of the cluster's nodes "
                          "the jobs before the window fill first, above 0 and at most 1")
    if args.individual is not None:
        if args.individual < 1:
            raise ReplayError(f"INDIVIDUAL={args.individual}: expected the number of "
                              "jobs to run one at a time, at least 1")
        if args.prefill is not None:
            raise ReplayError("INDIVIDUAL and PREFILL both fill the cluster first; "
                              "set one (OCCUPY= is INDIVIDUAL's share)")
        if args.occupy is None:
            args.occupy = 0.5
        if not 0 <= args.occupy < 1:
            raise ReplayError(f"OCCUPY={args.occupy:g}: expected the share of the nodes "
                              "occupied before the individual runs, at least 0 and below 1")
    elif args.occupy is not None:
        raise ReplayError("OCCUPY is the share INDIVIDUAL= runs occupy first; "
                          "set INDIVIDUAL=<jobs> too")
    if args.ta_speedup is not None and args.ta_speedup not in ta_speedup.SCENARIOS:
        raise ReplayError(f"TA_SPEEDUP={args.ta_speedup}: expected one of "
                          f"{', '.join(ta_speedup.SCENARIOS)}")
    return args


def resumed_run(args, results):
    """(run directory, manifest) of RESUME's run, checked: it exists, is
    not complete (unless RERUN_FAULTED), and ran on the cluster that is up
    with the same topology."""
    run_dir = os.path.join(results, args.resume)
    if not os.path.exists(os.path.join(run_dir, "manifest.json")):
        runs = sorted(os.listdir(results)) if os.path.isdir(results) else []
        raise ReplayError(f"RESUME={args.resume}: no such run; runs: "
                          f"{' '.join(runs[-10:]) or 'none'}")
    with open(os.path.join(run_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("finished") and not args.rerun_faulted:
        raise ReplayError(f"run {args.resume} is already complete (RERUN_FAULTED=1 "
                          "runs its jobs a fault hit again)")
    cluster = current_cluster(args.root)
    if not cluster:
        raise ReplayError(f"RESUME={args.resume}: no cluster is up; run 'make up "
                          f"CLUSTER={manifest['cluster']}' first")
    if cluster != manifest["cluster"]:
        raise ReplayError(f"RESUME={args.resume} ran on cluster "
                          f"'{manifest['cluster']}', but '{cluster}' is up; "
                          f"make down, then make up CLUSTER={manifest['cluster']}")
    # The same name with another tree (a changed machine definition
    # or generator): the resumed jobs would run on another machine.
    sha = topology_sha256(args.root, cluster)
    if manifest.get("topology_sha256") and sha != manifest["topology_sha256"]:
        raise ReplayError(f"RESUME={args.resume} ran on another topology of "
                          f"'{cluster}' (sha256 {manifest['topology_sha256'][:12]}, "
                          f"now {(sha or 'none')[:12]}); the run's own is its "
                          "topology.json")
    return run_dir, manifest


def check(args, results):
    """--check: the settings as the run would take them, before the shell
    driver switches the policy (a bad value must change nothing): the
    policy, the clock and its rate, the end guard's JobCompLoc (empty
    when it is off: generate.py's --jobcomp-loc) and backfill's window
    (BF_WINDOW, empty: Slurm's default), as key=value lines; a RESUME's
    from its manifest."""
    window = args.bf_window
    if args.resume:
        _, manifest = resumed_run(args, results)
        policy, clock = manifest["policy"], manifest.get("clock", "scaled")
        rate = manifest.get("clock_rate", 1) if clock == "virtual" else 1
        guard_rate = endguard.settings(manifest, args.end_lead)["rate"]
        window = resumed_bf_window(args, manifest)
    else:
        if not args.log:
            raise ReplayError(f"LOG is not set; valid: "
                              f"{' '.join(sorted(logs.NAMED_LOGS))}, or a path")
        logs.resolve(args.log, args.workloads_dir)
        policy, clock = args.policy, args.clock
        rate = args.speedup if clock == "virtual" else 1
        guard_rate = args.end_guard
    on = clock == "virtual" and endguard.active(guard_rate, rate)
    print(f"policy={policy}\nclock={clock}\nrate={rate:g}\n"
          f"jobcomp={endguard.CONTAINER_FILE if on else ''}\n"
          f"bf_window={'' if window is None else window}")
    return 0


def resumed_bf_window(args, manifest):
    """A RESUME's window, the one it began with (its manifest's); another
    BF_WINDOW is refused: half a run under each would be neither's."""
    window = manifest.get("bf_window_min")
    if args.bf_window is not None and args.bf_window != window:
        raise ReplayError(f"BF_WINDOW={args.bf_window}: RESUME={args.resume} began with "
                          f"{bf_window.text(manifest)}; drop BF_WINDOW")
    return window


def run_bf_window(args):
    """A new run's window: the one make up wrote into the running
    cluster's slurm.conf (cluster.env's BF_WINDOW), which make replay sets
    from BF_WINDOW; a BF_WINDOW the cluster does not run is refused."""
    window = cluster_bf_window(args.root)
    if args.bf_window is not None and args.bf_window != window:
        raise ReplayError(f"BF_WINDOW={args.bf_window}: the cluster runs "
                          f"{bf_window.text({'bf_window_min': window})}; run the replay "
                          "through make replay, which applies BF_WINDOW first")
    return window


def slurm_engine(container, clock):
    """The manifest's engine fields for a run on Slurm (manifest.py): its
    version, and the run's origin t0 on the clock, five paces ahead so that
    the first submission is not late."""
    return {"slurm_version": ctl(container, "sinfo --version").strip(),
            "t0": clock.now() + 5 * clock.pace}


def write_run_id(path, run_id):
    """RUN_ID_FILE: the new run's id, written whole (make experiment waits
    for it rather than reading the replay's output)."""
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(run_id + "\n")
    os.replace(path + ".tmp", path)


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    # A shell may start us with SIGINT ignored (background jobs); both
    # signals must end the run cleanly so that RESUME can continue it.
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)
    run_dir = None
    state_dir = ""
    try:
        args = parse_args(argv)
        state_dir = args.state_dir
        results = os.path.join(args.root, args.results)
        if args.check:
            return check(args, results)
        if args.resume:
            run_dir, manifest = resumed_run(args, results)
            stopped = stopped_at(manifest, run_dir)
            if not manifest.get("stopped_at") and not manifest.get("finished"):
                # Kept, so that a RESUME failing before it submits (no
                # controller) neither loses nor shortens the pause.
                manifest["stopped_at"], manifest["stopped_estimated"] = stopped
                write_manifest(run_dir, manifest)
            log_line(run_dir, "resumed")
        else:
            if not args.log:
                raise ReplayError(f"LOG is not set; valid: "
                                  f"{' '.join(sorted(logs.NAMED_LOGS))}, or a path")
            path, log_name = logs.resolve(args.log, args.workloads_dir)
            log = logs.read(path)
            cluster, cluster_nodes, node_cores = cluster_facts(args.root)
            window = run_bf_window(args)
            clock = vclock.Clock(args.clock, args.speedup, vclock.page_path(state_dir))
            plan, too_big = make_plan(args, log, log_name, cluster_nodes, clock.speedup,
                                      node_cores)
            prefill = [p for p in plan if p["prefill"]]
            run_id = new_run_id(results, log_name or "log", args.policy)
            os.makedirs(results, exist_ok=True)
            run_dir = os.path.join(results, run_id)
            os.mkdir(run_dir)
            write_plan(os.path.join(run_dir, "plan.tsv"), plan)
            try:
                topology_sha = keep_topology(args.root, cluster, run_dir)
                if args.individual:
                    place_occupying(plan, os.path.join(run_dir, "topology.json"),
                                    os.path.join(build_dir(args.root), "tb-alloc"))
                    write_plan(os.path.join(run_dir, "plan.tsv"), plan)
                container = controller()
            except ReplayError:
                shutil.rmtree(run_dir, ignore_errors=True)
                raise
            manifest = run_manifest(args, {
                "run_id": run_id, "cluster": cluster, "cluster_nodes": cluster_nodes,
                "path": path, "log_name": log_name, "log": log, "plan": plan,
                "too_big": too_big, "speedup": clock.speedup, "clock": clock.kind,
                "clock_rate": clock.rate, "options": cluster_options(args.root),
                "bf_window_min": window, "topology_sha256": topology_sha},
                lambda: slurm_engine(container, clock))
            # The end guard's settings, kept for a RESUME (the driver adds
            # what it did at the end).
            # Rate 0: no guard (the scaled clock, or END_GUARD=0 or at
            # least the run's rate).
            guarded = clock.kind == "virtual" and endguard.active(args.end_guard, clock.rate)
            manifest["end_guard"] = endguard.new_run(
                args.end_guard if guarded else 0.0, args.end_lead,
                os.path.join(os.path.dirname(clock.page), endguard.FILE_NAME))
            write_manifest(run_dir, manifest)
            if args.run_id_file:
                write_run_id(args.run_id_file, run_id)
            log_line(run_dir, f"plan: {len(plan) - len(prefill)} jobs, "
                     f"{len(prefill)} prefill jobs, {len(too_big)} too big, "
                     f"{log.skipped_no_runtime} without runtime")
            print(f"replay {run_id}: {len(plan)} jobs of {path} on {cluster} "
                  f"under {args.policy} " + (
                      f"on the virtual clock at rate {clock.rate:g}"
                      if clock.kind == "virtual" else f"at SPEEDUP={args.speedup:g}"))
        container, submitted, reruns = run(args, run_dir, manifest,
                                           stopped if args.resume else None)
        if submitted is None:
            return 0            # RERUN_FAULTED on a finished run: none to run again
        missing = collect(container, run_dir, manifest, submitted, reruns=reruns)
        manifest["wall_end"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
        manifest["finished"] = not missing
        if missing:
            manifest["missing_from_sacct"] = missing
        write_manifest(run_dir, manifest)
        log_line(run_dir, "finished" + (f", {len(missing)} jobs missing from sacct"
                                         if missing else ""))
        print(f"results in {shown(run_dir, args.root)}/")
        if missing:
            ids = ",".join(str(j) for j in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            print(f"error: {len(missing)} submitted jobs are not in Slurm's accounting "
                  f"(Slurm ids {ids}{more}; manifest: missing_from_sacct)"
                  + ("; slurmctld died during the run, and a crash loses the jobs it "
                     "accepted in its last 5 s (README, Faults)"
                     if any(d.get("service") == "slurmctld"
                            for d in faults.deaths(run_dir)) else ""),
                  file=sys.stderr)
        return 0 if not missing else 1
    except (ReplayError, logs.LogError, vclock.ClockError) as e:
        mark_stopped(run_dir, state_dir)
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        mark_stopped(run_dir, state_dir)
        print(f"error: {os_error(e, run_dir)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        mark_stopped(run_dir, state_dir)
        print(f"\ninterrupted; continue with {resume_hint(run_dir)}", file=sys.stderr)
        return 130


def shown(path, root):
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def os_error(e, run_dir):
    """One line for a failed write (a full disk, say). Before the manifest
    exists nothing was submitted, and the run directory goes; after, it
    stays, and RESUME continues the run: submitted jobs keep running, and
    those missing from submitted.tsv are found in Slurm by name."""
    where = e.filename or run_dir or "results"
    text = f"{where}: {e.strerror or e}"
    if not run_dir:
        return text
    if not os.path.exists(os.path.join(run_dir, "manifest.json")):
        shutil.rmtree(run_dir, ignore_errors=True)
        return f"{text}; nothing was submitted"
    return (f"{text}; jobs already submitted keep running: "
            f"make room, then {resume_hint(run_dir)}")
