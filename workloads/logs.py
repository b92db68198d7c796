"""Job-log readers: the Standard Workload Format (SWF), the six-column logs of
the communication-aware allocation study, and the project's own replay
results (sacct JSON), so a replay can be replayed.

Every reader returns a Log: header facts and jobs with
    log_id, submit (s from the log's start), runtime (s), nodes,
    procs, requested_time (s or None), comm (0/1/None), comm_percent (or None),
    pattern (or None)
and the number of jobs skipped as not replayable (no runtime).
A malformed line raises LogError naming the file, the line and the reason.
"""

import json
import os

from . import faults

# Named logs, resolved in WORKLOADS_DIR. For curie the full Parallel
# Workloads Archive file is used when present, the shared excerpt otherwise.
NAMED_LOGS = {
    "theta": ["seed000-theta-2018.jobs"],
    "mira": ["seed000-mira-2019.jobs"],
    "intrepid": ["seed000-intrepid-2009.jobs"],
    "curie": ["CEA-Curie-2011-2.1-cln.swf", "curie-2011-excerpt.swf"],
    "lublin": ["lublin-256.swf"],
}

# Cores per node of the machines the logs come from, for logs that count
# processors (SWF): Curie thin nodes have 16 cores; the Lublin model
# counts nodes.
CORES_PER_NODE = {"curie": 16, "lublin": 1}

# The study divided Intrepid and Mira job sizes by 4 to fit its machine.
STUDY_SIZE_DIVISOR = {"mira": 4, "intrepid": 4}


class LogError(Exception):
    pass


class Job:
    __slots__ = ("log_id", "submit", "runtime", "nodes", "procs",
                 "requested_time", "comm", "comm_percent", "pattern",
                 "app", "placement", "prefill")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


class Log:
    def __init__(self, path, fmt):
        self.path = path
        self.format = fmt
        self.header = {}
        self.jobs = []
        self.skipped_no_runtime = 0


def resolve(name_or_path, workloads_dir):
    """A named log in workloads_dir, or a path."""
    if name_or_path in NAMED_LOGS:
        for candidate in NAMED_LOGS[name_or_path]:
            path = os.path.join(workloads_dir, candidate)
            if os.path.exists(path):
                return path, name_or_path
        raise LogError(f"log '{name_or_path}': none of "
                       f"{', '.join(NAMED_LOGS[name_or_path])} in {workloads_dir} "
                       f"(set WORKLOADS_DIR, or run 'make fetch-logs')")
    if os.path.isfile(name_or_path):
        return name_or_path, None
    if os.sep in name_or_path or os.path.exists(name_or_path):
        raise LogError(f"LOG={name_or_path}: no such file")
    raise LogError(f"unknown LOG '{name_or_path}'; valid: "
                   f"{' '.join(sorted(NAMED_LOGS))}, or a path to a log file")


def detect_format(path):
    if path.endswith(".json"):
        return "sacct-json"
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                return "swf"
            if s.startswith(NEDD_MARK):
                return "nedd"
            if s.split()[:2] == ["Job_name", "Submit"]:
                return "study"
            return "swf"
    raise LogError(f"{path}: empty file")


def read(path):
    fmt = detect_format(path)
    return {"swf": read_swf, "study": read_study, "nedd": read_nedd,
            "sacct-json": read_sacct_json}[fmt](path)


def _int(value, path, lineno, what):
    try:
        return int(float(value))
    except ValueError:
        raise LogError(f"{path}:{lineno}: {what} '{value}' is not a number")


def _numbered_lines(path):
    """(line number from 1, line) of a log file, bytes that are not UTF-8
    replaced."""
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from enumerate(f, 1)


def _from_first_submit(log):
    """The log with its jobs' submit times counted from its first job's."""
    if log.jobs:
        t0 = log.jobs[0].submit
        for job in log.jobs:
            job.submit -= t0
    return log


def read_swf(path):
    """SWF: 18 whitespace-separated fields per job, ';' header comments
    with 'Key: value' facts (MaxNodes, MaxProcs, UnixStartTime, ...)."""
    log = Log(path, "swf")
    for lineno, line in _numbered_lines(path):
        s = line.strip()
        if not s:
            continue
        if s.startswith(";"):
            key, sep, value = s[1:].partition(":")
            if sep and key.strip() and " " not in key.strip():
                log.header[key.strip()] = value.strip()
            continue
        fields = s.split()
        if len(fields) != 18:
            raise LogError(f"{path}:{lineno}: expected 18 SWF fields, "
                           f"found {len(fields)}")
        v = [_int(x, path, lineno, f"field {i + 1}")
             for i, x in enumerate(fields)]
        job_id, submit, _wait, runtime, procs = v[0], v[1], v[2], v[3], v[4]
        req_procs, req_time = v[7], v[8]
        if procs <= 0:
            procs = req_procs
        if runtime <= 0 or procs <= 0:
            log.skipped_no_runtime += 1
            continue
        if submit < 0:
            raise LogError(f"{path}:{lineno}: negative submit time {submit}")
        log.jobs.append(Job(log_id=job_id, submit=submit,
                            runtime=runtime, procs=procs, nodes=None,
                            requested_time=req_time if req_time > 0 else None))
    return _from_first_submit(log)


