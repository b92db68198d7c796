"""The replay loop: submits each job a little ahead of its time, watches
the services and the queue (launch guard, reservations, progress) and ends
when every job of the plan has ended.
"""

import math
import os
import re
import time

from workloads import endguard, health, launch, vclock
from .cluster import cluster_dir
from .errors import ReplayError
from .events import EventJumps, look
from .pacing import (due_soon, idle_jump, jumper, LOOK_EVERY, rate_setter, RateArbiter,
                     run_clock, SUBMIT_CHUNK, time_left)
from .progress import fmt_time, held_note, progress
from .reruns import faulted, note_reruns, submit_reruns
from .resume import reconcile, record_pause
from .run_dir import log_line, read_plan, read_reruns, read_submitted, write_manifest
from .slurm_io import (controller, ctl, install_batch_script, job_fields, queue_state,
                       Shell, SubmitterPool, SUBMITTERS)


def note_reservation(path, order, queued, now, last):
    """Appends to reservations.tsv (Slurm time, log id, planned start)
    when the first job blocked on resources (EASY's reserved job: the
    highest priority, i.e. earliest in the log, with reason Resources) or
    its planned start changes; returns what it noted. make report counts
    the reservations that a later job's start delayed (issue: the plugin
    cannot tell backfill which leaves the reserved job needs). The start
    is squeue's StartTime, backfill's estimate: one more than bf_window
    ahead is shown but not protected (metrics/overruns.py)."""
    blocked = [(order[k], k, q[3]) for k, q in queued.items()
               if q[0] == "PENDING" and q[3] is not None and k in order]
    top = min(blocked)[1:] if blocked else None
    if top and top != last:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{now:.3f}\t{top[0]}\t{top[1]}\n")
    return top or last


def end_prefill(container, run_dir, manifest, queued, prefill_of):
    """Once no job of the window is in the queue, cancels the first set's
    jobs still there (PREFILL): they are in no metric, and the longest of
    them (12 log hours on curie) would set the replay's length. Returns
    whether that time has come; the manifest records how many."""
    if any(k not in prefill_of for k in queued):
        return False
    ids = [q[4] for k, q in queued.items() if q[4]]
    if ids:
        try:
            ctl(container, "scancel " + " ".join(ids))
        except ReplayError as e:
            log_line(run_dir, f"could not cancel the first set's jobs: {e}")
            return False
        log_line(run_dir, f"the window's jobs have ended: {len(ids)} jobs of the first "
                 "set cancelled (in no metric)")
    manifest["prefill_cancelled"] = len(ids)
    write_manifest(run_dir, manifest)
    return True


def run(args, run_dir, manifest, stopped=None):
    container = controller()
    clock = run_clock(manifest, args.state_dir)
    if clock.kind == "virtual":
        # From here on Slurm lives at the run's rate; back to 1 on the
        # way out, whatever ends the run (a kill -9 leaves it: make up
        # and RESUME set it again).
        ctl(container, vclock.set_rate_command(clock.rate))
    elif clock.page and os.path.exists(clock.page):
        # CLOCK=scaled runs Slurm's clock at rate 1 (an interrupted
        # virtual replay killed with -9 may have left another rate).
        ctl(container, vclock.set_rate_command(1))
    # The guards' threads, stopped (again: stop() is idempotent) before
    # the final rate 1 whatever ended the run, so that none writes a rate
    # after it.
    guards = []
    try:
        return run_at_rate(args, run_dir, manifest, stopped, container, clock, guards)
    finally:
        for g in guards:
            try:
                g.stop()
            except Exception as e:  # a dead container: rate 1 below may fail too
                log_line(run_dir, f"could not stop a guard: {e}")
        if clock.kind == "virtual":
            try:
                ctl(container, vclock.set_rate_command(1))
            except ReplayError as e:
                log_line(run_dir, f"could not set the clock back to rate 1: {e}")


