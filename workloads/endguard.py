"""The end guard (END_GUARD, docs/vclock.md#the-end-guard): the virtual
clock slows down around each job's modelled end until slurmctld has
recorded that end, so that the end path costs what it would on a real
machine (milliseconds), not the rate times that.

Under the virtual clock a job's end reaches slurmctld about 12 ms of wall
time after its script ends on a quiet emulator and about 100 ms when a job
pends (slurmctld's scheduling passes hold the job write lock), which rate
1000 turns into 12 to 100 log seconds more on every job: +1.3 % execution
hours over the log's runtimes on the Intrepid window
(docs/results/2026-11-27-end-lag.md, "Faithful alternatives", item 1).
Every wait on that path is Slurm's CPU work, so the only faithful remedy is
to give that work wall time: a lower rate while it happens.

The replay knows each running job's modelled end E: the launch guard's
file (workloads/launch.py) has every script's Slurm start and the runtime
it sleeps, and the script ends at start + runtime (workloads/replay/
slurm_io.py). A thread sets the clock to END_GUARD (the rate r) once
Slurm's time reaches E - END_LEAD (the lead a, log s) and restores the
run's rate once slurmctld has recorded the end. The clock is slow while any
end not yet recorded is within the lead or past, so ends that fall close
together share one slow window.

slurmctld's record: jobcomp/filetxt writes one line per job in
job_completion_logger, in the same hold of the job write lock as its
`end_time = now` (job_mgr.c, Slurm 24.11.5; sacct's End), to JobCompLoc,
which generate.py puts beside the clock page only while the guard is on
(`--jobcomp-loc`): every Slurm container mounts that directory
(compose/base.yml), so the driver reads the lines on the host as it reads
the launch file, with no docker exec. jobcomp is not accounting: sacct
reads slurmdbd unless asked for `--completion`, and nothing else in Slurm
reads the file.

Restoring the rate stretches in log time the rest of any sleep slice a
script (tb-vclock sleep-until) planned at the slow rate; the next end's
window, opened END_LEAD before it, bounds that overshoot to about
END_GUARD x the page's check_ns - END_LEAD (2 log s at the defaults).

A guarded end not recorded END_LOST_WALL wall seconds after its window
opened is given up (counted in the manifest), as the launch guard gives up
lost launches: the replay never stalls at the slow rate. If GIVE_UP_OFF
ends in a row are given up with no end recorded between them, the records
are not coming (a controller started without the setting, or lines the
guard cannot match to the scripts' ends) and the guard turns itself off;
so it does when more than max(GIVE_UP_OFF, GIVE_UP_SHARE of the ends so
far) have been given up, in a row or not.
"""

import calendar
import os
import re
import threading
import time

# The windows (which ends are due, recorded, given up) are planned in
# endplan.py; this module reads the files, runs the thread, sets the rate.
from workloads.endplan import END_LOST_WALL, EndPlan
from workloads.filetail import Tail

# The settings (workloads/params.tsv): END_GUARD off by default, 100 in the
# ICPP paper definitions, END_LEAD=3. Measured once, on the Intrepid baseline
# at rate 1000 (docs/results/2026-11-27-end-guard.md): the execution gap to
# the log's runtimes +1.30 % -> +0.1 %, 112 of 862 windows late, replay wall
# 5m44s -> 6m28s (docs/vclock.md#the-end-guard). On a real page at
# rate 1000 (no cluster) the slow rate reached the page a median 3.2 log s
# before the end (tb-vclock set-rate as a process: about 2 ms), 3 of 30
# windows 1-4 log s late under a load average of 4; the thread took about 2 %
# of a core between windows (100 ends known) and 8 % while slow.

