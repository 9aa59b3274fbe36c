"""Shared test setup: every test runs offline, with no key and a fixed clock where asked."""

import datetime
import gc
import json
import os
import pathlib
import secrets
import subprocess
import sys

import pytest

# Offline (no key, no base URL) and the font cache: the conftest.py at the top of the project.


def pytest_collection_finish(session):
    # The modules, classes and strategies imported so far (~600,000 objects: schemathesis,
    # hypothesis, four agent frameworks) live until the end. Freezing them keeps Python's
    # cycle collector from walking them again at every full collection during the run, and
    # in the five that pytest makes at exit to find unraisable exceptions: ~3 s of the
    # suite's time. Objects the tests create are collected as usual.
    gc.freeze()


FIXED_NOW = datetime.datetime(2026, 3, 14, 15, 9, 26, tzinfo=datetime.timezone.utc)


@pytest.fixture
def fixed_clock(monkeypatch):
    """get_time reads 2026-03-14 15:09:26 UTC."""
    from agentlab import toolkit

    monkeypatch.setattr(toolkit, "_now_utc", lambda: FIXED_NOW)
    return FIXED_NOW


@pytest.fixture
def tutor():
    """A client for the well-behaved offline tutor."""
    from agentlab import connect

    return connect("tutor")


@pytest.fixture
def fast_retries(monkeypatch):
    """Retries back off from 1 ms instead of 0.5 s (agentlab.models.FIRST_RETRY_WAIT, which
    mirrors the SDK's INITIAL_RETRY_DELAY: the client retries each call itself, within its
    deadline).

    For tests that count retries, not time them: a timeout or a dropped connection has no
    response to carry a `retry-after-ms` header, so the first wait is lowered instead. It
    still doubles per retry; test_edges checks the real waits.
    """
    from agentlab import models

    monkeypatch.setattr(models, "FIRST_RETRY_WAIT", 0.001)


SLOW_TUTOR_SECONDS = 0.3  # what `quick_slow_tutor` makes tutor-slow think, instead of 1 s


@pytest.fixture
def quick_slow_tutor(monkeypatch):
    """tutor-slow thinks 0.3 s a request instead of 1 s: the same persona, a shorter wait.

    For tests where the slowness only has to outlast something (a deadline, a second click);
    the notebooks and their text keep the real second.
    """
    import dataclasses

    from agentlab.tutor import personas

    quick = dataclasses.replace(personas.TABLE["tutor-slow"], think_seconds=SLOW_TUTOR_SECONDS)
    monkeypatch.setitem(personas.TABLE, "tutor-slow", quick)
    return SLOW_TUTOR_SECONDS


@pytest.fixture
def unrendered_plots(monkeypatch):
    """The playground draws its figures but skips encoding their pixels as PNGs.

    For tests that read runs and panels, not pictures; test_widgets' picture tests and the
    browser test still encode and show real PNGs.
    """
    from agentlab.course import playground as widgets

    monkeypatch.setattr(widgets, "_encoded", lambda canvas: b"\x89PNG\r\n\x1a\n")


@pytest.fixture(scope="session")
def course_lab(tmp_path_factory):
    """`python -m agentlab course`, the students' command, once for the session: JupyterLab
    on the course's notebooks at 127.0.0.1. Yields (base URL, token, log file).

    Shared by the course-command test and the browser test (one JupyterLab start, not two).
    Nothing lands in notebooks/: checkpoints, settings and workspaces go to a temporary folder,
    and autosave is off, so a notebook run in the browser is never saved.
    """
    from processes import free_port, stop, wait_until_answers

    root = tmp_path_factory.mktemp("course")
    # Only autosave is set here: the news question must be answered by the course command itself
    # (test_quickstart checks it), as on a student's machine.
    for plugin, settings in [("docmanager-extension/plugin", {"autosave": False})]:
        folder, name = plugin.split("/")
        path = root / "settings" / "@jupyterlab" / folder / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_TOKEN": token, "JUPYTER_RUNTIME_DIR": str(root / "run"),
           "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"), "PYTHONUNBUFFERED": "1",
           "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    log_path = root / "course.log"
    log = open(log_path, "w")
    lab = subprocess.Popen(
        [sys.executable, "-m", "agentlab", "course", "--no-browser", "--port", str(port), "--",
         f"--FileCheckpoints.checkpoint_dir={root / 'checkpoints'}",
         "--LabApp.expose_app_in_browser=True"],
        cwd=pathlib.Path(__file__).parent.parent, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(f"{base}/api/status?token={token}", lab, log_path, 90)
        yield base, token, log_path
    finally:
        stop(lab, 30)
        log.close()
