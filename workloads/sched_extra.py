"""SCHED_EXTRA (workloads/params.tsv): SchedulerParameters words appended
to the line emulated-clusters/generate.py writes, for a measurement of one
setting on a running cluster (make up, make bench). Unset (the default),
the line is unchanged. CTLD_EXTRA is the same for SlurmctldParameters, a
line the generator writes only when CTLD_EXTRA is set (e.g.
enable_rpc_queue: Slurm 24.11.5 then serves up to 256 queued
REQUEST_SUBMIT_BATCH_JOB under one lock, proc_req.c's rpc table and
rpc_queue.c's worker).

Why the checks: Slurm 24.11.5 finds each word with xstrcasestr() on the
whole line (e.g. job_scheduler.c:1385, backfill.c:953-973, 1038), so it
takes the first occurrence: a word whose name the line already sets would
be ignored without a word in any log. Such a word is refused here.
docs/results/2026-11-27-submit-families-startup.md ("Where the submission
time goes, from the source") names the candidates, e.g.
bf_yield_interval=200000,bf_yield_sleep=200000.
"""

import re

# A word: a name, or name=value (Slurm's values here are numbers, times
# and names: digits, letters, '.', ':', '-', '_').
WORD = re.compile(r"[a-z][a-z0-9_]*(=[A-Za-z0-9_.:-]+)?")


def _name(word):
    return word.split("=", 1)[0]


def check(value, param="SCHED_EXTRA", line="SchedulerParameters",
          example="bf_yield_interval=200000,bf_yield_sleep=200000"):
    """value (a string; None or "" for unset) as a list of words, or
    ValueError with one line naming `param` (SCHED_EXTRA, CTLD_EXTRA)."""
    if value is None or value.strip() == "":
        return []
    words = value.strip().split(",")
    bad = [w for w in words if not WORD.fullmatch(w)]
    names = [_name(w) for w in words]
    if bad or len(set(names)) != len(names):
        raise ValueError(
            f"{param}={value}: expected {line} words "
            "separated by commas, each name or name=value, each name once "
            f"(e.g. {example})")
    return words


def append(line, words):
    """The generated SchedulerParameters value `line` with `words` (from
    check) appended; ValueError naming the words whose name `line` sets
    already (Slurm would read the first and ignore them)."""
    if not words:
        return line
    present = {_name(w) for w in line.split(",") if w}
    clash = [w for w in words if _name(w) in present]
    if clash:
        raise ValueError(
            f"SCHED_EXTRA: {','.join(clash)}: already set by the generated "
            "SchedulerParameters (Slurm reads the first occurrence); "
            "change it where it is generated instead")
    return ",".join([line, *words])
