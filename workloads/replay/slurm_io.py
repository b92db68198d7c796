"""Talking to Slurm in the controller's container: docker exec, a shell
kept open, tb-submit (the submissions and their fields), squeue and sacct
(the queue, the run's records, sacct.json).
"""

import concurrent.futures
import json
import math
import os
import queue
import subprocess
import time

from workloads import containers, faults, launch
from .errors import ReplayError
from .matrix import comm_matrix, file_matrix
from .plan import PATTERNS
from .progress import progress
from .run_dir import log_line, read_plan, resume_hint, write_atomic


BATCH_SCRIPT = "/tmp/testbed-replay-job.sh"


def controller():
    container = containers.controller_id(os.environ.get('TESTBED_PROJECT', 'testbed'))
    if not container:
        raise ReplayError("no cluster is up; run 'make up CLUSTER=<name>' first")
    return container


def ctl(container, command, stdin=None, check=True):
    r = subprocess.run(["docker", "exec", "-i", container, "bash", "-c", command],
                       input=stdin, capture_output=True, text=True, check=False)
    if check and r.returncode != 0:
        raise ReplayError(f"'{command[:60]}' failed: {r.stderr.strip()[-200:]}")
    return r.stdout


class _Pipe:
    """A process kept open in the controller container (subclasses start
    it); closed politely, killed if it does not end within `wait` s."""

    wait = 5

    def __init__(self, container):
        self.container = container
        self.p = None

    def close(self):
        if self.p is None:
            return
        try:
            self.p.stdin.close()
            self.p.wait(timeout=self.wait)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
        self.p = None


class Shell(_Pipe):
    """One bash in the controller container, kept open: a command a line
    in, its output and a sentinel line with its status out. A docker exec
    takes 0.1 to 1 wall s on a loaded machine; this takes what the command
    takes, so the launch guard can look at the queue several times a wall
    second. Restarted once if it died; ReplayError if it fails again."""

    END = "__testbed_end__"

    def _start(self):
        loop = (f'while IFS= read -r c; do eval "$c" 2>/dev/null; '
                f'echo "{self.END} $?"; done')
        self.p = subprocess.Popen(
            ["docker", "exec", "-i", self.container, "bash", "-c", loop],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1)

    def run(self, command):
        for attempt in (1, 2):
            if self.p is None or self.p.poll() is not None:
                self._start()
            try:
                self.p.stdin.write(command + "\n")
                self.p.stdin.flush()
                out = []
                for line in self.p.stdout:
                    # output without a final newline ends on the same line
                    at = line.find(self.END + " ")
                    if at >= 0:
                        out.append(line[:at])
                        if line[at:].split()[1] != "0":
                            raise ReplayError(f"'{command[:60]}' failed")
                        return "".join(out)
                    out.append(line)
            except OSError:
                pass
            self.close()
        raise ReplayError(f"'{command[:60]}': the controller's shell died")


