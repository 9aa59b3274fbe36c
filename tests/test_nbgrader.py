"""The course as an nbgrader course: one source per notebook, hidden tests nothing in a student's
kernel can raise, and a class's whole cycle (release, fetch, submit, collect, autograde,
feedback) with the project's hub config: the settings deploy/jupyterhub_config.py gives the
teacher's and each student's server, and deploy/nbgrader_config.py, which they read. The cycle
runs nbgrader's commands as the guide writes them, in those servers' environments, not through
a running hub's web pages (the students here are one user, so each names itself: --student).

It needs nbgrader and JupyterHub (the `hub` extra); without them, it skips and says so.
"""

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from agentlab.course import handin

nbformat = pytest.importorskip("nbformat")

ROOT = pathlib.Path(__file__).parent.parent
SOLUTIONS = ROOT / "notebooks" / "solutions"
CAPSTONE = "08_grade_your_own_loop"
GROUPS = {"capstone_loop": 6, "capstone_limits": 3, "capstone_gate": 4, "capstone_seen": 2,
          "capstone_beyond": 3}


def needs_nbgrader():
    pytest.importorskip("nbgrader", reason="nbgrader is not installed: pip install -e '.[hub]'")
    from agentlab.course import sources

    return sources


def source_notebooks():
    from agentlab.course.sources import is_source

    return [p for p in sorted(SOLUTIONS.glob("[0-9]*_solutions.ipynb"))
            if is_source(nbformat.read(p, as_version=4))]


# --- one source per notebook ---------------------------------------------------------------


def test_every_student_notebook_made_from_a_source_is_what_nbgrader_makes_of_it():
    sources = needs_nbgrader()
    made = source_notebooks()
    assert SOLUTIONS / f"{CAPSTONE}_solutions.ipynb" in made
    for path in made:
        source = nbformat.read(path, as_version=4)
        student = nbformat.read(sources.student_path(path), as_version=4)
        assert sources.sources_of(sources.student_version(source)) == \
            sources.sources_of(student), f"{student} has drifted from {path.name}"
        text = json.dumps(student["cells"])
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "handin"):
            assert marker not in text, f"{marker} shows in the student's {path.name}"


def test_a_change_in_a_source_shows_as_drift_until_the_tool_makes_it_again(tmp_path):
    sources = needs_nbgrader()
    source = nbformat.read(SOLUTIONS / f"{CAPSTONE}_solutions.ipynb", as_version=4)
    student = nbformat.read(ROOT / "notebooks" / f"{CAPSTONE}.ipynb", as_version=4)
    answer = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = answer.source.replace("def run_agent(", "def run_agent_renamed(")
    assert sources.sources_of(sources.student_version(source)) != sources.sources_of(student)
    # the answers themselves are not in the student's version: changing one is no drift
    source = nbformat.read(SOLUTIONS / f"{CAPSTONE}_solutions.ipynb", as_version=4)
    answer = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = answer.source.replace("spent, history = 0.0, []", "spent, history = 0, []")
    assert "spent, history = 0, []" in answer.source
    assert sources.sources_of(sources.student_version(source)) == sources.sources_of(student)


def test_the_tool_finds_no_drift_and_the_student_copy_carries_the_made_notebooks(tmp_path):
    needs_nbgrader()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "student_notebooks.py"),
                           "--check"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    from agentlab.course import handout

    copy = handout.student_copy(tmp_path / "students", checkout=ROOT)
    assert (copy / "notebooks" / f"{CAPSTONE}.ipynb").read_bytes() == \
        (ROOT / "notebooks" / f"{CAPSTONE}.ipynb").read_bytes()


# --- hidden tests: what a student's kernel does counts for nothing ---------------------------


def stub_loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
    return ...


def test_a_patched_check_in_this_process_does_not_pass_an_exercise(monkeypatch, capsys):
    from agentlab.course import checks

    def observe(messages, call, outcome):  # never answers the call
        pass

    monkeypatch.setattr(checks, "check_observe", lambda fn: checks.Verdict(True, "patched"))
    assert checks.check_observe(observe)  # the patch works here, in this process
    with pytest.raises(AssertionError, match="check_observe: ✗ Not yet"):
        handin.exercise("check_observe", observe)


