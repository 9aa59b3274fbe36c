"""What every pytest run in this folder needs, the unit tests' and nbval's over the notebooks
alike, also in a student copy (which has no tests/ folder): it runs offline. And how the
README's test command spreads over pytest-xdist's workers (below)."""

import os

import pytest

# Tests and notebooks never reach the network: whatever the shell has set, the suite (and the
# notebook kernels nbval starts, which inherit this environment) run offline, on the tutor.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLAB_MODEL", "AGENTLAB_PRICED_AS"):
    os.environ.pop(_name, None)

# The same outputs on any day: the course's clock (get_time) reads the instant the saved
# notebooks were executed at, in this process and in the kernels nbval starts. In class nobody
# sets it and get_time reads the real time. tests/test_any_day.py runs the notebooks under other
# dates and time zones to show nothing else in them reads the wall clock.
from agentlab.toolkit import CLOCK_VARIABLE, SAVED_NOTEBOOKS_CLOCK  # noqa: E402

os.environ[CLOCK_VARIABLE] = SAVED_NOTEBOOKS_CLOCK


def pytest_sessionstart(session):
    # A fresh machine builds matplotlib's font cache on first import and says so on stderr;
    # build it here, before nbval starts kernels, so no notebook cell sees that message.
    import matplotlib.font_manager  # noqa: F401


# The README's test command runs on every core (pytest-xdist, `--dist loadgroup` in
# pyproject.toml). What must stay on one worker is kept together: a notebook's cells share one
# kernel and run in order; tests that share a fixture set up once per module (a server) or once
# per session (the course's JupyterLab) would otherwise set it up on every worker. Every other
# test is handed out on its own, so that every worker stays busy to the end instead of one
# finishing the longest file alone. Tests marked `long` start first (a long test started last
# would end the run alone), then the groups; the single tests after them fill the gaps.
@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    # pytest-xdist's workers see `loadgroup` set, the one process of `-n 0` sees nothing
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        group = _kept_together(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: (item.get_closest_marker("long") is None,  # a stable sort
                                 item.get_closest_marker("xdist_group") is None))


def _kept_together(item) -> str | None:
    """The group an item must run in, or None if it can run anywhere on its own."""
    if item.path.suffix == ".ipynb":
        return str(item.path)
    fixtures = getattr(item, "_fixtureinfo", None)
    for definitions in (fixtures.name2fixturedefs.values() if fixtures else ()):
        fixture = definitions[-1]
        if fixture.scope in ("module", "class", "package"):
            return f"module {item.path.stem}"
        if fixture.scope == "session" and fixture.baseid:  # ours, not a plugin's
            return f"fixture {fixture.argname}"
    return None


@pytest.hookimpl(optionalhook=True)  # a student copy may run without pytest-xdist
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's loadgroup scheduler, which also keeps each notebook's cells together:
    xdist names a test's group after an @ in its id, and nbval's cells keep ids of their own."""
    from xdist.scheduler import LoadGroupScheduling

    class KeepingNotebooksTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return notebook_of(nodeid) or super()._split_scope(nodeid)

    if config.getvalue("dist") != "loadgroup":
        return None  # another --dist given on the command line: pytest-xdist's own scheduler
    return KeepingNotebooksTogether(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker more than pytest-xdist's one per core. A third of the suite's time
    is waiting (graded loops run into their timeouts, a hub and a browser start): on 2 cores,
    3 workers took 0.79x the time of 2 (benchmarks/RESULTS.md). PYTEST_XDIST_AUTO_NUM_WORKERS
    still decides when it is set."""
    from xdist.plugin import pytest_xdist_auto_num_workers as one_per_core

    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return min(one_per_core(config), usable_cores()) + 1


def usable_cores() -> int:
    """The cores this process may run on. A container given some of a machine's cores, or
    `taskset`, allows fewer than the machine has, and pytest-xdist counts the machine's when
    psutil is installed (ipykernel installs it): five workers on one allowed core would only
    take turns. macOS and Windows have no such call: there it is every core."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def notebook_of(nodeid: str) -> str | None:
    """The notebook a cell's test belongs to, or None for a test that is not a cell.
    Example: "notebooks/02_tools.ipynb::Cell 3" -> "notebooks/02_tools.ipynb"."""
    return nodeid.split("::")[0] if ".ipynb::" in nodeid else None
