"""Real clients through `agentlab serve` (issue 32): the shapes an outside review found the
tutor misreading, each driven by the client itself where it installs here, and sent as the
exact request it makes where it does not (CrewAI and LlamaIndex's OpenAI LLM need openai<3,
which the Agents SDK in `compat` does not allow).

    Semantic Kernel (`compat-more`)   plugin-prefixed tool names; a city in another script
    agno (`compat`)                   JSON mode's <json_fields>
    LangChain (`compat`)              json_mode's keys named in the prompt; names in any script
    DSPy (`compat`)                   ReAct under the JSONAdapter
    openai-python                     the parse helper after results sent as JSON strings
    CrewAI, LlamaIndex (raw)          a structured kickoff; an agent's output_cls

The server and the offline fixture are tests/compat_serve.py's.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pydantic", reason="the compat runners need pydantic")
import compat_clients as clients  # noqa: E402
from compat_serve import base_url, bounded, installed, needs, offline  # noqa: E402, F401
from test_compat_protocols import right  # noqa: E402
from test_tutor_prompt_shapes import (CREW_FORMAT, CREW_TASK, GET_WEATHER,  # noqa: E402
                                      REPORT_SCHEMA, captured)

NAMES = ["Zürich", "São Paulo", "Kraków", "Москва", "東京"]


def needs_more(module: str, package: str):
    """Skip, saying why, when a client of the `compat-more` extra is not installed."""
    return pytest.mark.skipif(not installed(module), reason=(
        f"{package} is not installed: pip install -e '.[compat-more]'"))


def post(base_url: str, body: dict) -> dict:
    """The assistant message the served tutor answers a chat-completions request with."""
    import httpx

    reply = httpx.post(f"{base_url}/chat/completions", json=body, timeout=10,
                       headers={"Authorization": "Bearer sk-dummy-offline"})
    assert reply.status_code == 200, reply.text
    return reply.json()["choices"][0]["message"]


@needs_more("semantic_kernel", "semantic-kernel")
def test_semantic_kernel_plugins_answer_the_course_task(base_url, offline):
    """Before: TimePlugin-get_time was read as an answer class: 5 runs of 5 failed."""
    assert right(bounded(clients.run_semantic_kernel, base_url))


@needs_more("semantic_kernel", "semantic-kernel")
@pytest.mark.parametrize("city", NAMES)
def test_semantic_kernel_asks_the_weather_of_a_city_in_any_script(city, base_url, offline):
    answer = bounded(clients.run_semantic_kernel, base_url, f"What's the weather in {city}?")
    assert clients.CALLS == [{"city": city}] and city in answer


@needs("agno", "agno")
def test_agno_json_mode_fills_the_fields_it_lists(base_url, offline):
    """Before: {"answer": ...}, which agno could not read as the Answer it asked for (it
    returned the text instead)."""
    output = bounded(clients.run_agno_json_mode, base_url)
    assert isinstance(output, clients.Answer) and right(output), output


@needs("langchain_openai", "langchain-openai")
def test_langchain_json_mode_gets_the_keys_its_prompt_names(base_url, offline):
    """Before: OutputParserException, "justification: Field required"."""
    parsed = bounded(clients.run_langchain_json_mode, base_url)
    assert parsed.answer and parsed.justification


@needs("langchain", "langchain")
@pytest.mark.parametrize("city", NAMES)
def test_langchain_agent_asks_the_weather_of_a_city_in_any_script(city, base_url, offline):
    """Before: Zürich was asked for as "Z", São Paulo as "S" and "Paulo", Москва not at all."""
    answer, calls = bounded(clients.run_langchain_weather, base_url, city)
    assert calls == [{"city": city}] and f"It's 18 °C and clear in {city}." in answer


@needs("dspy", "dspy")
def test_dspy_react_under_the_json_adapter_completes_the_task(base_url, offline):
    """Before: AdapterParseError, the fields written under [[ ## ]] headers, not as JSON."""
    assert right(bounded(clients.run_dspy_json_adapter, base_url))


@pytest.mark.parametrize("city", ["Oslo", "Zürich"])
def test_openai_parse_reads_results_sent_as_json_strings(city, base_url, offline):
    """Before: fahrenheit 18, the Celsius number, as "\\"64.4\\"" was not read as one."""
    parsed = bounded(clients.run_openai_parse, base_url, city)
    assert parsed.model_dump() == {"city": city, "fahrenheit": 64.4, "conditions": "clear"}


def test_crewai_structured_kickoff_as_it_sends_it(base_url, offline):
    """The agent's two requests and the converter's, sent to the served tutor."""
    first = post(base_url, {"model": "tutor", "messages": CREW_TASK, "tools": [GET_WEATHER]})
    (call,) = first["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    result = {"role": "tool", "tool_call_id": call["id"],
              "content": json.dumps({"city": "Oslo", "temp_c": 18, "conditions": "clear"})}
    final = post(base_url, {"model": "tutor", "messages": CREW_TASK + [first, result],
                            "tools": [GET_WEATHER]})
    expected = {"city": "Oslo", "temperature_c": 18, "conditions": "clear"}
    assert json.loads(final["content"]) == expected
    converted = post(base_url, {"model": "tutor", "messages": [
        {"role": "system", "content": "I'm gonna convert this raw text into valid JSON.\n\n"
                                      + CREW_FORMAT},
        {"role": "user", "content": final["content"]}], "response_format": {
        "type": "json_schema", "json_schema": {"name": "WeatherReport", "strict": True,
                                               "schema": {**REPORT_SCHEMA,
                                                          "additionalProperties": False}}}})
    assert json.loads(converted["content"]) == expected


def test_llamaindex_output_cls_as_it_sends_it(base_url, offline):
    (call,) = post(base_url, captured("llamaindex_output_cls"))["tool_calls"]
    arguments = json.loads(call["function"]["arguments"])
    assert arguments["value"] == 403 and "09:30 UTC" in arguments["time"]
