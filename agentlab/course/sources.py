"""One source per notebook: the teacher's notebook, from which nbgrader makes the student's.

    notebooks/solutions/08_grade_your_own_loop_solutions.ipynb   the source (the teacher's)
    notebooks/08_grade_your_own_loop.ipynb                       made from it: student_version()

The source is the whole notebook with its answers between `### BEGIN SOLUTION` and
`### END SOLUTION`, and its graded cells' tests between `### BEGIN HIDDEN TESTS` and
`### END HIDDEN TESTS`, with nbgrader's cell metadata. nbgrader's own preprocessors make the
student's version: ClearSolutions puts `...` where each answer was (indented as the answer was),
ClearHiddenTests removes the hidden tests, ClearMarkScheme the mark schemes. The same
preprocessors make what `nbgrader generate_assignment` releases to a class, so notebooks/, the
student copy (handout.py) and a class's release cannot drift from the source.
tools/student_notebooks.py writes the student versions; tests/test_nbgrader.py checks them.

Left out on purpose: outputs. A student version keeps the outputs of every cell whose source is
unchanged, and the rest are executed again by tools/execute_notebooks.py (saved outputs are
checked by nbval).
"""

from __future__ import annotations

import copy
import pathlib

CODE_STUB = "..."  # what an answer becomes in the student's version (the course's stub)


def is_source(notebook) -> bool:
    """Whether a notebook is an nbgrader source: some cell carries nbgrader's metadata."""
    return any("nbgrader" in cell.get("metadata", {}) for cell in notebook["cells"])


def student_path(source: pathlib.Path) -> pathlib.Path:
    """notebooks/solutions/NN_name_solutions.ipynb -> notebooks/NN_name.ipynb"""
    return source.parent.parent / source.name.replace("_solutions.ipynb", ".ipynb")


def student_version(source):
    """The student's notebook made from a source notebook (an nbformat NotebookNode), by
    nbgrader's preprocessors: answers become `...`, hidden tests and mark schemes go, and the
    cells nbgrader needs back are locked as `nbgrader generate_assignment` locks them (a graded
    cell can be neither edited nor deleted in JupyterLab, an answer cell not deleted)."""
    from nbgrader.preprocessors import (ClearHiddenTests, ClearMarkScheme, ClearSolutions,
                                        LockCells)

    notebook = copy.deepcopy(source)
    resources: dict = {}
    for preprocessor in (ClearSolutions(code_stub={"python": CODE_STUB}), ClearHiddenTests(),
                         ClearMarkScheme(), LockCells()):
        notebook, resources = preprocessor.preprocess(notebook, resources)
    return notebook


def with_saved_outputs(student, saved):
    """`student` with the outputs of `saved` (the student notebook as committed) for every cell
    whose type and source are unchanged at the same place; the others without outputs, to be
    executed again. Returns (notebook, how many cells need executing)."""
    stale = 0
    for index, cell in enumerate(student["cells"]):
        old = saved["cells"][index] if saved and index < len(saved["cells"]) else None
        same = (old is not None and old["cell_type"] == cell["cell_type"]
                and old["source"] == cell["source"])
        if cell["cell_type"] == "code":
            cell["outputs"] = copy.deepcopy(old["outputs"]) if same else []
            cell["execution_count"] = old.get("execution_count") if same else None
            stale += not same
    return student, stale


def sources_of(notebook) -> list[tuple[str, str, dict, tuple]]:
    """What must agree between a student notebook and its source: each cell's type, source,
    nbgrader metadata (without what a release adds: checksums, the cell's type again) and
    locks (editable, deletable)."""
    def graded(cell) -> dict:
        meta = dict(cell.get("metadata", {}).get("nbgrader", {}))
        meta.pop("checksum", None)
        meta.pop("cell_type", None)
        return meta

    def locks(cell) -> tuple:
        return tuple(cell.get("metadata", {}).get(key, True) for key in ("editable", "deletable"))
    return [(cell["cell_type"], cell["source"], graded(cell), locks(cell))
            for cell in notebook["cells"]]


def lay_out_course(root, solutions: pathlib.Path) -> list[str]:
    """An nbgrader course folder at `root` from the sources in `solutions` (the clone's
    notebooks/solutions/): source/NN_name/NN_name.ipynb for each, as `nbgrader
    generate_assignment` reads them. An existing assignment's source is replaced. Returns the
    assignments' names.

    Example: lay_out_course("~/agentlab-course", ...) -> ["08_grade_your_own_loop"]
    """
    import shutil

    import nbformat

    root = pathlib.Path(root).expanduser()
    made = []
    for path in sorted(pathlib.Path(solutions).glob("[0-9]*_solutions.ipynb")):
        if not is_source(nbformat.read(path, as_version=4)):
            continue
        name = student_path(path).stem
        folder = root / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / f"{name}.ipynb")
        made.append(name)
    return made
