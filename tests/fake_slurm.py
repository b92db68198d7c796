#!/usr/bin/env python3
"""The replay (workloads.replay) against a stand-in for the controller
container, for the RESUME / RERUN_FAULTED tests that need no Docker
(tests/rerun.bats).

    fake_slurm.py <slurm.json> <python3 -m workloads.replay arguments ...>

slurm.json is the stand-in's accounting: {"jobs": [sacct JSON records]}.
Each submission becomes a job that has already ended COMPLETED (eligible
at its begin time, or now if that has passed; its runtime / SPEEDUP long)
and is added there, with the fields tb-submit was given under
"submitted". Nothing is ever queued, and every service runs. Exits with
the replay's status. The repository's root must be on PYTHONPATH.
"""

import json
import math
import re
import sys
import threading
import time

from workloads import health
from workloads.replay import cli, cluster, slurm_io


class FakeSlurm:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        self.jobs = doc.get("jobs", [])
        self.submitted = doc.get("submitted", [])
        self.next_id = max([j["job_id"] for j in self.jobs] + [99]) + 1
        self.lock = threading.Lock()    # the replay submits from 4 threads

    def save(self):
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"jobs": self.jobs, "submitted": self.submitted}, f, indent=1)

    def ctl(self, container, command, stdin=None, check=True):
        if command.startswith("squeue -h -a -o '%i %j' && sacct"):
            # reconcile(): what Slurm has of every run.
            return "".join(f"{j['job_id']}|{j['name']}\n" for j in self.jobs)
        m = re.fullmatch(r"sacct -X --json -j ([0-9,]+)", command)
        if m:
            ids = {int(x) for x in m.group(1).split(",")}
            return json.dumps({"meta": {"fake": True},
                               "jobs": [j for j in self.jobs if j["job_id"] in ids]})
        if "squeue" in command or command.startswith("cat >"):
            return ""       # nothing queued; the batch script installed
        raise AssertionError(f"fake_slurm: unexpected command: {command}")

    def submit(self, fields):
        with self.lock:
            return self._submit(fields)

    def _submit(self, fields):
        name, nodes, _limit, begin, _prio, _profile, _matrix, _placement, speedup, runtime = \
            fields[:10]
        jid = self.next_id
        self.next_id += 1
        eligible = max(int(begin), math.floor(time.time()))
        end = eligible + max(1, round(float(runtime) / float(speedup)))
        self.jobs.append({
            "job_id": jid, "name": name, "allocation_nodes": int(nodes),
            "nodes": "t[00-01]", "state": {"current": ["COMPLETED"]},
            "time": {"eligible": eligible, "start": eligible, "end": end,
                     "elapsed": end - eligible},
            "comment": {"administrator": f"policy=greedy;comm=1;pattern=rd;"
                                         f"comm_percent=50;cost=4;cost_default=4;"
                                         f"runtime_base={runtime};runtime_scaled={runtime}"}})
        self.submitted.append([str(f) for f in fields])
        return jid


def replace(original, stand_in):
    """Every module of the replay that imported `original` gets `stand_in`."""
    for name, module in list(sys.modules.items()):
        if name.startswith("workloads.replay"):
            for attr, value in list(vars(module).items()):
                if value is original:
                    setattr(module, attr, stand_in)


def main(argv):
    fake = FakeSlurm(argv[0])
    replace(slurm_io.controller, lambda: "fake-slurmctld")
    replace(slurm_io.ctl, fake.ctl)
    replace(cluster.current_cluster, lambda root: "tiny")
    slurm_io.Submitter.submit = lambda self, fields: fake.submit(fields)
    slurm_io.Submitter.close = lambda self: None
    health.expected_services = lambda cluster_dir: {
        "db": [], "slurmdbd": [], "slurmctld": [], "emu1": ["tiny-fe1"]}
    health.container_states = lambda project: {
        s: ("running", s) for s in ("db", "slurmdbd", "slurmctld", "emu1")}
    try:
        return cli.main(argv[1:])
    finally:
        fake.save()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
