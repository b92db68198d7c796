"""A run's plots (gnuplot): utilization over time, wait CDF, runtime per job."""

import os
import subprocess

from .run_dir import ReportError, write_atomic


def plot(run_dir, rows, cluster_nodes):
    """Utilization over time, wait-time CDF, runtime per job; PNG and SVG."""
    data = os.path.join(run_dir, "plots")
    os.makedirs(data, exist_ok=True)
    # All starts and ends of one instant count together: applied one by one
    # they would draw dips that never happened.
    change = {}
    for r in rows:
        change[r["start"]] = change.get(r["start"], 0) + r["nodes"]
        change[r["end"]] = change.get(r["end"], 0) - r["nodes"]
    busy, util = 0, []
    for t in sorted(change):
        busy += change[t]
        util.append(f"{t / 3600:.6f} {busy / cluster_nodes:.6f}")
    waits = sorted(r["wait_s"] / 3600 for r in rows)
    cdf = [f"{w:.6f} {(i + 1) / len(waits):.6f}" for i, w in enumerate(waits)]
    runs = [f"{i} {r['run_s'] / 3600:.6f}" for i, r in enumerate(rows)]
    for name, lines in (("utilization", util), ("wait_cdf", cdf), ("runtime", runs)):
        write_atomic(os.path.join(data, name + ".dat"), "\n".join(lines) + "\n")
    specs = [
        ("utilization", "Utilization over time", "log time (h)", "busy nodes (fraction)",
         "with steps lw 1.5 title ''", "[0:*]", "[0:1.05]"),
        ("wait_cdf", "Wait time CDF", "wait (h)", "fraction of jobs",
         "with steps lw 1.5 title ''", "[0:*]", "[0:1.05]"),
        ("runtime", "Runtime per job", "job (by eligible time)", "runtime (h)",
         "with impulses lw 1 title ''", "[0:*]", "[0:*]"),
    ]
    script = []
    for name, title, xl, yl, style, xr, yr in specs:
        for term, ext in (("pngcairo size 900,500", "png"), ("svg size 900,500", "svg")):
            script.append(f"set terminal {term}\nset output '{data}/{name}.{ext}'\n"
                          f"set title '{title}'\nset xlabel '{xl}'\nset ylabel '{yl}'\n"
                          f"set xrange {xr}\nset yrange {yr}\n"
                          f"set grid\nplot '{data}/{name}.dat' using 1:2 {style}\n")
    r = subprocess.run(["gnuplot"], input="".join(script), capture_output=True,
                       text=True, check=False)
    if r.returncode != 0:
        raise ReportError(f"gnuplot failed: {r.stderr.strip()[-300:]}")
    return [f"plots/{spec[0]}.png" for spec in specs]
