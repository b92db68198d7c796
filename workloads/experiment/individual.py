"""Kind individual (the ICPP-W paper's Table 4, individual runs): the same
drawn jobs one at a time under each policy, measured, applied and
same-state changes against the baseline.

A definition of kind individual runs every policy once per
log x pattern with the replay's INDIVIDUAL= (required) and OCCUPY=: the
same drawn jobs one at a time from the same partly occupied cluster. Its
table gives each policy's % less execution time than the baseline's run
over the same jobs (measured, sacct's), what Eq. 7 applied, and the
same-state costs of the baseline run (as kind shadow) beside the paper's
paper.improvement_pct.<log>.<pattern>.<policy>.
"""

import csv
import os

from metrics import eq7
from .errors import ExperimentError
from .kind import Kind, no_cost_plot
from .tables import fmt, improvement, ordering, ordering_md


def occupying_nodes(r):
    """{log id: node list} of a run's occupying jobs (plan.tsv)."""
    path = os.path.join(r.dir, "plan.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {row["log_id"]: row.get("nodelist", "")
                for row in csv.DictReader(f, delimiter="\t") if row.get("prefill") == "1"}


def individual_change(base_rows, rows):
    """% less execution time than the baseline's over the jobs both ran
    (sacct's run_s): of the total, and the mean of the per-job changes."""
    base = {r["log_job_id"]: r["run_s"] for r in base_rows if r["run_s"] > 0}
    pairs = [(base[r["log_job_id"]], r["run_s"]) for r in rows if r["log_job_id"] in base]
    if not pairs:
        return 0, None, None
    tb, tp = sum(b for b, _ in pairs), sum(p for _, p in pairs)
    return (len(pairs), 100 * (tb - tp) / tb,
            sum(100 * (b - p) / b for b, p in pairs) / len(pairs))


def applied_change(rows):
    """% less runtime Eq. 7 gave the jobs (runtime_scaled against
    runtime_base, as the plugin recorded them), of the total."""
    b = sum(r["runtime_base_s"] for r in rows if r["runtime_base_s"] > 0)
    p = sum(r["runtime_scaled_s"] for r in rows if r["runtime_base_s"] > 0)
    return 100 * (b - p) / b if b > 0 else None


def table_individual(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "policy", "jobs", "measured_total_pct",
                    "measured_mean_pct", "applied_pct", "same_state_pct", "paper_pct",
                    "run_id"]
    t.md += [f"% less execution time than `{d.baseline}` (the paper's Table 4 sign: "
             "positive is better), the paper's individual runs: the same drawn jobs, one "
             "at a time, each from the same partly occupied cluster. Measured: sacct's "
             "execution times against the baseline run's for the same jobs, of the total "
             "and the mean per job (the paper says \"average percentage improvements\" "
             "and not which). Applied: what Eq. 7 gave the jobs in the policy's run. Same "
             "state: the costs the plugin recorded in the baseline run for every policy "
             "(kind shadow); on one common state the three agree up to launch times.", "",
             "| log | pattern | policy | jobs | measured (total) | measured (mean per job) "
             "| applied (Eq. 7) | same state | paper |",
             "|---|---|---|---|---|---|---|---|---|"]
    orders, states, left_out = [], [], []
    for log in d.logs:
        for pattern in d.patterns:
            base = runs.get((log, pattern, d.baseline))
            left = {}
            shadow = improvement(base.rows, d.policies, d.baseline, left) if base else {}
            if left:
                left_out.append(f"{log}/{pattern}: " + eq7.left_out_text(left))
            ours, paper = {}, {}
            for policy in others:
                r = runs.get((log, pattern, policy))
                pv = d.paper_value("improvement_pct", log, pattern, policy)
                n, total, mean = individual_change(base.rows, r.rows) if base and r else (
                    0, None, None)
                applied = applied_change(r.rows) if r else None
                same = shadow.get(policy)
                ours[policy], paper[policy] = total, pv
                t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                            f"{n} | " + " | ".join(fmt(v, 2) for v in (total, mean, applied,
                                                                      same, pv)) + " |")
                t.csv_rows.append([log, pattern, policy, n] + [
                    "" if v is None else f"{v:.4f}" for v in (total, mean, applied, same)] + [
                    "" if pv is None else f"{pv:g}", r.run_id if r else ""])
                if base and r:
                    states.append((log, pattern, policy,
                                   occupying_nodes(base) == occupying_nodes(r)))
            orders.append((log, pattern, ordering(ours, 2, True), ordering(paper, 2, True)))
    differ = [f"{lg}/{pt}/{pol}" for lg, pt, pol, same in states if not same]
    t.md += [""] + [x for line in left_out for x in ("Same state, " + line, "")]
    t.md += ["", "Same starting state (the occupying jobs on the same nodes as in the "
             "baseline's run): " + ("yes, in every run" if states and not differ else
                                    f"**no**: {', '.join(differ)}" if differ else "-"), ""]
    t.md += ordering_md(orders, "measured, total")


def validate_individual(d, where):
    if not any(k == "INDIVIDUAL" for k, _ in d.params):
        raise ExperimentError(f"{where}kind individual needs INDIVIDUAL = <jobs run one at "
                              "a time>")


# Every policy per log x pattern, the baseline too: its run gives the
# same-state costs of its pattern.
KIND = Kind("individual", table_individual, validate=validate_individual, plots=no_cost_plot)
