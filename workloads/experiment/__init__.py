"""make experiment: experiment definitions (experiments/<name>.exp), the
replays each needs, and the table that sets our results beside the paper's.

Modules: cli (python3 -m workloads.experiment), definition (the .exp format,
its checks and overrides), planning (runs.tsv, experiment.json), results
(the runs read as make report reads them, the table written out), tables
(helpers every kind uses), kind (what a kind declares: its hooks and
traits, and their defaults), kinds (the registry, one line per kind), one
module per kind (continuous, shadow, individual, cost_by_size, sc18,
treematch), errors.
"""
