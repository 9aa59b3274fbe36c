"""The OpenAI protocol as the real API speaks it, checked in-process through `handle` and the
openai SDK's own transport: validation with `param`, tool_choice, n, parallel_tool_calls,
stop, and streaming."""

import json
import pathlib
import time

import openai
import pytest
from server_helpers import GOOD, validator

from agentlab.server import checks as api_checks
from agentlab.server import handle, make_transport, sdk_http
from agentlab.toolkit import COURSE_TOOLS

SCHEMAS = [t.schema for t in COURSE_TOOLS]
ROOT = pathlib.Path(__file__).parents[1]
TASK = "What time is it, and what is 17 * 23 + sqrt(144)?"


def ask(**fields):
    """(status, payload) for a POST to /v1/chat/completions with GOOD plus these fields."""
    body = fields.pop("_raw", None) or json.dumps({**GOOD, **fields}).encode()
    status, payload, _ = handle("POST", "/v1/chat/completions", body)
    return status, payload


def sdk():
    http_client = sdk_http().Client(transport=make_transport())
    return openai.OpenAI(api_key="offline", base_url="http://tutor.invalid/v1",
                         http_client=http_client, max_retries=0)


def call(id="c1", name="calculate", arguments='{"expression": "2 + 2"}'):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def asked(*calls, content=None):
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


USER = {"role": "user", "content": "What is 2 + 2?"}


# ---------------------------------------------------------------------------------------------
# Malformed requests: a 400 in OpenAI's shape, with the field in `param`

@pytest.mark.parametrize("fields, param", [
    ({"messages": [{"role": 7, "content": "hi"}]}, "messages[0].role"),
    ({"messages": [{"role": ["user"], "content": "hi"}]}, "messages[0].role"),
    ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
    ({"messages": [USER, asked({"id": "c1", "type": "function", "function": "calculate"})]},
     "messages[1].tool_calls[0]"),
    ({"messages": [USER, {"role": "assistant", "tool_calls": {"id": "c1"}}]},
     "messages[1].tool_calls"),
    ({"messages": [USER, asked(call(id=5))]}, "messages[1].tool_calls[0]"),
    ({"messages": [USER, asked(call()), {"role": "tool", "tool_call_id": 5, "content": "4"}]},
     "messages[2].tool_call_id"),
    ({"messages": [USER, asked(call()), {"role": "tool", "tool_call_id": "c1", "content": 4}]},
     "messages[2].content"),
    ({"tools": [{"type": "function", "function": {"name": "f", "description": 3}}]},
     "tools[0].function.description"),
    ({"tools": [{"type": "function", "function": "f"}]}, "tools[0].function"),
    ({"tools": [{"type": "function", "function": {"name": "get weather!"}}]},
     "tools[0].function.name"),
    ({"tools": [{"type": "function", "function": {"name": "x" * 65}}]}, "tools[0].function.name"),
    ({"messages": [USER, {"role": "tool", "tool_call_id": "never", "content": "4"}]},
     "messages[1].tool_call_id"),
    ({"messages": [USER, asked(call()), {"role": "tool", "tool_call_id": "c2", "content": "4"}]},
     "messages[2].tool_call_id"),
    ({"messages": [USER, asked(call()), USER]}, "messages"),
    ({"tool_choice": "required"}, "tool_choice"),
    ({"tools": SCHEMAS, "tool_choice": {"type": "function", "function": {"name": "search"}}},
     "tool_choice"),
    ({"tool_choice": {"type": "function", "function": {"name": "calculate"}}}, "tool_choice"),
    ({"n": 0}, "n"),
    ({"n": "2"}, "n"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"temperature": 3}, "temperature"),
    ({"stream": "yes"}, "stream"),
    ({"parallel_tool_calls": "no"}, "parallel_tool_calls"),
])
def test_malformed_requests_get_400_with_param(fields, param):
    status, payload = ask(**fields)
    assert status == 400, payload
    validator("ErrorResponse").validate(payload)
    assert payload["error"]["param"] == param
    assert payload["error"]["type"] == "invalid_request_error"


