"""Every notebook's hygiene: saved executed in order from a clean kernel, no errors, no stderr,
no secrets, one kernel, PNG figures; and the course's shape: students get stubs whose checks say
"✗ Not yet", the solutions notebooks pass every check, and each chapter ends with a recap."""

import ast
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parent.parent / "notebooks"
STUDENTS = sorted(ROOT.glob("0[1-9]*.ipynb"))
SOLUTIONS = sorted((ROOT / "solutions").glob("0[1-9]*_solutions.ipynb"))
# The capstone (08) is graded by agentlab.course.gauntlet, not by check_ calls: tests/test_gauntlet.py
# checks that its student notebook shows "Not yet" and its solution holds every check.
CHAPTERS = [p for p in STUDENTS if not p.name.startswith("08")]
KEY = re.compile(r"sk-[A-Za-z0-9_-]{20,}")
WIDGET_REPR = re.compile(r"\b(IntProgress|FloatProgress|HBox|VBox|Output|Label|HTML|Button)\(")
CHECK_CALL = re.compile(r"^check_\w+\(", re.M)


def cells_of(path):
    return json.loads(path.read_text())["cells"]


def shown(cell) -> str:
    """A cell's text outputs, without grade()'s progress line ("grading: 3 checks ... done")."""
    text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for o in cell.get("outputs", []))
    return re.sub(r"\Agrading: \d+ checks? \.* done\n", "", text)


def test_the_course_is_all_there():
    numbers = [p.name.split("_")[0] for p in STUDENTS]
    assert numbers == ["01", "02", "03", "04a", "04b", "05", "06", "07", "08", "09"]
    assert [p.name for p in SOLUTIONS] == [p.stem + "_solutions.ipynb" for p in STUDENTS]


@pytest.mark.parametrize("path", STUDENTS + SOLUTIONS, ids=lambda p: p.name)
def test_hygiene(path):
    text = path.read_text()
    nb = json.loads(text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1)), \
        "re-run from a clean kernel, in order, and save"
    outputs = [o for c in code for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert not [o for o in outputs if o.get("name") == "stderr"]
    assert not KEY.search(text), "something shaped like an API key is saved in the notebook"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for o in outputs:
        assert "image/svg+xml" not in o.get("data", {}), \
            "figures are PNG (SVGs carry dates and ids)"
        plain = "".join(o.get("data", {}).get("text/plain", ""))
        assert not WIDGET_REPR.search(plain), \
            f"a raw widget repr shows before running: {plain[:80]}"
    ignored = [c for c in code if "NBVAL_IGNORE_OUTPUT" in "".join(c["source"])]
    assert len(ignored) <= 2
    for c in ignored:
        assert re.search(r"NBVAL_IGNORE_OUTPUT.*(because|:)", "".join(c["source"])), "say why"


def connects(source: str) -> bool:
    """The cell calls connect() or run_agent() whenever it runs: in a statement of its own, not
    inside a def or an if. A kernel's first connection loads the openai SDK, a second or two.

    Example: 'client = connect()' -> True; 'def my_loop(...):\n    connect()' -> False;
             'if HAVE_REAL_MODEL:\n    connect()' -> False (offline, it does not run)
    """
    try:
        statements = ast.parse(source).body
    except SyntaxError:  # IPython's own syntax (magics): not a cell that connects
        return False
    simple = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)
    return any(isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
        node.func, "attr", None)) in ("connect", "run_agent")
               for statement in statements if isinstance(statement, simple)
               for node in ast.walk(statement))