def read_study(path):
    """`Job_name Submit Runtime Nodes Comment Perc`, one job per line."""
    log = Log(path, "study")
    for lineno, line in _numbered_lines(path):
        fields = line.split()
        if not fields:
            continue
        if lineno == 1 or fields[0] == "Job_name":
            if fields[:6] != ["Job_name", "Submit", "Runtime", "Nodes",
                              "Comment", "Perc"]:
                raise LogError(f"{path}:{lineno}: expected the header "
                               "'Job_name Submit Runtime Nodes Comment Perc'")
            continue
        if len(fields) != 6:
            raise LogError(f"{path}:{lineno}: expected 6 fields, found "
                           f"{len(fields)}")
        job_id = fields[0]
        submit = _int(fields[1], path, lineno, "Submit")
        runtime = _int(fields[2], path, lineno, "Runtime")
        nodes = _int(fields[3], path, lineno, "Nodes")
        comm = _int(fields[4], path, lineno, "Comment")
        perc = _int(fields[5], path, lineno, "Perc")
        if comm not in (0, 1):
            raise LogError(f"{path}:{lineno}: Comment must be 0 or 1, "
                           f"found {comm}")
        if not 0 <= perc <= 100:
            raise LogError(f"{path}:{lineno}: Perc must be 0-100, found {perc}")
        if nodes <= 0:
            raise LogError(f"{path}:{lineno}: Nodes must be positive, "
                           f"found {nodes}")
        if runtime <= 0:
            log.skipped_no_runtime += 1
            continue
        log.jobs.append(Job(log_id=job_id, submit=submit,
                            runtime=runtime, nodes=nodes, procs=None,
                            requested_time=None, comm=comm,
                            comm_percent=perc))
    return _from_first_submit(log)


# The NeDD experiments' job lists (workloads/experiment/nedd.py writes
# them): a first line of its own, then a header and one job per line.
NEDD_MARK = "# nedd-jobs"
NEDD_HEADER = ["Job_name", "Submit", "Runtime", "Nodes", "Requested", "App", "Prefill",
               "Placement"]


def read_nedd(path):
    """`Job_name Submit Runtime Nodes Requested App Prefill Placement`: the
    job's application (NeDD's profile table, gpcnet, or - for none: no
    traffic; -:<percent> for none, a background log's job communicating
    that share, which the plugin's inj_unnamed= turns into its injection:
    its comment's percent, the job compute so that no cost model stretches
    it), whether it is in
    no figure (the congestor: 1), and its placement (`-`, or tb-submit's
    nodelist=<hostlist>, exclude=<hostlist> and dependency=, where @<name>
    stands for the Slurm id of the list's job of that name). In submission
    order."""
    log = Log(path, "nedd")
    last = None
    for lineno, line in _numbered_lines(path):
        fields = line.split()
        if not fields or line.startswith("#"):
            continue
        if fields[0] == "Job_name":
            if fields != NEDD_HEADER:
                raise LogError(f"{path}:{lineno}: expected the header "
                               f"'{' '.join(NEDD_HEADER)}'")
            continue
        if len(fields) != len(NEDD_HEADER):
            raise LogError(f"{path}:{lineno}: expected {len(NEDD_HEADER)} fields, "
                           f"found {len(fields)}")
        name, app, placement = fields[0], fields[5], fields[7]
        share = 0.0
        if app.startswith("-:"):
            try:
                share = float(app[2:])
            except ValueError:
                share = -1
            if not 0 <= share <= 100:
                raise LogError(f"{path}:{lineno}: App '{app}': expected a name, -, "
                               "or -:<percent> (0-100)")
            app = "-"
        submit = _int(fields[1], path, lineno, "Submit")
        runtime = _int(fields[2], path, lineno, "Runtime")
        nodes = _int(fields[3], path, lineno, "Nodes")
        requested = _int(fields[4], path, lineno, "Requested")
        prefill = _int(fields[6], path, lineno, "Prefill")
        if runtime <= 0 or nodes <= 0 or requested < runtime:
            raise LogError(f"{path}:{lineno}: expected Runtime and Nodes above 0 and "
                           "Requested at least Runtime")
        if prefill not in (0, 1):
            raise LogError(f"{path}:{lineno}: Prefill must be 0 or 1, found {prefill}")
        if placement != "-" and not all(
                e.startswith(("nodelist=", "exclude=", "dependency="))
                for e in placement.split(";")):
            raise LogError(f"{path}:{lineno}: Placement '{placement[:40]}': expected -, "
                           "or nodelist=<hostlist>, exclude=<hostlist>, "
                           "dependency=<type>:@<job name>[...] joined by ';'")
        if last is not None and submit < last:
            raise LogError(f"{path}:{lineno}: Submit {submit} before the line "
                           f"above's {last}; expected submission order")
        last = submit
        log.jobs.append(Job(log_id=name, submit=submit, runtime=runtime, nodes=nodes,
                            procs=None, requested_time=requested, comm=0,
                            comm_percent=share, pattern="rd",
                            app="" if app == "-" else app,
                            placement="" if placement == "-" else placement,
                            prefill=prefill))
    return log