def run_at_rate(args, run_dir, manifest, stopped, container, clock, guards=None):
    """The replay at the clock's rate; `guards` receives the guards whose
    threads may write the rate (run() stops them before rate 1)."""
    guards = [] if guards is None else guards
    plan = read_plan(os.path.join(run_dir, "plan.tsv"))
    sub_path = os.path.join(run_dir, "submitted.tsv")
    rerun_path = os.path.join(run_dir, "rerun.tsv")
    submitted = read_submitted(sub_path, plan)
    reruns = read_reruns(rerun_path, plan)
    known = len(reruns)
    added = reconcile(container, manifest["run_id"], submitted, sub_path, reruns, rerun_path)
    if added:
        log_line(run_dir, f"resume: {added} jobs found in Slurm, not submitted again")
    if len(reruns) > known:
        note_reruns(manifest, plan, reruns, submitted=submitted)
        write_manifest(run_dir, manifest)
    again = []
    if getattr(args, "rerun_faulted", False):
        again = faulted(container, run_dir, manifest, submitted, reruns)
        if not again:
            progress(f"replay {manifest['run_id']}: no job of the run that has ended was "
                     "hit by a fault; none to run again", final=True)
            if manifest.get("finished"):
                return container, None, reruns
    if stopped is not None:
        late = record_pause(run_dir, manifest, plan, submitted, stopped, clock.now(),
                            [log_id for log_id, _, _, _ in again])
        if late:
            progress(f"replay {manifest['run_id']}: resumed; {len(late)} jobs whose time "
                     "passed during the pause become eligible now (recorded in the "
                     "manifest)", final=True)
    if again and manifest.get("finished"):
        # Not complete until its reruns are: a plain RESUME continues it.
        manifest["finished"] = False
        write_manifest(run_dir, manifest)
    install_batch_script(container)
    t0 = manifest["t0"]
    speedup = manifest["speedup"]
    run_id = manifest["run_id"]
    span = max(p["offset"] for p in plan) / speedup
    nodes = manifest["cluster_nodes"]
    # Lead and the loop's sleeps are wall time; begin times are Slurm's.
    lead = args.lead * clock.pace
    page = vclock.CONTAINER_PAGE if clock.kind == "virtual" else None
    last_jump_check = 0.0
    # The reserved job is sampled once a wall second (reservations.tsv).
    last_sample, reserved = 0.0, None
    order = {p["log_id"]: k for k, p in enumerate(plan)}
    res_path = os.path.join(run_dir, "reservations.tsv")
    submitters = SubmitterPool(container, SUBMITTERS, run_dir)
    watch = health.HealthWatch(
        os.environ.get("TESTBED_PROJECT", "testbed"),
        cluster_dir(args.root, manifest["cluster"]),
        run_dir, args.auto_recover,
        say=lambda text: progress(f"replay {run_id}: {text}", final=True),
        log=lambda text: log_line(run_dir, text), slurm_now=clock.now)
    # The launch guard (launch.py) looks at the queue LOOK_EVERY wall s,
    # through a shell kept open in the controller's container.
    guard, last_guard, shell, ends = None, 0.0, None, None
    # The job's sleep in Slurm's time (job_fields' runtime over SPEEDUP).
    runtime_of = {p["log_id"]: p["runtime"] * (1 - p.get("ta_reduction", 0.0)) / speedup
                  for p in plan}
    if clock.kind == "virtual":
        # Both guards slow the clock; it runs at the lowest rate either asks.
        rates = RateArbiter(clock.rate, rate_setter(container, clock))
        guard = launch.LaunchGuard(
            os.path.join(os.path.dirname(clock.page), launch.file_name(run_id)),
            clock.rate, rates.setter("launch"),
            lambda text: log_line(run_dir, text), enabled=args.launch_guard == 1)
        ends = end_guard(args, manifest, run_dir, clock, rates)
        guards += [ends, guard]
        # Threads that plan wall-time sleeps at the page's rate look again
        # when it changes.
        rates.on_change = lambda: (ends.poke(), guard.poke())
        shell = Shell(container)
    events = None
    if clock.kind == "virtual" and args.idle_jumps and args.event_jumps:
        events = event_jumps(plan, t0, speedup, clock, runtime_of, guard.runtimes)
        jump_to = jumper(container, clock)

        def jump(target):
            jump_to(target)
            ends.poke()     # their next instants are nearer in wall time
            guard.poke()
    # Event jumps submit ahead of a jump's target, not only of now.
    horizon = 0.0
    # PREFILL's first set is in no metric: once the window's jobs have all
    # ended, the first set's jobs still running are cancelled (end_prefill).
    prefill_of = {p["log_id"] for p in plan if p.get("prefill")}
    cancelled_prefill = False
    last_report = 0.0
    i = 0
    try:
        if guard is not None:
            # Inside the try: whatever fails from here, the finally stops
            # the threads before the run's final rate 1.
            ends.start()
            guard.watch(sorted(t0 + p["offset"] / speedup for p in plan
                               if p["log_id"] not in submitted and not p.get("chain")),
                        clock.now_and_rate)
        if again:
            submit_reruns(submitters, again, plan, manifest, run_dir, reruns, page)
        with open(sub_path, "a", encoding="utf-8") as out:
            if any(p.get("chain") or "@" in p.get("placement", "") for p in plan):
                submit_individual(submitters, plan, submitted, out, manifest, page)
            while True:
                now = clock.now()
                due = []
                # A dead service pauses submissions until it is back
                # (AUTO_RECOVER=1 brings it back at once).
                if not watch.check(time.time()):
                    time.sleep(1.0)
                    continue
                # At most SUBMIT_CHUNK jobs at a time: submitting takes wall
                # seconds (25 s for 409 jobs under load), and the launch
                # guard looks at the queue between two chunks.
                while (i < len(plan) and len(due) < SUBMIT_CHUNK
                       and t0 + plan[i]["offset"] / speedup <= max(now, horizon) + lead):
                    p = plan[i]
                    if p["log_id"] not in submitted:
                        due.append((i, p))
                    i += 1
                for p, jid in submitters.submit_all(
                        [job_fields(run_id, idx, p, t0, speedup, manifest["seed"], page)
                         for idx, p in due],
                        [p for _, p in due]):
                    submitted[p["log_id"]] = jid
                    out.write(f"{p['log_id']} {jid}\n")
                    out.flush()
                    os.fsync(out.fileno())
                # Once everything is submitted the queue is read every second
                # to notice the end, but the line is still printed at the
                # reporting interval: a log of hours stays readable.
                # Idle jumps: at most one queue check a wall second.
                if (clock.kind == "virtual" and args.idle_jumps and events is None
                        and time.monotonic() - last_jump_check >= 1.0):
                    last_jump_check = time.monotonic()
                    if idle_jump(container, clock, plan, i, t0, now, run_dir, manifest):
                        ends.poke()
                        guard.poke()
                        write_manifest(run_dir, manifest)
                        continue
                report = now - last_report >= args.report_every * clock.pace
                if report:
                    # A heartbeat: a killed driver's pause starts about here
                    # (in Slurm's time: the mtime is set to the cluster's
                    # clock, virtual or not).
                    heartbeat = os.path.join(run_dir, "replay.log")
                    os.utime(heartbeat, (now, now))
                sample = time.monotonic() - last_sample >= 1.0
                guard_due = (guard is not None
                             and time.monotonic() - last_guard >= LOOK_EVERY)
                if events is not None or report or i >= len(plan) or sample or guard_due:
                    if events is not None:
                        queued, backfill, idle = look(shell, run_id)
                    else:
                        queued = queue_state(container, run_id, shell)
                    if queued is None:
                        if report:
                            progress(f"replay {run_id}: the controller does not answer; waiting")
                            last_report = now
                        time.sleep(1.0)
                        continue
                    if sample:
                        last_sample = time.monotonic()
                        reserved = note_reservation(res_path, order, queued, now, reserved)
                    if guard_due:
                        last_guard = time.monotonic()
                        # now is from before the submissions: seconds old
                        fresh = clock.now()
                        guard.update([(q[4], q[1], runtime_of.get(k))
                                      for k, q in queued.items() if q[0] == "RUNNING"],
                                     last_guard, due_soon(plan, t0, speedup, fresh,
                                                          guard.ahead(), queued, submitted),
                                     fresh)
                    if i >= len(plan) and prefill_of and not cancelled_prefill:
                        cancelled_prefill = end_prefill(container, run_dir, manifest,
                                                        queued, prefill_of)
                    pending = sum(1 for st, *_ in queued.values() if st == "PENDING")
                    running = len(queued) - pending
                    finished = i >= len(plan) and pending == 0 and running == 0
                    if report and not finished:
                        done = len(submitted) - pending - running
                        log_clock = max(0.0, (now - t0) * speedup)
                        left = clock.wall(max(t0 + span - now, time_left(
                            plan, submitted, queued, now, speedup, nodes)))
                        progress(f"replay {run_id}: submitted {len(submitted)}/{len(plan)}, "
                                 f"running {running}, done {done}, "
                                 f"log clock {fmt_time(log_clock)}, "
                                 f"{'' if i < len(plan) else 'draining, '}"
                                 f"at least {fmt_time(left)} left"
                                 f"{held_note(queued)}")
                        last_report = now
                        if events is not None:
                            log_line(run_dir, f"event jumps so far: {events.summary()}")
                    if finished:
                        break
                    # No jump while a guard holds the clock slow (an end
                    # guard's window is one unrecorded end: EventJumps
                    # holds for it anyway, "ending" or "event near").
                    if (events is not None and guard.slow_since is None
                            and not ends.slowed()):
                        target = event_jump(events, jump, guard, queued, backfill, idle,
                                            plan, i, t0, speedup, lead, clock, run_dir,
                                            lambda: queue_state(container, run_id, shell))
                        if target is not None:
                            horizon = target
                            continue
                time.sleep(0.02 if events is not None
                           else 0.2 if i < len(plan) else LOOK_EVERY if guard else 1.0)
    finally:
        submitters.close()
        if shell is not None:
            shell.close()
        if events is not None:
            # also for a stopped run: RESUME starts its own count
            manifest["event_jumps"] = events.summary()
            write_manifest(run_dir, manifest)
        if ends is not None:
            try:
                ends.stop()
            except ReplayError as e:
                log_line(run_dir, f"end guard: could not restore the rate: {e}")
            # Also for a stopped run: a RESUME adds its part's counts to
            # this part's (endguard.accumulate), not replaces them.
            try:
                manifest["end_guard"] = endguard.accumulate(
                    manifest.get("end_guard"),
                    ends.summary(endguard.settings(manifest, args.end_lead)))
                write_manifest(run_dir, manifest)
            except Exception as e:  # whatever ended the run goes on up
                log_line(run_dir, f"end guard: could not write its summary: {e}")
        if guard is not None:
            guard.stop()
            try:
                guard.restore(time.monotonic())
            except ReplayError as e:
                log_line(run_dir, f"launch guard: could not restore the rate: {e}")
    if events is not None:
        manifest["clock_jumps"] = manifest.get("clock_jumps", 0) + events.jumps
        manifest["jumped_s"] = round(manifest.get("jumped_s", 0.0) + events.jumped_s, 3)
        log_line(run_dir, f"event jumps: {events.jumps}, {events.jumped_s:.0f} s skipped; "
                 f"held back: {events.summary()['held']}")
    if guard is not None:
        manifest["launch"] = guard.write(run_dir, {str(j): k for k, j in submitted.items()},
                                         runtime_of)
        write_manifest(run_dir, manifest)
        log_line(run_dir, f"end guard: {manifest.get('end_guard')}")
    progress(f"replay {run_id}: all {len(plan)} jobs done", final=True)
    return container, submitted, reruns


