"""Communication matrices: SPARSITY's, a job's node x node (or rank x rank)
matrix drawn from SEED and its log id alone, sized to fit its SPANK
environment; MATRIX's, one file every matching job gets (TOFA's graphs).
"""

import functools
import random

from .errors import ReplayError


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


@functools.lru_cache(maxsize=4)
def file_matrix(path):
    """(ranks, the matrix on one line) of a matrix file (MATRIX=;
    plugins/lib/matrix.h: comments, `ranks N`, then `<from> <to> <volume>`
    lines), checked here so that a bad file stops the replay before any
    job is submitted rather than reaching the controller."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise ReplayError(f"MATRIX={path}: {e.strerror}") from None
    ranks, out = None, []
    for lineno, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        where = f"MATRIX={path}:{lineno}: "
        if ranks is None:
            if len(words) != 2 or words[0] != "ranks" or not words[1].isdigit() \
                    or int(words[1]) < 1:
                raise ReplayError(f"{where}expected 'ranks <N>' first, got '{line}'")
            ranks = int(words[1])
        else:
            try:
                a, b, v = int(words[0]), int(words[1]), float(words[2])
                if len(words) != 3:
                    raise ValueError
            except (ValueError, IndexError):
                raise ReplayError(f"{where}expected '<from> <to> <volume>', "
                                  f"got '{line}'") from None
            if not (0 <= a < ranks and 0 <= b < ranks) or not v >= 0:
                raise ReplayError(f"{where}'{line}': ranks 0-{ranks - 1} and a "
                                  "volume >= 0 expected")
        out.append(" ".join(words))
    if ranks is None:
        raise ReplayError(f"MATRIX={path}: no 'ranks <N>' line")
    text = ";".join(out)
    if len(text) > MATRIX_LINE_MAX:
        raise ReplayError(f"MATRIX={path}: {len(text)} characters on one line; a job's "
                          f"environment carries at most {MATRIX_LINE_MAX}")
    return ranks, text