def with_call(call: dict) -> list[dict]:
    """A conversation whose assistant message carries `call`, answered as id c1."""
    return [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"}]


@pytest.mark.parametrize("fields, param, message", [
    ({"n": 0}, "n", "Invalid 'n': 0 is less than the minimum of 1."),
    ({"n": 200}, "n", "Invalid 'n': 200 is greater than the maximum of 128."),
    ({"n": "2"}, "n", "Invalid 'n': must be an integer or null, got \"2\"."),
    ({"temperature": 3}, "temperature",
     "Invalid 'temperature': 3 is greater than the maximum of 2."),
    ({"temperature": "hot"}, "temperature",
     "Invalid 'temperature': must be a number or null, got \"hot\"."),
    ({"seed": 1.5}, "seed", "Invalid 'seed': must be an integer or null, got 1.5."),
    ({"stop": 5}, "stop", "Invalid 'stop': must be a string, an array or null, got 5."),
    ({"stop": ["a", 1]}, "stop", "Invalid 'stop[1]': 1 is not of type 'string'."),
    ({"stream_options": {"include_usage": "yes"}}, "stream_options",
     "Invalid 'stream_options.include_usage': 'yes' is not of type 'boolean'."),
    ({"tool_choice": {"type": "bogus"}}, "tool_choice", "Invalid 'tool_choice': must be one of "
     "'none', 'auto', 'required', an object with type 'allowed_tools', an object with type "
     "'function' or an object with type 'custom', got {\"type\": \"bogus\"}."),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]},
     "messages[0].content", "Invalid 'messages[0].content[0].text': 3 is not of type 'string'."),
    ({"messages": [{"role": "user"}]}, "messages[0]",
     "Invalid 'messages[0]': 'content' is a required property."),
    # A value whose "type" names one form is checked against that form alone (an outside
    # review: these were told their correct type was wrong, or got their own value listed).
    ({"messages": [{"role": "user", "content": [{"type": "text", "content": "hi"}]}]},
     "messages[0].content", "Invalid 'messages[0].content[0]': 'text' is a required property."),
    ({"messages": with_call({"type": "function", "function": {"name": "f", "arguments": "{}"}})},
     "messages[1].tool_calls[0]", "Invalid 'messages[1].tool_calls[0]': 'id' is a required "
     "property."),
    ({"messages": with_call({"id": "c1", "type": "function", "name": "f", "arguments": "{}"})},
     "messages[1].tool_calls[0]", "Invalid 'messages[1].tool_calls[0]': 'function' is a "
     "required property."),
    ({"tool_choice": {"type": "function"}}, "tool_choice",
     "Invalid 'tool_choice': 'function' is a required property."),
    ({"stop": []}, "stop", "Invalid 'stop': [] should be non-empty."),
    # a field with a single form says that one; a form inside forms is still found by its type
    ({"messages": [{"role": "system", "content": [5]}]}, "messages[0].content",
     "Invalid 'messages[0].content[0]': must be an object with type 'text', got 5."),
    ({"prediction": {"type": "content", "content": 5}}, "prediction",
     "Invalid 'prediction.content': must be a string or an array, got 5."),
    ({"_raw": b'{"model": "tutor"}'}, None, "Invalid 'body': 'messages' is a required property."),
])
def test_a_refusal_says_what_the_field_allows(fields, param, message):
    """Not "cannot be validated by any definition": OpenAI's schema makes most fields
    anyOf [the rule, null], and the message gives the rule the value broke (jsonschema's best
    match), or every form the field allows when none stands out."""
    status, payload = ask(**fields)
    assert status == 400 and payload["error"]["param"] == param
    assert payload["error"]["message"] == message


def test_a_huge_refused_value_is_answered_at_once():
    """Explaining a refusal searches the value's forms; a near-megabyte value skips that search
    (it took 7 s for 300,000 numbers in `stop`) and still names the field."""
    start = time.perf_counter()
    status, payload = ask(stop=[1] * 300_000)
    assert status == 400 and payload["error"]["param"] == "stop"
    assert payload["error"]["message"].startswith("Invalid 'stop': ")
    assert "data" not in payload["error"]["message"]  # the validator's own name for the body
    assert time.perf_counter() - start < 2  # about 0.1 s here


@pytest.mark.parametrize("fields, param, rules", [
    ({"messages": [{"role": "user", "name": 7}]}, "messages[0]",
     ["'content' is a required property", "7 is not of type 'string'"]),
    ({"stream_options": {"include_usage": "yes", "include_obfuscation": "no"}}, "stream_options",
     ["'yes' is not of type 'boolean'", "'no' is not of type 'boolean'"]),
])
def test_a_value_that_breaks_two_rules_is_refused_for_one_of_them(fields, param, rules):
    status, payload = ask(**fields)
    assert status == 400 and payload["error"]["param"] == param, payload
    assert any(rule in payload["error"]["message"] for rule in rules), payload


@pytest.mark.parametrize("fields", [{"temperature": "h" * 100}, {"reasoning_effort": "x" * 300}])
def test_a_long_refused_value_is_shown_cut_short(fields):
    """The message quotes the refused value, shortened with "...": a client logs it whole."""
    status, payload = ask(**fields)
    message = payload["error"]["message"]
    assert status == 400 and "..." in message and len(message) <= 250, message


def test_json_nested_5000_deep_is_a_400_not_a_crash():
    nested = "[" * 5000 + "]" * 5000
    body = json.dumps(GOOD)[:-1] + f', "metadata_x": {nested}}}'
    status, payload = ask(_raw=body.encode())
    assert status == 400 and "nested" in payload["error"]["message"]
    deep_but_parsable = {"type": "object", "properties": {}}
    for _ in range(200):
        deep_but_parsable = {"type": "object", "properties": {"a": deep_but_parsable}}
    status, payload = ask(tools=[{"type": "function", "function": {
        "name": "f", "parameters": deep_but_parsable}}])
    assert status == 400 and "nested" in payload["error"]["message"]


