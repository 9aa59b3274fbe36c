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


def sandbox_here() -> str:
    """"" if bubblewrap can make autograde's sandbox on this machine, else why not."""
    from agentlab.course.sandbox import Sandbox, SandboxError

    try:
        Sandbox().check()
    except SandboxError as e:
        return str(e)
    return ""


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
    # a line first, before the fresh process's wait: then the verdict
    assert capsys.readouterr().out.startswith("grading 1 row in a fresh process ...\n✗ answers: ")


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


def test_a_helper_module_beside_the_notebook_travels_with_the_answer(tmp_path, monkeypatch,
                                                                      capsys):
    """A student's own .py file, imported by the notebook: the grading process starts elsewhere
    (under autograde, in a sandbox that cannot see the notebook's folder), so it goes by value."""
    (tmp_path / "my_helpers.py").write_text(
        "import json\n\n\ndef as_text(outcome):\n"
        "    if isinstance(outcome, Exception):\n"
        "        return json.dumps({'error': f'{type(outcome).__name__}: {outcome}'})\n"
        "    return json.dumps(outcome)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_helpers

    def observe(messages, call, outcome):
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": my_helpers.as_text(outcome)})

    handin.exercise("check_observe", observe)
    assert capsys.readouterr().out.startswith("check_observe: checking in a fresh process ...\n"
                                              "check_observe: ✓ Works")
    import cloudpickle  # and nothing stays registered by value after the answer has gone

    assert "my_helpers" not in cloudpickle.list_registry_pickle_by_value()


def floods(messages, call, outcome):
    """A right observe, but it prints 200 MB first."""
    import json
    import sys

    for _ in range(200):
        sys.stderr.write("x" * 2**20)
    content = json.dumps({"error": f"{type(outcome).__name__}: {outcome}"}
                         if isinstance(outcome, Exception) else outcome)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def test_a_hand_in_that_prints_without_end_is_stopped_and_never_held_in_memory():
    """An outside review sent 300 MB to the grading process's stderr: the teacher's process
    grew by 600 MB reading it. Now it goes to a file, which stops growing at OUTPUT_LIMIT: the
    write past it fails, and the check says so."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB
    with pytest.raises(AssertionError, match=r"Not yet: .*File too large"):
        handin.exercise("check_observe", floods)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < handin.OUTPUT_LIMIT / 2**20, grown_mb


def test_an_unknown_check_is_no_pass():
    with pytest.raises(AssertionError, match="no exercise check named"):
        handin.exercise("print", stub_loop)


# --- a class's whole cycle ---------------------------------------------------------------------

HONEST = SOLUTIONS / f"{CAPSTONE}_solutions.ipynb"  # the reference loop, as an honest student's

# One mistake: every result of a step goes back under the step's first call id.
ONE_MISTAKE = ('messages.append({"role": "tool", "tool_call_id": call.id,',
               'messages.append({"role": "tool", "tool_call_id": response.tool_calls[0].id,')
# The rows whose steps hold several calls, so that the id each result goes back under shows:
# call_ids (two calls in one step), unanswered_tool_calls (the second call's id never comes),
# and right_tool and repeats (each asks two calls in one message: the API refuses the request
# after them).
MISTAKE_BREAKS = {"call_ids", "unanswered_tool_calls", "right_tool", "repeats"}
# A loop with no guardrail holds the rows of a correct loop, and no limit's.
PLAIN_HOLDS = {"answers", "right_tool", "call_ids", "history", "plain_result", "fresh_run",
               "unanswered_tool_calls"}
ALL_ROWS = [row for rows in (
    ["answers", "right_tool", "call_ids", "history", "plain_result", "fresh_run"],
    ["max_steps", "budget", "stop_names_limit"],
    ["allowlist", "bad_json", "unencodable", "tool_error"], ["truncation", "observability"],
    ["time", "repeats", "unanswered_tool_calls"]) for row in rows]
HUB_TOKEN = "hub-token-of-the-teachers-server"

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

# Below the grader: a cell that patches the Python the hidden tests would run on (an outside
# review raised a 9-row loop to 18 this way when the hidden tests ran in the kernel): whatever
# loads agentlab.course.handin gets a module that says every row held, json reads any verdict
# as all held, and subprocess.run never starts the grading process.
KERNEL_PATCHES = '''import importlib.util
import json
import subprocess
import types

ROWS = ["answers", "right_tool", "call_ids", "history", "plain_result", "fresh_run", "max_steps",
        "budget", "stop_names_limit", "allowlist", "bad_json", "unencodable", "tool_error",
        "truncation", "observability", "time", "repeats", "unanswered_tool_calls"]


class FakeHandin:
    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.capstone = lambda run_agent, rows, **kw: [print("✓", r) for r in rows] and len(rows)
        module.exercise = lambda check, *answers: print(check, "✓ Works")
        module.show_answer = lambda header, *answers: None
        return module

    def exec_module(self, module):
        pass


real_find_spec, real_loads = importlib.util.find_spec, json.loads
importlib.util.find_spec = lambda name, *a: (importlib.util.spec_from_loader(name, FakeHandin())
                                             if "handin" in name else real_find_spec(name, *a))
json.loads = lambda text, *a, **k: ({"held": ROWS, "hints": {}, "ok": True, "message": "ok"}
                                    if '"held"' in str(text) else real_loads(text, *a, **k))
subprocess.run = lambda *a, **k: subprocess.CompletedProcess(a, 0, b"", b"")
'''

# A hand-in that reaches for what autograde's account can read: the course's sources (the
# solutions), the gradebook (to raise its own marks), the hub's token in the environment.
# Its loop is the honest one: whatever it reads, it must earn what an honest hand-in earns.
def reaching_out(course: pathlib.Path) -> str:
    return f'''import os
import sqlite3

for path in [{str(course / "source" / CAPSTONE / (CAPSTONE + ".ipynb"))!r},
             {str(course / "gradebook.db")!r}, os.path.expanduser("~/agentlab-course")]:
    try:
        print(path, "read:", open(path, "rb").read(300))
    except OSError as e:
        print(path, "not read:", e)
try:
    with sqlite3.connect({str(course / "gradebook.db")!r}) as db:
        db.execute("UPDATE grade SET manual_score = 99")
    print("gradebook written")
except sqlite3.Error as e:
    print("gradebook not written:", e)
print("token:", os.environ.get("JUPYTERHUB_API_TOKEN"), os.environ.get("OPENAI_API_KEY"))
# Where nbgrader will write this graded notebook: a link there would send the write to the
# gradebook (an outside review overwrote it so, when the hand-in's folder itself was bound).
for name in os.listdir("."):
    if name.endswith(".ipynb"):
        os.remove(name)
        os.symlink({str(course / "gradebook.db")!r}, name)
        print("planted a link in place of", name)
'''


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
    if why := sandbox_here():  # autograde runs each hand-in in it (agentlab.course.sandbox)
        pytest.skip(f"autograde's sandbox cannot run here: {why}")
    honest_loop = reference_loop()
    assert ONE_MISTAKE[0] in honest_loop
    mistaken_loop = honest_loop.replace(*ONE_MISTAKE)
    # The hub's own settings (deploy/jupyterhub_config.py): the exchange it makes, and what it
    # gives the teacher's server and a student's (where nbgrader's config is, the course).
    from test_hub import FakeSpawner, deploy_config

    config, names = deploy_config(tmp_path / "hub")
    servers = {name: FakeSpawner(config, name)
               for name in ("teacher", "ada", "bob", "cy", "dee", "eve")}
    for server in servers.values():
        config.Spawner.pre_spawn_hook(server)
    course = tmp_path / "teacher" / "agentlab-course"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JUPYTER"))}
    # A server's PATH as systemd's spawner makes it: the config's extra paths before the
    # default (a unit keeps no PATH from the hub); nbgrader runs alembic from it.
    base["PATH"] = os.pathsep.join([*config.SystemdSpawner.extra_paths, os.defpath])
    teacher = {**base, **servers["teacher"].environment, "HOME": str(tmp_path / "teacher"),
               "JUPYTERHUB_API_TOKEN": HUB_TOKEN}  # as the hub gives the teacher's server
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

    def patches_python(cells):
        answer = answer_cell(cells)
        answer.source = PLAIN_LOOP
        cells.insert(cells.index(answer) + 1, nbformat.v4.new_code_cell(KERNEL_PATCHES))

    def reaches_out(cells):
        answer = answer_cell(cells)
        answer.source = honest_loop
        cells.insert(cells.index(answer) + 1, nbformat.v4.new_code_cell(reaching_out(course)))

    students = {"ada": honest, "bob": one_mistake, "cy": cheats, "dee": patches_python,
                "eve": reaches_out}
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
                "cy": earned(PLAIN_LOOP), "dee": earned(PLAIN_LOOP), "eve": earned(honest_loop)}
    print("marks:", marks)
    assert marks == {name: {cell: len(rows) for cell, rows in held.items()}
                     for name, held in expected.items()}
    totals = {name: sum(m.values()) for name, m in marks.items()}
    # Not only what this grader says of the same loops: the honest loop holds every row, the
    # mistake breaks the rows that read the call ids, and a loop with no guardrail holds no
    # more than the six rows of a plain loop.
    assert totals["ada"] == totals["eve"] == 18, totals
    assert {row for rows in expected["bob"].values() for row in rows} == \
        set(ALL_ROWS) - MISTAKE_BREAKS, expected["bob"]
    for name in ("cy", "dee"):
        assert {row for rows in expected[name].values() for row in rows} == PLAIN_HOLDS
    assert totals["cy"] == totals["dee"] == len(PLAIN_HOLDS), totals

    # The class's results, row by row, from the gradebook: what their code holds.
    from agentlab.course.class_results import class_results, not_graded

    results = class_results(course, CAPSTONE)
    assert list(results)[:3] == ["answers", "right_tool", "call_ids"] and len(results) == 18
    for row, (held, graded) in results.items():
        assert graded == len(students)
        assert held == sum(row in rows for h in expected.values() for rows in h.values()), row
    assert not_graded(course, CAPSTONE) == []
    for name in students:  # each student's feedback, fetched from the exchange
        home = tmp_path / name
        Shell(home, {**base, **servers[name].environment, "HOME": str(home)},
              extra=[f"--student={name}"]).run(fetch_feedback)
        [page] = (home / CAPSTONE / "feedback").rglob(f"{CAPSTONE}.html")
        text = page.read_text()
        assert f"Score: {totals[name]:.1f} / 18.0" in text or f"{totals[name]} / 18" in text
        assert (name in ("ada", "eve")) == ("✗" not in text)  # the rows broken, with hints
    # What the sandbox kept from eve's hand-in: every path, the gradebook, the hub's token.
    feedback = next((tmp_path / "eve" / CAPSTONE / "feedback").rglob(f"{CAPSTONE}.html"))
    text = feedback.read_text()
    assert "not read: [Errno 2] No such file or directory" in text
    assert " read: b" not in text and "BEGIN SOLUTION" not in text
    assert "gradebook not written" in text and HUB_TOKEN not in text
    assert "planted a link in place of" in text  # in a copy: nbgrader's own folder untouched
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert all(grade.manual_score is None for student in students
                   for grade in gradebook.find_submission_notebook(
                       CAPSTONE, CAPSTONE, student).grades)
    # A hand-in autograde could not grade (nbgrader removes its autograded notebook): named as
    # such, its stale marks out of the class's results, the guide's last line still runs.
    (course / "autograded" / "bob" / CAPSTONE / f"{CAPSTONE}.ipynb").unlink()
    assert not_graded(course, CAPSTONE) == ["bob"]
    assert all(graded == len(students) - 1 for _, graded in class_results(course,
                                                                           CAPSTONE).values())
    assert "not graded: bob: autograde failed" in shell.run(teaching[-1])


# --- autograde takes the verdict outside the kernel, in a sandbox --------------------------------


def test_the_course_autogrades_with_nbgraders_own_steps_but_the_first():
    """deploy/nbgrader_config.py swaps nbgrader's Execute for GradeOutsideTheKernel and keeps the
    rest of nbgrader's own list, in its order (a new nbgrader's new step would show here)."""
    needs_nbgrader()
    from nbgrader.converters.autograde import Autograde
    from traitlets.config import Config
    from traitlets.utils.importstring import import_item

    config = Config()
    namespace = {"get_config": lambda: config, "__file__": str(ROOT / "deploy" / "x.py")}
    exec((ROOT / "deploy" / "nbgrader_config.py").read_text(), namespace)
    ours = [import_item(name) for name in config.Autograde.autograde_preprocessors]
    default = Autograde().autograde_preprocessors
    from agentlab.course.autograde import GradeOutsideTheKernel
    from nbgrader.preprocessors import Execute

    assert ours == [GradeOutsideTheKernel if p is Execute else p for p in default]
    assert config.GradeOutsideTheKernel.sandbox is True
    # every setting it gives the class is one the class has (nbgrader only logs the others)
    assert set(config.GradeOutsideTheKernel) <= set(GradeOutsideTheKernel.class_traits())


def test_every_graded_cell_of_the_sources_asks_for_verdicts_autograde_can_read():
    needs_nbgrader()
    from agentlab.course.autograde import asked_in

    asked = {}
    for path in source_notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code":
                asked[cell.metadata["nbgrader"]["grade_id"]] = asked_in(cell.source)
                assert asked[cell.metadata["nbgrader"]["grade_id"]], (path.name, cell.source)
    rows = [row for group in GROUPS for a in asked[group] for row in a.header["rows"]]
    assert sorted(rows) == sorted(ALL_ROWS)
    assert all(a.answers == ["run_agent"] for group in GROUPS for a in asked[group])
    checks = [a.header["check"] for name, found in asked.items() if name not in GROUPS
              for a in found]
    assert len(checks) == len(set(checks)) >= 13 and all(c.startswith("check_") for c in checks)


EXERCISE_CELL = '''### BEGIN HIDDEN TESTS
from agentlab.course import handin
handin.exercise("check_observe", observe)
### END HIDDEN TESTS'''
def right_observe_source() -> str:
    """test_exercises' right answer to 01's observe, as a student's cell."""
    import inspect

    from test_exercises import right_observe

    return "import json\n\n" + inspect.getsource(right_observe).replace("def right_observe(",
                                                                         "def observe(")
