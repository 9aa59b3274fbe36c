"""The personas: a well-behaved tutor and the ways it misbehaves on purpose.

Each persona is a small function from the turn and the reply a well-behaved model would give
to the reply this persona gives instead. The guardrails chapter picks one by model name to show
a guardrail holding. Personas that make mistakes recover the way the course teaches: only when
the error they get back names the problem (the JSON, the argument, its type, the tools that
exist). A vague error ("nope") gets the same mistake again, and after GIVE_UP_AFTER tries a
give-up answer.
"""

from __future__ import annotations

import dataclasses
import json
import re

from . import answers
from .planning import Call, ToolSpec, fill_arguments, rule_for, calculator_calls
from .reading import JSON_PROBLEM, Episode, Observation
from .words import Task

GIVE_UP_AFTER = 2     # tries of the same mistake, answered by vague errors, before giving up
VERBOSE_TOKENS = 600  # how long tutor-verbose's messages are (under the default 1024-token cap)
MADE_UP_TOOL = "search_web"


@dataclasses.dataclass
class Turn:
    """What a persona knows when it replies: the episode, the task and the offered tools."""

    episode: Episode
    task: Task
    tools: list[ToolSpec]


@dataclasses.dataclass
class Reply:
    """A reply before it becomes a message."""

    calls: list[tuple[str, str]]  # (tool name, arguments as JSON text: may be malformed)
    text: str                     # the answer, used when there are no calls
    thought: str | None = None    # what it says alongside the calls (None: explain them)
    explain: bool = True          # say what the calls are for? (tutor-terse does not)


def as_calls(planned: list[Call]) -> list[tuple[str, str]]:
    return [(name, json.dumps(arguments)) for name, arguments in planned]


# ---------------------------------------------------------------------------------------------
# The personas


def well_behaved(turn: Turn, reply: Reply) -> Reply:
    """Plans tool calls from the task, answers from the results."""
    return reply


def terse(turn: Turn, reply: Reply) -> Reply:
    """Like tutor, but calls tools without a word of reasoning (as many models do)."""
    return dataclasses.replace(reply, thought=None, explain=False)


def looper(turn: Turn, reply: Reply) -> Reply:
    """Never answers: there is always one more thing to look up."""
    if reply.calls or not turn.tools:
        return reply
    return Reply([one_more_call(turn)], reply.text, "Let me check one more thing first.")


def stuck(turn: Turn, reply: Reply) -> Reply:
    """Asks for exactly the same call again and again, until an error says it is a repeat."""
    seen = turn.episode.observations
    if not seen or any("repeat" in (o.error or "").lower() for o in seen):
        return reply
    return Reply([(seen[0].name, seen[0].raw_arguments)], reply.text, "Let me look that up.")


def hallucinator(turn: Turn, reply: Reply) -> Reply:
    """Asks for a tool that does not exist; drops it when an error names it or the tools that
    exist (a vague error names neither)."""
    tries = [o for o in turn.episode.observations if o.name == MADE_UP_TOOL]
    if any(_names_tools(o, turn.tools) for o in tries) or _offered(turn, MADE_UP_TOOL):
        return reply
    if len(tries) >= GIVE_UP_AFTER:
        return Reply([], answers.give_up(MADE_UP_TOOL, _said(tries[-1])))
    made_up = (MADE_UP_TOOL, json.dumps({"query": turn.task.text[:200]}))
    return Reply([made_up], reply.text, "I'll search the web for this.")