def _nested(levels):
    """A JSON value `levels` deep. Example: _nested(2) -> [[]]"""
    value = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("where", ["a field of the body", "a field of a message"])
def test_the_depth_limit_holds_exactly_at_its_edge(where):
    """MAX_DEPTH levels pass, one more is refused, whether the depth is in a message (measured
    once per message) or elsewhere in the body, and with shallower lists after the deep one."""
    for levels, status in [(api_checks.MAX_DEPTH, 200), (api_checks.MAX_DEPTH + 1, 400)]:
        if where == "a field of the body":  # the body is level 1, the field's value level 2
            fields = {"metadata_x": _nested(levels - 1), "stop": ["\n\n"]}
        else:  # the body, its messages list, the message, then the field's value
            fields = {"messages": [{**USER, "extra": _nested(levels - 3), "later": [1]}]}
        got, payload = ask(**fields)
        assert got == status, (levels, payload)
        if status == 400:
            assert "nested more than 64" in payload["error"]["message"]
            assert payload["error"]["param"] == (None if where == "a field of the body"
                                                 else "messages[0]")


@pytest.mark.parametrize("fields, param, needed", [
    ({"messages": ["hi"]}, "messages[0]", "'role'"),
    ({"messages": [USER, {"content": "no role"}]}, "messages[1]", "'role'"),
    ({"tools": ["calculate"]}, "tools[0]", "'type'"),
    ({"tools": [{"function": {"name": "f"}}]}, "tools[0]", "'type'"),
])
def test_a_message_or_tool_that_is_not_an_object_with_its_kind_is_a_400(fields, param, needed):
    status, payload = ask(**fields)
    assert status == 400 and payload["error"]["param"] == param, payload
    assert needed in payload["error"]["message"]  # it says what the object needs


def test_a_message_too_deep_for_python_to_repr_is_refused_not_a_crash():
    """check_request is called with Python values too (not only parsed JSON, whose depth
    parse_body bounds): a message nested past the recursion limit is the request's fault."""
    deep = "hi"
    for _ in range(100_000):
        deep = {"nested": deep}
    request = {"model": "tutor", "messages": [{"role": "user", "content": "hi", "x": deep}]}
    with pytest.raises(api_checks.APIError, match="nested more than 64") as refused:
        api_checks.check_request(request, ["tutor"])
    assert (refused.value.status, refused.value.param) == (400, "messages[0]")


def test_each_message_of_a_growing_conversation_is_checked_once(monkeypatch):
    """A conversation resends every earlier message: only the new ones are checked again."""
    monkeypatch.setattr(api_checks, "_checked_messages", set())
    checked = []
    check = api_checks._check_message
    monkeypatch.setattr(api_checks, "_check_message",
                        lambda i, message: (checked.append(i), check(i, message)))
    first = [{"role": "user", "content": "What is 2 + 2? (checked once)"}]
    second = [*first, asked(call()), {"role": "tool", "tool_call_id": "c1", "content": "4"}]
    for messages in (first, second, second):
        assert ask(messages=messages)[0] == 200
    assert checked == [0, 1, 2]  # the first message once, the two new ones once, then none


def test_messages_equal_in_python_but_not_in_json_are_each_checked(monkeypatch):
    """1, 1.0 and True are == in Python: the memory tells them apart, as JSON does."""
    monkeypatch.setattr(api_checks, "_checked_messages", set())
    checked = []
    check = api_checks._check_message
    monkeypatch.setattr(api_checks, "_check_message",
                        lambda i, message: (checked.append(message["x"]), check(i, message)))
    for x in (1, 1.0, True, 1):
        assert ask(messages=[{"role": "user", "content": "hi", "x": x}])[0] == 200
    assert checked == [1, 1.0, True] and [type(x) for x in checked] == [int, float, bool]


def test_a_refused_message_is_refused_again_and_never_remembered(monkeypatch):
    monkeypatch.setattr(api_checks, "_checked_messages", set())
    bad = [USER, {"role": "tool", "tool_call_id": "c1", "content": 4}]
    for _ in range(2):
        assert ask(messages=bad)[1]["error"]["param"] == "messages[1].content"
    assert len(api_checks._checked_messages) == 1  # USER, which passed


def test_a_message_is_never_let_through_on_another_ones_pass(monkeypatch):
    """The memory is exact: an invalid message as long as a valid one is still refused."""
    monkeypatch.setattr(api_checks, "_checked_messages", set())
    valid, invalid = {"role": "user", "content": "hi"}, {"role": "user", "content": 4242}
    assert len(repr(valid)) == len(repr(invalid))
    assert ask(messages=[valid])[0] == 200
    assert ask(messages=[invalid])[1]["error"]["param"] == "messages[0].content"


