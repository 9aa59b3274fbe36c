"""The course as an nbgrader course: one source per notebook, hidden tests nothing in a student's
kernel can raise, and a class's whole cycle (release, fetch, submit, collect, autograde,
feedback) with the project's nbgrader config (deploy/nbgrader_config.py).

It needs nbgrader (the `hub` extra); without it, it skips and says so.
"""

import json
import os
import pathlib
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


def test_an_unknown_check_is_no_pass():
    with pytest.raises(AssertionError, match="no exercise check named"):
        handin.exercise("print", stub_loop)
