"""Table 3's note on how often greedy and balanced could part (issue 26):
per run, the starts at which the two would take other nodes on the
state the run met (metrics.choices, tb-alloc's state mode), so that a
table whose greedy and balanced rows differ only by the schedule's noise
says so itself (docs/results/2026-11-27-icpp-policies-theta.md).
"""

import os
import subprocess

from metrics.choices import emulated_starts, greedy_vs_balanced, share_count
from metrics.run_dir import ReportError
from workloads.registry import ROOT
from .tables import run_for

# Below this share of a run's starts, greedy and balanced are called the
# same policy on that run. A convention, not a value fitted to any result:
# at 1 in 100 starts or fewer the two runs are the same decisions 99 times
# in 100, and the table's figures cannot separate that from run-to-run
# noise (the emulation's Theta runs of one policy differ by 0.3-2 %). It
# is a share of starts, not of hours: one start taken otherwise can move
# later jobs, and backfill's reservations (not counted: the runs do not
# record them) can differ where no start does, so a count below it says
# the policies had (almost) no room, not that nothing moved.
NOISE_SHARE = 0.01


def tb_alloc_path():
    """The library's tb-alloc (TB_BUILD, as scripts/testbed sets it)."""
    return os.path.join(os.environ.get("TB_BUILD") or os.path.join(ROOT, "build", "c"),
                        "tb-alloc")


def count_run(r, tb_alloc):
    """(differ, looked, starts) of a Run, or raises ReportError (why not).
    A twin run's own sim.tsv, else the starts make report reads and
    sacct.json's nodes (an emulation)."""
    if not os.access(tb_alloc, os.X_OK):
        raise ReportError(f"no tb-alloc at {tb_alloc} (make -C plugins tools builds it)")
    try:
        started = None
        if not os.path.exists(os.path.join(r.dir, "sim.tsv")):
            started = emulated_starts(r.dir, r.all_rows)
        # Counting stops once the count is no longer below the share: the
        # note needs no more, and it keeps Mira's runs (where they part at
        # most starts, ~50 ms a tb-alloc call on cori) at seconds.
        return greedy_vs_balanced(r.dir, tb_alloc, r.manifest.get("options") or "",
                                  started, stop_share=NOISE_SHARE)
    except (OSError, KeyError, ValueError, subprocess.SubprocessError) as e:
        raise ReportError(f"{type(e).__name__}: {e}") from None


def verdict(differ, looked, starts):
    if starts == 0:
        return "not counted: the run started no job"
    if differ < share_count(NOISE_SHARE, starts) and looked == starts:
        how = "their rows differ by the schedule's noise, not by the policies" if differ == 0 \
            else "their rows differ mostly by the schedule's noise, hardly by the policies"
        return (f"greedy and balanced would choose differently at {differ:,} of {starts:,} "
                f"starts of this run: {how}")
    if looked == starts:
        return (f"greedy and balanced would choose differently at {differ:,} of {starts:,} "
                f"starts of this run: the policies part, so their rows can differ by the "
                "policies")
    return (f"greedy and balanced would choose differently at {differ:,} or more of "
            f"{starts:,} starts of this run (counting stopped at start {looked:,}, where it "
            f"reached {NOISE_SHARE * 100:g} %): the policies part, so their rows can differ by "
            "the policies")


def lines(d, runs, tb_alloc=None):
    """The note's markdown lines: one row per run of the table."""
    tb_alloc = tb_alloc or tb_alloc_path()
    out = ["", "Room to choose: at how many starts of each run greedy (Alg. 1) and balanced "
           "(Alg. 2) would take other nodes, each start's occupancy rebuilt from the run and "
           f"both run on it by the library (metrics/choices.py). Below {NOISE_SHARE * 100:g} % of "
           "the starts the two are one policy on that run "
           "(docs/results/2026-11-27-icpp-policies-theta.md). Only starts are counted: "
           "backfill's reservations, which the runs do not record, can still part them.", "",
           "| log | pattern | run of | run id | greedy vs balanced |", "|---|---|---|---|---|"]
    seen = set()
    for log in d.logs:
        for pattern in d.patterns:
            for policy in d.policies:
                r = run_for(d, runs, log, pattern, policy)
                if r is None or r.run_id in seen:
                    continue
                seen.add(r.run_id)
                try:
                    text = verdict(*count_run(r, tb_alloc))
                except ReportError as e:
                    text = f"not counted: {e}"
                out.append(f"| {log} | {r.pattern or pattern} | {policy} | {r.run_id} | {text} |")
    return out
