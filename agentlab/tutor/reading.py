"""Reading the conversation: what was asked, which calls were made, and what the tools said.

Example:
    [user "What is 2 + 2?", assistant calls calculate {"expression": "2 + 2"}, tool "4"]
    -> Episode(task="What is 2 + 2?", observations=[Observation("calculate", ..., result=4)])

Tool results are read leniently, as a model reads them: JSON where the text is JSON, data where
it is a dict or list as Python prints it (frameworks send str() of what a tool returned), the
fields that survived a cut where the loop truncated it, the value a JSON-encoded string holds,
the text itself otherwise. Histories written as text (smolagents writes "Calling tools:\n[...]"
and "Observation:\n..." into ordinary messages; LlamaIndex a <current_conversation> transcript)
are turned into the API's shape first. Everything here takes time linear in the
size of the conversation, and nothing here raises on a schema-valid request.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re

from pydantic_core import from_json

CALLING = "Calling tools:"
MAX_TEXT_CALLS_CHARS = 200_000  # a tool-call list written as text longer than this is not read
MAX_DEPTH = 32  # results nested deeper than this are read as plain text
MAX_ENCODINGS = 3  # a result JSON-encoded as a string this many times over is still read
NOTHING = ("", "None")  # a tool that returned nothing, as sent: str(None) or no text at all


@dataclasses.dataclass
class Observation:
    """One tool call the model made in this episode, and what came back."""

    name: str
    arguments: dict
    raw_arguments: str
    result: object        # parsed leniently: dict, list, number... or the text itself
    error: str | None     # what the result says went wrong, if it reports an error
    well_formed: bool = True  # were the arguments a JSON object?


@dataclasses.dataclass
class Episode:
    """The current task and everything the tools said since it was asked."""

    task: str
    observations: list[Observation]
    turn: int  # assistant messages so far: numbers the ids of new tool calls
    answered: str = ""  # the answer the conversation ends with, if it ends with one


def field(record, key: str, kind, default=None):
    """record[key] if the record is a dict and the value has the expected kind, else default.

    Example: field({"city": "Oslo"}, "city", str) -> "Oslo"
             field({"city": 7}, "city", str) -> None
    """
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, kind) else default


def text_of(message: dict, joiner: str = " ") -> str:
    """A message's text, whether its content is a string or a list of content parts.

    joiner: put between parts; a tool result's parts are one text cut up, so they are joined
    with nothing, as the API joins them for the model.
    Example: {"content": [{"type": "text", "text": "hi"}, {"type": "image_url"}]} -> "hi"
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return joiner.join(p for p in parts if isinstance(p, str))
    return ""


def read(messages: list) -> Episode:
    """The episode the next reply belongs to: the last question and the tool results since."""
    if not isinstance(messages, list):
        messages = []
    messages = as_api_messages([m for m in messages if isinstance(m, dict)])
    episode = messages[_episode_start(messages):]
    task = next((text_of(m) for m in episode if m.get("role") == "user"), "")
    results = {m.get("tool_call_id"): text_of(m, "") for m in episode if m.get("role") == "tool"}
    calls = [c for m in episode if m.get("role") == "assistant" for c in _calls_of(m)]
    observations = [_observation(c, results[c["id"]]) for c in calls
                    if field(c, "id", str) in results]
    turns = sum(1 for m in messages if m.get("role") == "assistant")
    last = messages[-1] if messages else {}
    answered = text_of(last) if last.get("role") == "assistant" and not _calls_of(last) else ""
    return Episode(task, observations, turns, answered.strip())


def _episode_start(messages: list[dict]) -> int:
    """Where the last question's episode starts: after the plain answer before it.

    A plain answer closes an episode; a request with no new question after it (a client
    asking for the same answer as JSON, say) still belongs to the episode it closed.
    Example: [user, assistant calls, tool, assistant "answer", user] -> 4
             [user, assistant calls, tool, assistant "answer"]       -> 0
    """
    last_question = max((i for i, m in enumerate(messages) if m.get("role") == "user"),
                        default=0)
    start = 0
    for i, m in enumerate(messages[:last_question]):
        if m.get("role") == "assistant" and not _calls_of(m):
            start = i + 1
    return start


def _calls_of(message: dict) -> list[dict]:
    return [c for c in field(message, "tool_calls", list, []) if isinstance(c, dict)]


