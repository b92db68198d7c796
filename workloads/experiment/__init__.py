"""make experiment: experiment definitions (experiments/<name>.exp), the
replays each needs, and the table that sets our results beside the paper's.

Modules: cli (python3 -m workloads.experiment), definition (the .exp format,
its checks and overrides), planning (runs.tsv, experiment.json), results
(the runs read as make report reads them, the table written out), tables
(helpers every kind uses), one module per kind (continuous, shadow,
individual, cost_by_size, sc18, treematch), errors.
"""
