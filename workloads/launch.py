"""The launch guard: the virtual clock slows down while the front ends are
behind with job launches, so that launching costs what it would on a real
machine (seconds), not the rate times that.

Under the virtual clock every step Slurm takes in wall time takes R times
longer in log time (docs/vclock.md). Most are short; launching a job is
not: slurmctld sends the batch launch, the front end's slurmd starts a
slurmstepd, which starts the job's script, about 50 ms of CPU on this
2-core machine. Hundreds of jobs starting at once (the 349 jobs that fill
`curie` before the TreeMatch experiment's window, PREFILL=1) kept the
emulator busy for about 12 wall seconds: 12,000 s (3.3 h) of log time at
rate 1000. A job's script ends at its start + its runtime (the replay's
batch script), so a late launch costs nothing as long as it comes before
that end; these came after, and 56 to 69 of the 349 jobs ran past their
limits and ended TIMEOUT.

Each job's script, once it runs, appends its Slurm id, Slurm's start time
and its own start (both virtual) to a file beside the clock page. The
replay reads it: the backlog is the run's jobs Slurm says are running whose
script has not written yet. The clock goes to GUARD_RATE when the backlog
reaches GUARD_ON (the replay looks twice a wall second), and, ahead of
time, MARGIN log seconds before a burst of begin times: GUARD_ON jobs or
more becoming eligible within one wall second at the run's rate (the
replay knows its plan; PREFILL's first set is such a burst). A thread
watches the clock for that instant and sets the rate with tb-vclock on the
page itself (milliseconds; a docker exec takes a tenth of a second, 100
log s at rate 1000). Reacting to the backlog alone was too late at rate
1000: the first set's median lag was 1,365 log s in one try, 5 s in
another, depending on when the look fell. The clock goes back to the
run's rate once the backlog is down to GUARD_OFF, no job started since the
last look and no burst is due. Every job's launch lag (script start -
Slurm's start, log seconds) goes to the run's launch.tsv, and a summary to
the manifest.
"""

import os
import threading
import time

from workloads.filetail import Tail

# Backlog (jobs started by Slurm, script not yet running) that slows the
# clock, and the one that lets it go again.
GUARD_ON = 16
GUARD_OFF = 4
# The clock's rate while slowed: wall time, as on a real machine.
GUARD_RATE = 1.0
# A launching job whose end (start + runtime) is less than this many wall
# seconds away at the run's rate slows the clock: two looks at the queue.
LATE_WALL = 1.0
# A launch older than this (log s) slows the clock too.
LAG_ON = 60.0
# A job whose script has not begun this many wall seconds after the guard
# first saw it waiting is taken as lost and no longer waited for: once, in
# an SC18 replay on a 2-core machine at a load average near 100, Slurm
# started a job whose launch never reached its front end (no slurmstepd,
# nothing in the logs); the guard held the clock at rate 1 for it, and the
# replay ran at wall speed for as long as anyone let it. The job is left
# to Slurm (its limit ends it, and the report flags it) and counted in the
# manifest's "lost_launches". The slowest launches seen took about 4 wall s.
LOST_WALL = 30.0
# A burst: BURST_JOBS begin times within BURST_WALL wall seconds at the
# run's rate, more than the emulator launches in that time (about 30 a
# second here); the clock slows MARGIN log seconds before its first. Each
# costs MARGIN + DUE_GRACE (workloads/replay/pacing.py) wall seconds at least.
BURST_JOBS = 32
BURST_WALL = 1.0
MARGIN = 5.0
# The burst timer wakes this many wall seconds before MARGIN: at rate 1000
# it slows the clock about 15 log s before the burst (15 wall s at rate 1).
EARLY_WALL = 0.01


def bursts(begins, rate):
    """The first begin time of each burst in `begins` (Slurm's time,
    sorted): BURST_JOBS or more within BURST_WALL wall seconds at `rate`."""
    out, width = [], BURST_WALL * rate
    k = 0
    while k + BURST_JOBS <= len(begins):
        if begins[k + BURST_JOBS - 1] - begins[k] <= width:
            out.append(begins[k])
            # the next burst starts after this one's window
            end = begins[k] + width
            while k < len(begins) and begins[k] <= end:
                k += 1
        else:
            k += 1
    return out


def file_name(run_id):
    return f"launched-{run_id}.tsv"


