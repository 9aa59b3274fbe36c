"""The tutor never crashes on a schema-valid request, and answers in time linear in its size."""

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.toolkit import COURSE_TOOLS, calculate
from agentlab.tutor import PERSONAS, completion_tokens, count_tokens, respond

TOOLS = [t.schema for t in COURSE_TOOLS]


def check_message(message):
    """A reply the API could send: an assistant message, JSON, with well-formed tool calls."""
    assert message["role"] == "assistant"
    assert message.get("content") is None or isinstance(message["content"], str)
    for call in message.get("tool_calls") or []:
        assert isinstance(call["id"], str) and call["type"] == "function"
        assert isinstance(call["function"]["name"], str)
        assert isinstance(call["function"]["arguments"], str)
    json.dumps(message)
    assert completion_tokens(message) >= 0


def after(task, name, arguments, result, tools=TOOLS):
    """A conversation in which one call was made and answered with `result`."""
    return [{"role": "user", "content": task},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(arguments)}}]},
            {"role": "tool", "tool_call_id": "c1", "content": result}], tools


COAT = "What's the weather in Paris, and should I take a coat?"
PERU = "What's the weather in the capital of Peru, in Fahrenheit?"


@pytest.mark.parametrize("messages, tools", [
    after(COAT, "get_weather", {"city": "Paris"}, '{"error": {"code": 500, "message": "down"}}'),
    after(COAT, "get_weather", {"city": "Paris"}, '{"error": true}'),
    after(COAT, "get_weather", {"city": "Paris"}, '{"error": [1, 2]}'),
    after(COAT, "get_weather", {"city": "Paris"}, '{"city": "Paris", "conditions": "fog"}'),
    after(COAT, "get_weather", {"city": "Paris"}, '{"temp_c": "warm", "rain": "maybe"}'),
    after(COAT, "get_weather", {"city": "Paris"}, '{"temp_c": 8, "city": null}'),
    after(PERU, "lookup_country", {"country": "Peru"}, '{"capital": "Lima"}'),
    after(PERU, "lookup_country", {"country": "Peru"}, '{"capital": 7, "country": []}'),
    after(PERU, "get_weather", {"city": "Lima"}, '{"temp_c": true}'),
    after(COAT, "get_weather", {"city": "Paris"}, "[" * 5000),
    after(COAT, "get_weather", {"city": "Paris"}, '{"a": ' * 3000),
    after(COAT, "get_weather", [1, 2], "null"),
    ([{"role": "user", "content": "order 2 pizzas"}], [{"type": "function", "function": {
        "name": "order", "parameters": {"type": "object", "properties": {
            "size": True, "extras": {"type": "array", "items": [{"type": "string"}]},
            "count": {"type": ["integer", "null"]}, "kind": {"enum": "not a list"}},
            "required": ["size", "extras", "count", "kind"]}}}]),
    ([{"role": "user", "content": "search my notes"}], [{"type": "function", "function": {
        "name": "search_notes", "parameters": ["not", "a", "dict"]}}]),
    ([{"role": "user", "content": "search my notes"}], [{"type": "function", "function": {
        "name": "search_notes", "parameters": {"properties": [], "required": "query"}}}]),
    ([{"role": "user", "content": [{"type": "text", "text": "What is 2 + 2?"},
                                   {"type": "image_url"}, "stray", {"type": "text", "text": 7}]}],
     TOOLS),
    ([{"role": "user", "content": None}], TOOLS),
    ([{"role": "tool", "tool_call_id": "zz", "content": "orphan"}], TOOLS),
])
def test_requests_that_crashed_the_tutor_get_an_answer(messages, tools):
    for model in PERSONAS:
        check_message(respond(model, messages, tools))


# --- random conversations ------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (st.lists(inner, max_size=4)
                   | st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
words = st.sampled_from(["get_weather", "calculate", "get_time", "lookup_country", "final_result",
                         "search_web", "Answer", "x"])
schemas = st.recursive(
    st.booleans() | st.fixed_dictionaries({"type": st.sampled_from(
        ["string", "number", "integer", "boolean", "null", "object", "array", ["string", "null"]])})
    | st.fixed_dictionaries({"enum": st.lists(json_values, min_size=1, max_size=3)}),
    lambda inner: st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(
        st.sampled_from(["city", "expression", "time", "value", "answer", "query", "n"]), inner,
        max_size=4), "required": st.lists(st.sampled_from(["city", "expression", "time", "n"]),
                                          max_size=2)})
    | st.fixed_dictionaries({"type": st.just("array"),
                             "items": inner | st.lists(inner, max_size=2)})
    | st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
    max_leaves=8)
functions = st.fixed_dictionaries({"name": words, "description": st.text(max_size=30),
                                   "parameters": schemas | json_values})
tools = st.lists(st.fixed_dictionaries({"type": st.just("function"), "function": functions}),
                 max_size=4)
texts = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["What time is it, and what is 17 * 23 + sqrt(144)?", COAT, PERU, "Hello!",
                     "((((1+", "Is it colder in oslo or in New York?", "call delete_files {"]),
    json_values.map(json.dumps),
    json_values.map(lambda v: json.dumps(v)[:7] + "\n...[truncated: 9 of 16 characters cut]"),
    json_values.map(lambda v: "Observation:\n" + str(v)),
    st.just("Calling tools:\n[{'id': 'c9', 'type': 'function', 'function': {'name': "
            "'calculate', 'arguments': {'expression': '1+1'}}}]"),
)
contents = texts | st.none() | st.lists(st.fixed_dictionaries({"type": st.just("text"),
                                                               "text": texts}), max_size=2)


