"""The tutor honours the request's protocol fields as the API defines them, says what it is
about to do before it acts, and reads histories written as text."""

import json

import jsonschema
import pytest

from agentlab import run_agent
from agentlab.toolkit import COURSE_TOOLS, calculate, get_time
from agentlab.tutor import respond

CHAPTER = "What time is it, and what is 17 * 23 + sqrt(144)?"
TOOLS = [get_time.schema, calculate.schema]
NOW = {"timezone": "UTC", "now": "2026-03-14T15:09:26+00:00", "weekday": "Saturday"}


def names(reply):
    return [c["function"]["name"] for c in reply.get("tool_calls") or []]


def answer_tool_calls(reply):
    """The conversation after a reply: each call answered as the course's tools would."""
    results = {"get_time": json.dumps(NOW), "calculate": "403"}
    messages = [reply]
    for call in reply.get("tool_calls") or []:
        messages.append({"role": "tool", "tool_call_id": call["id"],
                         "content": results.get(call["function"]["name"], '"done"')})
    return messages


def run(tools=TOOLS, task=CHAPTER, max_steps=6, **options):
    """A minimal agent loop over respond(): the replies, in order."""
    messages, replies = [{"role": "user", "content": task}], []
    for _ in range(max_steps):
        reply = respond("tutor", messages, tools, **options)
        replies.append(reply)
        if not reply.get("tool_calls"):
            break
        messages += answer_tool_calls(reply)
    return replies


# --- reasoning before acting ---------------------------------------------------------------

def test_tool_calls_come_with_a_sentence_saying_what_and_why():
    reply = respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS)
    assert reply["content"] == ("To answer, I need the current time and the value of "
                                "17 * 23 + sqrt(144), so I'll call get_time and calculate.")
    peru = run_agent("What's the weather in the capital of Peru?", COURSE_TOOLS)
    assert [s.message["content"] for s in peru.steps[:2]] == [
        "To answer, I need the facts about Peru, so I'll call lookup_country.",
        "Next I need the weather in Lima, so I'll call get_weather."]


def test_the_sentence_explains_the_calls_actually_sent():
    one = respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS,
                  parallel_tool_calls=False)
    assert one["content"] == "To answer, I need the current time, so I'll call get_time."


def test_tutor_terse_calls_tools_without_reasoning():
    reply = respond("tutor-terse", [{"role": "user", "content": CHAPTER}], TOOLS)
    assert reply["content"] is None and names(reply) == ["get_time", "calculate"]


# --- tool_choice ---------------------------------------------------------------------------

def test_tool_choice_none_and_auto():
    first = [{"role": "user", "content": CHAPTER}]
    assert names(respond("tutor", first, TOOLS, "none")) == []
    assert names(respond("tutor", first, TOOLS, "auto")) == ["get_time", "calculate"]
    assert names(respond("tutor", first, TOOLS, None)) == ["get_time", "calculate"]


def test_tool_choice_required_always_calls_a_tool():
    assert names(respond("tutor", [{"role": "user", "content": "Write a poem"}], TOOLS,
                         "required"))
    done = [{"role": "user", "content": CHAPTER}] + answer_tool_calls(
        respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS))
    assert names(respond("tutor", done, TOOLS, "auto")) == []  # it would answer...
    assert names(respond("tutor", done, TOOLS, "required"))  # ...but must call a tool


def test_a_named_tool_choice_calls_only_that_tool():
    forced = {"type": "function", "function": {"name": "calculate"}}
    reply = respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS, forced)
    assert names(reply) == ["calculate"]
    assert json.loads(reply["tool_calls"][0]["function"]["arguments"]) == {
        "expression": "17 * 23 + sqrt(144)"}
    reply = respond("tutor", [{"role": "user", "content": "What is 2 + 2?"}], TOOLS,
                    {"type": "function", "function": {"name": "get_time"}})
    assert names(reply) == ["get_time"]


def test_parallel_tool_calls_false_means_one_call_per_reply_and_the_rest_next_turn():
    replies = run(parallel_tool_calls=False)
    assert [names(r) for r in replies] == [["get_time"], ["calculate"], []]
    assert "403" in replies[-1]["content"] and "15:09:26" in replies[-1]["content"]


