"""Checking a chat-completions request as the real API does, before the tutor sees it.

Three layers, each refusing with a 400 (or 404) in OpenAI's error shape and a `param` that
points at the offending field, e.g. `messages[2].tool_call_id`:

1. the body parses as JSON and is not absurdly nested;
2. it validates against OpenAI's own request schema (schemas/chat_completions_request.json),
   each message against the schema its role picks; the message says the rule the value broke
   ("Invalid 'temperature': 3 is greater than the maximum of 2."), see `_validate`;
3. the rules the schema cannot say: every tool call is answered right after it is asked for
   and no tool message answers a call never made, tool names match ^[a-zA-Z0-9_-]{1,64}$,
   tool_choice names a tool that is offered (or lists allowed tools that are), a strict
   schema keeps strict mode's rules (`strict_problem`), json_object needs the word "json" in
   the messages, and an empty `tools` or `content` list is refused with code "empty_array",
   each with the real API's words and codes.

The Responses API's request (responses.py) is checked by the same machinery against its own
published schema (schemas/responses_request.json), under the name CreateResponseChecked.

Each message is checked once: a conversation resends every earlier message with each request,
so on a 20-step run the first messages would be checked 20 times over. A message equal to one
that passed before passes at once: the check is a pure function of the message, so its answer
cannot differ. Only messages that passed are remembered, each by a digest of its repr (repr
keeps the types apart where == does not: 1, 1.0 and True are equal in Python, not in JSON).

Left out on purpose: features the tutor cannot act on are refused clearly rather than
ignored (custom tools, audio output, the deprecated `functions` and `function_call`, which
point to `tools` and `tool_choice`); unknown extra fields are accepted, as frameworks send
many (`store`, `metadata`, `user`, `top_p`, `stop`, ...).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import importlib.resources
import json
import math
import re


def _stored_schemas(name: str) -> dict:
    """One of OpenAI's request schemas, as the package stores it (schemas/README.md)."""
    return json.loads(importlib.resources.files(__package__).joinpath("schemas", name)
                      .read_text(encoding="utf-8"))


SCHEMAS = _stored_schemas("chat_completions_request.json")
RESPONSES_SCHEMAS = _stored_schemas("responses_request.json")

INTEGER_FIELDS = ("n", "max_tokens", "max_completion_tokens", "seed", "top_logprobs")
EXPLAINED_UP_TO = 10_000  # characters of JSON: a larger refused value gets the short message
MAX_DEPTH = 64  # no real request nests deeper; Python's parser gives up near 1,000
TOO_DEEP = f"The JSON body is nested more than {MAX_DEPTH} levels deep."
CHECKED_MESSAGES_KEPT = 10_000  # digests of messages that passed, about a megabyte at most
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
ROLES = ("system", "developer", "user", "assistant", "tool", "function")


class APIError(Exception):
    """A request the API refuses, with the status and OpenAI error fields to send back."""

    def __init__(self, status: int, message: str, *, type: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.type = status, message, type
        self.param, self.code = param, code

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "param": self.param,
                          "code": self.code}}


def parse_body(body: bytes) -> dict:
    """The request's JSON object, or an APIError saying what is wrong with it."""
    try:
        request = json.loads(body, parse_constant=_not_json, parse_float=_finite)
    except ValueError as e:  # not JSON, not UTF-8, or a number Python cannot hold
        raise APIError(400, f"The body is not valid JSON: {e}.") from None
    except RecursionError:  # nested far beyond MAX_DEPTH: the parser itself gave up
        raise APIError(400, TOO_DEEP) from None
    if not isinstance(request, dict):
        raise APIError(400, "The request body must be a JSON object.")
    # How deep the body nests is checked here for every field but the messages; each message
    # is measured when it is checked (_check_messages), once, as a conversation grows.
    if depth({key: value for key, value in request.items() if key != "messages"}) > MAX_DEPTH:
        raise APIError(400, TOO_DEEP)
    return request


