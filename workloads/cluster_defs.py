"""What the drivers and the metrics share with the machine definitions'
generator (emulated-clusters/generate.py, a script in a directory that is
no package): Slurm's host lists, the policy library's named readings of
the papers (OPTIONS, TopologyParam's words), and the error a definition
or an option raises.
"""

import re


class DefinitionError(Exception):
    pass


def hostlist(names):
    """Compress names into Slurm's prefix[a-b,c] form, keeping order of
    first appearance of each prefix."""
    groups = {}
    for name in names:
        m = re.match(r"^(.*?)(\d+)$", name)
        if not m:
            groups.setdefault((name, None), [])
            continue
        prefix, digits = m.group(1), m.group(2)
        groups.setdefault((prefix, len(digits)), []).append(int(digits))
    parts = []
    for (prefix, width), nums in groups.items():
        if width is None:
            parts.append(prefix)
            continue
        nums = sorted(set(nums))
        ranges = []
        start = prev = nums[0]
        for n in nums[1:] + [None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            ranges.append(f"{start:0{width}d}" if start == prev
                          else f"{start:0{width}d}-{prev:0{width}d}")
            if n is not None:
                start = prev = n
        if len(nums) == 1:
            parts.append(f"{prefix}{ranges[0]}")
        else:
            parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def expand_hostlist(expr):
    """Inverse of hostlist() for the forms topology.conf files use."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", expr):
        prefix, body = m.group(1), m.group(2)
        if body is None:
            out.append(prefix)
            continue
        for r in body.split(","):
            lo, _, hi = r.partition("-")
            hi = hi or lo
            for n in range(int(lo), int(hi) + 1):
                out.append(f"{prefix}{n:0{len(lo)}d}")
    return out


# The library's named readings of the papers (plugins/lib/options.h): the
# keys and values the plugin accepts in TopologyParam.
OPTION_VALUES = {
    "eq3": ("pair", "path"), "ratio": ("eq1", "share"),
    "fit": ("bestfit", "quiet"), "split": ("halve", "pow2"),
    "denominator": ("default1905", "default"), "ranks": ("taken", "index", "authors"),
    "adaptive_tie": ("balanced", "greedy"),
    # TOFA (plugins/lib/options.h)
    "mapper": ("scotch", "exact"), "penalty": ("101", "100"),
    "fallback": ("all", "window"), "scotch0": ("window", "machine"),
    "scotch_arch": ("build0", "build2"), "scotch_strat": ("quality", "default"),
    "exposure": ("routes", "own"),
}


# The NeDD family's numeric options (plugins/lib/nedd_options.h); the
# library checks their ranges.
NEDD_NUMERIC = ("theta", "window", "stall_g", "stall_noise", "jitter",
                "inj_kernel", "inj_canary", "inj_unnamed", "seed")
NEDD_APPS = ("minimd", "lammps", "milc", "hacc", "qmcpack", "hpcg")
NEDD_UNPROFILED = ("ltr", "htr", "random", "low-stall", "fewer-router")
# stall=: the stall model (nedd_options.h), the default first.
NEDD_STALL = ("chassis", "routed")


def _nedd_word(key, value):
    if key == "unprofiled":
        return value in NEDD_UNPROFILED
    if key == "stall":
        return value in NEDD_STALL
    if key in NEDD_NUMERIC or (key.startswith("inj_") and key[4:].lower() in NEDD_APPS):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return False


def parse_options(text):
    """'eq3=path fit=quiet' (spaces or commas) into checked words."""
    words = [w for w in text.replace(",", " ").split() if w]
    for w in words:
        key, _, value = w.partition("=")
        if _nedd_word(key, value):
            continue
        if key not in OPTION_VALUES or value not in OPTION_VALUES[key]:
            raise DefinitionError(
                f"OPTIONS: '{w}': expected one of " +
                ", ".join(f"{k}={'|'.join(v)}" for k, v in OPTION_VALUES.items()))
    return words