class Submitter(_Pipe):
    """tb-submit (plugins/tools/submit.c) in the controller container: one
    libslurm submission per line in, a job id (or an error) per line out.
    It loads Slurm's configuration once, where one sbatch per job spent
    most of its time starting up. Restarted if it dies (a controller
    restart can take its container down). `command`, the process to talk
    to in place of that docker exec (make bench BENCH=submit: an echo
    loop, to measure the client side alone)."""

    wait = 10

    def __init__(self, container, command=None):
        super().__init__(container)
        self.command = command

    def _start(self):
        self.p = subprocess.Popen(
            self.command or ["docker", "exec", "-i", self.container, "tb-submit",
                             "-s", "-x", BATCH_SCRIPT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def submit(self, fields):
        if self.p is None or self.p.poll() is not None:
            self._start()
        try:
            self.p.stdin.write("\t".join(str(f) for f in fields) + "\n")
            self.p.stdin.flush()
            reply = self.p.stdout.readline().strip()
        except OSError as e:
            self.close()
            raise ReplayError(f"tb-submit: {e}") from e
        if not reply.isdigit():
            if not reply:
                self.close()
            raise ReplayError(f"tb-submit: {reply or 'no answer'}")
        return int(reply)


# How long the driver waits for a controller that does not answer whether
# it has a job, asking again every few seconds, before it stops.
ANSWER_WAIT = 600


def slurm_answer(container, command, what, run_dir):
    """The output of squeue/sacct `command` once every command of it
    succeeded. A failed lookup is no answer, not an empty one: taking it
    for "absent" would submit again a job the controller accepted before
    it died. Waits up to ANSWER_WAIT seconds, saying so, then stops the
    run; RESUME continues it once the controller is back."""
    waited, delay = 0.0, 1.0
    while True:
        try:
            return ctl(container, command)
        except ReplayError as e:
            reason = str(e)
        if waited >= ANSWER_WAIT:
            raise ReplayError(f"the controller gave no answer in {waited:.0f} s on "
                              f"{what} ({reason}); nothing was submitted again: bring "
                              f"it back, then {resume_hint(run_dir)}")
        progress(f"replay: the controller does not answer on {what}; "
                 f"asking again ({waited:.0f} of {ANSWER_WAIT} s)")
        log_line(run_dir, f"no answer on {what}: {reason}")
        time.sleep(delay)
        waited += delay
        delay = min(10.0, 2 * delay)


def install_batch_script(container):
    script = ("#!/bin/bash\n"
              "# Replayed job: sleep the scaled runtime, compressed by SPEEDUP ($1).\n"
              "# TESTBED_RUNTIME_SCALED comes from the allocation plugin; the\n"
              "# log runtime ($2) stands in if the plugin recorded none.\n"
              "t=${TESTBED_RUNTIME_SCALED:-$2}\n"
              "# Under the virtual clock ($3 names its page) the job's environment\n"
              "# is the submitter's, without the preload: it is set here, and the\n"
              "# job ends at its start + its runtime, so that launch latency\n"
              "# (wall time, hence many virtual seconds) is not added to it.\n"
              "# Its start goes to the launch guard's file ($4, workloads/launch.py),\n"
              "# with the runtime it sleeps in Slurm's time (the event jumps' job end).\n"
              "# It sleeps until a deadline (tb-vclock sleep-until), not for a length:\n"
              "# an event jump made between its reading of the clock and its sleep\n"
              "# would otherwise make it end late by the whole jump (issue 30).\n"
              "if [ -n \"${3:-}\" ]; then\n"
              "\texport LD_PRELOAD=/usr/local/lib/libtbvclock.so TB_VCLOCK_FILE=$3\n"
              "\tnow=$(date +%s.%N)\n"
              "\trun=$(awk -v t=\"$t\" -v s=\"$1\" 'BEGIN {printf \"%.3f\", t / s}')\n"
              "\t[ -z \"${4:-}\" ] || printf '%s\\t%s\\t%s\\t%s\\n' \"${SLURM_JOB_ID:-}\" "
              "\"${SLURM_JOB_START_TIME:-0}\" \"$now\" \"$run\" >> \"$4\" || true\n"
              "\texec tb-vclock sleep-until \"$3\" \"$(awk -v r=\"$run\" "
              "-v st=\"${SLURM_JOB_START_TIME:-0}\" -v now=\"$now\" "
              "'BEGIN {printf \"%.3f\", (st > 0 ? st : now) + r}')\"\n"
              "fi\n"
              "exec sleep \"$(awk -v t=\"$t\" -v s=\"$1\" "
              "'BEGIN {printf \"%.3f\", t / s}')\"\n")
    ctl(container, f"cat > {BATCH_SCRIPT} && chmod 755 {BATCH_SCRIPT}", stdin=script)


def queue_state(container, run_id, shell=None):
    """{log id: (state, start epoch or None, Slurm id or None when it is
    not held, the start backfill plans for a job blocked on resources or
    None, Slurm id, Slurm's reason)} of the run's jobs still in the queue, or None while the
    controller does not answer (restarting): an empty queue must not end
    the run."""
    try:
        command = "SLURM_TIME_FORMAT=%s squeue -h -o '%j|%T|%S|%i|%r'"
        out = shell.run(command) if shell else ctl(container, command)
    except ReplayError:
        return None
    return parse_queue(out, run_id)


def parse_queue(out, run_id):
    """queue_state's dict from squeue's lines (its format above)."""
    jobs = {}
    for line in out.splitlines():
        name, state, start, jid, reason = (line.split("|") + [""] * 4)[:5]
        mine = faults.log_id_of(name, run_id)
        if mine is None:
            continue
        # A rerun stands for its log job (the job it replaces has ended).
        pending = state == "PENDING"
        jobs[mine[0]] = (
            state, int(start) if not pending and start.isdigit() else None,
            jid if pending and "held" in reason.lower() else None,
            int(start) if pending and reason == "Resources" and start.isdigit() else None,
            jid, reason)
    return jobs


def waiting_for_time(container, run_id):
    """The log ids of this run's jobs if every job in the queue is this
    run's and waits for its begin time only (nothing runs, completes or
    waits for nodes), else None (also while the controller is silent)."""
    try:
        out = ctl(container, "squeue -h -o '%j|%T|%r'")
    except ReplayError:
        return None
    ids = []
    for line in out.splitlines():
        name, state, reason = (line.split("|") + ["", ""])[:3]
        mine = faults.log_id_of(name, run_id)
        if mine is None or state != "PENDING" or reason != "BeginTime":
            return None
        ids.append(mine[0])
    return ids


# Submissions in flight at once. One round trip takes about 12 ms on curie,
# mostly the controller's own work on the job: one submitter reached 75
# jobs/s, four reach 159 (make bench BENCH=submit).
SUBMITTERS = 4

# Jobs carry explicit priorities in log order, so the order of equally
# eligible jobs is the log's, whatever order parallel submissions (or a
# RESUME) give their job ids. Slurm's priority/basic would otherwise rank
# them by submission.
PRIORITY_TOP = 1_000_000_000


def launch_file(page, run_id):
    """The launch guard's file beside the clock page."""
    return os.path.join(os.path.dirname(page), launch.file_name(run_id))


def job_fields(run_id, index, p, t0, speedup, seed, page=None, placement=""):
    """tb-submit -s -x's fields for plan entry `index` (page: the virtual
    clock's page in the containers, the batch script's third argument;
    placement: -x's node list and dependency, INDIVIDUAL's)."""
    begin = math.floor(t0 + p["offset"] / speedup + 0.5)
    pid = PATTERNS.index(p["pattern"]) + 1
    ranks = p.get("ranks", 0)
    matrix = ("TESTBED_COMM_MATRIX=" +
              comm_matrix(seed, p["log_id"], ranks or p["nodes"], p["matrix_density"])
              if p["matrix_density"] > 0 else "")
    if p.get("matrix_file"):
        matrix = "TESTBED_COMM_MATRIX=" + file_matrix(p["matrix_file"])[1]
    if ranks:
        # GRANULARITY=core: that many one-CPU tasks in the partition that
        # shares nodes core by core (tb-submit's cores=).
        placement = ";".join(x for x in (placement, f"cores={ranks}") if x)
    # The job's runtime: the log's, less SC18's speed-up under isolation.
    runtime = p["runtime"] * (1 - p.get("ta_reduction", 0.0))
    # NeDD's job lists: the placement, and the application as the
    # comment's fifth field (profile.h), --comm-app's alternative.
    if p.get("placement"):
        placement = ";".join(x for x in (placement, p["placement"]) if x)
    app = f":{p['app']}" if p.get("app") else ""
    return [f"{run_id}:{p['log_id']}", p["nodes"], p["limit_min"], begin,
            PRIORITY_TOP - index,
            f"{p['comm']}:{pid}:{p['comm_percent']:g}:{runtime:g}{app}",
            matrix, placement, f"{speedup:g}", f"{runtime:g}"] + (
                [page, launch_file(page, run_id)] if page else [])


class SubmitterPool:
    """Several Submitters working through a batch of due jobs at once."""

    def __init__(self, container, n, run_dir, command=None):
        self.run_dir = run_dir
        self.idle = queue.Queue()
        self.all = [Submitter(container, command) for _ in range(n)]
        for sub in self.all:
            self.idle.put(sub)
        self.executor = concurrent.futures.ThreadPoolExecutor(n)

    def _one(self, fields, item):
        sub = self.idle.get()
        try:
            return item, submit_with_retry(sub, fields, self.run_dir)
        finally:
            self.idle.put(sub)

    def submit(self, fields, item):
        """A future of (item, job id), answered once a submitter is free
        and the submission is answered."""
        return self.executor.submit(self._one, fields, item)

    def submit_all(self, fields_list, items):
        """Yields (item, job id) as each submission is answered."""
        futures = [self.submit(f, it) for f, it in zip(fields_list, items)]
        for f in concurrent.futures.as_completed(futures):
            yield f.result()

    def close(self):
        self.executor.shutdown(wait=False, cancel_futures=True)
        for sub in self.all:
            sub.close()


def previous_records(run_dir, expected):
    """The run's sacct.json records (from an earlier collect) of the
    expected {Slurm id: job name} jobs that had ended, by Slurm id, and
    that file's document ({} without one)."""
    try:
        with open(os.path.join(run_dir, "sacct.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}, {}
    kept = {j["job_id"]: j for j in doc.get("jobs", [])
            if expected.get(j.get("job_id")) == j.get("name") and faults.is_final(j)}
    return kept, doc


def sacct_records(container, ids, expected, what, run_dir):
    """Slurm's sacct records of these jobs, those named as expected."""
    jobs = []
    for k in range(0, len(ids), 400):
        chunk = ",".join(str(x) for x in ids[k:k + 400])
        doc = json.loads(slurm_answer(container, f"sacct -X --json -j {chunk}", what, run_dir))
        jobs.extend(j for j in doc.get("jobs", [])
                    if expected.get(j.get("job_id")) == j.get("name"))
    return jobs


def submit_with_retry(submitter, fields, run_dir):
    """A controller restart mid-replay costs retries, not jobs; a job the
    controller took before its answer was lost is found by name, not
    submitted twice (and while the controller cannot say, it is waited for)."""
    name = fields[0]
    for attempt in range(30):
        try:
            return submitter.submit(fields)
        except ReplayError as e:
            log_line(run_dir, f"retry {attempt + 1}: {e}")
            time.sleep(min(10, 1 + attempt))
            found = sorted({int(x) for x in slurm_answer(
                submitter.container,
                f"squeue -h -a -n '{name}' -o %i && "
                f"sacct -X -n -P -a --starttime=now-7days --name='{name}' -o JobID",
                f"whether it has job {name}", run_dir).split() if x.isdigit()})
            if len(found) > 1:
                log_line(run_dir, f"{name} is in Slurm {len(found)} times: "
                         f"{' '.join(map(str, found))}; keeping {found[0]}")
            if found:
                return found[0]
    raise ReplayError(f"submissions kept failing; see {run_dir}/replay.log")


def run_facts(manifest, plan):
    """What a replay of this run's sacct.json needs and Slurm does not
    keep exactly: the SPEEDUP that compressed it, its origin, and each
    job's plan entry (log offset, base runtime, profile), in plan order.
    Eligible times alone would move a job by up to SPEEDUP / 2 log seconds
    (BeginTime has whole seconds), or more after a pause."""
    def number(v):
        return int(v) if isinstance(v, float) and v.is_integer() else v
    # prefill: read_sacct_json leaves the filling jobs (PREFILL,
    # INDIVIDUAL's occupying jobs) out of a replay of this run.
    keep = ("log_id", "offset", "runtime", "nodes", "comm", "pattern",
            "comm_percent", "matrix_density", "prefill", "ranks")
    return {"run_id": manifest["run_id"], "speedup": manifest["speedup"],
            "t0": manifest["t0"], "seed": manifest.get("seed"),
            "plan": [{k: number(p[k]) for k in keep if k in p} for p in plan]}


def collect(container, run_dir, manifest, submitted, timeout=120, reruns=None):
    """sacct --json for exactly this run's jobs (every attempt of a job run
    again after a fault too), once accounting has them all in a final
    state, with the run's facts (run_facts) as "testbed". Jobs an earlier
    collect found ended are kept from sacct.json (a RERUN_FAULTED on a
    testbed made again)."""
    run_id = manifest["run_id"]
    expected = {jid: faults.rerun_name(run_id, log_id, 0) for log_id, jid in submitted.items()}
    for (log_id, n), jid in (reruns or {}).items():
        expected[jid] = faults.rerun_name(run_id, log_id, n)
    kept, doc = previous_records(run_dir, expected)
    ids = sorted(set(expected) - set(kept))
    deadline = time.time() + timeout
    final = []
    while ids:
        jobs = []
        for k in range(0, len(ids), 400):
            chunk = ",".join(str(x) for x in ids[k:k + 400])
            doc = json.loads(ctl(container, f"sacct -X --json -j {chunk}"))
            jobs.extend(j for j in doc.get("jobs", [])
                        if expected.get(j.get("job_id")) == j.get("name"))
        final = [j for j in jobs if faults.is_final(j)]
        if len(final) == len(ids) or time.time() > deadline:
            break
        time.sleep(2)
    final += kept.values()
    missing = sorted(set(expected) - {j["job_id"] for j in final})
    doc["jobs"] = sorted(final, key=lambda j: j["job_id"])
    doc["testbed"] = run_facts(manifest, read_plan(os.path.join(run_dir, "plan.tsv")))
    write_atomic(os.path.join(run_dir, "sacct.json"), json.dumps(doc, indent=1))
    return missing
