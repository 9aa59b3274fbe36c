"""A pytest plugin: the CPU seconds each test costs, its whole process tree counted (pytest, the
notebook kernels and servers it starts, their children), to find where the test command's CPU
goes. A benchmark's tool, not part of the suite.

    PYTHONPATH=benchmarks python -m pytest -p cpu_per_test -n 0        # serially: exact
    PYTHONPATH=benchmarks python -m pytest -p cpu_per_test              # on the workers

Method. Around each test (setup, call and teardown) it reads, with psutil, the CPU time of this
process, of the children it has reaped, and of every live descendant with the children each
has reaped: a process is counted while it runs and once after it ends, never twice. At the end
it prints the files that cost most, and writes every test's CPU and wall seconds to
cpu-per-test-<worker>.json in the current folder (one file per pytest-xdist worker; on
workers, a test's figure also holds what the other workers' load slowed it by).
"""

from __future__ import annotations

import collections
import json
import os
import time

import psutil
import pytest

_rows: list[tuple[str, float, float]] = []  # (test id, CPU seconds, wall seconds)


def tree_cpu() -> float:
    """CPU seconds of this process and every process below it, live or reaped."""
    me = psutil.Process()
    times = me.cpu_times()
    total = times.user + times.system + times.children_user + times.children_system
    for child in me.children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # it ended meanwhile: its parent's reaped times hold it
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = tree_cpu(), time.perf_counter()
    yield
    _rows.append((item.nodeid, tree_cpu() - cpu, time.perf_counter() - wall))


def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"cpu-per-test-{worker}.json", "w") as out:
        json.dump({"tests": _rows, "session_cpu": tree_cpu()}, out)


def pytest_terminal_summary(terminalreporter):
    if not _rows:  # the controller of pytest-xdist runs no test: the workers wrote theirs
        return
    by_file = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for test, cpu, wall in _rows:
        row = by_file[test.split("::")[0]]
        row[0], row[1], row[2] = row[0] + cpu, row[1] + wall, row[2] + 1
    terminalreporter.section("CPU per test file (whole process tree)")
    terminalreporter.write_line(f"{sum(r[1] for r in _rows):.1f} CPU s in {len(_rows)} tests, "
                                f"{tree_cpu():.1f} CPU s in the session")
    for name, (cpu, wall, count) in sorted(by_file.items(), key=lambda x: -x[1][0])[:25]:
        terminalreporter.write_line(f"{cpu:7.1f} CPU s {wall:7.1f} s wall {count:5d} tests  {name}")
