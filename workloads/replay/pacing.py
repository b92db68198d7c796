"""Submission timing and the clock: the run's clock, idle jumps of the
virtual clock, the launch guard's rate setter and the jobs due soon, and
the time a replay still needs.
"""

import os
import shutil
import subprocess
import threading

from workloads import vclock
from .errors import ReplayError
from .run_dir import log_line
from .slurm_io import ctl, waiting_for_time


# An idle jump lands this many wall seconds (at the virtual clock's pace)
# before the next begin time: Slurm then makes that job eligible on time.
# Jumps shorter than twice that are not worth making.
JUMP_MARGIN_WALL = 1.0


def idle_jump(container, clock, plan, i, t0, now, run_dir, manifest):
    """Under the virtual clock, when nothing runs and every queued job
    waits for its begin time: the clock jumps to just before the next
    begin time, a queued job's or the next submission's (docs/vclock.md;
    forward only). Returns the time jumped to, or None."""
    waiting = waiting_for_time(container, manifest["run_id"])
    if waiting is None:
        return None
    queued = set(waiting)
    begins = [t0 + p["offset"] for p in plan if p["log_id"] in queued]
    if i < len(plan):
        begins.append(t0 + plan[i]["offset"])
    if not begins:
        return None
    target = min(begins) - JUMP_MARGIN_WALL * clock.pace
    now = clock.now()
    if target - now < 2 * JUMP_MARGIN_WALL * clock.pace:
        return None
    try:
        ctl(container, vclock.jump_command(target))
    except ReplayError as e:
        log_line(run_dir, f"idle jump to {target:.0f} refused: {e}")
        return None
    manifest["clock_jumps"] = manifest.get("clock_jumps", 0) + 1
    manifest["jumped_s"] = round(manifest.get("jumped_s", 0.0) + target - now, 3)
    log_line(run_dir, f"idle jump: {target - now:.0f} s skipped (nothing ran; "
             f"{len(waiting)} jobs waited for their begin time)")
    return target


def time_left(plan, submitted, queued, now, speedup, nodes):
    """A lower bound on the wall time the replay still needs: the work not
    done yet (log runtimes; a policy's slowdown comes on top) on the whole
    machine. The last submission alone says little: the queue of a busy
    log drains for hours after it."""
    node_s = 0.0
    for p in plan:
        if p.get("nodelist"):
            continue            # INDIVIDUAL's occupying jobs end with the run
        start = queued.get(p["log_id"], ("PENDING", None, None, None, None, ""))[1]
        if p["log_id"] in submitted and p["log_id"] not in queued:
            continue
        left = p["runtime"] / speedup
        if start is not None:
            left = max(0.0, left - (now - start))
        node_s += p["nodes"] * left
    return node_s / nodes


SUBMIT_CHUNK = 64
# How often (wall s) the launch guard looks at the queue: 250 log s at rate
# 1000; through a docker exec a look took 1.3 s.
LOOK_EVERY = 0.25
# A begin time this many seconds of Slurm's time in the past still counts
# as due: the slowed clock (rate 1) gives Slurm that long to start the jobs
# before the launch guard sees only the backlog.
DUE_GRACE = 3.0


def _page_writer(container, clock):
    """write(verb, args, remote): tb-vclock on the page itself where this
    container has it (the tools image: milliseconds), else `remote`
    through the controller's container (a docker exec)."""
    local = shutil.which("tb-vclock")

    def write(verb, args, remote):
        if local and os.path.exists(clock.page):
            r = subprocess.run([local, verb, clock.page, *args],
                               capture_output=True, text=True)
            if r.returncode == 0:
                return
        ctl(container, remote)
    return write


def rate_setter(container, clock):
    """set_rate(rate) for the launch guard (_page_writer)."""
    write = _page_writer(container, clock)

    def set_rate(rate):
        write("set-rate", [f"{rate:g}"], vclock.set_rate_command(rate))
    return set_rate


class RateArbiter:
    """The clock's rate when more than one guard may slow it (the launch
    guard, workloads/launch.py; the end guard, workloads/endguard.py): the
    lowest rate any of them asks for, else the run's. Each guard keeps its
    own reasons; the page is written only when that lowest rate changes,
    and on_change() (the end guard's poke) is told after each write."""

    def __init__(self, run_rate, set_rate, on_change=None):
        self.run_rate = run_rate
        self.set_rate = set_rate
        self.on_change = on_change
        self.lock = threading.Lock()
        self.asks = {}
        self.current = run_rate

    def ask(self, who, rate):
        """`who` asks for `rate` (None, or the run's rate or more: no
        longer asks); returns whether the page was written. A setter that
        raises leaves the asks and the current rate as they were: a stale
        ask would hold the clock slow after its guard let go."""
        with self.lock:
            asks = dict(self.asks)
            if rate is None or rate >= self.run_rate:
                asks.pop(who, None)
            else:
                asks[who] = rate
            want = min(asks.values(), default=self.run_rate)
            if want != self.current:
                self.set_rate(want)
            self.asks = asks
            if want == self.current:
                return False
            self.current = want
        if self.on_change is not None:
            self.on_change()
        return True

    def setter(self, who):
        """set_rate(rate) as one guard sees it: the launch guard's rate
        setter, its run's rate meaning it no longer asks."""
        return lambda rate: self.ask(who, rate)


def jumper(container, clock):
    """jump(to) for the event jumps (_page_writer); ReplayError if the
    clock is already past `to` (tb-vclock jumps forward only)."""
    write = _page_writer(container, clock)

    def jump(to):
        write("jump", ["--to", f"{to:.3f}"], vclock.jump_command(to))
    return jump


def due_soon(plan, t0, speedup, now, ahead, queued, submitted):
    """How many of the plan's jobs may start at once soon (the launch
    guard keeps the clock slow for them): not started yet with begin times
    from DUE_GRACE s ago to `ahead` s from now, in Slurm's time; and,
    whatever their begin time, those not submitted yet (a burst is
    submitted in chunks) and those the scheduler has not looked at yet
    (pending with reason None)."""
    n = 0
    for p in plan:
        begin = t0 + p["offset"] / speedup
        if begin > now + ahead:
            break
        if p.get("chain"):
            continue            # INDIVIDUAL's jobs start one at a time
        q = queued.get(p["log_id"])
        if q is None:
            n += p["log_id"] not in submitted or begin >= now - DUE_GRACE
        elif q[0] == "PENDING":
            n += begin >= now - DUE_GRACE or q[5] in ("None", "")
    return n


def run_clock(manifest, state_dir):
    """The run's Clock (its manifest says which)."""
    if manifest.get("clock") == "virtual":
        return vclock.Clock("virtual", manifest["clock_rate"], vclock.page_path(state_dir))
    return vclock.Clock("scaled", manifest["speedup"], vclock.page_path(state_dir))