# --- response_format -----------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"time": {"type": "string"},
                                           "value": {"type": "number"}},
          "required": ["time", "value"], "additionalProperties": False}


@pytest.mark.parametrize("strict", [True, False])
def test_json_schema_answers_validate_and_are_filled_from_the_results(strict):
    fmt = {"type": "json_schema", "json_schema": {"name": "Answer", "schema": SCHEMA,
                                                  "strict": strict}}
    replies = run(response_format=fmt)
    assert replies[0]["content"] is None  # no prose where a client expects JSON
    value = json.loads(replies[-1]["content"])
    jsonschema.validate(value, SCHEMA)
    assert value == {"time": NOW["now"], "value": 403}


def test_json_object_answers_are_a_json_object():
    replies = run(response_format={"type": "json_object"})
    value = json.loads(replies[-1]["content"])
    assert isinstance(value, dict) and "403" in value["answer"]


NESTED = {"$defs": {"Reading": {"type": "object", "properties": {
              "label": {"type": "string"}, "amount": {"type": "integer", "minimum": 0}},
              "required": ["label", "amount"]}},
          "type": "object", "properties": {
              "readings": {"type": "array", "items": {"$ref": "#/$defs/Reading"}, "minItems": 2},
              "kind": {"enum": ["time", "sum"]}, "flag": {"type": ["boolean", "null"]},
              "anything": True, "pair": {"type": "array", "items": [{"type": "string"},
                                                                   {"type": "number"}]},
              "maybe": {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 5}]}},
          "required": ["readings", "kind", "flag", "anything", "pair", "maybe"]}


def test_harder_schemas_still_validate():
    fmt = {"type": "json_schema", "json_schema": {"name": "N", "schema": NESTED}}
    value = json.loads(run(response_format=fmt)[-1]["content"])
    jsonschema.Draft7Validator(NESTED).validate(value)  # draft 7: "items" may be a list
    assert len(value["readings"]) == 2 and value["readings"][0]["amount"] == 403


# --- tools that stand for the answer -------------------------------------------------------

FINAL_RESULT = {"type": "function", "function": {
    "name": "final_result", "description": "The final response which ends this conversation",
    "parameters": SCHEMA}}
FINAL_ANSWER = {"type": "function", "function": {
    "name": "final_answer", "description": "Provides a final answer to the given problem.",
    "parameters": {"type": "object", "properties": {"answer": {
        "type": "string", "description": "The final answer to the problem"}},
        "required": ["answer"]}}}


def test_an_output_tool_gets_the_answer_as_its_arguments():
    replies = run(tools=TOOLS + [FINAL_RESULT], tool_choice="required")
    assert [names(r) for r in replies[:2]] == [["get_time", "calculate"], ["final_result"]]
    arguments = json.loads(replies[1]["tool_calls"][0]["function"]["arguments"])
    assert arguments == {"time": NOW["now"], "value": 403}


def test_smolagents_final_answer_tool_gets_the_prose_answer():
    replies = run(tools=TOOLS + [FINAL_ANSWER], tool_choice="required")
    answer = json.loads(replies[1]["tool_calls"][0]["function"]["arguments"])["answer"]
    assert "403" in answer and NOW["now"] in answer


def test_a_named_output_tool_is_filled_from_its_schema():
    forced = {"type": "function", "function": {"name": "final_result"}}
    first = respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS + [FINAL_RESULT], forced)
    jsonschema.validate(json.loads(first["tool_calls"][0]["function"]["arguments"]), SCHEMA)


# --- histories written as text (smolagents' ToolCallingAgent) ------------------------------

def smolagents_history():
    calls = [{"id": "call_0_0", "type": "function",
              "function": {"name": "get_time", "arguments": {"timezone": "UTC"}}},
             {"id": "call_0_1", "type": "function",
              "function": {"name": "calculate",
                           "arguments": {"expression": "17 * 23 + sqrt(144)"}}}]
    return [
        {"role": "system", "content": [{"type": "text", "text": "You are an expert assistant. "
                                        "Observation: examples...\nCalling tools:\n[]"}]},
        {"role": "user", "content": [{"type": "text", "text": f"New task:\n{CHAPTER}"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "To answer, I need..."}]},
        {"role": "assistant", "content": [{"type": "text",
                                           "text": "Calling tools:\n" + str(calls)}]},
        {"role": "user", "content": [{"type": "text",
                                      "text": "Observation:\n" + str(NOW) + "\n403"}]},
    ]