def test_the_memory_of_checked_messages_is_bounded(monkeypatch):
    monkeypatch.setattr(api_checks, "_checked_messages", set())
    monkeypatch.setattr(api_checks, "CHECKED_MESSAGES_KEPT", 5)
    for n in range(12):
        assert ask(messages=[{"role": "user", "content": f"question {n}"}])[0] == 200
        assert len(api_checks._checked_messages) <= 5


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" * 5000])
def test_a_number_python_cannot_hold_is_a_400_not_a_crash(number):
    """1e400 would read as infinity, and an integer of 5,000 digits is past Python's limit
    for int(): both are refused as the body's fault, in a message or in a field."""
    for where in ('"messages": [{"role": "user", "content": "hi", "x": %s}]', '"seed": %s'):
        body = json.dumps(GOOD)[:-1] + ", " + where % number + "}"
        status, payload = ask(_raw=body.encode())
        assert status == 400 and "not valid JSON" in payload["error"]["message"], payload


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant):
    status, payload = ask(_raw=json.dumps(GOOD)[:-1].encode() + b', "temperature": '
                          + constant.encode() + b"}")
    assert status == 400 and constant in payload["error"]["message"]


def test_a_lone_surrogate_echoed_by_the_model_reaches_the_sdk():
    def echoes(model, messages, tools, tool_choice, **options):
        return {"role": "assistant", "content": messages[-1]["content"]}

    http_client = sdk_http().Client(transport=make_transport(respond=echoes))
    body = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "a\udb9eb"}]})
    response = http_client.post("http://tutor.invalid/v1/chat/completions",
                                content=body.encode()).json()
    assert response["choices"][0]["message"]["content"] == "a\udb9eb"


def test_a_valid_conversation_with_answered_calls_is_accepted():
    messages = [USER, asked(call("a"), call("b", arguments='{"expression": "3 * 3"}')),
                {"role": "tool", "tool_call_id": "b", "content": "9"},
                {"role": "tool", "tool_call_id": "a", "content": "4"}]
    status, payload = ask(messages=messages, tools=SCHEMAS)
    assert status == 200
    validator("CreateChatCompletionResponse").validate(payload)


@pytest.mark.parametrize("message", [
    {"role": "developer", "content": "Be brief."},  # what newer models call the system message
    {"role": "function", "name": "calculate", "content": "4"},  # deprecated, still accepted
])
def test_every_role_the_api_accepts_is_accepted(message):
    status, payload = ask(messages=[USER, message])
    assert status == 200, payload


@pytest.mark.parametrize("choice", ["auto", "none"])
def test_a_tool_choice_that_calls_no_tool_needs_no_tools(choice):
    """Frameworks send tool_choice "auto" whether or not they have tools to offer."""
    status, payload = ask(tool_choice=choice)
    assert status == 200, payload


def test_a_custom_tool_choice_is_refused_saying_what_the_tutor_understands():
    status, payload = ask(tools=SCHEMAS, tool_choice={"type": "custom",
                                                     "custom": {"name": "calculate"}})
    assert status == 400 and payload["error"]["param"] == "tool_choice", payload
    assert "'required'" in payload["error"]["message"]
    assert "allowed_tools" in payload["error"]["message"]


@pytest.mark.parametrize("messages, unanswered", [
    ([USER, asked(call("c1"), call("c2"))], "c1, c2 (before messages[2])"),
    ([USER, asked(call("c1")), USER], "c1 (before messages[2])"),
])
def test_an_unanswered_tool_call_is_refused_naming_the_call_and_where(messages, unanswered):
    """Also when the conversation ends with the calls: a client that forgot to send the tool
    results learns which ones, as from the real API."""
    status, payload = ask(messages=messages, tools=SCHEMAS)
    assert status == 400 and payload["error"]["param"] == "messages", payload
    assert unanswered in payload["error"]["message"]


def test_a_missing_or_unknown_model_is_refused_as_the_real_api_does():
    status, payload = ask(_raw=json.dumps({"messages": [USER]}).encode())
    assert (status, payload["error"]["param"]) == (400, "model"), payload
    assert "'model' is required" in payload["error"]["message"]
    status, payload = ask(model="gpt-9")
    assert (status, payload["error"]["param"], payload["error"]["code"]) == (
        404, "model", "model_not_found"), payload
    assert "gpt-9" in payload["error"]["message"] and "tutor" in payload["error"]["message"]


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_a_token_cap_of_one_is_accepted_and_zero_refused(field):
    assert ask(**{field: 1})[0] == 200
    status, payload = ask(**{field: 0})
    assert (status, payload["error"]["param"]) == (400, field), payload


@pytest.mark.parametrize("field, value", [
    ("store", False), ("metadata", {"course": "agents"}), ("user", "student-1"),
    ("top_p", 0.9), ("stop", ["\n\n"]), ("frequency_penalty", 0.5), ("presence_penalty", 0),
    ("seed", 7), ("temperature", 0), ("stream_options", {"include_usage": True}),
    ("logprobs", False), ("service_tier", "auto"), ("max_completion_tokens", 500),
    ("response_format", {"type": "text"}), ("reasoning_effort", "low"),
    ("parallel_tool_calls", True), ("tool_choice", "auto"), ("prompt_cache_key", "k"),
])
def test_fields_frameworks_send_are_accepted(field, value):
    status, payload = ask(tools=SCHEMAS, **{field: value})
    assert status == 200, payload


