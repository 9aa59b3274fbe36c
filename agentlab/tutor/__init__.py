"""The offline tutor: a small, scripted stand-in for a language model.

It reads a chat-completions request and returns what a model would: tool calls with a sentence
saying why, or an answer written from the tools' results. It knows only what the request says
(messages, tools, options): no data of its own, no imports from the toolkit or the loop.

    reading.py      the conversation -> the task and what the tools said (lenient, linear time)
    words.py        what a task names: places, numbers, quoted text, a time zone
    expressions.py  the arithmetic in a sentence, found in linear time
    planning.py     which tool calls the task needs next
    answers.py      sentences from results; the reasoning sentence before calls
    structured.py   JSON for response_format and for "final answer" tools
    text_protocols.py  tools described in the prompt (ReAct, code actions), read and written
    personas.py     the well-behaved tutor and its misbehaving twins, one small function each
    variance.py     how it strays when asked for temperature > 0 (rates documented there:
                    extra step 20%, wrong first tool 10%, malformed argument 10% at
                    temperature 1, scaled by temperature up to 2; reproducible with a seed)
    tokens.py       the token rule the server bills by

The request's protocol fields are honoured as the API documents them: tool_choice "none",
"auto", "required" (at least one call) or a named function (only that tool);
parallel_tool_calls=False (at most one call per reply; the next turn plans the rest);
response_format json_object and json_schema (the answer is JSON fitting the schema, and calls
carry no reasoning text then, so a client parsing content as JSON never sees prose).
A tool's name is read by its function part where a framework prefixes it with a plugin
(Semantic Kernel's "WeatherPlugin-get_weather").

Left out on purpose: any real language understanding. The tutor is a teaching prop.
"""

from __future__ import annotations

import dataclasses
import json

from . import answers, planning, structured, text_protocols
from .personas import TABLE, VERBOSE_TOKENS, Reply, Turn, as_calls
from .planning import ToolSpec, is_output_tool, tool_specs
from .reading import field, read
from .tokens import completion_tokens, count_tokens, message_tokens, text_tokens
from .variance import Dice
from .words import Task

PERSONAS = {name: persona.description for name, persona in TABLE.items()}


def think_seconds(model: str) -> float:
    """How long the persona 'thinks' before it answers (the server waits that long)."""
    return TABLE[model].think_seconds if model in TABLE else 0.0


def respond(model: str, messages: list[dict], tools: list[dict] | None = None,
            tool_choice=None, *, parallel_tool_calls: bool = True, response_format=None,
            temperature: float | None = None, seed: int | None = None) -> dict:
    """The tutor's next assistant message for this conversation (a chat-completions message).

    The arguments are the request's fields of the same names, already checked by the server.
    """
    protocol = text_protocols.read_protocol(messages, tools)
    if protocol:  # tools described in the prompt: read as if they were sent natively
        messages, tools, parallel_tool_calls = protocol.messages, protocol.tools, (
            protocol.kind == "code")
    episode = read(messages)
    turn = Turn(episode, Task(episode.task), tool_specs(tools))
    reply = well_behaved_reply(turn)
    reply = stray(reply, Dice(temperature, seed, messages), turn)
    reply = TABLE.get(model, TABLE["tutor"]).behave(turn, reply)
    reply = follow_tool_choice(reply, turn, tool_choice, parallel_tool_calls)
    if protocol:
        thought = _reasoning(reply, turn, False) if reply.calls else None
        output_tools = {t.name for t in turn.tools if is_output_tool(t)}
        past_its_turn = TABLE.get(model, TABLE["tutor"]).writes_past_its_turn
        return {"role": "assistant", "content": protocol.write(
            reply.calls, thought, reply.text, output_tools, past_its_turn)}
    return as_message(reply, turn, response_format, messages)


def well_behaved_reply(turn: Turn) -> Reply:
    """The calls the task needs next, or the answer (through an answer tool, if one is offered)."""
    seen = turn.episode.observations
    names = [t.name for t in turn.tools]
    plan = planning.plan(turn.task, turn.tools, seen)
    if plan.calls:
        return Reply(as_calls(plan.calls), answers.answer(turn.task, seen, names))
    if plan.missing and not seen:  # a tool fits, but the task leaves out an argument
        return Reply([], answers.ask_for(*plan.missing[0]))
    # The answer the conversation already ends with, if any: a client asking for it again,
    # formatted (LlamaIndex's output_cls sends the whole run as a transcript to format).
    text = turn.episode.answered or answers.answer(turn.task, seen, names)
    output_tool = _unused_output_tool(turn)
    if output_tool:
        arguments = structured.fill(output_tool.parameters, seen, text, text=turn.task.text)
        return Reply([(output_tool.name, json.dumps(arguments))], text,
                     f"I have what I need, so I'll give my answer through {output_tool.name}.")
    return Reply([], text)


def _unused_output_tool(turn: Turn) -> ToolSpec | None:
    called = {o.name for o in turn.episode.observations if not o.error}
    return next((t for t in turn.tools if is_output_tool(t) and t.name not in called), None)