def _observation(call: dict, content: str) -> Observation:
    function = field(call, "function", dict, {})
    raw = _arguments_text(function.get("arguments"))
    arguments = _json_or(raw, None)
    well_formed = isinstance(arguments, dict) and shallow(arguments)
    if not well_formed:
        arguments = {}
    result = parse_result(content)
    return Observation(field(function, "name", str, ""), arguments, raw, result,
                       error_in(result), well_formed)


def _arguments_text(arguments) -> str:
    """A call's arguments as JSON text, as the API sends them (some clients send a dict).

    Example: '{"a": 1}' -> '{"a": 1}';  {"a": 1} -> '{"a": 1}';  None -> '{}'
    """
    if isinstance(arguments, str):
        return arguments
    return json.dumps({} if arguments is None else arguments, default=str)


def _json_or(text: str, default):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return default


def parse_result(text: str):
    """A tool result's text as data, read leniently.

    Example: '{"city": "Oslo", "temp_c": -3, "conditions": "sn\\n...[truncated: 9 of 60 ...]'
             -> {"city": "Oslo", "temp_c": -3}   (the field cut in half is left out)
    Example: '403' -> 403;  'it rained' -> 'it rained';  'None' -> None
    Example: "{'city': 'Oslo', 'temp_c': -3}" -> {"city": "Oslo", "temp_c": -3}  (str() of a
             dict: what smolagents' observations and the Agents SDK's tool messages carry)
    Example: '"64.4"' -> 64.4  (a string sent JSON-encoded, as json.dumps or JSON.stringify
             write one: read as the text it holds, so a number is a number)
    """
    for _ in range(MAX_ENCODINGS):  # a string inside a string: read what it holds
        held = _json_or(text, None) if text.lstrip().startswith('"') else None
        if not isinstance(held, str):
            break
        text = held
    body = _without_cut_marker(text)
    if body.strip() in NOTHING:
        return None
    value = _json_or(body, text)
    if value is text:
        value = _python_literal(body, text)
    if value is text and body.lstrip().startswith(("{", "[")):
        value = _partial_json(body, text)
    if not shallow(value):
        return text
    return value


def _python_literal(body: str, text: str):
    """A dict or list as Python prints it (str() of the tool's return value), as JSON data;
    the text itself if it is not one.

    Example: "{'ok': True, 'note': None}" -> {"ok": true, "note": null}
    """
    body = body.strip()
    if not body.startswith(("{", "[")) or len(body) > MAX_TEXT_CALLS_CHARS:
        return text
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return text
    try:  # as JSON would have it: tuples become lists, anything else its str()
        return json.loads(json.dumps(value, default=str))
    except (ValueError, RecursionError):
        return text


def _partial_json(body: str, text: str):
    """The fields of cut JSON that survived the cut, or the text if there are none."""
    if body[-1:].isdigit():  # a number at the very end may have been cut short: drop it
        body = body.rstrip("0123456789.-+eE")
    try:
        partial = from_json(body, allow_partial=True)
    except ValueError:  # not JSON after all
        return text
    if not isinstance(partial, (dict, list)):
        return text
    return partial


def shallow(value, max_depth: int = MAX_DEPTH) -> bool:
    """True if the data nests at most max_depth deep (the tutor reads no deeper).

    Example: [[1]] -> True;  a list nested 1,000 deep -> False
    """
    level = [value]
    for _ in range(max_depth + 1):
        level = [v for item in level if isinstance(item, (dict, list))
                 for v in _children(item)]
        if not level:
            return True
    return False


def _without_cut_marker(text: str) -> str:
    """The text without the marker a loop adds when it cuts a result.

    Example: '{"a": 1, "b": "xy\\n...[truncated: 6,000 of 10,000 characters cut]'
             -> '{"a": 1, "b": "xy'
    """
    tail = text[-120:]
    at = tail.rfind("[truncated")
    if at < 0:
        return text
    return text[: len(text) - len(tail) + at].rstrip().rstrip(".").rstrip()


