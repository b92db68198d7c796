"""make experiment: experiment definitions (experiments/<name>.exp), the list
of runs one needs, and the table that sets our results beside the paper's.

    python3 -m workloads.experiment list [--dir DIR]
    python3 -m workloads.experiment overrides
    python3 -m workloads.experiment plan NAME --id ID --out EXP_DIR [--dir DIR] [--set K=V ...]
    python3 -m workloads.experiment table EXP_DIR [--plots]
    python3 -m workloads.experiment table --def NAME|FILE [--set K=V ...] --out DIR RUN_DIR ...

`plan` writes EXP_DIR/experiment.json and EXP_DIR/runs.tsv (one line per
replay: k, Compose project, log, cluster, pattern, policy, make variables);
scripts/experiment starts them. `table` reads the runs' manifest.json and
sacct.json (the numbers are make report's own functions, as in metrics.json)
and writes table.md and table.csv (kind sc18: also table-runs.csv, each
run's figures); the second form takes run directories directly (tests, or
runs made by hand).
"""

import argparse
import json
import os
import sys

from .definition import ROOT
from .definition import apply_overrides, find_definition, list_names, override_names
from .definition import parse_definition
from .errors import ExperimentError
from .planning import plan
from .results import build_table


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("--dir", default=os.path.join(ROOT, "experiments"))
    sub.add_parser("overrides")
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
        elif args.cmd == "overrides":
            # What a command line may override besides the settings: read
            # by scripts/experiment, so a new kind's lists need no line there.
            print("\n".join(override_names()))
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