@pytest.mark.parametrize("path", STUDENTS + SOLUTIONS, ids=lambda p: p.name)
def test_the_first_cell_that_connects_says_what_it_waits_for_before_it_waits(path):
    """Issue 30, no wait over a second without a word: an audit found notebook 03's
    `client = connect()` (1.2-2.2 s) and 04a's 25-step runaway (1.6 s) silent until the end.
    The first cell that connects prints a line ending in "..." before anything else."""
    code = [c for c in cells_of(path) if c["cell_type"] == "code"]
    first = next((c for c in code if connects("".join(c["source"]))), None)
    if first is None:
        return
    said = shown(first).split("\n")[0]
    assert said.rstrip().endswith("..."), (
        f"{''.join(first['source'])[:80]!r} first shows {said[:80]!r}: say what it waits for "
        "(the openai SDK loads once: a second or two) before it waits")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_students_learn_first_try_stubs_and_end_with_a_recap(path):
    cells = cells_of(path)
    assert "You will learn" in "".join(cells[0]["source"])
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    assert any("## Exercises" in m for m in markdown)
    recap = "".join(cells[-1]["source"])
    assert cells[-1]["cell_type"] == "markdown" and recap.startswith("## Recap")
    assert len(re.findall(r"^- ", recap, re.M)) == 3, "a three-line recap closes the notebook"
    checks = [c for c in cells
              if c["cell_type"] == "code" and CHECK_CALL.search("".join(c["source"]))]
    assert checks, "every chapter has at least one checked exercise"
    for cell in checks:
        source, output = "".join(cell["source"]), shown(cell)
        assert "..." in source, "the exercise is a stub the student fills in"
        assert "✗ Not yet" in output and "✓" not in output, \
            "a student sees the stub fail, not an answer"


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_solutions_pass_every_check(path):
    checks = [c for c in cells_of(path) if c["cell_type"] == "code"
              and CHECK_CALL.search("".join(c["source"]))]
    student = ROOT / path.name.replace("_solutions", "")
    student_checks = {m for c in cells_of(student)
                      for m in CHECK_CALL.findall("".join(c["source"]))}
    assert {m for c in checks for m in CHECK_CALL.findall("".join(c["source"]))} == student_checks
    for cell in checks:
        output = shown(cell)
        assert "✓ Works" in output and "✗" not in output, output


GRADE_CALL = re.compile(r"^grade\(my_loop\b.*$", re.M)


def grade_cells(path):
    return [c for c in cells_of(path)
            if c["cell_type"] == "code" and GRADE_CALL.search("".join(c["source"]))]


def test_the_students_loop_grows_from_03_to_04b_one_graded_row_at_a_time():
    """The student writes my_loop in 03 and adds each guardrail in 04a and 04b, graded on the
    spot: each Your-turn stub shows "Not yet", and its solution holds the same rows, same draws."""
    rows = {}
    for stem in ["03_the_loop_in_forty_lines", "04a_the_chapters_guardrails",
                 "04b_beyond_the_chapter"]:
        student, solution = ROOT / f"{stem}.ipynb", ROOT / "solutions" / f"{stem}_solutions.ipynb"
        calls = [GRADE_CALL.search("".join(c["source"])).group() for c in grade_cells(student)]
        assert calls == [GRADE_CALL.search("".join(c["source"])).group()
                         for c in grade_cells(solution)], stem
        for cell in grade_cells(student):
            source, output = "".join(cell["source"]), shown(cell)
            assert "✗ Not yet" in output and "✓" not in output, source
            if "def my_loop" in source:
                assert "..." in source, "the student's loop is a stub to fill in"
        for cell in grade_cells(solution):
            assert shown(cell).startswith("✓ All checks held"), shown(cell)[:300]
        rows[stem] = " ".join(calls)
    assert "answers" in rows["03_the_loop_in_forty_lines"]
    for row in ["max_steps", "observability", "budget", "allowlist", "bad_json", "unencodable",
                "tool_error", "truncation"]:
        assert f'"{row}"' in rows["04a_the_chapters_guardrails"], row
    for row in ["time", "repeats"]:
        assert f'"{row}"' in rows["04b_beyond_the_chapter"], row


def test_a_stub_is_the_body_of_its_function_not_a_stray_line_after_it():
    """A review: notebook 02's answer region held the whole tool, so the student saw the stub's
    def and a top-level `...` after it. The region sits in the function: `...` is its body."""
    for path in STUDENTS:
        for cell in cells_of(path):
            lines = [line for line in "".join(cell["source"]).splitlines() if line.strip()]
            for before, line in zip(lines, lines[1:]):
                assert not (line == "..." and before.startswith((" ", "\t"))), \
                    f"{path.name}: a stray `...` after {before.strip()!r}"


CLOCK_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")  # as sanitize.cfg masks


