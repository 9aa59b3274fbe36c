"""The command line, run the way a user runs it: a new Python process."""

import json
import os
import subprocess
import sys

import pytest

CHAPTER = "What time is it, and what is 17 * 23 + sqrt(144)?"


def agentlab(*args, env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AGENTLAB_"))}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "agentlab", *args], capture_output=True,
                          text=True, timeout=120, env=environment)


def test_run_answers_the_chapters_question_offline():
    result = agentlab("run", CHAPTER)
    assert result.returncode == 0, result.stderr
    assert "model: tutor (offline tutor), priced as gpt-4o-mini" in result.stdout
    assert "step 0: calling get_time" in result.stdout and "step 0: calling calculate" in result.stdout
    assert "answer: The time now (UTC) is" in result.stdout and "= 403." in result.stdout
    assert result.stderr == ""


def test_run_reports_a_limit_and_exits_1():
    result = agentlab("run", "What is 2 + 2?", "--model", "tutor-looper", "--max-steps", "2")
    assert result.returncode == 1
    assert "stopped: max_steps (the step limit of 2 was reached)" in result.stdout


def test_json_output_is_a_run_record():
    from agentlab import Run

    result = agentlab("run", CHAPTER, "--json")
    run = Run.from_json(result.stdout)
    assert run.stop_reason == "answered" and "403" in run.answer


@pytest.mark.parametrize("args, message", [
    (["run", "x", "--max-steps", "0"], "must be positive"),
    (["run", "x", "--max-cost", "lots"], "is not a float"),
    (["run", "x", "--model", "gpt-4o"], "needs a real API"),
    (["fly"], "invalid choice"),
])
def test_bad_input_gets_a_clear_error(args, message):
    result = agentlab(*args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_a_fake_key_never_reaches_the_output():
    key = "sk-proj-CLIfakeKEYfake0123456789abcdefXYZ"
    result = agentlab("run", CHAPTER, "--model", "tutor", env={"OPENAI_API_KEY": key})
    assert result.returncode == 0 and key not in result.stdout + result.stderr


def test_models_lists_the_personas():
    result = agentlab("models")
    assert result.stdout.splitlines()[0].startswith("tutor ") and "tutor-looper" in result.stdout
