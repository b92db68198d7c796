"""The SC18 paper's runtime model for topology-aware allocation (Sec. IV,
P:305-307 of interference-free-sc18.txt): under the isolated policy a job
runs faster, since no other job shares its links.

  5, 10, 20   every job of more than four nodes runs x % faster;
  v1          every job falls at random in one of the ranges 0-10 %,
              0-20 % or 0-30 %;
  v2          jobs of 5-128 nodes in 0-10 % or 0-20 %, larger ones in
              0-10 %, 10-20 % or 10-30 %; jobs of four nodes or fewer get
              nothing.

Within a range the reduction grows linearly with the node count and is at
the top of the range from 512 nodes on ("capped at 512 nodes"). The paper
does not say where the line starts: ours starts at 0 nodes, so reduction =
low + (high - low) * min(nodes, 512) / 512. The range is drawn from the
job's log id and the seed, so every replay of a window draws the same.
"""

import random

SCENARIOS = ("5", "10", "20", "v1", "v2")
CAP_NODES = 512


def _linear(nodes, low, high):
    return low + (high - low) * min(nodes, CAP_NODES) / CAP_NODES


def reduction(scenario, nodes, seed, log_id):
    """The fraction of its runtime a job saves under the isolated policy."""
    if scenario in ("5", "10", "20"):
        return int(scenario) / 100 if nodes > 4 else 0.0
    rng = random.Random(f"ta:{seed}:{log_id}")
    if scenario == "v1":
        ranges = [(0.0, 0.10), (0.0, 0.20), (0.0, 0.30)]
    elif scenario == "v2":
        if nodes <= 4:
            return 0.0
        ranges = ([(0.0, 0.10), (0.0, 0.20)] if nodes <= 128 else
                  [(0.0, 0.10), (0.10, 0.20), (0.10, 0.30)])
    else:
        raise ValueError(f"TA_SPEEDUP={scenario}: expected one of {', '.join(SCENARIOS)}")
    low, high = ranges[rng.randrange(len(ranges))]
    return _linear(nodes, low, high)