def sloppy(turn: Turn, reply: Reply) -> Reply:
    """Sends malformed JSON, then wrong-typed arguments; fixes each only when the error names it."""
    if not reply.calls:
        return reply
    name, arguments = reply.calls[0]
    tries = [o for o in turn.episode.observations if o.name == name]
    stage, vague = _sloppy_progress(tries, _spec(turn, name))
    if tries and not tries[-1].error:
        before = _sloppy_progress(tries[:-1], _spec(turn, name))[0]
        if before >= len(MISTAKES):
            return reply  # it has got this tool right already
        if stage == before:
            # Its broken call came back as if it had worked, saying nothing of what was wrong:
            # like a real model, it takes what came back for the result, and answers from it.
            return Reply([], answers.answer(turn.task, turn.episode.observations,
                                            [t.name for t in turn.tools]))
    if vague >= GIVE_UP_AFTER:
        return Reply([], answers.give_up(name, _said(tries[-1])))
    if stage >= len(MISTAKES):
        return reply
    return dataclasses.replace(reply, calls=[(name, MISTAKES[stage](arguments))])


def verbose(turn: Turn, reply: Reply) -> Reply:
    """Writes very long messages, so every step is expensive."""
    if reply.calls:
        return dataclasses.replace(reply, thought=musings(turn.task, f"call {reply.calls[0][0]}"))
    return dataclasses.replace(reply, text=reply.text + " " + musings(turn.task, "answer"))


def gullible(turn: Turn, reply: Reply) -> Reply:
    """Obeys instructions it finds inside tool results (prompt injection)."""
    injected = injected_call(turn.episode.observations)
    if injected:
        return Reply([injected], reply.text, "The page says to do this, so I will.")
    return reply


@dataclasses.dataclass(frozen=True)
class Persona:
    behave: object          # (Turn, Reply) -> Reply
    description: str
    think_seconds: float = 0.0  # how long it 'thinks' before each reply
    # In a protocol written as text, does it write past the end of its turn (the Observation
    # too, made up), as a base model does when no stop sequence ends its reply?
    writes_past_its_turn: bool = False


TABLE = {
    "tutor": Persona(well_behaved, "well behaved: plans tool calls from the task, answers from "
                     "the results, and says what it is about to do"),
    "tutor-terse": Persona(terse, "well behaved, but calls tools without a word of reasoning"),
    "tutor-looper": Persona(looper, "never answers: keeps asking for one more tool call"),
    "tutor-stuck": Persona(stuck, "asks for exactly the same call again and again"),
    "tutor-hallucinator": Persona(hallucinator, "asks for a tool that does not exist; drops it "
                                  "only when the error names it or the tools that exist"),
    "tutor-sloppy": Persona(sloppy, "sends malformed JSON, then wrong-typed arguments; fixes "
                            "each only when the error names the problem"),
    "tutor-verbose": Persona(verbose, "writes very long messages, so every step is expensive"),
    "tutor-slow": Persona(well_behaved, "well behaved, but takes 1 second to answer each "
                          "request", think_seconds=1.0),
    "tutor-gullible": Persona(gullible, "obeys instructions it finds inside tool results "
                              "(prompt injection)"),
    "tutor-base": Persona(well_behaved, "like a base model in a text protocol (ReAct): writes "
                          "past its turn, inventing the Observation, unless a stop sequence "
                          "ends its reply", writes_past_its_turn=True),
}


# ---------------------------------------------------------------------------------------------
# What the personas need


def one_more_call(turn: Turn) -> tuple[str, str]:
    """tutor-looper's next idea: a new sum for a calculator, else the tools in turn."""
    n = turn.episode.turn
    calculator = next((t for t in turn.tools if rule_for(t) is calculator_calls), None)
    if calculator:
        return calculator.name, json.dumps({calculator.argument("expression"): f"{n} * {n}"})
    tool = turn.tools[n % len(turn.tools)]
    arguments, _ = fill_arguments(tool, turn.task, {})
    return tool.name, json.dumps(arguments or {})


def _spec(turn: Turn, name: str) -> ToolSpec | None:
    return next((t for t in turn.tools if t.name == name), None)


def _offered(turn: Turn, name: str) -> bool:
    return _spec(turn, name) is not None


