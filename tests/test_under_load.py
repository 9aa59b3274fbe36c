"""The notebooks show the same outputs on a busy machine as on an idle one: a class of thirty on
one JupyterHub server runs every cell on a busy machine (docs/INSTRUCTORS.md, "A class on
JupyterHub").

The cells whose outcome depends on time keep a margin that a slow machine does not use up:
- 04b's time limit: `tutor-slow` thinks 1 s per reply; `max_seconds` must leave time for the
  first reply and its tool call, however slow the machine, and never for a second reply;
- 04b's hung tool waits 5 s against a 0.2 s tool timeout (25 times over: nothing to tune);
- 03's hostile calculator inputs run in a subprocess with a timeout that Python's start-up on a
  busy machine must not reach, while 9**9**9 never finishes at all;
- 05's playground runs under the slider's 30 s time limit, and 08's gauntlet gives each run 2 s.
The first is checked exactly (a delay stands in for the slow machine); 03 and 04b by running
them under nbval while busy loops keep every core occupied; 05 by benchmarks/class_hub.py,
which runs 01 to 05 for thirty students on one hub and compares every cell's output.
"""

import json
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

from agentlab import Limits, run_agent, tool, toolkit

ROOT = pathlib.Path(__file__).parent.parent
NOTEBOOKS = ROOT / "notebooks"
# The notebooks whose margins are a few times the work they cover (see the module's docstring).
# 05's runs (under a second against a 30 s limit) and 08's gauntlet (runs of 0.02 s against
# 2 s) have margins of a hundred times; the class simulation runs 05 with thirty students.
TIMING_SENSITIVE = ["03_the_loop_in_forty_lines.ipynb", "04b_beyond_the_chapter.ipynb"]
COAT = "What's the weather in Paris, and should I take a coat?"


def cell_source(notebook: str, containing: str) -> str:
    cells = json.loads((NOTEBOOKS / notebook).read_text())["cells"]
    return next("".join(c["source"]) for c in cells if containing in "".join(c["source"]))


def test_the_time_limit_demo_ends_the_same_on_a_slow_machine():
    # 04b's run, with 0.6 s added to its first step: what a machine shared by a class may add
    # to the tutor's and the SDK's own work. The notebook's answer must not change.
    source = cell_source("04b_beyond_the_chapter.ipynb", 'model="tutor-slow"')
    max_seconds = float(re.search(r"max_seconds=([\d.]+)", source).group(1))

    @tool
    def get_weather(city: str) -> dict:
        """Get the current weather in a city."""
        time.sleep(0.6)
        return toolkit.get_weather(city)

    tools = [get_weather if t.name == "get_weather" else t for t in toolkit.COURSE_TOOLS]
    run = run_agent(COAT, tools, model="tutor-slow", limits=Limits(max_seconds=max_seconds))
    assert run.stop_reason == "max_seconds" and len(run.steps) == 1
    assert run.steps[0].tool_calls[0].result.startswith('{"city": "Paris", "temp_c": 8'), \
        f"with max_seconds={max_seconds:g} a slow first step leaves no time for its tool call"


def busy_loops(count: int) -> list[subprocess.Popen]:
    """`count` processes that spin on a core each, ending by themselves after 10 minutes."""
    spin = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end: pass"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(count)]


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI only (CI=true): a minute of "
                    "both cores spinning while nbval runs 03 and 04b; the suite itself already "
                    "runs them on two busy workers")
def test_the_timing_sensitive_notebooks_under_cpu_contention(tmp_path):
    # A spinning process on every core: nbval's kernel gets half a core at most, as a
    # student's does when the class runs cells at once. Strict nbval, as in the suite.
    spinners = busy_loops(os.cpu_count() or 1)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             *[f"notebooks/{name}" for name in TIMING_SENSITIVE]],
            cwd=ROOT, capture_output=True, text=True, timeout=420)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    assert done.returncode == 0, done.stdout[-4000:]
    assert re.search(r"\d+ passed", done.stdout) and "failed" not in done.stdout.splitlines()[-1]


def test_connect_pays_the_first_call_costs_so_a_runs_first_step_does_not():
    # The SDK imports its chat module and the tutor compiles its request checks on their first
    # call: a second on a busy machine, which 04b's time limit would count in the run's first
    # step. connect() (outside every run's clock) pays them; in a fresh process, as a kernel is.
    probe = ("import sys\nfrom agentlab import connect\n"
             "from agentlab.server import checks as api_checks\nconnect('tutor-slow')\n"
             "print(api_checks._validator.cache_info().currsize > 0,"
             " 'openai.resources.chat.completions' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["True", "True"], done.stderr[-2000:]