# Words a loop writes when it cuts a result, so the model knows it read only part: "...[truncated:
# 6,000 of 10,000 characters cut]", "[cut]", "[trimmed]", "(12,345 more characters)", "output
# omitted", "(showing the first 4,000 of 9,000 characters)", "[+5,000 chars]", "…" (or its
# JSON escape). The course's tools add the first (tools.truncate); the gauntlet and notebook
# 4a's exercise accept any of them, since a model reads them all the same.
CUT_NOTE = re.compile(r"truncat|\b(?:cut|omitted|elided|removed|dropped|skipped|trimmed|clipped|"
                      r"snip(?:ped)?|shortened|partial|incomplete|capped|hidden)\b|"
                      r"\bmore (?:characters|chars|bytes|lines)\b|\btoo (?:long|large|big)\b|"
                      r"\b(?:first|showing) [\d,]+ (?:of|characters|chars)\b|\bnot shown\b|"
                      r"\blimited to [\d,]+|\+\s?[\d,]+ ?(?:characters|chars)\b|"
                      r"\b[\d,]+ ?/ ?[\d,]+ ?(?:characters|chars)\b|…|\\u2026|\.\.\.", re.IGNORECASE)
# A note that says the opposite is no note: "(not truncated)", "untruncated", "nothing was cut",
# "no truncation", "never truncated", "is_truncated": false, "cut": 0. Read next to each note.
NOT_CUT = re.compile(r"\b(?:not|never|no|nothing)\W+(?:\w+\W+)?(?:truncat|cut\b|shortened|trimmed)|"
                     r"\buntruncated|(?<![a-z])(?:truncated|cut|trimmed|partial|shortened)\W{0,3}:\s*"
                     r"(?:false|0|null|none)\b", re.IGNORECASE)
# An error that says what was wrong with malformed arguments: it names the JSON, or says what
# the parser said ("Expecting ',' delimiter", "Unterminated string", "Extra data", "Invalid
# \\escape", Python 3.13's "Illegal trailing comma"). The gauntlet's bad_json row asks this.
JSON_NAMED = re.compile(r"json|\bpars(?:e|ing)|\bdecod|\bexpecting\b|"
                        r"delimiter|unterminated|extra data|syntax|property name|"
                        r"trailing comma|invalid control character|\bescape\b|"
                        r"unexpected (?:character|end|token|eof)", re.IGNORECASE)
# The tutor is kinder than the row: tutor-sloppy also fixes its JSON when told only that its
# arguments were wrong ("invalid arguments"), as a model might.
JSON_PROBLEM = re.compile(r"argument|\bargs?\b|" + JSON_NAMED.pattern, re.IGNORECASE)


def cut_note_in(content: str) -> str | None:
    """The note in a tool message's text that says the result was cut, or None if nothing says
    so (a silent cut: the model takes the part for the whole).

    Example: '{"log": "2026-01-02 INFO ...[truncated: 9,000 of 13,000 characters cut]'
             -> "...[truncated: 9,000 of 13,000 characters cut]"
             '"rain-0 rain-1 [cut]"' -> "[cut]";  '{"log": "2026-01-02 INFO served in 4' -> None
    """
    for found in CUT_NOTE.finditer(content):
        if NOT_CUT.search(content[max(found.start() - 24, 0):found.end() + 16]):
            continue  # "not truncated", "cut": false: it says nothing was cut
        start = content.rfind("[", max(found.start() - 12, 0), found.start())
        start = found.start() if start < 0 else start
        end = content.find("]", found.end(), found.end() + 60)
        return content[start:found.end() + 40 if end < 0 else end + 1].strip()
    return None


def _children(container) -> list:
    """Example: {"a": 1, "b": [2]} -> [1, [2]];  [3, 4] -> [3, 4]"""
    if isinstance(container, dict):
        return list(container.values())
    return container


# "ValueError: ..." or "requests.exceptions.ConnectionError: ...": an exception's type, then
# its message, as f"{type(e).__name__}: {e}" or traceback's last line write it.
EXCEPTION_TEXT = re.compile(r"(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception): (.*)\Z", re.S)
# Text that opens with a failure word, as people and models write one: "Error: ...",
# "ERROR - the tool failed: ...", "Failed: ...", "Failure (timeout): ...". Whole words only:
# "Errors were corrected" or "Failedness" do not open a failure.
FAILURE_TEXT = re.compile(r"\s*(?:error|failed|failure)\b\W*(.*)\Z", re.S | re.IGNORECASE)
FAILED_STATUS = ("error", "failed", "failure")
MESSAGE_FIELDS = ("message", "detail", "reason", "error")