def _finite(text: str) -> float:
    """A JSON number as a float; Python would read 1e400 as infinity, which JSON has not.

    Example: _finite("2.5") -> 2.5;  _finite("1e400") -> ValueError
    """
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _not_json(constant: str):
    """Python's parser reads NaN and Infinity; JSON (and the real API) does not."""
    raise json.JSONDecodeError(f"{constant} is not a JSON value", constant, 0)


def depth(value) -> int:
    """How deeply lists and objects nest, counted without recursion.

    Example: {"a": [1, {"b": 2}]} -> 3;  "text" -> 0
    """
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            todo += [(child, level + 1) for child in
                     (item.values() if isinstance(item, dict) else item)]
    return deepest


def check_model(request: dict, models) -> None:
    """Refuse a request without a model, or for a model the tutor does not serve (both APIs)."""
    model = request.get("model")
    if not isinstance(model, str):
        raise APIError(400, "'model' is required and must be a string.", param="model")
    if model not in models:
        raise APIError(404, f"The model '{model[:100]}' does not exist here. The offline tutor "
                       f"serves: {', '.join(models)}.", param="model", code="model_not_found")


def check_request(request: dict, models) -> None:
    """Refuse (raise APIError) a request the real API would refuse, or the tutor cannot serve."""
    check_model(request, models)
    _check_legacy_functions(request)
    if request.get("tools") == []:
        raise empty_array("tools")
    _check_schema(request)
    _check_messages(request["messages"])
    tools = request.get("tools") or []
    for i, tool in enumerate(tools):
        _check_tool(i, tool)
    _check_tool_choice(request.get("tool_choice"), [t["function"]["name"] for t in tools])
    _check_answers(request["messages"])
    _check_response_format(request)
    for key in ("max_tokens", "max_completion_tokens"):
        if request.get(key) is not None and request[key] < 1:
            raise APIError(400, f"Invalid '{key}': it must be at least 1.", param=key)
    if request.get("modalities") and "audio" in request["modalities"]:
        raise APIError(400, "The offline tutor writes text only; leave out 'audio'.",
                       param="modalities")
    for key in INTEGER_FIELDS:  # JSON Schema counts 29.0 as an integer; Python's range does not
        if isinstance(request.get(key), float):
            request[key] = int(request[key])


def _check_legacy_functions(request: dict) -> None:
    """The deprecated `functions` and `function_call` fields: refused with a pointer to what
    replaced them, since the tutor reads only `tools` and `tool_choice` and ignoring them
    silently would leave a client wondering why its functions are never called."""
    if request.get("functions") is not None:
        raise APIError(400, "The offline tutor does not read the deprecated 'functions' field: "
                       "send each function as a tool instead, 'tools': [{'type': 'function', "
                       "'function': {'name': ..., 'description': ..., 'parameters': ...}}].",
                       param="functions")
    if request.get("function_call") is not None:
        raise APIError(400, "The offline tutor does not read the deprecated 'function_call' "
                       "field: use 'tool_choice' instead ('auto', 'none', 'required' or "
                       "{'type': 'function', 'function': {'name': ...}}).", param="function_call")


# ---------------------------------------------------------------------------------------------
# The schema: OpenAI's own, compiled once


@functools.lru_cache(maxsize=None)
def _definitions() -> dict:
    """OpenAI's schemas as this server checks them: messages and tools are checked one by one
    against the schema their role or type picks (below), which gives errors such as
    "messages[1].content ..." instead of "matches no definition of oneOf"; here the request's
    schema only says they are lists."""
    definitions = json.loads(json.dumps({**RESPONSES_SCHEMAS, **SCHEMAS}))  # a deep copy
    fields = definitions["CreateChatCompletionRequest"]["allOf"][1]["properties"]
    del fields["messages"]["items"], fields["tools"]["items"]
    # The Responses API's request, its input items and tools checked one by one too
    # (responses.py); the two copies share names only where their schemas are equal.
    checked = json.loads(json.dumps(definitions["CreateResponse"]))
    checked["allOf"][1] = {"$ref": "#/definitions/ResponsePropertiesChecked"}
    checked["allOf"][2]["properties"]["input"] = {"anyOf": [{"type": "string"},
                                                           {"type": "array"}]}
    properties = json.loads(json.dumps(definitions["ResponseProperties"]))
    properties["properties"]["tools"] = {"type": "array"}
    definitions["CreateResponseChecked"] = checked
    definitions["ResponsePropertiesChecked"] = properties
    return definitions