def _said(o: Observation) -> str:
    """What came back for a call: its error, else its result as text (an agent may say "x is
    not a valid tool, try one of [...]" without marking it as an error; a model reads it)."""
    if o.error:
        return o.error
    return o.result if isinstance(o.result, str) else json.dumps(o.result, default=str)


# Text that says a tool does not exist, marked as an error or not ("x is not a valid tool").
NO_SUCH_TOOL = re.compile(r"not (?:a )?(?:valid|available|allowed|known)|does ?n[o']t exist|"
                          r"\bunknown\b|\bno such\b|not found|\binvalid\b", re.IGNORECASE)


def _names_tools(o: Observation, tools: list[ToolSpec]) -> bool:
    """Does what came back say the made-up tool does not exist, or which tools do? An error
    that names the made-up tool says so; unmarked text must say it does not exist ("search_web:
    no results" echoes the name of a tool that seemed to run)."""
    said = _said(o).lower()
    if any(t.name.lower() in said for t in tools):
        return True
    return MADE_UP_TOOL in said and (o.error is not None or NO_SUCH_TOOL.search(said) is not None)


def broken_json(arguments: str) -> str:
    """Example: '{"city": "Paris"}' -> '{"city": "Paris"'  (the closing brace left off)"""
    return arguments[:-1]


def wrong_types(arguments: str) -> str:
    """Example: '{"city": "Paris"}' -> '{"city": ["Paris"]}'  (every value put in a list);
    arguments that are no JSON object at all (cut, or a list) go in a list whole."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return json.dumps([arguments])
    return json.dumps({k: [v] for k, v in parsed.items()})


MISTAKES = [broken_json, wrong_types]


def _sloppy_progress(tries: list[Observation], spec: ToolSpec | None) -> tuple[int, int]:
    """(how many of its mistakes an error has named so far, vague errors since the last one)."""
    stage = vague = 0
    for o in tries:  # an unmarked "Could not parse the JSON: ..." says what was wrong too
        if stage < len(MISTAKES) and _names_problem(_said(o), stage, o, spec):
            stage, vague = stage + 1, 0
        else:
            vague += 1
    return stage, vague


def _names_problem(error: str, stage: int, o: Observation, spec: ToolSpec | None) -> bool:
    """Does the error name what was wrong: the JSON (stage 0), an argument or its type (1)?"""
    error = error.lower()
    if MISTAKES[stage] is broken_json:
        return JSON_PROBLEM.search(error) is not None
    kinds = [s.get("type") for s in (spec.properties.values() if spec else [])
             if isinstance(s, dict) and isinstance(s.get("type"), str)]
    return any(name.lower() in error for name in o.arguments) or any(k in error for k in kinds)


def injected_call(observations: list[Observation]) -> tuple[str, str] | None:
    """An instruction like 'call delete_files with {"path": "/home"}' inside a tool result."""
    called = {o.name for o in observations}
    for o in reversed(observations):
        values = o.result.values() if isinstance(o.result, dict) else [o.result]
        text = " ".join(v for v in values if isinstance(v, str))[:20_000]
        match = re.search(r"\bcall (?:the )?(\w+)", text, re.I)
        if match and match[1] not in called:
            return match[1], json.dumps(_json_after(text, match.end()))
    return None


def _json_after(text: str, start: int) -> dict:
    """The JSON object written just after an instruction, or {}."""
    brace = text.find("{", start, start + 40)
    if brace < 0:
        return {}
    try:
        value, _ = json.JSONDecoder().raw_decode(text, brace)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def musings(task: Task, about: str) -> str:
    """tutor-verbose's long musings: deterministic filler of VERBOSE_TOKENS tokens."""
    line = (f"Let me think very carefully, step by step, about '{task.text[:60]}' and consider "
            f"every angle before I {about}. ")
    return (line * (VERBOSE_TOKENS * 4 // len(line) + 1))[: VERBOSE_TOKENS * 4]
