"""Job logs and the drivers that replay them on an emulated cluster.

Modules: logs (log readers: SWF, the study's .jobs, a run's sacct.json),
replay (make replay), experiment (make experiment), faults, health, launch
(the launch guard), vclock (the virtual clock's page), ta_speedup (SC18's
runtime model), fetch_logs (make fetch-logs), cluster_defs (what the
drivers share with emulated-clusters/generate.py), clustergen (that
generator's parts).
"""