OBSERVE_WRONG = '''def observe(messages, call, outcome):
    pass
'''
# The kernel says yes to everything: a fresh handin that passes, and a check_observe that does.
PATCHED_KERNEL = '''import agentlab.course.handin as handin
import agentlab.course.checks as checks
handin.exercise = lambda check, *answers: print(check, "✓ Works")
checks.check_observe = lambda fn: checks.Verdict(True, "patched")
'''


def autograded(tmp_path, *sources, timeout=120):
    """A notebook of `sources` then a graded exercise cell, through GradeOutsideTheKernel."""
    from agentlab.course.autograde import GradeOutsideTheKernel

    notebook = nbformat.v4.new_notebook()
    notebook.metadata.kernelspec = {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    graded = nbformat.v4.new_code_cell(EXERCISE_CELL)
    graded.metadata.nbgrader = {"grade": True, "grade_id": "observe", "points": 1,
                                "solution": False, "locked": True, "schema_version": 3}
    notebook.cells.append(graded)
    preprocessor = GradeOutsideTheKernel(sandbox=not sandbox_here(), timeout=timeout)
    done, _ = preprocessor.preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    return done.cells[-1].outputs


@pytest.mark.long
def test_autograde_grades_an_exercise_outside_a_kernel_that_says_yes_to_everything(tmp_path):
    needs_nbgrader()
    # a file handed in beside the notebook is there, as in nbgrader's own autograde
    (tmp_path / "beside.txt").write_text("handed in")
    writes = ("import os\nopen('written.txt', 'w').write('x')\n"
              f"os.symlink({str(tmp_path / 'beside.txt')!r}, 'graded.ipynb')")
    [said] = autograded(tmp_path, "assert open('beside.txt').read() == 'handed in'\n"
                        + right_observe_source(), writes)
    assert said.output_type == "stream" and said.text.startswith("check_observe: ✓ Works")
    # what the kernel wrote went to a copy of the hand-in's folder, never to the folder itself
    assert sorted(os.listdir(tmp_path)) == ["beside.txt"]
    [said] = autograded(tmp_path, OBSERVE_WRONG, PATCHED_KERNEL)
    assert said.output_type == "error" and said.ename == "AssertionError"
    assert said.evalue.startswith("check_observe: ✗ Not yet")
    [said] = autograded(tmp_path, "print('no observe here')")  # the answer never written
    assert said.output_type == "error" and said.ename == "NameError"


def test_a_sandbox_that_cannot_be_made_says_what_to_do(tmp_path):
    from agentlab.course.sandbox import Sandbox, SandboxError

    refusing = tmp_path / "bwrap"  # as bubblewrap answers where user namespaces are off
    refusing.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                        "exit 1\n")
    refusing.chmod(0o755)
    with pytest.raises(SandboxError, match=r"cannot make its sandbox on this machine \(bwrap: "
                       r"No permissions to create new namespace\).*sandbox = False"):
        Sandbox(str(refusing)).check()
    from unittest import mock

    with mock.patch("shutil.which", return_value=None), \
            pytest.raises(SandboxError, match="apt install bubblewrap"):
        Sandbox()


