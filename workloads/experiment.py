#!/usr/bin/env python3
"""make experiment: experiment definitions (experiments/<name>.exp), the list
of runs one needs, and the table that sets our results beside the paper's.

    experiment.py list [--dir DIR]
    experiment.py plan NAME --id ID --out EXP_DIR [--dir DIR] [--set K=V ...]
    experiment.py table EXP_DIR [--plots]
    experiment.py table --def NAME|FILE [--set K=V ...] --out DIR RUN_DIR ...

`plan` writes EXP_DIR/experiment.json and EXP_DIR/runs.tsv (one line per
replay: k, Compose project, log, cluster, pattern, policy, make variables);
scripts/experiment starts them. `table` reads the runs' manifest.json and
sacct.json (the numbers are report.py's own functions, as in metrics.json)
and writes table.md and table.csv (kind sc18: also table-runs.csv, each
run's figures); the second form takes run directories directly (tests, or
runs made by hand).

A definition is key = value lines ('#' starts a comment):
  description, kind (continuous | shadow | individual | cost-by-size | sc18 |
  treematch),
  citation, logs, cluster, policies, baseline, patterns, metrics
  (continuous), baseline_per_pattern, sample (shadow), size_bins
  (cost-by-size, sc18), loads and ta_speedups (sc18), ratios (treematch),
  parallel, note (repeatable);
  UPPERCASE keys are replay parameters (JOBS, SPEEDUP, CLOCK, ...), and any
  of cluster and the parameters may take a '.<log>' suffix for one log;
  paper.<metric>.<log>.<pattern>.<policy> = <number>, '*' where the paper
  gives one number for all logs, patterns or policies.

Kind sc18 (the SC18 paper's QoS study) runs, per log, each load level
(`loads`: job sizes multiplied by it, i.e. SCALE divided by it) under the
baseline (TO) once and under the other policy (TA) once per entry of
`ta_speedups` (none, or a TA_SPEEDUP scenario). Its paper figures are
paper.<metric>.<workload>.<load>.<setup> = <number as printed>, with
  metric   wait_mean_h|_min, wait_<from>-<to>_h|_min (one of size_bins),
           wait_increase_h|_min (setup minus TO), utilization_drop_pct
           (TO minus setup, % of TO), makespan_increase_pct (% of TO);
  workload the paper's name (aug, sept, ...), '@<machine>' when it is not
           the definition's cluster (aug@pinot);
  load     the paper's size multiplier (1, 2, 3);
  setup    TO, TA, TA-5, TA-10, TA-20, TA-V1, TA-V2.

Kind individual (the ICPP-W paper's Table 4) runs every policy once per
log x pattern with the replay's INDIVIDUAL= (required) and OCCUPY=: the
same drawn jobs one at a time from the same partly occupied cluster. Its
table gives each policy's % less execution time than the baseline's run
over the same jobs (measured, sacct's), what Eq. 7 applied, and the
same-state costs of the baseline run (as kind shadow) beside the paper's
paper.improvement_pct.<log>.<pattern>.<policy>.

Kind treematch (the TreeMatch paper's Table 2) runs, per log, each policy
once per communication ratio of `ratios` (fractions p/q, the run's RATIO),
the baseline (SLURM) once for all when OPTIONS holds denominator=default.
Its paper figures are paper.<metric>.<log>.<ratio>.<policy> with metric
makespan_s, utilization_pct, flowtime_gain_s or runtime_gain_s (Figs. 5
and 6: mean per-job difference, SLURM minus the policy). Every kind leaves
a replay's PREFILL jobs out of its figures.
"""

import argparse
import csv
import datetime
import io
import json
import math
import os
import random
import re
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "metrics")]
import eq7  # noqa: E402
import faults  # noqa: E402
import replay  # noqa: E402
import report  # noqa: E402
import generate  # noqa: E402  (report.py put emulated-clusters on the path)
import ta_speedup  # noqa: E402
from logs import STUDY_SIZE_DIVISOR  # noqa: E402

KINDS = ("continuous", "shadow", "individual", "cost-by-size", "sc18", "treematch")
INT_PARAMS = ("JOBS", "FIRST", "SEED", "FRONTENDS", "EMULATORS", "INDIVIDUAL")
FLOAT_PARAMS = ("SCALE", "SPEEDUP", "COMM", "LIMIT_GRID", "RATIO", "SPARSITY", "LEAD",
                "RUNTIME_FACTOR", "PREFILL", "OCCUPY")
# Parameters that take one of a few words.
WORD_PARAMS = {"STRICT": ("0", "1"), "CLOCK": ("scaled", "virtual"),
               "GRANULARITY": ("node", "core"),
               "IDLE_JUMPS": ("0", "1"), "LAUNCH_GUARD": ("0", "1")}
# OPTIONS: the library's named readings for the run's `make up`
# (generate.py's words, comma-separated).
PARAMS = INT_PARAMS + FLOAT_PARAMS + tuple(WORD_PARAMS) + ("OPTIONS",)
# What the command line may override besides the parameters.
LIST_OVERRIDES = {"POLICIES": "policies", "POLICY": "policies",
                  "PATTERNS": "patterns", "PATTERN": "patterns",
                  "LOADS": "loads", "TA_SPEEDUPS": "ta_speedups", "RATIOS": "ratios"}
# sc18: the TA runs' speed-up scenarios (workloads/ta_speedup.py), and the
# paper's names of the setups (Sec. V-C: TO, TA, TA 5 %, ..., TA V1, TA V2).
TA_SCENARIOS = ("none",) + ta_speedup.SCENARIOS
SC18_METRIC = re.compile(r"(wait_mean|wait_increase|wait_(\d+)-(\d+))_(h|min)"
                         r"|utilization_drop_pct|makespan_increase_pct")
DEFAULT_CITATION = "Agrawal et al., ICPP-W 2020"
METRIC_TEXT = {"exec_hours": "execution time (h, total over jobs)",
               "wait_hours": "wait time (h, total over jobs)",
               "improvement_pct": "% less execution time than the baseline",
               "cost_reduction_pct": "% less communication cost than the baseline"}


class ExperimentError(Exception):
    pass


# --- definitions -------------------------------------------------------------------

class Definition:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".exp")]
        self.description = ""
        self.kind = "continuous"
        self.logs = []
        self.cluster = {}        # log or "" -> cluster
        self.policies = []
        self.baseline = "default"
        self.patterns = []
        self.metrics = ["exec_hours", "wait_hours"]
        self.baseline_per_pattern = False
        self.sample = 200
        self.size_bins = []
        self.loads = ["1"]       # sc18: job-size multipliers
        self.ta_speedups = ["none"]  # sc18: the TA runs' scenarios
        self.ratios = []         # treematch: communication ratios, as fractions p/q
        self.citation = DEFAULT_CITATION
        self.parallel = 0
        self.params = {}         # (name, log or "") -> value
        self.notes = []
        self.overrides = []      # "K=V given on the command line (...)"
        # select.<K> = V: what a plain `make experiment` runs of a larger
        # definition, unless the command line names K or gives FULL=1.
        self.select = {}
        self.paper = {}          # (metric, log, pattern, policy) -> number
        self.paper_text = {}     # the same keys -> the number as written

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
            generate.parse_options(value)
        except generate.DefinitionError as e:
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


def check_names(what, names, valid, where):
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise ExperimentError(f"{where}{what} '{' '.join(names)}': expected some of "
                              f"{' '.join(valid)}")


def clusters_available():
    d = os.path.join(ROOT, "emulated-clusters")
    return sorted(f[:-len(".cluster")] for f in os.listdir(d) if f.endswith(".cluster"))


def parse_definition(path):
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
            if log not in LIST_OVERRIDES and log not in PARAMS and log != "LOGS":
                raise ExperimentError(f"{where}'{key}': select takes LOGS, LOADS, "
                                      "TA_SPEEDUPS, RATIOS, POLICIES, PATTERNS or a parameter")
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
        elif key in ("logs", "policies", "patterns", "metrics", "size_bins", "loads",
                     "ta_speedups", "ratios"):
            setattr(d, key, value.split())
        elif key == "citation":
            d.citation = value
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
        else:
            raise ExperimentError(f"{where}unknown key '{key}'")
    validate(d, f"{path}: ")
    return d


def validate(d, where):
    if not d.logs:
        raise ExperimentError(f"{where}no logs")
    if d.kind in ("sc18", "treematch") and not d.patterns:
        d.patterns = ["mix"]
    try:
        policies = replay.policy_names(ROOT)
    except replay.ReplayError as e:
        raise ExperimentError(f"{where}{e}") from None
    check_names("policies", d.policies, policies, where)
    if d.baseline not in d.policies:
        raise ExperimentError(f"{where}the baseline '{d.baseline}' is not among the "
                              f"policies '{' '.join(d.policies)}'")
    check_names("patterns", d.patterns, replay.PATTERNS + ["mix"], where)
    for log in d.logs:
        c = d.cluster_of(log)
        if c is None:
            raise ExperimentError(f"{where}no cluster for log '{log}'")
        if c not in clusters_available():
            raise ExperimentError(f"{where}cluster '{c}': expected one of "
                                  f"{' '.join(clusters_available())}")
    valid_metrics = report.METRIC_KEYS + ["wait_hours"]
    if d.kind == "continuous":
        check_names("metrics", d.metrics, valid_metrics, where)
    for b in d.size_bins:
        if not re.fullmatch(r"\d+(-\d+)?", b):
            raise ExperimentError(f"{where}size_bins '{b}': expected <n> or <from>-<to>")
    if d.kind == "sc18":
        validate_sc18(d, where)
    elif d.loads != ["1"] or d.ta_speedups != ["none"]:
        raise ExperimentError(f"{where}loads and ta_speedups are for kind sc18, not {d.kind}")
    if d.kind == "individual" and not any(k == "INDIVIDUAL" for k, _ in d.params):
        raise ExperimentError(f"{where}kind individual needs INDIVIDUAL = <jobs run one at "
                              "a time>")
    if d.kind == "treematch":
        validate_treematch(d, where)
    elif d.ratios:
        raise ExperimentError(f"{where}ratios are for kind treematch, not {d.kind}")


