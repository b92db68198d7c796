"""Shared by the Python unit tests (python3 -m pytest tests/python, run by
make test in the tools image). They test the workloads and metrics
packages' functions without a cluster; what drives a cluster or the
command line stays in the bats suites (tests/*.bats)."""

import json
import os
import subprocess
import sys
import time

import pytest

from workloads.registry import build_dir

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(TESTS, "fixtures")
ROOT = os.path.dirname(TESTS)

# What a test needs of the library's build (build_dir: build/c, or
# TB_BUILD), as a marker: @pytest.mark.needs_registry (policies.tsv:
# generate.py and the parsers check POLICY against it), needs_tb_sim (the
# twin), needs_tb_isolation (SC18's invariants). Without it the test is skipped, the reason saying how to build it.
NEEDS = {
    "needs_registry": ("policies.tsv", os.path.exists,
                       "policy registry not built (make -C plugins tools)"),
    "needs_tb_sim": ("tb-sim", lambda path: os.access(path, os.X_OK),
                     "tb-sim not built (make -C plugins tools)"),
    "needs_tb_isolation": ("tb-isolation", lambda path: os.access(path, os.X_OK),
                           "tb-isolation not built (make -C plugins tools)"),
}


def pytest_configure(config):
    for name, (what, _, _) in NEEDS.items():
        config.addinivalue_line("markers", f"{name}: skipped without the build's {what}")


def pytest_collection_modifyitems(config, items):
    for name, (what, there, reason) in NEEDS.items():
        if not there(os.path.join(build_dir(ROOT), what)):
            for item in items:
                if item.get_closest_marker(name):
                    item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def root():
    """The repository's root (the clone's)."""
    return ROOT


@pytest.fixture
def fixtures():
    return FIXTURES


class FrozenTime:
    """A stand-in for a module's `time` with CLOCK_MONOTONIC stopped
    (moved only by advance()): the end guard's wall-time arithmetic does
    not depend on how fast a loaded machine runs the test. Everything
    else is the real time module's."""

    def __init__(self):
        self.ns = 10 ** 15

    def monotonic_ns(self):
        return self.ns

    def monotonic(self):
        return self.ns / 1e9

    def advance(self, s):
        self.ns += int(s * 1e9)

    def __getattr__(self, name):
        return getattr(time, name)


@pytest.fixture
def frozen(monkeypatch):
    """The end guard (workloads/endguard.py) on a FrozenTime: its wall
    clock moves only when the test says."""
    from workloads import endguard
    clock = FrozenTime()
    monkeypatch.setattr(endguard, "time", clock)
    return clock


@pytest.fixture
def six_job_swf(tmp_path):
    """Six jobs for the 32-node tiny (SWF, one core per node): a
    full-machine job 0-1000 s first, so the next four wait for it, and one
    alone at 5000 s (test_simulate, test_sim_sensitivity)."""
    path = str(tmp_path / "six.swf")
    jobs = [(0, 1000, 32), (10, 500, 8), (20, 500, 8), (30, 300, 16), (40, 100, 4),
            (5000, 200, 2)]
    with open(path, "w") as f:
        f.write("; MaxNodes: 32\n; MaxProcs: 32\n")
        for k, (submit, run, n) in enumerate(jobs):
            f.write(f"{k + 1} {submit} 0 {run} {n} -1 -1 {n} {run * 2} -1 1 1 1 -1 1 -1 -1 -1\n")
    return path


@pytest.fixture
def twin_of_emulation(tmp_path):
    """ENGINE=both's second half on a twin run standing in for an
    emulation: its report written, its engine fields dropped (so
    sim_validate takes it for an emulated run), then the twin re-runs its
    plan into tmp_path/twin. Returns the twin run's directory
    (test_simulate, test_bf_window)."""
    from metrics.report import report
    from workloads import sim_validate

    def validate(emu, root):
        report(emu, None, os.path.join(emu, "topology.json"))
        with open(os.path.join(emu, "manifest.json")) as f:
            m = json.load(f)
        for k in ("engine", "simulated", "sim"):
            m.pop(k)
        with open(os.path.join(emu, "manifest.json"), "w") as f:
            json.dump(m, f)
        twin = tmp_path / "twin"
        assert sim_validate.main(["--run-dir", emu, "--root", root,
                                  "--results", str(twin)]) == 0
        (twin_id,) = os.listdir(twin)
        return twin / twin_id

    return validate


class GeneratedConfig:
    """emulated-clusters/generate.py run for a cluster into tmp_path/<name>,
    and what the tests read back: slurm.conf's lines, its
    SchedulerParameters words and cluster.env (test_bf_window,
    test_sched_extra, test_env_cache)."""

    def __init__(self, tmp_path, name):
        self.root = ROOT
        self.name = name
        self.dir = tmp_path / name

    def generate(self, *extra):
        return subprocess.run([sys.executable,
                               os.path.join(self.root, "emulated-clusters", "generate.py"),
                               self.name, str(self.dir), *extra], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=self.root))

    def slurm_conf(self):
        return (self.dir / "slurm.conf").read_text().splitlines()

    def sched_params(self):
        (line,) = [x for x in self.slurm_conf() if x.startswith("SchedulerParameters=")]
        return line[len("SchedulerParameters="):].split(",")

    def cluster_env(self):
        text = (self.dir / "cluster.env").read_text().splitlines()
        return dict(x.split("=", 1) for x in text)


@pytest.fixture
def tiny(tmp_path):
    return GeneratedConfig(tmp_path, "tiny")


@pytest.fixture
def generated(tmp_path):
    """generated(name): GeneratedConfig for that cluster."""
    return lambda name: GeneratedConfig(tmp_path, name)
