"""TOFA's faults, aborts and restarts, realized inside Slurm (issue 25;
shared/papers/tofa.txt, "L<n>" its lines: L267-279, L677-717).

A batch (L699-702): Nf, nf of the machine's nodes drawn (seeded, one draw
per batch), each with outage probability pf, written to the controller's
outage.txt (TOFA reads it, tofa_outage.c); then `instances` instances of
one application, one after another on the otherwise empty machine (L679).
At attempt a of instance i each node of Nf fails with probability pf
(L706-710), drawn from a stream keyed by (seed, batch, i, a): the same
draws under every policy (common random numbers), whatever happened
before.

Inside Slurm (the job script, JOB_SCRIPT): the instance runs its time
(TESTBED_RUNTIME_SCALED, the runtime model's, when the controller gives
one; else T0) and, at the end of its run, looks its attempt's failed nodes
up in tofa-faults.txt (beside outage.txt, written by this driver before
the batch) and among TESTBED_TOFA_EXPOSED, the nodes the controller's
library says the attempt depends on: its own and every node on a route,
either way, between two processes that communicate (a failed node forwards
nothing, L272-275; plugins/lib tb_tofa_exposed, the same set the record's
tofa_abort is computed on; its own only under the option exposure=own). One among them: the attempt aborts, having
cost a full run (L686-688); the script exits TOFA_ABORT_EXIT
(workloads/clustergen/slurm_conf.py) and Slurm requeues the job held
(RequeueExitHold in a torus' slurm.conf). The driver then sets the
attempt's failed nodes DOWN, resumes them at once (L270-271), releases
the job and lets it start one second later (a requeued job would
wait cred_expire; RELAUNCH_DELAY says why not at once); Slurm places it
again under the run's policy and it runs from scratch (L278-279). Failed nodes an attempt did not depend on go DOWN
and back up too, once it has ended. Why not the node set DOWN while the
job runs: Slurm would requeue it unheld, and it could be placed again
before the driver resumes the node (docs/readings.md).

Figures, from sacct -D (every attempt): per batch, the completion time as
the paper counts it, the sum of its attempts' run times (L681, L686-688),
and the span from the first start to the last end (Slurm's gaps between
instances added); attempts, aborts, and the abort ratio, instances aborted
at least once over instances (L682-683).

  python3 -m workloads.tofa_faults run --graph F --nodes N --nf 16 ...
  python3 -m workloads.tofa_faults draws --nf 16 --nodes 512 --batch 0 ...
"""

import argparse
import datetime
import json
import os
import random
import sys
import time

from workloads.clustergen.slurm_conf import TOFA_ABORT_EXIT
from workloads.replay.cluster import cluster_dir, cluster_facts, current_cluster
from workloads.replay.errors import ReplayError
from workloads.replay.run_dir import git_revision, write_atomic
from workloads.replay.slurm_io import Shell, controller
from workloads.vclock import set_rate_command

# Failure draws written per instance: the chance of more aborts in a row
# at pf = 0.02 is nil (and the driver stops with an error if one needs more).
MAX_ATTEMPTS = 40
CONTAINER_DIR = "/etc/testbed/cluster"
# Seconds (the controller's clock) between a held attempt's release and
# its relaunch. The new batch credential's time must exceed the time the
# front end's slurmd revoked the last attempt's credential at (Slurm's own
# requeue waits cred_expire + 1 for it: _job_requeue_op in
# src/slurmctld/job_mgr.c). At `starttime=now` a relaunch in the same
# second was refused ("already killed") and the job ended FAILED 1:0 with
# no run: seen once in CI (tests/tofa_faults.bats). ElapsedRaw, the
# completion time's sum, does not count it; the span does.
RELAUNCH_DELAY = 1
FAULTS_FILE = "tofa-faults.txt"
OUTAGE_FILE = "outage.txt"
SCRIPT_FILE = "tofa-instance.sh"
GRAPH_FILE = "tofa-graph.txt"