def end_guard(args, manifest, run_dir, clock, rates):
    """The run's EndGuard (workloads/endguard.py), off unless END_GUARD
    slows the clock and the cluster's slurm.conf has slurmctld write its
    records where the guard reads them (make replay configures it so)."""
    settings = endguard.settings(manifest, args.end_lead)
    log = lambda text: log_line(run_dir, text)
    on = endguard.active(settings["rate"], clock.rate)
    why = ""
    if on:
        conf = os.path.join(cluster_dir(args.root, manifest["cluster"]), "slurm.conf")
        try:
            with open(conf, encoding="utf-8") as f:
                lines = set(f.read().splitlines())
        except OSError as e:
            lines = set()
            why = f"{conf}: {e.strerror}"
        want = {"JobCompType=jobcomp/filetxt", f"JobCompLoc={endguard.CONTAINER_FILE}"}
        if not why and not want <= lines:
            why = (f"{conf} has no JobCompType=jobcomp/filetxt with JobCompLoc="
                   f"{endguard.CONTAINER_FILE} (make replay configures it)")
        if why:
            on = False
            log(f"end guard: off: {why}")
    ends = endguard.EndGuard(
        os.path.join(os.path.dirname(clock.page), launch.file_name(manifest["run_id"])),
        os.path.join(os.path.dirname(clock.page), endguard.FILE_NAME),
        manifest["run_id"], clock.rate, settings["rate"], settings["lead_s"],
        rates.setter("end"), lambda: vclock.read_page(clock.page), log, enabled=on,
        comp_offset=settings["jobcomp_offset"])
    ends.why_off = why or ends.why_off
    if on:
        log(f"end guard: the clock goes to rate {settings['rate']:g} from "
            f"{settings['lead_s']:g} s before each job's modelled end until slurmctld "
            "has recorded it")
    return ends


