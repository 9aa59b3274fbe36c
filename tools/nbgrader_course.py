"""Lay out the course for nbgrader: each source notebook as an assignment of its own.

    python tools/nbgrader_course.py ~/agentlab-course    # then, in that folder: nbgrader ...

Run it in the teacher's clone (it holds notebooks/solutions/, the sources): it writes
DIR/source/NN_name/NN_name.ipynb for every source notebook (agentlab.course.sources), ready
for `nbgrader generate_assignment NN_name`. The folder is the teacher's alone: it holds the
solutions, and nbgrader keeps the class's hand-ins and gradebook there (docs/INSTRUCTORS.md,
"Grading a class with nbgrader").
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    from agentlab.course.sources import lay_out_course

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=pathlib.Path, help="the course's folder (made if missing)")
    args = parser.parse_args(argv)
    folder = args.folder.expanduser().resolve()
    if folder.is_relative_to(ROOT):
        sys.exit(f"{folder} is inside the clone {ROOT}: put the course's folder outside it")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in lay_out_course(folder, ROOT / "notebooks" / "solutions"):
        print(f"{folder / 'source' / name / (name + '.ipynb')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