@functools.lru_cache(maxsize=None)
def _validator(name: str):
    import fastjsonschema  # compiled on first use: `import agentlab` stays fast

    return fastjsonschema.compile({"$ref": f"#/definitions/{name}", "definitions": _definitions()})


def validate(name: str, value, prefix: str = "") -> None:
    """Raise an APIError naming the field the schema refuses (`param`) and what is wrong.

    fastjsonschema checks every request (it is fast) and says which field broke a rule; for a
    field that may take several forms (OpenAI's schema writes an optional field as anyOf [its
    rule, null]) it says only "cannot be validated by any definition". So a refused field is
    checked again by jsonschema, whose best_match looks inside the forms for the rule the value
    most likely broke ("3 is greater than the maximum of 2").
    """
    import fastjsonschema

    try:
        _validator(name)(value)
    except fastjsonschema.JsonSchemaValueException as e:
        param = (prefix + e.name.removeprefix("data").lstrip(".")).rstrip(".")
        if len(json.dumps(e.value)) <= EXPLAINED_UP_TO:
            below, rule = _explain(e.definition, e.value)
        else:  # jsonschema would look at every item of a huge value: seconds, for one request
            below, rule = "", e.message.removeprefix(e.name).strip()
        if e.rule == "minItems" and e.value == []:
            raise empty_array(param) from None
        # The message names the very value that is wrong (stop[1]); `param` stays the field
        # whose rule refused it (stop), as a client uses it to point at a field.
        where = (param + below).lstrip(".")
        raise APIError(400, f"Invalid '{where or 'body'}': {rule}.", param=param or None) from None


def _explain(schema: dict, value) -> tuple[str, str]:
    """(where inside the value, what is wrong there), from jsonschema's errors.

    Where the field may take several forms, the error is looked for in the one form meant for
    the value (the one its "type" field names, or the only one that takes its JSON type), and
    so on down; where no form is meant, the forms are listed.
    Example: 3 against anyOf [a number at most 2, null] -> ("", "3 is greater than the maximum
             of 2");  ["a", 1] for `stop` -> ("[1]", "1 is not of type 'string'");  a function
             tool call without an id -> ("", "'id' is a required property")
    """
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import relevance

    validator = Draft7Validator({**schema, "definitions": _definitions()})
    errors = list(validator.iter_errors(value))
    if not errors:  # the two validators disagree: say no more than the first one did
        return "", "does not match OpenAI's request schema"
    error = max(errors, key=relevance)
    while error.validator in ("anyOf", "oneOf") and error.context:
        meant = _form_meant(error.instance, error.validator_value, validator)
        inside = [e for e in error.context if e.relative_schema_path[0] == meant]
        if not inside:  # no single form is meant for it: list them below
            break
        error = max(inside, key=relevance)
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    if error.validator in ("anyOf", "oneOf") and error.context:
        forms = sorted(dict.fromkeys(_forms(error.schema)), key=lambda form: form == "null")
        allowed = ", ".join(forms[:-1]) + " or " + forms[-1] if len(forms) > 1 else forms[0]
        return where, f"must be {allowed}, got {_shown(error.instance)}"
    return where, error.message if len(error.message) <= 200 else error.message[:197] + "..."


