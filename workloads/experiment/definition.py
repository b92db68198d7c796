"""An experiment definition (experiments/<name>.exp): parsing, checks and
the command line's overrides.

A definition is key = value lines ('#' starts a comment):
  description, kind (one of kinds.py's: continuous | shadow | individual |
  cost-by-size | sc18 | treematch),
  citation, clock_reason (why a definition with paper numbers runs on
  the scaled clock; refused without one), logs, cluster, policies, baseline, patterns, metrics
  (continuous), baseline_per_pattern, sample (shadow), size_bins
  (cost-by-size, sc18), the word lists a kind declares as its own (its
  Kind's lists: loads and ta_speedups for sc18, ratios for treematch),
  parallel, note (repeatable);
  UPPERCASE keys are replay parameters (JOBS, SPEEDUP, CLOCK, ...), and any
  of cluster and the parameters may take a '.<log>' suffix for one log;
  paper.<metric>.<log>.<pattern>.<policy> = <number>, '*' where the paper
  gives one number for all logs, patterns or policies;
  paper_from = <definition> ...: the paper.* lines of other definitions of
  the same directory, read rather than copied (icpp-table3 takes the three
  icpp-table3-<log> files'); a number given twice is refused.

Each kind's own keys, runs and paper figures are in its module's docstring
(kinds.py lists the modules). Every kind leaves a replay's PREFILL jobs
out of its figures.
"""

import math
import os
import re

from metrics.measures import METRIC_KEYS
from workloads import bf_window, params
from workloads.cluster_defs import DefinitionError, parse_options
from workloads.registry import RegistryError, policy_names
from workloads.replay.plan import PATTERNS
from .errors import check_names, ExperimentError
from .kinds import DEFAULT, KINDS, kind_of, list_keys
from .reading_words import parse_reading


# The repository: the clone this package is in.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The UPPERCASE settings a definition may give and a command line
# override: workloads/params.tsv's rows with exp = 1, each with its type
# and choices.
_SETTINGS = params.definition_params()
INT_PARAMS = tuple(n for n, p in _SETTINGS.items() if p.type == "int")
FLOAT_PARAMS = tuple(n for n, p in _SETTINGS.items() if p.type == "float")
# Parameters that take one of a few words.
WORD_PARAMS = {n: p.choices for n, p in _SETTINGS.items() if p.type == "word"}
# OPTIONS: the library's named readings for the run's `make up`
# (workloads/cluster_defs.py's words, comma-separated).
PARAMS = tuple(_SETTINGS)
# The word lists of every definition.
LISTS = ("logs", "policies", "patterns", "metrics", "size_bins")


def list_overrides():
    """What the command line may override besides the parameters: the
    policies, the patterns and each kind's own lists (LOADS=...)."""
    out = {"POLICIES": "policies", "POLICY": "policies",
           "PATTERNS": "patterns", "PATTERN": "patterns"}
    out.update({key.upper(): key for key in list_keys()})
    return out


def kind_list_names():
    return [key.upper() for key in list_keys()]


def override_names():
    """Every variable of a command line that apply_overrides takes besides
    the settings (params.tsv's exp = 1) and FULL."""
    return ["CLUSTER", "BASELINE", "LOGS", "READING"] + list(list_overrides())


def apply_reading(d, value):
    """READING=<sizes>/<limits>/<ranks> (issue 26's readings of the ICPP-W
    setting, kind readings' words): SIZES and LIMITS for every log, SCALE
    dropped under sizes `authors` (the authors' scale() replaces it, as
    kind readings does), ranks= in OPTIONS unless `taken` (the library's
    default). The old values, for the table's list of overrides."""
    try:
        sizes, limits, ranks, only = parse_reading(value)
    except ExperimentError:
        only = "bad"
    if only:
        raise ExperimentError(f"READING={value}: expected <sizes>/<limits>/<ranks>, "
                              "e.g. authors/none/authors (the authors' reading) or "
                              "logged/ours/taken (docs/readings.md)")
    olds = {k: sorted({f"{v}{' for ' + lg if lg else ''}" for (key, lg), v in d.params.items()
                       if key == k}) for k in ("SIZES", "LIMITS", "SCALE", "OPTIONS")}
    drop = {"SIZES", "LIMITS"} | ({"SCALE"} if sizes == "authors" else set())
    options = {lg: ",".join(w for w in v.split(",") if w and not w.startswith("ranks="))
               for (k, lg), v in d.params.items() if k == "OPTIONS"}
    d.params = {(k, lg): v for (k, lg), v in d.params.items()
                if k not in drop and k != "OPTIONS"}
    d.params[("SIZES", "")], d.params[("LIMITS", "")] = sizes, limits
    if ranks != "taken":
        options = {lg: ",".join(x for x in (v, f"ranks={ranks}") if x)
                   for lg, v in (options or {"": ""}).items()}
    d.params.update({("OPTIONS", lg): v for lg, v in options.items() if v})
    return "; ".join(f"{k} {', '.join(v)}" for k, v in olds.items() if v) or "unset"


