"""No Python file of the repository is over 600 lines (GUIDE: modules
that do one thing, no file over ~600 lines): the packages (workloads/,
metrics/), the scripts beside them (emulated-clusters/, bench/), the
tests and their helpers (tests/); a file that grows past it is split by
what its parts do, as the end guard's window planning went to
workloads/endplan.py and its replay tests to test_end_guard_wiring.py.
The files are test_no_sys_path's (the clone's, without build/, results/
or hidden directories)."""

import os

from test_no_sys_path import ROOT, python_files

LIMIT = 600


def modules():
    return (p for p in python_files() if p.endswith(".py"))


def lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def test_no_python_file_is_over_600_lines():
    long = {os.path.relpath(p, ROOT): n for p in modules() if (n := lines(p)) > LIMIT}
    assert not long, f"files over {LIMIT} lines: {long}"


def test_the_check_sees_every_part_of_the_repository():
    found = {os.path.relpath(p, ROOT) for p in modules()}
    assert {"workloads/endguard.py", "workloads/endplan.py", "metrics/report.py",
            "emulated-clusters/generate.py", "bench/submit.py", "tests/fake_slurm.py",
            "tests/fixtures/workloads/synthetic.py",
            "tests/python/test_end_guard.py", "tests/python/test_module_length.py"} <= found
    assert not any(p.startswith(("build" + os.sep, "results" + os.sep)) for p in found)
