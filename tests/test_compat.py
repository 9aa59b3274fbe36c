"""Real clients: four agent frameworks run the course's task against `agentlab serve`.

Each case starts from the framework's own agent and tools (tests/compat_frameworks.py) and
must end with the right answer: 17 * 23 + sqrt(144) = 403, and the time get_time returned.
Two frameworks also run the course's weather and country tasks with tools that return a dict,
which they send on as Python prints it.
The server runs once per module as a subprocess on a free port of 127.0.0.1, exactly as a
teacher would start it; nothing reaches the network (a dummy key, tracing and telemetry off).
"""

from __future__ import annotations

import pytest

import compat_frameworks as frameworks
from compat_serve import base_url, bounded, needs, offline  # noqa: F401

# The whole module needs the `compat` extra; without it, say so and skip.
pytestmark = [needs(module, package) for module, package in [
    ("smolagents", "smolagents"), ("agents", "openai-agents"),
    ("pydantic_ai", "pydantic-ai-slim[openai]"), ("langchain_openai", "langchain-openai"),
    ("langchain", "langchain")]]


CASES = [(framework, mode) for framework, modes in [
    ("smolagents", ["plain", "stream"]),
    ("openai-agents", ["plain", "stream", "structured"]),
    ("pydantic-ai", ["plain", "stream", "structured"]),
    ("langchain", ["plain", "stream", "structured"]),
] for mode in modes]


@pytest.mark.parametrize("framework, mode", CASES)
def test_framework_answers_the_course_task(framework, mode, base_url, offline):
    output = bounded(frameworks.run, framework, base_url, mode)
    if mode == "structured":
        assert isinstance(output, frameworks.Answer), output
        assert output.value == 403
        assert frameworks.FIXED_TIME in output.time
    else:
        assert isinstance(output, str), output
        assert "403" in output, output
        assert frameworks.FIXED_TIME in output, output


@pytest.mark.parametrize("framework", ["smolagents", "openai-agents"])
@pytest.mark.parametrize("task", list(frameworks.WEATHER_TASKS))
def test_dict_returning_tools_answer_the_weather_and_country_tasks(framework, task, base_url,
                                                                   offline):
    """smolagents frames the task as "New task:\n..." and both send str() of the tools' dicts:
    no stray call for "New", and the repr is read as the data it is (outside review)."""
    answer, calls = bounded(frameworks.run_dict_tools, framework, base_url, task)
    assert (answer, calls) == frameworks.WEATHER_TASKS[task]


def test_the_modes_under_test_are_the_issues_eleven():
    """Every framework and mode the issue names has a case (3 + 3 + 3 + 2)."""
    pairs = set(CASES)
    expected = {(name, mode) for name, modes in frameworks.FRAMEWORK_MODES.items()
                for mode in modes}
    assert pairs == expected and len(pairs) == 11
