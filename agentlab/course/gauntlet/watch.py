"""How the gauntlet watches a loop from outside: an instrumented client, instrumented tools,
captured output, and a thread with a timeout.

The grader never reads the student's code. It hands the loop a client and tools that record
everything that passes through them, then judges the records:

    WatchedClient   each request (the messages and tools sent), each response, what it cost
    watched_tools   each tool call (name, arguments), in the chapter's (schemas, impls) shape
    Capture         what the loop printed (stdout, stderr) or logged while it ran
    Trial           one run of the loop: the records above, plus what it returned or raised

Why a thread, not a subprocess: the student's function lives in a notebook's kernel and cannot
be sent to another process. The caveat: Python cannot kill a thread. A loop that overruns its
timeout is abandoned: it keeps running in the background until its next model or tool call,
where the watched client or tool raises GauntletStop (a BaseException, so `except Exception`
does not swallow it). A loop that spins without calling anything runs on until the kernel stops.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import logging
import sys
import threading
import time
from typing import Any

from agentlab.pricing import Unpriceable, estimate_cost
from agentlab.records import as_plain

# Log records from the HTTP stack describe the SDK's requests, not the student's loop.
NOT_THE_LOOP = ("openai", "httpx", "httpcore")


class GauntletStop(BaseException):
    """Raised into an abandoned loop at its next model or tool call, so its thread ends."""


@dataclasses.dataclass
class Request:
    """One model call the loop made, as the model received it."""

    messages: list[dict]
    tools: list[str]                    # the names of the tools offered
    output_before: int                  # characters the loop had printed or logged by then
    tool_choice: str | None = None      # "none": the loop asked for a final answer (wind-down)
    reply: dict | None = None           # the model's message
    cost_usd: float = 0.0
    error: str | None = None            # the API refused the request (the loop saw an exception)


class WatchedClient:
    """The client handed to the loop: `chat(model=..., messages=..., tools=...)` like agentlab's
    ChatClient, recording every request before passing it on."""

    def __init__(self, inner, output: Capture):
        self.inner, self.output = inner, output
        self.requests: list[Request] = []
        self.abandoned = False
        self.max_calls = 200  # a loop past this many calls is stopped, whatever the check

    def chat(self, model=None, messages=None, tools=None, **options):
        if self.abandoned or len(self.requests) >= self.max_calls:
            time.sleep(0.05)  # a loop that swallows even GauntletStop spins slowly, not hot
            raise GauntletStop("the gauntlet stopped watching this run")
        names = [(t.get("function") or t).get("name", "?")
                 for t in tools or [] if isinstance(t, dict)]
        choice = options.get("tool_choice")
        request = Request(messages=_copy(messages), tools=names, output_before=self.output.size(),
                          tool_choice=choice if isinstance(choice, str) else None)
        self.requests.append(request)
        try:
            response = self.inner.chat(model=model, messages=messages, tools=tools, **options)
        except Exception as e:
            request.error = f"{type(e).__name__}: {getattr(e, 'message', None) or e}"[:300]
            raise
        request.reply = _copy(response.message)
        try:
            request.cost_usd = estimate_cost(response)
        except Unpriceable:
            request.cost_usd = 0.0
        return response

    def __getattr__(self, name):  # default_model, priced_as, offline: as the real client has them
        return getattr(self.inner, name)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.requests)


def _copy(value: Any) -> Any:
    """A snapshot of what was sent: the loop may change its list after the call."""
    return copy.deepcopy(as_plain(value))


@dataclasses.dataclass
class ToolCallRecord:
    name: str
    arguments: dict


def watched_tools(tools: list, trial: Trial) -> tuple[list[dict], dict]:
    """The chapter's pair (schemas, implementations) for these tools, each call recorded.

    tools: HostileTool-like objects with .name, .schema and .function.
    """
    def watch(tool):
        def run(**arguments):
            if trial.abandoned:
                raise GauntletStop("the gauntlet stopped watching this run")
            trial.tool_calls.append(ToolCallRecord(tool.name, dict(arguments)))
            return tool.function(**arguments)
        run.__name__ = tool.name
        return run
    return [t.schema for t in tools], {t.name: watch(t) for t in tools}


class Capture(io.TextIOBase):
    """Collects what is written to stdout and stderr, and log records, during one check."""

    def __init__(self):
        self._parts: list[str] = []
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._parts.append(text)
        return len(text)

    def text(self) -> str:
        with self._lock:
            return "".join(self._parts)

    def size(self) -> int:
        return len(self.text())

    @contextlib.contextmanager
    def installed(self):
        """Route stdout, stderr and the log records that pass the loggers' levels here."""
        handler = _LogToCapture(self)
        root = logging.getLogger()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self
        root.addHandler(handler)
        try:
            yield self
        finally:
            root.removeHandler(handler)
            sys.stdout, sys.stderr = saved


class _LogToCapture(logging.Handler):
    def __init__(self, capture: Capture):
        super().__init__(logging.NOTSET)
        self.capture = capture

    def emit(self, record):
        if not record.name.startswith(NOT_THE_LOOP):
            self.capture.write(f"{record.levelname} {record.name}: {record.getMessage()}\n")


@dataclasses.dataclass
class Trial:
    """One run of the student's loop under one check."""

    client: WatchedClient
    output: Capture
    tool_calls: list[ToolCallRecord] = dataclasses.field(default_factory=list)
    finished: bool = False
    returned: Any = None
    raised: BaseException | None = None
    abandoned: bool = False
    library_runs: int = 0  # runs of agentlab.run_agent made inside this one

    @property
    def requests(self) -> list[Request]:
        return self.client.requests


def run_with_timeout(trial: Trial, run_agent, args: tuple, kwargs: dict, timeout: float,
                     on_abandon=()) -> Trial:
    """Call run_agent(*args, **kwargs) in a daemon thread; wait at most `timeout` seconds."""
    def target():
        try:
            trial.returned = run_agent(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - everything the loop raises is evidence
            trial.raised = e
        trial.finished = True

    with trial.output.installed():
        thread = threading.Thread(target=target, daemon=True, name="gauntlet-run")
        thread.start()
        thread.join(timeout)
    if not trial.finished:
        trial.abandoned = trial.client.abandoned = True
        for release in on_abandon:  # let hanging tools return, so the thread can reach a stop
            release()
    return trial