def _form_meant(value, choices: list, validator) -> int | None:
    """The index of the one form meant for a value: the one whose "type" tag the value's "type"
    field names, else the only one that takes the value's JSON type; None if not one.

    Example: {"type": "function"} among [a function tool call, a custom tool call] -> 0
    """
    if isinstance(value, dict) and isinstance(value.get("type"), str):
        tagged = [i for i, choice in enumerate(choices) if value["type"] in _tags(choice)]
        if len(tagged) == 1:
            return tagged[0]
    taking = [i for i, choice in enumerate(choices)
              if any(kind == "any" or validator.is_type(value, kind) for kind in _kinds(choice))]
    return taking[0] if len(taking) == 1 else None


def _resolve(schema: dict) -> dict:
    """A schema that only points at a named one ($ref), as that one."""
    return _definitions().get(schema.get("$ref", "").removeprefix("#/definitions/"), schema)


def _nested(schema: dict) -> list:
    return schema.get("anyOf") or schema.get("oneOf") or []


def _tags(schema: dict) -> set:
    """The values a form's "type" field may take. Example: a function tool call -> {"function"}"""
    schema = _resolve(schema)
    tags = set(schema.get("properties", {}).get("type", {}).get("enum", []))
    return tags.union(*(_tags(inner) for inner in _nested(schema)))


def _kinds(schema: dict) -> set:
    """The JSON types a form takes ("any" when it does not say). Example: {"type": ["string",
    "null"]} -> {"string", "null"}"""
    schema = _resolve(schema)
    if _nested(schema):
        return set().union(*(_kinds(inner) for inner in _nested(schema)))
    kinds = schema.get("type", "any")
    return {kinds} if isinstance(kinds, str) else set(kinds)


def _forms(schema: dict) -> list[str]:
    """The forms a schema allows, each in a few words: its JSON type, or its "type" tag.

    Example: {"anyOf": [{"type": "number", "maximum": 2}, {"type": "null"}]} -> ["a number",
             "null"];  the named tool choice -> ["an object with type 'function'"]
    """
    schema = _resolve(schema)
    if _nested(schema):  # forms within forms: flattened
        return [form for inner in _nested(schema) for form in _forms(inner)]
    tags = schema.get("properties", {}).get("type", {}).get("enum")
    if tags:
        return [f"an object with type {' or '.join(map(repr, tags))}"]
    if "enum" in schema:
        return ["one of " + ", ".join(map(repr, schema["enum"]))]
    kinds = sorted(_kinds(schema) - {"any"})
    return [kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
            for kind in kinds] or ["any value"]


def _shown(value) -> str:
    """A value as JSON, cut short. Example: "hot" -> '"hot"';  None -> "null" """
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_schema(request: dict) -> None:
    validate("CreateChatCompletionRequest", request)


def _check_messages(messages: list) -> None:
    """Each message against the schema its role picks, skipping those that passed before (see
    the module's docstring)."""
    for i, message in enumerate(messages):
        try:
            text = repr(message)  # about twice as fast as json.dumps, and as exact for this
        except RecursionError:
            raise APIError(400, TOO_DEEP, param=f"messages[{i}]") from None
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        if digest in _checked_messages:
            continue
        _check_message(i, message)
        if len(_checked_messages) >= CHECKED_MESSAGES_KEPT:
            _checked_messages.clear()  # start again rather than grow without bound
        _checked_messages.add(digest)


_checked_messages: set[bytes] = set()  # digests of the repr of messages that passed


