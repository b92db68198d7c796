"""The run directory (results/<run-id>/): plan.tsv, submitted.tsv,
rerun.tsv, manifest.json and replay.log, each written whole or appended and
synced, and read back by RESUME.
"""

import datetime
import json
import os
import subprocess


def log_line(run_dir, text):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    with open(os.path.join(run_dir, "replay.log"), "a", encoding="utf-8") as f:
        f.write(f"{stamp} {text}\n")


PLAN_FIELDS = ["log_id", "offset", "runtime", "nodes", "comm", "pattern",
               "comm_percent", "limit_min", "matrix_density", "ta_reduction", "prefill",
               "nodelist", "chain", "ranks", "app", "placement", "matrix_file"]


def write_atomic(path, text):
    """The whole file or, on any error (a full disk), none of it."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_plan(path, plan):
    rows = ["\t".join(PLAN_FIELDS)]
    absent = {"ranks": 0, "app": "", "placement": "", "matrix_file": ""}
    rows += ["\t".join(str(p.get(k, absent[k]) if k in absent else p[k]) for k in PLAN_FIELDS)
             for p in plan]
    write_atomic(path, "\n".join(rows) + "\n")


def read_plan(path):
    plan = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            row.setdefault("matrix_density", "0")
            row.setdefault("ta_reduction", "0")
            row.setdefault("prefill", "0")
            row.setdefault("nodelist", "")
            row.setdefault("chain", "0")
            row.setdefault("ranks", "0")
            row.setdefault("app", "")
            row.setdefault("placement", "")
            row.setdefault("matrix_file", "")
            for k in ("offset", "runtime", "comm_percent", "matrix_density",
                      "ta_reduction"):
                row[k] = float(row[k])
            for k in ("nodes", "comm", "limit_min", "prefill", "chain", "ranks"):
                row[k] = int(row[k])
            plan.append(row)
    return plan


# --- running ----------------------------------------------------------------------

def _read_ids(path, plan, key_fields):
    """{key: job id} from lines of `key_fields` words (a planned log id,
    then positive attempt numbers) and a job id. A write cut short (a full
    disk) can leave a partial last line, and later appends glued to it:
    lines that are not such a key and a job id, or repeat a key, are
    dropped, and the file is rewritten without them; reconcile() then finds
    those jobs in Slurm. A key of one field is the log id itself."""
    done, bad = {}, 0
    if not os.path.exists(path):
        return done
    planned = {p["log_id"] for p in plan}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            key = None
            if (line.endswith("\n") and len(parts) == key_fields + 1
                    and parts[0] in planned
                    and all(w.isdigit() and int(w) > 0 for w in parts[1:key_fields])
                    and parts[-1].isdigit()):
                key = (parts[0],) + tuple(int(w) for w in parts[1:key_fields])
                key = key[0] if key_fields == 1 else key
            if key is None or key in done:
                bad += 1
            else:
                done[key] = int(parts[-1])
    if bad:
        write_atomic(path, "".join(
            " ".join(str(w) for w in ((k,) if key_fields == 1 else k)) + f" {v}\n"
            for k, v in done.items()))
    return done


def read_submitted(path, plan):
    """submitted.tsv as {log id: job id} (lines cut short: _read_ids)."""
    return _read_ids(path, plan, 1)


def read_reruns(path, plan):
    """rerun.tsv as {(log id, attempt): job id} (lines cut short: _read_ids)."""
    return _read_ids(path, plan, 2)


def append_synced(path, lines):
    if not lines:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(lines)
        f.flush()
        os.fsync(f.fileno())


def new_run_id(results, log_label, policy):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-{log_label}-{policy}"
    run_id, n = base, 1
    while os.path.exists(os.path.join(results, run_id)):
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def git_revision(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True, check=False)
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain"],
                           capture_output=True, text=True, check=False).stdout.strip()
    return (r.stdout.strip() or "unknown") + ("-dirty" if dirty else "")


def write_manifest(run_dir, manifest):
    write_atomic(os.path.join(run_dir, "manifest.json"),
                 json.dumps(manifest, indent=2) + "\n")


def resume_hint(run_dir):
    if run_dir and os.path.exists(os.path.join(run_dir, "manifest.json")):
        return f"make replay RESUME={os.path.basename(run_dir)}"
    return "make replay RESUME=<run-id>"
