"""The course's notebooks under strict nbval in ONE pytest session, against the floor: as many
empty notebooks (one `pass` cell each) in one session under the same options. The difference
is what the notebooks' own cells cost; the floor is pytest's start-up plus one kernel start per
notebook. The sessions alternate when repeated; medians.

A third session bounds how much of the cells' time is imports the course's cells do not
control: as many notebooks whose one cell imports `openai` (which a kernel loads for its first
model call) and matplotlib's pyplot (for its first plot). It is an upper bound: most course
notebooks make a model call, but only some plot (an outside review replayed them: 16 of the 18
kernels load openai, 5 load pyplot), so the course's own work is at least the rest.

    python benchmarks/notebooks.py [--repeats N]
"""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest depends on tomli there, the same parser
    import tomli as tomllib

ROOT = pathlib.Path(__file__).parent.parent


def readme_options() -> list[str]:
    """The README command's own pytest options (pyproject's addopts: strict nbval, the
    sanitize file, the plugins left out), so every session here runs as the suite does."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return shlex.split(config["tool"]["pytest"]["ini_options"]["addopts"])


# Run from ROOT (the sanitize file's path is relative to it); addopts are given explicitly
# because the empty notebooks live outside the project, where pyproject.toml is not found.
NBVAL = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *readme_options()]


def course_notebooks() -> list[str]:
    folder = ROOT / "notebooks"  # the students' notebooks (04a, 04b, ...) and their solutions
    return sorted(str(p) for p in [*folder.glob("[0-9][0-9]*.ipynb"),
                                   *(folder / "solutions").glob("[0-9][0-9]*.ipynb")])


def student_env() -> dict:
    """This process's environment without PYTHONDONTWRITEBYTECODE, so every session runs as
    on a student's laptop, where Python writes its bytecode caches (the build machine sets
    that variable, which makes pytest rewrite the asserts of every test module and plugin again
    in every session)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed_session(paths: list[str]) -> float:
    """Seconds for one nbval session over the notebooks (it must pass)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, *NBVAL, *paths], cwd=ROOT, capture_output=True,
                         text=True, env=student_env())
    if out.returncode != 0:
        raise RuntimeError(f"nbval failed:\n{out.stdout[-2000:]}")
    return time.perf_counter() - start


IMPORTS = "import openai\nimport matplotlib.pyplot"  # the most a course notebook loads


def empty_notebooks(folder: pathlib.Path, count: int, source: str = "pass") -> list[str]:
    """`count` notebooks of one code cell each (`pass` by default), with no stored output."""
    paths = []
    for i in range(count):
        path = folder / f"empty_{i:02d}.ipynb"
        path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "cells": [{"cell_type": "code", "id": "c0", "metadata": {}, "execution_count": 1,
                       "outputs": [], "source": source}]}))
        paths.append(str(path))
    return paths


def floor_session(count: int, source: str = "pass") -> float:
    """One nbval session over `count` notebooks of one cell (`pass`: empty notebooks)."""
    with tempfile.TemporaryDirectory() as folder:
        return timed_session(empty_notebooks(pathlib.Path(folder), count, source))


def measure(repeats: int = 1, notebooks: list[str] | None = None) -> dict:
    notebooks = notebooks or course_notebooks()
    floors, imports, suites = [], [], []
    for _ in range(repeats):
        floors.append(floor_session(len(notebooks)))
        imports.append(floor_session(len(notebooks), IMPORTS))
        suites.append(timed_session(notebooks))
    return {"notebooks": len(notebooks), "suite": statistics.median(suites),
            "floor": statistics.median(floors), "imports": statistics.median(imports)}


def lines(r: dict) -> list[str]:
    return [f"  {r['notebooks']} course notebooks in one strict nbval session: {r['suite']:.1f} s; "
            f"{r['notebooks']} empty notebooks in one session: {r['floor']:.1f} s; "
            f"ratio {r['suite'] / r['floor']:.2f}x "
            f"(the cells' own time {r['suite'] - r['floor']:.1f} s)",
            f"  of the cells' time, at most {r['imports'] - r['floor']:.1f} s is kernels importing "
            f"openai and pyplot ({r['notebooks']} notebooks that import both: "
            f"{r['imports']:.1f} s; not every notebook loads both); the course's own work in "
            f"its cells: at least {r['suite'] - r['imports']:.1f} s"]


if __name__ == "__main__":
    repeats = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else 1
    print("\n".join(lines(measure(repeats))))
