"""Eq. 7 of the ICPP-W 2020 paper on recorded jobs: the runtime a job would
have had, had a policy placed it on the cluster state it met, and the change
of a run's total under one policy against another.

The one place this is computed for Python (make report's individual runs,
the experiment tables' same-state columns); the plugin's own runtime comes
from the C library (cost.c, tb_scaled_runtime_why), with the same rules:

    T = T0 (1 - f) + T0 f C_policy / C_denominator        (Eq. 7)

C_denominator is the cost of the policy the job's record names as
`denominator` (default1905, the study's baseline; records from before the
name was written used default). A denominator cost of 0 gives a ratio of 1
(a one-node job, where every cost is 0). A compute-intensive job keeps T0
(P:275), whatever the costs. A communicating job whose policy cost or
denominator cost is missing (NaN) has no runtime under that policy: it is
not counted as "no change" but left out of that policy's figure and named.
"""

import math

NAN = float("nan")


def _missing(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def runtime(row, policy):
    """(runtime, why): row's runtime under policy by Eq. 7, or (None, why)
    where a cost it needs is missing: "no_cost" / "no_denominator" for a
    NaN the plugin recorded (the policy could not place the job on that
    state), "not_recorded" for a policy the record has no cost of at all
    (a record older than the policy). row: a report.job_rows row
    (runtime_base_s, comm, comm_percent, denominator, cost_by_policy). A
    policy of None is the log's runtime."""
    t0 = row["runtime_base_s"]
    if policy is None or not row["comm"]:
        return t0, None
    costs = row["cost_by_policy"]
    if policy not in costs:
        return None, "not_recorded"
    cp = costs[policy]
    cd = costs.get(row["denominator"], NAN)
    if _missing(cp):
        return None, "no_cost"
    if _missing(cd):
        return None, "no_denominator"
    f = row["comm_percent"] / 100
    return t0 * (1 - f) + t0 * f * (cp / cd if cd > 0 else 1), None


def change(rows, policy, reference=None):
    """% less total runtime under policy than under reference (a policy, or
    None: the log's runtimes), over the rows with a runtime (> 0) where
    both are known; positive is better, as the paper's Table 4.
    Returns (percent or NaN, the job ids left out for a missing cost).
    NaN where no communicating job could be counted although some ran: a
    figure over the compute jobs alone would read as "no change"."""
    total = base = 0.0
    left_out = []
    comm = counted_comm = 0
    for r in rows:
        if not r["runtime_base_s"] > 0:
            continue
        comm += bool(r["comm"])
        tp, why_p = runtime(r, policy)
        tr, why_r = runtime(r, reference)
        if tp is None or tr is None:
            if "not_recorded" not in (why_p, why_r):
                left_out.append(r["log_job_id"])
            continue
        counted_comm += bool(r["comm"])
        total += tp
        base += tr
    if base > 0 and (counted_comm or not comm):
        return 100 * (base - total) / base, left_out
    return NAN, left_out


def changes(rows, policies, reference=None):
    """change() for each policy: ({policy: percent}, {policy: left-out
    job ids}, only the policies that left some out)."""
    pct, left = {}, {}
    for p in policies:
        pct[p], out = change(rows, p, reference)
        if out:
            left[p] = out
    return pct, left


def left_out_text(left, limit=10):
    """One line naming the jobs each policy's figure left out, or ''."""
    if not left:
        return ""
    parts = []
    for p, ids in left.items():
        shown = ", ".join(str(i) for i in ids[:limit])
        parts.append(f"{p} {len(ids)} ({shown}{' ...' if len(ids) > limit else ''})")
    return ("Left out for a missing same-state cost (Eq. 7 cannot be applied; "
            "not counted as no change): " + "; ".join(parts) + ".")
