"""The hidden tests of a handed-in notebook: the capstone's rows and the exercise checks, run on
the student's code in a fresh Python process, so that nothing in the student's kernel counts.

    handin.capstone(run_agent, ["max_steps", "budget"])  # -> rows held: the cell's points
    handin.exercise("check_observe", observe)            # AssertionError unless it works

nbgrader's autograde runs the handed-in notebook again in a fresh kernel, so a report edited
in the saved notebook counts for nothing. But the student's own cells run first in that kernel:
a cell that redefines grade() or a check, or patches agentlab.course.gauntlet or
agentlab.course.checks, has done so before the hidden tests run. So the tests do not grade in
the kernel. They pickle the student's function with cloudpickle (by value when it was defined
in the notebook, by reference when it is agentlab's: a patched agentlab module never travels)
and send it to `python -I -m agentlab.course.handin`, a process that imports agentlab anew from
its installed files (-I: no PYTHONPATH, no user site, not the notebook's folder). It runs the
rows (gauntlet.grade, whose own LoopProcess runs the loop in a process of its own: the grading
process never even unpickles the loop) or the check, and answers with one line of JSON.

The answer line starts with a random token sent on the way in, so a function under an exercise
check that prints a forged verdict and exits is not believed. Left out on purpose: an exercise
function runs in the checking process (as it runs in the notebook); one written to search that
process's memory for the token, or a kernel rewritten below Python (an IPython hook that hides
errors, a patched subprocess module) is beyond what a hidden test can stop. The formgrader shows
every handed-in notebook's code to the teacher.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys

TIME_LIMIT_S = 240  # a hidden test's fresh process at most; under nbgrader's 300 s for a cell


class HandInError(Exception):
    """The fresh process gave no verdict; the message says why."""


def capstone(run_agent, rows: list[str], *, seed: int | None = None) -> int:
    """The gauntlet's `rows` on run_agent, in a fresh process; prints each row held or broken
    and returns how many held (a graded cell's last value: its points, one per row).

    Example: capstone(run_agent, ["answers", "max_steps"]) prints "✓ answers" and
    "✗ max_steps: <the hint>", and returns 1.
    """
    from agentlab.course.gauntlet.boundary import pickled

    answer = _in_a_fresh_process({"kind": "capstone", "rows": list(rows), "seed": seed},
                                 pickled(run_agent))
    for row in rows:
        held = row in answer["held"]
        hint = "" if held else f": {answer['hints'].get(row, '')}"
        print(f"{'✓' if held else '✗'} {row}{hint}")
    return sum(row in answer["held"] for row in rows)


def exercise(check: str, *answers) -> None:
    """agentlab.course.checks' `check` on the student's answers, in a fresh process: prints the
    verdict if it works, raises AssertionError with it if not (the graded cell's error)."""
    answer = _in_a_fresh_process({"kind": "exercise", "check": check}, _pickled(answers))
    if not answer["ok"]:
        raise AssertionError(f"{check}: ✗ Not yet: {answer['message']}")
    print(f"{check}: ✓ Works: {answer['message']}")


def _pickled(answers: tuple) -> bytes:
    """The answers, pickled by value where the notebook defined them. A client they use (the
    notebook's `connect()`, or its openai SDK) cannot travel: the checking process gets the
    offline tutor's instead, as every exercise check uses the tutor."""
    import io

    import cloudpickle
    import openai

    from agentlab.models import ChatClient

    class AnswerPickler(cloudpickle.Pickler):
        def reducer_override(self, obj):
            if isinstance(obj, ChatClient):
                return _tutor, ()
            if isinstance(obj, openai.OpenAI):
                return _tutor_sdk, ()
            return super().reducer_override(obj)

    buffer = io.BytesIO()
    try:
        AnswerPickler(buffer).dump(tuple(answers))
    except Exception as e:  # noqa: BLE001 - any reason it cannot go is the student's to fix
        from agentlab.course.gauntlet.boundary import why_it_cannot_travel

        raise AssertionError("your answer could not be sent to the fresh process that grades "
                             f"it {why_it_cannot_travel(e, 'your function')}") from None
    return buffer.getvalue()


def _tutor():
    from agentlab.models import connect

    return connect("tutor")


def _tutor_sdk():
    return _tutor().sdk


def _in_a_fresh_process(header: dict, payload: bytes) -> dict:
    token = secrets.token_hex(16)
    message = json.dumps({**header, "token": token}).encode() + b"\n" + payload
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    try:
        done = subprocess.run([sys.executable, "-I", "-m", "agentlab.course.handin"],
                              input=message, capture_output=True, timeout=TIME_LIMIT_S, env=env,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        raise HandInError(f"no verdict within {TIME_LIMIT_S} s") from None
    for line in done.stdout.decode(errors="replace").splitlines():
        if line.startswith(token):
            return json.loads(line[len(token):])
    said = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["nothing"]
    raise HandInError(f"the grading process gave no verdict (exit code {done.returncode}): "
                      f"{said[0][:300]}")


# --- the fresh process's side -----------------------------------------------------------------


def _grade_rows(header: dict, payload: bytes) -> dict:
    """The rows, graded here; the loop is unpickled only in its own process (boundary.py)."""
    from agentlab.course.gauntlet import grade
    from agentlab.course.gauntlet.boundary import PickledLoop

    report = grade(PickledLoop(payload), only=header["rows"], seed=header.get("seed"))
    return {"held": report.held,
            "hints": {e.name: e.hint or e.loop for e in report.entries if not e.held}}


def _run_check(header: dict, payload: bytes) -> dict:
    import pickle

    from agentlab.course import checks

    name = header["check"]
    if not (name.startswith("check_") and name in checks.__all__):
        return {"ok": False, "message": f"no exercise check named {name!r}"}
    answers = pickle.loads(payload)  # the student's code, run here as in their notebook
    verdict = getattr(checks, name)(*answers)
    return {"ok": bool(verdict.ok), "message": str(verdict.message)}


def main() -> int:
    line, _, payload = sys.stdin.buffer.read().partition(b"\n")
    header = json.loads(line)
    token = header.pop("token")
    # Only this copy of stdout carries the verdict; whatever the grading prints goes to stderr.
    verdict_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    with contextlib.redirect_stdout(sys.stderr):
        grader = _grade_rows if header["kind"] == "capstone" else _run_check
        answer = grader(header, payload)
    verdict_out.write(token + json.dumps(answer) + "\n")
    verdict_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
