"""The copy of the course a teacher hands out: everything but the answers.

    agentlab course --student-copy ../agentlab-students

Left out: the reference solutions (notebooks/solutions/), the tests that read them, and the
instructor's guide, which answers the open questions (docs/INSTRUCTORS.md, "Handing out a copy
without the solutions"). In the copy, the README's commands work as in the checkout.
"""

from __future__ import annotations

import fnmatch
import pathlib
import shutil

from .launcher import CourseError, find_notebooks

LEFT_OUT_AT_THE_TOP = {"notebooks/solutions", "tests", "docs/INSTRUCTORS.md",
                       ".git", ".venv", ".node", ".ci", ".benchmarks", ".pytest_cache",
                       ".hypothesis",
                       "build", "dist", "test-artifacts", "agentlab-runs.json"}
LEFT_OUT_ANYWHERE = ["__pycache__", "*.egg-info", ".ipynb_checkpoints",
                     "agentlab-runs.json"]  # the playground saves beside the notebooks
# A JupyterHub started in a course's folder writes its state there: its cookie secret (with it,
# anyone can forge a login, the teacher's too), its database (every user's tokens) and its
# proxy's pid. deploy/jupyterhub_config.py keeps them in a folder of their own; a copy leaves
# them out, and its .gitignore lists them, so that `git add -A` in a hand-out repository never
# publishes them.
HUB_STATE = ["jupyterhub_cookie_secret", "jupyterhub.sqlite*", "jupyterhub-proxy.pid"]
LEFT_OUT_ANYWHERE += HUB_STATE


def student_copy(destination, checkout: pathlib.Path | None = None) -> pathlib.Path:
    """Copy the course to a new folder `destination`, without the reference solutions
    (notebooks/solutions/), the tests that read them and the instructor's guide, which answers
    the open questions: the copy to hand out to students.

    In the copy, the README's commands work as in the checkout (`agentlab course` opens its
    notebooks; `python -m pytest` runs nbval over them). Returns the copy's path.

    Example: student_copy("../agentlab-students") -> PosixPath('../agentlab-students')
    """
    checkout = (checkout or find_notebooks().parent).resolve()
    destination = pathlib.Path(destination)
    if destination.exists():
        raise CourseError(f"{destination} already exists: name a new folder for the copy")
    if destination.resolve().is_relative_to(checkout):
        raise CourseError(f"{destination} is inside the course's folder {checkout}: put the "
                          "copy outside it")

    def left_out(folder: str, names: list[str]) -> set[str]:
        here = pathlib.Path(folder).resolve().relative_to(checkout)
        return {name for name in names
                if (here / name).as_posix() in LEFT_OUT_AT_THE_TOP
                or any(fnmatch.fnmatch(name, pattern) for pattern in LEFT_OUT_ANYWHERE)}

    shutil.copytree(checkout, destination, ignore=left_out)
    ignore_hub_state(destination / ".gitignore")
    print(f"copied the course to {destination}, without notebooks/solutions/, tests/ and "
          "docs/INSTRUCTORS.md")
    return destination


def ignore_hub_state(gitignore: pathlib.Path) -> None:
    """Add the names of a hub's state (HUB_STATE) to a .gitignore that lacks them."""
    text = gitignore.read_text() if gitignore.exists() else ""
    missing = [name for name in HUB_STATE if name not in text.splitlines()]
    if missing:
        gitignore.write_text(text + ("" if text.endswith("\n") or not text else "\n")
                             + "# a JupyterHub's state: never published (agentlab.course.handout)\n"
                             + "".join(f"{name}\n" for name in missing))
