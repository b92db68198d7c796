"""The replays an experiment needs (runs.tsv) and its directory
(experiment.json, a copy of the definition), made whole or not at all.
"""

import datetime
import json
import os
import re
import shutil

from workloads.replay.run_dir import git_revision
from .definition import ROOT
from .errors import ExperimentError
from .sc18 import base_scale, ta_policy
from .tables import write_atomic
from .treematch import baseline_once, ratio_value


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
                "git_revision": git_revision(ROOT),
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        write_atomic(os.path.join(tmp, "experiment.json"), json.dumps(meta, indent=2) + "\n")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return runs