def test_a_history_written_as_text_is_understood():
    reply = respond("tutor", smolagents_history(), TOOLS + [FINAL_ANSWER], "required")
    assert names(reply) == ["final_answer"]
    answer = json.loads(reply["tool_calls"][0]["function"]["arguments"])["answer"]
    assert answer == f"The time now (UTC) is {NOW['now']}, a Saturday. 17 * 23 + sqrt(144) = 403."


def test_an_error_written_as_text_is_read_as_an_error():
    messages = smolagents_history()[:-1] + [{"role": "user", "content": (
        "Call id: call_0_0\nError:\nunknown tool 'x'\nNow let's retry: take care not to "
        "repeat previous errors!")}]
    reply = respond("tutor", messages, TOOLS)
    assert "I could not use get_time: unknown tool 'x'." in reply["content"]


def test_smolagents_exact_history_as_captured():
    """What smolagents 1.26 sends at step 2 (notes/framework-requests.md): the reasoning and the
    calls in one assistant text, plain-text observations one per line, in call order."""
    calls = ("[{'id': 'call_0_0', 'type': 'function', 'function': {'name': 'get_time', "
             "'arguments': {}}}, {'id': 'call_0_1', 'type': 'function', 'function': {'name': "
             "'calculate', 'arguments': {'expression': '17 * 23 + sqrt(144)'}}}]")
    messages = [
        {"role": "system", "content": [{"type": "text", "text": "1. ALWAYS provide a tool call"}]},
        {"role": "user", "content": [{"type": "text", "text": f"New task:\n{CHAPTER}"}]},
        {"role": "assistant", "content": [{"type": "text", "text": (
            "To answer, I need get_time() first.\nCalling tools:\n" + calls)}]},
        {"role": "user", "content": [{"type": "text", "text": "Observation:\n09:30 UTC\n403"}]}]
    reply = respond("tutor", messages, TOOLS + [FINAL_ANSWER], "required")
    answer = json.loads(reply["tool_calls"][0]["function"]["arguments"])["answer"]
    assert answer == "The time now is 09:30 UTC. 17 * 23 + sqrt(144) = 403."


def test_structured_output_asked_after_the_loop_reads_the_closed_episode():
    """LangChain's with_structured_output, asked on the whole history after the plain answer."""
    messages = [{"role": "user", "content": CHAPTER}]
    for reply in run():
        messages += answer_tool_calls(reply)
    fmt = {"type": "json_schema",
           "json_schema": {"name": "Answer", "schema": SCHEMA, "strict": True}}
    assert json.loads(respond("tutor", messages, None, response_format=fmt)["content"]) == {
        "time": NOW["now"], "value": 403}


def test_tool_choice_none_says_it_was_asked_not_to_call_tools():
    """Not that its tools do not fit: they do (outside review)."""
    reply = respond("tutor", [{"role": "user", "content": CHAPTER}], TOOLS, "none")
    assert reply["content"] == (
        'I was asked not to call any tools this time (tool_choice "none"), and I need them to '
        "find the current time and the value of 17 * 23 + sqrt(144): I only know what tools "
        "tell me, so I cannot answer yet.")


@pytest.mark.parametrize("task", [CHAPTER, "What's the weather in Paris?", "Write a poem",
                                  "What is the meaning of life?"])
def test_with_no_tools_it_says_it_was_given_none(task):
    """Not "none of my tools (none) fits" (outside review)."""
    said = {"I can't answer that: I am the offline tutor, a small scripted model that answers "
            "by using tools, and this request gave me no tools.",
            "Sorry, that is beyond me. I answer by using tools, and I was given none here.",
            "I don't know how to do that. I only know what tools tell me, and I have none in "
            "this request, so I would rather say so than guess."}
    for tools in (None, []):
        assert respond("tutor", [{"role": "user", "content": task}], tools)["content"] in said