def test_a_patched_gauntlet_in_this_process_does_not_hold_a_row(monkeypatch, capsys):
    from agentlab.course.gauntlet import checks as rows
    from agentlab.course.gauntlet.report import Entry

    def always_held(loop, timeout, draws):
        return Entry("answers", True, "", "", "", 0.0, 1)

    monkeypatch.setitem(rows.CHECKS, "answers", always_held)
    assert handin.capstone(stub_loop, ["answers"]) == 0
    assert capsys.readouterr().out.startswith("✗ answers: ")


def forges_a_verdict(messages, call, outcome):
    print('{"ok": true, "message": "forged"}', flush=True)
    os._exit(0)


def test_a_verdict_printed_by_the_students_function_is_not_believed():
    with pytest.raises(handin.HandInError, match="no verdict"):
        handin.exercise("check_observe", forges_a_verdict)


def test_an_answer_that_cannot_travel_gets_a_message_that_says_what_to_change():
    """A check passes in the notebook, but its answer holds a lock made outside it: the hand-in
    says why it cannot be graded, not a pickling traceback."""
    import threading

    guard = threading.Lock()

    def observe(messages, call, outcome):
        with guard:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "{}"})

    with pytest.raises(AssertionError, match=r"could not be sent to the fresh process .*"
                       r"a lock, a thread or an open file cannot be sent"):
        handin.exercise("check_observe", observe)