# JobCompLoc inside the Slurm containers, beside the clock page
# (workloads/vclock.py's CONTAINER_PAGE); one file per testbed (its
# STATE_DIR/vclock), appended to by every run, each reading from the
# file's end as it began (jobcomp_offset, new_run) and only its own jobs'
# lines (their names begin with the run id).
FILE_NAME = "jobcomp.txt"
CONTAINER_FILE = "/run/testbed-vclock/" + FILE_NAME
# Given-up ends in a row, with no end recorded between them, that turn the
# guard off: a thousand ends given up one by one would cost 10,000 wall s.
GIVE_UP_OFF = 5
# Nor scattered ones: more ends given up than max(GIVE_UP_OFF, this share
# of the ends seen so far, recorded or given up) turn it off too (ends
# recorded now and then between give-ups would keep the in-a-row count
# low while most of the run's wall time went into 10 s waits).
GIVE_UP_SHARE = 0.02
# How often (wall s) the thread looks for the record while the clock is
# slow: at r = 100, 0.1 log s.
POLL_WALL = 0.001
# How often it looks for new scripts' lines otherwise: a short job's end
# can be that close to its script's start (5 log s at rate 1000).
IDLE_WALL = 0.005
# The setter's delay until the new rate is on the page (the thread wakes
# that much early), until one has been measured: tb-vclock as a process.
SET_WALL = 0.002

_FIELD = re.compile(r"(?:^| )(JobId|Name|JobState|StartTime|EndTime)=(\S*)")


def settings(manifest, lead):
    """A run's END_GUARD (rate) and END_LEAD (lead_s), as cli.py wrote
    them into its manifest when it began: a RESUME keeps them. A run made
    before the guard existed has none and stays without it (turning it on
    would change slurm.conf, and the reconfigure restart slurmctld under
    the run's jobs)."""
    kept = manifest.get("end_guard") or {}
    return {"rate": kept.get("rate", 0.0), "lead_s": kept.get("lead_s", lead),
            "lost_wall_s": END_LOST_WALL, "jobcomp_offset": kept.get("jobcomp_offset", 0)}


def new_run(rate, lead, comp_path):
    """A new run's end_guard settings (cli.py keeps them in the manifest):
    the guard reads JobCompLoc from the file's end as the run begins
    (jobcomp_offset, bytes), not from its start: the file keeps every run
    the testbed made, thousands of lines each. A RESUME reads from there
    again, its own lines included."""
    return {"rate": rate, "lead_s": lead, "lost_wall_s": END_LOST_WALL,
            "jobcomp_offset": line_end(comp_path) if rate > 0 else 0}