DEFAULT_CITATION = "Agrawal et al., ICPP-W 2020"


class Definition:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".exp")]
        self.description = ""
        self.kind = DEFAULT
        self.logs = []
        self.cluster = {}        # log or "" -> cluster
        self.policies = []
        # The definition's own policies when POLICIES=... on the command
        # line narrows them (None: not narrowed): its paper.* lines may
        # still name the others (paper_policies).
        self.defined_policies = None
        self.baseline = "default"
        self.patterns = []
        self.metrics = ["exec_hours", "wait_hours"]
        self.baseline_per_pattern = False
        self.sample = 200
        self.size_bins = []
        # Each kind's own word lists (sc18's loads, ...), at their defaults.
        for key, (_, default) in list_keys().items():
            setattr(self, key, list(default))
        self.citation = DEFAULT_CITATION
        # Why a paper table runs on the scaled clock (refused without).
        self.clock_reason = ""
        self.parallel = 0
        self.params = {}         # (name, log or "") -> value
        self.notes = []
        self.overrides = []      # "K=V given on the command line (...)"
        # select.<K> = V: what a plain `make experiment` runs of a larger
        # definition, unless the command line names K or gives FULL=1.
        self.select = {}
        self.paper = {}          # (metric, log, pattern, policy) -> number
        self.paper_text = {}     # the same keys -> the number as written
        # paper_from: the definitions whose paper.* lines this one reads,
        # and every file they came from (planning copies them beside the
        # experiment's copy of this one).
        self.paper_from = []
        self.paper_files = []

    def paper_policies(self):
        """The policies a paper.* line may name: the definition's own, not
        only those a command line's POLICIES= keeps."""
        return self.defined_policies if self.defined_policies is not None else self.policies

    def cluster_of(self, log):
        return self.cluster.get(log, self.cluster.get(""))

    def params_of(self, log):
        out = {k: v for (k, lg), v in self.params.items() if lg == ""}
        out.update({k: v for (k, lg), v in self.params.items() if lg == log})
        return out

    def paper_value(self, metric, log, pattern, policy):
        for key in ((metric, log, pattern, policy), (metric, log, "*", policy),
                    (metric, "*", pattern, policy), (metric, log, pattern, "*")):
            if key in self.paper:
                return self.paper[key]
        return None


def check_number(name, value, where):
    if name == "OPTIONS":
        if not value or any(c.isspace() for c in value):
            raise ExperimentError(f"{where}OPTIONS='{value}': expected the library's "
                                  "words separated by commas, e.g. denominator=default")
        try:
            parse_options(value)
        except DefinitionError as e:
            raise ExperimentError(f"{where}{e}") from None
        return value
    if name == "BF_WINDOW":
        # Slurm's bounds, checked before any run starts (workloads/bf_window.py).
        try:
            bf_window.check(value)
        except ValueError as e:
            raise ExperimentError(f"{where}{e}") from None
        return value
    if name in WORD_PARAMS:
        if value not in WORD_PARAMS[name]:
            raise ExperimentError(f"{where}{name}={value}: expected "
                                  f"{' or '.join(WORD_PARAMS[name])}")
        return value
    try:
        v = int(value) if name in INT_PARAMS else float(value)
    except ValueError:
        what = "a whole number" if name in INT_PARAMS else "a number"
        raise ExperimentError(f"{where}{name}={value}: expected {what}") from None
    if name in INT_PARAMS and v < 0 or name in FLOAT_PARAMS and not math.isfinite(v):
        raise ExperimentError(f"{where}{name}={value}: expected a number >= 0")
    return value


def clusters_available():
    d = os.path.join(ROOT, "emulated-clusters")
    return sorted(f[:-len(".cluster")] for f in os.listdir(d) if f.endswith(".cluster"))


