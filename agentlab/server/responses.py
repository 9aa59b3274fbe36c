"""OpenAI's Responses API (`POST /v1/responses`), served by the same tutor as chat completions.

The Responses API says the same things as chat completions in other shapes, so this file only
translates, both ways, and the tutor and its usage and token-cap rule (handler.complete) stay
the one place that decides what to answer:

    request  input items -> messages: a message item -> a chat message; function_call items ->
             one assistant message with tool_calls; function_call_output -> a tool message;
             instructions -> a system message first; tools {"type": "function", "name", ...}
             -> chat tools; text.format -> response_format; max_output_tokens -> the token cap
    response the assistant message -> output items: a message item with one output_text part,
             then one function_call item per call; usage as input/output tokens

Checked as the real API checks (checks.py): OpenAI's published CreateResponse schema
(schemas/responses_request.json), each input item against the schema its type picks, every
function_call answered by a function_call_output with its call_id and no output for a call
never made, strict schemas, and json_object only when the input says "json".

Earlier turns sent back as client libraries send them: an assistant message without `type`,
`status` or `id`, or an output_text part without `annotations` (LangChain, the Vercel AI SDK
with store: false), taken as the real API takes it; and an `item_reference` (the AI SDK's
default), replaced by the stored item it names (its `id`) before anything else reads the
input. An id not in the store (never given, dropped, or from a response made with store:
false) gets the API's 400, naming it.

previous_response_id: a stored response (store is true by default, as on the real API) is
kept in memory, its input and output as a link to the response it continued (never a copy of
the chain), so the next request can continue from it; the last STORED_RESPONSES are kept, and
no more than STORED_BYTES of them: an older or unknown id, or a chain with a link dropped,
gets the API's 400. Images and files (input_image, input_file, in a message or a tool's
output) are refused with a 400 that names them. Streaming (`stream:
true`) sends the events a real response sends, in order (streaming.response_events).

Left out on purpose: built-in tools (web search, file search, computer use, ...), custom tools
and other item types the tutor cannot act on are refused with a 400 that names them; images,
files, reasoning and background mode; GET/DELETE of a stored response.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import threading

from .checks import APIError, check_model, json_word_missing, strict_problem, validate

STORED_RESPONSES = 1_000  # responses kept for previous_response_id, the oldest dropped first
STORED_BYTES = 50_000_000  # and at most this many bytes of their items (as JSON) in all
# The most bytes (as JSON) the items one request refers to may come to: as much as a request
# body may hold (handler.MAX_BODY_BYTES). A reference is a few bytes and the item it names up
# to a megabyte: unbounded, a 1 MB body of references would have the tutor read gigabytes.
REFERENCED_BYTES = 1_000_000
# Content parts the tutor cannot see, refused with a 400 that names them (docs/serve.md).
UNREADABLE_PARTS = ("input_image", "input_file", "input_audio", "image_url", "image", "file")
# The schema each kind of input item is checked against; any other kind is refused.
ITEM_SCHEMAS = {"message": "EasyInputMessage", "function_call": "FunctionToolCall",
                "function_call_output": "FunctionCallOutputItemParam",
                "reasoning": "ReasoningItem", "item_reference": "ItemReferenceParam"}
TEXT_PARTS = ("input_text", "output_text", "text", "refusal")



@dataclasses.dataclass(frozen=True)
class _Link:
    """One stored response: the id it continued and its own items (its input and output),
    never a copy of the chain before it, so a chain of 3,000 turns costs 3,000 turns."""

    previous: str | None
    items: tuple
    size: int  # bytes of its items as JSON, counted against STORED_BYTES


_stored: collections.OrderedDict[str, _Link] = collections.OrderedDict()
_stored_bytes = 0
# Every stored item that has an id, by its id, for item_reference: the item itself, shared with
# a link that holds it (no copy), and its size as JSON; and how many stored items have that id.
# A later turn that referred to an item holds it too (the AI SDK refers to its first answer at
# every step), so an id is dropped only with the last link that holds it.
_stored_items: dict[str, tuple[dict, int]] = {}
_holders: collections.Counter[str] = collections.Counter()
_stored_lock = threading.Lock()  # the HTTP server answers requests on several threads


def check(request: dict, models) -> dict:
    """Refuse (raise APIError) a Responses request the real API would refuse, or the tutor
    cannot serve; return the request to answer, each item_reference in its input replaced by
    the stored item it names. The schema sees the input items and tools as plain lists; each
    item and tool is then checked against the schema its type picks, so that an error names
    the item it is about (input[2].call_id) rather than "input matches no definition"."""
    check_model(request, models)
    validate("CreateResponseChecked", request)
    items = request.get("input")
    if isinstance(items, list):
        request = {**request, "input": _checked_input(items)}
    for i, tool in enumerate(request.get("tools") or []):
        _check_tool(i, tool)
    _check_tool_choice(request.get("tool_choice"), _tool_names(request))
    _check_format(request)
    return request


def _checked_input(items: list) -> list[dict]:
    """The input items, each checked, each reference replaced by the item it names: no more
    than REFERENCED_BYTES of those in all."""
    checked, referenced = [], 0
    for i, item in enumerate(items):
        item, size = _checked_item(i, item)
        referenced += size
        if referenced > REFERENCED_BYTES:
            raise APIError(400, f"Invalid 'input[{i}]': the items this input refers to come "
                           f"to more than {REFERENCED_BYTES:,} bytes; send fewer references "
                           "(or continue with previous_response_id).", param=f"input[{i}]")
        checked.append(item)
    return checked


def _checked_item(i: int, item) -> tuple[dict, int]:
    """input[i] checked against the schema its type picks, and the bytes it refers to: an
    item_reference is looked up, and its stored item returned with its size (that item was
    checked, or written here, when it was stored); any other item refers to none."""
    if not isinstance(item, dict):
        raise APIError(400, f"Invalid 'input[{i}]': each input item must be an object.",
                       param=f"input[{i}]")
    kind = _item_type(item)
    if not isinstance(kind, str) or kind not in ITEM_SCHEMAS:
        raise APIError(400, f"The offline tutor cannot read input items of type "
                       f"{str(kind)[:60]!r}; it reads {', '.join(ITEM_SCHEMAS)}.",
                       param=f"input[{i}].type")
    schema = ITEM_SCHEMAS[kind]
    if kind == "item_reference":
        validate(schema, item, prefix=f"input[{i}].")
        return _referenced(i, item["id"])
    checked = item
    if kind == "message" and item.get("role") == "assistant" and _has_output_parts(item):
        schema = "OutputMessage"  # an earlier answer sent back as the API gave it
        checked = _as_output_message(item)
    _refuse_unreadable_parts(i, item)
    validate(schema, checked, prefix=f"input[{i}].")
    if kind == "message" and item.get("content") == []:
        raise APIError(400, f"Invalid 'input[{i}].content': empty array. Expected an array "
                       "with minimum length 1, but got an empty array instead.",
                       param=f"input[{i}].content", code="empty_array")
    return item, 0


def _item_type(item: dict):
    """An input item's type: its `type`, or, where it has none, what the API reads it as: a
    message when it has a role, a reference to a stored item when it has only an id.

    Example: {"role": "user", "content": "hi"} -> "message";  {"id": "msg_1"} ->
             "item_reference";  {"type": "function_call", ...} -> "function_call"
    """
    if item.get("type") is not None:
        return item["type"]
    if "role" not in item and "id" in item:
        return "item_reference"
    return "message"


def _as_output_message(item: dict) -> dict:
    """An earlier answer sent back without what the real API fills in itself: the reference
    requires `type`, `status` and `id` on an output message and `annotations` and `logprobs`
    on its output_text parts, but the API takes them left out, as LangChain and the Vercel AI
    SDK send them (they have no id to give with store: false). Only for checking: what the
    tutor reads is the item as it came.

    Example: {"role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]} ->
             {"type": "message", "status": "completed", "id": "msg_", "role": "assistant",
              "content": [{"annotations": [], "logprobs": [], "type": "output_text", ...}]}
    """
    content = [{"annotations": [], "logprobs": [], **part}
               if isinstance(part, dict) and part.get("type") == "output_text" else part
               for part in item["content"]]
    return {"type": "message", "status": "completed", "id": "msg_", **item, "content": content}


def _referenced(i: int, item_id: str) -> tuple[dict, int]:
    """The stored item an item_reference names and its size, or the real API's 400 naming the
    id: it was never given, the store dropped it, or its response was made with store: false."""
    with _stored_lock:
        found = _stored_items.get(item_id)
    if found is None:
        raise APIError(400, f"Item with id '{item_id[:100]}' not found. Items are not "
                       "persisted when `store` is set to false (and this server keeps the "
                       f"last {STORED_RESPONSES:,} stored responses only). Try again with "
                       "`store` set to true, or remove this item from your input.",
                       param=f"input[{i}].id")
    return found


def _refuse_unreadable_parts(i: int, item: dict) -> None:
    """An image or a file (in a message, or in a tool's output): a 400 that names it, not a
    reply that pretends it was read."""
    field = "output" if item.get("type") == "function_call_output" else "content"
    parts = item.get(field)
    for j, part in enumerate(parts if isinstance(parts, list) else []):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in UNREADABLE_PARTS:
            raise APIError(400, f"Invalid 'input[{i}].{field}[{j}]': the offline tutor reads "
                           f"text only and cannot read an {kind!r} part (images and files "
                           "are refused); send the text instead.",
                           param=f"input[{i}].{field}[{j}].type", code="unsupported_content")


def _has_output_parts(item: dict) -> bool:
    content = item.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("output_text", "refusal") for p in content)


def _check_tool(i: int, tool) -> None:
    if not isinstance(tool, dict) or tool.get("type") != "function":
        kind = tool.get("type") if isinstance(tool, dict) else None
        raise APIError(400, f"The offline tutor can use only function tools ({{'type': "
                       f"'function', 'name': ..., 'parameters': {{...}}}}), not "
                       f"{str(kind)[:60]!r}.", param=f"tools[{i}].type")
    # The reference marks `strict` required, but the real API takes a tool without it (client
    # libraries send such tools): left out, the schema is not held to strict mode here.
    validate("FunctionTool", {"strict": None, **tool}, prefix=f"tools[{i}].")
    if tool.get("strict") and isinstance(tool.get("parameters"), dict):
        problem = strict_problem(tool["parameters"])
        if problem:
            raise APIError(400, f"Invalid schema for function '{tool['name'][:80]}': {problem}",
                           param=f"tools[{i}].parameters", code="invalid_function_parameters")


def _tool_names(request: dict) -> list[str]:
    return [t["name"] for t in request.get("tools") or []]


def _check_tool_choice(choice, offered: list[str]) -> None:
    if choice is None or choice in ("auto", "none", "required"):
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind == "function":
        wanted = [choice.get("name")]
    elif kind == "allowed_tools":
        wanted = [t.get("name") for t in choice.get("tools") or [] if isinstance(t, dict)]
    else:
        raise APIError(400, "The offline tutor understands tool_choice 'none', 'auto', "
                       "'required', {'type': 'function', 'name': ...} or {'type': "
                       "'allowed_tools', ...}.", param="tool_choice")
    for name in wanted:
        if name not in offered:
            raise APIError(400, f"Tool choice '{str(name)[:80]}' not found in 'tools' "
                           "parameter.", param="tool_choice")


def _check_format(request: dict) -> None:
    form = (request.get("text") or {}).get("format") or {}
    if form.get("type") == "json_schema" and form.get("strict"):
        problem = strict_problem(form.get("schema"))
        if problem:
            raise APIError(400, f"Invalid schema for response_format "
                           f"'{str(form.get('name'))[:80]}': {problem}",
                           param="text.format.schema", code="invalid_json_schema")
    if form.get("type") == "json_object":
        texts = [request.get("instructions") or ""]
        texts += [m.get("content") for m in as_messages(request, check_links=False)]
        if json_word_missing(texts):
            raise APIError(400, "Response input messages must contain the word 'json' in some "
                           "form to use 'text.format' of type 'json_object'.",
                           param="input")


# ---------------------------------------------------------------------------------------------
# Request: the Responses shapes as a chat-completions request


def chat_request(request: dict) -> dict:
    """The chat-completions request that asks the tutor the same thing.

    Example: {"model": "tutor", "input": "hi", "instructions": "Be brief."}
             -> {"model": "tutor", "messages": [system "Be brief.", user "hi"]}
    """
    chat = {"model": request["model"], "messages": as_messages(request)}
    tools = [{"type": "function", "function": {k: t[k] for k in (
        "name", "description", "parameters", "strict") if t.get(k) is not None}}
        for t in request.get("tools") or []]
    if tools:
        chat["tools"] = tools
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        choice = {"type": "function", "function": {"name": choice["name"]}}
    elif isinstance(choice, dict):  # allowed_tools: the same rule, in the chat shape
        choice = {"type": "allowed_tools", "allowed_tools": {"mode": choice["mode"], "tools": [
            {"type": "function", "function": {"name": t["name"]}} for t in choice["tools"]]}}
    if choice is not None and tools:
        chat["tool_choice"] = choice
    form = (request.get("text") or {}).get("format") or {}
    if form.get("type") == "json_schema":
        chat["response_format"] = {"type": "json_schema", "json_schema": {
            k: form[k] for k in ("name", "schema", "strict") if k in form}}
    elif form.get("type") == "json_object":
        chat["response_format"] = {"type": "json_object"}
    for key in ("temperature", "parallel_tool_calls"):
        if request.get(key) is not None:
            chat[key] = request[key]
    if request.get("max_output_tokens") is not None:
        # JSON Schema counts 16.0 as an integer; the cap cuts text by it, which needs an int
        chat["max_completion_tokens"] = int(request["max_output_tokens"])
    return chat


def as_messages(request: dict, check_links: bool = True) -> list[dict]:
    """The conversation as chat messages: the stored one it continues, then this input."""
    items = _earlier_items(request) if check_links else []
    given = request.get("input")
    items += [{"role": "user", "content": given}] if isinstance(given, str) else list(given or [])
    messages = []
    if request.get("instructions"):
        messages.append({"role": "system", "content": request["instructions"]})
    for item in items:
        kind = _item_type(item)
        if kind == "message":
            text = _text(item.get("content"))
            role = item.get("role", "user")
            messages.append({"role": role, "content": text})
        elif kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            last = messages[-1] if messages else {}
            if last.get("role") == "assistant":  # its text, then its calls: one message
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": item.get("call_id") or "",
                             "content": _text(item.get("output"), joiner="")})
    if check_links:
        _check_outputs(messages)
    return messages


def _text(content, joiner: str = "\n") -> str:
    """The text of a content string or a list of content parts (a tool's output's parts are
    one text cut up: joined with nothing).

    Example: [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}] -> "a\nb"
    """
    if isinstance(content, str):
        return content
    parts = [p.get("text") or p.get("refusal") for p in content or [] if isinstance(p, dict)
             and p.get("type") in TEXT_PARTS]
    return joiner.join(p for p in parts if isinstance(p, str))


def _check_outputs(messages: list[dict]) -> None:
    """Every function call answered by an output with its call_id, no output for a call never
    made: the real API's two 400s, with its words."""
    asked = {c["id"] for m in messages for c in m.get("tool_calls") or []}
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    for call_id in sorted(answered - asked)[:1]:
        raise APIError(400, f"No tool call found for function call output with call_id "
                       f"{call_id[:80]}.", param="input")
    for call_id in sorted(asked - answered)[:1]:
        raise APIError(400, f"No tool output found for function call {call_id[:80]}.",
                       param="input")


def _earlier_items(request: dict) -> list[dict]:
    """The items of the stored conversation a request continues, oldest first, followed
    link by link; each link is kept fresh (an old first turn is not dropped while its chain
    is in use). A link dropped from the store: the API's 400, naming the id it was."""
    previous = request.get("previous_response_id")
    links = []
    with _stored_lock:
        while previous is not None and len(links) <= len(_stored):
            link = _stored.get(previous) if isinstance(previous, str) else None
            if link is None:
                raise APIError(400, f"Previous response with id '{str(previous)[:100]}' not "
                               "found.", param="previous_response_id",
                               code="previous_response_not_found")
            _stored.move_to_end(previous)
            links.append(link)
            previous = link.previous
    return [item for link in reversed(links) for item in link.items]


# ---------------------------------------------------------------------------------------------
# Response: a chat.completion as a Response object


def response_object(request: dict, completion: dict, raw: bytes | None) -> dict:
    """The Response the API returns, written from the tutor's chat.completion."""
    digest = hashlib.blake2b(raw if raw is not None else json.dumps(
        request, sort_keys=True).encode(), digest_size=12).hexdigest()
    choice = completion["choices"][0]
    message, usage = choice["message"], completion["usage"]
    output = []
    if message.get("content"):
        output.append({"id": f"msg_{digest}", "type": "message", "role": "assistant",
                       "status": "completed", "content": [
                           {"type": "output_text", "text": message["content"], "annotations": [],
                            "logprobs": []}]})
    for j, call in enumerate(message.get("tool_calls") or []):
        output.append({"id": f"fc_{digest}_{j}", "type": "function_call", "status": "completed",
                       "call_id": call["id"], "name": call["function"]["name"],
                       "arguments": call["function"]["arguments"]})
    cut = choice["finish_reason"] == "length"
    form = (request.get("text") or {}).get("format") or {"type": "text"}
    response = {
        "id": f"resp_{digest}", "object": "response", "created_at": completion["created"],
        "status": "incomplete" if cut else "completed",
        "completed_at": None if cut else completion["created"], "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"), "model": request["model"],
        "output": output, "parallel_tool_calls": request.get("parallel_tool_calls") is not False,
        "previous_response_id": request.get("previous_response_id"), "reasoning": None,
        "store": request.get("store") is not False,
        "temperature": request.get("temperature", 1.0), "text": {"format": form},
        "tool_choice": request.get("tool_choice") or "auto",
        # a tool sent without `strict` comes back with it null (not held to strict mode): the
        # reference's Response requires the field
        "tools": [{"strict": None, **tool} for tool in request.get("tools") or []],
        "top_p": request.get("top_p", 1.0), "truncation": "disabled",
        "metadata": request.get("metadata") or {},
        "usage": {"input_tokens": usage["prompt_tokens"],
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens": usage["completion_tokens"],
                  "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": usage["total_tokens"]},
    }
    if request.get("user") is not None:  # a string when given; the schema has no null
        response["user"] = request["user"]
    if response["store"]:
        _remember(response["id"], request, output)
    return response


