"""The exercise checks accept a right answer and explain a wrong one (they can fail)."""

import json

import pytest

from agentlab import Deny, Limits, tool
from agentlab import exercises as ex


def test_check_observe():
    def right(messages, call, result):
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})

    assert ex.check_observe(right)
    wrong_id = ex.check_observe(lambda m, c, r: m.append({"role": "tool", "tool_call_id": "x", "content": "{}"}))
    assert not wrong_id and "tool_call_id" in wrong_id.message
    not_text = ex.check_observe(lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id, "content": r}))
    assert not not_text and "json.dumps" in not_text.message
    raises = ex.check_observe(lambda m, c, r: 1 / 0)
    assert not raises and "ZeroDivisionError" in raises.message
    assert repr(raises).startswith("✗ Not yet: ")


def test_check_temperature_tool():
    @tool
    def convert_temperature(celsius: float) -> float:
        """Celsius to Fahrenheit.

        Args:
            celsius: degrees C.
        """
        return celsius * 9 / 5 + 32

    @tool
    def backwards(celsius: float) -> float:
        """Wrong way round.

        Args:
            celsius: degrees C.
        """
        return (celsius - 32) * 5 / 9

    @tool
    def undocumented(celsius: float) -> float:
        """Celsius to Fahrenheit."""
        return celsius * 9 / 5 + 32

    assert ex.check_temperature_tool(convert_temperature)
    assert "should be 212" in ex.check_temperature_tool(backwards).message
    assert "describe celsius" in ex.check_temperature_tool(undocumented).message
    assert "@tool" in ex.check_temperature_tool(lambda c: c).message


def test_check_count_tool_calls():
    assert ex.check_count_tool_calls(lambda run: {c.name: sum(1 for d in run.tool_calls if d.name == c.name)
                                                  for c in run.tool_calls})
    assert not ex.check_count_tool_calls(lambda run: {"get_weather": len(run.steps)})


def test_check_europe_only():
    assert ex.check_europe_only(lambda n, a: True if n == "get_weather" and a["city"] in ex.EUROPE else Deny("no"))
    assert not ex.check_europe_only(lambda n, a: True)
    no_reason = ex.check_europe_only(lambda n, a: n == "get_weather" and a["city"] in ex.EUROPE)
    assert not no_reason and "reason" in no_reason.message


def test_check_looper_settings():
    assert ex.check_looper_settings(Limits(max_steps=3), wind_down=True)
    assert "without an answer" in ex.check_looper_settings(Limits(max_steps=3)).message
    assert "stop it within 3" in ex.check_looper_settings(Limits(max_steps=5), wind_down=True).message


def test_check_smallest_budget():
    assert ex.check_smallest_budget(10 ** -2.75)
    assert "smaller slider value" in ex.check_smallest_budget(0.01).message
    assert "does not answer" in ex.check_smallest_budget(0.001).message


def test_check_success_rates():
    from agentlab.sweeps import success_rates

    assert ex.check_success_rates(success_rates)
    assert not ex.check_success_rates(lambda results: {r.setting: 1.0 for r in results})


def test_check_pick_client(monkeypatch):
    from agentlab import connect

    assert ex.check_pick_client(lambda: connect())
    assert not ex.check_pick_client(lambda: connect("tutor"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-outer-value-must-come-back-000000")
    ex.check_pick_client(lambda: connect())
    import os
    assert os.environ["OPENAI_API_KEY"] == "sk-outer-value-must-come-back-000000"  # restored


@pytest.mark.parametrize("name", [n for n in dir(ex) if n.startswith("check_")])
def test_every_check_is_used_by_a_notebook(name):
    import pathlib

    notebooks = "".join(p.read_text() for p in (pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
    assert name in notebooks
