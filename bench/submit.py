#!/usr/bin/env python3
"""Submission rate of the replay driver (make bench BENCH=submit).

    submit.py <controller container> <jobs> <script in the container> <ahead>

Submits <jobs> one-node jobs at once the way `make replay` submits a
burst (workloads.replay.slurm_io.SubmitterPool: SUBMITTERS tb-submit
processes, one job per round trip each). With <ahead> 0 they are eligible
at once, so the controller schedules and starts them while the submissions
go on; with <ahead> s > 0 they begin s seconds later, as a replay submits
(LEAD seconds ahead of each job's time). Prints the rate.
"""

import sys
import time

from workloads.replay import slurm_io


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    container, jobs, script, ahead = argv[1], int(argv[2]), argv[3], int(argv[4])
    slurm_io.BATCH_SCRIPT = script
    pool = slurm_io.SubmitterPool(container, slurm_io.SUBMITTERS, "/tmp")
    start = time.time()
    begin = int(start) + ahead if ahead else 0
    fields = [[f"bench-submit:{i}", 1, 5, begin, slurm_io.PRIORITY_TOP - i, "1:2", "", "", "60"]
              for i in range(jobs)]
    done = 0
    try:
        for _ in pool.submit_all(fields, range(jobs)):
            done += 1
            if sys.stdout.isatty() and done % 100 == 0:
                print(f"\rsubmitted {done}/{jobs}", end="", flush=True)
    finally:
        pool.close()
    wall = time.time() - start
    if sys.stdout.isatty():
        print("\r", end="")
    when = f"beginning {ahead} s later" if ahead else "eligible at once"
    with open("/proc/loadavg", encoding="ascii") as f:
        load = f.read().split()[0]
    print(f"{jobs} jobs {when}, {slurm_io.SUBMITTERS} submitters: {wall:.1f} s, "
          f"{jobs / wall:.0f} submissions/s (load average {load})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