# ---------------------------------------------------------------------------------------------
# What the server does with the protocol's options


def test_n_gives_n_choices_and_counts_their_tokens():
    status, one = ask(tools=SCHEMAS, messages=[{"role": "user", "content": TASK}])
    status, three = ask(tools=SCHEMAS, messages=[{"role": "user", "content": TASK}], n=3)
    assert status == 200
    validator("CreateChatCompletionResponse").validate(three)
    assert [c["index"] for c in three["choices"]] == [0, 1, 2]
    assert three["usage"]["prompt_tokens"] == one["usage"]["prompt_tokens"]
    assert three["usage"]["completion_tokens"] == 3 * one["usage"]["completion_tokens"]


def test_parallel_tool_calls_false_gives_at_most_one_call_even_from_a_model_that_ignores_it():
    def two_calls(model, messages, tools, tool_choice, **options):
        return {"role": "assistant", "content": None,
                "tool_calls": [call("a"), call("b", arguments='{"expression": "3 * 3"}')]}

    body = json.dumps({**GOOD, "tools": SCHEMAS, "parallel_tool_calls": False}).encode()
    status, payload, _ = handle("POST", "/v1/chat/completions", body, respond=two_calls)
    assert status == 200
    assert [c["id"] for c in payload["choices"][0]["message"]["tool_calls"]] == ["a"]
    status, payload = ask(tools=SCHEMAS, messages=[{"role": "user", "content": TASK}],
                          parallel_tool_calls=False)
    assert len(payload["choices"][0]["message"]["tool_calls"]) == 1


def test_integers_written_as_floats_are_read_as_integers():
    """Found by schemathesis: JSON Schema counts 2.0 as an integer, and n=2.0 crashed."""
    status, payload = ask(n=2.0, max_tokens=10.0, seed=1.0,
                          messages=[{"role": "user", "content": "Write a poem"}])
    assert status == 200 and len(payload["choices"]) == 2
    validator("CreateChatCompletionResponse").validate(payload)


def test_a_stop_sequence_ends_the_content_before_it():
    def says(model, messages, tools, tool_choice, **options):
        return {"role": "assistant", "content": "First line.\n\nSecond line."}

    body = json.dumps({**GOOD, "stop": "\n\n"}).encode()
    status, payload, _ = handle("POST", "/v1/chat/completions", body, respond=says)
    assert payload["choices"][0]["message"]["content"] == "First line."
    assert payload["choices"][0]["finish_reason"] == "stop"


def test_the_options_reach_the_model():
    seen = {}

    def records(model, messages, tools, tool_choice, **options):
        seen.update(options, tool_choice=tool_choice)
        return {"role": "assistant", "content": "ok"}

    body = json.dumps({**GOOD, "messages": [{"role": "user", "content": "hi, in JSON"}],
                       "tools": SCHEMAS, "tool_choice": "required", "seed": 3,
                       "temperature": 0.7, "parallel_tool_calls": False,
                       "response_format": {"type": "json_object"}}).encode()
    assert handle("POST", "/v1/chat/completions", body, respond=records)[0] == 200
    assert seen == {"tool_choice": "required", "seed": 3, "temperature": 0.7,
                    "parallel_tool_calls": False, "response_format": {"type": "json_object"}}


# ---------------------------------------------------------------------------------------------
# Streaming


def _stream(**fields):
    status, payload = ask(stream=True, **fields)
    assert status == 200
    events = [bytes(e).decode() for e in payload]
    assert all(e.startswith("data: ") and e.endswith("\n\n") for e in events)
    assert events[-1] == "data: [DONE]\n\n"
    return [json.loads(e[len("data: "):]) for e in events[:-1]]


def test_a_stream_replays_the_completion_in_chunks_that_validate():
    fields = {"tools": SCHEMAS, "messages": [{"role": "user", "content": TASK}]}
    whole = ask(**fields)[1]
    chunks = _stream(**fields)
    for chunk in chunks:
        validator("CreateChatCompletionStreamResponse").validate(chunk)
        assert chunk["id"] == chunks[0]["id"] and "usage" not in chunk
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    calls = {}
    for chunk in chunks:
        for delta in chunk["choices"][0]["delta"].get("tool_calls", []):
            if "id" in delta:
                calls[delta["index"]] = {"id": delta["id"], "type": delta["type"],
                                         "function": dict(delta["function"])}
            else:
                calls[delta["index"]]["function"]["arguments"] += delta["function"]["arguments"]
    assert list(calls.values()) == whole["choices"][0]["message"]["tool_calls"]


def test_a_streamed_answer_with_usage_and_n():
    chunks = _stream(n=2, stream_options={"include_usage": True},
                     messages=[{"role": "user", "content": "Write a poem"}])
    for chunk in chunks:
        validator("CreateChatCompletionStreamResponse").validate(chunk)
    usage = chunks[-1]
    assert usage["choices"] == [] and usage["usage"]["total_tokens"] > 0
    assert all(c["usage"] is None for c in chunks[:-1])
    for index in (0, 1):
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks[:-1]
                       if c["choices"][0]["index"] == index)
        assert text == ask(messages=[{"role": "user", "content": "Write a poem"}])[1][
            "choices"][0]["message"]["content"]