def _check_message(i: int, message) -> None:
    if not isinstance(message, dict) or "role" not in message:
        raise APIError(400, f"Invalid 'messages[{i}]': each message must be an object with a "
                       "'role'.", param=f"messages[{i}]")
    if depth(message) > MAX_DEPTH - 2:  # the body, its messages list, then the message
        raise APIError(400, TOO_DEEP, param=f"messages[{i}]")
    role = message["role"]
    if role not in ROLES:
        raise APIError(400, f"Invalid 'messages[{i}].role': {str(role)[:40]!r} is not one of "
                       f"{', '.join(ROLES)}.", param=f"messages[{i}].role")
    schema = {"system": "System", "developer": "Developer", "user": "User",
              "assistant": "Assistant", "tool": "Tool", "function": "Function"}[role]
    if message.get("content") == []:
        raise empty_array(f"messages[{i}].content")
    validate(f"ChatCompletionRequest{schema}Message", message, prefix=f"messages[{i}].")
    for j, call in enumerate(message.get("tool_calls") or []):
        if call.get("type") != "function":
            raise APIError(400, "The offline tutor knows only function tool calls.",
                           param=f"messages[{i}].tool_calls[{j}].type")


def _check_tool(i: int, tool) -> None:
    if not isinstance(tool, dict) or "type" not in tool:
        raise APIError(400, f"Invalid 'tools[{i}]': each tool must be an object with a 'type'.",
                       param=f"tools[{i}]")
    if tool["type"] != "function":
        raise APIError(400, "The offline tutor can use only function tools "
                       "({'type': 'function', 'function': {...}}).", param=f"tools[{i}].type")
    validate("ChatCompletionTool", tool, prefix=f"tools[{i}].")
    name = tool["function"]["name"]
    if not TOOL_NAME.fullmatch(name):
        raise APIError(400, f"Invalid 'tools[{i}].function.name': {name[:80]!r} does not match "
                       "the pattern '^[a-zA-Z0-9_-]{1,64}$'.", param=f"tools[{i}].function.name")
    parameters = tool["function"].get("parameters")
    if tool["function"].get("strict") and isinstance(parameters, dict):
        problem = strict_problem(parameters)
        if problem:
            raise APIError(400, f"Invalid schema for function '{name[:80]}': {problem}",
                           param=f"tools[{i}].function.parameters",
                           code="invalid_function_parameters")


def _check_tool_choice(choice, offered: list[str]) -> None:
    """tool_choice must be satisfiable: "required", a named tool or a set of allowed tools
    needs those tools offered."""
    if choice is None or choice in ("auto", "none"):
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in (None, "function", "allowed_tools"):
        raise APIError(400, "The offline tutor understands tool_choice 'none', 'auto', "
                       "'required', {'type': 'function', 'function': {'name': ...}} or "
                       "{'type': 'allowed_tools', 'allowed_tools': {...}}.", param="tool_choice")
    if not offered:
        raise APIError(400, "Invalid value for 'tool_choice': 'tool_choice' is only allowed "
                       "when 'tools' are specified.", param="tool_choice")
    for name in chosen_tools(choice) or []:
        if name not in offered:
            raise APIError(400, f"Invalid value for 'tool_choice': no tool named "
                           f"{str(name)[:80]!r} is in 'tools' ({', '.join(offered)}).",
                           param="tool_choice")


def chosen_tools(choice) -> list | None:
    """The tools a tool_choice names (a function, or the allowed tools); None if it names none.

    Example: {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type":
             "function", "function": {"name": "get_time"}}]}} -> ["get_time"]
    """
    if not isinstance(choice, dict):
        return None
    if choice.get("type") == "allowed_tools":
        tools = (choice.get("allowed_tools") or {}).get("tools") or []
        return [(t.get("function") or {}).get("name", t.get("name")) for t in tools
                if isinstance(t, dict)]
    return [(choice.get("function") or {}).get("name")]


def _check_response_format(request: dict) -> None:
    """Strict schemas keep strict mode's rules; json_object needs the word "json" said."""
    form = request.get("response_format") or {}
    spec = form.get("json_schema") or {}
    if form.get("type") == "json_schema" and spec.get("strict"):
        problem = strict_problem(spec.get("schema"))
        if problem:
            raise APIError(400, f"Invalid schema for response_format "
                           f"'{str(spec.get('name'))[:80]}': {problem}", param="response_format")
    if form.get("type") == "json_object" and json_word_missing(
            [m.get("content") for m in request["messages"]]):
        raise APIError(400, "'messages' must contain the word 'json' in some form, to use "
                       "'response_format' of type 'json_object'.", param="messages")