@st.composite
def conversations(draw):
    messages = [{"role": "user", "content": draw(contents)}]
    for step in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["calls", "user", "assistant"]))
        if kind == "calls":
            ids = [f"c{step}_{i}" for i in range(draw(st.integers(1, 3)))]
            calls = [{"id": i, "type": "function",
                      "function": {"name": draw(words), "arguments": draw(texts)}} for i in ids]
            messages.append({"role": "assistant", "content": draw(st.none() | texts),
                             "tool_calls": calls})
            messages += [{"role": "tool", "tool_call_id": i, "content": draw(texts)} for i in ids]
        else:
            messages.append({"role": kind, "content": draw(contents)})
    return messages


tool_choices = st.sampled_from(["none", "auto", "required", None]) | words.map(
    lambda n: {"type": "function", "function": {"name": n}})
formats = st.none() | st.just({"type": "json_object"}) | st.just({"type": "text"}) | schemas.map(
    lambda s: {"type": "json_schema", "json_schema": {"name": "S", "schema": s,
                                                      "strict": True}})


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(model=st.sampled_from(sorted(PERSONAS)), messages=conversations(), tools=tools,
       tool_choice=tool_choices, parallel=st.booleans(), response_format=formats,
       temperature=st.none() | st.floats(0, 2), seed=st.none() | st.integers(0, 2**31))
def test_respond_never_raises(model, messages, tools, tool_choice, parallel, response_format,
                              temperature, seed):
    message = respond(model, messages, tools or None, tool_choice, parallel_tool_calls=parallel,
                      response_format=response_format, temperature=temperature, seed=seed)
    check_message(message)
    if tool_choice == "none" or not tools:
        assert not message.get("tool_calls")
    if not parallel:
        assert len(message.get("tool_calls") or []) <= 1
    count_tokens(messages, tools)


# --- time linear in the size of the request ------------------------------------------------

MB = 1_000_000
PATHOLOGICAL = {
    "open parentheses": "(" * MB,
    "an endless sum": "1+" * (MB // 2),
    "nested calls": "sqrt(" * (MB // 5),
    "digits and parentheses": "(1" * (MB // 2),
    "capitalised words": "Abc " * (MB // 4),
    "places": "in Paris, " * (MB // 10),
    "quotes": "'a" * (MB // 2),
    "injection": "call x {" * (MB // 8),
    "numbers": "7 " * (MB // 2),
}


@pytest.mark.parametrize("name", PATHOLOGICAL)
def test_a_megabyte_of_anything_is_answered_in_well_under_a_few_seconds(name):
    text = PATHOLOGICAL[name]
    start = time.perf_counter()
    respond("tutor", [{"role": "user", "content": text}], [calculate.schema] + TOOLS)
    respond("tutor-gullible", *after("weather in Paris", "get_weather", {"city": "Paris"},
                                     json.dumps({"text": text})))
    assert time.perf_counter() - start < 5  # linear: about 1 s here; the old regex took hours


def test_a_self_referring_schema_gives_a_small_answer_quickly():
    wide = {f"p{i}": {"$ref": "#/$defs/N"} for i in range(200)}
    schema = {"$defs": {"N": {"type": "object", "properties": wide}}, "$ref": "#/$defs/N"}
    fmt = {"type": "json_schema", "json_schema": {"name": "N", "schema": schema}}
    start = time.perf_counter()
    reply = respond("tutor", [{"role": "user", "content": "hi"}], None, response_format=fmt)
    assert time.perf_counter() - start < 5 and len(reply["content"]) < 1_000_000
    loop = {"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}
    check_message(respond("tutor", [{"role": "user", "content": "hi"}], None,
                          response_format={"type": "json_schema",
                                           "json_schema": {"name": "A", "schema": loop}}))


@pytest.mark.parametrize("result", ['{"capital": "City"}', '{"error": "nope"}', "[1, 2, 3]"])
def test_thousands_of_earlier_calls_are_read_in_linear_time(result):
    messages = [{"role": "user", "content": "What's the weather in the capital of Peru?"}]
    for i in range(5000):  # about 1 MB of conversation
        messages += [{"role": "assistant", "content": None, "tool_calls": [
                         {"id": f"c{i}", "type": "function", "function": {
                             "name": "lookup_country", "arguments": f'{{"country": "C{i}"}}'}}]},
                     {"role": "tool", "tool_call_id": f"c{i}", "content": result}]
    start = time.perf_counter()
    for model in PERSONAS:
        check_message(respond(model, messages, TOOLS))
    assert time.perf_counter() - start < 5 * len(PERSONAS)  # about 0.2 s each here


def test_sloppys_wrong_types_takes_arguments_that_are_no_json_object():
    """hypothesis found test_respond_never_raises failing on arguments cut mid-number: the
    sloppy persona's second mistake parsed them as a JSON object and raised."""
    from agentlab.tutor.personas import wrong_types

    assert json.loads(wrong_types('{"city": "Paris"}')) == {"city": ["Paris"]}
    for arguments in ('[-2.460\n...[truncated: 9 of 16 characters cut]', "[1, 2]", "", "7"):
        assert json.loads(wrong_types(arguments)) == [arguments]
