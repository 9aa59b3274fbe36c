"""Real clients, protocols beyond native tool calls: each framework's own agent completes the
course's task through `agentlab serve` (issue 22).

    the OpenAI Agents SDK with its defaults (the Responses API), plain, streamed, structured
    a tool loop written by hand with client.responses.create, plain and streamed
    LlamaIndex's ReActAgent (text ReAct), smolagents' CodeAgent (code actions)
    instructor's JSON and MD_JSON modes, Pydantic AI's PromptedOutput (a schema written into
    the messages)
    DSPy's ReAct, where it is installed

Each needs its framework from the `compat` extra; one that is missing skips its own cases and
says why. The server and the offline fixture are tests/compat_serve.py's.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pydantic", reason="the compat runners need pydantic")
import compat_protocols as protocols  # noqa: E402
from compat_frameworks import FIXED_TIME, Answer  # noqa: E402
from compat_serve import base_url, bounded, needs, offline  # noqa: E402, F401


def right(output) -> bool:
    """The course's task answered: 17 * 23 + sqrt(144) = 403, and the time get_time gave."""
    if isinstance(output, Answer):
        return output.value == 403 and FIXED_TIME in output.time
    return isinstance(output, str) and "403" in output and FIXED_TIME in output


@needs("agents", "openai-agents")
@pytest.mark.parametrize("mode", ["plain", "stream", "structured"])
def test_the_agents_sdk_with_its_defaults_speaks_the_responses_api(mode, base_url, offline,
                                                                   monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)  # how its docs point it at a server
    output = bounded(protocols.run_agents_sdk_defaults, mode)
    assert right(output), output


@pytest.mark.parametrize("mode", ["plain", "stream"])
def test_a_tool_loop_written_with_responses_create(mode, base_url, offline):
    output = bounded(protocols.run_responses_by_hand, base_url, mode)
    assert right(output), output


@needs("llama_index.core", "llama-index-core")
def test_llamaindex_react_agent_reads_and_writes_text_react(base_url, offline):
    output = bounded(protocols.run_llamaindex_react, base_url)
    assert right(output), output


@needs("smolagents", "smolagents")
def test_smolagents_code_agent_runs_the_tutors_code(base_url, offline):
    output = bounded(protocols.run_smolagents_code, base_url)
    assert right(output), output


@needs("instructor", "instructor")
@pytest.mark.parametrize("mode", ["json", "md_json"])
def test_instructor_fills_the_schema_it_writes_into_the_messages(mode, base_url, offline):
    city = bounded(protocols.run_instructor, base_url, mode)
    assert city.model_dump() == {"name": "Tokyo", "country": "Japan", "population_millions": 14}


@needs("pydantic_ai", "pydantic-ai-slim[openai]")
def test_pydantic_ai_prompted_output_gets_json_that_fits(base_url, offline):
    output = bounded(protocols.run_pydantic_ai_prompted, base_url)
    assert right(output), output


@needs("dspy", "dspy")
def test_dspy_react_completes_the_task(base_url, offline):
    output = bounded(protocols.run_dspy_react, base_url)
    assert right(output), output
