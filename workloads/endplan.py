"""The end guard's windows (docs/vclock.md#the-end-guard), without
threads or files: which modelled ends are due (the clock slow), recorded
(it may be restored) or given up, and the matching of slurmctld's records
(jobcomp/filetxt) to the scripts' ends. workloads/endguard.py reads the
files and sets the rate; this module only plans.
"""

# A guarded end not recorded this many wall seconds after its window
# opened is given up. The slowest end the Intrepid runs saw took 891 log
# s, 0.9 wall s at rate 1000; ten times that is kept for a loaded machine.
END_LOST_WALL = 10.0


def zone_offset(diff):
    """A time zone's offset (a multiple of 15 minutes, at most 14 h) if
    `diff` s (a record's start - the launch file's) is one within a
    second, else None (the record is of another start)."""
    q = round(diff / 900) * 900
    return q if abs(diff - q) <= 1 and abs(q) <= 14 * 3600 else None


class EndPlan:
    """The windows, without threads or files: which modelled ends are due
    (slow the clock), recorded (may restore it) or given up. Keys are
    (Slurm id, Slurm's start): a requeued job ends once per start."""

    def __init__(self, lead, lost_wall=END_LOST_WALL):
        self.lead = lead
        self.lost_wall = lost_wall
        self.ends = {}       # key -> modelled end, neither recorded nor given up
        self.runs = {}       # key -> the runtime its script sleeps
        self.opened = {}     # key -> wall time its window opened
        self.records = {}    # Slurm id -> [(start, end)] not matched to an end yet
        self.lags = {}       # key -> (recorded end - modelled end, runtime)
        self.given_up = []   # keys
        self.early = 0       # recorded before their window opened
        self.done = set()    # keys recorded or given up
        self.matched = 0     # ends recorded
        # slurmctld's local time - epoch s (its lines' zone; 0 in the
        # images), learned from the first record of an id with one end
        self.tz = None

    def launched(self, jid, start, end, run=None):
        """A script began: its end is modelled at `end` (Slurm's time)."""
        key = (jid, start)
        if key in self.done or key in self.ends:
            return
        self.ends[key] = end
        self.runs[key] = run
        self._match(jid)

    def recorded(self, jid, start, end):
        """slurmctld recorded job `jid`'s end (its start and end, epoch s;
        None where the line said Unknown)."""
        self.records.setdefault(jid, []).append((start, end))
        self._match(jid)

    def _match(self, jid):
        """Records to ends by Slurm id (the run's: parse_record checked the
        name), in file order against launch order: a requeued job's first
        record is its first start's end. Slurm's start is only the
        tie-break, once the offset of slurmctld's local time (its lines'
        zone) is known: a record whose start agrees with none of the id's
        ends is another start's (its script's line not read yet, or never
        written) and waits."""
        recs = self.records.get(jid)
        if not recs:
            return
        left = []
        for rec in recs:
            key = self._pick(jid, rec)
            if key is None:
                left.append(rec)
            else:
                self._close(key, rec)
        if left:
            self.records[jid] = left
        else:
            del self.records[jid]

    def _pick(self, jid, rec):
        cands = sorted((k for k in self.ends if k[0] == jid),
                       key=lambda k: (k[1] is None, k[1] or 0.0))
        if not cands:
            return None
        if rec[0] is None:
            return cands[0]
        if self.tz is None:
            # before the zone is known: starts that differ by a zone's
            # offset agree
            agree = [k for k in cands if k[1] is not None
                     and zone_offset(rec[0] - k[1]) is not None]
            if agree and len(cands) == 1:
                self.tz = zone_offset(rec[0] - agree[0][1])
        else:
            agree = [k for k in cands if k[1] is not None
                     and abs(rec[0] - self.tz - k[1]) <= 1]
        if agree:
            return agree[0]
        return next((k for k in cands if k[1] is None), None)

    def _close(self, key, rec):
        end = self.ends.pop(key)
        self.matched += 1
        if key not in self.opened:
            self.early += 1
        self.opened.pop(key, None)
        self.done.add(key)
        if rec[1] is not None:
            self.lags[key] = (rec[1] - (self.tz or 0) - end, self.runs.get(key))

    def due(self, now):
        """The ends whose window is open at Slurm's time `now`."""
        return [k for k, e in self.ends.items() if e - self.lead <= now]

    def step(self, now, wall):
        """(whether the clock must be slow, the keys given up now) at
        Slurm's time `now` and wall time `wall` (s)."""
        gave = []
        for key in self.due(now):
            first = self.opened.setdefault(key, wall)
            if wall - first >= self.lost_wall:
                del self.ends[key]
                self.opened.pop(key)
                self.done.add(key)
                self.given_up.append(key)
                gave.append(key)
        return bool(self.due(now)), gave

    def next_open(self):
        """Slurm's time the next window opens (None: no end known)."""
        return min((e - self.lead for e in self.ends.values()), default=None)

    def first_due(self, now):
        """The earliest modelled end of the open window."""
        return min((self.ends[k] for k in self.due(now)), default=None)