def admin_fields(text):
    """The plugin's AdminComment, key=value;key=value, as a dict."""
    out = {}
    for kv in (text or "").split(";"):
        k, sep, v = kv.partition("=")
        if sep:
            out[k] = v
    return out


def _number(value):
    """20.0 -> 20: a replayed plan prints the numbers the original did."""
    value = float(value)
    return int(value) if value.is_integer() else value


def _run_facts(path, doc):
    """The replay's facts recorded in sacct.json ("testbed", written by
    the replay since it records them), else in the run's manifest.json
    beside it (older runs), else none."""
    facts = doc.get("testbed")
    if isinstance(facts, dict):
        return facts
    manifest = os.path.join(os.path.dirname(os.path.abspath(path)), "manifest.json")
    try:
        with open(manifest, encoding="utf-8") as f:
            m = json.load(f)
        return {"run_id": m.get("run_id"), "speedup": m.get("speedup"), "t0": m.get("t0")}
    except (OSError, ValueError, AttributeError):
        return {}


def read_sacct_json(path):
    """A replay's sacct.json, replayed as the log that replay played: each
    job's log submit time, runtime and profile (pattern, communication
    share) come from the plan recorded in the file's "testbed" section;
    for a run without one, from the eligible time (wall seconds since the
    first job's, times the run's SPEEDUP) and the base runtime and profile
    the plugin recorded in the job's AdminComment."""
    log = Log(path, "sacct-json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as e:
        raise LogError(f"{path}:{e.lineno}: not JSON: {e.msg}")
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    if not isinstance(jobs, list):
        raise LogError(f"{path}:1: expected an object with a 'jobs' list")
    facts = _run_facts(path, doc)
    try:
        speedup = float(facts.get("speedup") or 1)
        origin = float(facts.get("t0") or 0)
        planned = {str(p["log_id"]): (k, p) for k, p in enumerate(facts.get("plan") or [])}
    except (TypeError, ValueError, KeyError, AttributeError):
        raise LogError(f"{path}:1: malformed 'testbed' section (speedup, plan)")
    if speedup <= 0:
        raise LogError(f"{path}:1: speedup {speedup:g}: expected > 0")
    run_id = facts.get("run_id")
    rows, named = [], []
    for i, j in enumerate(jobs):
        try:
            admin = admin_fields(j["comment"]["administrator"])
            eligible = float(j["time"]["eligible"])
            nodes = int(j["allocation_nodes"])
            name = j["name"]
        except (KeyError, TypeError, ValueError):
            raise LogError(f"{path}:1: job {i}: missing name, time.eligible, "
                           "allocation_nodes or comment.administrator")
        # A job run again after a fault stands for its log job in place of
        # the job it replaces (faults.py): one job per log job.
        base, attempt = faults.strip_rerun(name)
        if run_id and base.startswith(run_id + ":"):
            log_id = base[len(run_id) + 1:]
        else:
            log_id = base.split(":")[-1]
        named.append(((base, attempt), (log_id, admin, eligible, nodes)))
    named, _ = faults.one_per_log(named, key=lambda x: x[0])
    for _, (log_id, admin, eligible, nodes) in named:
        if log_id in planned:
            k, p = planned[log_id]
            # The jobs that filled the cluster first (PREFILL, INDIVIDUAL's
            # occupying jobs, held for a year) are no part of the workload.
            if str(p.get("prefill", 0)) == "1":
                continue
            try:
                rows.append((float(p["offset"]), k, log_id, _number(p["runtime"]),
                             nodes, int(p["comm"]), _number(p["comm_percent"]),
                             p.get("pattern")))
            except (KeyError, TypeError, ValueError):
                raise LogError(f"{path}:1: testbed plan entry of job {log_id}: "
                               "expected offset, runtime, comm and comm_percent")
            continue
        runtime = float(admin.get("runtime_base", 0))
        if runtime <= 0:
            log.skipped_no_runtime += 1
            continue
        # Eligible times are wall seconds, compressed by the run's SPEEDUP.
        rows.append(((eligible - origin) * speedup, len(planned), log_id,
                     _number(runtime), nodes,
                     int(admin.get("comm", 0)),
                     _number(admin.get("comm_percent", 50)),
                     admin.get("pattern") or None))
    rows.sort(key=lambda r: r[:3])
    t0 = rows[0][0] if rows else 0
    for submit, _, log_id, runtime, nodes, comm, perc, pattern in rows:
        log.jobs.append(Job(log_id=log_id, submit=_number(round(submit - t0, 6)),
                            runtime=runtime, nodes=nodes, procs=None,
                            requested_time=None, comm=comm, comm_percent=perc,
                            pattern=pattern))
    return log
