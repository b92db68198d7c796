#!/usr/bin/env python3
"""Submission rate of the replay driver (make bench BENCH=submit).

    submit.py plan [--only NAMES] < policies.tsv
    submit.py run <container> <jobs> <script> <ahead> [--submitters N]
                  [--policy P --family F --machine M]
    submit.py client <container> <jobs> [--submitters N] [--machine M]
    submit.py dry <jobs> [--submitters N]
    submit.py table < rows

plan: the policies to measure, from the registry as the build wrote it
(policies.tsv: name, family, traits, paper; `make policies`): the first
policy of each family, or the names given (--only, space- or
comma-separated, each checked against the registry); one line each,
"<policy> <family> <place>" (tab-separated), place "torus" for a policy
with the registry's torus trait (TOFA's: it refuses a tree), else
"tree". The tree policies come first, so that a machine starts once.

run: submits <jobs> one-node jobs at once the way `make replay` submits
a burst (workloads.replay.slurm_io.SubmitterPool: N long-lived tb-submit
processes in the controller container, one job per round trip each).
With <ahead> 0 they are eligible at once; with <ahead> s > 0 they begin s
seconds later, as a replay submits (LEAD seconds ahead of each job's
time), and the pass stops submitting at 80 % of <ahead>, so that no job
it submitted starts during it (the row gives the jobs submitted). Prints
one row (below).

client: the same submitters with an echo loop in the controller
container in place of tb-submit: what the client side alone sustains
(the docker exec stream, Python's threads), no Slurm. dry: the same
with the echo loop on this machine, no container at all.

run also resets slurmctld's statistics (sdiag -r) before the pass and
reads them after it (sdiag, kept whole with --sdiag-out): ctld_ms is the
mean time slurmctld spent in a submission RPC (REQUEST_SUBMIT_BATCH_JOB's
ave_time), waits for its locks included. lock_ms is the mean of the
usec= that slurmctld logs for each of the pass's jobs
("_slurm_rpc_submit_batch_job: JobId=N InitPrio=P usec=U", at
SlurmctldDebug=info; Slurm 24.11.5 src/slurmctld/proc_req.c:3611-3646,
3676-3677: its timer runs from the job write lock's taking to just after
its release), read from the controller's container log (docker logs
--since the pass's start): the time inside the lock, job_allocate's
work. ctld_ms - lock_ms is the rest of the RPC: the wait for the locks,
the work before them and the answer sent after (sdiag times the whole
handler: slurmctld_req, proc_req.c:6951-6977); lock_ms x jobs / wall_s
/ 1000, the share of the pass's wall time the submissions held the
lock, one at a time (issue 30:
docs/results/2026-11-27-submit-families-startup.md, candidate 3).

A row is tab-separated: policy, family, machine, jobs, mode (later, at
once, client, dry), wall seconds, submissions/s, ctld_ms, lock_ms ("-"
when not measured), the 1-min load average at the pass's end. table
prints rows aligned under one header.
"""

import argparse
import concurrent.futures
import re
import subprocess
import sys
import time

from workloads.replay import slurm_io

# A job id per line in, as tb-submit answers: bash alone, in any container.
ECHO = ["bash", "-c", 'n=0; while IFS= read -r _; do n=$((n + 1)); echo "$n"; done']

COLUMNS = ("policy", "family", "machine", "jobs", "mode", "wall_s",
           "submissions/s", "ctld_ms", "lock_ms", "load")

SUBMIT_RPC = re.compile(r"^\s*REQUEST_SUBMIT_BATCH_JOB\s*\(\s*\d+\)\s+count:(\d+)"
                        r"\s+ave_time:(\d+)", re.M)

# slurmctld's info line at the end of each accepted batch submission.
SUBMIT_LOG = re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) InitPrio=\d+ "
                        r"usec=(\d+)")

# The later pass stops at this share of <ahead>: its first jobs must not
# begin (and launch) while it still submits.
AHEAD_SHARE = 0.8


class PlanError(ValueError):
    pass


