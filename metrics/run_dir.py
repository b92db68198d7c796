"""A finished replay's directory as the report reads it (manifest.json,
sacct.json, plan.tsv) and the report's files, each written whole.
"""

import csv
import json
import math
import os


class ReportError(Exception):
    pass


def run_files(run_dir, files, expected):
    """{file: its path in run_dir} for each of files, after checking that
    all are there: ReportError "<run_dir>: no <file>; <expected>" names the
    first missing one."""
    paths = {f: os.path.join(run_dir, f) for f in files}
    for f, p in paths.items():
        if not os.path.exists(p):
            raise ReportError(f"{run_dir}: no {f}; {expected}")
    return paths


def load_run(run_dir):
    paths = run_files(run_dir, ("manifest.json", "sacct.json"),
                      "is this a finished replay?")
    with open(paths["manifest.json"], encoding="utf-8") as f:
        manifest = json.load(f)
    with open(paths["sacct.json"], encoding="utf-8") as f:
        sacct = json.load(f)
    planned = []
    plan_path = os.path.join(run_dir, "plan.tsv")
    if os.path.exists(plan_path):
        with open(plan_path, encoding="utf-8") as f:
            planned = [row["log_id"] for row in csv.DictReader(f, delimiter="\t")]
    return manifest, sacct, planned


def prefill_ids(run_dir):
    """The log ids of the jobs a replay ran before its window to fill the
    machine (PREFILL; plan.tsv's prefill column): not the workload, so no
    metric counts them."""
    path = os.path.join(run_dir, "plan.tsv")
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        return {row["log_id"] for row in csv.DictReader(f, delimiter="\t")
                if row.get("prefill") == "1"}


def clean(value):
    """JSON has no NaN: missing numbers are null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    return value


def csv_cell(v):
    """Numbers in one format whatever their type: 20.0 and 20 are "20"."""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.10g}"
    return v


def write_atomic(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
