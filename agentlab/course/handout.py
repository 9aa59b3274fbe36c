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
    print(f"copied the course to {destination}, without notebooks/solutions/, tests/ and "
          "docs/INSTRUCTORS.md")
    return destination
