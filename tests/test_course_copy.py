"""agentlab.course.handout: the copy a teacher hands out has the course, not its solutions."""

import pathlib

import pytest

from agentlab.course import handout, launcher

CHECKOUT = pathlib.Path(__file__).parent.parent


def test_a_student_copy_has_the_notebooks_and_no_solutions(tmp_path, capsys):
    saved = CHECKOUT / "notebooks" / "agentlab-runs.json"  # the teacher's playground runs
    made_here = not saved.exists()
    if made_here:
        saved.write_text("[]")
    try:
        copy = handout.student_copy(tmp_path / "students", checkout=CHECKOUT)
    finally:
        if made_here:
            saved.unlink()
    notebooks = sorted(p.name for p in (copy / "notebooks").glob("*.ipynb"))
    assert notebooks == sorted(p.name for p in (CHECKOUT / "notebooks").glob("*.ipynb"))
    assert not (copy / "notebooks" / "solutions").exists()
    assert not list(copy.rglob("*_solutions.ipynb"))
    assert not (copy / "tests").exists() and not (copy / ".git").exists()
    assert not (copy / "docs" / "INSTRUCTORS.md").exists()  # it answers the open questions
    assert not list(copy.rglob("__pycache__")) and not list(copy.rglob("agentlab-runs.json"))
    # What the README's commands need is there: the package, its metadata, nbval's sanitizer.
    # conftest.py: the copy's `python -m pytest` runs offline too, whatever key the shell has
    for needed in ("pyproject.toml", "README.md", "environment.yml", "agentlab/loop.py",
                   "agentlab/course/checks/__init__.py", "notebooks/sanitize.cfg", "conftest.py"):
        assert (copy / needed).exists(), needed
    # `agentlab course`, installed from the copy, opens the copy's notebooks; so does one
    # installed from the clone, run inside the copy (a teacher checking it: a teacher's review
    # saw the clone's notebooks, solutions and all), and outside it, the clone's.
    assert launcher.find_notebooks(checkout=copy, here=tmp_path) == copy / "notebooks"
    assert launcher.find_notebooks(checkout=CHECKOUT, here=copy) == copy / "notebooks"
    assert launcher.find_notebooks(checkout=CHECKOUT, here=tmp_path) == CHECKOUT / "notebooks"
    assert "without notebooks/solutions/" in capsys.readouterr().out


def test_a_student_copy_refuses_a_folder_that_exists_or_lies_inside_the_course(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(launcher.CourseError, match="already exists"):
        handout.student_copy(tmp_path / "taken", checkout=CHECKOUT)
    with pytest.raises(launcher.CourseError, match="inside the course's folder"):
        handout.student_copy(CHECKOUT / "students-copy", checkout=CHECKOUT)
    assert not (CHECKOUT / "students-copy").exists()


def test_the_command_line_makes_the_copy_and_refuses_a_second_one(tmp_path, capsys):
    from agentlab.__main__ import main

    assert main(["course", "--student-copy", str(tmp_path / "students")]) == 0
    assert (tmp_path / "students" / "notebooks" / "01_the_loop_by_hand.ipynb").exists()
    assert not (tmp_path / "students" / "notebooks" / "solutions").exists()
    assert main(["course", "--student-copy", str(tmp_path / "students")]) == 1
    assert "already exists: name a new folder" in capsys.readouterr().err


def test_a_student_copy_leaves_out_the_hubs_proxy_install(tmp_path):
    # .node/ holds configurable-http-proxy from npm (tests/test_hub.py, benchmarks/class_hub.py):
    # thousands of files a student does not need, copied into every student's server.
    checkout = tmp_path / "course"
    (checkout / "notebooks").mkdir(parents=True)
    (checkout / "notebooks" / "01_the_loop_by_hand.ipynb").write_text("{}")
    proxy = checkout / ".node" / "node_modules" / ".bin"
    proxy.mkdir(parents=True)
    (proxy / "configurable-http-proxy").write_text("#!/usr/bin/env node\n")
    copy = handout.student_copy(tmp_path / "students", checkout=checkout)
    assert (copy / "notebooks" / "01_the_loop_by_hand.ipynb").exists()
    assert not (copy / ".node").exists()


def test_a_student_copy_never_publishes_a_hubs_state(tmp_path):
    # A hub started in the copy's folder wrote its cookie secret and database there, and
    # `git add -A` in the hand-out repository published both: with them, a teacher's login can
    # be forged. The copy's .gitignore lists them, wherever in the copy they land.
    import subprocess

    copy = handout.student_copy(tmp_path / "students", checkout=CHECKOUT)
    state = ["jupyterhub_cookie_secret", "jupyterhub.sqlite", "jupyterhub.sqlite-journal",
             "jupyterhub-proxy.pid", "deploy/jupyterhub.sqlite"]
    for name in state:
        (copy / name).write_text("secret")
    git = {"cwd": copy, "check": True, "capture_output": True, "text": True}
    subprocess.run(["git", "init", "-q"], **git)
    subprocess.run(["git", "add", "-A"], **git)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], **git).stdout.split()
    assert "notebooks/01_the_loop_by_hand.ipynb" in staged
    assert not set(state) & set(staged), f"a hub's state would be published: {staged}"
    # a copy made from a folder where a hub ran leaves its state out, and lists it once
    again = handout.student_copy(tmp_path / "again", checkout=copy)
    assert not any((again / name).exists() for name in state)
    lines = (again / ".gitignore").read_text().splitlines()
    assert all(lines.count(name) == 1 for name in handout.HUB_STATE)