def test_the_sdk_iterates_a_stream_in_process():
    stream = sdk().chat.completions.create(
        model="tutor", messages=[{"role": "user", "content": "Write a poem"}], stream=True,
        stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    whole = ask(messages=[{"role": "user", "content": "Write a poem"}])[1]
    assert text == whole["choices"][0]["message"]["content"] and text
    assert chunks[-1].usage.completion_tokens > 0


# ---------------------------------------------------------------------------------------------
# Schema-valid requests that crash the tutor on main: regression tests (fixed on the tutor
# branch). Whatever happens inside, the server answers in the API's shape, never a traceback.


def _conversation(task, name, args, result, tools=SCHEMAS):
    return {"tools": tools, "messages": [
        {"role": "user", "content": task},
        asked(call("c1", name, json.dumps(args))),
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result)}]}


def _tool(name, description, properties, required):
    return [{"type": "function", "function": {"name": name, "description": description,
             "parameters": {"type": "object", "properties": properties,
                            "required": required}}}]


TUTOR_CRASHES = {
    "an error that is an object": _conversation(
        "What is 2 + 2?", "calculate", {"expression": "2 + 2"}, {"error": {"code": 1}}),
    "an error that is true": _conversation(
        "What is 2 + 2?", "calculate", {"expression": "2 + 2"}, {"error": True}),
    "weather results without temp_c": {"tools": SCHEMAS, "messages": [
        {"role": "user", "content": "Is Paris or Rome warmer today?"},
        asked(call("a", "get_weather", '{"city": "Paris"}'),
              call("b", "get_weather", '{"city": "Rome"}')),
        {"role": "tool", "tool_call_id": "a", "content": '{"city": "Paris"}'},
        {"role": "tool", "tool_call_id": "b", "content": '{"city": "Rome", "temp_c": 3}'}]},
    "a country record with only a capital": _conversation(
        "What is the capital of France?", "lookup_country", {"country": "France"},
        {"capital": "Paris"}),
    "a boolean sub-schema": {"tools": _tool("convert_amount", "convert an amount",
                                            {"amount": True}, ["amount"]),
                             "messages": [{"role": "user", "content": "convert an amount"}]},
    "items given as a list": {"tools": _tool("sum_numbers", "sum numbers", {
        "numbers": {"type": "array", "items": [{"type": "number"}]}}, ["numbers"]),
        "messages": [{"role": "user", "content": "sum numbers 1 2 3"}]},
}


@pytest.mark.parametrize("case", TUTOR_CRASHES)
def test_no_tutor_crash_reaches_the_client_as_a_traceback(case):
    status, payload = ask(**TUTOR_CRASHES[case])
    assert "Traceback" not in json.dumps(payload) and "File \"" not in json.dumps(payload)
    if status != 200:
        validator("ErrorResponse").validate(payload)


@pytest.mark.parametrize("case", TUTOR_CRASHES)
def test_schema_valid_requests_get_a_200(case):
    status, payload = ask(**TUTOR_CRASHES[case])
    assert status == 200, payload
    validator("CreateChatCompletionResponse").validate(payload)


# ---------------------------------------------------------------------------------------------
# Requests shaped as four agent frameworks send them (captured on the compat branch, see
# notes/framework-requests.md): the server accepts every one of them.

GET_TIME = {"type": "function", "function": {
    "name": "get_time", "description": "The current time.", "strict": True,
    "parameters": {"type": "object", "properties": {}, "required": [],
                   "additionalProperties": False, "title": "get_time_args"}}}
CALCULATE = {"type": "function", "function": {
    "name": "calculate", "description": "Evaluate an arithmetic expression.\n\nArgs:\n"
    "    expression: the expression", "parameters": {
        "type": "object", "properties": {"expression": {"type": "string"}},
        "required": ["expression"], "additionalProperties": False}}}
ANSWER_SCHEMA = {"type": "object", "title": "Answer", "additionalProperties": False,
                 "properties": {"time": {"type": "string", "title": "Time"},
                                "value": {"type": "number", "title": "Value"}},
                 "required": ["time", "value"]}
HISTORY = [{"role": "user", "content": TASK},
           asked(call("a", "get_time", "{}"), call("b", "calculate",
                                                   '{"expression": "17 * 23 + sqrt(144)"}')),
           {"role": "tool", "tool_call_id": "a", "content": "09:30 UTC"},
           {"role": "tool", "tool_call_id": "b", "content": "403"}]


def _parts(text):
    return [{"type": "text", "text": text}]