# A hand-in that tries to end autograde before its graded cells, so that nbgrader drops it and
# keeps the marks of an earlier hand-in (an outside review kept 18 of 18 so).
HANGS = """import signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    time.sleep(0.1)
"""
NOT_BYTES = """from IPython.display import display
import agentlab.course.handin as handin
handin.show_answer = lambda header, *answers: display({handin.ANSWER_TYPE: "A"}, raw=True)
"""


@pytest.mark.long
def test_a_hand_in_that_hangs_or_garbles_its_answer_scores_nothing_and_autograde_goes_on(
        tmp_path):
    needs_nbgrader()
    [said] = autograded(tmp_path, right_observe_source(), HANGS, timeout=3)
    assert said.output_type == "error" and "autograde stopped before this cell" in said.evalue
    # hung while it hands over its answer: the graded cell is still there, and scores nothing
    hangs_on_export = NOT_BYTES.replace('lambda header, *answers: display(' +
                                        '{handin.ANSWER_TYPE: "A"}, raw=True)',
                                        'lambda header, *answers: __import__("time").sleep(60)')
    assert hangs_on_export != NOT_BYTES
    [said] = autograded(tmp_path, right_observe_source(), hangs_on_export, timeout=3)
    assert said.output_type == "error" and "autograde stopped before this cell" in said.evalue
    [said] = autograded(tmp_path, right_observe_source(), NOT_BYTES)
    assert said.output_type == "error" and "not the bytes it is asked for" in said.evalue


