#!/usr/bin/env python3
"""Submission rate of the replay driver (make bench BENCH=submit).

    submit.py <controller container> <jobs> <script in the container>

Submits <jobs> one-node jobs the way `make replay` does (replay.Submitter:
one job per round trip through tb-submit), eligible at once, so the
controller schedules and starts them while the submissions go on. Prints
the rate over the whole run and over its slowest tenth.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "workloads"))
import replay  # noqa: E402


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    container, jobs, script = argv[1], int(argv[2]), argv[3]
    replay.BATCH_SCRIPT = script
    sub = replay.Submitter(container)
    times = []
    start = time.time()
    try:
        for i in range(jobs):
            t = time.time()
            sub.submit([f"bench-submit:{i}", 1, 5, 0, "1:2", "60"])
            times.append(time.time() - t)
            if sys.stdout.isatty() and i % 100 == 0:
                print(f"\rsubmitted {i}/{jobs}", end="", flush=True)
    finally:
        sub.close()
    wall = time.time() - start
    times.sort()
    slow = times[int(len(times) * 0.9):]
    if sys.stdout.isatty():
        print("\r", end="")
    print(f"{jobs} jobs in {wall:.1f} s: {jobs / wall:.0f} submissions/s; "
          f"median {times[len(times) // 2] * 1000:.1f} ms, "
          f"slowest tenth {sum(slow) / len(slow) * 1000:.1f} ms each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
