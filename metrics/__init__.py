"""make report and make compare: a replay's sacct.json to job rows, the
papers' metrics, summary.md and plots, and several runs in one table.

Modules: report (python3 -m metrics.report), jobs (job rows), measures (the
metrics), plots, summary (summary.md), compare (make compare), run_dir (a
run's files), eq7 (the study's Eq. 7 on the recorded same-state costs).
"""