class LaunchGuard:
    """Reads the scripts' start lines and slows or restores the clock.

    set_rate(rate) changes the cluster's clock; log(text) writes a line to
    the run's log. enabled=False records the lags but never changes the
    rate (LAUNCH_GUARD=0)."""

    def __init__(self, path, rate, set_rate, log, enabled=True):
        self.lock = threading.Lock()
        self.timer = None
        self.path = path
        self.rate = rate
        self.set_rate = set_rate
        self.log = log
        self.enabled = enabled and rate > GUARD_RATE
        self.tail = Tail(path)
        self.lags = {}  # Slurm job id -> launch lag (log s)
        self.runtimes = {}  # Slurm job id -> the runtime its script sleeps
        self.slow_since = None
        self.slowdowns = 0
        self.slow_wall = 0.0
        self.max_backlog = 0
        self.last_running = 0
        self.looks = 0
        self.first_seen = {}  # Slurm job id -> wall time first seen waiting
        self.lost = set()     # Slurm job ids given up on (LOST_WALL)

    def read(self):
        """New complete lines of the scripts' file (a line being written
        is left for the next read: filetail.Tail, as the end guard reads
        the same file)."""
        for line in self.tail.lines():
            parts = line.split("\t")
            try:
                jid, start, began = parts[0], float(parts[1]), float(parts[2])
            except (IndexError, ValueError):
                continue  # a torn or foreign line: no lag for that job
            if jid.isdigit() and start > 0:
                self.lags.setdefault(jid, max(0.0, began - start))
                # the runtime the script sleeps (Slurm s): the plugin's
                # scaled one, which the plan does not know (event jumps)
                try:
                    self.runtimes[jid] = float(parts[3])
                except (IndexError, ValueError):
                    pass

    def ahead(self):
        """Log seconds ahead in which begin times keep the clock slow:
        from the burst timer's slow-down to the burst. Not more: jobs that
        wait for nodes (behind a first set) would keep it slow for
        nothing."""
        return 2 * MARGIN

    def watch(self, begins, now):
        """Starts the thread that slows the clock MARGIN log seconds before
        each burst in `begins` (Slurm's time, sorted); now() reads the
        cluster's clock as (time, rate)."""
        if not self.enabled:
            return
        todo = bursts(begins, self.rate)
        if not todo:
            return
        self.timer = BurstTimer(self, todo, now)
        self.timer.start()

    def stop(self):
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def poke(self):
        """The clock's rate changed (the end guard's, pacing.RateArbiter):
        the burst timer's step, planned at the old rate, is cut short."""
        timer = self.timer
        if timer is not None:
            timer.changed.set()

    def slow(self, wall_now, why):
        """The clock to GUARD_RATE (the caller holds the lock)."""
        self.set_rate(GUARD_RATE)
        self.slow_since = wall_now
        self.slowdowns += 1
        self.log(f"launch guard: {why}; clock at rate {GUARD_RATE:g} until they "
                 f"have started and at most {GUARD_OFF} are launching")

    def update(self, running, wall_now, due=0, now=0.0):
        """running: (Slurm id (str), Slurm's start or None, runtime in log
        s or None) of the run's jobs Slurm says are running; due: how many
        of its jobs become eligible within ahead() log seconds; now:
        Slurm's time. Slows or restores the clock; returns the backlog."""
        with self.lock:
            return self._update(running, wall_now, due, now)

    def _update(self, running, wall_now, due, now):
        self.read()
        self.looks += 1
        waiting = []
        for jid, start, runtime in running:
            if jid in self.lags or jid in self.lost:
                continue
            first = self.first_seen.setdefault(jid, wall_now)
            if wall_now - first >= LOST_WALL:
                self.lost.add(jid)
                self.log(f"launch guard: job {jid} started by Slurm has not begun its "
                         f"script {wall_now - first:.0f} wall s later; taken as lost and "
                         "no longer waited for")
                continue
            waiting.append((jid, start, runtime))
        backlog = len(waiting)
        self.max_backlog = max(self.max_backlog, backlog)
        started = len(running) > self.last_running
        self.last_running = len(running)
        # A job whose script has not begun ends late once its runtime has
        # passed (its script then ends at once): one whose end is less than
        # LATE_WALL wall seconds away at the run's rate is in danger.
        danger = sum(1 for _, start, runtime in waiting
                     if start is not None and runtime is not None
                     and start + runtime - now < LATE_WALL * self.rate)
        # A launch this old is held up (a normal one takes about 50 ms,
        # 50 log s at rate 1000): the front ends are busy, more will lag.
        stuck = sum(1 for _, start, _ in waiting
                    if start is not None and now - start >= LAG_ON)
        if not self.enabled:
            return backlog
        if self.slow_since is None and (backlog >= GUARD_ON or due >= GUARD_ON
                                        or danger or stuck):
            self.slow(wall_now, f"{backlog} jobs started by Slurm whose script has not "
                      "begun" if backlog >= GUARD_ON else
                      f"{due} jobs become eligible at once" if due >= GUARD_ON else
                      f"{danger} jobs started by Slurm would end late" if danger else
                      f"{stuck} jobs started by Slurm {LAG_ON:g} s ago or more have "
                      "not begun their script")
        elif (self.slow_since is not None and backlog <= GUARD_OFF and not started
              and due < GUARD_ON and not danger and not stuck):
            self._restore(wall_now)
        return backlog

    def restore(self, wall_now):
        """Back to the run's rate (also on the way out of the run)."""
        with self.lock:
            self._restore(wall_now)

    def _restore(self, wall_now):
        if self.slow_since is None:
            return
        self.set_rate(self.rate)
        self.slow_wall += wall_now - self.slow_since
        self.log(f"launch guard: back to rate {self.rate:g} after "
                 f"{wall_now - self.slow_since:.1f} wall s")
        self.slow_since = None

    def write(self, run_dir, log_ids, runtimes):
        """launch.tsv (log id, Slurm id, launch lag and how much later than
        start + runtime the job ended because of it, in log s) and the
        manifest's summary. log_ids: {Slurm id (str): log id}; runtimes:
        {log id: runtime in log s}."""
        self.read()
        tmp = os.path.join(run_dir, "launch.tsv.tmp")
        late = []
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("log_id\tjob_id\tlaunch_lag_s\tlate_s\n")
            for jid, lag in sorted(self.lags.items(), key=lambda kv: int(kv[0])):
                if jid in log_ids:
                    over = max(0.0, lag - runtimes.get(log_ids[jid], lag))
                    if over > 0:
                        late.append(over)
                    f.write(f"{log_ids[jid]}\t{jid}\t{lag:.3f}\t{over:.3f}\n")
        os.replace(tmp, os.path.join(run_dir, "launch.tsv"))
        lags = sorted(lag for jid, lag in self.lags.items() if jid in log_ids)
        return {
            "late_jobs": len(late),
            "late_max_s": round(max(late), 3) if late else 0.0,
            "guard": self.enabled,
            "guard_on": GUARD_ON, "guard_off": GUARD_OFF, "guard_rate": GUARD_RATE,
            "slowdowns": self.slowdowns,
            "slow_wall_s": round(self.slow_wall, 1),
            "max_backlog": self.max_backlog,
            "looks": self.looks,
            "jobs": len(lags),
            "lag_median_s": round(lags[len(lags) // 2], 3) if lags else None,
            "lag_max_s": round(lags[-1], 3) if lags else None,
            # started by Slurm, script not begun after LOST_WALL wall s
            "lost_launches": sorted(int(j) for j in self.lost if j not in self.lags),
        }


class BurstTimer(threading.Thread):
    """Slows the clock MARGIN log seconds before each burst's first begin
    time. Sleeps in wall time by the clock's current rate, in steps of at
    most 50 ms near the instant."""

    def __init__(self, guard, begins, now):
        super().__init__(daemon=True)
        self.guard, self.begins, self.now = guard, begins, now
        self.stopped = threading.Event()
        # set by a stop or a new rate: the step ends at once
        self.changed = threading.Event()

    def stop(self):
        self.stopped.set()
        self.changed.set()
        self.join(5)

    def run(self):
        for begin in self.begins:
            while not self.stopped.is_set():
                try:
                    t, rate = self.now()
                except Exception as e:  # a missing page: nothing to slow
                    self.guard.log(f"launch guard: cannot read the clock ({e})")
                    return
                left = (begin - MARGIN - t) / max(rate, 1e-9)
                # EARLY_WALL early: a loaded machine wakes threads late
                if left <= EARLY_WALL:
                    break
                # short steps: an idle jump can bring the burst near at once
                self.changed.wait(min(left - EARLY_WALL / 2, 0.05))
                self.changed.clear()
            if self.stopped.is_set():
                return
            with self.guard.lock:
                t = self.now()[0]
                # Late (seen: tens of ms under a load average of 50) still
                # saves the burst's later launches; only a burst whose
                # window has passed (an idle jump over it) is left.
                if (self.guard.slow_since is None
                        and t < begin + BURST_WALL * self.guard.rate):
                    self.guard.slow(time.monotonic(),
                                    f"a burst of begin times at {begin - t:+.0f} s")