def setup_name(scenario):
    """The paper's name of a TA run's setup: TA, TA-5, ..., TA-V1, TA-V2."""
    return "TA" if scenario in (None, "", "none") else "TA-" + scenario.upper()


SETUPS = ("TO",) + tuple(setup_name(s) for s in TA_SCENARIOS)


def validate_sc18(d, where):
    others = [p for p in d.policies if p != d.baseline]
    if len(d.policies) != 2 or len(others) != 1:
        raise ExperimentError(f"{where}kind sc18 compares two policies, the baseline (TO) "
                              f"and one other (TA); got '{' '.join(d.policies)}'")
    if len(d.patterns) != 1:
        raise ExperimentError(f"{where}kind sc18 takes one pattern; got '{' '.join(d.patterns)}'")
    if not d.loads:
        raise ExperimentError(f"{where}loads '': expected job-size multipliers, e.g. 1 2 3")
    seen = set()
    for load in d.loads:
        try:
            v = float(load)
        except ValueError:
            v = float("nan")
        if not (math.isfinite(v) and v > 0):
            raise ExperimentError(f"{where}loads '{' '.join(d.loads)}': '{load}' is not a "
                                  "number above 0")
        if v in seen:
            raise ExperimentError(f"{where}loads '{' '.join(d.loads)}': {load} twice")
        seen.add(v)
    check_names("ta_speedups", d.ta_speedups, TA_SCENARIOS, where)
    if len(set(d.ta_speedups)) != len(d.ta_speedups):
        raise ExperimentError(f"{where}ta_speedups '{' '.join(d.ta_speedups)}': a scenario twice")
    for key in d.paper:
        metric, workload, load, setup = key
        name = "paper." + ".".join(key)
        m = SC18_METRIC.fullmatch(metric)
        if not m:
            raise ExperimentError(f"{where}{name}: unknown metric '{metric}'; expected "
                                  "wait_mean_h|_min, wait_<from>-<to>_h|_min, "
                                  "wait_increase_h|_min, utilization_drop_pct or "
                                  "makespan_increase_pct")
        if m.group(2) and f"{m.group(2)}-{m.group(3)}" not in d.size_bins:
            raise ExperimentError(f"{where}{name}: the size range {m.group(2)}-{m.group(3)} "
                                  f"is not among size_bins '{' '.join(d.size_bins)}'")
        if not re.fullmatch(r"[a-z0-9-]+(@[a-z0-9-]+)?", workload):
            raise ExperimentError(f"{where}{name}: workload '{workload}': expected "
                                  "<name> or <name>@<machine> (lowercase)")
        try:
            ok = float(load) > 0
        except ValueError:
            ok = False
        if not ok:
            raise ExperimentError(f"{where}{name}: load '{load}': expected the paper's "
                                  "size multiplier, a number above 0")
        if setup not in SETUPS:
            raise ExperimentError(f"{where}{name}: setup '{setup}': expected one of "
                                  f"{' '.join(SETUPS)}")
        if setup == "TO" and metric_type(metric) != "absolute":
            raise ExperimentError(f"{where}{name}: {metric} compares a TA setup with TO; "
                                  "TO has none")


def metric_type(metric):
    """absolute (a value per setup), change (% of TO's) or difference
    (setup minus TO)."""
    if metric in ("utilization_drop_pct", "makespan_increase_pct"):
        return "change"
    if metric.startswith("wait_increase_"):
        return "difference"
    return "absolute"


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
        elif key in LIST_OVERRIDES:
            attr = LIST_OVERRIDES[key]
            old = " ".join(getattr(d, attr))
            setattr(d, attr, value.split())
        elif key == "BASELINE":
            old = d.baseline
            d.baseline = value
        elif key in PARAMS:
            check_number(key, value, where)
            olds = sorted({f"{v}{' for ' + lg if lg else ''}"
                           for (k, lg), v in d.params.items() if k == key})
            old = ", ".join(olds) or "unset"
            d.params = {(k, lg): v for (k, lg), v in d.params.items() if k != key}
            d.params[(key, "")] = value
        else:
            raise ExperimentError(f"{key}={value}: an experiment takes CLUSTER, POLICIES, "
                                  f"PATTERNS, BASELINE, LOGS, LOADS, TA_SPEEDUPS, RATIOS and "
                                  f"{' '.join(PARAMS)}")
        if kv in chosen:
            d.overrides.append(f"{key}={value}: the definition's selection for a plain run "
                               f"(FULL=1 runs all: {old})")
        else:
            d.overrides.append(f"{key}={value} given on the command line (definition: {old})")
    validate(d, "")


# --- the runs ----------------------------------------------------------------------

def base_scale(d, log):
    """The log's SCALE at load 1: the definition's, else the replay's default."""
    v = d.params_of(log).get("SCALE")
    return float(v) if v is not None and float(v) > 0 else float(STUDY_SIZE_DIVISOR.get(log, 1))


def ta_policy(d):
    return next(p for p in d.policies if p != d.baseline)


def planned_runs(d):
    """One replay per log x pattern x policy (continuous; the baseline once
    per log unless baseline_per_pattern), or one under the baseline per log
    x pattern (the same-state kinds, which read every policy's cost from it),
    or (sc18) per log x load one under the baseline (TO) and one under the
    other policy per TA speed-up scenario, with SCALE = the log's / load."""
    runs = []
    if d.kind == "treematch":
        for log in d.logs:
            for i, label in enumerate(d.ratios):
                for policy in d.policies:
                    if policy == d.baseline and i > 0 and baseline_once(d):
                        continue
                    params = dict(d.params_of(log))
                    params["RATIO"] = repr(ratio_value(label))
                    runs.append({"log": log, "cluster": d.cluster_of(log),
                                 "pattern": d.patterns[0], "policy": policy, "params": params})
        return runs
    if d.kind == "sc18":
        for log in d.logs:
            base = base_scale(d, log)
            for load in d.loads:
                params = dict(d.params_of(log))
                # repr: the shortest text that reads back as the same float.
                params["SCALE"] = repr(base / float(load))
                runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": d.patterns[0],
                             "policy": d.baseline, "params": params})
                for scenario in d.ta_speedups:
                    p = dict(params)
                    if scenario != "none":
                        p["TA_SPEEDUP"] = scenario
                    runs.append({"log": log, "cluster": d.cluster_of(log),
                                 "pattern": d.patterns[0], "policy": ta_policy(d), "params": p})
        return runs
    for log in d.logs:
        for i, pattern in enumerate(d.patterns):
            every = d.kind in ("continuous", "individual")
            policies = d.policies if every else [d.baseline]
            for policy in policies:
                # individual: the baseline's run gives the same-state
                # costs of its pattern, so it runs once per pattern.
                if (d.kind == "continuous" and policy == d.baseline and i > 0
                        and not d.baseline_per_pattern):
                    continue
                runs.append({"log": log, "cluster": d.cluster_of(log), "pattern": pattern,
                             "policy": policy, "params": d.params_of(log)})
    return runs


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def plan(d, exp_id, out, sets=()):
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", exp_id):
        raise ExperimentError(f"experiment id '{exp_id}': expected lowercase letters, "
                              "digits, '-' and '_' (a Compose project name)")
    if os.path.exists(out):
        raise ExperimentError(f"{out}: already exists")
    runs = planned_runs(d)
    tmp = f"{out}.tmp-{os.getpid()}"
    try:
        os.makedirs(os.path.join(tmp, "runs"))
        os.makedirs(os.path.join(tmp, "state"))
        lines = []
        for k, r in enumerate(runs, 1):
            params = " ".join(f"{key}={v}" for key, v in sorted(r["params"].items()))
            lines.append("\t".join([str(k), f"{exp_id}-{k}", r["log"], r["cluster"],
                                    r["pattern"], r["policy"], params]))
        write_atomic(os.path.join(tmp, "runs.tsv"), "\n".join(lines) + "\n")
        with open(d.path, encoding="utf-8") as f:
            text = f.read()
        # The table reads this copy: a later edit of the definition does
        # not change what an experiment ran.
        write_atomic(os.path.join(tmp, "definition.exp"), text)
        meta = {"id": exp_id, "name": d.name, "definition_file": os.path.relpath(d.path, ROOT),
                "definition": text, "overrides": d.overrides,
                "sets": list(sets),
                "parallel": d.parallel, "runs": len(runs),
                "git_revision": replay.git_revision(ROOT),
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        write_atomic(os.path.join(tmp, "experiment.json"), json.dumps(meta, indent=2) + "\n")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return runs


# --- results -------------------------------------------------------------------------

class Run:
    """One finished replay: what it ran and its jobs."""

    def __init__(self, run_dir):
        self.dir = run_dir
        self.manifest, sacct, planned = report.load_run(run_dir)
        m = self.manifest
        log = m.get("log", "")
        self.log = log if os.sep not in log else os.path.basename(log)
        self.pattern = m.get("pattern", "")
        self.policy = m["policy"]
        self.run_id = m["run_id"]
        # As make report: one row per log job (a rerun in place of the job
        # a fault hit), and jobs hit by a fault left out of every figure,
        # as are the jobs that filled the machine before the window.
        rows = report.job_rows(m, sacct, {}, faults.deaths(run_dir))
        # As make report: a job launched after its own end is the
        # emulator's artefact, flagged late_launch and left out.
        report.mark_late_launches(rows, run_dir)
        workload = report.mark_prefill(rows, report.prefill_ids(run_dir))
        self.rows = [r for r in workload if not r["fault"]]
        self.fault_jobs = len(workload) - len(self.rows)
        self.rerun_jobs = sum(1 for r in rows if r["attempt"])
        self.metrics = report.metrics(self.rows, m["cluster_nodes"])
        # The paper's Table 3 gives wait hours summed over the jobs.
        self.metrics["wait_hours"] = sum(r["wait_s"] for r in self.rows) / 3600
        got = {r["log_job_id"] for r in rows}
        self.missing = [x for x in planned if x not in got]
        # As make report's "valid": every job placed by the run's policy.
        self.unrecorded = sum(1 for r in self.rows if not r["recorded"])
        self.foreign = report.foreign_policy_jobs(self.rows, self.policy)
        self.resumed = report.pauses(m, run_dir).get("resumed", False)
        # {policy: cost}, every cost the job's record holds.
        for r in self.rows:
            r["costs"] = r["cost_by_policy"]


def load_runs(run_dirs, d=None):
    """The runs by log, pattern and policy; by log, load and setup (sc18)."""
    runs = {}
    for rd in run_dirs:
        try:
            r = Run(rd)
        except report.ReportError as e:
            raise ExperimentError(str(e)) from None
        except (OSError, ValueError, KeyError) as e:
            raise ExperimentError(f"{rd}: not a readable replay ({e})") from None
        if d is not None and d.kind == "sc18":
            key = sc18_key(d, r)
        elif d is not None and d.kind == "treematch":
            key = treematch_key(d, r)
        else:
            key = (r.log, r.pattern, r.policy)
        if key in runs:
            raise ExperimentError(f"two runs of {'/'.join(key)}: {runs[key].run_id} "
                                  f"and {r.run_id}")
        runs[key] = r
    return runs


def sc18_key(d, r):
    """(log, load, setup) of a run: the load from its size divisor (the
    log's SCALE over the run's), the setup from its policy and TA_SPEEDUP."""
    if r.log not in d.logs:
        raise ExperimentError(f"{r.dir}: log '{r.log}' is not among the definition's "
                              f"logs '{' '.join(d.logs)}'")
    divisor = report.fnum(r.manifest.get("size_divisor"))
    if not divisor > 0:
        raise ExperimentError(f"{r.dir}: manifest.json has no size_divisor (SCALE); "
                              "its load is unknown")
    if r.policy not in d.policies:
        raise ExperimentError(f"{r.dir}: policy '{r.policy}' is not among the definition's "
                              f"policies '{' '.join(d.policies)}'")
    base = base_scale(d, r.log)
    load = base / divisor
    found = [lv for lv in d.loads if abs(load - float(lv)) <= 1e-6 * float(lv)]
    if not found:
        raise ExperimentError(f"{r.dir}: SCALE={divisor:g} is no load of the definition "
                              f"(SCALE {base:g} for {r.log} divided by loads "
                              f"{' '.join(d.loads)})")
    setup = "TO" if r.policy == d.baseline else setup_name(r.manifest.get("ta_speedup"))
    return (r.log, found[0], setup)


def run_for(d, runs, log, pattern, policy):
    """The run of log x pattern x policy; the baseline of another pattern
    when the baseline is run once per log."""
    r = runs.get((log, pattern, policy))
    if r is None and policy == d.baseline and not d.baseline_per_pattern:
        r = next((runs[(log, p, policy)] for p in d.patterns if (log, p, policy) in runs), None)
    return r


def change(v, base):
    if v is None or base is None or base == 0 or any(
            isinstance(x, float) and math.isnan(x) for x in (v, base)):
        return None
    return 100 * (v - base) / base


def fmt(v, digits=1, sign=False):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+,.{digits}f}" if sign else f"{v:,.{digits}f}"


