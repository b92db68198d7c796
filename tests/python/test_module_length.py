"""No module of the Python packages (workloads/, metrics/) is over 600
lines (GUIDE: modules that do one thing, no file over ~600 lines): a
module that grows past it is split by what its parts do, as the end
guard's window planning went to workloads/endplan.py."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ("workloads", "metrics")
LIMIT = 600


def modules():
    for package in PACKAGES:
        for top, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for f in files:
                if f.endswith(".py"):
                    yield os.path.join(top, f)


def lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def test_no_module_of_the_packages_is_over_600_lines():
    long = {os.path.relpath(p, ROOT): n for p in modules() if (n := lines(p)) > LIMIT}
    assert not long, f"modules over {LIMIT} lines: {long}"


def test_the_check_sees_the_packages_modules():
    found = {os.path.relpath(p, ROOT) for p in modules()}
    assert {"workloads/endguard.py", "workloads/endplan.py"} <= found
