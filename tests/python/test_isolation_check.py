"""metrics/measures.py check_isolation: the SC18 invariants (tb-isolation)
over sacct's jobs, with whole seconds (the emulation's sacct) and with the
twin's fractional ones (t0 + log time / speedup: SC18 runs at rate 100),
which tb-isolation, reading integers, once refused."""

import os

import pytest

from metrics.measures import check_isolation
from workloads.registry import build_dir


def doc(*jobs):
    return {"jobs": [{"job_id": i, "nodes": nodes, "time": {"start": s, "end": e}}
                     for i, (nodes, s, e) in enumerate(jobs, 1)]}


@pytest.mark.needs_registry
@pytest.mark.needs_tb_isolation
@pytest.mark.parametrize("second_start,violations", [
    # Two T2 jobs (8 nodes, pods of 4 leaves of 4) sharing leaf t[04-07]:
    # a violation only while both run; [start, end) to the millisecond.
    (100.7, []),
    (100.69, ["leaf-shared"]),
    (100.0, ["leaf-shared"]),
])
def test_fractional_times_overlap_to_the_millisecond(root, tiny, second_start, violations):
    assert tiny.generate().returncode == 0
    topo = str(tiny.dir / "topology.json")
    tool = os.path.join(build_dir(root), "tb-isolation")
    sacct = doc(("t[00-07]", 100.2, 100.7), ("t[04-11]", second_start, 101.25))
    found = check_isolation(sacct, tool, topo)
    assert [v.split()[0] for v in found] == violations


@pytest.mark.needs_registry
@pytest.mark.needs_tb_isolation
def test_whole_seconds_as_sacct_gives_them(root, tiny):
    assert tiny.generate().returncode == 0
    topo = str(tiny.dir / "topology.json")
    tool = os.path.join(build_dir(root), "tb-isolation")
    # A T1 job (4 nodes) on two leaves breaks the invariant whatever the time.
    assert check_isolation(doc(("t[02-05]", 1000, 1010)), tool, topo) == ["t1-leaves 1 leaves=2"]
    assert check_isolation(doc(("t[04-07]", 1000, 1010), ("t[00-03]", 1005, 1020)),
                           tool, topo) == []