def ordering(values, digits, reverse=False):
    """'a < b = c' from {policy: value}, lowest first (highest with
    reverse); values equal at the shown precision tie."""
    vals = {p: round(v, digits) for p, v in values.items()
            if v is not None and not (isinstance(v, float) and math.isnan(v))}
    if len(vals) < len(values):
        return None
    groups = {}
    for p, v in vals.items():
        groups.setdefault(v, []).append(p)
    keys = sorted(groups, reverse=reverse)
    return (" > " if reverse else " < ").join(" = ".join(sorted(groups[k])) for k in keys)


def improvement(rows, policies, baseline, left=None):
    """{policy: % less total runtime than baseline's} had each policy
    placed every job on the state it met: Eq. 7 on the recorded
    same-state costs, computed by eq7.py as make report computes it. left,
    a dict, receives {policy: job ids} a missing cost left out."""
    pct, gone = eq7.changes(rows, policies, baseline)
    if left is not None:
        for p, ids in gone.items():
            left.setdefault(p, []).extend(ids)
    return pct


def sample_rows(rows, n, seed):
    rows = sorted(rows, key=lambda r: r["job_id"])
    if len(rows) <= n:
        return rows
    return random.Random(seed).sample(rows, n)


def bin_of(nodes, bins):
    for b in bins:
        lo, _, hi = b.partition("-")
        if int(lo) <= nodes <= int(hi or lo):
            return b
    return None


class Table:
    def __init__(self):
        self.md = []
        self.csv_rows = []
        self.csv_header = []
        self.more_csv = {}       # another file name -> (header, rows)


def pace_text(m):
    """How a run compressed time: the virtual clock's rate, or SPEEDUP."""
    if m.get("clock") == "virtual":
        return f"CLOCK=virtual at rate {report.fnum(m.get('clock_rate')):g}"
    return f"SPEEDUP={m['speedup']:g}"


def header_md(d, runs, meta):
    out = [f"# Experiment {d.name}" + (f" ({meta['id']})" if meta else ""), "",
           d.description, ""]
    if runs and d.kind == "sc18":
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        windows = []
        for log in d.logs:
            r = next((x for x in rs if x.log == log), None)
            if r:
                mm = r.manifest
                n = mm["jobs"] + mm.get("skipped_too_big", 0)
                windows.append(f"{log} (`{mm.get('log_file', log)}`, {n} jobs from job "
                               f"{mm['first']}, sizes / {base_scale(d, log):g} at load 1)")
        out += [f"Ours: {len(rs)} replays on {m['cluster']} ({m['cluster_nodes']:,} nodes) of "
                + ", ".join(windows) + f"; {pace_text(m)}, seed {m['seed']}, "
                f"git {m.get('git_revision', '?')}. Paper: {d.citation}. Times are log time.", ""]
    elif runs and d.kind == "treematch":
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        first, n = m["first"], m["jobs"]
        pre = (f" after {m['prefill_jobs']} jobs from before it (log jobs before {first}) "
               f"filled {m.get('prefill_nodes', 0):,} of the {m['cluster_nodes']:,} nodes "
               f"(PREFILL={m['prefill']:g})" if m.get("prefill_jobs") else ", no prefill")
        factor = m.get("runtime_factor")
        out += [f"Ours: {len(rs)} replays on {m['cluster']} of `{m.get('log_file', m['log'])}`, "
                f"the workload {n} jobs from job {first} (jobs {first} to {first + n - 1} of "
                f"the log's replayable jobs){pre}; runtimes x "
                f"{1 if factor is None else factor:g}, SPARSITY={m.get('sparsity')}, "
                f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
                f"Paper: {d.citation}. Times are log time.", ""]
    elif runs:
        rs = sorted(runs.values(), key=lambda r: r.run_id)
        m = rs[0].manifest
        out += [f"Ours: {len(rs)} replays, {m['jobs']} jobs each of `{m.get('log_file', m['log'])}`"
                f"{' (and others)' if len(d.logs) > 1 else ''} from job {m['first']}, "
                f"{pace_text(m)}, seed {m['seed']}, git {m.get('git_revision', '?')}. "
                f"Paper: {d.citation}. Times are log time.", ""]
    out += ["What differs from the paper's setting:", ""]
    out += [f"- {n}" for n in d.notes] or ["- nothing noted"]
    out += [f"- {o}" for o in d.overrides]
    if d.kind == "sc18":
        skipped = sorted({(k[0], float(k[1]), k[1], r.manifest.get("skipped_too_big", 0))
                          for k, r in runs.items() if r.manifest.get("skipped_too_big")})
        out += [f"- {n} job{'s' if n != 1 else ''} of the {lg} window larger than the cluster "
                f"skipped at load x{load}" for lg, _, load, n in skipped]
    else:
        skipped = sorted({(r.log, r.manifest.get("skipped_too_big", 0)) for r in runs.values()
                          if r.manifest.get("skipped_too_big")})
        out += [f"- {n} jobs of the {lg} window larger than the cluster were skipped"
                for lg, n in skipped]
    incomplete = [r.run_id for r in runs.values() if r.missing]
    if incomplete:
        out += [f"- **incomplete runs** (jobs missing from sacct.json): {', '.join(incomplete)}"]
    invalid = [f"{r.run_id} ({r.unrecorded + sum(r.foreign.values())})"
               for r in sorted(runs.values(), key=lambda r: r.run_id)
               if r.unrecorded or r.foreign]
    if invalid:
        out += ["- **invalid runs**, jobs without the plugin's record or placed by another "
                "policy than the run's (their figures do not measure the policy; see each "
                f"run's summary.md): {', '.join(invalid)}"]
    resumed = sorted(r.run_id for r in runs.values() if r.resumed)
    if resumed:
        out += ["- resumed runs (jobs due during a pause became eligible together; the "
                f"pause counts in makespan and utilization): {', '.join(resumed)}"]
    damaged = [f"{r.run_id} ({r.fault_jobs})" for r in sorted(runs.values(), key=lambda r: r.run_id)
               if r.fault_jobs]
    if damaged:
        out += ["- **damaged runs**, jobs hit by a fault or launched after their own "
                "end (`late_launch`) left out of their figures "
                f"(`make replay RESUME=<run-id> RERUN_FAULTED=1` runs them again): "
                f"{', '.join(damaged)}"]
    rerun = [f"{r.run_id} ({r.rerun_jobs})" for r in sorted(runs.values(), key=lambda r: r.run_id)
             if r.rerun_jobs]
    if rerun:
        out += ["- runs with jobs run again after a fault (RERUN_FAULTED=1), counted by "
                f"their rerun: {', '.join(rerun)}"]
    return out + [""]