def error_in(result) -> str | None:
    """What a result says went wrong, if it reports an error.

    Example: {"error": "unknown tool 'x'"} -> "unknown tool 'x'";  {"error": true} -> "an error"
             "ValueError: no data for 'Atlantis'" -> "no data for 'Atlantis'" (an exception
             written as Python prints one, as a model reads it too)
             "ERROR - the tool failed: no data" -> "the tool failed: no data"
             {"status": "error", "message": "no data"} -> "no data"
    """
    if isinstance(result, str) and (said := FAILURE_TEXT.match(result)):
        return said.group(1).strip() or "an error"
    if isinstance(result, str) and (raised := EXCEPTION_TEXT.match(result.strip())):
        return raised.group(1).strip() or "an error"
    if not isinstance(result, dict):
        return None
    status = result.get("status")
    if isinstance(status, str) and status.strip().lower() in FAILED_STATUS:
        for name in MESSAGE_FIELDS:
            if field(result, name, str):
                return result[name]
        return "an error"
    if not result.get("error"):
        return None
    error = result["error"]
    if isinstance(error, str):
        return error
    if field(error, "message", str):
        return error["message"]
    if error is True:
        return "an error"
    return json.dumps(error, default=str)[:500]


def error_in_text(content: str) -> str | None:
    """What a tool message's text says went wrong, read as a model reads it (JSON or plain
    text), or None if it reads as a result.

    Example: '{"error": "no data"}' -> "no data";  "Failed: no data" -> "no data";
             '{"city": "Paris"}' -> None
    """
    try:
        return error_in(json.loads(content))
    except (ValueError, RecursionError):  # not JSON: plain text may still say "Error: ..."
        return error_in(content)


# ---------------------------------------------------------------------------------------------
# Histories written as text (smolagents' ToolCallingAgent)


def as_api_messages(messages: list[dict]) -> list[dict]:
    """Tool calls and observations written into message text, turned into the API's shape.

    Example: [assistant "Calling tools:\\n[{'id': 'c1', ..., 'function': {'name': 'get_time',
              'arguments': {}}}]", user "Observation:\\n{'now': '...'}"]
             -> [assistant with tool_calls [c1], tool message for c1 with the observation]
    """
    out: list[dict] = []
    pending: list[str] = []  # ids of calls written as text, waiting for their observation
    for m in messages:
        text = text_of(m, "")
        if m.get("role") == "user" and TRANSCRIPT_OPEN in text:
            out.extend(_transcript(text))
            continue
        text = text_of(m)
        calls = m.get("role") == "assistant" and not _calls_of(m) and _calls_in_text(text)
        if calls:
            thought = text.split(CALLING)[0].strip()
            if out and out[-1].get("role") == "assistant" and not _calls_of(out[-1]):
                thought = (text_of(out.pop()) + " " + thought).strip()  # its reasoning, before
            out.append({"role": "assistant", "content": thought or None, "tool_calls": calls})
            pending = [c["id"] for c in calls]
        elif pending and m.get("role") == "user" and _is_observation(text):
            out.extend(_tool_messages(pending, text))
            pending = []
        else:
            out.append(m)
    return out


# A conversation written out as a transcript in one user message, for the model to format:
# what LlamaIndex's agents send when asked for an output_cls. Its tool results carry no name.
TRANSCRIPT_OPEN, TRANSCRIPT_CLOSE = "<current_conversation>", "</current_conversation>"
TRANSCRIPT_ROLES = ("user", "assistant", "tool")
_TRANSCRIPT_TAG = re.compile(r"<(user|assistant|tool|system)>")
UNNAMED_TOOL = "a tool"  # the name a transcript's tool result is read under