FRAMEWORK_REQUESTS = {
    "smolagents, streamed, text history": {
        "tools": [GET_TIME, CALCULATE, {"type": "function", "function": {
            "name": "final_answer", "description": "Provides a final answer.",
            "parameters": {"type": "object", "properties": {"answer": {"type": "string"}},
                           "required": ["answer"]}}}],
        "tool_choice": "required", "stop": ["Observation:", "Calling tools:"],
        "stream": True, "stream_options": {"include_usage": True},
        "messages": [{"role": "system", "content": _parts("You are an expert assistant.")},
                     {"role": "user", "content": _parts("New task:\n" + TASK)},
                     {"role": "assistant", "content": _parts(
                         "Calling tools:\n[{'id': 'call_0_0', 'type': 'function', 'function':"
                         " {'name': 'get_time', 'arguments': {}}}]")},
                     {"role": "user", "content": _parts("Observation:\n09:30 UTC")}]},
    "openai-agents, structured": {
        "tools": [GET_TIME, CALCULATE], "messages": [{"role": "system", "content": "Be brief."},
                                                     *HISTORY],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "final_output", "strict": True, "schema": ANSWER_SCHEMA}}},
    "pydantic-ai, final_result tool": {
        "tools": [GET_TIME, CALCULATE, {"type": "function", "function": {
            "name": "final_result", "description": "The structured output asked for.",
            "parameters": ANSWER_SCHEMA, "strict": True}}],
        "tool_choice": "required", "stream": False, "messages": HISTORY},
    "langchain, function_calling": {
        "tools": [{"type": "function", "function": {"name": "Answer", "description": "An answer.",
                                                    "parameters": ANSWER_SCHEMA}}],
        "tool_choice": {"type": "function", "function": {"name": "Answer"}},
        "parallel_tool_calls": False, "messages": HISTORY},
    "langchain, json_mode after a plain answer": {
        "response_format": {"type": "json_object"},
        "messages": [*HISTORY, {"role": "assistant", "content": "It is 09:30 UTC; 403."},
                     {"role": "user", "content": "Answer in JSON."}]},
}


@pytest.mark.parametrize("case", FRAMEWORK_REQUESTS)
def test_what_frameworks_send_is_accepted(case):
    status, payload = ask(**FRAMEWORK_REQUESTS[case])
    assert status == 200, payload
    if FRAMEWORK_REQUESTS[case].get("stream"):
        chunks = [json.loads(bytes(e)[6:]) for e in payload[:-1]]
        for chunk in chunks:
            validator("CreateChatCompletionStreamResponse").validate(chunk)
    else:
        validator("CreateChatCompletionResponse").validate(payload)


