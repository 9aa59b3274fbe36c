"""The README's quick start works as written, so it cannot drift from what works.

Its two commands are read from README.md's code blocks (never copied here): one opens the
course, one runs the test suite, and .ci/run runs that second one exactly. The full check (a
fresh virtual environment, installed from the package index) takes minutes and needs the
network, so it runs in CI only; here it is skipped with that reason.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).parent.parent
IN_CI = os.environ.get("CI") == "true"


def readme_commands() -> dict[str, str]:
    """The quick start's two bash blocks, by what they do.

    Example: README.md -> {"course": "test -x .venv/bin/agentlab || ...", "tests": "python3 ..."}
    """
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)\n```", section, re.S)
    assert len(blocks) == 2, "the quick start shows exactly two commands"
    assert all("\n" not in block for block in blocks), "each is one line, to copy and paste"
    return {"course": blocks[0], "tests": blocks[1]}


def test_the_quick_start_opens_the_course_and_runs_the_tests_in_a_venv():
    commands = readme_commands()
    assert commands["course"].endswith("agentlab course")
    assert commands["tests"].endswith("python -m pytest")
    for command in commands.values():
        assert "python3 -m venv .venv" in command and "pip install -e ." in command.replace('"', "")
    # The course command installs only when .venv has no agentlab yet: its second run is quick.
    assert commands["course"].startswith("test -x .venv/bin/agentlab || (")


def test_ci_runs_the_readmes_test_command_after_adding_the_compat_extra():
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1] == readme_commands()["tests"], "CI's last command is the README's"
    assert 'pip install -e ".[test,compat,hub]"' in "\n".join(commands)
    assert "set -euo pipefail" in script  # a failing step fails CI; pytest's status is CI's


def test_a_missing_framework_skips_its_cases_even_named_by_a_submodule(monkeypatch):
    """The README's environment has no compat extra: its cases must skip there, saying why,
    not stop the collection (llama_index.core was looked up without llama_index: an error).
    Here llama_index is hidden, with any of its modules an earlier test imported."""
    import sys

    from compat_serve import installed, needs

    for name in [n for n in sys.modules if n == "llama_index" or n.startswith("llama_index.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "llama_index", None)  # as if not installed
    assert not installed("llama_index.core") and not installed("no_such_framework")
    assert installed("json") and installed("email.mime")
    mark = needs("llama_index.core", "llama-index-core").mark
    assert mark.args == (True,) and "pip install -e '.[compat]'" in mark.kwargs["reason"]


def test_the_course_command_serves_the_notebooks_in_jupyterlab(course_lab):
    """`agentlab course` for real (conftest's course_lab, which the browser test also uses):
    JupyterLab answers on /lab and lists the notebooks."""
    base, token, log = course_lab
    page = urllib.request.urlopen(f"{base}/lab?token={token}", timeout=30).read()
    assert b"<title>JupyterLab</title>" in page
    listing = urllib.request.urlopen(f"{base}/api/contents?token={token}", timeout=5).read()
    assert b"01_the_loop_by_hand.ipynb" in listing
    text = log.read_text()
    assert "opening the course in JupyterLab" in text
    assert ("--allow-root" in text) == (os.geteuid() == 0)


def test_the_course_command_answers_jupyterlabs_news_question_itself(course_lab):
    """JupyterLab asks "get notified about official Jupyter news?" in a pop-up over the notebook
    while its fetchNews setting is "none"; the course command makes "false" the default (and no
    update check), with no setting of the student's touched."""
    base, token, _ = course_lab
    url = f"{base}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}"
    settings = json.loads(urllib.request.urlopen(url, timeout=10).read())
    defaults = {name: value["default"] for name, value in settings["schema"]["properties"].items()}
    assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False
    assert settings["raw"] in ("", "{}"), "a default, not a user setting written for them"


def copy_of_the_repository(target: pathlib.Path) -> pathlib.Path:
    """The course's files, without any environment, cache or build output."""
    shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis",
        "test-artifacts", "build", "dist"))
    return target


def shell(command: str, cwd: pathlib.Path, timeout: float) -> subprocess.CompletedProcess:
    """Run a line in bash as a reader would, outside any virtual environment we may be in."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["QUICKSTART_INNER"] = "1"
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.skipif(not IN_CI, reason="CI only (CI=true): installs the README's quick start "
                    "into a fresh virtual environment, which takes minutes and the package index")
@pytest.mark.skipif(os.environ.get("QUICKSTART_INNER") == "1",
                    reason="already inside the quick start test")
def test_the_readmes_quick_start_as_written_in_a_fresh_folder(tmp_path):
    folder = copy_of_the_repository(tmp_path / "agentlab")
    commands = readme_commands()

    # The course command, with --check so that JupyterLab is checked but not left running.
    first = shell(commands["course"] + " --check", folder, timeout=900)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "ok: JupyterLab" in first.stdout and "Successfully installed" in first.stdout
    assert ("--allow-root" in first.stdout) == (os.geteuid() == 0)
    launcher = folder / ".venv" / "bin" / "agentlab"
    installed_at = launcher.stat().st_mtime

    # Its second run installs nothing.
    second = shell(commands["course"] + " --check", folder, timeout=120)
    assert second.returncode == 0 and "ok: JupyterLab" in second.stdout, second.stderr
    assert "pip" not in second.stdout + second.stderr and launcher.stat().st_mtime == installed_at

    # The test command, as written up to pytest, on a few files here: the whole suite is what
    # CI is already running, with the compat and hub extras. This environment has the README's
    # `test` extra only, so the extras' tests must skip and say why, not fail to collect (a
    # framework looked up by a submodule's name once did), and no test file may import an
    # extra at collection: the whole suite is collected too.
    tests = commands["tests"].replace(
        "python -m pytest", "python -m pytest -q -rs -p no:cacheprovider tests/test_packaging.py "
        "tests/test_compat.py tests/test_compat_protocols.py tests/test_hub.py")
    result = shell(tests, folder, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(r"\d+ passed", result.stdout) and re.search(r"\d+ skipped", result.stdout)
    assert "pip install -e '.[compat]'" in result.stdout and "'.[hub]'" in result.stdout
    collected = shell(".venv/bin/python -m pytest --collect-only -q -n 0 -p no:cacheprovider",
                      folder, timeout=300)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