def table_continuous(d, runs, t):
    t.csv_header = ["log", "pattern", "policy", "metric", "ours", "ours_change_pct",
                    "paper", "paper_change_pct", "run_id"]
    cols = []
    for m in d.metrics:
        cols += [f"{m} ours", "vs base", f"{m} paper", "vs base"]
    t.md += [f"% change against the baseline `{d.baseline}` on each side (negative: less). "
             + "; ".join(f"{m}: {METRIC_TEXT.get(m, m)}" for m in d.metrics) + ".", "",
             "| log | pattern | policy | " + " | ".join(cols) + " |",
             "|---|---|---|" + "---|" * len(cols)]
    orders = []
    for log in d.logs:
        for pattern in d.patterns:
            base_run = run_for(d, runs, log, pattern, d.baseline)
            ours_by_metric, paper_by_metric = {}, {}
            cells_by_policy = {}
            for policy in d.policies:
                r = run_for(d, runs, log, pattern, policy)
                cells = []
                for m in d.metrics:
                    ours = r.metrics.get(m) if r else None
                    base = base_run.metrics.get(m) if base_run else None
                    paper = d.paper_value(m, log, pattern, policy)
                    pbase = d.paper_value(m, log, pattern, d.baseline)
                    oc, pc = change(ours, base), change(paper, pbase)
                    ours_by_metric.setdefault(m, {})[policy] = ours
                    paper_by_metric.setdefault(m, {})[policy] = paper
                    cells += [fmt(ours), fmt(oc, sign=True) + "%" if oc is not None else "-",
                              fmt(paper, 0), fmt(pc, sign=True) + "%" if pc is not None else "-"]
                    t.csv_rows.append([log, pattern, policy, m, report.csv_cell(ours),
                                       "" if oc is None else f"{oc:.3f}",
                                       "" if paper is None else f"{paper:g}",
                                       "" if pc is None else f"{pc:.3f}",
                                       r.run_id if r else ""])
                cells_by_policy[policy] = cells
                note = "" if r else " (not run)"
                if r and r.pattern != pattern:
                    note = f" (the {r.pattern} run)"
                t.md.append(f"| {log} | {pattern} | {policy}{note} | " + " | ".join(cells) + " |")
            for m in d.metrics:
                o = ordering(ours_by_metric[m], 1)
                p = ordering(paper_by_metric[m], 0)
                orders.append((log, pattern, m, o, p))
    t.md += ["", "Ordering of the policies, lowest first (`=`: equal at the precision shown):",
             "", "| log | pattern | metric | ours | paper | agrees | same best |",
             "|---|---|---|---|---|---|---|"]
    for log, pattern, m, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        best = "-" if o is None or p is None else (
            "yes" if o.split(" < ")[0] == p.split(" < ")[0] else "no")
        t.md.append(f"| {log} | {pattern} | {m} | {o or '-'} | {p or '-'} | {agrees} | {best} |")
    t.md.append("")


def table_shadow(d, runs, t, seed):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "policy", "jobs", "ours_sample_pct", "ours_all_pct",
                    "ours_comm_pct", "paper_pct", "run_id"]
    t.md += [f"% less execution time than `{d.baseline}` at equal cluster state (the "
             "paper's Table 4 sign: positive is better). Ours: each job's runtime under "
             "each policy from the same-state costs through Eq. 7, totalled over "
             f"{d.sample} jobs drawn with SEED={seed} (sample), over all jobs, and over "
             "the communication-intensive ones.", "",
             "| log | pattern | policy | ours (sample) | ours (all jobs) | ours (comm jobs) | paper |",
             "|---|---|---|---|---|---|---|"]
    orders, left_out = [], []
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r:
                chosen = sample_rows(r.rows, d.sample, seed)
                s = improvement(chosen, d.policies, d.baseline)
                left = {}
                a = improvement(r.rows, d.policies, d.baseline, left)
                c = improvement([x for x in r.rows if x["comm"]], d.policies, d.baseline)
                if left:
                    left_out.append(f"{log}/{pattern}: " + eq7.left_out_text(left))
            ours, paper = {}, {}
            for policy in others:
                pv = d.paper_value("improvement_pct", log, pattern, policy)
                vals = (s[policy], a[policy], c[policy]) if r else (None, None, None)
                ours[policy], paper[policy] = vals[0], pv
                t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                            + " | ".join(fmt(v, 2) for v in vals) + f" | {fmt(pv, 2)} |")
                t.csv_rows.append([log, pattern, policy, len(chosen) if r else "",
                                   *("" if v is None else f"{v:.4f}" for v in vals),
                                   "" if pv is None else f"{pv:g}", r.run_id if r else ""])
            orders.append((log, pattern, ordering(ours, 2, True), ordering(paper, 2, True)))
    t.md += [""] + [x for line in left_out for x in (line, "")]
    t.md += ["Ordering by improvement, highest first (ours: the sample):", "",
             "| log | pattern | ours | paper | agrees |", "|---|---|---|---|---|"]
    for log, pattern, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        t.md.append(f"| {log} | {pattern} | {o or '-'} | {p or '-'} | {agrees} |")
    t.md.append("")


def occupying_nodes(r):
    """{log id: node list} of a run's occupying jobs (plan.tsv)."""
    path = os.path.join(r.dir, "plan.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {row["log_id"]: row.get("nodelist", "")
                for row in csv.DictReader(f, delimiter="\t") if row.get("prefill") == "1"}


def individual_change(base_rows, rows):
    """% less execution time than the baseline's over the jobs both ran
    (sacct's run_s): of the total, and the mean of the per-job changes."""
    base = {r["log_job_id"]: r["run_s"] for r in base_rows if r["run_s"] > 0}
    pairs = [(base[r["log_job_id"]], r["run_s"]) for r in rows if r["log_job_id"] in base]
    if not pairs:
        return 0, None, None
    tb, tp = sum(b for b, _ in pairs), sum(p for _, p in pairs)
    return (len(pairs), 100 * (tb - tp) / tb,
            sum(100 * (b - p) / b for b, p in pairs) / len(pairs))


def applied_change(rows):
    """% less runtime Eq. 7 gave the jobs (runtime_scaled against
    runtime_base, as the plugin recorded them), of the total."""
    b = sum(r["runtime_base_s"] for r in rows if r["runtime_base_s"] > 0)
    p = sum(r["runtime_scaled_s"] for r in rows if r["runtime_base_s"] > 0)
    return 100 * (b - p) / b if b > 0 else None


def table_individual(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "policy", "jobs", "measured_total_pct",
                    "measured_mean_pct", "applied_pct", "same_state_pct", "paper_pct",
                    "run_id"]
    t.md += [f"% less execution time than `{d.baseline}` (the paper's Table 4 sign: "
             "positive is better), the paper's individual runs: the same drawn jobs, one "
             "at a time, each from the same partly occupied cluster. Measured: sacct's "
             "execution times against the baseline run's for the same jobs, of the total "
             "and the mean per job (the paper says \"average percentage improvements\" "
             "and not which). Applied: what Eq. 7 gave the jobs in the policy's run. Same "
             "state: the costs the plugin recorded in the baseline run for every policy "
             "(kind shadow); on one common state the three agree up to launch times.", "",
             "| log | pattern | policy | jobs | measured (total) | measured (mean per job) "
             "| applied (Eq. 7) | same state | paper |",
             "|---|---|---|---|---|---|---|---|---|"]
    orders, states, left_out = [], [], []
    for log in d.logs:
        for pattern in d.patterns:
            base = runs.get((log, pattern, d.baseline))
            left = {}
            shadow = improvement(base.rows, d.policies, d.baseline, left) if base else {}
            if left:
                left_out.append(f"{log}/{pattern}: " + eq7.left_out_text(left))
            ours, paper = {}, {}
            for policy in others:
                r = runs.get((log, pattern, policy))
                pv = d.paper_value("improvement_pct", log, pattern, policy)
                n, total, mean = individual_change(base.rows, r.rows) if base and r else (
                    0, None, None)
                applied = applied_change(r.rows) if r else None
                same = shadow.get(policy)
                ours[policy], paper[policy] = total, pv
                t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                            f"{n} | " + " | ".join(fmt(v, 2) for v in (total, mean, applied,
                                                                      same, pv)) + " |")
                t.csv_rows.append([log, pattern, policy, n] + [
                    "" if v is None else f"{v:.4f}" for v in (total, mean, applied, same)] + [
                    "" if pv is None else f"{pv:g}", r.run_id if r else ""])
                if base and r:
                    states.append((log, pattern, policy,
                                   occupying_nodes(base) == occupying_nodes(r)))
            orders.append((log, pattern, ordering(ours, 2, True), ordering(paper, 2, True)))
    differ = [f"{lg}/{pt}/{pol}" for lg, pt, pol, same in states if not same]
    t.md += [""] + [x for line in left_out for x in ("Same state, " + line, "")]
    t.md += ["", "Same starting state (the occupying jobs on the same nodes as in the "
             "baseline's run): " + ("yes, in every run" if states and not differ else
                                    f"**no**: {', '.join(differ)}" if differ else "-"), ""]
    t.md += ["Ordering by improvement, highest first (ours: measured, total):", "",
             "| log | pattern | ours | paper | agrees |", "|---|---|---|---|---|"]
    for log, pattern, o, p in orders:
        agrees = "-" if o is None or p is None else ("yes" if o == p else "no")
        t.md.append(f"| {log} | {pattern} | {o or '-'} | {p or '-'} | {agrees} |")
    t.md.append("")