def _transcript(text: str) -> list[dict]:
    """The messages of a transcript, in the API's shape: each tool result as a call to
    UNNAMED_TOOL and its result. Read with str.find, each character once or twice.

    Example: "<current_conversation><user><message>Time?</message></user><tool><message>
              09:30</message></tool></current_conversation>"
             -> [user "Time?", assistant calls "a tool", tool "09:30"]
    """
    start = text.find(TRANSCRIPT_OPEN) + len(TRANSCRIPT_OPEN)
    end = text.find(TRANSCRIPT_CLOSE, start)
    body = text[start:end if end >= 0 else None]
    out, at = [], 0
    while (tag := _TRANSCRIPT_TAG.search(body, at)) is not None:
        close = body.find(f"</{tag[1]}>", tag.end())
        if close < 0:
            break
        content = "\n".join(_between(body[tag.end():close], "<message>", "</message>"))
        at = close + len(tag[1]) + 3
        if tag[1] == "tool":
            call_id = f"transcript_call_{len(out)}"
            out.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": UNNAMED_TOOL, "arguments": "{}"}}]})
            out.append({"role": "tool", "tool_call_id": call_id, "content": content})
        elif tag[1] in TRANSCRIPT_ROLES:
            out.append({"role": tag[1], "content": content})
    return out


def _between(text: str, opening: str, closing: str) -> list[str]:
    """Every stretch of text between an opening and its closing mark, in order.

    Example: ("<m>a</m> <m>b</m>", "<m>", "</m>") -> ["a", "b"]
    """
    found, at = [], text.find(opening)
    while at >= 0:
        end = text.find(closing, at + len(opening))
        if end < 0:
            break
        found.append(text[at + len(opening):end])
        at = text.find(opening, end + len(closing))
    return found


def _is_observation(text: str) -> bool:
    return text.lstrip().startswith(("Observation:", "Call id:", "Error:"))


# ---------------------------------------------------------------------------------------------
# JSON schemas written into a prompt's text (instructor, agno, CrewAI, PromptedOutput)

MAX_SCHEMA_SEARCH = 200  # "{" positions tried per text when looking for a written schema


def schemas_in_text(text: str):
    """(start, end, schema) for each JSON object with "properties" written in a text, in order.

    Example: 'Answer in this json_schema: {"properties": {"a": {}}} thanks'
             -> (28, 52, {"properties": {"a": {}}})
    """
    decoder = json.JSONDecoder()
    start = text.find("{")
    # Each try may read far (an object never closed, a string never ended), so the tries
    # share a budget of characters read, twice the text: linear in it, however many "{".
    budget = 2 * len(text) + 100_000
    for _ in range(MAX_SCHEMA_SEARCH):
        if start < 0 or budget < 0:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as e:  # it read up to e.pos, or to the end
            budget -= (len(text) if e.msg.startswith("Unterminated") else e.pos) - start
            start = text.find("{", start + 1)
            continue
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        budget -= end - start
        if isinstance(value, dict) and isinstance(value.get("properties"), dict):
            yield start, end, value
        start = text.find("{", end)


def _calls_in_text(text: str) -> list[dict]:
    """Tool calls written as a Python or JSON list after "Calling tools:"."""
    at = text.find(CALLING)
    if at < 0 or len(text) - at > MAX_TEXT_CALLS_CHARS:
        return []
    written = text[at + len(CALLING):].strip()
    try:
        calls = ast.literal_eval(written)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        calls = _json_or(written, [])
    if not isinstance(calls, list):
        return []
    found = []
    for i, call in enumerate(calls):
        function = field(call, "function", dict, {})
        if not field(function, "name", str):
            continue
        found.append({"id": field(call, "id", str, f"text_call_{i}"), "type": "function",
                      "function": {"name": function["name"],
                                   "arguments": _arguments_text(function.get("arguments"))}})
    return found


def _tool_messages(ids: list[str], text: str) -> list[dict]:
    """One tool message per pending call: smolagents writes one observation line per call
    (in the order of the calls' ids), or "Error:" and the error for all of them."""
    text = text.strip()
    if text.startswith("Call id:"):
        text = text.partition("\n")[2]
    if text.startswith("Error:"):
        error = text[6:].split("\nNow let's retry")[0].strip()
        return [{"role": "tool", "tool_call_id": i, "content": json.dumps({"error": error})}
                for i in ids]
    text = text.removeprefix("Observation:").strip()
    lines = text.split("\n")
    if len(ids) > 1 and len(lines) == len(ids):
        by_id = dict(zip(sorted(ids), lines))
        return [{"role": "tool", "tool_call_id": i, "content": by_id[i]} for i in ids]
    return [{"role": "tool", "tool_call_id": i, "content": text} for i in ids]