def plan(registry_text, only=""):
    """[(policy, family, place)] from policies.tsv's text: the first
    policy of each family in registry order, or the names in `only`;
    tree policies first, each group in registry order."""
    rows = []
    for line in registry_text.splitlines():
        f = line.split("\t")
        if len(f) >= 3 and f[0] and not line.startswith("#"):
            rows.append((f[0], f[1], "torus" if "torus" in f[2].split(",") else "tree"))
    if not rows:
        raise PlanError("the policy registry is empty (policies.tsv)")
    names = only.replace(",", " ").split()
    if names:
        known = {r[0]: r for r in rows}
        bad = [n for n in names if n not in known]
        if bad:
            raise PlanError(f"BENCH_POLICIES: unknown {' '.join(bad)}; valid: "
                            f"{' '.join(r[0] for r in rows)}")
        chosen = [known[n] for n in dict.fromkeys(names)]
    else:
        seen, chosen = set(), []
        for r in rows:
            if r[1] not in seen:
                seen.add(r[1])
                chosen.append(r)
    return [r for r in chosen if r[2] == "tree"] + [r for r in chosen if r[2] != "tree"]


def load_average():
    with open("/proc/loadavg", encoding="ascii") as f:
        return f.read().split()[0]


def submit_rpc_ms(sdiag_text):
    """The mean milliseconds of slurmctld's submission RPCs in sdiag's
    output (its microseconds), or None if it counted none."""
    m = SUBMIT_RPC.search(sdiag_text or "")
    if not m or int(m.group(1)) == 0:
        return None
    return int(m.group(2)) / 1000


def submit_lock_ms(log_text, ids):
    """The mean milliseconds inside the job write lock (the usec= of
    slurmctld's submission lines) of the jobs in ids, or None if the log
    has none of them. Lines of other jobs (the at-once pass's filler,
    anything before the pass) are left out."""
    usec = [int(m.group(2)) for m in SUBMIT_LOG.finditer(log_text or "")
            if int(m.group(1)) in ids]
    if not usec:
        return None
    return sum(usec) / len(usec) / 1000


LOG_TIMEOUT_S = 120


def controller_log(container, since):
    """The controller container's log since the epoch second `since`
    (slurmctld runs in the foreground: its log is the container's), ""
    if docker could not give it in LOG_TIMEOUT_S (a hung daemon must not
    hang the bench after its passes)."""
    try:
        r = subprocess.run(["docker", "logs", "--since", str(int(since)), container],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", check=False,
                           timeout=LOG_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"warning: docker logs {container}: no answer in {LOG_TIMEOUT_S} s",
              file=sys.stderr)
        return ""
    except OSError as e:
        print(f"warning: docker logs: {e}", file=sys.stderr)
        return ""
    if r.returncode != 0:
        print(f"warning: docker logs {container}: exit {r.returncode}", file=sys.stderr)
        return ""
    return r.stdout


def _ms(value):
    return "-" if value is None else f"{value:.2f}"


def format_row(policy, family, machine, jobs, mode, wall, load, ctld_ms=None,
               lock_ms=None):
    rate = jobs / wall if wall > 0 else 0.0
    return "\t".join((policy, family, machine, str(jobs), mode, f"{wall:.1f}",
                      f"{rate:.0f}", _ms(ctld_ms), _ms(lock_ms), str(load)))


def parse_row(line):
    f = line.rstrip("\n").split("\t")
    if len(f) != len(COLUMNS):
        raise ValueError(f"a row has {len(COLUMNS)} tab-separated fields: {line!r}")
    int(f[3])
    float(f[5])
    float(f[6])
    for ms in f[7:9]:
        if ms != "-":
            float(ms)
    return f


def table(lines):
    """The rows under one header, columns aligned (numbers to the right)."""
    rows = [parse_row(x) for x in lines if x.strip() and not x.startswith("#")]
    cells = [list(COLUMNS)] + rows
    width = [max(len(r[i]) for r in cells) for i in range(len(COLUMNS))]
    right = {3, 5, 6, 7, 8, 9}
    out = []
    for r in cells:
        out.append(" ".join(c.rjust(w) if i in right else c.ljust(w)
                            for i, (c, w) in enumerate(zip(r, width))).rstrip())
    return "\n".join(out)


def job_fields(jobs, begin):
    """tb-submit -s -x's fields of the bench's jobs: one node, 5 minutes,
    priorities in submission order as a replay's (slurm_io.job_fields),
    the script's argument 60 (it sleeps that long if it ever starts)."""
    return [[f"bench-submit:{i}", 1, 5, begin, slurm_io.PRIORITY_TOP - i, "1:2", "",
             "", "60"] for i in range(jobs)]