def test_a_verdict_of_another_shape_is_no_pass(monkeypatch):
    needs_nbgrader()
    from agentlab.course.autograde import Asked, GradeOutsideTheKernel

    monkeypatch.setattr(handin, "verdict", lambda *args: {})  # what a forged line could hold
    preprocessor = GradeOutsideTheKernel(sandbox=False)
    preprocessor._sandbox = None
    for header in (handin.exercise_header("check_observe"), handin.capstone_header(["answers"])):
        [said] = preprocessor._verdict(Asked(header, ["f"]), b"bytes")
        assert said.output_type == "error" and "verdict was not one" in said.evalue


def test_the_sandbox_holds_this_python_and_nothing_of_the_course(tmp_path):
    if why := sandbox_here():
        pytest.skip(f"the sandbox cannot run here: {why}")
    from agentlab.course.sandbox import Sandbox, environment

    course = tmp_path / "agentlab-course"
    course.mkdir()
    (course / "gradebook.db").write_text("marks")
    shared = tmp_path / "kernel"
    shared.mkdir()
    probe = (f"import os, agentlab; print(os.path.exists({str(course)!r}), "
             f"os.path.exists({str(ROOT / 'notebooks' / 'solutions')!r}), "
             f"os.path.exists({str(ROOT / 'agentlab')!r}), os.environ.get('SECRET_TOKEN')); "
             f"open({str(shared / 'written')!r}, 'w').write('ok')")
    done = subprocess.run(Sandbox().wrap([sys.executable, "-I", "-c", probe], shared=str(shared)),
                          capture_output=True, text=True, timeout=60,
                          env={**environment(), "SECRET_TOKEN": "x"})
    assert done.stdout.split() == ["False", "False", "True", "None"], done.stderr
    assert (shared / "written").read_text() == "ok"