def table_cost_by_size(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "size_range", "jobs"] + \
        [x for p in d.policies for x in (f"mean_cost_{p}", f"change_pct_{p}")] + ["run_id"]
    t.md += ["Mean communication cost (Eq. 6) of the communication-intensive jobs of each "
             f"size range (nodes), each policy's cost on the same cluster state; in "
             f"brackets the % change of the total against `{d.baseline}`.", "",
             "| log | pattern | nodes | jobs | " + " | ".join(d.policies) + " |",
             "|---|---|---|---|" + "---|" * len(d.policies)]
    reductions = {}          # (log, pattern) -> {policy: % less total cost}
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r is None:
                t.md.append(f"| {log} | {pattern} | (not run) | | " + " | " * len(d.policies))
                continue
            jobs = [x for x in r.rows if x["comm"] and all(
                not math.isnan(x["costs"].get(p, float("nan"))) for p in d.policies)]
            groups = [(b, [x for x in jobs if bin_of(x["nodes"], d.size_bins) == b])
                      for b in d.size_bins] + [("all", jobs)]
            for b, sel in groups:
                if not sel and b != "all":
                    continue
                tot = {p: sum(x["costs"][p] for x in sel) for p in d.policies}
                cells, csv_cells = [], []
                for p in d.policies:
                    mean = tot[p] / len(sel) if sel else None
                    ch = change(tot[p], tot[d.baseline]) if sel else None
                    cells.append(fmt(mean) + ("" if p == d.baseline or ch is None
                                              else f" ({fmt(ch, 1, True)}%)"))
                    csv_cells += ["" if mean is None else f"{mean:.6g}",
                                  "" if ch is None else f"{ch:.3f}"]
                label = f"**{b}**" if b == "all" else b
                t.md.append(f"| {log} | {pattern} | {label} | {len(sel)} | " + " | ".join(cells) + " |")
                t.csv_rows.append([log, pattern, b, len(sel)] + csv_cells + [r.run_id])
                if b == "all":
                    reductions[(log, pattern)] = {
                        p: (-change(tot[p], tot[d.baseline]) if sel and tot[d.baseline] else None)
                        for p in others}
    t.md += ["", "The paper's numbers (text of §6.4; the figure is missing from our copy): "
             "% less communication cost than the baseline. \"All policies\" is the paper's "
             "\"across all algorithms\", read here as the mean of the three policies' "
             "reductions of the total.", "",
             "| log | pattern | policy | ours | paper |", "|---|---|---|---|---|"]
    for (metric, log, pattern, policy), pv in sorted(d.paper.items()):
        if metric != "cost_reduction_pct":
            continue
        ours = None
        if log == "*":
            vals = [reductions[(lg, pattern)][policy] for lg in d.logs
                    if (lg, pattern) in reductions and reductions[(lg, pattern)].get(policy) is not None]
            ours = sum(vals) / len(vals) if vals and len(vals) == len(d.logs) else None
            shown_log = "mean of " + ", ".join(d.logs)
        else:
            red = reductions.get((log, pattern))
            if red and policy == "*":
                vals = [v for v in red.values() if v is not None]
                ours = sum(vals) / len(vals) if vals else None
            elif red:
                ours = red.get(policy)
            shown_log = log
        run = "" if ours is not None else " (not run)"
        t.md.append(f"| {shown_log} | {pattern} | "
                    f"{'all policies' if policy == '*' else policy} | {fmt(ours, 2)}{run} | {pv:g} |")
    t.md.append("")


# --- sc18 ------------------------------------------------------------------------------

SC18_UNITS = {"h": (1.0, "h", 2), "min": (60.0, "min", 1)}


def utilization_samples(rows, nodes, step=60.0):
    """The SC18 paper's Eq. 2, utilization_t = N_t / N, "recorded every
    minute of simulation time": N_t the nodes of the jobs running at t
    (start <= t < end), t every `step` log seconds from the first
    submission to the last job's end."""
    if not rows or not nodes:
        return []
    first = min(r["eligible"] for r in rows)
    last = max(r["end"] for r in rows)
    starts = sorted((r["start"], r["nodes"]) for r in rows)
    ends = sorted((r["end"], r["nodes"]) for r in rows)
    out, busy, i, j, k = [], 0, 0, 0, 0
    while first + k * step < last:
        t = first + k * step
        while i < len(starts) and starts[i][0] <= t:
            busy += starts[i][1]
            i += 1
        while j < len(ends) and ends[j][0] <= t:
            busy -= ends[j][1]
            j += 1
        out.append(busy / nodes)
        k += 1
    return out


def sc18_stats(r, bins):
    """One run's QoS figures: the paper's utilization samples (median and
    mean), report.py's utilization, makespan, mean wait overall and per
    size range, and the offered load (node-time of the jobs over the nodes
    times the span of their submissions)."""
    rows, n = r.rows, r.manifest["cluster_nodes"]
    samples = utilization_samples(rows, n)
    nan = float("nan")
    st = {"jobs": len(rows),
          "util_median": statistics.median(samples) if samples else nan,
          "util_mean": statistics.fmean(samples) if samples else nan,
          "util_report": r.metrics["utilization"],
          "makespan_h": r.metrics["makespan_s"] / 3600,
          "wait_mean_h": r.metrics["wait_mean_s"] / 3600}
    span = (max(x["eligible"] for x in rows) - min(x["eligible"] for x in rows)) if rows else 0
    st["offered_load"] = (sum(x["nodes"] * x["run_s"] for x in rows) / (n * span)
                          if span > 0 and n else nan)
    for b in bins:
        sel = [x["wait_s"] for x in rows if bin_of(x["nodes"], bins) == b]
        st[f"jobs_{b}"] = len(sel)
        st[f"wait_{b}_h"] = statistics.fmean(sel) / 3600 if sel else nan
    return st


def sc18_quantity(metric):
    """(the stats key a paper metric is about, unit factor from the stats'
    unit, unit label, digits shown)."""
    if metric == "utilization_drop_pct":
        return "util_median", 1.0, "", 3
    if metric == "makespan_increase_pct":
        return "makespan_h", 1.0, "h", 1
    m = SC18_METRIC.fullmatch(metric)
    factor, unit, digits = SC18_UNITS[m.group(4)]
    key = f"wait_{m.group(2)}-{m.group(3)}_h" if m.group(2) else "wait_mean_h"
    return key, factor, unit, digits


def direction(ratio=None, diff=None, digits=2):
    """up, down or = (equal at the precision shown) of a ratio to 1 (two
    decimals) or of a difference to 0; None when it is unknown."""
    if diff is None and ratio is None:
        return None
    v, centre, digits = (ratio, 1, 2) if diff is None else (diff, 0, digits)
    if math.isnan(v):
        return None
    v = round(v, digits)
    return "=" if v == centre else ("up" if v > centre else "down")


def workload_label(d, workload, load):
    """The paper's name of a workload: Aug-2x on Cab, Sept on Cab, ..."""
    name, _, machine = workload.partition("@")
    machine = machine or d.cluster_of(d.logs[0])
    lv = float(load)
    mult = "" if lv == 1 else f"-{lv:g}x"
    return f"{name.capitalize()}{mult} on {machine.capitalize()}", machine