JOB_SCRIPT = f"""#!/bin/bash
# One attempt of a TOFA instance (workloads/tofa_faults.py): its run, then
# the abort check at the end of the run.
t=${{TESTBED_RUNTIME_SCALED:-$TB_TOFA_T0}}
# On the virtual clock it runs until Slurm's start + its time, not for its
# time from when the script began: Slurm takes the start before the policy
# decides (select_nodes in src/slurmctld/node_scheduler.c) and the launch
# follows, both in wall time, so at rate 100 a 30-ms Scotch map and the
# launch added 10-16 virtual s to a 30-s attempt, more under tofa than
# under default (docs/results/2026-11-27-tofa-lammps-64.md). The replay's
# jobs do the same (workloads/replay/slurm_io.py).
if [ -n "${{TB_VCLOCK_FILE:-}}" ] && [ "${{SLURM_JOB_START_TIME:-0}}" -gt 0 ]; then
	tb-vclock sleep-until "$TB_VCLOCK_FILE" \
		"$(awk -v s="$SLURM_JOB_START_TIME" -v t="$t" 'BEGIN {{printf "%.3f", s + t}}')" ||
		exit 1
else
	sleep "$t"
fi
a=$(( ${{SLURM_RESTART_COUNT:-0}} + 1 ))
f={CONTAINER_DIR}/{FAULTS_FILE}
failed=$(awk -v b="$TB_TOFA_BATCH" -v i="$TB_TOFA_INSTANCE" -v a="$a" \\
	'$1 == "batch" {{ ok = ($2 == b) }} ok && $1 == i && $2 == a {{ print $3; exit }}' "$f")
if [ -z "$failed" ]; then
	echo "tofa: no failure draw for batch $TB_TOFA_BATCH instance $TB_TOFA_INSTANCE attempt $a in $f" >&2
	exit 1
fi
[ "$failed" = - ] && exit 0
if [ -z "${{TESTBED_TOFA_EXPOSED:-}}" ]; then
	echo "tofa: no TESTBED_TOFA_EXPOSED from the controller" >&2
	exit 1
fi
for n in ${{failed//,/ }}; do
	case ",$TESTBED_TOFA_EXPOSED," in
	*",$n,"*)
		echo "tofa: attempt $a aborted: $n failed"
		exit {TOFA_ABORT_EXIT}
		;;
	esac
done
exit 0
"""


class DriverError(Exception):
    pass


def stream(seed, *key):
    """A random stream keyed by the seed and key: the same numbers for the
    same key in every run and under every policy."""
    return random.Random(":".join(str(k) for k in (seed,) + key))


def draw_nf(seed, batch, nf, nodes):
    """Nf of a batch: nf distinct node ids out of `nodes`, sorted."""
    if not 0 <= nf <= nodes:
        raise DriverError(f"nf={nf}: expected 0 to {nodes} nodes")
    return sorted(stream(seed, "nf", batch).sample(range(nodes), nf))


def failed_nodes(seed, batch, instance, attempt, nf_nodes, pf):
    """The nodes of Nf that fail during attempt `attempt` (1, 2, ...) of
    instance `instance`: each with probability pf, one draw per node of
    Nf in id order."""
    r = stream(seed, "fail", batch, instance, attempt)
    return [n for n in nf_nodes if r.random() < pf]


def outage_text(nf_nodes, pf, names):
    return "".join(f"{names[n]} {pf:g}\n" for n in nf_nodes)


def faults_text(seed, batch, instances, nf_nodes, pf, names, attempts=MAX_ATTEMPTS):
    """tofa-faults.txt: 'batch <b>', then '<instance> <attempt> <failed
    node names, comma-separated, or ->' for every attempt a job may reach."""
    lines = [f"batch {batch}"]
    for i in range(instances):
        for a in range(1, attempts + 1):
            f = failed_nodes(seed, batch, i, a, nf_nodes, pf)
            lines.append(f"{i} {a} {','.join(names[n] for n in f) or '-'}")
    return "\n".join(lines) + "\n"