def parse_definition(path, _reading=()):
    """_reading: the definitions whose paper_from led here (a cycle is
    refused)."""
    if not os.path.isfile(path):
        raise ExperimentError(f"{path}: no such experiment definition")
    d = Definition(path)
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for lineno, raw in enumerate(lines, 1):
        where = f"{path}:{lineno}: "
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ExperimentError(f"{where}expected 'key = value', got '{line}'")
        base, _, log = key.partition(".")
        if base == "paper":
            parts = key.split(".")
            if len(parts) != 5:
                raise ExperimentError(f"{where}expected paper.<metric>.<log>.<pattern>."
                                      f"<policy> = <number>, got '{key}'")
            try:
                d.paper[tuple(parts[1:])] = float(value)
            except ValueError:
                raise ExperimentError(f"{where}{key} = {value}: expected a number") from None
            d.paper_text[tuple(parts[1:])] = value
        elif base in PARAMS:
            d.params[(base, log)] = check_number(base, value, where)
        elif base == "cluster":
            d.cluster[log] = value
        elif base == "select":
            if log not in list_overrides() and log not in PARAMS and log != "LOGS":
                raise ExperimentError(f"{where}'{key}': select takes "
                                      + ", ".join(["LOGS"] + kind_list_names()
                                                  + ["POLICIES", "PATTERNS"])
                                      + " or a parameter")
            d.select[log] = value
        elif log:
            raise ExperimentError(f"{where}'{key}': only cluster and UPPERCASE "
                                  "parameters take a .<log> suffix")
        elif key == "description":
            d.description = value
        elif key == "kind":
            if value not in KINDS:
                raise ExperimentError(f"{where}kind = {value}: expected one of {' '.join(KINDS)}")
            d.kind = value
        elif key in LISTS or key in list_keys():
            setattr(d, key, value.split())
        elif key == "citation":
            d.citation = value
        elif key == "clock_reason":
            d.clock_reason = value
        elif key == "baseline":
            d.baseline = value
        elif key == "baseline_per_pattern":
            if value not in ("yes", "no"):
                raise ExperimentError(f"{where}baseline_per_pattern = {value}: expected yes or no")
            d.baseline_per_pattern = value == "yes"
        elif key in ("sample", "parallel"):
            if not value.isdigit() or int(value) < 1:
                raise ExperimentError(f"{where}{key} = {value}: expected a whole number >= 1")
            setattr(d, key, int(value))
        elif key == "note":
            d.notes.append(value)
        elif key == "paper_from":
            d.paper_from += value.split()
        else:
            raise ExperimentError(f"{where}unknown key '{key}'")
    read_paper_from(d, f"{path}: ", _reading)
    check_clock(d, f"{path}: ")
    validate(d, f"{path}: ")
    return d


def read_paper_from(d, where, reading):
    """paper_from = <definition> ...: the paper's numbers of other
    definitions beside this one (experiments/<name>.exp), each parsed and
    checked whole, so that a table of several logs shows the numbers the
    per-log definitions declare, with no second copy. A number that two
    of them give, or this one and one of them, is refused."""
    here = os.path.abspath(d.path)
    given = {k: "this definition" for k in d.paper}
    for name in d.paper_from:
        src = os.path.join(os.path.dirname(d.path), name + ".exp")
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name) or not os.path.isfile(src):
            raise ExperimentError(f"{where}paper_from {name}: expected the name of a "
                                  f"definition beside this one (no {src})")
        if os.path.abspath(src) in (here,) + tuple(reading):
            raise ExperimentError(f"{where}paper_from {name}: a definition that reads "
                                  "its own paper lines")
        other = parse_definition(src, (here,) + tuple(reading))
        for k, v in other.paper.items():
            if k in given:
                raise ExperimentError(f"{where}paper.{'.'.join(k)}: given by {given[k]} "
                                      f"and by {name}")
            given[k] = name
            d.paper[k], d.paper_text[k] = v, other.paper_text[k]
        d.paper_files += [src] + other.paper_files


def check_clock(d, where):
    """A definition with the paper's numbers runs on the virtual clock:
    the scaled clock's artefacts (a job holds its nodes up to SPEEDUP log
    seconds longer, a scheduling pass every SPEEDUP log seconds) put the
    ICPP-W Theta baseline's execution 4.6 % above the log's runtimes and
    its wait far above the virtual clock's (issue 26). The scaled clock
    stays for smoke tests; a paper table asking for it says why
    (clock_reason = ...), and the table shows the reason."""
    scaled = sorted({lg or "all logs" for (k, lg), v in d.params.items()
                     if k == "CLOCK" and v == "scaled"})
    if not scaled or not d.paper:
        return
    if not d.clock_reason:
        raise ExperimentError(f"{where}CLOCK = scaled ({', '.join(scaled)}) in a definition "
                              "with the paper's numbers: the scaled clock is for smoke tests; "
                              "use CLOCK = virtual, or say why in 'clock_reason = ...'")
    d.notes.append(f"CLOCK = scaled ({', '.join(scaled)}): {d.clock_reason}")


