"""The gauntlet's misbehaving models and hostile tools, scripted so every run is the same.

Each model is the misbehaviour of one of the tutor's personas (the looper, the hallucinator,
the sloppy one, ...) written as a fixed script: reply number n is decided by n alone, never by
the wording of what the loop sends back. So a check depends on what the loop does (its calls,
counts and costs), and the tutor's own wording can change without changing a grade. Every
script ends in a plain answer after a fixed number of replies: a loop without a step limit
still finishes.

A script is served through agentlab's offline server (server.make_transport(respond=...)), so
the loop meets the real API's rules: usage is reported by the tutor's token rule, an
unanswered tool call or a request body over 1 MB is refused with an HTTP error.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from collections.abc import Callable

from ..toolkit import safe_calculate


def tool_call(n: int, i: int, name: str, arguments) -> dict:
    """One tool call in reply n; arguments as a dict, or as raw (possibly broken) JSON text."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{n}_{i}", "type": "function",
            "function": {"name": name, "arguments": text}}


def asks(*calls: dict, content: str | None = None) -> dict:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def answers(text: str) -> dict:
    return {"role": "assistant", "content": text}


FINAL_ANSWER = "Here is my answer: all done."


def scripted(reply: Callable[[int], dict | None]) -> Callable:
    """A respond(model, messages, tools, tool_choice, **kw) function from reply(n).

    reply(n) gives the n-th reply (n = 0, 1, ...), or None for the final plain answer.
    tool_choice="none" is obeyed, as a real model would: it answers instead of calling.
    """
    counter = itertools.count()

    def respond(model, messages, tools, tool_choice, **options):
        n = next(counter)
        message = reply(n) if tool_choice != "none" else None
        return message or answers(FINAL_ANSWER)
    return respond


# ---------------------------------------------------------------------------------------------
# Hostile tools


@dataclasses.dataclass
class HostileTool:
    """A tool handed to the loop: its schema (what the model sees) and what runs."""

    name: str
    description: str
    parameters: dict
    function: Callable

    @property
    def schema(self) -> dict:
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}


def _one_string(name: str, description: str) -> dict:
    return {"type": "object", "properties": {name: {"type": "string", "description": description}},
            "required": [name]}


def calculator() -> HostileTool:
    """The chapter's calculate, well behaved: {"result": number}."""
    return HostileTool("calculate", "Evaluate a simple arithmetic expression.",
                       _one_string("expression", "for example 17 * 23"),
                       lambda expression: {"result": safe_calculate(expression)})


def order_lookup(broken: bool = False) -> HostileTool:
    """Looks up an order; broken=True raises, as a tool whose database is down would."""
    def lookup_order(order_id):
        if broken:
            raise RuntimeError(DATABASE_DOWN)
        return {"order_id": order_id, "status": "shipped"}
    return HostileTool("lookup_order", "Look up an order's status by its id.",
                       _one_string("order_id", "for example A-17"), lookup_order)


DATABASE_DOWN = "the orders database is unavailable"
FLOOD_CHARS = 1_000_000
_LOG_LINE = "2026-01-01 00:00:00 INFO request served in 12 ms\n"
FLOOD = (_LOG_LINE * (FLOOD_CHARS // len(_LOG_LINE) + 1))[:FLOOD_CHARS]
FLOOD_JSON = json.dumps(FLOOD) + FLOOD  # the log as a loop may send it: JSON or plain


def log_reader() -> HostileTool:
    """Returns a log of a million characters: far more than any prompt should carry."""
    return HostileTool("read_log", "Read a server log file.",
                       _one_string("name", "the log file's name"), lambda name: FLOOD)


def hanging_waiter(release: threading.Event, longest: float = 60.0) -> HostileTool:
    """Never returns on its own: it waits until the gauntlet releases it (or `longest` s)."""
    def wait_for_reply(ticket):
        release.wait(longest)
        return {"ticket": ticket, "reply": "none yet"}
    return HostileTool("wait_for_reply", "Wait for a reply to a support ticket.",
                       _one_string("ticket", "the ticket id"), wait_for_reply)


def parcel_tracker() -> HostileTool:
    """Always the same answer: asking again cannot help."""
    return HostileTool("track_parcel", "Track a parcel by its id.",
                       _one_string("parcel_id", "for example P-1"),
                       lambda parcel_id: {"parcel_id": parcel_id, "where": "in transit"})