@pytest.mark.parametrize("stem", ["02_tools", "03_the_loop_in_forty_lines"])
def test_a_clock_time_shown_before_notebook_03_explains_it_says_why_yours_differs(stem):
    """A review: 02 and 03 showed the pinned clock's time (and token counts that depend on its
    weekday) with no word why a student's own run shows another. The markdown right above or
    below each such cell says the clock is the reason."""
    for path in (ROOT / f"{stem}.ipynb", ROOT / "solutions" / f"{stem}_solutions.ipynb"):
        cells = cells_of(path)
        for n, cell in enumerate(cells):
            if cell["cell_type"] != "code" or not CLOCK_TIME.search(shown(cell)):
                continue
            above = next(("".join(c["source"]) for c in reversed(cells[:n])
                          if c["cell_type"] == "markdown"), "")
            below = "".join(cells[n + 1]["source"]) if n + 1 < len(cells) else ""
            assert "clock" in above + below, f"{path.name}, cell {n}: {shown(cell)[:80]}"


def test_no_student_notebook_shows_a_solution_cell():
    for path in STUDENTS:
        text = path.read_text()
        assert "a reference solution" not in text, path.name


def test_the_playground_suggestions_of_05_give_what_the_text_announces():
    """Notebook 05's "What to try" promises outcomes from the playground's defaults: keep
    them true."""
    pytest.importorskip("ipywidgets")
    from agentlab.course.sweeps import COURSE_TASKS
    from agentlab.course.playground import Playground

    text = "".join("".join(c["source"]) for c in cells_of(ROOT / "05_the_limits_playground.ipynb"))
    peru = "What's the weather in the capital of Peru, in Fahrenheit?"

    def fresh(**settings):
        playground = Playground([task.text for task in COURSE_TASKS])
        for name, value in settings.items():
            getattr(playground, name).value = value
        return playground

    defaults = fresh()
    assert (defaults.model.value, defaults.priced_as.value, defaults.max_steps.value,
            defaults.max_cost_usd.value, defaults.budget_mode.value, defaults.wind_down.value) == (
        "tutor", "gpt-4o-mini", 10, 0.5, "before", False)
    assert ("defaults: the first task, the model `tutor` priced as\n`gpt-4o-mini`, "
            "`max_steps` 10") in text

    assert [fresh(task=peru, max_steps=n).run().stop_reason for n in (2, 3)] == ["max_steps"] * 2
    assert "66.2 °F" in fresh(task=peru, max_steps=4).run().answer

    verbose = dict(task=peru, model="tutor-verbose")
    assert fresh(**verbose, max_cost_usd=10 ** -2.5).run().ok  # "answers down to 0.0032"
    stopped = fresh(**verbose, max_cost_usd=10 ** -2.75).run()
    assert (stopped.stop_reason, len(stopped.steps), round(stopped.cost_usd, 4)) == (
        "max_cost", 2, 0.001)
    paid = fresh(**verbose, max_cost_usd=10 ** -2.75, budget_mode="after").run()
    assert (paid.stop_reason, len(paid.steps), round(paid.cost_usd, 4), paid.answer) == (
        "max_cost", 4, 0.0024, None)
    assert f"{paid.cost_usd / 10 ** -2.75 - 1:.0%} over budget" in text

    looper = fresh(model="tutor-looper", max_steps=3)
    assert looper.run().answer is None
    looper.wind_down.value = True
    assert looper.run().answer.startswith("I had to stop before finishing")

    slow = fresh(model="tutor-slow", max_seconds=2).run()
    assert (slow.stop_reason, len(slow.steps)) == ("max_seconds", 1)

    assert "66.2 °F" in fresh(task=peru, max_result_chars=100).run().answer
    cut = fresh(task=peru, max_result_chars=30).run()
    assert (cut.stop_reason, len(cut.steps)) == ("answered", 2) and "°" not in cut.answer


# JupyterLab reads the text between two $ signs of a paragraph as LaTeX: "$0.15 per million ...
# $0.075" became run-together italics, in the very sentences that explain cost. An amount is
# written \$0.15; $$...$$ display maths and code (`...`, fences) are left as they are.
UNESCAPED_AMOUNT = re.compile(r"(?<![\\$])\$(?=\d)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


@pytest.mark.parametrize("path", STUDENTS + SOLUTIONS, ids=lambda p: p.name)
def test_dollar_amounts_in_prose_are_escaped_so_they_do_not_render_as_maths(path):
    found = [f"cell {i}: ...{prose[max(0, m.start() - 30):m.start() + 10]!r}..."
             for i, cell in enumerate(cells_of(path)) if cell["cell_type"] == "markdown"
             for prose in [CODE.sub("", "".join(cell["source"]))]
             for m in UNESCAPED_AMOUNT.finditer(prose)]
    assert not found, "write \\$ before an amount: " + "; ".join(found)