def _remember(response_id: str, request: dict, output: list[dict]) -> None:
    """Keep this turn (its input and output) as a link to the one it continued, for the next
    request's previous_response_id; the oldest links go once there are more than
    STORED_RESPONSES or STORED_BYTES of them."""
    global _stored_bytes
    given = request.get("input")
    items = tuple(([{"role": "user", "content": given}] if isinstance(given, str)
                   else list(given or [])) + output)
    link = _Link(request.get("previous_response_id"), items,
                 len(json.dumps(items, ensure_ascii=False).encode()))
    if link.size > STORED_BYTES:
        return  # larger than the whole store: answered, not kept
    # a message's id is not in its schema: it may be anything, and only a string is indexed
    named = [(item["id"], item, len(json.dumps(item, ensure_ascii=False).encode()))
             for item in items if isinstance(item.get("id"), str)]
    with _stored_lock:
        if response_id in _stored:
            _forget(_stored.pop(response_id))
        _stored[response_id] = link
        _stored_bytes += link.size
        for item_id, item, size in named:
            _stored_items[item_id] = (item, size)
            _holders[item_id] += 1
        while len(_stored) > STORED_RESPONSES or _stored_bytes > STORED_BYTES:
            _forget(_stored.popitem(last=False)[1])


def _forget(link: _Link) -> None:
    """Drop a link's bytes, and from the item index each id no other stored link holds.
    Called with _stored_lock held."""
    global _stored_bytes
    _stored_bytes -= link.size
    for item in link.items:
        item_id = item.get("id")
        if not isinstance(item_id, str):  # never indexed (see _remember)
            continue
        _holders[item_id] -= 1
        if _holders[item_id] <= 0:
            del _holders[item_id], _stored_items[item_id]
