"""Prompt shapes the tutor reads (issue 32): each framework's request exactly as it sends it,
answered through the server's own request handler.

The requests in tests/data/client_requests/ were captured from the real clients (their README
says how); CrewAI's, which does not install beside the Agents SDK here (it needs openai<3), is
built below from the instructions its source writes (crewai/translations/en.json).
"""

import json
import pathlib

import pytest

from agentlab.server import handle
from agentlab.tutor import respond
from agentlab.tutor.words import Task
from test_tutor_text_protocols import LLAMAINDEX_REACT

REQUESTS = pathlib.Path(__file__).parent / "data" / "client_requests"


def captured(name: str) -> dict:
    return json.loads((REQUESTS / f"{name}.json").read_text(encoding="utf-8"))


def reply(body: dict) -> dict:
    """The assistant message `agentlab serve` answers a chat-completions request with."""
    status, payload, _ = handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200, payload
    return payload["choices"][0]["message"]


def test_langchain_json_mode_gets_the_keys_its_prompt_names():
    """with_structured_output(AnswerWithJustification, method="json_mode"), the prompt from its
    docs. Before: {"answer": ...} only, and the parser failed on the missing justification."""
    content = json.loads(reply(captured("langchain_json_mode"))["content"])
    assert set(content) == {"answer", "justification"}
    assert all(isinstance(v, str) and v for v in content.values())


def test_agno_json_mode_fills_its_json_fields():
    """agno's use_json_mode: the fields in <json_fields>, their types in
    <json_field_properties>, response_format json_object. Before: {"answer": ...}."""
    content = json.loads(reply(captured("agno_json_mode_after_tools"))["content"])
    assert content == {"time": "09:30 UTC", "value": 403}


@pytest.mark.parametrize("tool_choice", ["required", {"type": "function",
                                                      "function": {"name": "Answer"}}])
def test_llamaindex_output_cls_formats_the_transcript_it_sends(tool_choice):
    """An agent's output_cls: the whole run as a <current_conversation> transcript in one user
    message, and the answer's schema as a tool that must be called. Before: time="I'll",
    value=17 (names and numbers picked from the transcript's words)."""
    body = {**captured("llamaindex_output_cls"), "tool_choice": tool_choice}
    (call,) = reply(body)["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    assert call["function"]["name"] == "Answer" and arguments["value"] == 403
    assert "09:30 UTC" in arguments["time"]


def test_dspy_json_adapter_answers_the_next_fields_as_json():
    """Before: the fields under [[ ## ]] headers; JSONAdapter found only the tool's arguments,
    {}, in them and failed ("Expected to find output fields ... [next_thought, ...]")."""
    content = json.loads(reply(captured("dspy_json_adapter_first_step"))["content"])
    assert set(content) == {"next_thought", "next_tool_name", "next_tool_args"}
    assert content["next_tool_name"] == "get_time" and content["next_tool_args"] == {}
    extract = json.loads(reply(captured("dspy_json_adapter_extract"))["content"])
    assert set(extract) == {"reasoning", "answer"}
    assert "403" in extract["answer"] and "09:30 UTC" in extract["answer"]


# --- CrewAI: a structured kickoff (Task(output_pydantic=WeatherReport)) ------------------------
REPORT_SCHEMA = {  # pydantic's model_json_schema() of WeatherReport, titles and all
    "properties": {"city": {"title": "City", "type": "string"},
                   "temperature_c": {"title": "Temperature C", "type": "number"},
                   "conditions": {"title": "Conditions", "type": "string"}},
    "required": ["city", "temperature_c", "conditions"], "title": "WeatherReport",
    "type": "object"}
CREW_FORMAT = (  # crewai's "formatted_task_instructions", with the schema as it writes it
    "Format your final answer according to the following OpenAPI schema: "
    + json.dumps(REPORT_SCHEMA, indent=2) + "\n\nIMPORTANT: Preserve the original content "
    "exactly as-is. Do NOT rewrite, paraphrase, or modify the meaning of the content. Only "
    "structure it to match the schema format.\n\nDo not include the OpenAPI schema in the final "
    "output. Ensure the final output does not include any code block markers like ```json or "
    "```python.")
CREW_TASK = [
    {"role": "system", "content": "You are Weather reporter. You report the weather.\n"
                                  "Your personal goal is: Report the weather accurately"},
    {"role": "user", "content": "\nCurrent Task: What's the weather in Oslo?\n\nThis is the "
     "expected criteria for your final answer: The city, its temperature in Celsius and the "
     "conditions.\nyou MUST return the actual complete content as the final answer, not a "
     "summary.\n" + CREW_FORMAT}]
GET_WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}