def submit(container, jobs, submitters, begin=0, stop_after=None, command=None,
           ids=None):
    """(jobs submitted, wall seconds) of one pass through SubmitterPool's
    submitters, as its submit_all keeps them busy: one job in flight per
    submitter, the next given as one is answered. Once stop_after seconds
    have gone nothing more is given; those in flight are answered. The
    job ids answered go into the set ids, if given."""
    pool = slurm_io.SubmitterPool(container, submitters, "/tmp", command)
    todo = iter(enumerate(job_fields(jobs, begin)))
    tty = sys.stderr.isatty()
    start = time.time()
    done = 0
    inflight = set()
    try:
        while True:
            late = stop_after is not None and time.time() - start >= stop_after
            while not late and len(inflight) < submitters:
                nxt = next(todo, None)
                if nxt is None:
                    break
                inflight.add(pool.submit(nxt[1], nxt[0]))
            if not inflight:
                break
            finished, inflight = concurrent.futures.wait(
                inflight, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in finished:
                _, job_id = f.result()
                if ids is not None:
                    ids.add(job_id)
                done += 1
                if tty and done % 100 == 0:
                    print(f"\rsubmitted {done}/{jobs}", end="", file=sys.stderr,
                          flush=True)
    finally:
        pool.close()
    wall = time.time() - start
    if tty:
        print("\r", end="", file=sys.stderr)
    return done, wall


def sdiag(container, reset=False):
    """sdiag's output (or, with reset, sdiag -r's), "" if it failed."""
    try:
        return slurm_io.ctl(container, "sdiag -r" if reset else "sdiag")
    except slurm_io.ReplayError as e:
        print(f"warning: sdiag: {e}", file=sys.stderr)
        return ""


def main(argv):
    ap = argparse.ArgumentParser(prog="submit.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--only", default="")
    for name in ("run", "client", "dry"):
        p = sub.add_parser(name)
        if name != "dry":
            p.add_argument("container")
        p.add_argument("jobs", type=int)
        if name == "run":
            p.add_argument("script")
            p.add_argument("ahead", type=int)
            p.add_argument("--policy", default="?")
            p.add_argument("--family", default="?")
            p.add_argument("--sdiag-out", default="")
        p.add_argument("--machine", default="-")
        p.add_argument("--submitters", type=int, default=slurm_io.SUBMITTERS)
    sub.add_parser("table")
    a = ap.parse_args(argv[1:])

    if a.cmd == "plan":
        try:
            for r in plan(sys.stdin.read(), a.only):
                print("\t".join(r))
        except PlanError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    if a.cmd == "table":
        print(table(sys.stdin.readlines()))
        return 0
    if a.jobs < 1 or a.submitters < 1:
        print("error: jobs and submitters must be at least 1", file=sys.stderr)
        return 2
    if a.cmd == "run":
        slurm_io.BATCH_SCRIPT = a.script
        sdiag(a.container, reset=True)
        since = time.time() - 1
        begin = int(time.time()) + a.ahead if a.ahead > 0 else 0
        stop = a.ahead * AHEAD_SHARE if a.ahead > 0 else None
        ids = set()
        done, wall = submit(a.container, a.jobs, a.submitters, begin, stop, ids=ids)
        load = load_average()
        stats = sdiag(a.container)
        lock_ms = submit_lock_ms(controller_log(a.container, since), ids)
        if a.sdiag_out and stats:
            with open(a.sdiag_out, "w", encoding="utf-8") as f:
                f.write(stats)
        mode = "later" if a.ahead > 0 else "at once"
        print(format_row(a.policy, a.family, a.machine, done, mode, wall, load,
                         submit_rpc_ms(stats), lock_ms))
        return 0
    if a.cmd == "client":
        command = ["docker", "exec", "-i", a.container] + ECHO
        done, wall = submit(a.container, a.jobs, a.submitters, command=command)
        print(format_row("-", "-", a.machine, done, "client", wall, load_average()))
        return 0
    done, wall = submit("", a.jobs, a.submitters, command=ECHO)
    print(format_row("-", "-", "-", done, "dry", wall, load_average()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