def node_names(root, cluster):
    """Node names by library id (topology.json's order)."""
    with open(os.path.join(cluster_dir(root, cluster), "topology.json"), encoding="utf-8") as f:
        topo = json.load(f)
    if "torus" not in topo:
        raise DriverError(f"cluster {cluster} is no torus: TOFA's faults need one")
    return [n["name"] for n in topo["nodes"]]


def parse_job(text):
    """scontrol -o show job's fields we need: state, restarts."""
    fields = dict(w.split("=", 1) for w in text.split() if "=" in w)
    return fields.get("JobState", ""), int(fields.get("Restarts", "0") or 0)


def realize_command(names, tag, jid=None):
    """The shell command that sets `names` DOWN and resumes them and, for
    a held job `jid`, releases it to start RELAUNCH_DELAY seconds later."""
    cmd = [f"scontrol update nodename={names} state=down reason='tofa fault {tag}'",
           f"scontrol update nodename={names} state=resume"]
    if jid:
        cmd += [f"scontrol release {jid}",
                f"scontrol update jobid={jid} starttime=now+{RELAUNCH_DELAY}"]
    return " && ".join(cmd)


class Batches:
    """Runs batches of one application on the running torus."""

    def __init__(self, root, args, shell):
        self.root = root
        self.a = args
        self.sh = shell
        self.cluster = current_cluster(root)
        self.dir = cluster_dir(root, self.cluster)
        self.names = node_names(root, self.cluster)
        self.events = []

    def write(self, name, text):
        write_atomic(os.path.join(self.dir, name), text)

    def setup(self):
        with open(self.a.graph, encoding="utf-8") as f:
            self.write(GRAPH_FILE, f.read())
        self.write(SCRIPT_FILE, JOB_SCRIPT)

    def submit(self, batch, i):
        name = f"{self.a.name}:b{batch}:i{i}"
        # In the environment sbatch exports (its default --export=ALL). An
        # explicit --export=ALL,K=V list made the front end's slurmd die
        # at the launch here ("fatal: clone: Operation not permitted"),
        # twice: any --export but ALL/NIL implies --get-user-env
        # (sbatch.c:446-458, Slurm 24.11.5), for which slurmd runs `su -`
        # in clone(CLONE_NEWPID|CLONE_NEWNS), refused (EPERM) in a
        # container without CAP_SYS_ADMIN, and fatal (env.c:2354-2355).
        # GetEnvTimeout=0 and the emulators' env cache now avoid the
        # clone (docs/cluster.md, "A job's environment").
        env = f"TB_TOFA_BATCH={batch} TB_TOFA_INSTANCE={i} TB_TOFA_T0={self.a.t0:g}"
        # The runtime model's input (T = T0 ((1-f) + f C/C0), the
        # controller's TESTBED_RUNTIME_SCALED): the study's comment,
        # communicating, its share f in %, base runtime T0.
        comm = f" --comment=1:rd:{100 * self.a.f:g}:{self.a.t0:g}" if self.a.f is not None else ""
        out = self.sh.run(
            f"{env} sbatch --parsable --requeue --exclusive -N {self.a.procs} -J '{name}'"
            f" --comm-matrix={CONTAINER_DIR}/{GRAPH_FILE}{comm} -o /dev/null"
            f" --time={max(1, int(self.a.t0 * 20 / 60) + 1)}"
            f" {CONTAINER_DIR}/{SCRIPT_FILE}").strip()
        if not out.split(";")[0].isdigit():
            raise DriverError(f"sbatch for {name}: {out!r}")
        return out.split(";")[0]

    def wait(self, jid, restarts_before):
        """Until the attempt after `restarts_before` ends: ('held',
        restarts) when it aborted, ('done', restarts) when it completed."""
        deadline = time.monotonic() + self.a.attempt_timeout
        while time.monotonic() < deadline:
            out = self.sh.run(f"scontrol -o show job {jid} 2>/dev/null || true").strip()
            if not out:
                return "done", restarts_before   # purged: ended (sacct says how)
            state, restarts = parse_job(out)
            if state == "SPECIAL_EXIT" and restarts > restarts_before:
                return "held", restarts
            if state == "COMPLETED":
                return "done", restarts
            if state in ("FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                         "BOOT_FAIL", "DEADLINE", "PREEMPTED"):
                raise DriverError(f"job {jid} ended {state}, not by the fault model: "
                                  f"{out[:300]}")
            time.sleep(self.a.poll)
        raise DriverError(f"job {jid}: no end within {self.a.attempt_timeout} wall s")

    def realize(self, failed, batch, i, attempt, jid=None):
        """The attempt's failed nodes DOWN and back at once; a held job
        released and let start at once."""
        names = ",".join(self.names[n] for n in failed)
        self.sh.run(realize_command(names, f"b{batch} i{i} a{attempt}", jid))
        self.events.append({"batch": batch, "instance": i, "attempt": attempt,
                            "failed": [self.names[n] for n in failed], "job": jid or "",
                            "aborted": bool(jid)})

    def run_batch(self, batch):
        a = self.a
        nf_nodes = draw_nf(a.seed, batch, a.nf, len(self.names))
        self.write(OUTAGE_FILE, outage_text(nf_nodes, a.pf, self.names))
        self.write(FAULTS_FILE, faults_text(a.seed, batch, a.instances, nf_nodes, a.pf,
                                            self.names))
        ids = []
        for i in range(a.instances):
            jid = self.submit(batch, i)
            restarts = 0
            while True:
                how, restarts = self.wait(jid, restarts)
                if how == "held":
                    f = failed_nodes(a.seed, batch, i, restarts, nf_nodes, a.pf)
                    if not f:
                        raise DriverError(f"job {jid} aborted attempt {restarts} with no "
                                          "failed node drawn for it")
                    if restarts >= MAX_ATTEMPTS:
                        raise DriverError(f"job {jid}: {restarts} aborts, no draws beyond")
                    self.realize(f, batch, i, restarts, jid)
                    continue
                f = failed_nodes(a.seed, batch, i, restarts + 1, nf_nodes, a.pf)
                if f:
                    self.realize(f, batch, i, restarts + 1)
                break
            ids.append(jid)
            if a.progress:
                print(f"tofa-faults: batch {batch} instance {i + 1}/{a.instances} "
                      f"job {jid} attempts {restarts + 1}", flush=True)
        return nf_nodes, ids


# AdminComment last: the controller's record of the attempt (runtime_scaled,
# the run time the runtime model gave it; tofa_hops, tofa_abort, ...).
SACCT_FIELDS = ("JobID", "JobName", "State", "ExitCode", "Start", "End", "ElapsedRaw",
                "NodeList", "Restarts", "AdminComment")


def sacct_attempts(shell, ids):
    """Every attempt of the jobs (sacct -D -X): one dict each."""
    rows = []
    for k in range(0, len(ids), 200):
        out = shell.run(f"sacct -D -X -n -P -j {','.join(ids[k:k + 200])} "
                        f"-o {','.join(SACCT_FIELDS)} -S 2000-01-01")
        for line in out.splitlines():
            parts = line.split("|", len(SACCT_FIELDS) - 1)
            if len(parts) == len(SACCT_FIELDS):
                rows.append(dict(zip(SACCT_FIELDS, parts)))
    return rows


def epoch(text):
    return datetime.datetime.fromisoformat(text).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def record_number(row, key):
    """A number of the attempt's record (AdminComment 'k=v;...'), 0 if none."""
    for kv in (row.get("AdminComment") or "").split(";"):
        k, _, v = kv.partition("=")
        if k == key:
            try:
                return float(v)
            except ValueError:
                return 0.0
    return 0.0


def summarize(attempts, batches, instances):
    """Per batch: completion time (the attempts' run times summed, L686-688),
    span (first start to last end), attempts, aborts, instances aborted at
    least once. attempts: sacct rows with 'batch', 'instance' added."""
    out = []
    for b in batches:
        rows = [r for r in attempts if r["batch"] == b]
        ended = [r for r in rows if r["State"] not in ("PENDING", "RUNNING")]
        aborted = [r for r in ended if r["State"] == "REQUEUED" and
                   r["ExitCode"].split(":")[0] == str(TOFA_ABORT_EXIT)]
        done = [r for r in ended if r["State"] == "COMPLETED"]
        other = [r for r in ended if r not in aborted and r not in done]
        starts = [epoch(r["Start"]) for r in ended if r["Start"] not in ("", "Unknown")]
        ends = [epoch(r["End"]) for r in ended if r["End"] not in ("", "Unknown")]
        out.append({
            "batch": b, "instances": instances,
            "completed": len({r["instance"] for r in done}),
            "attempts": len(ended), "aborts": len(aborted), "other_ends": len(other),
            "aborted_instances": len({r["instance"] for r in aborted}),
            "completion_s": sum(int(r["ElapsedRaw"] or 0) for r in ended),
            "span_s": (max(ends) - min(starts)) if starts and ends else 0,
            # The run times the controller gave the attempts (the runtime
            # model's, from the record): what they slept, without the
            # emulator's launch and end lag that ElapsedRaw adds.
            "modelled_s": round(sum(record_number(r, "runtime_scaled") for r in ended), 3),
        })
    return out


def run(args):
    root = args.root
    shell = Shell(controller())
    try:
        name, nodes, _ = cluster_facts(root)
        rid = args.run_id or (datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y%m%d-%H%M%S") + f"-{name}-tofa-{args.app}-nf{args.nf}-{args.policy}")
        run_dir = os.path.join(args.results, rid)
        os.makedirs(run_dir, exist_ok=True)
        if args.run_id_file:
            write_atomic(args.run_id_file, rid)
        args.name = rid
        others = shell.run("squeue -h -o %i | wc -l").strip()
        if others != "0":
            raise DriverError(f"the cluster has {others} jobs; TOFA's batches run on an "
                              "otherwise empty machine (make exec CMD='scancel -u root')")
        b = Batches(root, args, shell)
        b.setup()
        if args.rate:
            shell.run(set_rate_command(args.rate))
        manifest = {"run_id": rid, "kind": "tofa-faults", "cluster": name,
                    "cluster_nodes": nodes, "policy": args.policy, "log": args.app,
                    "pattern": "", "app": args.app, "graph": os.path.relpath(args.graph, root),
                    "procs": args.procs, "nf": args.nf, "pf": args.pf, "seed": args.seed,
                    "batches": args.batches, "instances": args.instances, "t0": args.t0,
                    "f": args.f, "rate": args.rate, "git_revision": git_revision(root), "finished": False,
                    "started": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        write_atomic(os.path.join(run_dir, "manifest.json"), json.dumps(manifest, indent=2))
        wall0 = time.monotonic()
        ids, nf_by_batch, batch_of = [], {}, {}
        for batch in range(args.batches):
            nf_nodes, bids = b.run_batch(batch)
            nf_by_batch[batch] = [b.names[n] for n in nf_nodes]
            for i, j in enumerate(bids):
                batch_of[j] = (batch, i)
            ids += bids
        if args.rate:
            shell.run(set_rate_command(1))
        time.sleep(1)   # accounting reaches slurmdbd
        attempts = sacct_attempts(shell, ids)
        for r in attempts:
            r["batch"], r["instance"] = batch_of[r["JobID"]]
        got = {r["JobID"] for r in attempts}
        missing = [j for j in ids if j not in got]
        batches = summarize(attempts, range(args.batches), args.instances)
        write_atomic(os.path.join(run_dir, "attempts.json"), json.dumps(attempts, indent=1))
        write_atomic(os.path.join(run_dir, "events.json"), json.dumps(b.events, indent=1))
        write_atomic(os.path.join(run_dir, "batches.json"), json.dumps(batches, indent=1))
        # What make report would write for a replay: this run's figures.
        write_atomic(os.path.join(run_dir, "metrics.json"), json.dumps(
            {"batches": batches, "attempts": len(attempts),
             "aborts": sum(x["aborts"] for x in batches)}, indent=1))
        manifest.update({"finished": True, "nf_nodes": nf_by_batch, "missing_from_sacct": missing,
                         "wall_s": round(time.monotonic() - wall0, 1)})
        write_atomic(os.path.join(run_dir, "manifest.json"), json.dumps(manifest, indent=2))
        print(f"tofa-faults: {rid}: {args.batches} batches x {args.instances} instances, "
              f"{sum(x['attempts'] for x in batches)} attempts, "
              f"{sum(x['aborts'] for x in batches)} aborted -> {run_dir}")
        return 1 if missing else 0
    finally:
        shell.close()


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m workloads.tofa_faults")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="batches of one application on the running torus")
    r.add_argument("--root", required=True)
    r.add_argument("--results", required=True)
    r.add_argument("--graph", required=True, help="the application's matrix file")
    r.add_argument("--app", required=True, help="its name, e.g. npb-dt-c-85")
    r.add_argument("--procs", type=int, required=True, help="processes (= nodes)")
    r.add_argument("--policy", required=True, help="the cluster's policy (recorded)")
    r.add_argument("--nf", type=int, required=True)
    r.add_argument("--pf", type=float, default=0.02)
    r.add_argument("--batches", type=int, default=10)
    r.add_argument("--instances", type=int, default=100)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--t0", type=float, default=30.0,
                   help="run time (s) when the controller gives none")
    r.add_argument("--f", type=float, help="the runtime model's communication share "
                   "(experiments/graphs/tofa-f.tsv); none: every instance runs T0")
    r.add_argument("--rate", type=float, default=0, help="the virtual clock's rate (0: leave)")
    r.add_argument("--poll", type=float, default=0.05)
    r.add_argument("--attempt-timeout", type=float, default=300)
    r.add_argument("--run-id")
    r.add_argument("--run-id-file")
    r.add_argument("--progress", action="store_true")
    d = sub.add_parser("draws", help="print a batch's Nf and failure draws")
    d.add_argument("--nodes", type=int, required=True)
    d.add_argument("--nf", type=int, required=True)
    d.add_argument("--pf", type=float, default=0.02)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--batch", type=int, default=0)
    d.add_argument("--instances", type=int, default=100)
    d.add_argument("--attempts", type=int, default=3)
    a = p.parse_args(argv)
    try:
        if a.cmd == "draws":
            nf = draw_nf(a.seed, a.batch, a.nf, a.nodes)
            sys.stdout.write(faults_text(a.seed, a.batch, a.instances, nf, a.pf,
                                         [str(n) for n in range(a.nodes)], a.attempts))
            return 0
        if not 0 <= a.pf <= 1:
            raise DriverError(f"--pf {a.pf}: expected a probability from 0 to 1")
        if a.f is not None and not 0 <= a.f <= 1:
            raise DriverError(f"--f {a.f}: expected a share from 0 to 1")
        if a.batches < 1 or a.instances < 1 or a.procs < 1 or a.t0 <= 0:
            raise DriverError("--batches, --instances, --procs and --t0: expected > 0")
        return run(a)
    except (DriverError, ReplayError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
