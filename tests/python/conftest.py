"""Shared by the Python unit tests (python3 -m pytest tests/python, run by
make test in the tools image). They test the workloads and metrics
packages' functions without a cluster; what drives a cluster or the
command line stays in the bats suites (tests/*.bats)."""

import os

import pytest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(TESTS, "fixtures")


@pytest.fixture
def fixtures():
    return FIXTURES
