"""Where a student's loop runs while the gauntlet grades it: a fresh Python process of its own.

    python -m agentlab.course.gauntlet.runner READ_FD WRITE_FD   (started by boundary.py)

The grading process (boundary.py) sends the loop, then one run at a time: a task, the tools'
schemas, a model name and two limits. This process calls the loop with a client and tools whose
every call is a question to the grading process, which answers as the model or runs the tool,
and records what it saw. Nothing here knows which check is running, the seed, the draws or the
verdict: there is nothing to read in this process's frames or globals, and nothing to patch
that the grader uses. What this process sends is plain JSON, which the grader reads as data.

Per run, what the loop printed or logged (stdout, stderr, log records) goes along with its next
question, so the grader sees it in order with the calls (the observability check).

Left out on purpose: anything the loop writes to the file descriptors 1 and 2 directly (a C
library's output) is not seen; Python's print and logging are.
"""

from __future__ import annotations

import itertools
import json
import linecache
import logging
import multiprocessing.connection
import os
import pathlib
import pickle
import sys
import sysconfig
import threading
import time
import traceback
import types

from agentlab.models import Response
from agentlab.pricing import cost_usd
from agentlab.records import as_plain

from .watch import Capture

MODEL_PRICE = "gpt-4o-mini"  # what the grader charges at; the loop's estimate_cost reads it


class Grader:
    """The line to the grading process: questions go out as JSON, answers come back pickled
    (the grader is trusted; this process is not, so the grader never unpickles what it sends).
    Questions may come from several threads at once (a loop that runs a tool on a thread and
    gives up on it): each waits for its own answer."""

    def __init__(self, read_fd: int, write_fd: int):
        self.inbox = multiprocessing.connection.Connection(read_fd, writable=False)
        self.outbox = multiprocessing.connection.Connection(write_fd, readable=False)
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.waiting: dict[int, dict] = {}
        self.commands: list = []
        self.new_command = threading.Condition()
        self.capture = Capture()

    def send(self, message: dict) -> None:
        with self.lock:  # the output so far goes with the message, in order with the calls
            message["output"] = self.capture.take()
            self.outbox.send_bytes(json.dumps(message, default=repr).encode())

    def ask(self, message: dict):
        """Send a question and wait for its answer: ("ok", value) or ("raised", exception)."""
        slot = {"event": threading.Event()}
        message["id"] = number = next(self.ids)
        self.waiting[number] = slot
        self.send(message)
        slot["event"].wait()
        return slot["answer"]

    def read_forever(self) -> None:
        """Answers go to the thread that asked; anything else is a command for the main thread."""
        while True:
            try:
                message = pickle.loads(self.inbox.recv_bytes())
            except (EOFError, OSError):
                sys.exit(0)  # the grader is gone
            if "answers" in message:
                slot = self.waiting.pop(message["answers"])
                slot["answer"] = message["answer"]
                slot["event"].set()
            else:
                with self.new_command:
                    self.commands.append(message)
                    self.new_command.notify()

    def next_command(self) -> dict:
        with self.new_command:
            while not self.commands:
                self.new_command.wait()
            return self.commands.pop(0)


class GradedClient:
    """The client the loop is handed: `client.chat(model=..., messages=..., tools=...)` as
    agentlab's ChatClient, each call answered by the grading process as the model."""

    default_model = "tutor"
    offline = True

    def __init__(self, grader: Grader):
        self._grader = grader

    def priced_as(self, model: str | None = None) -> str:
        return MODEL_PRICE

    def chat(self, model: str | None = None, messages: list | None = None, tools=None, *,
             tool_choice=None, max_tokens: int | None = None, timeout: float | None = None,
             **other):
        body = {"model": model or self.default_model, "messages": as_plain(messages)}
        if tools:
            body["tools"] = as_plain(tools)
            if tool_choice is not None:
                body["tool_choice"] = tool_choice
        if max_tokens is not None:
            body["max_completion_tokens"] = max_tokens
        text = json.dumps(body)  # a value JSON cannot carry fails here, as in the SDK
        options = {"tool_choice": tool_choice, "max_tokens": max_tokens,
                   "timeout": timeout, "other": sorted(other)}
        start = time.perf_counter()
        kind, payload = self._grader.ask({"op": "chat", "body": text, "options": options})
        if kind == "raised":
            raise payload
        status, reply = payload
        if status != 200:
            raise _api_error(status, reply)
        choice = reply["choices"][0]
        message = {"role": "assistant", "content": choice["message"].get("content")}
        calls = choice["message"].get("tool_calls") or []
        if calls:
            message["tool_calls"] = calls
        return Response(message=message, tool_calls=[_namespace(c) for c in calls],
                        usage=_namespace(reply.get("usage")), model=reply.get("model") or model,
                        priced_as=MODEL_PRICE, latency_s=time.perf_counter() - start,
                        finish_reason=choice.get("finish_reason"), raw=reply)


def _namespace(value):
    """A JSON object as attributes, the way the SDK's objects read: call.function.name."""
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _namespace(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_namespace(v) for v in value]
    return value


