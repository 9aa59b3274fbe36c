"""Make the student notebooks from their sources, the teacher's notebooks, with nbgrader.

    python tools/student_notebooks.py            # every source in notebooks/solutions/
    python tools/student_notebooks.py --check    # exit 1 if a student notebook has drifted

A source (notebooks/solutions/NN_name_solutions.ipynb, with nbgrader's cell metadata) holds the
answers between ### BEGIN SOLUTION and ### END SOLUTION and the graded cells' hidden tests; the
student's notebook (notebooks/NN_name.ipynb) is what nbgrader's preprocessors leave of it
(agentlab.course.sources). A cell whose source is unchanged keeps its saved outputs; the script
names the notebooks with cells to execute again: run tools/execute_notebooks.py on them and on
their sources, then commit.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ROOT / "notebooks" / "solutions"


def main(argv: list[str] | None = None) -> int:
    import nbformat

    from agentlab.course import sources

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a student notebook differs from its source")
    args = parser.parse_args(argv)
    drifted, to_execute = [], []
    for path in sorted(SOURCES.glob("[0-9]*_solutions.ipynb")):
        source = nbformat.read(path, as_version=4)
        if not sources.is_source(source):
            continue  # a solutions notebook that is not (yet) a source: nothing is made from it
        target = sources.student_path(path)
        saved = nbformat.read(target, as_version=4) if target.exists() else None
        student = sources.student_version(source)
        if saved is not None and sources.sources_of(saved) == sources.sources_of(student):
            continue
        drifted.append(target.relative_to(ROOT))
        if args.check:
            continue
        student, stale = sources.with_saved_outputs(student, saved)
        nbformat.write(student, target)
        if stale:
            to_execute += [target.relative_to(ROOT), path.relative_to(ROOT)]
    for name in drifted:
        print(f"{name}: {'differs from its source' if args.check else 'made from its source'}")
    if to_execute:
        print("execute again, then commit:\n  python tools/execute_notebooks.py "
              + " ".join(map(str, to_execute)))
    return 1 if args.check and drifted else 0


if __name__ == "__main__":
    sys.exit(main())