def submit_individual(submitters, plan, submitted, out, manifest, page):
    """INDIVIDUAL: every job at once, in plan order, so that each knows the
    ids it depends on: the occupying jobs on their node lists, the first
    drawn job after they have all started (Slurm's after:), each next one
    after the one before has ended (afterany:). Slurm then runs the drawn
    jobs one at a time on the state the occupying jobs hold."""
    run_id, t0, speedup = manifest["run_id"], manifest["t0"], manifest["speedup"]
    occupying = [p["log_id"] for p in plan if p["prefill"]]
    previous = None
    for k, p in enumerate(plan):
        if p["chain"]:
            if p["chain"] == 1:
                after = "after:" + ":".join(str(submitted[x]) for x in occupying)
                placement = f"dependency={after}" if occupying else ""
            else:
                placement = f"dependency=afterany:{submitted[previous]}"
            previous = p["log_id"]
        else:
            placement = f"nodelist={p['nodelist']}" if p["nodelist"] else ""
        if p["log_id"] in submitted:
            continue
        if "@" in p.get("placement", ""):
            # A NeDD job list's dependencies: @<name> is that job's id,
            # submitted before it (the list is in that order).
            p = dict(p, placement=re.sub(r"@([^:+;,]+)", lambda m: str(submitted[m.group(1)]),
                                         p["placement"]))
        fields = job_fields(run_id, k, p, t0, speedup, manifest["seed"], page, placement)
        for _, jid in submitters.submit_all([fields], [p]):
            submitted[p["log_id"]] = jid
            out.write(f"{p['log_id']} {jid}\n")
            out.flush()
            os.fsync(out.fileno())


