"""Kind cost-by-size (the ICPP-W paper's Figure 8): mean communication cost
per job-size range, each policy's on the same cluster state.
"""

import math

from .kind import Kind, no_cost_plot
from .tables import bin_of, change, fmt, run_for


def table_cost_by_size(d, runs, t):
    others = [p for p in d.policies if p != d.baseline]
    t.csv_header = ["log", "pattern", "size_range", "jobs"] + \
        [x for p in d.policies for x in (f"mean_cost_{p}", f"change_pct_{p}")] + ["run_id"]
    t.md += ["Mean communication cost (Eq. 6) of the communication-intensive jobs of each "
             f"size range (nodes), each policy's cost on the same cluster state; in "
             f"brackets the % change of the total against `{d.baseline}`.", "",
             "| log | pattern | nodes | jobs | " + " | ".join(d.policies) + " |",
             "|---|---|---|---|" + "---|" * len(d.policies)]
    reductions = {}          # (log, pattern) -> {policy: % less total cost}
    for log in d.logs:
        for pattern in d.patterns:
            r = run_for(d, runs, log, pattern, d.baseline)
            if r is None:
                t.md.append(f"| {log} | {pattern} | (not run) | | " + " | " * len(d.policies))
                continue
            jobs = [x for x in r.rows if x["comm"] and all(
                not math.isnan(x["costs"].get(p, float("nan"))) for p in d.policies)]
            groups = [(b, [x for x in jobs if bin_of(x["nodes"], d.size_bins) == b])
                      for b in d.size_bins] + [("all", jobs)]
            for b, sel in groups:
                if not sel and b != "all":
                    continue
                tot = {p: sum(x["costs"][p] for x in sel) for p in d.policies}
                cells, csv_cells = [], []
                for p in d.policies:
                    mean = tot[p] / len(sel) if sel else None
                    ch = change(tot[p], tot[d.baseline]) if sel else None
                    cells.append(fmt(mean) + ("" if p == d.baseline or ch is None
                                              else f" ({fmt(ch, 1, True)}%)"))
                    csv_cells += ["" if mean is None else f"{mean:.6g}",
                                  "" if ch is None else f"{ch:.3f}"]
                label = f"**{b}**" if b == "all" else b
                t.md.append(f"| {log} | {pattern} | {label} | {len(sel)} | " + " | ".join(cells) + " |")
                t.csv_rows.append([log, pattern, b, len(sel)] + csv_cells + [r.run_id])
                if b == "all":
                    reductions[(log, pattern)] = {
                        p: (-change(tot[p], tot[d.baseline]) if sel and tot[d.baseline] else None)
                        for p in others}
    t.md += ["", "The paper's numbers (text of §6.4; the figure is missing from our copy): "
             "% less communication cost than the baseline. \"All policies\" is the paper's "
             "\"across all algorithms\", read here as the mean of the three policies' "
             "reductions of the total.", "",
             "| log | pattern | policy | ours | paper |", "|---|---|---|---|---|"]
    for (metric, log, pattern, policy), pv in sorted(d.paper.items()):
        if metric != "cost_reduction_pct":
            continue
        ours = None
        if log == "*":
            vals = [reductions[(lg, pattern)][policy] for lg in d.logs
                    if (lg, pattern) in reductions and reductions[(lg, pattern)].get(policy) is not None]
            ours = sum(vals) / len(vals) if vals and len(vals) == len(d.logs) else None
            shown_log = "mean of " + ", ".join(d.logs)
        else:
            red = reductions.get((log, pattern))
            if red and policy == "*":
                vals = [v for v in red.values() if v is not None]
                ours = sum(vals) / len(vals) if vals else None
            elif red:
                ours = red.get(policy)
            shown_log = log
        run = "" if ours is not None else " (not run)"
        t.md.append(f"| {shown_log} | {pattern} | "
                    f"{'all policies' if policy == '*' else policy} | {fmt(ours, 2)}{run} | {pv:g} |")
    t.md.append("")


# The baseline alone per log x pattern, as kind shadow.
KIND = Kind("cost-by-size", table_cost_by_size, plots=no_cost_plot, runs_every_policy=False)
