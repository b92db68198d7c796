"""The words of a reading of the ICPP-W setting (issue 26),
<sizes>/<limits>/<ranks>: what kind readings' lists and a command line's
READING= (definition.py) take. Sources: docs/readings.md.
"""

from .errors import ExperimentError

SIZES = ("logged", "authors")
LIMITS = ("ours", "none")
RANKS = ("taken", "index", "authors")


def parse_reading(text, where=""):
    """(sizes, limits, ranks, log or None) of <sizes>/<limits>/<ranks>,
    '@<log>' after it for one log only."""
    body, _, log = text.partition("@")
    parts = body.split("/")
    if (len(parts) != 3 or parts[0] not in SIZES or parts[1] not in LIMITS
            or parts[2] not in RANKS or (_ and not log)):
        raise ExperimentError(f"{where}table3_readings '{text}': expected "
                              f"<{'|'.join(SIZES)}>/<{'|'.join(LIMITS)}>/<{'|'.join(RANKS)}>"
                              "[@<log>], e.g. authors/none/authors")
    return tuple(parts) + (log or None,)
