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


# --- the sweeps that check_success_rates and notebook 06 rely on ----------------------------

def test_success_is_judged_by_the_answers_value():
    from agentlab import Run
    from agentlab.sweeps import Task, last_number

    assert last_number("It's 19 °C in Lima. That is 66.2 °F.") == 66.2
    assert last_number("1234 * 5678 = 7,006,652.") == 7006652
    assert last_number("no number") is None and last_number(None) is None
    task = Task("What is 17 * 23 + sqrt(144)?", "403", 403)
    answered = lambda text, reason="answered": Run(task="t", model="tutor", priced_as="x", limits={},
                                                  answer=text, stop_reason=reason)
    assert task.solved_by(answered("17 * 23 + sqrt(144) = 403."))
    assert task.solved_by(answered("The result is 403.0"))
    assert not task.solved_by(answered("I think 403 is close: 404."))  # answered, but wrong
    assert not task.solved_by(answered("403", reason="max_steps"))


def test_measure_tasks_are_a_dozen_or_more_each_with_a_value():
    from agentlab.sweeps import MEASURE_TASKS

    assert len(MEASURE_TASKS) >= 12 and all(t.value is not None for t in MEASURE_TASKS)


def test_spread():
    from agentlab.sweeps import spread

    assert spread({0: 0.5, 1: 1.0}) == {"mean": 0.75, "stdev": 0.354, "low": 0.5, "high": 1.0}
    assert spread({0: 0.9})["stdev"] == 0.0


def test_repeated_trials_send_temperature_and_a_seed_per_trial(monkeypatch):
    from agentlab import server, sweeps

    seen = []
    original = server.handle

    def spy(method, path, body, respond=None):
        if path.endswith("chat/completions"):
            request = json.loads(body)
            seen.append((request.get("temperature"), request.get("seed")))
        return original(method, path, body, respond=respond)

    monkeypatch.setattr(server, "handle", spy)
    results = sweeps.repeat(sweeps.MEASURE_TASKS[:2], times=3, temperature=0.7)
    assert [r.setting for r in results] == [0, 0, 1, 1, 2, 2]
    assert {t for t, _ in seen} == {0.7} and {s for _, s in seen} == {0, 1, 2}
    assert all(r.solved for r in results)
