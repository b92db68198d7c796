"""The replays an experiment needs (runs.tsv) and its directory
(experiment.json, a copy of the definition), made whole or not at all.
"""

import datetime
import json
import os
import re
import shutil
from types import SimpleNamespace

from workloads import endguard, vclock
from workloads.replay.errors import ReplayError
from workloads.replay.plan import check_authors_sizes
from workloads.replay.run_dir import git_revision
from .definition import ROOT
from .errors import ExperimentError
from .kinds import kind_of
from .tables import write_atomic


def planned_runs(d):
    """The replays the definition's kind plans (its plan hook: kind.py)."""
    return kind_of(d).plan(d)


def check_sizes(d, runs):
    """The replay's own check of SIZES=authors (its logs, no SCALE beside
    it: workloads/replay/plan.py, check_authors_sizes), made once here,
    before any testbed is started, rather than by each run after its
    cluster is up."""
    for r in runs:
        p = r["params"]
        if p.get("SIZES") != "authors":
            continue
        try:
            check_authors_sizes(SimpleNamespace(scale=float(p.get("SCALE", 1))), r["log"])
        except ReplayError as e:
            raise ExperimentError(f"{d.name}, log {r['log']}: {e}") from None


def check_end_guard(d, runs):
    """The replay's own check of END_GUARD against the run's rate
    (workloads/endguard.py, misfit), made before any testbed is started."""
    for r in runs:
        p = r["params"]
        clock = p.get("CLOCK", "virtual")
        try:
            guard = float(p.get("END_GUARD", 0))
            rate = float(p.get("SPEEDUP") or vclock.default_speedup(clock))
        except ValueError:
            continue  # the replay's own parser names the bad number
        why = endguard.misfit(guard, clock, rate)
        if why:
            raise ExperimentError(f"{d.name}: {why}")


def plan(d, exp_id, out, sets=()):
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", exp_id):
        raise ExperimentError(f"experiment id '{exp_id}': expected lowercase letters, "
                              "digits, '-' and '_' (a Compose project name)")
    if os.path.exists(out):
        raise ExperimentError(f"{out}: already exists")
    runs = planned_runs(d)
    check_sizes(d, runs)
    check_end_guard(d, runs)
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
        # And the definitions its paper_from reads, beside it, where the
        # copy's paper_from finds them.
        for src in d.paper_files:
            if os.path.basename(src) == "definition.exp":
                raise ExperimentError(f"paper_from {src}: a definition named 'definition' "
                                      "would replace the experiment's copy")
            shutil.copyfile(src, os.path.join(tmp, os.path.basename(src)))
        meta = {"id": exp_id, "name": d.name, "definition_file": os.path.relpath(d.path, ROOT),
                "definition": text, "overrides": d.overrides,
                "sets": list(sets),
                # The policies the tables compare (a shadow kind runs the
                # baseline alone): the twin costs each at every start.
                "policies": list(d.policies),
                "parallel": d.parallel, "runs": len(runs),
                "git_revision": git_revision(ROOT),
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        write_atomic(os.path.join(tmp, "experiment.json"), json.dumps(meta, indent=2) + "\n")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return runs
