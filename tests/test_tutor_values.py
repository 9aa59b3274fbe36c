"""Values read by meaning (issue 32): a result sent as a JSON-encoded string is the value it
holds, a number is read with its unit, and a field named for a unit gets that unit's number."""

import json

import pytest

from agentlab.tutor import respond
from agentlab.tutor.reading import parse_result
from agentlab.tutor import structured


def _call(call_id, name, arguments):
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": call_id, "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def weather_then_conversion(conversion_result: str) -> list[dict]:
    """Oslo's weather in Celsius, then a calculator's conversion sent as conversion_result."""
    return [{"role": "user", "content": "What's the weather in Oslo, in Fahrenheit?"},
            _call("a", "get_weather", {"city": "Oslo"}),
            {"role": "tool", "tool_call_id": "a",
             "content": '{"city": "Oslo", "temp_c": 18, "conditions": "clear"}'},
            _call("b", "calculate", {"expression": "18 * 9 / 5 + 32"}),
            {"role": "tool", "tool_call_id": "b", "content": conversion_result}]


SCHEMA = {"type": "object", "additionalProperties": False,
          "required": ["city", "fahrenheit", "conditions"],
          "properties": {"city": {"type": "string"}, "fahrenheit": {"type": "number"},
                         "conditions": {"type": "string"}}}
AS_SCHEMA = {"type": "json_schema", "json_schema": {"name": "W", "strict": True,
                                                    "schema": SCHEMA}}


@pytest.mark.parametrize("sent", [
    json.dumps(json.dumps(64.4)),  # '"64.4"': what json.dumps or JSON.stringify of "64.4" give
    json.dumps("64.4"),
    json.dumps(json.dumps("64.4")),  # encoded twice
    "64.4 °F",
    json.dumps("64.4 °F"),
])
def test_a_conversion_sent_as_a_string_fills_the_fahrenheit_field(sent):
    """Before: the string was not a number, so fahrenheit got the last number, temp_c's 18
    (openai-python's and openai-node's parse helpers, the protocols check)."""
    content = respond("tutor", weather_then_conversion(sent), response_format=AS_SCHEMA)["content"]
    assert json.loads(content) == {"city": "Oslo", "fahrenheit": 64.4, "conditions": "clear"}


@pytest.mark.parametrize("text, value", [
    ('"64.4"', 64.4), ('"\\"64.4\\""', 64.4), ('"{\\"a\\": 1}"', {"a": 1}),
    ('"it rained"', "it rained"), ('"None"', None), ('"unclosed', '"unclosed'),
])
def test_a_json_encoded_string_is_read_as_what_it_holds(text, value):
    assert parse_result(text) == value


@pytest.mark.parametrize("text, amount", [
    ("64.4 °F", (64.4, "fahrenheit")), ("18°C", (18, "celsius")), ("64.4 ℉", (64.4, "fahrenheit")),
    ("20 degrees Celsius", (20, "celsius")), (" 403 ", (403, None)), ("about 5", None),
    ("5 " + " " * 100_000 + "x", None),
])
def test_a_quantity_is_a_number_and_its_unit(text, amount):
    assert structured.quantity(text) == amount


PROSE_SCHEMA = {"type": "object", "additionalProperties": False,
                "required": ["city", "celsius", "fahrenheit"],
                "properties": {"city": {"type": "string"}, "celsius": {"type": "number"},
                               "fahrenheit": {"type": "number"}}}


@pytest.mark.parametrize("text", [
    "It's 18 °C in Oslo, that is 64.4 °F.",
    "That is 64.4 °F in Oslo (18 °C).",  # the order of the numbers does not decide
    "Oslo: 64.4°F, or 18℃.",
])
def test_numbers_in_prose_fill_the_fields_named_for_their_units(text):
    """Before: "°C" was the name "C", and the first number went to the first number field."""
    content = respond("tutor", [{"role": "user", "content": text}], response_format={
        "type": "json_schema", "json_schema": {"name": "W", "schema": PROSE_SCHEMA}})["content"]
    assert json.loads(content) == {"city": "Oslo", "celsius": 18, "fahrenheit": 64.4}


def test_a_field_in_one_unit_never_takes_a_number_in_another():
    """Only Celsius was measured: a Fahrenheit field gets no Celsius number."""
    messages = weather_then_conversion("")[:3]
    schema = {"type": "object", "properties": {"temp_f": {"type": "number"}},
              "required": ["temp_f"]}
    content = respond("tutor", messages, response_format={
        "type": "json_schema", "json_schema": {"name": "W", "schema": schema}})["content"]
    assert json.loads(content) != {"temp_f": 18}