def _api_error(status: int, reply):
    """The exception the SDK raises for this refusal (openai.BadRequestError for a 400, ...),
    with the API's message; imported only here, where a loop made the API refuse."""
    import httpx
    import openai

    message = ((reply or {}).get("error") or {}).get("message") if isinstance(reply, dict) else None
    request = httpx.Request("POST", "http://tutor.agentlab.invalid/v1/chat/completions")
    response = httpx.Response(status, request=request, json=reply)
    kinds = {400: openai.BadRequestError, 404: openai.NotFoundError,
             413: openai.APIStatusError, 422: openai.UnprocessableEntityError}
    return kinds.get(status, openai.APIStatusError)(
        f"Error code: {status} - {message or reply}", response=response, body=reply)


def watched_tools(grader: Grader, names: list[str]) -> dict:
    """The chapter's tool_impls: each function asks the grading process to run its tool."""
    def tool(name):
        def run(**arguments):
            kind, value = grader.ask({"op": "tool", "name": name, "arguments": arguments})
            if kind == "raised":
                raise value
            return value
        run.__name__ = name
        return run
    return {name: tool(name) for name in names}


class LibraryRuns:
    """Counts runs of agentlab.run_agent inside the loop, however it reached it: its step
    book-keeping (agentlab.loop.Steps) is made once a run. A loop in this process could undo
    this; the grader also knows the library's loop by the calls it makes (boundary.py)."""

    def __init__(self):
        self.count = 0

    def install(self) -> None:
        from agentlab import loop

        original, runs = loop.Steps, self

        class Counted(original):
            def __init__(self, *args, **kwargs):
                runs.count += 1
                super().__init__(*args, **kwargs)
        loop.Steps = Counted


def result_of(returned) -> dict:
    """What the loop returned, as JSON the grader reads: text as it is, anything else named."""
    if isinstance(returned, str):
        return {"type": "str", "text": returned}
    try:
        shown = repr(returned)[:300]
    except Exception:  # noqa: BLE001 - a repr that raises is still something returned
        shown = f"<a {type(returned).__name__}>"
    return {"type": type(returned).__name__, "repr": shown}


def exception_of(error: BaseException) -> dict:
    try:
        text = str(error)[:300]
    except Exception:  # noqa: BLE001
        text = "(its message could not be read)"
    return {"type": type(error).__name__, "message": text,
            "not_implemented": isinstance(error, NotImplementedError),
            "where": where_raised(error)}


# Code that is not the student's: this package (the client and tools the loop is handed), the
# standard library and installed packages (openai, httpx). Where an exception left the
# student's code is the innermost frame of its traceback outside these.
NOT_THE_STUDENTS = tuple(sorted({os.path.join(folder, "") for folder in (
    str(pathlib.Path(__file__).resolve().parents[2]),
    *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")))}))


def where_raised(error: BaseException) -> dict | None:
    """The innermost line of the student's code that the exception came through: its function,
    line number and file, and the line's text if this process can read it. None if no frame
    is theirs. A function sent by value (cloudpickle: a notebook's, a helper module's) keeps
    its name and line numbers but not its file ("<dynamic-code>"): the grader, which holds the
    function as written, finds its code by them (checks.py).

    Example: a KeyError raised in my_loop's `tool_impls[name]` -> {"function": "my_loop",
             "first_line": 1, "line": 14, "file": "<dynamic-code>", "code": ""}
    """
    try:
        frames = [(frame.f_code, line) for frame, line in traceback.walk_tb(error.__traceback__)
                  if not frame.f_code.co_filename.startswith(("<frozen ", *NOT_THE_STUDENTS))]
        if not frames:
            return None
        code, line = frames[-1]
        return {"function": code.co_name, "first_line": code.co_firstlineno, "line": line,
                "file": code.co_filename,
                "code": linecache.getline(code.co_filename, line).strip()[:200]}
    except Exception:  # noqa: BLE001 - a traceback that cannot be read: the rest still goes
        return None


def main(read_fd: int, write_fd: int) -> None:
    grader = Grader(read_fd, write_fd)
    threading.Thread(target=grader.read_forever, daemon=True, name="grader-line").start()
    setup = grader.next_command()
    sys.path[:0] = [p for p in setup["path"] if p not in sys.path]
    for name, level in setup["log_levels"].items():  # the notebook's logging levels
        logging.getLogger(name or None).setLevel(level)
    import cloudpickle  # noqa: F401 - loads what the loop was pickled with

    loop = pickle.loads(setup["loop"])
    # The first price lookup loads the price database (0.2 s, seconds on a busy machine): paid
    # here, before the grader's clock starts, not in a run's first call against its timeout.
    cost_usd(MODEL_PRICE, 1, 1)

    library = LibraryRuns()
    library.install()
    grader.send({"op": "ready"})
    while True:
        run = grader.next_command()
        before = library.count
        client = GradedClient(grader)
        impls = watched_tools(grader, run["names"])
        outcome: dict = {"op": "done"}
        with grader.capture.installed():
            try:
                outcome["returned"] = result_of(loop(run["task"], run["schemas"], impls, client,
                                                     run["model"], max_steps=run["max_steps"],
                                                     max_cost_usd=run["max_cost_usd"]))
            except BaseException as e:  # noqa: BLE001 - how the loop ended is evidence
                outcome["raised"] = exception_of(e)
        outcome["library_runs"] = library.count - before
        grader.send(outcome)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
