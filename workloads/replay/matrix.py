"""Communication matrices (SPARSITY): a job's node x node (or rank x rank)
matrix, drawn from SEED and its log id alone, sized to fit its SPANK
environment.
"""

import random


# The longest matrix a job's SPANK environment carries (MATRIX_LINE_MAX in
# plugins/slurm/spank_testbed.c: the environment string Linux still passes).
MATRIX_LINE_MAX = 120_000
# Message volumes are drawn from 1 KiB to 16 MiB, powers of two.
MATRIX_VOLUME_LOG2 = (10, 24)


def matrix_room(nodes):
    """How many entries surely fit in MATRIX_LINE_MAX, at their longest."""
    entry = 2 * len(str(nodes - 1)) + len(str(2 ** MATRIX_VOLUME_LOG2[1])) + 3
    return (MATRIX_LINE_MAX - len(f"ranks {nodes};")) // entry


def matrix_density(nodes, sparsity):
    """The share of ordered node pairs that communicate: 1 - SPARSITY, or
    less for a job whose matrix would not fit in MATRIX_LINE_MAX."""
    pairs = nodes * (nodes - 1)
    if pairs == 0:
        return 0.0
    return min(1.0 - sparsity, matrix_room(nodes) / pairs)


def comm_matrix(seed, log_id, nodes, density):
    """A job's node x node matrix on one line (plugins/lib/matrix.h, entries
    separated by ';'). It depends on SEED and the job alone, not on the
    other jobs' draws, so a job has the same matrix under every policy and
    in every window that contains it."""
    rng = random.Random(f"{seed}:{log_id}")
    pairs = nodes * (nodes - 1)
    # The plan keeps the density to 6 digits: never round past the room.
    count = min(round(density * pairs), matrix_room(nodes))
    chosen = sorted(rng.sample(range(pairs), count))
    out = [f"ranks {nodes}"]
    for k in chosen:
        i, r = divmod(k, nodes - 1)
        j = r if r < i else r + 1
        out.append(f"{i} {j} {2 ** rng.randint(*MATRIX_VOLUME_LOG2)}")
    return ";".join(out)
