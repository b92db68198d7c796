"""Kind shadow (a Table 4 substitute): every policy's same-state
improvement from one baseline replay, through Eq. 7.
"""

from metrics import eq7
from .kind import Kind, no_cost_plot
from .tables import fmt, improvement, ordering, ordering_md, run_for, sample_rows


def table_shadow(d, runs, t):
    # The sample's seed: the first log's SEED.
    seed = int(d.params_of(d.logs[0]).get("SEED", 0))
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "policy", "jobs", "ours_sample_pct", "ours_all_pct",
                    "ours_comm_pct", "paper_pct", "run_id"]
    t.md += [f"% less execution time than `{d.baseline}` at equal cluster state (the "
             "paper's Table 4 sign: positive is better). Ours: each job's runtime under "
             "each policy from the same-state costs through Eq. 7, totalled over "
             f"{d.sample} jobs drawn with SEED={seed} (sample), over all jobs, and over "
             "the communication-intensive ones.", "",
             "| log | pattern | policy | ours (sample) | ours (all jobs) | ours (comm jobs) | paper |",
             "|---|---|---|---|---|---|---|"]
    orders, left_out = [], []
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r:
                chosen = sample_rows(r.rows, d.sample, seed)
                s = improvement(chosen, d.policies, d.baseline)
                left = {}
                a = improvement(r.rows, d.policies, d.baseline, left)
                c = improvement([x for x in r.rows if x["comm"]], d.policies, d.baseline)
                if left:
                    left_out.append(f"{log}/{pattern}: " + eq7.left_out_text(left))
            ours, paper = {}, {}
            for policy in others:
                pv = d.paper_value("improvement_pct", log, pattern, policy)
                vals = (s[policy], a[policy], c[policy]) if r else (None, None, None)
                ours[policy], paper[policy] = vals[0], pv
                t.md.append(f"| {log} | {pattern} | {policy}{'' if r else ' (not run)'} | "
                            + " | ".join(fmt(v, 2) for v in vals) + f" | {fmt(pv, 2)} |")
                t.csv_rows.append([log, pattern, policy, len(chosen) if r else "",
                                   *("" if v is None else f"{v:.4f}" for v in vals),
                                   "" if pv is None else f"{pv:g}", r.run_id if r else ""])
            orders.append((log, pattern, ordering(ours, 2, True), ordering(paper, 2, True)))
    t.md += [""] + [x for line in left_out for x in (line, "")]
    t.md += ordering_md(orders, "the sample")


# The baseline alone per log x pattern: every policy's cost is recorded in
# its run, on the same cluster state.
KIND = Kind("shadow", table_shadow, plots=no_cost_plot, runs_every_policy=False)
