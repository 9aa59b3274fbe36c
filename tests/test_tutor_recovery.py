"""Recovery follows the error: a misbehaving persona fixes its call only when the error names
the problem, as a real model can only fix what it is told about."""

import json

import pytest

from agentlab import run_agent
from agentlab.toolkit import COURSE_TOOLS, calculate, safe_calculate
from agentlab.tools import Tool
from agentlab.tutor import respond

TASK = "What is 17 * 23 + sqrt(144)?"
CALC = calculate.schema
COAT = "What's the weather in Paris, and should I take a coat?"


def vague_calculate(expression):
    """A calculator whose only error message is "nope"."""
    if not isinstance(expression, str):
        return {"error": "nope"}
    return safe_calculate(expression)


# The schema leaves the argument's type open, so the wrong-typed call reaches the function.
VAGUE = Tool("calculate", "Evaluate an arithmetic expression.",
             {"type": "object", "properties": {"expression": {}}, "required": ["expression"]},
             vague_calculate)


def test_demo_a_vague_error_fails_and_an_informative_one_recovers():
    vague = run_agent(TASK, [VAGUE], model="tutor-sloppy")
    informed = run_agent(TASK, [calculate], model="tutor-sloppy")

    # "nope" names nothing, so the same mistake comes again, then a give-up answer.
    assert [c.result for c in vague.tool_calls[1:]] == ['{"error": "nope"}'] * 2
    assert len({c.arguments for c in vague.tool_calls[1:]}) == 1  # the same mistake again
    assert all(json.loads(c.arguments) != {"expression": "17 * 23 + sqrt(144)"}
               for c in vague.tool_calls[1:])  # never the right call
    assert vague.stop_reason == "answered" and "403" not in vague.answer
    assert "giving up" in vague.answer and '"nope"' in vague.answer

    # agentlab's Toolbox names the JSON, then the argument and its type: fixed, then answered.
    errors = [c.error for c in informed.tool_calls]
    assert "not valid JSON" in errors[0] and "argument 'expression' must be string" in errors[1]
    assert errors[2] is None and informed.answer == "17 * 23 + sqrt(144) = 403."


def history(task, calls_and_results, tools=(CALC,)):
    """A conversation: the task, then each (tool, arguments text, result text) as a step."""
    messages = [{"role": "user", "content": task}]
    for i, (name, arguments, result) in enumerate(calls_and_results):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": name, "arguments": arguments}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    return messages, list(tools)


BROKEN = '{"expression": "17 * 23 + sqrt(144)"'
WRONG = '{"expression": ["17 * 23 + sqrt(144)"]}'
RIGHT = '{"expression": "17 * 23 + sqrt(144)"}'


def sloppy_next(steps):
    reply = respond("tutor-sloppy", *history(TASK, steps))
    return reply["tool_calls"][0]["function"]["arguments"] if reply.get("tool_calls") else reply


@pytest.mark.parametrize("vague", ['{"error": "nope"}', '{"error": "error"}', '{"error": true}',
                                   '{"error": {"code": 17}}', "Error: failed"])
def test_a_vague_error_gets_the_same_mistake_again(vague):
    assert sloppy_next([("calculate", BROKEN, vague)]) == BROKEN
    assert sloppy_next([("calculate", BROKEN, '{"error": "not valid JSON"}'),
                        ("calculate", WRONG, vague)]) == WRONG


def test_after_two_vague_errors_it_gives_up():
    reply = sloppy_next([("calculate", BROKEN, '{"error": "nope"}')] * 2)
    assert "giving up" in reply["content"] and "tool_calls" not in reply


@pytest.mark.parametrize("informative", [
    "the arguments are not valid JSON", "Expecting ',' delimiter: invalid json"])
def test_an_error_that_names_the_json_gets_the_json_fixed(informative):
    assert sloppy_next([("calculate", BROKEN, json.dumps({"error": informative}))]) == WRONG


@pytest.mark.parametrize("informative", [
    "argument 'expression' must be string", "expression: wrong type", "expected a string"])
def test_an_error_that_names_the_argument_or_its_type_gets_the_call_fixed(informative):
    steps = [("calculate", BROKEN, '{"error": "bad JSON"}'),
             ("calculate", WRONG, json.dumps({"error": informative}))]
    assert sloppy_next(steps) == RIGHT


def hallucinator_next(error):
    step = ("search_web", '{"query": "x"}', json.dumps({"error": error}))
    messages, tools = history(COAT, [step], tools=[t.schema for t in COURSE_TOOLS])
    return respond("tutor-hallucinator", messages, tools)


@pytest.mark.parametrize("error", ["unknown tool 'search_web'", "no such tool search_web",
                                   "use one of: calculate, get_time, get_weather, lookup_country"])
def test_the_hallucinator_drops_its_tool_when_the_error_says_which_tools_exist(error):
    calls = hallucinator_next(error)["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather"]


@pytest.mark.parametrize("error", ["nope", "error", "forbidden"])
def test_the_hallucinator_repeats_its_made_up_tool_on_a_vague_error(error):
    calls = hallucinator_next(error)["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["search_web"]


def test_the_hallucinator_recovers_in_a_real_run():
    run = run_agent(COAT, COURSE_TOOLS, model="tutor-hallucinator")
    assert run.tool_calls[0].name == "search_web" and run.tool_calls[1].name == "get_weather"
    assert run.answer.startswith("It's 8 °C and light rain in Paris -- yes, take a coat")