def line_end(path):
    """The offset just past the file's last complete line (0: no file)."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            back = min(size, 1 << 16)
            f.seek(size - back)
            tail = f.read(back)
    except FileNotFoundError:
        return 0
    return size - back + tail.rfind(b"\n") + 1 if b"\n" in tail else size - back


def active(slow_rate, run_rate):
    """Whether END_GUARD=slow_rate slows a clock running at run_rate."""
    return 0 < slow_rate < run_rate


def misfit(slow_rate, clock_kind, run_rate):
    """Why END_GUARD=slow_rate cannot guard a virtual clock at run_rate, or
    None. A guard at the run's rate or above would slow nothing: asked for
    and silently off, it once let a run be read as guarded when it was not
    (TreeMatch Curie, END_GUARD=100 at SPEEDUP=100). The scaled clock has
    no guard at all; a definition's END_GUARD stays off there (smoke
    tests)."""
    if clock_kind != "virtual" or slow_rate <= 0 or slow_rate < run_rate:
        return None
    return (f"END_GUARD={slow_rate:g} at SPEEDUP={run_rate:g}: the guard slows "
            "the clock to its rate, so it must be below the run's; expected 0 "
            f"(off) or a rate below {run_rate:g}")


def iso_epoch(text):
    """jobcomp/filetxt's time (ISO 8601 in slurmctld's local time, UTC in
    the images: Debian's default /etc/localtime) as if it were UTC, epoch
    s (endplan.EndPlan learns the zone's offset); None for "Unknown" or
    anything else."""
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def parse_record(line, run_id=None):
    """(Slurm id, start, end, state) from one jobcomp/filetxt line (its
    JOB_FORMAT: "JobId=%lu UserId=... Name=%s JobState=%s ... StartTime=%s
    EndTime=%s ..."); start and end epoch s or None. None for a line that
    is not a record, or (run_id given) not one of that run's jobs (its
    name is <run id>:<log id>)."""
    # The file holds every run of the testbed (slurmctld's file, which
    # the driver cannot truncate): other runs' lines are passed over
    # before any parsing.
    if run_id is not None and f" Name={run_id}:" not in line:
        return None
    fields = dict(_FIELD.findall(line))
    jid = fields.get("JobId", "")
    if not jid.isdigit() or "EndTime" not in fields:
        return None
    if run_id is not None and not fields.get("Name", "").startswith(run_id + ":"):
        return None
    return (jid, iso_epoch(fields.get("StartTime", "")), iso_epoch(fields["EndTime"]),
            fields.get("JobState", ""))


def parse_launch(line):
    """(Slurm id, Slurm's start or None, modelled end, runtime) from one
    line of the launch guard's file (slurm_io.install_batch_script: id, Slurm's start,
    the script's own start, the runtime it sleeps; Slurm's time), or None.
    The script sleeps until start + runtime, or its own start + runtime
    when Slurm gave no start."""
    parts = line.rstrip("\n").split("\t")
    try:
        jid, start, began, run = parts[0], float(parts[1]), float(parts[2]), float(parts[3])
    except (IndexError, ValueError):
        return None
    if not jid.isdigit():
        return None
    return jid, (start if start > 0 else None), (start if start > 0 else began) + run, run


def quantile(xs, q):
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


class EndGuard:
    """The thread that slows the clock around the modelled ends.

    launch_path: the launch guard's file; comp_path: JobCompLoc as the
    driver sees it; ask(rate or None): asks the clock for that rate (None:
    the run's; pacing.RateArbiter); read_page(): the clock page's
    (anchor_mono ns, anchor_virtual ns, rate), workloads/vclock.read_page;
    log(text): a line in the run's log. enabled=False reads nothing and
    never changes the rate. set_wall: the setter's delay until measured;
    adapt=False keeps it (tests). comp_offset: where the run's reading of
    comp_path begins (new_run)."""

    def __init__(self, launch_path, comp_path, run_id, run_rate, slow_rate, lead,
                 ask, read_page, log, enabled=True, lost_wall=END_LOST_WALL,
                 set_wall=SET_WALL, adapt=True, comp_offset=0):
        self.launch = Tail(launch_path)
        self.comp = Tail(comp_path, comp_offset)
        self.run_id = run_id
        self.run_rate = run_rate
        self.slow_rate = slow_rate
        self.ask = ask
        self.read_page = read_page
        self.log = log
        self.enabled = enabled and active(slow_rate, run_rate)
        self.why_off = "" if self.enabled else "off"
        self.plan = EndPlan(lead, lost_wall)
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stopped = threading.Event()
        self.thread = None
        self.slow_since = None   # wall s (monotonic) of the open window's slow-down
        self.deadline = None     # wall s (monotonic) the next window opens at
        self.windows = 0
        self.slow_wall = 0.0
        self.set_wall = set_wall
        self.adapt = adapt
        self.late = []           # log s the slow rate came after each window's first end
        self.failed_in_a_row = 0
        # ends matched before this part's first window (prime)
        self.early_before = 0

    # -- the parts the thread runs, each testable alone --

    def read(self):
        """New launch lines and records into the plan; how many lines
        were new."""
        new = self.launch.lines()
        for line in new:
            got = parse_launch(line)
            if got:
                self.plan.launched(*got)
        records = self.comp.lines()
        for line in records:
            got = parse_record(line, self.run_id)
            if got:
                matched = self.plan.matched
                self.plan.recorded(got[0], got[1], got[2])
                if self.plan.matched > matched:
                    self.failed_in_a_row = 0
        return len(new) + len(records)

    def now(self):
        """(Slurm's time, the page's rate) now."""
        mono, virt, rate = self.read_page()
        return (virt + rate * (time.monotonic_ns() - mono)) / 1e9, rate

    def tick(self):
        """One look: reads, slows or restores; returns the wall seconds
        to sleep before the next (None: the guard turned itself off)."""
        new = self.read()
        if not self.plan.ends and self.slow_since is None:
            return IDLE_WALL
        wall = time.monotonic()
        # Nothing new and the next window not due yet: no need to read the
        # page and go through the ends (200 looks a wall second). A jump
        # or a new rate clears the deadline (poke).
        deadline = self.deadline
        if (not new and self.slow_since is None and deadline is not None
                and wall < deadline):
            return min(IDLE_WALL, deadline - wall)
        now, rate = self.now()
        # Planned at the time the rate would reach the page if asked now
        # (tb-vclock as a process: about 2 ms, 2 log s at rate 1000), so
        # that the slow rate is there END_LEAD before the end; while slow,
        # at the time a restore and a new slow-down would take at the run's
        # rate (a window that near is joined, not reopened).
        if self.slow_since is None:
            ahead = now + self.set_wall * rate
        else:
            ahead = now + 2 * self.set_wall * self.run_rate
        with self.lock:
            slow, gave = self.plan.step(ahead, wall)
            for jid, _ in gave:
                self.failed_in_a_row += 1
                self.log(f"end guard: job {jid}'s end was not recorded "
                         f"{self.plan.lost_wall:g} wall s after its window opened; "
                         "given up")
            given_up = len(self.plan.given_up)
            seen = given_up + self.plan.matched
            if given_up > max(GIVE_UP_OFF, GIVE_UP_SHARE * seen):
                self._turn_off(wall, f"{given_up} of {seen} ends were never recorded in "
                               f"{self.comp.path} (more than {GIVE_UP_OFF} and "
                               f"{100 * GIVE_UP_SHARE:g} %; {self.unmatched()} records of "
                               "this run matched no script's end)")
                return None
            if self.failed_in_a_row >= GIVE_UP_OFF:
                self._turn_off(wall, f"{self.failed_in_a_row} ends in a row were never "
                               f"recorded in {self.comp.path} ({self.unmatched()} records "
                               "of this run matched no script's end): slurmctld does not "
                               "write it (JobCompLoc), or its lines are not the scripts' "
                               "ends")
                return None
            if slow and self.slow_since is None:
                self._slow(ahead, now, wall)
            elif not slow and self.slow_since is not None:
                self._restore(wall)
                # The page's rate read above was the slow one: the next
                # window's wall time is planned at the rate now on it.
                self.deadline = None
                return 0.0
            if self.slow_since is not None:
                return POLL_WALL
            nxt = self.plan.next_open()
        if nxt is None:
            self.deadline = None
            return IDLE_WALL
        left = max(0.0, (nxt - ahead) / max(rate, 1e-9))
        self.deadline = wall + left
        return min(IDLE_WALL, left)

    def _slow(self, ahead, now, wall):
        """ahead: Slurm's time when the new rate should reach the page;
        now: Slurm's time now."""
        if self.stopped.is_set():
            return      # stop() has withdrawn the ask: the run's rate 1 may follow
        first = self.plan.first_due(ahead)
        asked = time.monotonic_ns()
        self.ask(self.slow_rate)
        self.slow_since = wall
        self.windows += 1
        # When the slow rate reached the page: its anchor, if this ask
        # wrote it (else it was slow already: the launch guard's rate 1).
        # The page's anchor is the real CLOCK_MONOTONIC, the same clock as
        # time.monotonic_ns here (Docker has no time namespace).
        mono, virt, rate = self.read_page()
        if self.adapt and mono >= asked and rate <= self.slow_rate:
            took = (mono - asked) / 1e9
            self.set_wall = min(0.05, max(0.0005, 0.8 * self.set_wall + 0.2 * took))
            at = virt / 1e9
        else:
            at = now
        if first is not None:
            self.late.append(at - first)

    def _restore(self, wall):
        if self.stopped.is_set():
            return      # stop() restored the rate
        self.ask(None)
        self.slow_wall += wall - self.slow_since
        self.slow_since = None

    def _turn_off(self, wall, why):
        self.enabled = False
        # Always withdrawn, slow or not: an ask whose write failed (the
        # arbiter keeps none then) or one made before a failed page read
        # must not outlive the guard. Once stopped, stop() has withdrawn
        # it and the driver may have set rate 1: no write after that.
        try:
            if not self.stopped.is_set():
                self.ask(None)
        except Exception as e:  # the driver sets rate 1 on its way out
            why += f"; the run's rate could not be restored: {e}"
        if self.slow_since is not None:
            self.slow_wall += wall - self.slow_since
            self.slow_since = None
        self.why_off = why
        self.log(f"end guard: turned off: {why}")

    def unmatched(self):
        return sum(len(v) for v in self.plan.records.values())

    # -- the thread --

    def prime(self):
        """The first read, before any window: a RESUME reads the run's
        files from their start (its launch file, jobcomp from the run's
        offset), so the ends an earlier part (or the pause) saw recorded
        are matched now. They are not this part's "recorded before their
        window": that count starts here (accumulate adds the parts')."""
        try:
            self.read()
        except OSError:
            pass    # the thread reads again
        self.early_before = self.plan.early

    def start(self):
        if not self.enabled:
            return
        self.prime()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopped.is_set():
            try:
                wait = self.tick()
            except Exception as e:  # a missing page, a failed setter
                with self.lock:
                    self._turn_off(time.monotonic(), f"{type(e).__name__}: {e}")
                return
            if wait is None:
                return
            self.wake.wait(wait)
            self.wake.clear()

    def poke(self):
        """The clock jumped or changed its rate: look again at once."""
        self.deadline = None
        self.wake.set()

    def slowed(self):
        return self.slow_since is not None

    def stop(self):
        """Ends the thread and restores the run's rate; idempotent. The
        stopped flag is set under the lock the thread's _slow and _restore
        run under and check it in: once stop() has returned, the guard
        writes no rate (the driver's final rate 1 comes after it); a
        thread slow to end (join's timeout) cannot write one either."""
        with self.lock:
            self.stopped.set()
            slow, self.slow_since = self.slow_since, None
            if slow is not None:
                self.slow_wall += time.monotonic() - slow
        self.wake.set()
        if self.thread is not None:
            self.thread.join(5)
            self.thread = None
        # The arbiter's lock, not ours: withdrawn even if slow is None (a
        # failed write, a failed page read after the ask).
        self.ask(None)

    def summary(self, settings):
        """The manifest's end_guard: the settings, what the guard did,
        and each recorded end's lag (slurmctld's whole-second EndTime -
        the modelled end, log s; sacct's End - Start - runtime) over the
        jobs whose script and record were both seen."""
        if self.enabled or self.windows:
            try:
                self.read()
            except OSError:
                pass
        lags = sorted(lag for lag, _ in self.plan.lags.values() if lag >= -1)
        runs = sum(run or 0.0 for lag, run in self.plan.lags.values() if lag >= -1)
        late = sorted(self.late)
        return dict(settings, **{
            "enabled": self.enabled,
            "off_because": self.why_off or None,
            "windows": self.windows,
            "slow_wall_s": round(self.slow_wall, 1),
            # windows whose slow rate reached the page after their first
            # end (the lead did not cover the timer's and setter's delay)
            "late_windows": sum(1 for x in late if x > 0),
            "slow_at_median_s": round(quantile(late, 0.5), 3) if late else None,
            "slow_at_max_s": round(late[-1], 3) if late else None,
            "given_up": len(self.plan.given_up),
            "given_up_jobs": sorted(int(j) for j, _ in self.plan.given_up)[:100],
            "recorded_before_window": self.plan.early - self.early_before,
            # records of the run's jobs that matched no script's end (a
            # job that never began its script, a requeue's other start)
            "records_unmatched": self.unmatched(),
            # slurmctld's local time - epoch s in its lines (0: UTC)
            "record_zone_s": self.plan.tz,
            "ended_before_modelled_end": sum(1 for lag, _ in self.plan.lags.values()
                                             if lag < -1),
            "ends": len(lags),
            "lag_median_s": quantile(lags, 0.5),
            "lag_p90_s": quantile(lags, 0.9),
            "lag_max_s": lags[-1] if lags else None,
            "lag_total_s": round(sum(lags), 1),
            "lag_percent_of_runtimes": round(100 * sum(lags) / runs, 3) if runs > 0 else None,
        })


# How a RESUME's part adds to the manifest's end_guard (accumulate).
# Events of a part (its windows, their wall time, give-ups): summed.
SUMMED = ("windows", "slow_wall_s", "late_windows", "given_up", "recorded_before_window")
# What a part reads from the run's files, which every part reads from the
# start (the launch file; jobcomp from the run's offset): the whole run's,
# taken from the part that read the most ends, not summed.
WHOLE_RUN = ("ends", "ended_before_modelled_end", "lag_median_s", "lag_p90_s", "lag_max_s",
             "lag_total_s", "lag_percent_of_runtimes", "records_unmatched", "record_zone_s")
# Per part in "parts": slow_at_median_s does not combine (the parts'
# lists are not kept); the top level keeps the median of the part with
# the most windows.
PART = ("windows", "slow_wall_s", "late_windows", "slow_at_median_s", "slow_at_max_s",
        "given_up", "enabled", "off_because")


def accumulate(before, part):
    """The manifest's end_guard after a part of a run (a RESUME's or the
    first): `part` (EndGuard.summary) added to `before` (the manifest's,
    the settings alone before the first part ends). An end given up in two
    parts (never recorded) is counted in both: each cost its wait."""
    before = before or {}
    if "windows" not in before:
        return dict(part, parts=[{k: part.get(k) for k in PART}])
    out = dict(part)
    for k in SUMMED:
        out[k] = round(before.get(k, 0) + part.get(k, 0), 1)
    highs = [x for x in (before.get("slow_at_max_s"), part.get("slow_at_max_s"))
             if x is not None]
    out["slow_at_max_s"] = max(highs) if highs else None
    if before.get("windows", 0) > part.get("windows", 0):
        out["slow_at_median_s"] = before.get("slow_at_median_s")
    out["given_up_jobs"] = sorted(set(before.get("given_up_jobs", []))
                                  | set(part.get("given_up_jobs", [])))[:100]
    if before.get("ends", 0) > part.get("ends", 0):
        # a part that read nothing (its guard off from the start)
        out.update({k: before.get(k) for k in WHOLE_RUN})
    out["enabled"] = bool(before.get("enabled")) and bool(part.get("enabled"))
    parts = before.get("parts") or [{k: before.get(k) for k in PART}]
    out["parts"] = parts + [{k: part.get(k) for k in PART}]
    why = [f"part {n}: {p['off_because']}" for n, p in enumerate(out["parts"], 1)
           if p.get("off_because")]
    out["off_because"] = "; ".join(why) or None
    out["accumulated"] = ("windows, slow_wall_s, late_windows, given_up, "
                          "recorded_before_window: summed over the parts; slow_at_max_s: "
                          "their max; slow_at_median_s: the part with the most windows' "
                          "(each part's in parts); ends and lag_*: the whole run's, read "
                          "again by each part; enabled: every part's")
    return out
