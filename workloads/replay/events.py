"""Event-driven virtual time (EVENT_JUMPS=1, docs/vclock.md#event-jumps).

Under the virtual clock the idle jumps (pacing.idle_jump) skip time only
when nothing runs; a saturated window is never idle and ran at its rate:
the 1,000-job Theta window took its makespan / 1000, 29 wall minutes.
Between two events Slurm can act on, though, nothing it does can differ:

* the events: a job's begin time (an arrival: the plan's, or a queued
  job's), a running job's end (its script ends at Slurm's start + its
  runtime, workloads/replay/slurm_io.py; or its limit, if shorter);
* Slurm's passes between them: the replay's jobs carry fixed priorities
  (priority/basic, explicit priorities in log order), so the queue's order
  never changes by itself; the main scheduler starts jobs in that order
  and backfill starts a job only if it fits now and ends before the
  reservations of the jobs above it. With the free nodes and the queue
  unchanged, a later pass only finds the window before a reservation
  shorter (the candidate's end moves with now, the reservation does not),
  so it starts nothing a pass after the last event did not. What is left
  to wait for is Slurm's own work on the last event: two completed
  backfill cycles after the state was first seen (`sdiag`'s "Total
  cycles": the second one began after that look, hence after the event;
  bf_continue's yields belong to one cycle), every started job's script
  running (the launch guard's file), no job completing, no eligible job
  the scheduler has not looked at. Or nothing to wait for at all: every
  eligible job needs more nodes than are idle (nodes are whole, partition
  main is exclusive), so no pass can start one before the next end.

A backfill cycle counts once it has finished and began after the state
was first seen: `sdiag` names the start of the last cycle ("Last cycle
when", set as a cycle begins) and warns while one is running; or, failing
that, two cycles completed since ("Total cycles"; the second began after
the look). A cycle of a deep queue takes long on a loaded machine (0.9
wall s with 370 jobs pending at a load average of 34): the idle-node
test spares most of them on a machine the window keeps full.

When that holds the driver jumps the clock to `margin` before the next
event: the page's check_ns times the rate (a job's sleep sees a jump only
at the end of its current real slice, check_ns long, so it cannot end late
by more than the margin it was given; 50 virtual s at rate 1000, 50 wall
ms) plus a second. Then the clock runs at its rate through the event, and
Slurm reacts to it in the same virtual time as without the jump.

This module decides; the driver looks and jumps. Pure but for `look`.
"""

import math

from .slurm_io import parse_queue

# The look at the queue and at backfill's cycle counter, in one round trip
# through the controller's shell.
LOOK = ("SLURM_TIME_FORMAT=%s squeue -h -o '%j|%T|%S|%i|%r'; echo '@@backfill'; "
        "sdiag | sed -n '/^Backfilling stats/,/^$/p' | "
        "grep -E '^Backfilling stats|Total cycles|Last cycle when'; "
        "echo '@@idle'; sinfo -h -t idle -o %D && echo idle-known")
# Seconds of Slurm's time added to the page's slice for the margin.
MARGIN_EXTRA = 1.0
# A jump shorter than this many wall seconds at the rate is not made: the
# clock gets there nearly as fast by itself.
MIN_JUMP_WALL = 0.02


class Backfill:
    """What sdiag says of backfill: completed cycles, the start (epoch s)
    of the last cycle, whether one is running; None where it is silent."""

    def __init__(self, cycles=None, last_when=None, active=None):
        self.cycles, self.last_when, self.active = cycles, last_when, active


def parse_backfill(text):
    """Backfill from LOOK's sdiag lines."""
    bf = Backfill()
    for line in text.splitlines():
        if line.startswith("Backfilling stats"):
            bf.active = "middle of backfilling" in line
        elif "Total cycles" in line:
            value = line.split(":", 1)[-1].strip()
            bf.cycles = int(value) if value.isdigit() else None
        elif "Last cycle when" in line and line.rstrip().endswith(")"):
            value = line.rstrip()[:-1].rsplit("(", 1)[-1]
            bf.last_when = int(value) if value.isdigit() else None
    return bf


def parse_idle(text):
    """Idle nodes from sinfo's counts (one a partition: the largest,
    partition main's, which has every node; none at all: 0), None if
    sinfo failed."""
    if "idle-known" not in text:
        return None
    return max([int(x) for x in text.split() if x.isdigit()], default=0)


def look(shell, run_id):
    """(queue_state's dict, Backfill, idle nodes) or (None, None, None)
    while the controller does not answer."""
    from .errors import ReplayError
    try:
        out = shell.run(LOOK)
    except ReplayError:
        return None, None, None
    queue, _, rest = out.partition("@@backfill")
    bf, _, idle = rest.partition("@@idle")
    return parse_queue(queue, run_id), parse_backfill(bf), parse_idle(idle)


def margin(rate, check_ns):
    """Slurm seconds the clock lands before an event (docs above)."""
    return rate * check_ns / 1e9 + MARGIN_EXTRA