def validate(d, where):
    if not d.logs:
        raise ExperimentError(f"{where}no logs")
    kind = kind_of(d)
    if kind.default_patterns and not d.patterns:
        d.patterns = list(kind.default_patterns)
    try:
        policies = policy_names(ROOT)
    except RegistryError as e:
        raise ExperimentError(f"{where}{e}") from None
    check_names("policies", d.policies, policies, where)
    if d.baseline not in d.policies:
        raise ExperimentError(f"{where}the baseline '{d.baseline}' is not among the "
                              f"policies '{' '.join(d.policies)}'")
    check_names("patterns", d.patterns, PATTERNS + ["mix"], where)
    for log in d.logs:
        c = d.cluster_of(log)
        if c is None:
            raise ExperimentError(f"{where}no cluster for log '{log}'")
        if c not in clusters_available():
            raise ExperimentError(f"{where}cluster '{c}': expected one of "
                                  f"{' '.join(clusters_available())}")
    valid_metrics = METRIC_KEYS + ["wait_hours"]
    if kind.uses_metrics:
        check_names("metrics", d.metrics, valid_metrics, where)
    for b in d.size_bins:
        if not re.fullmatch(r"\d+(-\d+)?", b):
            raise ExperimentError(f"{where}size_bins '{b}': expected <n> or <from>-<to>")
    # Each kind in turn: its own checks for the definition's kind; for
    # another, that none of its lists is set.
    for k in KINDS.values():
        if k is kind:
            k.validate(d, where)
        elif any(getattr(d, key) != default for key, default in k.lists.items()):
            raise ExperimentError(f"{where}{' and '.join(k.lists)} are for kind {k.name}, "
                                  f"not {d.kind}")


def find_definition(name_or_path, directory):
    if os.sep in name_or_path or name_or_path.endswith(".exp"):
        return parse_definition(name_or_path)
    path = os.path.join(directory, name_or_path + ".exp")
    if not os.path.exists(path):
        raise ExperimentError(f"unknown EXP '{name_or_path}'; valid: "
                              f"{' '.join(list_names(directory))}")
    return parse_definition(path)


def list_names(directory):
    return sorted(f[:-4] for f in os.listdir(directory) if f.endswith(".exp"))


def apply_overrides(d, sets, select=True):
    """K=V from the command line replace the definition's values; each one
    is recorded, so that the table says what differs from the definition.
    The definition's select.<K> lines apply first, for every K the command
    line does not name, unless it gives FULL=1 (the whole definition) or
    select is false (a table of runs the caller chose)."""
    given = {kv.partition("=")[0] for kv in sets}
    full = [kv.partition("=")[2] for kv in sets if kv.partition("=")[0] == "FULL"]
    if full and full[-1] not in ("0", "1"):
        raise ExperimentError(f"FULL={full[-1]}: expected 1 (the whole definition, "
                              "not its select lines) or 0")
    chosen = [] if (full and full[-1] == "1") or not select else [
        f"{k}={v}" for k, v in d.select.items() if k not in given]
    for kv in chosen + [kv for kv in sets if kv.partition("=")[0] != "FULL"]:
        key, sep, value = kv.partition("=")
        if not sep:
            raise ExperimentError(f"--set {kv}: expected K=V")
        where = ""
        if key == "CLUSTER":
            old = " ".join(sorted(set(d.cluster_of(lg) for lg in d.logs)))
            d.cluster = {"": value}
        elif key == "LOGS":
            # Fewer of the definition's logs: another log would lack its
            # per-log parameters (JOBS.<log>, SCALE.<log>, ...).
            old = " ".join(d.logs)
            extra = [lg for lg in value.split() if lg not in d.logs]
            if extra or not value.split():
                raise ExperimentError(f"LOGS={value}: expected some of the definition's "
                                      f"logs: {old}")
            d.logs = value.split()
        elif key in list_overrides():
            attr = list_overrides()[key]
            old = " ".join(getattr(d, attr))
            if attr == "policies" and d.defined_policies is None:
                d.defined_policies = list(d.policies)
            setattr(d, attr, value.split())
        elif key == "BASELINE":
            old = d.baseline
            d.baseline = value
        elif key == "READING":
            old = apply_reading(d, value)
        elif key in PARAMS:
            check_number(key, value, where)
            olds = sorted({f"{v}{' for ' + lg if lg else ''}"
                           for (k, lg), v in d.params.items() if k == key})
            old = ", ".join(olds) or "unset"
            d.params = {(k, lg): v for (k, lg), v in d.params.items() if k != key}
            d.params[(key, "")] = value
        else:
            raise ExperimentError(f"{key}={value}: an experiment takes "
                                  + ", ".join(["CLUSTER", "POLICIES", "PATTERNS", "BASELINE",
                                               "LOGS"] + kind_list_names())
                                  + f" and {' '.join(PARAMS)}")
        if kv in chosen:
            d.overrides.append(f"{key}={value}: the definition's selection for a plain run "
                               f"(FULL=1 runs all: {old})")
        else:
            d.overrides.append(f"{key}={value} given on the command line (definition: {old})")
    validate(d, "")