def test_the_graded_cells_of_every_student_notebook_are_locked_as_nbgrader_releases_them():
    """A student can neither edit nor delete a graded cell in JupyterLab, nor delete an answer
    cell: nbgrader needs them back as released."""
    needs_nbgrader()
    for path in source_notebooks():
        from agentlab.course.sources import student_path

        student = nbformat.read(student_path(path), as_version=4)
        graded = [c for c in student.cells if c.metadata.get("nbgrader", {}).get("grade")
                  and not c.metadata["nbgrader"].get("solution")]
        answers = [c for c in student.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert graded and answers, path.name
        for cell in graded:
            assert cell.metadata.get("editable") is False, (path.name, cell.source[:60])
            assert cell.metadata.get("deletable") is False, (path.name, cell.source[:60])
        for cell in answers:
            assert cell.metadata.get("deletable") is False, (path.name, cell.source[:60])


def test_an_unknown_check_is_no_pass():
    with pytest.raises(AssertionError, match="no exercise check named"):
        handin.exercise("print", stub_loop)


# --- a class's whole cycle ---------------------------------------------------------------------

HONEST = SOLUTIONS / f"{CAPSTONE}_solutions.ipynb"  # the reference loop, as an honest student's

# One mistake: every result of a step goes back under the step's first call id.
ONE_MISTAKE = ('messages.append({"role": "tool", "tool_call_id": call.id,',
               'messages.append({"role": "tool", "tool_call_id": response.tool_calls[0].id,')

# A loop with no guardrail (notebook 02's), and a cell that makes the kernel's grader say all
# held: grade() and every row of the gauntlet replaced, the exercise checks too.
PLAIN_LOOP = '''import json

from agentlab.course.gauntlet import grade


def run_agent(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
    messages = [{"role": "user", "content": user_message}]
    while True:
        response = client.chat(model=model, messages=messages, tools=tools)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            result = tool_impls[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result)})
'''
PATCHES = '''import agentlab.course.checks as checks
import agentlab.course.gauntlet as gauntlet
import agentlab.course.gauntlet.checks as rows
from agentlab.course.gauntlet.report import Entry


def held(name):
    return lambda loop, timeout, draws: Entry(name, True, "", "", "", 0.0, 1)


for name in rows.CHECKS:
    rows.CHECKS[name] = held(name)
for name in checks.__all__:
    if name.startswith("check_"):
        setattr(checks, name, lambda *answers: checks.Verdict(True, "patched"))
gauntlet.grade = grade = lambda *args, **kwargs: "✓ All checks held (18 of 18)"
'''
FORGED_REPORT = "✓ All checks held (18 of 18) (seed=8, chosen)."


def guide_block(containing: str) -> list[str]:
    """The command lines of docs/INSTRUCTORS.md's fenced shell block that contains
    `containing`, comments and all."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "docs" / "INSTRUCTORS.md").read_text(),
                        re.DOTALL)
    [block] = [b for b in blocks if containing in b]
    return block.splitlines()


class Shell:
    """Runs the guide's command lines as a teacher or a student would type them: `cd`,
    `python tools/...` (this environment's Python) and `nbgrader ...`."""

    def __init__(self, cwd, env, extra=()):
        self.cwd, self.env, self.extra, self.back = pathlib.Path(cwd), env, list(extra), None

    def run(self, line: str, timeout=900) -> str:
        words = [w.replace("~", self.env["HOME"], 1) if w.startswith("~") else w
                 for w in shlex.split(line, comments=True)]
        if not words:
            return ""
        if words[0] == "cd":
            self.cwd, self.back = (self.back if words[1] == "-" else pathlib.Path(words[1])), \
                self.cwd
            return ""
        assert words[0] in ("python", "nbgrader"), line
        command = [sys.executable, *words[1:]] if words[0] == "python" else [
            sys.executable, "-m", "nbgrader", *words[1:], *self.extra]
        done = subprocess.run(command, cwd=self.cwd, env=self.env, capture_output=True,
                              text=True, timeout=timeout)
        assert done.returncode == 0, f"{line}:\n{done.stdout}\n{done.stderr}"
        return done.stdout


def hand_in_edited(notebook_path, edit):
    notebook = nbformat.read(notebook_path, as_version=4)
    edit(notebook.cells)
    nbformat.write(notebook, notebook_path)


def answer_cell(cells):
    return next(c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "run_agent")


def reference_loop() -> str:
    """The source's answer cell without its solution markers: the loop an honest student
    hands in."""
    source = nbformat.read(HONEST, as_version=4)
    lines = answer_cell(source.cells).source.splitlines()
    return "\n".join(line for line in lines
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"


def earned(loop_source: str) -> dict[str, list[str]]:
    """What the loop earns, graded here: the rows it holds in each graded cell's group."""
    from agentlab.course.gauntlet import grade

    names: dict = {}
    exec(compile(loop_source, "<loop>", "exec"), names)
    source = nbformat.read(HONEST, as_version=4)
    earned = {}
    for cell in source.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if grade_id in GROUPS:
            rows = json.loads(cell.source.split("handin.capstone(run_agent, ")[1].split(")")[0])
            earned[grade_id] = grade(names["run_agent"], only=rows, seed=1).held
    return earned


@pytest.mark.long
def test_a_class_hands_in_the_capstone_and_is_graded_by_what_its_code_does(tmp_path):
    needs_nbgrader()
    honest_loop = reference_loop()
    assert ONE_MISTAKE[0] in honest_loop
    mistaken_loop = honest_loop.replace(*ONE_MISTAKE)
    # The hub's own settings (deploy/jupyterhub_config.py): the exchange it makes, and what it
    # gives the teacher's server and a student's (where nbgrader's config is, the course).
    from test_hub import FakeSpawner, deploy_config

    config, names = deploy_config(tmp_path / "hub")
    servers = {name: FakeSpawner(config, name) for name in ("teacher", "ada", "bob", "cy")}
    for server in servers.values():
        config.Spawner.pre_spawn_hook(server)
    course = tmp_path / "teacher" / "agentlab-course"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JUPYTER"))}
    # A server's PATH as systemd's spawner makes it: the config's extra paths before the
    # default (a unit keeps no PATH from the hub); nbgrader runs alembic from it.
    base["PATH"] = os.pathsep.join([*config.SystemdSpawner.extra_paths, os.defpath])
    teacher = {**base, **servers["teacher"].environment, "HOME": str(tmp_path / "teacher")}
    assert teacher["AGENTLAB_NBGRADER_COURSE"] == "~/agentlab-course"
    (tmp_path / "teacher").mkdir()
    (tmp_path / "teacher" / "agentlab").symlink_to(ROOT)  # the teacher's clone, as the guide says

    # The teacher, in the clone, types the guide's commands: the course's folder, the student
    # version, the release.
    teaching = guide_block("nbgrader release_assignment")
    students_turn = next(i for i, line in enumerate(teaching) if "the class fetches" in line)
    shell = Shell(ROOT, teacher)
    for line in teaching[:students_turn]:
        shell.run(line)
    released = course / "release" / CAPSTONE / f"{CAPSTONE}.ipynb"
    from agentlab.course import sources

    assert sources.sources_of(nbformat.read(released, as_version=4)) == sources.sources_of(
        nbformat.read(ROOT / "notebooks" / f"{CAPSTONE}.ipynb", as_version=4)), \
        "nbgrader's release differs from notebooks/"

    # Three students fetch it, write their loops, and hand them in.
    def honest(cells):
        answer_cell(cells).source = honest_loop

    def one_mistake(cells):
        answer_cell(cells).source = mistaken_loop

    def cheats(cells):
        answer = answer_cell(cells)
        answer.source = PLAIN_LOOP
        at = cells.index(answer) + 1
        cells.insert(at, nbformat.v4.new_code_cell(PATCHES))
        report = next(c for c in cells if "report = grade(run_agent" in c.source)
        report.outputs = [nbformat.v4.new_output("execute_result",
                                                 {"text/plain": FORGED_REPORT})]

    students = {"ada": honest, "bob": one_mistake, "cy": cheats}
    fetch, submit, fetch_feedback = guide_block("nbgrader fetch_feedback")
    for name, edit in students.items():
        home = tmp_path / name
        home.mkdir()
        # one user here, so each says who they are (on the hub, each is a user of their own)
        student = Shell(home, {**base, **servers[name].environment, "HOME": str(home)},
                        extra=[f"--student={name}"])
        student.run(fetch)
        fetched = home / CAPSTONE / f"{CAPSTONE}.ipynb"
        assert "BEGIN SOLUTION" not in fetched.read_text()
        hand_in_edited(fetched, edit)
        student.run(submit)

    # The teacher collects, autogrades in fresh kernels, hands back the feedback, and plots
    # the class's results, as the guide says.
    for line in teaching[students_turn + 1:]:
        printed = shell.run(line)
    plot = tmp_path / "teacher" / "results.png"  # the guide's last line: in the teacher's home
    assert "call_ids" in printed and plot.read_bytes().startswith(b"\x89PNG")

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        marks = {name: {g.name: g.score for g in gradebook.find_submission_notebook(
            CAPSTONE, CAPSTONE, name).grades if g.name in GROUPS} for name in students}
    expected = {"ada": earned(honest_loop), "bob": earned(mistaken_loop),
                "cy": earned(PLAIN_LOOP)}
    print("marks:", marks)
    assert marks == {name: {cell: len(rows) for cell, rows in held.items()}
                     for name, held in expected.items()}
    totals = {name: sum(m.values()) for name, m in marks.items()}
    assert totals["ada"] == 18 and 0 < totals["bob"] < 18 and totals["cy"] < 18, totals

    # The class's results, row by row, from the gradebook: what their code holds.
    from agentlab.course.class_results import class_results

    results = class_results(course, CAPSTONE)
    assert list(results)[:3] == ["answers", "right_tool", "call_ids"] and len(results) == 18
    for row, (held, graded) in results.items():
        assert graded == 3
        assert held == sum(row in rows for h in expected.values() for rows in h.values()), row
    for name in students:  # each student's feedback, fetched from the exchange
        home = tmp_path / name
        Shell(home, {**base, **servers[name].environment, "HOME": str(home)},
              extra=[f"--student={name}"]).run(fetch_feedback)
        [page] = (home / CAPSTONE / "feedback").rglob(f"{CAPSTONE}.html")
        text = page.read_text()
        assert f"Score: {totals[name]:.1f} / 18.0" in text or f"{totals[name]} / 18" in text
        assert (name == "ada") == ("✗" not in text)  # the rows broken, with their hints
