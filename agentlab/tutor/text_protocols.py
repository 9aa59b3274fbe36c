"""Agent protocols written in text: the tools described in the prompt, the calls and their results
in the conversation's prose, and the answer written in the format the prompt asks for.

Before native tool calls, an agent told the model about its tools in the prompt and parsed the
model's text. Many agents still do; the tutor reads two such protocols from the request alone:

- ReAct (LlamaIndex's ReActAgent, LangChain's classic prompt): "Thought: ... / Action: tool /
  Action Input: {json}" (the JSON bare or in a ```json fence), the agent's "Observation: ..."
  after it, and "Answer:" (or "Final Answer:", whichever the prompt names) at the end. One
  action a step.
- Code actions (smolagents' CodeAgent): tools listed as Python functions (`def get_weather(city:
  string) -> object:`); the model writes a short snippet between the tags the prompt names
  (`<code>` ... `</code>`), printing each tool's result; the agent runs it and sends back
  "Observation: Execution logs: ..."; the last snippet calls `final_answer(...)`.
- Fields under headers (DSPy's ChatAdapter, its ReAct included): "[[ ## next_thought ## ]]",
  "[[ ## next_tool_name ## ]]" (a listed tool, or "finish"), "[[ ## next_tool_args ## ]]",
  "[[ ## completed ## ]]"; the trajectory's thought_i, tool_name_i, tool_args_i and
  observation_i are the calls made so far. Under DSPy's JSONAdapter the same fields are
  written as one JSON object.

Each is turned into the API's own shape (tools, assistant tool_calls, tool results) so that
the tutor plans and answers exactly as it does for native tools, and its reply is written back
as text in the protocol's format. A request that sends native `tools` is never read this way.

Example: a ReAct prompt listing get_weather, and "What's the weather in Oslo?"
         -> 'Thought: ... I'll call get_weather.\\nAction: get_weather\\nAction Input:
             {"city": "Oslo"}'
Left out on purpose: protocols that need the model to know things (a planner's free-form
plan); several actions a step (ReAct takes one); code beyond calls, prints and final_answer.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re

from .reading import field, text_of

INVENTED = "42"  # what a model that writes past its turn "observes": no tool ran
MAX_PROMPT_CHARS = 200_000  # a prompt longer than this is not searched for a protocol
MAX_TOOLS = 64
# ReAct's labels ("Action:", "Action Input:", "Observation:") are read line by line with string
# methods, not with regular expressions: a pattern like r"Action[ \t]*\d*[ \t]*:[ \t]*(.+?)[ \t]*\n"
# backtracks over a line of spaces (cubic: 4 KB took 13 s), and this runs on every request.
_STEP_LABELS = ("Thought", "Action", "Final Answer", "Answer")
_TOOL_NAME = re.compile(r"^> Tool Name:[ \t]*(\S+)", re.M)  # LlamaIndex's tool list
_TOOL_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")  # a name a model could mean as a tool
_ONE_OF = re.compile(r"one of \[?([A-Za-z0-9_, \t-]+)\]?")  # "Action: ... (one of a, b)"
# Code actions: a Python function stub per tool, and the tags a snippet goes between.
# (Docstrings are read up to a few thousand characters: a bounded lazy match keeps a prompt
# full of unclosed ones linear, where an unbounded one would rescan to the end each time.)
_STUB = re.compile(r"^def ([A-Za-z_]\w*)\(([^)\n]*)\)[^\n]*:\n[ \t]+(?:\"\"\"|''')"
                   r"(.{0,4000}?)(?:\"\"\"|''')", re.M | re.S)
_TAGS = re.compile(r"opened with '([^'\n]{1,40})',?\s+and\s+closed with '([^'\n]{1,40})'")
_KINDS = {"str": "string", "string": "string", "int": "integer", "integer": "integer",
          "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean",
          "dict": "object", "object": "object", "list": "array", "array": "array"}


@dataclasses.dataclass
class TextProtocol:
    """A protocol read from a request: its tools and conversation in the API's shape, and how
    to write a reply back in its own format."""

    kind: str                 # "react", "code" or "fields"
    tools: list[dict]         # chat-completions tools, read from the prompt
    messages: list[dict]      # [user task, assistant tool_calls, tool results, ...]
    answer_label: str = "Answer"
    tags: tuple[str, str] = ("<code>", "</code>")
    continues: bool = False   # the prompt ends in "Thought:": the reply continues it
    fields: tuple = ()        # "fields": the output fields, (name, type) in order
    as_json: bool = False     # "fields": written as one JSON object (DSPy's JSONAdapter)

    def write(self, calls: list[tuple[str, str]], thought: str | None, answer: str,
              output_tools: set[str], past_its_turn: bool = False) -> str:
        """The reply in the protocol's format: the next action(s), or the answer.

        past_its_turn: after a ReAct action, go on writing the agent's part too, as a base
        model does: an Observation it made up, then an answer from it. A stop sequence
        ("Observation:") cuts that off, which is what the stop sequence is for.
        """
        lookups = [(name, arguments) for name, arguments in calls if name not in output_tools]
        thought = thought or "I have what I need, so I can answer now."
        if self.kind == "code":
            return self._code(lookups, thought, answer)
        if self.kind == "fields":
            return self._fields(lookups, thought, answer)
        if lookups:
            name, arguments = lookups[0]  # ReAct takes one action a step
            text = f"{thought}\nAction: {name}\nAction Input: {arguments}"
            if past_its_turn:
                text += (f"\nObservation: {INVENTED}\nThought: I can answer without using any "
                         f"more tools.\n{self.answer_label}: {INVENTED}.")
        else:
            text = f"I can answer without using any more tools.\n{self.answer_label}: {answer}"
        return (" " if self.continues else "Thought: ") + text

    def _fields(self, lookups, thought: str, answer: str) -> str:
        """DSPy's ChatAdapter: each output field under its [[ ## name ## ]] header, then
        [[ ## completed ## ]]; its JSONAdapter: the same fields as one JSON object. ReAct's
        fields name the next tool ("finish" when done)."""
        name, arguments = lookups[0] if lookups else ("finish", "{}")
        values = {"next_thought": thought, "next_tool_name": name,
                  "next_tool_args": arguments, "reasoning": thought}
        written = []  # (name, type, value as text), in the fields' order
        for field_name, kind in self.fields:
            value = values.get(field_name, answer)
            if kind.startswith(("int", "float")):
                value = str(_number_in(answer))
            written.append((field_name, kind, value))
        if self.as_json:
            return json.dumps({name: _as_json_value(value, kind)
                               for name, kind, value in written}, ensure_ascii=False)
        parts = [f"[[ ## {name} ## ]]\n{value}" for name, _, value in written]
        return "\n\n".join(parts + ["[[ ## completed ## ]]"])

    def _code(self, lookups, thought: str, answer: str) -> str:
        if lookups:
            lines = [f"print({name}({_python_arguments(arguments)}))"
                     for name, arguments in lookups]
        else:
            lines = [f"final_answer({answer!r})"]
        opening, closing = self.tags
        return f"Thought: {thought}\n{opening}\n" + "\n".join(lines) + f"\n{closing}"


def read_protocol(messages: list, tools) -> TextProtocol | None:
    """The text protocol a request speaks, or None (native tools, or plain chat)."""
    if tools or not isinstance(messages, list):
        return None
    messages = [m for m in messages if isinstance(m, dict)]
    prompt = "\n".join(text_of(m) for m in messages[:2])[:MAX_PROMPT_CHARS]
    if "final_answer" in prompt and _STUB.search(prompt) and _TAGS.search(prompt):
        return _code_protocol(messages, prompt)
    if "[[ ## " in prompt and "Your output fields are:" in prompt:
        return _fields_protocol(messages, prompt)
    if "Action" in prompt and "Input" in prompt and _react_actions(_lines(prompt)):
        return _react_protocol(messages, prompt)
    return None


# ---------------------------------------------------------------------------------------------
# ReAct


def _react_protocol(messages: list[dict], prompt: str) -> TextProtocol | None:
    tools = _react_tools(prompt)
    if not tools:
        return None
    names = {t["function"]["name"] for t in tools}
    steps, task = [], _react_task(messages)
    # The template's own "Action: tool name ..." lines are no actions: read after the prompt,
    # or, when the prompt carries the scratchpad (LangChain), after its last "Question:".
    start = 1 if messages and messages[0].get("role") == "system" else 0
    texts = [text_of(m) for m in messages[start:]]
    if start == 0 and texts:
        texts[0] = texts[0][texts[0].rfind("Question:") + 1:] if "Question:" in texts[0] else ""
    for text in texts:
        steps += _react_steps(text[:MAX_PROMPT_CHARS], names)
    conversation = [{"role": "user", "content": task}] + _as_api(steps, tools)
    label = "Final Answer" if "Final Answer:" in prompt else "Answer"
    last = texts[-1].rstrip() if texts else ""
    return TextProtocol("react", tools, conversation, answer_label=label,
                        continues=last.endswith("Thought:"))


def _react_tools(prompt: str) -> list[dict]:
    """Tools as LlamaIndex lists them ("> Tool Name: x / Tool Description: ... / Tool Args:
    {json schema}"), else the names an "Action: ... one of [a, b]" line gives, each with one
    free-text argument, "input" (LangChain's classic prompt)."""
    tools = []
    for match in list(_TOOL_NAME.finditer(prompt))[:MAX_TOOLS]:
        block = prompt[match.end():match.end() + 20_000].split("\n> Tool Name:")[0]
        description = _after(block, "Tool Description:").split("\nTool Args:")[0].strip()
        schema = _json_after(block, "Tool Args:")
        tools.append(_tool(match[1], description, schema if isinstance(schema, dict) else {}))
    if tools:
        return tools
    listed = _ONE_OF.search(prompt)
    for name in (listed[1].split(",") if listed else [])[:MAX_TOOLS]:
        name = name.strip()
        if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            line = re.search(rf"^{re.escape(name)}\b[^\n]*", prompt, re.M)
            description = line[0] if line else ""
            tools.append(_tool(name, description, {"type": "object", "properties": {
                "input": {"type": "string"}}, "required": ["input"]}))
    return tools


def _react_task(messages: list[dict]) -> str:
    """The question: LangChain's "Question: ..." line, else the first user message that is
    not an observation."""
    for m in messages:
        text = text_of(m)
        if m.get("role") == "user" and not _is_observation(text):
            asked = [line[len("Question:"):].strip(" \t") for line in text.split("\n")
                     if line.startswith("Question:")]
            asked = [q for q in asked if q and "the input question" not in q]
            return asked[-1] if asked else text
    return ""


def _labelled(line: str, *words: str) -> str | None:
    """What follows a label at the start of a line, or None if the line has no such label.
    Each word may be followed by spaces, tabs and a step number; the label ends in ":".
    Linear in the line, whatever runs of spaces it holds (string methods, no backtracking).

    Example: _labelled("  Action 2 :  get_time ", "Action") -> "get_time "
             _labelled("Action Input: {}", "Action", "Input") -> "{}"
             _labelled("Action Input: {}", "Action") -> None
    """
    rest = line.lstrip(" \t")
    for word in words:
        if not rest.startswith(word):
            return None
        rest = rest[len(word):].lstrip(" \t").lstrip("0123456789").lstrip(" \t")
    return rest[1:].lstrip(" \t") if rest.startswith(":") else None


def _lines(text: str) -> list[tuple[int, str]]:
    """(where it starts, the line) for each line of a text, split at "\n" only."""
    lines, start = [], 0
    for line in text.split("\n"):
        lines.append((start, line))
        start += len(line) + 1
    return lines


def _find_label(text: str, *labels: tuple[str, ...]) -> tuple[int, int] | None:
    """(where the line starts, where what follows the label starts) for the first line of a
    text that opens with one of the labels (each a tuple of words for _labelled), or None."""
    for start, line in _lines(text):
        for words in labels:
            after = _labelled(line, *words)
            if after is not None:
                return start, start + len(line) - len(after)
    return None


def _is_observation(text: str) -> bool:
    """Does the text open with "Observation:" (the agent's report of a tool's result)?"""
    return _labelled(text.partition("\n")[0], "Observation") is not None


def _react_actions(lines: list[tuple[int, str]]) -> list[tuple[str, int, int]]:
    """(tool, where its input starts, where its "Action:" line starts) for each "Action: tool"
    line followed by an "Action Input:" line, in order."""
    actions = []
    for (start, line), (next_start, next_line) in zip(lines, lines[1:]):
        name = _labelled(line, "Action")
        given = _labelled(next_line, "Action", "Input") if name else None
        if name and name.strip(" \t") and given is not None:
            actions.append((name, next_start + len(next_line) - len(given), start))
    return actions


def _react_steps(text: str, names: set[str]) -> list[tuple[str, str, str | None]]:
    """(tool, input text, observation or None) for each action in a text, in order; an
    observation in a later message fills the last action still waiting."""
    lines = _lines(text)
    first = _labelled(lines[0][1], "Observation")
    if first is not None:  # a message that is an observation answers the last action
        return [("", "", _until_next_step(text[len(lines[0][1]) - len(first):]))]
    actions = _react_actions(lines)
    steps = []
    for i, (name, input_start, _) in enumerate(actions):
        # The action's input and its observation run up to the next action.
        end = actions[i + 1][2] if i + 1 < len(actions) else len(text)
        rest = text[input_start:end]
        name = name.strip().strip("`*")
        given = _json_prefix(_unfenced(rest))
        if given is None:
            given = rest.split("\n")[0].strip()
        after = _find_label(rest, ("Observation",))
        seen = _until_next_step(rest[after[1]:]) if after else None
        # An action for a tool the prompt does not list is kept too: once observed (here or in
        # the next message), the model sees the agent's error for it, and a model that asked
        # for a tool that does not exist drops it when the error names it.
        if name in names or _TOOL_LIKE.fullmatch(name):
            steps.append((name, given, seen))
    return steps


def _until_next_step(text: str) -> str:
    following = _find_label(text, *((label,) for label in _STEP_LABELS))
    return (text[:following[0]] if following else text).strip()


def _as_api(steps: list[tuple[str, str, str | None]], tools: list[dict]) -> list[dict]:
    """Actions with their observations as assistant tool_calls and tool messages; an
    observation message with no action in it answers the action before it."""
    paired = []
    for name, given, seen in steps:
        if not name and paired and paired[-1][2] is None:
            paired[-1] = (paired[-1][0], paired[-1][1], seen)
        elif name:
            paired.append((name, given, seen))
    out = []
    by_name = {t["function"]["name"]: t["function"] for t in tools}
    for i, (name, given, seen) in enumerate(paired):
        if seen is None:
            continue  # an action never observed (cut off, or still running): not made
        call_id = f"text_call_{i}"
        arguments = _arguments(given, by_name.get(name, {}).get("parameters", {}))
        out.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]})
        out.append({"role": "tool", "tool_call_id": call_id, "content": seen})
    return out


def _arguments(given, parameters: dict) -> dict:
    """An action's input as arguments: a JSON object, a Python dict as printed, or plain text
    given to the tool's only (or first) parameter."""
    if isinstance(given, dict):
        return given
    text = str(given).strip()
    try:
        value = ast.literal_eval(text) if text.startswith("{") else None
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        value = None
    if isinstance(value, dict):
        return value
    properties = list(field(parameters, "properties", dict, {}) or {"input": {}})
    return {properties[0]: text.strip("\"'")}


# ---------------------------------------------------------------------------------------------
# Code actions


def _code_protocol(messages: list[dict], prompt: str) -> TextProtocol | None:
    tools = [_stub_tool(m) for m in list(_STUB.finditer(prompt))[:MAX_TOOLS]]
    tools = [t for t in tools if t]
    if not tools:
        return None
    opening, closing = _TAGS.search(prompt).groups()
    if "(?:" in opening:  # smolagents' markdown tags are regular expressions
        opening, closing = "```py", "```"
    names = {t["function"]["name"] for t in tools}
    task = next((text_of(m) for m in messages[1:] if m.get("role") == "user"), "")
    task = task.removeprefix("New task:").strip()
    steps, waiting = [], []
    for m in messages[1:]:
        text = text_of(m)
        if m.get("role") == "assistant" and opening.strip("`") in text:
            waiting = _calls_in_code(_code_of(text, opening, closing), names)
        elif m.get("role") in ("user", "tool") and waiting and _is_observation(text):
            steps += _observed(waiting, text)
            waiting = []
    return TextProtocol("code", tools, [{"role": "user", "content": task}] + _as_api(
        steps, tools), tags=(opening, closing))


def _stub_tool(match) -> dict | None:
    name, signature, doc = match[1], match[2], match[3]
    properties, required = {}, []
    parameters = [p.strip() for p in signature.split(",")]
    # Each parameter's description is searched for in the docstring: a bounded number of them
    # keeps a signature of 50,000 parameters from costing 50,000 searches.
    for parameter in list(filter(None, parameters))[:MAX_TOOLS]:
        parameter_name, _, kind = parameter.partition(":")
        parameter_name = parameter_name.strip().lstrip("*")
        if not parameter_name.isidentifier():
            continue
        kind = _KINDS.get(kind.split("=")[0].strip().lower())
        described = re.search(rf"^[ \t]+{parameter_name}[ \t]*(?:\([^)]*\))?:[ \t]*(.+)$",
                              doc, re.M)
        properties[parameter_name] = {**({"type": kind} if kind else {}), **(
            {"description": described[1].strip()} if described else {})}
        if "=" not in parameter:
            required.append(parameter_name)
    description = doc.strip().split("\n\n")[0].strip()
    return _tool(name, description, {"type": "object", "properties": properties,
                                     "required": required})


def _code_of(text: str, opening: str, closing: str) -> str:
    start = text.find(opening)
    end = text.find(closing, start + len(opening))
    return text[start + len(opening): end if end >= 0 else None]


def _calls_in_code(code: str, names: set[str]) -> list[tuple[str, str]]:
    """(tool, arguments as JSON) for each call of a listed tool in a snippet, in order."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in names):
            try:
                arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
                arguments = {}
            calls.append((node.func.id, json.dumps(arguments, default=str)))
    return sorted(calls, key=lambda call: code.find(call[0] + "("))


def _observed(calls: list[tuple[str, str]], text: str) -> list[tuple[str, str, str | None]]:
    """Each call with its printed line of the execution logs (one print a call, in order), or
    the whole observation for each if the lines do not match the calls."""
    label = _find_label(text, ("Observation",))
    body = (text[:label[0]] + text[label[1]:] if label else text).strip()
    logs = body.removeprefix("Execution logs:").split("Last output from code snippet:")[0]
    lines = [line for line in logs.strip().split("\n") if line.strip()]
    if body.startswith("Error"):
        lines = []
        body = json.dumps({"error": body.removeprefix("Error:").strip()[:2000]})
    if len(lines) != len(calls):
        lines = [logs.strip() or body] * len(calls)
    return [(name, arguments, line) for (name, arguments), line in zip(calls, lines)]


def _python_arguments(arguments: str) -> str:
    """JSON arguments as Python keyword arguments. Example: '{"city": "Oslo"}' -> "city='Oslo'"
    """
    try:
        values = json.loads(arguments)
    except ValueError:
        return ""
    if not isinstance(values, dict):
        return ""
    return ", ".join(f"{k}={v!r}" for k, v in values.items() if str(k).isidentifier())


# ---------------------------------------------------------------------------------------------
# Fields under [[ ## name ## ]] headers: DSPy's ChatAdapter (its ReAct and what extracts the
# answer from the trajectory afterwards)

_OUTPUT_FIELD = re.compile(r"^\d+\.[ \t]*`(\w+)`[ \t]*\(([^)\n]*)\)", re.M)
_DSPY_TOOL_HEAD = re.compile(r"\(\d+\)[ \t]*(\w+)")  # "(1) get_time", spaces stripped around
_DSPY_DESCRIBED = ", whose description is <desc>"
_HEADER = re.compile(r"\[\[ ## (\w+) ## \]\]\n?")


def _fields_protocol(messages: list[dict], prompt: str) -> TextProtocol | None:
    """DSPy's ChatAdapter: the output fields the system message lists; for ReAct the tools
    its instructions list ("(1) get_time, whose description is <desc>...</desc>. It takes
    arguments {...}.") and the trajectory (thought_i, tool_name_i, tool_args_i, observation_i)
    in the user message."""
    system = text_of(messages[0])[:MAX_PROMPT_CHARS] if messages else ""
    outputs = system.split("Your output fields are:")[-1].split("All interactions")[0]
    fields = tuple((m[1], m[2].strip()) for m in _OUTPUT_FIELD.finditer(outputs))
    if not fields:
        return None
    tools = []
    for name, description, arguments in _dspy_tools(system)[:MAX_TOOLS]:
        if name == "finish":  # ReAct's own way to say "done": the answer, not a tool
            continue
        try:
            properties = ast.literal_eval(arguments)
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            properties = {}
        properties = properties if isinstance(properties, dict) else {}
        tools.append(_tool(name, " ".join(description.split()), {
            "type": "object", "properties": properties, "required": list(properties)}))
    user = next((text_of(m) for m in reversed(messages) if m.get("role") == "user"), "")
    values = _headed_values(user)
    task = " ".join(v for k, v in values.items() if k not in ("trajectory",)
                    and not re.fullmatch(r"(thought|tool_name|tool_args|observation)_\d+", k))
    steps = []
    for i in range(MAX_TOOLS):
        name = values.get(f"tool_name_{i}")
        if name is None:
            break
        if name != "finish" and f"observation_{i}" in values:
            steps.append((name, values.get(f"tool_args_{i}", "{}"), values[f"observation_{i}"]))
    if not any(name == "next_tool_name" for name, _ in fields):
        tools = []  # the answer step: no tools, only the trajectory's results
        steps_tools = [_tool(n, "", {}) for n in {s[0] for s in steps}]
    else:
        steps_tools = tools + [_tool(n, "", {}) for n in {s[0] for s in steps}
                               if n not in {t["function"]["name"] for t in tools}]
    as_json = "Outputs will be a JSON object" in system or "Respond with a JSON object" in user
    return TextProtocol("fields", tools, [{"role": "user", "content": task}] + _as_api(
        steps, steps_tools), fields=fields, as_json=as_json)


def _dspy_tools(system: str) -> list[tuple[str, str, str]]:
    """(name, description, arguments as written) for each tool DSPy's ReAct lists: "(1) name,
    whose description is <desc>...</desc>. It takes arguments {...}." on a line of its own.

    Read with str.find in windows of bounded size (a name's line up to 200 characters, a
    description up to 1,500, the arguments up to 4,000): linear in the prompt, whatever it
    holds (a regular expression for it took 2 s on unclosed lines).
    """
    found, at = [], system.find(_DSPY_DESCRIBED)
    closes = _Next(system, "</desc>")  # each found once, however many markers look for it
    line_ends = _Next(system, "\n")
    while at >= 0 and len(found) <= MAX_TOOLS:
        start = at + len(_DSPY_DESCRIBED)
        tool = _dspy_tool_at(system, at, start, closes.at_or_after(start), line_ends)
        if tool:
            found.append(tool)
        at = system.find(_DSPY_DESCRIBED, start)
    return found


class _Next:
    """Where `needle` next occurs in a text at or after a position that only moves forward:
    each stretch of the text is searched once, so finding it for every marker stays linear."""

    def __init__(self, text: str, needle: str):
        self.text, self.needle, self.found = text, needle, -1

    def at_or_after(self, position: int) -> int:
        """The first occurrence at or after position, or len(text) if none."""
        if self.found < position:
            found = self.text.find(self.needle, position)
            self.found = len(self.text) if found < 0 else found
        return self.found


def _dspy_tool_at(system: str, at: int, start: int, end: int,
                  line_ends: _Next) -> tuple[str, str, str] | None:
    """The tool whose ", whose description is <desc>" is at `at` (its description from start
    to end, where "</desc>" is), or None if its line is not one (see _dspy_tools)."""
    newline = system.rfind("\n", max(at - 200, 0), at)
    if newline < 0 and at > 200:
        return None  # the name's line is longer than any tool's
    head = _DSPY_TOOL_HEAD.fullmatch(system[newline + 1:at].strip(" \t"))
    if not head or end - start > 1_500 or end >= len(system):
        return None
    line_end = line_ends.at_or_after(end)
    if line_end - end > 4_100:
        return None  # the arguments run on past any tool's
    rest = system[end + len("</desc>"):line_end]
    if not rest.startswith("."):
        return None
    rest = rest[1:].lstrip(" \t")
    if not rest.startswith("It takes arguments "):
        return None
    arguments = rest.removeprefix("It takes arguments ").rstrip(" \t").removesuffix(".")
    if not (arguments.startswith("{") and arguments.endswith("}")):
        return None
    return head[1], system[start:end], arguments


def _headed_values(text: str) -> dict[str, str]:
    """The value under each [[ ## name ## ]] header of a text.

    Example: "[[ ## question ## ]]\nWhy?\n\n[[ ## trajectory ## ]]\n" -> {"question": "Why?",
             "trajectory": ""}
    """
    headers = list(_HEADER.finditer(text[:MAX_PROMPT_CHARS]))
    values = {}
    for header, following in zip(headers, headers[1:] + [None]):
        end = following.start() if following else len(text)
        value = text[header.end():end].strip()
        if following is None:  # the closing instruction after the last field is not its value
            value = value.split("\n\nRespond with")[0].strip()
        values[header[1]] = value
    return values


def _as_json_value(written: str, kind: str):
    """A field's value as JSON: a dict or number as itself, anything else as text.

    Example: ('{"expression": "2 + 2"}', "dict[str, Any]") -> {"expression": "2 + 2"}
             ("403", "float") -> 403.0;  ("finish", "Literal['a', 'finish']") -> "finish"
    """
    if kind.startswith("dict"):
        value = _json_prefix(written)
        return value if isinstance(value, dict) else {}
    if kind.startswith(("int", "float")):
        return int(float(written)) if kind.startswith("int") else float(written)
    return written


def _number_in(text: str):
    found = re.findall(r"-?\d+(?:\.\d+)?", text)
    return found[-1] if found else 0


# ---------------------------------------------------------------------------------------------
# Small readers


def _tool(name: str, description: str, parameters: dict) -> dict:
    return {"type": "function", "function": {"name": name, "description": description[:2000],
                                             "parameters": parameters}}


def _after(text: str, label: str) -> str:
    at = text.find(label)
    return text[at + len(label):] if at >= 0 else ""


def _unfenced(text: str) -> str:
    """A text without the opening of a Markdown code fence it starts with (after spaces): a
    model may write an Action Input as a ```json block.

    Example: ' ```json\n{"city": "Oslo"}\n```' -> '{"city": "Oslo"}\n```'
             ' {"city": "Oslo"}' -> ' {"city": "Oslo"}'
    """
    stripped = text.lstrip()
    return stripped.partition("\n")[2] if stripped.startswith("```") else text


def _json_after(text: str, label: str):
    return _json_prefix(_after(text, label).lstrip())


def _json_prefix(text: str):
    """The JSON object a text starts with (after spaces), or None."""
    text = text.lstrip()
    if not text.startswith("{"):
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    return value
