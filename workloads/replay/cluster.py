"""The running cluster as `make up` left it: its name, its generated
configuration (cluster.env, topology.json) and the copy of its topology a
run keeps.
"""

import hashlib
import os

from .errors import ReplayError
from .run_dir import write_atomic


def current_cluster(root):
    """The name of the cluster `make up` started last."""
    state = os.environ.get("TESTBED_STATE_DIR") or os.path.join(root, ".state")
    try:
        with open(os.path.join(state, "cluster"), encoding="utf-8") as f:
            return f.read().strip()
    except FileNotFoundError:
        raise ReplayError("no cluster is up; run 'make up CLUSTER=<name>' first")


def cluster_dir(root, name):
    """scripts/testbed's cluster_dir: another project (TESTBED_PROJECT) than
    the clone's own (TESTBED_CLONE_PROJECT, scripts/lib/env.bash) has its own
    generated configuration."""
    own = os.environ.get("TESTBED_CLONE_PROJECT", "testbed")
    project = os.environ.get("TESTBED_PROJECT", own)
    clusters = (os.path.join(root, "build", "clusters") if project == own else
                os.path.join(root, "build", "projects", project, "clusters"))
    return os.path.join(clusters, name)


def cluster_env(root):
    name = current_cluster(root)
    env = {}
    with open(os.path.join(cluster_dir(root, name), "cluster.env"), encoding="utf-8") as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            env[k] = v
    return name, env


def cluster_options(root):
    """The library's named readings `make up` gave the running cluster
    (OPTIONS=, cluster.env), "" for the papers' forms."""
    return cluster_env(root)[1].get("OPTIONS", "")


def cluster_bf_window(root):
    """Backfill's window `make up` wrote into the running cluster's
    slurm.conf (BF_WINDOW=, cluster.env), in minutes; None for Slurm's
    default (none written, or a cluster generated before BF_WINDOW)."""
    value = cluster_env(root)[1].get("BF_WINDOW", "")
    return int(value) if value else None


def cluster_facts(root):
    name, env = cluster_env(root)
    nodes = int(env["NODES"])
    return name, nodes, int(env.get("CORES", 0) or 0) // max(1, nodes)


def keep_topology(root, name, run_dir):
    """The running cluster's topology.json (make up generated it) into the
    run directory, whole or not at all: the report measures APH on the
    tree the run had, not on one generated again later. Its sha256."""
    src = os.path.join(cluster_dir(root, name), "topology.json")
    try:
        with open(src, encoding="utf-8") as f:
            data = f.read()
    except OSError as e:
        raise ReplayError(f"{src}: {e.strerror}; run 'make up CLUSTER={name}' again")
    write_atomic(os.path.join(run_dir, "topology.json"), data)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def topology_sha256(root, name):
    """The sha256 of the running cluster's topology.json, or None."""
    try:
        with open(os.path.join(cluster_dir(root, name), "topology.json"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None