def ratio_of(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or b == 0:
        return float("nan")
    return a / b


def common_waits(a, b):
    """(n, mean wait in a, mean wait in b) over the log jobs both runs
    counted; NaN means when there are none."""
    wa = {r["log_job_id"]: r["wait_s"] for r in a.rows}
    wb = {r["log_job_id"]: r["wait_s"] for r in b.rows}
    both = [k for k in wa if k in wb]
    if not both:
        return 0, float("nan"), float("nan")
    return (len(both), sum(wa[k] for k in both) / len(both),
            sum(wb[k] for k in both) / len(both))


def table_sc18(d, runs, t):
    bins = d.size_bins
    order = {s: i for i, s in enumerate(SETUPS)}
    setups = ["TO"] + [setup_name(s) for s in d.ta_speedups]
    stats = {k: sc18_stats(r, bins) for k, r in runs.items()}
    t.md += ["Utilization is the paper's Eq. 2, N_t / N sampled every minute of log time "
             "from the first submission to the last job's end; the paper shows the samples' "
             "distribution (box plots, Fig. 8), so the comparisons use their median, the box's "
             "centre line. report.py's `utilization` (node-time of the jobs over nodes x "
             "makespan) is the samples' mean in the limit of short steps, not their median: "
             "both are given. Makespan (first submission to last end) and wait (start minus "
             "submission) are the paper's and report.py's definitions.", ""]

    # Ours, per run.
    bin_cols = [f"wait {b} (h; jobs)" for b in bins]
    t.md += ["## Ours: per log, load and setup", "",
             "Load: job sizes multiplied by it (SCALE divided by it). Offered load: the "
             "jobs' node-time over the nodes times the span of their submissions.", "",
             "| log | load | setup | jobs | offered load | utilization median | mean | "
             "report.py | makespan (h) | mean wait (h) | " + " | ".join(bin_cols) + " |",
             "|---|---|---|---|---|---|---|---|---|---|" + "---|" * len(bins)]
    runs_header = ["log", "load", "setup", "policy", "ta_speedup", "size_divisor", "jobs",
                   "skipped_too_big", "offered_load", "util_median", "util_mean",
                   "util_report", "makespan_h", "wait_mean_h"] + \
        [x for b in bins for x in (f"wait_{b}_h", f"jobs_{b}")] + ["run_id"]
    runs_rows = []
    for log in d.logs:
        for load in d.loads:
            for setup in setups:
                k = (log, load, setup)
                r, st = runs.get(k), stats.get(k)
                if r is None:
                    t.md.append(f"| {log} | x{load} | {setup} (not run) |"
                                + " - |" * (7 + len(bins)))
                    continue
                cells = [str(st["jobs"]), fmt(st["offered_load"], 2), fmt(st["util_median"], 3),
                         fmt(st["util_mean"], 3), fmt(st["util_report"], 3),
                         fmt(st["makespan_h"], 1), fmt(st["wait_mean_h"], 2)]
                cells += [f"{fmt(st[f'wait_{b}_h'], 2)}; {st[f'jobs_{b}']}" for b in bins]
                t.md.append(f"| {log} | x{load} | {setup} | " + " | ".join(cells) + " |")
                runs_rows.append([log, load, setup, r.policy, r.manifest.get("ta_speedup") or "",
                                  f"{report.fnum(r.manifest.get('size_divisor')):g}", st["jobs"],
                                  r.manifest.get("skipped_too_big", 0)]
                                 + [report.csv_cell(st[c]) for c in runs_header[8:14]]
                                 + [report.csv_cell(st[c]) if c.startswith("wait") else st[c]
                                    for b in bins for c in (f"wait_{b}_h", f"jobs_{b}")]
                                 + [r.run_id])
    t.more_csv["table-runs.csv"] = (runs_header, runs_rows)

    # Backfill against the reserved job (the item 2): the plugin
    # cannot tell backfill which leaves the first blocked job needs.
    res = [(k, r.metrics) for k, r in sorted(runs.items()) if "reservations" in r.metrics]
    if res:
        t.md += ["", "## Backfill against the reserved job", "",
                 "Per run: jobs that were Slurm's reserved job (the first blocked on "
                 "resources, sampled once a wall second), and those that started later "
                 "than first planned (beyond the sampling's resolution) while a job later "
                 "in the log started before them: an upper bound on the reservations "
                 "backfill delayed (README, Experiments).", "",
                 "| log | load | setup | reserved jobs | delayed | mean delay (h) |",
                 "|---|---|---|---|---|---|"]
        for (log, load, setup), m in res:
            t.md.append(f"| {log} | x{load} | {setup} | {m['reservations']} | "
                        f"{m['reservation_delays']} | "
                        f"{fmt(m['reservation_delay_mean_s'] / 3600, 2)} |")

    # Ours, against TO.
    # Jobs left out of one run (a fault, a late launch) and not the other
    # make the two runs' job sets differ: the mean wait over the jobs both
    # counted is given beside the one over each run's own.
    t.md += ["", "## Ours against TO: each setup's figure / TO's (same log and load)", "",
             "Mean wait (both): over the log jobs both runs counted (jobs in both); it "
             "differs from the mean wait column when a run left jobs out (faults, late "
             "launches).", "",
             "| log | load | setup | utilization median | makespan | mean wait | "
             + " | ".join(f"wait {b}" for b in bins) + " | jobs in both | mean wait (both) |",
             "|---|---|---|---|---|---|" + "---|" * len(bins) + "---|---|"]
    for log in d.logs:
        for load in d.loads:
            to = stats.get((log, load, "TO"))
            for setup in setups[1:]:
                st = stats.get((log, load, setup))
                if st is None or to is None:
                    continue
                cols = ["util_median", "makespan_h", "wait_mean_h"] + [f"wait_{b}_h" for b in bins]
                n, w_to, w_setup = common_waits(runs[(log, load, "TO")], runs[(log, load, setup)])
                t.md.append(f"| {log} | x{load} | {setup} | "
                            + " | ".join(fmt(ratio_of(st[c], to[c]), 2) for c in cols)
                            + f" | {n} | {fmt(ratio_of(w_setup, w_to), 2)} |")

    # The paper's figures beside ours.
    t.csv_header = ["load", "workload", "machine", "metric", "setup", "paper_to", "paper_setup",
                    "paper_ratio", "paper_direction", "log", "unit", "ours_to", "ours_setup",
                    "ours_ratio", "ours_direction", "agrees", "run_to", "run_setup"]
    t.md += ["", "## The paper's figures beside ours", "",
             "Setup / TO on each side (ratio); for a figure printed as a change or a "
             "difference, the ratio it implies. Direction: up, down or = (equal at the "
             "precision shown). The paper's workloads are not ours (its Cab logs are not "
             "public): compare directions and ratios, not values.", "",
             "| load | paper's workload | metric | setup | paper TO | paper setup | paper ratio "
             "| log | ours TO | ours setup | ours ratio | direction (paper, ours) | agrees |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    home = d.cluster_of(d.logs[0])
    keys = [k for k in d.paper if k[3] != "TO"]
    first_seen = {}
    for k in d.paper:
        first_seen.setdefault(k[1], len(first_seen))
    # A metric in minutes and in hours is one quantity (10 min beside 8 h).
    metric_seen = {}
    for k in d.paper:
        metric_seen.setdefault(metric_label(k[0]), len(metric_seen))
    keys.sort(key=lambda k: (float(k[2]), workload_label(d, k[1], k[2])[1] != home,
                             first_seen[k[1]], metric_seen[metric_label(k[0])], order[k[3]]))
    tally = {}               # (log, at home) -> [agree, compared]
    for key in keys:
        metric, workload, load, setup = key
        label, machine = workload_label(d, workload, load)
        kind = metric_type(metric)
        qkey, factor, unit, digits = sc18_quantity(metric)
        text, v = d.paper_text[key], d.paper[key]
        p_to, p_to_cell = paper_to(d, key) if kind == "absolute" else (None, "-")
        if kind == "absolute":
            p_set_cell = f"{text} {unit}".strip()
            p_ratio = ratio_of(v, p_to) if p_to is not None else float("nan")
            p_dir = direction(ratio=p_ratio)
        elif kind == "change":
            drop = metric == "utilization_drop_pct"
            p_set_cell = f"{text} % drop" if drop else f"+{text} %"
            p_ratio = 1 - v / 100 if drop else 1 + v / 100
            p_dir = direction(ratio=p_ratio)
        else:
            p_set_cell = f"+{text} {unit}" if v > 0 else f"{text} {unit}"
            p_ratio = float("nan")
            p_dir = direction(diff=v, digits=digits)
        what = metric_label(metric)
        # Our runs at the paper's size multiplier.
        ours_load = next((lv for lv in d.loads if float(lv) == float(load)), None)
        for log in d.logs:
            r_to = runs.get((log, ours_load, "TO")) if ours_load else None
            r_set = runs.get((log, ours_load, setup)) if ours_load else None
            s_to = stats.get((log, ours_load, "TO")) if ours_load else None
            s_set = stats.get((log, ours_load, setup)) if ours_load else None
            o_to = s_to[qkey] * factor if s_to else None
            o_set = s_set[qkey] * factor if s_set else None
            o_ratio = ratio_of(o_set, o_to)
            if kind == "difference":
                diff = o_set - o_to if o_to is not None and o_set is not None else None
                o_dir = direction(diff=diff, digits=digits)
                o_set_cell = (f"{fmt(o_set, digits)} ({fmt(diff, digits, True)})"
                              if diff is not None else "-")
            else:
                o_dir = direction(ratio=o_ratio)
                o_set_cell = fmt(o_set, digits)
            agrees = None if p_dir is None or o_dir is None else p_dir == o_dir
            missing = "" if r_to and r_set else " (not run)"
            t.md.append(f"| x{load} | {label} | {what} | {setup} | {p_to_cell} | {p_set_cell} "
                        f"| {fmt(p_ratio, 2)} | {log}{missing} | {fmt(o_to, digits)} "
                        f"| {o_set_cell} | {fmt(o_ratio, 2)} | {p_dir or '-'}, {o_dir or '-'} | "
                        f"{'-' if agrees is None else ('yes' if agrees else 'no')} |")
            t.csv_rows.append([load, label, machine, metric, setup,
                               "" if p_to is None else p_to_cell, p_set_cell,
                               "" if math.isnan(p_ratio) else f"{p_ratio:.3f}",
                               p_dir or "", log, unit or "fraction",
                               num4(o_to), num4(o_set),
                               "" if math.isnan(o_ratio) else f"{o_ratio:.3f}",
                               o_dir or "", "" if agrees is None else ("yes" if agrees else "no"),
                               r_to.run_id if r_to else "", r_set.run_id if r_set else ""])
            if agrees is not None:
                tl = tally.setdefault((log, machine == home), [0, 0])
                tl[0] += agrees
                tl[1] += 1
    t.md += [""]
    for log in d.logs:
        parts = []
        for at_home, where in ((True, f"on {home.capitalize()}"), (False, "on other machines")):
            a, n = tally.get((log, at_home), (0, 0))
            if n:
                parts.append(f"{a} of {n} {where}")
        t.md.append(f"- {log}: the direction agrees in " + ("; ".join(parts) or "no comparison")
                    + ".")
    t.md.append("")


def num4(v):
    return "" if v is None or math.isnan(v) else f"{v:.4f}"


def paper_to(d, key):
    """The paper's TO figure for an absolute metric, in the unit of `key`'s
    metric, and as printed (its own unit: 10 min beside a TA figure in h)."""
    metric, workload, load, _ = key
    m = SC18_METRIC.fullmatch(metric)
    stem, unit = metric[:-len(m.group(4)) - 1], m.group(4)
    for u in (unit,) + tuple(x for x in SC18_UNITS if x != unit):
        k = (f"{stem}_{u}", workload, load, "TO")
        if k in d.paper:
            v = d.paper[k] / SC18_UNITS[u][0] * SC18_UNITS[unit][0]
            return v, f"{d.paper_text[k]} {SC18_UNITS[u][1]}"
    return None, "-"


def metric_label(metric):
    if metric == "utilization_drop_pct":
        return "utilization (median)"
    if metric == "makespan_increase_pct":
        return "makespan"
    m = SC18_METRIC.fullmatch(metric)
    if m.group(2):
        return f"mean wait, {m.group(2)}-{m.group(3)} nodes"
    return "mean wait, increase" if m.group(1) == "wait_increase" else "mean wait"


def build_table(d, run_dirs, out, meta=None, plots=False):
    runs = load_runs(run_dirs, d)
    t = Table()
    t.md = header_md(d, runs, meta)
    seed = int(d.params_of(d.logs[0]).get("SEED", 0))
    if d.kind == "continuous":
        table_continuous(d, runs, t)
    elif d.kind == "shadow":
        table_shadow(d, runs, t, seed)
    elif d.kind == "individual":
        table_individual(d, runs, t)
    elif d.kind == "sc18":
        table_sc18(d, runs, t)
    elif d.kind == "treematch":
        table_treematch(d, runs, t)
    else:
        table_cost_by_size(d, runs, t)
    t.md += plot_section(d, runs, out) if plots else []
    os.makedirs(out, exist_ok=True)
    for name, (header, rows) in [("table.csv", (t.csv_header, t.csv_rows))] + \
            sorted(t.more_csv.items()):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        write_atomic(os.path.join(out, name), buf.getvalue())
    write_atomic(os.path.join(out, "table.md"), "\n".join(t.md))
    return runs


def plot_section(d, runs, out):
    """report.py compare's plots (execution and mean wait by policy, per-job
    times) for each log x pattern of a continuous experiment."""
    if d.kind in ("sc18", "treematch"):
        return ["No plot: each run's own plots (utilization over time, wait CDF) are in "
                "its directory.", ""]
    if d.kind != "continuous":
        return ["No plot: report.py has no plot of same-state costs to reuse.", ""]
    lines = []
    for log in d.logs:
        for pattern in d.patterns:
            group = [run_for(d, runs, log, pattern, p) for p in d.policies]
            if any(r is None for r in group):
                continue
            dest = os.path.join(out, f"compare-{log}-{pattern}")
            try:
                report.compare([r.dir for r in group], dest)
                lines += [f"![{log} {pattern}](compare-{log}-{pattern}/policies.png)", ""]
            except Exception as e:  # noqa: BLE001 - a plot is optional; say why not
                lines += [f"No plot for {log} {pattern}: {type(e).__name__}: {e}", ""]
    return lines


# --- treematch ---------------------------------------------------------------------------

# The TreeMatch paper's names of the strategies (Sec. 4.2, 4.3).
TM_NAMES = {"default": "SLURM", "tm-a": "TM-A", "tm-i": "TM-I", "tm-sub": "TM-Sub",
            "tm-sub3": "TM-Isub+3"}
# paper.<metric>.<log>.<ratio>.<policy>: Table 2's makespan (s) and
# utilization (%), and Figs. 5 and 6's mean per-job flow time and runtime
# differences with SLURM (s, SLURM minus the strategy: positive is faster).
TM_METRICS = {"makespan_s": ("makespan (s)", 0),
              "utilization_pct": ("utilization (%)", 1),
              "flowtime_gain_s": ("mean flow time gain on SLURM (s)", 2),
              "runtime_gain_s": ("mean runtime gain on SLURM (s)", 2)}


def ratio_value(label):
    """A communication ratio written as a fraction p/q (1/3, 1/2, 1/10)."""
    m = re.fullmatch(r"(\d+)/(\d+)", label)
    if not m or int(m.group(2)) == 0 or not 0 < int(m.group(1)) <= int(m.group(2)):
        return None
    return int(m.group(1)) / int(m.group(2))


def ratio_text(label):
    return f"{label} ({100 * ratio_value(label):.3g} %)"


def baseline_once(d):
    """The baseline keeps the log's runtimes whatever the ratio when Eq. 7's
    denominator is default itself (OPTIONS=denominator=default): one run
    stands for every ratio. Otherwise default's runtimes follow Eq. 7
    against default1905, which depends on the ratio: one run per ratio."""
    opts = d.params_of(d.logs[0]).get("OPTIONS", "")
    return "denominator=default" in opts.split(",")


def validate_treematch(d, where):
    if len(d.patterns) != 1:
        raise ExperimentError(f"{where}kind treematch takes one pattern; got "
                              f"'{' '.join(d.patterns)}'")
    if not d.ratios:
        raise ExperimentError(f"{where}ratios '': expected communication ratios as "
                              "fractions, e.g. 1/3 1/2")
    seen = set()
    for label in d.ratios:
        v = ratio_value(label)
        if v is None:
            raise ExperimentError(f"{where}ratios '{' '.join(d.ratios)}': '{label}' is not "
                                  "a fraction p/q above 0 and at most 1")
        if v in seen:
            raise ExperimentError(f"{where}ratios '{' '.join(d.ratios)}': {label} twice")
        seen.add(v)
    if any(k == "RATIO" for k, _ in d.params):
        raise ExperimentError(f"{where}RATIO is each run's own in kind treematch (ratios = "
                              f"{' '.join(d.ratios)}); RATIOS='...' narrows them")
    for key in d.paper:
        metric, log, ratio, policy = key
        name = "paper." + ".".join(key)
        if metric not in TM_METRICS:
            raise ExperimentError(f"{where}{name}: unknown metric '{metric}'; expected one of "
                                  f"{' '.join(TM_METRICS)}")
        if log not in d.logs + ["*"]:
            raise ExperimentError(f"{where}{name}: log '{log}' is not among the logs "
                                  f"'{' '.join(d.logs)}'")
        if ratio_value(ratio) is None:
            raise ExperimentError(f"{where}{name}: ratio '{ratio}': expected a fraction p/q")
        if policy not in d.policies:
            raise ExperimentError(f"{where}{name}: policy '{policy}' is not among the "
                                  f"policies '{' '.join(d.policies)}'")
        if metric.endswith("_gain_s") and policy == d.baseline:
            raise ExperimentError(f"{where}{name}: {metric} compares a strategy with the "
                                  "baseline; the baseline has none")


def treematch_key(d, r):
    """(log, ratio label, policy) of a run, the ratio from its RATIO."""
    if r.log not in d.logs:
        raise ExperimentError(f"{r.dir}: log '{r.log}' is not among the definition's "
                              f"logs '{' '.join(d.logs)}'")
    if r.policy not in d.policies:
        raise ExperimentError(f"{r.dir}: policy '{r.policy}' is not among the definition's "
                              f"policies '{' '.join(d.policies)}'")
    v = report.fnum(r.manifest.get("ratio"))
    found = [lb for lb in d.ratios if abs(v - ratio_value(lb)) <= 1e-6]
    if not found:
        raise ExperimentError(f"{r.dir}: RATIO={r.manifest.get('ratio')} is none of the "
                              f"definition's ratios {' '.join(d.ratios)}")
    return (r.log, found[0], r.policy)


def treematch_run(d, runs, log, label, policy):
    """The run of log x ratio x policy; the baseline's of another ratio
    when it is run once."""
    r = runs.get((log, label, policy))
    if r is None and policy == d.baseline and baseline_once(d):
        r = next((runs[(log, lb, policy)] for lb in d.ratios if (log, lb, policy) in runs),
                 None)
    return r


def treematch_stats(r, base):
    """One run's figures over its workload (the prefill left out), as the
    paper defines them (Sec. 4.1): makespan, first submission to last end;
    utilization, the jobs' node-time over the nodes x makespan; mean flow
    time (end minus submission), runtime (end minus start) and stretch
    (flow time over the runtime under SLURM, the job's base runtime T);
    and, against the baseline run `base` job by job, the mean flow time
    and runtime gains (baseline minus this run, Figs. 5 and 6). R is the
    hop-bytes of the nodes the job got over default's on the same state,
    for jobs with a matrix."""
    m, rows = r.metrics, r.rows
    nan = float("nan")
    # At GRANULARITY=core report.py's utilization counts CPUs, as the paper.
    st = {"jobs": len(rows), "makespan_s": m["makespan_s"],
          "utilization_pct": 100 * m["utilization"] if rows else nan,
          "flowtime_mean_s": m["turnaround_mean_s"],
          "runtime_mean_s": statistics.fmean(x["run_s"] for x in rows) if rows else nan,
          "stretch_mean": m["stretch_mean"]}
    rs = [x["hop_bytes"] / x["hop_bytes_default"] for x in rows
          if x["hop_bytes_default"] > 0 and not math.isnan(x["hop_bytes"])]
    st["r_mean"] = statistics.fmean(rs) if rs else nan
    gains = [1 - x["runtime_scaled_s"] / x["runtime_base_s"] for x in rows
             if x["runtime_base_s"] > 0 and not math.isnan(x["runtime_scaled_s"])]
    st["modelled_gain_pct"] = 100 * statistics.fmean(gains) if gains else nan
    st["flowtime_gain_s"] = st["runtime_gain_s"] = nan
    st["paired_jobs"] = 0
    if base is not None:
        by_id = {x["log_job_id"]: x for x in base.rows}
        pairs = [(by_id[x["log_job_id"]], x) for x in rows if x["log_job_id"] in by_id]
        if pairs:
            st["paired_jobs"] = len(pairs)
            st["flowtime_gain_s"] = statistics.fmean(b["turnaround_s"] - x["turnaround_s"]
                                                     for b, x in pairs)
            st["runtime_gain_s"] = statistics.fmean(b["run_s"] - x["run_s"] for b, x in pairs)
    return st


def table_treematch(d, runs, t):
    names = {p: TM_NAMES.get(p, p) for p in d.policies}
    stats = {}
    for log in d.logs:
        for label in d.ratios:
            base = treematch_run(d, runs, log, label, d.baseline)
            for policy in d.policies:
                r = treematch_run(d, runs, log, label, policy)
                if r is not None:
                    stats[(log, label, policy)] = (r, treematch_stats(r, base))
    t.md += ["The paper's metrics (Sec. 4.1) over the workload, the jobs that filled the "
             "machine first left out: makespan, from the workload's first submission to its "
             "last end; utilization, the workload's node-time over all nodes x makespan; "
             "flow time, end minus submission; runtime, end minus start; stretch, flow time "
             "over the job's runtime under SLURM (its log runtime x RUNTIME_FACTOR). Gains on "
             "SLURM are Figs. 5 and 6's mean per-job differences, SLURM minus the strategy, "
             "job by job against the baseline run (positive: faster). R: the job's hop-bytes "
             "over default's on the same state (jobs with a matrix); modelled gain: 1 - T'/T "
             "of Sec. 3.2's model, T' = (1 + R a - a) T, over all jobs (the paper designed "
             "its matrices for about 4, 11 and 18 % at a = 10, 30 and 50 %).", "",
             "## Ours: per ratio and strategy", "",
             "| log | a | strategy | jobs | makespan (s) | utilization (%) | mean flow time (s) "
             "| mean runtime (s) | mean stretch | mean R | modelled gain (%) | flow time gain (s) "
             "| runtime gain (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    runs_header = ["log", "ratio", "policy", "strategy", "jobs", "makespan_s",
                   "utilization_pct", "flowtime_mean_s", "runtime_mean_s", "stretch_mean",
                   "r_mean", "modelled_gain_pct", "flowtime_gain_s", "runtime_gain_s",
                   "paired_jobs", "run_id"]
    runs_rows = []
    for log in d.logs:
        for label in d.ratios:
            for policy in d.policies:
                got = stats.get((log, label, policy))
                if got is None:
                    t.md.append(f"| {log} | {ratio_text(label)} | {names[policy]} (not run) |"
                                + " - |" * 10)
                    continue
                r, st = got
                shared = ("" if (log, label, policy) in runs
                          else f" (the {treematch_key(d, r)[1]} run)")
                gain = policy != d.baseline
                t.md.append(f"| {log} | {ratio_text(label)} | {names[policy]}{shared} | "
                            f"{st['jobs']} | {fmt(st['makespan_s'], 0)} | "
                            f"{fmt(st['utilization_pct'], 1)} | {fmt(st['flowtime_mean_s'], 1)} | "
                            f"{fmt(st['runtime_mean_s'], 1)} | {fmt(st['stretch_mean'], 2)} | "
                            f"{fmt(st['r_mean'], 3)} | {fmt(st['modelled_gain_pct'], 1)} | "
                            f"{fmt(st['flowtime_gain_s'], 1) if gain else '-'} | "
                            f"{fmt(st['runtime_gain_s'], 1) if gain else '-'} |")
                runs_rows.append([log, label, policy, names[policy]]
                                 + [report.csv_cell(st[c]) for c in runs_header[4:15]]
                                 + [r.run_id])
    t.more_csv["table-runs.csv"] = (runs_header, runs_rows)

    # The paper's figures beside ours.
    t.csv_header = ["log", "ratio", "metric", "policy", "strategy", "paper", "paper_vs_slurm_pct",
                    "ours", "ours_vs_slurm_pct", "run_id"]
    t.md += ["", "## The paper's Table 2 and Figs. 5, 6 beside ours", "",
             "Paper: Table 2 (emulation, as printed) and the mean differences of Figs. 5 "
             "and 6; % against SLURM on each side.", "",
             "| log | a | metric | strategy | paper | vs SLURM | ours | vs SLURM |",
             "|---|---|---|---|---|---|---|---|"]
    orders = []
    for log in d.logs:
        for label in d.ratios:
            for metric, (text, digits) in TM_METRICS.items():
                if not any(k[0] == metric and k[1] in (log, "*") and k[2] == label
                           for k in d.paper):
                    continue
                gain = metric.endswith("_gain_s")
                ours, paper = {}, {}
                for policy in d.policies:
                    pv = d.paper_value(metric, log, label, policy)
                    got = stats.get((log, label, policy))
                    ov = got[1][metric] if got else None
                    if gain and policy == d.baseline:
                        pv, ov = 0.0, (0.0 if got else None)
                    pb = d.paper_value(metric, log, label, d.baseline)
                    bgot = stats.get((log, label, d.baseline))
                    ob = bgot[1][metric] if bgot else None
                    pc = None if gain else change(pv, pb)
                    oc = None if gain else change(ov, ob)
                    paper[policy], ours[policy] = pv, ov
                    if gain and policy == d.baseline:
                        continue
                    t.md.append(f"| {log} | {ratio_text(label)} | {text} | {names[policy]} | "
                                f"{fmt(pv, digits)} | "
                                f"{'-' if pc is None else fmt(pc, 1, True) + '%'} | "
                                f"{fmt(ov, digits)}{'' if got else ' (not run)'} | "
                                f"{'-' if oc is None else fmt(oc, 1, True) + '%'} |")
                    t.csv_rows.append([log, label, metric, policy, names[policy],
                                       "" if pv is None else f"{pv:g}",
                                       "" if pc is None else f"{pc:.3f}",
                                       num4(ov), "" if oc is None else f"{oc:.3f}",
                                       got[0].run_id if got else ""])
                # Orderings over the strategies the paper gives, best first
                # (a gain: highest; makespan: lowest; utilization: highest).
                given = [p for p in d.policies if paper.get(p) is not None]
                reverse = metric != "makespan_s"
                o = ordering({p: ours.get(p) for p in given}, digits, reverse)
                pr = ordering({p: paper[p] for p in given}, digits, reverse)
                orders.append((log, label, text, o, pr))
    t.md += ["", "## Orderings, best first", "",
             "Over the strategies the paper gives for the metric (`=`: equal at the precision "
             "shown; makespan: lowest first; utilization and gains: highest first, SLURM's "
             "gain being 0).", "",
             "| log | a | metric | ours | paper | agrees | same best |",
             "|---|---|---|---|---|---|---|"]
    agree = best = n = 0
    for log, label, text, o, pr in orders:
        named = (lambda x: None if x is None else re.sub(
            r"[a-z0-9-]+", lambda m: names.get(m.group(0), m.group(0)), x))
        ok = None if o is None or pr is None else o == pr
        sb = None if o is None or pr is None else (
            re.split(" [<>] ", o)[0] == re.split(" [<>] ", pr)[0])
        if ok is not None:
            n += 1
            agree += ok
            best += sb
        t.md.append(f"| {log} | {ratio_text(label)} | {text} | {named(o) or '-'} | "
                    f"{named(pr) or '-'} | {'-' if ok is None else ('yes' if ok else 'no')} | "
                    f"{'-' if sb is None else ('yes' if sb else 'no')} |")
    t.md += ["", f"The orderings agree in {agree} of {n} comparisons; the best strategy is "
             f"the paper's in {best} of {n}.", ""]


# --- entry -----------------------------------------------------------------------------

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    p = sub.add_parser("plan")
    p.add_argument("name")
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    p.add_argument("--set", action="append", default=[])
    t = sub.add_parser("table")
    t.add_argument("paths", nargs="+", metavar="EXP_DIR | RUN_DIR")
    t.add_argument("--def", dest="definition")
    t.add_argument("--set", action="append", default=[])
    t.add_argument("--out")
    t.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    t.add_argument("--plots", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "list":
            for name in list_names(args.dir):
                d = parse_definition(os.path.join(args.dir, name + ".exp"))
                print(f"{name:22s} {d.description}")
        elif args.cmd == "plan":
            d = find_definition(args.name, args.dir)
            apply_overrides(d, args.set)
            runs = plan(d, args.id, args.out, args.set)
            print(f"experiment {args.id}: {len(runs)} replays")
        elif args.definition:
            if not args.out:
                raise ExperimentError("table --def needs --out <dir>")
            d = find_definition(args.definition, args.dir)
            apply_overrides(d, args.set, select=False)
            build_table(d, args.paths, args.out, plots=args.plots)
            print(f"table: {len(args.paths)} runs -> {args.out}/table.md")
        else:
            if len(args.paths) != 1:
                raise ExperimentError("table: one experiment directory, or --def with run directories")
            exp_dir = args.paths[0]
            meta_path = os.path.join(exp_dir, "experiment.json")
            if not os.path.exists(meta_path):
                raise ExperimentError(f"{exp_dir}: no experiment.json; not an experiment directory")
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
            d = parse_definition(os.path.join(exp_dir, "definition.exp"))
            d.name = meta["name"]
            apply_overrides(d, meta.get("sets", []))
            dirs = []
            for line in open(os.path.join(exp_dir, "runs.tsv"), encoding="utf-8"):
                k = line.split("\t", 1)[0]
                rid_path = os.path.join(exp_dir, "state", f"{k}.run")
                if os.path.exists(os.path.join(exp_dir, "state", f"{k}.done")):
                    rid = open(rid_path, encoding="utf-8").read().strip()
                    dirs.append(os.path.join(exp_dir, "runs", rid))
            build_table(d, dirs, args.out or exp_dir, meta, plots=args.plots)
            print(f"table: {len(dirs)} runs -> {args.out or exp_dir}/table.md")
        return 0
    except ExperimentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
