"""The cluster's health while a replay runs.

Every service of the Compose project (db, slurmdbd, slurmctld, emu1..N) is
checked every few seconds. An emulator container runs its front-end slurmd
daemons and stops when any of them exits (images/slurm/entrypoint.sh), so a
dead daemon shows as a stopped container. A death is

  - named at once (progress line and replay.log) with the end of its log;
  - recorded in faults.jsonl in the run directory (read by faults.py:
    the report marks the jobs it hit, and never counts them silently);
  - made known to Slurm at once for an emulator: its front ends are
    drained (no new job starts there) and the jobs running on them are
    requeued (scontrol requeue; cancelled if they may not be requeued),
    instead of running on to their limit while Slurm waits SlurmdTimeout.
    Not DOWN: in front-end mode Slurm 24.11 then releases such a job
    without ever freeing its compute nodes, which stay ALLOCATED with no
    job until slurmctld restarts. A requeued job's nodes stay COMPLETING
    until the front end is back, which then acknowledges the kill;
  - recovered from when auto_recover is set (the container is started
    again, its front ends resumed), else submissions pause until the
    service is back, with the command that brings it back.
"""

import datetime
import json
import os
import re
import time

from workloads import containers

CORE_SERVICES = ("db", "slurmdbd", "slurmctld")


def expected_services(cluster_dir):
    """{service: [front ends]} from the generated emulators.yml; the core
    services have none."""
    services = {s: [] for s in CORE_SERVICES}
    path = os.path.join(cluster_dir, "emulators.yml")
    with open(path, encoding="utf-8") as f:
        current = None
        for line in f:
            m = re.match(r"^  (emu\d+):\s*$", line)
            if m:
                current = m.group(1)
                services[current] = []
                continue
            m = re.match(r'^\s+command:\s*\[(.*)\]\s*$', line)
            if m and current:
                words = [w.strip().strip('"') for w in m.group(1).split(",")]
                services[current] = [w for w in words if w != "emulator"]
    return services


def container_states(project):
    """{service: (state, container or task id)} of the project's services
    (a Compose project's or a Swarm stack's), or None when Docker does not
    answer."""
    return containers.service_states(project)


def log_tail(container, lines=8):
    r = containers.run_quiet(["docker", "logs", "--tail", str(lines), container])
    if r is None:
        return ""
    text = (r.stdout + r.stderr).strip()
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


class HealthWatch:
    def __init__(self, project, cluster_dir, run_dir, auto_recover,
                 say, log, interval=3.0, slurm_now=time.time):
        self.project = project
        self.run_dir = run_dir
        self.auto_recover = auto_recover
        self.say = say          # a line for the user (progress)
        self.log = log          # a line for replay.log
        self.interval = interval   # wall seconds between checks
        # Events carry Slurm's time (virtual under CLOCK=virtual), the
        # time of the jobs they are matched with; checks run on wall time.
        self.slurm_now = slurm_now
        self.expected = expected_services(cluster_dir)
        self.down = {}          # service -> epoch it was seen dead
        self.last = 0.0

    def healthy(self):
        return not self.down

    def _record(self, event):
        event["time"] = round(self.slurm_now(), 3)
        event["iso"] = datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        with open(os.path.join(self.run_dir, "faults.jsonl"), "a",
                  encoding="utf-8") as f:
            f.write(json.dumps(event) + "\n")

    def _ctl(self, argv):
        """A command in the controller container, or None."""
        states = container_states(self.project) or {}
        ctl = states.get("slurmctld")
        if not ctl or ctl[0] != "running":
            return None
        return containers.run_quiet(["docker", "exec", ctl[1]] + argv)

    def _scontrol(self, args):
        r = self._ctl(["scontrol"] + args)
        return r is not None and r.returncode == 0

    def _jobs_on(self, frontends):
        """Ids of the jobs running (or completing) with these batch hosts."""
        r = self._ctl(["squeue", "-h", "-t", "R,CG", "-o", "%i %B"])
        if r is None or r.returncode != 0:
            return []
        return [w[0] for w in (line.split() for line in r.stdout.splitlines())
                if len(w) == 2 and w[1] in frontends]

    def check(self, now=None):
        """Checks at most every interval seconds; returns True while every
        service runs."""
        now = time.time() if now is None else now
        if now - self.last < self.interval:
            return self.healthy()
        self.last = now
        states = container_states(self.project)
        if states is None:
            return self.healthy()
        for service, frontends in self.expected.items():
            state = states.get(service)
            running = state is not None and state[0] == "running"
            if not running and service not in self.down:
                self._died(service, state, frontends, now)
            elif running and service in self.down:
                self._back(service, frontends, now)
        return self.healthy()

    def _died(self, service, state, frontends, now):
        self.down[service] = now
        what = "is missing" if state is None else f"is {state[0]}"
        tail = log_tail(state[1]) if state else ""
        self.say(f"FAULT: {service} {what}"
                 + (f" (front ends {', '.join(frontends)})" if frontends else ""))
        self.log(f"fault: {service} {what}; last lines of its log:\n{tail}")
        drained, requeued = False, []
        if frontends:
            # Fail fast: Slurm would wait SlurmdTimeout before noticing.
            drained = self._scontrol(
                ["update", f"FrontendName={','.join(frontends)}", "State=DRAIN",
                 f"Reason=testbed: container {service} died"])
            requeued = self._jobs_on(frontends)
            if requeued and not self._scontrol(["requeue", ",".join(requeued)]):
                self._ctl(["scancel"] + requeued)
            if requeued:
                self.log(f"fault: jobs {' '.join(requeued)} were running on "
                         f"{service}'s front ends: requeued")
        self._record({"kind": "died", "service": service,
                      "state": state[0] if state else "missing",
                      "frontends": frontends, "drained": drained,
                      "jobs": requeued})
        if self.auto_recover and state is not None:
            self.say(f"recovering: starting {service} again")
            r = containers.run_quiet(["docker", "start", state[1]], timeout=60)
            if r is None or r.returncode != 0:
                self.log(f"recover: docker start {service} failed: "
                         f"{(r.stderr if r else 'timeout').strip()[-200:]}")
        else:
            self.say(f"submissions paused until {service} is back: run "
                     f"'make up CLUSTER=<cluster>' (TESTBED_PROJECT={self.project})")

    def _back(self, service, frontends, now):
        since = self.down.pop(service)
        resumed = False
        if frontends:
            # The daemons register again on start; RESUME clears DRAIN.
            for _ in range(30):
                if self._scontrol(["update", f"FrontendName={','.join(frontends)}",
                                   "State=RESUME"]):
                    resumed = True
                    break
                time.sleep(1)
        self.say(f"recovered: {service} runs again after {now - since:.0f} s")
        self.log(f"recovered: {service} after {now - since:.1f} s"
                 f"{', front ends resumed' if resumed else ''}")
        self._record({"kind": "recovered", "service": service,
                      "down_s": round(now - since, 3), "frontends": frontends,
                      "resumed": resumed})

