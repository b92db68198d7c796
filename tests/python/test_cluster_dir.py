"""workloads/replay/cluster.py's cluster_dir follows scripts/testbed's rule:
the clone's own project (TESTBED_CLONE_PROJECT) has build/clusters, any
other build/projects/<project>/clusters."""

from workloads.replay.cluster import cluster_dir


def test_the_clones_own_project(monkeypatch):
    monkeypatch.setenv("TESTBED_CLONE_PROJECT", "x-0123abcd")
    monkeypatch.setenv("TESTBED_PROJECT", "x-0123abcd")
    assert cluster_dir("/r", "tiny") == "/r/build/clusters/tiny"


def test_another_project(monkeypatch):
    monkeypatch.setenv("TESTBED_CLONE_PROJECT", "x-0123abcd")
    monkeypatch.setenv("TESTBED_PROJECT", "exp-1")
    assert cluster_dir("/r", "cab") == "/r/build/projects/exp-1/clusters/cab"


def test_testbed_is_no_longer_special(monkeypatch):
    monkeypatch.setenv("TESTBED_CLONE_PROJECT", "x-0123abcd")
    monkeypatch.setenv("TESTBED_PROJECT", "testbed")
    assert cluster_dir("/r", "tiny") == "/r/build/projects/testbed/clusters/tiny"