def json_word_missing(contents: list) -> bool:
    """True if no text among the contents (strings or lists of parts) says "json", as the API
    requires before it promises JSON: a model not told so may write whitespace forever.

    Example: ["Reply in JSON."] -> False;  ["hi", [{"type": "text", "text": "hi"}]] -> True
    """
    for content in contents:
        parts = content if isinstance(content, list) else [content]
        for part in parts:
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(text, str) and "json" in text.lower():
                return False
    return True


MAX_STRICT_NODES = 10_000  # sub-schemas looked at in one strict schema at most


def strict_problem(schema) -> str | None:
    """The first rule of strict mode a schema breaks, in the real API's words, or None.

    Strict mode needs every object to say "additionalProperties": false and to list every
    property in "required" (an optional field is written as one that may be null).
    Example: {"type": "object", "properties": {"a": {"type": "string"}}}
             -> "In context=(), 'additionalProperties' is required to be supplied and to be
             false."
    """
    todo, seen = collections.deque([((), schema)]), 0
    while todo and seen < MAX_STRICT_NODES:
        path, node = todo.popleft()
        seen += 1
        if not isinstance(node, dict):
            continue
        properties = node.get("properties")
        if node.get("type") == "object" or isinstance(properties, dict):
            if node.get("additionalProperties") is not False:
                return (f"In context={path!r}, 'additionalProperties' is required to be "
                        "supplied and to be false.")
            required = node.get("required") if isinstance(node.get("required"), list) else []
            listed = {k for k in required if isinstance(k, str)}  # a set: linear, not n*m
            missing = [k for k in properties or {} if k not in listed]
            if missing:
                return (f"In context={path!r}, 'required' is required to be supplied and to be "
                        f"an array including every key in properties. Missing '{missing[0]}'.")
        for key in ("properties", "$defs", "definitions"):
            if isinstance(node.get(key), dict):
                todo += [(path + (key, name), sub) for name, sub in node[key].items()]
        if isinstance(node.get("items"), dict):
            todo.append((path + ("items",), node["items"]))
        for key in ("anyOf", "allOf", "oneOf"):
            if isinstance(node.get(key), list):
                todo += [(path + (key, str(i)), sub) for i, sub in enumerate(node[key])]
    return None


def empty_array(param: str) -> APIError:
    """The real API's refusal of an empty list where it needs at least one item."""
    return APIError(400, f"Invalid '{param}': empty array. Expected an array with minimum "
                    "length 1, but got an empty array instead.", param=param, code="empty_array")


def _check_answers(messages: list[dict]) -> None:
    """Tool messages come right after the assistant message whose calls they answer, one per
    call; as on the real API, a call left unanswered or an answer to no call is refused."""
    waiting: list[str] = []  # ids of the calls still to be answered
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] not in waiting:
                raise APIError(400, f"Invalid 'messages[{i}]': a message with role 'tool' must "
                               "respond to a tool call of the assistant message just before "
                               f"it; no call has the id {message['tool_call_id'][:80]!r}.",
                               param=f"messages[{i}].tool_call_id")
            waiting.remove(message["tool_call_id"])
            continue
        _no_call_left(waiting, i)
        if message["role"] == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or []]
    _no_call_left(waiting, len(messages))


def _no_call_left(waiting: list[str], i: int) -> None:
    if waiting:
        raise APIError(400, "An assistant message with 'tool_calls' must be followed by tool "
                       "messages responding to each 'tool_call_id'. The following "
                       f"tool_call_ids did not have response messages: "
                       f"{', '.join(w[:80] for w in waiting[:5])} (before messages[{i}]).",
                       param="messages")
