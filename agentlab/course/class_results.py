"""The class's results, row by row, from nbgrader's gradebook: which guardrail the class gets wrong.

    results = class_results("~/agentlab-course", "08_grade_your_own_loop")
    results          {"answers": (28, 30), "budget": (11, 30), ..., "check_observe": (25, 30)}
    plot_class_results(results)   # one bar per row: the share of the class that holds it

Every graded cell of every hand-in is in the gradebook (nbgrader autograde writes it), with
its points. A capstone cell grades a group of rows, a point a row; which rows held is in what
the cell printed ("✓ budget", "✗ time: ..."), kept in the autograded notebook beside the
gradebook. So a row counts as held by a student when the cell printed it held; an exercise
check's cell is a row of its own, held when it earned its points.

Left out on purpose: students who handed nothing in (they are in the gradebook with no
submission, and count in no row), and hand-ins that autograde could not grade (no autograded
notebook: not_graded() names them, since their marks in the gradebook, if any, are an earlier
run's).
"""

from __future__ import annotations

import pathlib
import re

ROW_LINE = re.compile(r"^([✓✗]) (\w+)", re.M)


def class_results(course, assignment: str) -> dict[str, tuple[int, int]]:
    """{row or check: (students who hold it, students graded on it)}, in the notebook's order."""
    import nbformat
    from nbgrader.api import Gradebook

    course = pathlib.Path(course).expanduser()
    results: dict[str, list[int]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for submission in gradebook.assignment_submissions(assignment):
            for notebook in submission.notebooks:
                saved = _autograded(course, submission.student.id, assignment, notebook.name)
                if not saved.exists():  # autograde failed on it: see not_graded()
                    continue
                grades = {grade.name: grade for grade in notebook.grades}
                printed = _printed_by_cell(nbformat.read(saved, as_version=4))
                for grade in (grades[name] for name in printed if name in grades):
                    rows = ROW_LINE.findall(printed[grade.name])
                    if not rows:  # an exercise check: held when it earned its points
                        rows = [("✓" if grade.score == grade.max_score else "✗", grade.name)]
                    for mark, row in rows:
                        tally = results.setdefault(row, [0, 0])
                        tally[0] += mark == "✓"
                        tally[1] += 1
    return {row: (held, graded) for row, (held, graded) in results.items()}


def not_graded(course, assignment: str) -> list[str]:
    """The students whose hand-in is in the gradebook but has no autograded notebook: autograde
    failed on it (its log says why), so its marks, if any, are from an earlier run."""
    from nbgrader.api import Gradebook

    course = pathlib.Path(course).expanduser()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return sorted({submission.student.id
                       for submission in gradebook.assignment_submissions(assignment)
                       for notebook in submission.notebooks
                       if not _autograded(course, submission.student.id, assignment,
                                          notebook.name).exists()})


def _autograded(course: pathlib.Path, student: str, assignment: str, name: str) -> pathlib.Path:
    return course / "autograded" / student / assignment / f"{name}.ipynb"


def _printed_by_cell(notebook) -> dict[str, str]:
    """{grade_id: the text its cell printed} for the graded cells of an autograded notebook, in
    the notebook's order."""
    printed = {}
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id and cell.cell_type == "code":
            printed[grade_id] = "".join(output.get("text", "") for output in cell.outputs)
    return printed


def plot_class_results(results: dict[str, tuple[int, int]], ax=None, title: str = ""):
    """A horizontal bar per row: the share of the class that holds it, the rows most of the
    class gets wrong in red. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.3 * len(results) + 1.2))
    rows = list(results)[::-1]  # the notebook's first row on top
    shares = [results[row][0] / results[row][1] if results[row][1] else 0.0 for row in rows]
    colours = ["tab:red" if share < 0.5 else "tab:green" for share in shares]
    ax.barh(rows, shares, color=colours)
    for y, row in enumerate(rows):
        held, graded = results[row]
        ax.annotate(f"{held} of {graded}", (1.0, y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8, annotation_clip=False)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the class whose code holds it")
    ax.set_title(title or "The class's results, row by row (red: most get it wrong)")
    ax.figure.tight_layout()
    return ax
