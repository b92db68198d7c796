"""Slurm's backfill window (BF_WINDOW, workloads/params.tsv): how far
ahead, in minutes, sched/backfill plans; a pending job whose planned start
lies beyond it gets no reservation (backfill.c:3390-3404, Slurm
24.11.5), so any later job that fits now may start on its nodes, whatever
its limit. Unset (the default), slurm.conf names none and Slurm takes its
own default, 1440 min (BACKFILL_WINDOW, backfill.c:109; the same in
19.05, whose backfill.c:101 and slurm.conf(5) give "Default: 1440 (1
day), Min: 1, Max: 43200 (30 days)"). Slurm's manual: "A value at least
as long as the highest allowed time limit is generally advisable to
prevent job starvation" (slurm.conf(5), bf_window, 19.05 and 24.11).
docs/results/2026-11-27-backfill-overruns.md measures what it moves.

What a larger window does not change (so BF_WINDOW writes bf_window
alone; bf_resolution stays 1 s and no bf_window_linear is set): the
manual's advice to raise bf_resolution with the window ("In order to
limit the amount of data managed by the backfill scheduler") is about
the plan's size, and in 24.11.5 that is a table of bf_node_space_size
records (default bf_max_job_test, 1000 in our slurm.conf), allocated
whatever the window (backfill.c:2159-2165; 19.05: 2 x bf_max_job_test +
1 records, backfill.c:1585-1586); bf_resolution only rounds each
reservation's start and end (:1849-1852), and a coarser one would delay
every planned start the twin plans to the second. bf_window_linear sets
how the will-run test widens its batches of running jobs' ends
(select/cons_tres/job_test.c:2558-2564), which it runs for every job
whatever the window. What a larger window does change is the work: more
jobs get a reservation, each adding up to two records; a cycle that
fills the table stops ("table size limit ... reached", backfill.c:
3531-3555), which the twin does not model.

One place for its bounds, its slurm.conf text and the twin's seconds:
emulated-clusters/generate.py (make up), the replay's and the twin's
parsers, the experiment definitions and workloads/simulate.py use it.
"""

# Slurm's default and its bounds (backfill.c:109, :117 and :758-767 of
# 24.11.5: a value outside them is "Invalid SchedulerParameters bf_window"
# and Slurm falls back to the default, silently for a run; refused here).
SLURM_DEFAULT_MIN = 1440
MIN_MIN, MAX_MIN = 1, 43200


def check(value):
    """value (an int, a string, or None/"" for unset) as whole minutes
    within Slurm's bounds, or None; ValueError with one line naming
    BF_WINDOW otherwise."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    try:
        minutes = int(text)
    except ValueError:
        minutes = None
    if isinstance(value, bool) or minutes is None or not MIN_MIN <= minutes <= MAX_MIN:
        raise ValueError(f"BF_WINDOW={value}: expected whole minutes from {MIN_MIN} to "
                         f"{MAX_MIN} (Slurm's bf_window; unset: Slurm's default, "
                         f"{SLURM_DEFAULT_MIN})")
    return minutes


def sched_param(minutes):
    """The SchedulerParameters word: none when unset (Slurm's default)."""
    return "" if minutes is None else f",bf_window={minutes}"


def of_manifest(manifest):
    """A run's window in minutes: the manifest's bf_window_min, Slurm's
    default when unset or absent (runs made before BF_WINDOW)."""
    return manifest.get("bf_window_min") or SLURM_DEFAULT_MIN


def log_seconds(manifest):
    """The twin's --bf-window: the window in log seconds, a Slurm second
    being `speedup` log seconds (1 under the virtual clock)."""
    return of_manifest(manifest) * 60 * float(manifest.get("speedup") or 1)


def text(manifest):
    """How a table names a run's window."""
    m = manifest.get("bf_window_min")
    return f"BF_WINDOW={m} min" if m else f"bf_window Slurm's default ({SLURM_DEFAULT_MIN} min)"
