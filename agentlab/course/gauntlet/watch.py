"""What the gauntlet records of a loop's run, and the capture of what the loop printed.

A row's verdict comes from these records, never from reading the student's code (read only to
tell agentlab.run_agent's loop, carried.py). The loop runs in a process of its own (runner.py),
and every model call and tool call it makes is a question answered by the grading process
(boundary.py), which records it:

    Request         one model call: the messages and tools sent, the reply, what it cost
    ToolCallRecord  one tool call: the tool's name and arguments
    Capture         what the loop printed (stdout, stderr) or logged while it ran
    Trial           one run of the loop: the records above, plus what it returned or raised
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import sys
import threading
from typing import Any


# Log records from the HTTP stack describe the SDK's requests, not the student's loop.
NOT_THE_LOOP = ("openai", "httpx", "httpcore")


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
    library: bool = False               # made the way agentlab.run_agent makes its calls


@dataclasses.dataclass
class ToolCallRecord:
    name: str
    arguments: dict


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

    def take(self) -> str:
        """What was written since the last take (the loop's process sends it in pieces)."""
        with self._lock:
            text, self._parts = "".join(self._parts), []
        return text

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
    """One run of the student's loop under one check, as the grading process recorded it."""

    requests: list[Request] = dataclasses.field(default_factory=list)
    tool_calls: list[ToolCallRecord] = dataclasses.field(default_factory=list)
    output: Capture = dataclasses.field(default_factory=lambda: Capture())
    finished: bool = False
    returned: Any = None
    raised: BaseException | None = None
    abandoned: bool = False
    library_runs: int = 0  # runs of agentlab.run_agent the loop's process counted
    library_code: str = ""  # how the loop's code reaches agentlab.run_agent (carried.py)
    task: str = ""                 # the user message this run was given
    # what earlier runs in the same process were given: their tasks and the model's replies
    earlier_tasks: list[str] = dataclasses.field(default_factory=list)
    earlier_replies: list[dict] = dataclasses.field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.requests)

    @property
    def left_over(self) -> int:
        """How many messages of an earlier run this run's first model call was sent: an earlier
        run's task, or a reply the model gave in an earlier run. Only a messages list made
        outside run_agent, kept between its calls, sends them; a prompt or examples of the
        loop's own are neither."""
        if not self.requests:
            return 0
        said = {_said(reply) for reply in self.earlier_replies}
        return sum(_from_before(m, self.task, self.earlier_tasks, said)
                   for m in self.requests[0].messages)

    @property
    def library(self) -> bool:
        """The run was the library's loop: read in the code it was sent with, counted in the
        loop's process, or seen here by the calls it made."""
        return (bool(self.library_code) or bool(self.library_runs)
                or any(r.library for r in self.requests))


def _said(message: dict) -> tuple:
    """What an assistant message says: its text and its calls, as (name, arguments).

    Example: {"content": None, "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}
             -> ("", (("f", "{}"),))
    """
    calls = message.get("tool_calls")
    calls = calls if isinstance(calls, list) else []
    functions = [c.get("function") if isinstance(c, dict) else None for c in calls]
    return (str(message.get("content") or ""), tuple(
        (str(f.get("name")), str(f.get("arguments"))) if isinstance(f, dict) else ("", "")
        for f in functions))


def _from_before(message, task: str, earlier_tasks: list[str], said: set) -> bool:
    """A message in a run's first model call that an earlier run left (see Trial.left_over).

    Example: {"role": "user", "content": <an earlier run's task>} -> True;
             {"role": "user", "content": <this run's task>} -> False;
             {"role": "assistant", ...} -> True if the model said it in an earlier run
    """
    if not isinstance(message, dict):
        return False
    if message.get("role") == "assistant":
        return _said(message) in said
    content = message.get("content")
    text = content if isinstance(content, str) else repr(content)
    return message.get("role") == "user" and task not in text and any(
        earlier in text for earlier in earlier_tasks)
