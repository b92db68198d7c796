"""The machine definitions' generator in parts: emulated-clusters/generate.py
keeps its command line and its checks, writes each file whole (cgroup.conf
and cluster.env its own), and these modules make the rest.

Modules: definition (a .cluster file read, its nodes one by one, the
dragonfly's and the torus' shapes), topology (the switch tree Slurm sees:
by rule, from a real topology.conf, a dragonfly's or a torus'),
topology_files (topology.conf and topology.json written from that tree),
frontends (the front ends spread over the emulator containers,
emulators.yml), slurm_conf (slurm.conf: the clock's timeouts,
SchedulerParameters, front ends, nodes and partitions).
"""