def stray(reply: Reply, dice: Dice, turn: Turn) -> Reply:
    """The documented ways a reply varies at temperature > 0 (see variance.py)."""
    seen = turn.episode.observations
    if "extra_step" in dice and not reply.calls and seen and not seen[-1].error:
        last = seen[-1]
        return Reply([(last.name, last.raw_arguments)], reply.text,
                     "Let me double-check that before I answer.")
    if "wrong_first_tool" in dice and reply.calls and not seen:
        planned = {name for name, _ in reply.calls}
        others = [t for t in turn.tools if t.name not in planned and not is_output_tool(t)]
        other = next(iter(others), None)
        if other:
            arguments, _ = planning.fill_arguments(other, turn.task, {})
            reply = Reply([(other.name, json.dumps(arguments or {}))], reply.text)
    if "malformed_argument" in dice and reply.calls:
        (name, arguments), *rest = reply.calls
        reply = dataclasses.replace(reply, calls=[(name, arguments[:-1]), *rest])
    return reply


def follow_tool_choice(reply: Reply, turn: Turn, tool_choice, parallel: bool) -> Reply:
    """The request's tool_choice and parallel_tool_calls, as the API defines them."""
    if tool_choice == "none" or not turn.tools:
        return _answer_now(reply, turn)
    forced = _forced_tool(tool_choice)
    if forced:
        reply = _only(reply, forced, turn)
    elif tool_choice == "required" and not reply.calls:
        reply = _some_call(reply, turn)
    if not parallel:
        reply = dataclasses.replace(reply, calls=reply.calls[:1])
    return reply


def _answer_now(reply: Reply, turn: Turn) -> Reply:
    """No calls allowed: the answer from what was gathered, saying so if it wanted more."""
    text = reply.text
    answer_tools = {t.name for t in turn.tools if is_output_tool(t)}
    lookups = [call for call in reply.calls if call[0] not in answer_tools]
    if lookups and turn.episode.observations:
        text = "I had to stop before finishing. From what I gathered: " + text
    elif lookups:  # the task needs tools and none may be called: say so, not "no tool fits"
        descriptions = {t.name: t.description for t in turn.tools}
        text = answers.tools_declined(lookups, descriptions)
    return Reply([], text)


def _forced_tool(tool_choice) -> str | None:
    """Example: {"type": "function", "function": {"name": "calculate"}} -> "calculate" """
    return field(field(tool_choice, "function", dict), "name", str)


def _only(reply: Reply, name: str, turn: Turn) -> Reply:
    """Only calls to the named tool; if none was planned, one built from its schema."""
    kept = [call for call in reply.calls if call[0] == name]
    if kept:
        return dataclasses.replace(reply, calls=kept)
    spec = next((t for t in turn.tools if t.name == name), None)
    return Reply([_call_from_schema(spec, name, turn, reply.text)], reply.text)


def _some_call(reply: Reply, turn: Turn) -> Reply:
    """tool_choice "required" and nothing left to look up: answer through a tool if one fits,
    else call the tool whose words best meet the task's."""
    spec = next((t for t in turn.tools if is_output_tool(t)), None) or max(
        turn.tools, key=lambda t: len(turn.task.words & t.words))
    return Reply([_call_from_schema(spec, spec.name, turn, reply.text)], reply.text)


def _call_from_schema(spec: ToolSpec | None, name: str, turn: Turn, text: str) -> tuple[str, str]:
    if spec is None:
        return name, "{}"
    arguments, _ = planning.fill_arguments(spec, turn.task, {})
    if arguments is None or is_output_tool(spec):
        arguments = structured.fill(spec.parameters, turn.episode.observations, text,
                                    text=turn.task.text)
    return name, json.dumps(arguments)


def _reasoning(reply: Reply, turn: Turn, wants_json: bool) -> str | None:
    """The sentence sent beside the calls: none where the client expects JSON content."""
    if wants_json or not (reply.thought or reply.explain):
        return None
    descriptions = {t.name: t.description for t in turn.tools}
    return reply.thought or answers.thought(reply.calls, turn.episode.observations, descriptions)


def as_message(reply: Reply, turn: Turn, response_format, messages=()) -> dict:
    """The reply as a chat-completions assistant message.

    JSON is written when response_format asks for it, and also when the conversation asks
    for JSON and writes a schema into its messages (instructor's JSON and MD_JSON modes):
    then inside a ```json fence if it asks for one. A json_object request with no schema
    gets the keys its prompt names (LangChain's json_mode, agno's <json_fields>).
    """
    wants_json, schema = structured.schema_of(response_format)
    fenced = False
    if schema is None and not reply.calls:
        written = structured.schema_in_messages(messages)
        asked, fenced = structured.asks_for_json(messages)
        if written is not None and (wants_json or asked):
            wants_json, schema = True, written
        elif wants_json:  # a JSON object, no schema: the keys the prompt names, if it does
            schema = structured.keys_in_messages(messages)
        fenced = fenced and not structured.schema_of(response_format)[0]
    if reply.calls:
        calls = [{"id": f"call_{turn.episode.turn}_{i}", "type": "function",
                  "function": {"name": name, "arguments": arguments}}
                 for i, (name, arguments) in enumerate(reply.calls)]
        return {"role": "assistant", "content": _reasoning(reply, turn, wants_json),
                "tool_calls": calls}
    content = reply.text
    if wants_json:
        value = structured.fill(schema, turn.episode.observations, content,
                                text=turn.task.text) if (
            schema is not None) else {"answer": content}
        content = json.dumps(value, ensure_ascii=False)
    if fenced and wants_json:
        content = f"```json\n{content}\n```"
    return {"role": "assistant", "content": content}


__all__ = ["respond", "think_seconds", "PERSONAS", "count_tokens", "completion_tokens",
           "message_tokens", "text_tokens", "VERBOSE_TOKENS"]
