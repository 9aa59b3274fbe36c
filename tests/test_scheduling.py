"""The test command's schedule on pytest-xdist's workers (the project's conftest.py): what must
stay on one worker does, everything else is handed out test by test, the long tests first."""

import importlib.util
import os
import pathlib
import subprocess
import sys
from types import SimpleNamespace

import pytest

ROOT = pathlib.Path(__file__).parent.parent
_spec = importlib.util.spec_from_file_location("project_conftest", ROOT / "conftest.py")
project_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(project_conftest)


def fixture(argname, scope, baseid="tests"):
    return SimpleNamespace(argname=argname, scope=scope, baseid=baseid)


def item(path, *fixtures, long=False):
    """What the hook reads of a collected test: its file, fixtures and marks."""
    marks = [pytest.mark.long.mark] if long else []
    return SimpleNamespace(
        path=pathlib.Path(path), marks=marks,
        add_marker=lambda m, marks=marks: marks.append(m.mark),
        get_closest_marker=lambda name, marks=marks: next(
            (m for m in marks if m.name == name), None),
        _fixtureinfo=SimpleNamespace(name2fixturedefs={f.argname: [f] for f in fixtures}))


def group_of(test):
    mark = test.get_closest_marker("xdist_group")
    return mark.args[0] if mark else None


def test_what_must_stay_together_is_grouped_and_the_rest_goes_alone():
    cell = item("notebooks/02_tools.ipynb")
    served = item("tests/test_server.py", fixture("tmp_path", "function", ""),
                  fixture("server", "module"))
    in_the_lab = item("tests/test_browser.py", fixture("course_lab", "session"))
    plain = item("tests/test_tools.py", fixture("tmp_path", "function", ""),
                 fixture("tmp_path_factory", "session", ""))  # a plugin's: set up cheaply
    hub = item("tests/test_hub.py", long=True)
    items = [plain, cell, served, in_the_lab, hub]
    project_conftest.pytest_collection_modifyitems(
        SimpleNamespace(option=SimpleNamespace(loadgroup=True)), items)

    assert group_of(cell) == str(pathlib.Path("notebooks/02_tools.ipynb"))
    assert group_of(served) == "module test_server"
    assert group_of(in_the_lab) == "fixture course_lab"
    assert group_of(plain) is None and group_of(hub) is None
    assert items == [hub, cell, served, in_the_lab, plain]  # long first, then groups


def test_without_loadgroup_nothing_is_grouped_or_moved():
    items = [item("tests/test_tools.py"), item("notebooks/02_tools.ipynb", long=True)]
    before = list(items)
    project_conftest.pytest_collection_modifyitems(
        SimpleNamespace(option=SimpleNamespace()), items)  # `-n 0`: one process
    assert items == before and all(group_of(i) is None for i in items)


@pytest.mark.parametrize("nodeid, notebook", [
    ("notebooks/02_tools.ipynb::Cell 3", "notebooks/02_tools.ipynb"),
    ("notebooks/solutions/02_tools_solutions.ipynb::Cell 0",
     "notebooks/solutions/02_tools_solutions.ipynb"),
    ("tests/test_tools.py::test_schema_from_signature_and_docstring", None),
    ("tests/test_notebooks.py::test_cells[02_tools.ipynb]", None),
])
def test_the_scheduler_keeps_a_notebooks_cells_in_one_unit(nodeid, notebook):
    assert project_conftest.notebook_of(nodeid) == notebook


def test_the_schedule_is_the_readmes_command():
    addopts = (ROOT / "pyproject.toml").read_text()
    assert "--dist loadgroup --no-loadscope-reorder" in addopts


def test_auto_starts_one_worker_more_than_cores_unless_told(monkeypatch):
    from xdist.plugin import pytest_xdist_auto_num_workers as one_per_core

    config = SimpleNamespace(option=SimpleNamespace(numprocesses="auto"))
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    cores = min(one_per_core(config), project_conftest.usable_cores())
    assert project_conftest.pytest_xdist_auto_num_workers(config) == cores + 1
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "2")
    assert project_conftest.pytest_xdist_auto_num_workers(config) is None  # xdist's own rule


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_auto_counts_only_the_cores_the_command_may_use():
    # As in a container given one of the machine's cores: pytest-xdist alone counts them all
    # (psutil, which ipykernel installs, reads the machine), so every worker would share one.
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "import conftest, types; "
            "config = types.SimpleNamespace(option=types.SimpleNamespace(numprocesses='auto')); "
            "print(conftest.pytest_xdist_auto_num_workers(config))")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_AUTO_NUM_WORKERS"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["2"]  # one core, one worker more