def event_jumps(plan, t0, speedup, clock, runtime_of, slept=None):
    """The run's EventJumps (events.py): begin times as job_fields sets
    them, a job's end at its start + the runtime its script sleeps (the
    plugin's scaled runtime, from the launch guard's file: `slept`, Slurm
    id -> s; the plan's runtime where the script has not said), or its
    limit if shorter."""
    begin = {p["log_id"]: math.floor(t0 + p["offset"] / speedup + 0.5) for p in plan}
    # A limit of 0 is none at all (LIMITS=none: tb-submit sends no --time),
    # not an end at the start.
    limit = {p["log_id"]: p["limit_min"] * 60.0 for p in plan if p["limit_min"] > 0}
    # Whole nodes (a job of cores shares them: unknown)
    nodes = {p["log_id"]: None if p.get("ranks") else p["nodes"] for p in plan}

    def end_of(log_id, start, jid=None):
        run = (slept or {}).get(jid, runtime_of.get(log_id))
        cap = limit.get(log_id)
        if run is None and cap is None:
            return float("inf")
        return start + min(x for x in (run, cap) if x is not None)
    return EventJumps(clock.rate, vclock.check_ns(clock.page), begin.get, end_of, nodes.get)


def event_jump(events, jump, guard, queued, backfill, idle, plan, i, t0, speedup, lead,
               clock, run_dir, requery=None):
    """One look's decision (EVENT_JUMPS): jumps the clock, or returns the
    target the submissions must first reach (the plan's next jobs within
    LEAD of it are submitted before the clock goes there); None when no
    jump is due. requery() reads the queue again: the jump is made only if
    no job changed state since the look (EventJumps.confirm)."""
    with guard.lock:
        guard.read()
        launched = set(guard.lags) | guard.lost
    now = clock.now()
    nxt = t0 + plan[i]["offset"] / speedup if i < len(plan) else None
    target = events.decide(now, queued, lambda jid: jid in launched, backfill, idle, nxt)
    if target is None:
        return None
    if nxt is not None and nxt <= target + lead:
        return target
    if requery is not None and not events.confirm(queued, requery()):
        return None
    try:
        jump(target)
    except ReplayError as e:
        log_line(run_dir, f"event jump to {target:.0f} refused: {e}")
        return None
    events.jumped(now, target)
    log_line(run_dir, f"event jump: {now:.3f} -> {target:.3f} ({target - now:.0f} s skipped, "
             f"{events.running} running)")
    return None
