"""The saved notebooks pass strict nbval on any day, at any hour, in any time zone.

Each run below executes notebooks under nbval in a fresh pytest whose processes (pytest itself
and every kernel it starts) live on another date, through time-machine (tools/wall_clock.py:
it moves a process's wall clock and leaves the monotonic clocks alone, so timeouts and
durations behave as usual); the zone comes from TZ.

The course's clock (get_time) is pinned by the project's conftest.py, so what these runs show is
that nothing else the notebooks print reads the wall clock: a weekday's name once changed a saved
token count and the suite failed six days in seven. Every notebook can reach a clock (the course's
tools include get_time, the checks run agents), so in CI every notebook runs on three days in
three zones; the README's command, on a student's laptop, runs the notebooks whose saved outputs
show the clock on one of them, to keep its cost small.
"""

import os
import pathlib
import subprocess
import sys

import pytest

from agentlab.toolkit import SAVED_NOTEBOOKS_CLOCK

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from wall_clock import travelled  # noqa: E402  (tools/: the notebooks are saved with it too)
NOTEBOOKS = ROOT / "notebooks"
EVERY_NOTEBOOK = (sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
                  + sorted(NOTEBOOKS.glob("solutions/[0-9]*.ipynb")))
# The notebooks whose saved outputs show what get_time read: where a day once reached a count.
SHOW_THE_CLOCK = [p for p in EVERY_NOTEBOOK if SAVED_NOTEBOOKS_CLOCK in p.read_text()]

# Three days that differ in everything a clock could leak: the weekday's length (Sunday,
# Tuesday, Wednesday), the date's (a leap day), the hour (just before midnight), the year,
# summer and winter time, and zones whose offsets are not whole hours or are far from UTC.
DAYS = [
    ("2027-01-03T23:59:30+00:00", "Pacific/Kiritimati"),  # a Sunday; Monday already there (+14)
    ("2028-02-29T12:00:00+00:00", "America/St_Johns"),    # a leap day, a Tuesday; -03:30
    ("2026-07-15T04:30:00+00:00", "Asia/Kathmandu"),      # a Wednesday, summer; +05:45
]


# The project's own nbval options, without the rest of addopts (no nested xdist workers), and
# without time-machine's pytest plugin: sitecustomize has imported it already.
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with",
         str(NOTEBOOKS / "sanitize.cfg"), "-p", "no:cacheprovider", "-p", "no:langsmith_plugin",
         "-p", "no:time_machine"]


def runs():
    """(day, zone, notebooks) for each run. Every notebook has a kernel of its own and reads no
    file another one writes, so the order does not matter: half the runs go backwards to show it.
    """
    if os.environ.get("CI") == "true":
        return [(day, zone, EVERY_NOTEBOOK[::-1] if i % 2 else EVERY_NOTEBOOK)
                for i, (day, zone) in enumerate(DAYS)]
    day, zone = DAYS[2]  # the longest weekday name: a count that follows it would change
    return [(day, zone, SHOW_THE_CLOCK)]


def test_the_travel_reaches_the_kernels_processes(tmp_path):
    # Without this, the runs below could pass because nothing travelled at all.
    day, zone = DAYS[1]
    code = "import datetime, time; print(datetime.datetime.now().isoformat(), time.strftime('%z'))"
    out = subprocess.run([sys.executable, "-c", code], env=travelled(tmp_path, day, zone),
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("2028-02-29T08:30") and out.split()[-1] == "-0330", out


@pytest.mark.long
@pytest.mark.parametrize("day, zone, notebooks", runs(),
                         ids=lambda v: v if isinstance(v, str) else f"{len(v)} notebooks")
def test_the_notebooks_pass_strict_nbval_on_another_day(tmp_path, day, zone, notebooks):
    assert notebooks, "no notebook to run"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-o", "addopts=", *NBVAL, "--rootdir", str(ROOT),
         *map(str, notebooks)],
        cwd=ROOT, env=travelled(tmp_path, day, zone), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"on {day} in {zone}:\n{result.stdout[-6000:]}"
    assert " passed" in result.stdout.splitlines()[-1], result.stdout[-2000:]