class EventJumps:
    """The decision, one look at a time. begin_of(log id) and
    end_of(log id, Slurm's start, Slurm id) give a job's begin time and the
    end of its run (Slurm's time); counts of why no jump was made go to `held`
    (the manifest's event_jumps)."""

    def __init__(self, rate, check_ns, begin_of, end_of, nodes_of=None):
        self.rate = rate
        self.margin = margin(rate, check_ns)
        self.begin_of = begin_of
        self.end_of = end_of
        # nodes_of(log id): whole nodes the job needs, None if not known
        # (a job of cores): then only backfill's cycles say it is done.
        self.nodes_of = nodes_of or (lambda log_id: None)
        self.signature = None
        self.seen_at = None     # Slurm's time of the look that first saw it
        self.cycles_at = None
        self.jumps = 0
        self.jumped_s = 0.0
        self.running = 0        # jobs running at the last decision
        self.busy_jumps = 0     # jumps made while jobs ran
        self.held = {}

    def _hold(self, why):
        self.held[why] = self.held.get(why, 0) + 1
        return None

    def _backfilled(self, bf):
        """Whether a whole backfill cycle ran since the state was seen."""
        if bf is None:
            return False
        if (bf.active is False and bf.last_when is not None
                and bf.last_when >= math.ceil(self.seen_at)):
            return True
        return (bf.cycles is not None and self.cycles_at is not None
                and bf.cycles >= self.cycles_at + 2)

    def decide(self, now, queued, launched, bf, idle=None, next_arrival=None):
        """The time to jump to, or None. queued: queue_state's dict;
        launched(Slurm id) whether that job's script began (or was given
        up on); bf: Backfill (None: unknown); idle: idle nodes (None:
        unknown); next_arrival: the begin time of the plan's next job not
        submitted yet, if any."""
        active = []
        events = [] if next_arrival is None else [next_arrival]
        sizes, unseen = [], False
        for log_id, q in queued.items():
            state, start, jid, reason = q[0], q[1], q[4], q[5]
            if state == "RUNNING":
                if not launched(jid):
                    return self._hold("launching")
                end = self.end_of(log_id, start, jid)
                if end <= now:
                    return self._hold("ending")
                events.append(end)
            elif state == "PENDING":
                begin = self.begin_of(log_id)
                if reason == "BeginTime" and begin is not None and begin > now:
                    events.append(begin)
                    continue        # not eligible yet: nothing to do for it
                unseen = unseen or reason in ("None", "", "BeginTime")
                sizes.append(self.nodes_of(log_id))
            else:
                return self._hold("completing")
            active.append((jid, state, reason))
        self.running = sum(1 for _, state, _ in active if state == "RUNNING")
        signature = (tuple(sorted(active)), idle)
        cycles = bf.cycles if bf is not None else None
        if signature != self.signature or (
                cycles is not None and self.cycles_at is not None and cycles < self.cycles_at):
            # a new state (or backfill's counters were reset: midnight)
            self.signature, self.seen_at, self.cycles_at = signature, now, cycles
            fresh = True
        else:
            fresh = False
        blocked = (idle is not None and sizes and None not in sizes
                   and idle < min(sizes))
        if sizes and not blocked:
            if fresh:
                return self._hold("new state")
            if unseen:
                return self._hold("not looked at")
            if not self._backfilled(bf):
                return self._hold("backfill")
        if not events:
            return self._hold("no event")
        target = min(events) - self.margin
        if target - now < MIN_JUMP_WALL * self.rate:
            return self._hold("event near")
        if sizes and blocked:
            self.held["jumped, too few idle nodes"] = (
                self.held.get("jumped, too few idle nodes", 0) + 1)
        return target

    def confirm(self, queued, again):
        """Whether the queue read again just before a jump (`again`,
        queue_state's dict; None: no answer) still has every job in the
        state the decision saw. LOOK's squeue and sinfo are not one
        snapshot: a job started between them showed as pending in the
        first and its nodes as taken in the second, so "too few idle
        nodes" held and the clock jumped past that job's end, which was in
        no event (the 1,000-job Theta window, 2026-11-26: jobs 260 and
        261, 3,919 and 3,896 s late). The re-read comes after sinfo: a
        change before it shows."""
        if again is not None and ({k: q[0] for k, q in again.items()}
                                  == {k: q[0] for k, q in queued.items()}):
            return True
        self._hold("changed during the look")
        return False

    def jumped(self, now, target):
        """Counts a jump made. The state is not new: a jump lands before
        the next event, where Slurm's passes find what they found."""
        self.jumps += 1
        self.jumped_s += target - now
        self.busy_jumps += self.running > 0

    def summary(self):
        return {"jumps": self.jumps, "busy_jumps": self.busy_jumps,
                "jumped_s": round(self.jumped_s, 3),
                "margin_s": round(self.margin, 3), "held": dict(sorted(self.held.items()))}