def test_60_kb_of_parentheses_is_answered_well_under_five_seconds():
    """Run in a child process, so that a stalled regex (which holds the interpreter) can be
    stopped after 5 s instead of holding this test for half a minute."""
    import subprocess
    import sys

    body = json.dumps({**GOOD, "tools": SCHEMAS,
                       "messages": [{"role": "user", "content": "(" * 60_000}]})
    script = ("import sys; from agentlab.server import handle; "
              "print(handle('POST', '/v1/chat/completions', sys.stdin.buffer.read())[0])")
    try:
        child = subprocess.run([sys.executable, "-c", script], input=body.encode(),
                               capture_output=True, timeout=5, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.fail("the request took more than 5 s")
    assert child.stdout.strip() == b"200"


def test_in_process_a_405_carries_its_allow_header_and_a_model_can_be_retrieved():
    client = sdk()
    with pytest.raises(openai.APIStatusError) as refused:
        client.post("/models", cast_to=object, body={})
    assert refused.value.status_code == 405
    assert refused.value.response.headers["Allow"] == "GET"
    assert client.models.retrieve("tutor").id == "tutor"


# ---------------------------------------------------------------------------------------------
# What the real API refuses, refused the same way (issue 22), and what it accepts (issue 21)

LOOSE = {"type": "object", "properties": {"expression": {"type": "string"}}}


@pytest.mark.parametrize("fields, param, code", [
    ({"tools": []}, "tools", "empty_array"),
    ({"messages": []}, "messages", "empty_array"),
    ({"messages": [{"role": "user", "content": []}]}, "messages[0].content", "empty_array"),
    ({"tools": [{"type": "function", "function": {"name": "calculate", "strict": True,
                                                  "parameters": LOOSE}}]},
     "tools[0].function.parameters", "invalid_function_parameters"),
    ({"tools": [{"type": "function", "function": {"name": "calculate", "strict": True,
                                                  "parameters": {**LOOSE,
                                                                 "additionalProperties": False}}}]},
     "tools[0].function.parameters", "invalid_function_parameters"),
    ({"response_format": {"type": "json_schema", "json_schema": {
        "name": "A", "strict": True, "schema": {**LOOSE, "required": ["expression"]}}}},
     "response_format", None),
    ({"response_format": {"type": "json_object"}}, "messages", None),
])
def test_what_the_real_api_refuses_is_refused_with_its_code(fields, param, code):
    status, payload = ask(**fields)
    assert status == 400, payload
    validator("ErrorResponse").validate(payload)
    assert (payload["error"]["param"], payload["error"]["code"]) == (param, code)


def test_a_strict_schema_message_names_the_rule_and_where():
    nested = {"type": "object", "additionalProperties": False, "required": ["inner"],
              "properties": {"inner": LOOSE}}
    status, payload = ask(response_format={"type": "json_schema", "json_schema": {
        "name": "A", "strict": True, "schema": nested}})
    assert payload["error"]["message"] == (
        "Invalid schema for response_format 'A': In context=('properties', 'inner'), "
        "'additionalProperties' is required to be supplied and to be false.")


STRICT = {"type": "object", "additionalProperties": False, "required": [], "properties": {}}


@pytest.mark.parametrize("schema, where", [
    ({"type": "object"}, ()),  # an object without properties needs the rule too
    ({**STRICT, "$defs": {"Node": LOOSE}}, ("$defs", "Node")),
    ({**STRICT, "definitions": {"Node": LOOSE}}, ("definitions", "Node")),
    ({**STRICT, "required": ["a"], "properties": {"a": LOOSE}, "$defs": {"N": STRICT}},
     ("properties", "a")),
    ({"type": "array", "items": LOOSE}, ("items",)),
    ({"anyOf": [True, STRICT, LOOSE], "oneOf": [STRICT]}, ("anyOf", "2")),
    ({"allOf": [LOOSE]}, ("allOf", "0")),
    ({"oneOf": [STRICT, LOOSE]}, ("oneOf", "1")),
])
def test_a_strict_schema_is_checked_wherever_a_schema_can_sit(schema, where):
    status, payload = ask(response_format={"type": "json_schema", "json_schema": {
        "name": "A", "strict": True, "schema": schema}})
    assert status == 400 and payload["error"]["param"] == "response_format", payload
    assert f"In context={where!r}, 'additionalProperties'" in payload["error"]["message"]


def test_a_strict_schema_is_looked_at_up_to_its_stated_number_of_sub_schemas():
    """MAX_STRICT_NODES bounds the work one request can ask for: a problem in the last
    sub-schema looked at is found, one just past it is not looked for."""
    def with_loose_node_at(position):  # the root is node 1, its properties the next ones
        names = [f"p{n}" for n in range(position - 1)]
        properties = {name: {"type": "string"} for name in names[:-1]} | {names[-1]: LOOSE}
        return {**STRICT, "required": names, "properties": properties}

    assert api_checks.strict_problem(with_loose_node_at(api_checks.MAX_STRICT_NODES))
    assert api_checks.strict_problem(with_loose_node_at(api_checks.MAX_STRICT_NODES + 1)) is None


def test_a_strict_schema_that_keeps_the_rules_and_json_said_are_accepted():
    strict = {**LOOSE, "required": ["expression"], "additionalProperties": False}
    assert ask(tools=[{"type": "function", "function": {
        "name": "calculate", "strict": True, "parameters": strict}}])[0] == 200
    assert ask(messages=[{"role": "user", "content": [{"type": "text", "text": "As JSON:"}]}],
               response_format={"type": "json_object"})[0] == 200


@pytest.mark.parametrize("allowed", [
    {"type": "function", "function": {"name": "get_time"}},
    {"type": "function", "name": "get_time"},  # the Responses API's shape, which clients mix up
])
def test_allowed_tools_is_accepted_and_limits_the_calls(allowed):
    status, payload = ask(messages=[{"role": "user", "content": TASK}], tools=SCHEMAS,
                          tool_choice={"type": "allowed_tools", "allowed_tools": {
                              "mode": "required", "tools": [allowed]}})
    assert status == 200, payload
    calls = payload["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_time"]
    assert ask(tools=SCHEMAS, tool_choice={"type": "allowed_tools", "allowed_tools": {
        "mode": "auto", "tools": [{"type": "function", "function": {"name": "nope"}}]}}
    )[1]["error"]["param"] == "tool_choice"


@pytest.mark.parametrize("parts", [["17 * 23 = 391"], ['{"result": ', "391}"], ["3", "91"]])
def test_a_tool_result_sent_as_text_parts_is_read_and_not_asked_again(parts):
    messages = [{"role": "user", "content": "What is 17 * 23?"},
                asked(call(arguments='{"expression": "17 * 23"}')),
                {"role": "tool", "tool_call_id": "c1",
                 "content": [{"type": "text", "text": p} for p in parts]}]
    status, payload = ask(messages=messages, tools=SCHEMAS)
    message = payload["choices"][0]["message"]
    assert "tool_calls" not in message and "391" in message["content"]


def test_a_recursive_schema_gets_json_that_fits_it():
    from jsonschema import Draft202012Validator

    node = {"type": "object", "additionalProperties": False,
            "required": ["name", "next", "children"],
            "properties": {"name": {"type": "string"},
                           "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                           "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    for schema in ({"$defs": {"Node": node}, "$ref": "#/$defs/Node"},
                   {**node, "properties": {**node["properties"], "children": {
                       "type": "array", "items": {"$ref": "#"}}}, "$defs": {"Node": node}}):
        status, payload = ask(response_format={"type": "json_schema", "json_schema": {
            "name": "Tree", "strict": True, "schema": schema}})
        value = json.loads(payload["choices"][0]["message"]["content"])
        Draft202012Validator(schema).validate(value)  # no [null] child, nor a null name
        assert value["children"] == []
