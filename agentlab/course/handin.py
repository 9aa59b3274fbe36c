"""The hidden tests of a handed-in notebook: the capstone's rows and the exercise checks, run on
the student's code in a fresh Python process, so that nothing in the student's kernel counts.

    handin.capstone(run_agent, ["max_steps", "budget"])  # -> rows held: the cell's points
    handin.exercise("check_observe", observe)            # AssertionError unless it works

A graded cell's call pickles the student's function with cloudpickle (by value when it was
defined in the notebook, by reference when it is agentlab's: a patched agentlab module never
travels) and sends it to `python -I -m agentlab.course.handin`, a process that imports agentlab
anew from its installed files (-I: no PYTHONPATH, no user site, not the notebook's folder). It
runs the rows (gauntlet.grade, whose own LoopProcess runs the loop in a process of its own: the
grading process never even unpickles the loop) or the check, and answers with one line of JSON
that starts with a random token sent on the way in (a function that prints a forged verdict and
exits is not believed).

Run in a kernel, the call itself still runs there, after the student's cells: a cell that
patches the Python it runs on (importlib, json, subprocess) could make it print any score. So
nbgrader's autograde does not run these cells at all: agentlab.course.autograde reads which
verdict a cell asks for, asks the kernel only for the answers' bytes (show_answer), and calls
verdict() itself from the teacher's process, after the kernel is gone, in a sandbox
(agentlab.course.sandbox). Left out on purpose: an exercise function runs in the checking
process (as it runs in the notebook), beside the check that calls it, so one written to patch
that check (or to search the process for the token) could forge its own exercise's verdict,
never another's nor the capstone's; the formgrader shows every hand-in's code.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile

# What a kernel shows autograde: the answers' bytes, base64 (one display_data output)
ANSWER_TYPE = "application/vnd.agentlab.answer+base64"
TIME_LIMIT_S = 240  # a hidden test's fresh process at most; under nbgrader's 300 s for a cell
OUTPUT_LIMIT = 64 * 2**20  # bytes: the most a grading process writes to any one file


class HandInError(Exception):
    """The fresh process gave no verdict; the message says why."""


def capstone(run_agent, rows: list[str], *, seed: int | None = None) -> int:
    """The gauntlet's `rows` on run_agent, in a fresh process; prints each row held or broken
    and returns how many held (a graded cell's last value: its points, one per row).

    Example: capstone(run_agent, ["answers", "max_steps"]) prints "✓ answers" and
    "✗ max_steps: <the hint>", and returns 1.
    """
    header = capstone_header(rows, seed)
    print(f"grading {len(rows)} row{'s' * (len(rows) != 1)} in a fresh process ...", flush=True)
    text, points = capstone_said(rows, verdict(header, answer_bytes(header, run_agent)))
    print(text)
    return points


def exercise(check: str, *answers) -> None:
    """agentlab.course.checks' `check` on the student's answers, in a fresh process: prints the
    verdict if it works, raises AssertionError with it if not (the graded cell's error)."""
    header = exercise_header(check)
    print(f"{check}: checking in a fresh process ...", flush=True)
    ok, text = exercise_said(check, verdict(header, answer_bytes(header, *answers)))
    if not ok:
        raise AssertionError(text)
    print(text)


# What a graded cell asks, what travels, and what its verdict says: one definition for the
# cell run in a kernel (above) and for autograde, which asks from outside the kernel
# (agentlab.course.autograde).


def capstone_header(rows: list[str], seed: int | None = None) -> dict:
    return {"kind": "capstone", "rows": list(rows), "seed": seed}


def exercise_header(check: str) -> dict:
    return {"kind": "exercise", "check": check}


def answer_bytes(header: dict, *answers) -> bytes:
    """The answers a graded cell names, pickled to travel to the grading process."""
    with _local_modules_by_value():
        if header["kind"] == "capstone":
            from agentlab.course.gauntlet.boundary import pickled

            [run_agent] = answers
            return pickled(run_agent)
        return _pickled(answers)


@contextlib.contextmanager
def _local_modules_by_value():
    """A helper module of the student's own (a .py file beside the notebook) travels with the
    answers, by value: the grading process does not start in the notebook's folder (under
    autograde it cannot even see it). Installed modules (the environment's, the Python it was
    made from, agentlab) go by name, as always."""
    import cloudpickle

    from agentlab.course.gauntlet.carried import is_own_file

    registered = cloudpickle.list_registry_pickle_by_value()
    local = [module for module in list(sys.modules.values())
             if getattr(module, "__file__", None)
             and getattr(module, "__name__", "__main__") not in ("__main__", *registered)
             and is_own_file(module.__file__)]
    for module in local:
        cloudpickle.register_pickle_by_value(module)
    try:
        yield
    finally:
        registered = cloudpickle.list_registry_pickle_by_value()
        for module in local:
            if module.__name__ in registered:  # the loop's own module may be done with already
                cloudpickle.unregister_pickle_by_value(module)


def show_answer(header: dict, *answers) -> None:
    """In a kernel, for autograde (agentlab.course.autograde): the answers' bytes, shown as one
    output that the teacher's process reads; nothing is graded here."""
    import base64

    from IPython.display import display

    display({ANSWER_TYPE: base64.b64encode(answer_bytes(header, *answers)).decode()}, raw=True)


def capstone_said(rows: list[str], answer: dict) -> tuple[str, int]:
    """What the capstone's cell prints (a line a row) and its points (the rows held)."""
    lines = []
    for row in rows:
        held = row in answer["held"]
        hint = "" if held else f": {answer['hints'].get(row, '')}"
        lines.append(f"{'✓' if held else '✗'} {row}{hint}")
    return "\n".join(lines), sum(row in answer["held"] for row in rows)


def exercise_said(check: str, answer: dict) -> tuple[bool, str]:
    """Whether an exercise works, and what its cell says."""
    if answer["ok"]:
        return True, f"{check}: ✓ Works: {answer['message']}"
    return False, f"{check}: ✗ Not yet: {answer['message']}"


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


def verdict(header: dict, payload: bytes, sandbox=None) -> dict:
    """The grading process's answer to `header` on the pickled answers: started fresh, in
    `sandbox` when one is given (agentlab.course.sandbox), in an environment that holds no key
    or token; its answer believed only on the line that starts with the token."""
    from agentlab.course.sandbox import environment

    token = secrets.token_hex(16)
    message = json.dumps({**header, "token": token}).encode() + b"\n" + payload
    command = [sys.executable, "-I", "-m", "agentlab.course.handin"]
    # What the process prints goes to files, not to this process's memory: code under grading
    # may print without end (OUTPUT_LIMIT caps the files; past it the process is stopped).
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            done = subprocess.run(sandbox.wrap(command) if sandbox else command, input=message,
                                  stdout=out, stderr=err, timeout=TIME_LIMIT_S,
                                  env=environment(), start_new_session=True)
        except subprocess.TimeoutExpired:
            raise HandInError(f"no verdict within {TIME_LIMIT_S} s") from None
        out.seek(0)
        for line in out:
            if line.startswith(token.encode()):
                return json.loads(line[len(token):].decode(errors="replace"))
        err.seek(max(0, err.seek(0, os.SEEK_END) - 2000))
        said = err.read().decode(errors="replace").strip().splitlines()[-1:] or ["nothing"]
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


def _output_limited() -> None:
    """No file this process or its children write (its stdout and stderr among them) grows past
    OUTPUT_LIMIT: the writer is stopped there (RLIMIT_FSIZE, which code run here cannot raise)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
    except (ImportError, ValueError, OSError):  # not POSIX, or a lower limit already: keep it
        pass


def _not_inspectable() -> None:
    """No other process of this user (a hand-in's loop, run from here) may read this one's
    memory or open files, where the verdict's token is (Linux's PR_SET_DUMPABLE)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):  # not Linux: nothing to set
        pass


def main() -> int:
    _not_inspectable()
    _output_limited()
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
