"""What the compat tests share: `agentlab serve` started as a teacher would start it (a
subprocess on a free port of 127.0.0.1, once per test module), a fixture that keeps every
framework offline, a bound on each agent run, and a skip for a framework not installed."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys
import threading

import pytest
from compat_frameworks import API_KEY
from processes import free_port, stop, wait_until_answers

ROOT = pathlib.Path(__file__).resolve().parents[1]
CASE_SECONDS = 30  # an upper bound for one agent run; each takes well under a second here


def needs(module: str, package: str):
    """Skip a case, saying why, when its framework is not installed. Looked up, not imported:
    the frameworks take seconds to import, which every pytest-xdist worker would pay while
    collecting; each is imported by the test that runs it."""
    return pytest.mark.skipif(not installed(module),
                              reason=f"{package} is not installed: pip install -e '.[compat]'")


def installed(module: str) -> bool:
    """Whether `module` can be imported, without importing it. For a submodule find_spec
    imports its parent package, and raises when that is missing (llama_index.core without
    llama_index) or broken."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec
        return False


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """`python -m agentlab serve` on a free local port, for the whole module."""
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "output.txt"  # a file: a full pipe would block it
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "agentlab", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        assert json.loads(wait_until_answers(f"{url}/models", process, log, 15))["data"]
        yield url
    finally:
        stop(process, 5)


@pytest.fixture
def offline(monkeypatch):
    """A dummy key, and every framework's tracing or telemetry off, for this test only."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "false")
    # DSPy and litellm fetch a model price list from the web on first use unless told to
    # read the copy they ship with.
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a proxy must not see local calls
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def bounded(function, *args, seconds: float = CASE_SECONDS):
    """function(*args) in a daemon thread; a run that hangs fails the test instead of CI."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = function(*args)
        except BaseException as e:  # handed to the test's thread below
            outcome["error"] = e

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"{function.__name__}{args[:1]} still running after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