def test_crewai_structured_kickoff_calls_for_the_place_and_answers_the_schema_unfenced():
    """Before: get_weather for Oslo, Conditions, WeatherReport, Preserve and Content (the
    schema's titles and the instructions' words), and an answer in the ```json fence the
    instructions say not to use."""
    first = reply({"model": "tutor", "messages": CREW_TASK, "tools": [GET_WEATHER]})
    (call,) = first["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    result = {"role": "tool", "tool_call_id": call["id"],
              "content": json.dumps({"city": "Oslo", "temp_c": 18, "conditions": "clear"})}
    final = reply({"model": "tutor", "messages": CREW_TASK + [first, result],
                   "tools": [GET_WEATHER]})
    assert not final["content"].startswith("```")
    assert json.loads(final["content"]) == {"city": "Oslo", "temperature_c": 18,
                                            "conditions": "clear"}


@pytest.mark.parametrize("answer", [
    "It's 18 °C and clear in Oslo.",
    '{"city": "Oslo", "temperature_c": 18, "conditions": "clear"}',
])
def test_crewai_converter_reads_the_answer_it_converts(answer):
    """CrewAI's Converter: its instructions and the agent's answer, response_format the
    schema. Before: city "C" (from "°C"), or the JSON answer's keys taken for its values."""
    body = {"model": "tutor", "messages": [
        {"role": "system", "content": "I'm gonna convert this raw text into valid JSON.\n\n"
                                      + CREW_FORMAT},
        {"role": "user", "content": answer}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "WeatherReport", "strict": True, "schema": {
                **REPORT_SCHEMA, "additionalProperties": False}}}}
    content = json.loads(reply(body)["content"])
    assert content["city"] == "Oslo" and content["temperature_c"] == 18
    if answer.startswith("{"):
        assert content["conditions"] == "clear"


@pytest.mark.parametrize("text", [
    CREW_TASK[1]["content"],
    "Respond with a JSON object in the following order of fields: `next_thought`, then "
    "`next_tool_name` (must be formatted as a valid Python Literal['get_time', 'finish']).",
    "Given the conversation, format the output according to the provided schema.",
    "Begin! This is VERY important to you, use the tools available and give your best Final "
    "Answer, your job depends on it!",
])
def test_framework_boilerplate_is_never_a_place(text):
    assert [p for p in Task(text).places if p != "Oslo"] == []


@pytest.mark.parametrize("fence", ["```json\n", "```\n", "```JSON\n"])
def test_a_react_action_input_in_a_json_fence_is_read(fence):
    """Before: the fenced input was not read as JSON, so the call looked unmade (its
    arguments "```json") and the tutor asked for the same weather again."""
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": "What's the weather in Oslo?"},
                {"role": "assistant", "content": "Thought: I need the weather.\nAction: "
                 f"get_weather\nAction Input: {fence}" + '{"city": "Oslo"}\n```'},
                {"role": "user", "content": 'Observation: {"city": "Oslo", "temp_c": 18, '
                 '"conditions": "clear"}'}]
    text = respond("tutor", messages)["content"]
    assert "Action:" not in text and "Answer: It's 18 °C and clear in Oslo." in text
