"""The gauntlet's misbehaving models and hostile tools, scripted so a run depends on the loop.

Each model is the misbehaviour of one of the tutor's personas (the looper, the hallucinator,
the sloppy one, ...) written as a script: reply number n is decided by n and by the grade's
draws (draws.py: names, arguments, reply lengths), never by the wording of what the loop sends
back. Each hostile behaviour (a hang, a flood, an exception) is put behind a drawn name by
one_argument_tool, so a name tells the loop nothing. So a check depends on what the loop does
(its calls, counts and costs), and the tutor's own wording can change without changing a
grade. Every script ends in a plain answer after a fixed number of replies: a loop without a
step limit still finishes.

A script is served through agentlab's offline server (server.handle(..., respond=...)), so
the loop meets the real API's rules: usage is reported by the tutor's token rule, an
unanswered tool call or a request body over 1 MB is refused with an HTTP error.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from collections.abc import Callable

from agentlab.toolkit import safe_calculate


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


def reading(reply: Callable[[int, list], dict | None]) -> Callable:
    """Like scripted, but reply(n, messages) also reads the conversation it is sent, as a real
    model does: what it answers can depend on what the loop kept of earlier steps."""
    counter = itertools.count()

    def respond(model, messages, tools, tool_choice, **options):
        n = next(counter)
        message = reply(n, messages) if tool_choice != "none" else None
        return message or answers(FINAL_ANSWER)
    respond.reads_the_conversation = True
    return respond


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


def one_argument_tool(name: str, argument: str, description: str,
                      behaviour: Callable) -> HostileTool:
    """A tool `name(argument)` whose result is behaviour(value): the gauntlet draws the names, so
    the same behaviour (a hang, a flood, an exception) can hide behind any of them."""
    def run(**arguments):
        if set(arguments) != {argument}:
            raise TypeError(f"{name}() takes one argument, {argument!r}; got {sorted(arguments)}")
        return behaviour(arguments[argument])
    return HostileTool(name, description, _one_string(argument, f"the {argument} to use"), run)


def calculator() -> HostileTool:
    """The chapter's calculate, well behaved: {"result": number} (the grader's warm-up call)."""
    return HostileTool("calculate", "Evaluate a simple arithmetic expression.",
                       _one_string("expression", "for example 17 * 23"),
                       lambda expression: {"result": safe_calculate(expression)})


def hangs(release: threading.Event, longest: float = 60.0) -> Callable:
    """A behaviour that never returns on its own: it waits until the gauntlet releases it (or
    `longest` seconds)."""
    def wait(value):
        release.wait(longest)
        return {"value": value, "status": "none yet"}
    return wait


def flood_text(lines: list[str], chars: int) -> str:
    """A log of exactly `chars` characters, its lines repeated: far more than a prompt carries."""
    block = "".join(line + "\n" for line in lines)
    return (block * (chars // len(block) + 1))[:chars]
