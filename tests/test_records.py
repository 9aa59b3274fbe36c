"""Run records: JSON round trip, notebook display, and no secret anywhere."""

import json

from agentlab import Run, run_agent
from agentlab.records import format_step, redact
from agentlab.toolkit import COURSE_TOOLS

TASK = "What's the weather in the capital of Peru, in Fahrenheit?"


def test_json_round_trip_is_lossless():
    run = run_agent(TASK, COURSE_TOOLS)
    again = Run.from_json(run.to_json())
    assert again == run
    assert again.to_json() == run.to_json()
    data = json.loads(run.to_json())
    assert data["totals"] == {"prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
                              "cost_usd": run.cost_usd, "tool_calls": 3}
    assert data["limits"]["max_steps"] == 10 and data["priced_as"] == "gpt-4o-mini"


def test_a_stopped_run_round_trips_too():
    from agentlab import Limits

    run = run_agent("What is 1 + 1?", COURSE_TOOLS, model="tutor-looper", limits=Limits(max_steps=2))
    assert Run.from_json(run.to_json()) == run and run.stop_reason == "max_steps"


def test_summary_and_html():
    run = run_agent(TASK, COURSE_TOOLS)
    summary = run.summary()
    assert summary.startswith("answered after 4 steps, 3 tool calls, ")
    assert summary.endswith(f"${run.cost_usd:.6f} as gpt-4o-mini")
    page = run._repr_html_()
    assert page.count("<tr>") == 1 + 4
    assert "<code>lookup_country({&quot;country&quot;: &quot;Peru&quot;})</code>" in page
    assert "That is 66.2 °F." in page
    assert "<Run tutor: answered after 4 steps" in repr(run)


def test_step_log_lines():
    run = run_agent(TASK, COURSE_TOOLS)
    assert format_step(run.steps[2]) == '  step 2: calling calculate({"expression": "19 * 9 / 5 + 32"}) -> 66.2'
    assert format_step(run.steps[3]).startswith("  step 3: answer: The capital of Peru is Lima")


def test_a_step_whose_tool_calls_never_ran_is_not_logged_as_an_answer():
    """Pay-then-check stops after the call that crosses the budget: the model asked for two
    tools, neither ran. The log, the table and the record say so; none calls it an answer."""
    from agentlab import Limits

    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", COURSE_TOOLS,
                    limits=Limits(max_cost_usd=0.0001), budget="after")
    assert run.stop_reason == "max_cost" and len(run.steps) == 1
    step = run.steps[0]
    assert step.tool_calls == [] and step.answer is None
    assert step.calls_not_run == ["get_time", "calculate"]
    assert format_step(step) == ("  step 0: asked for get_time, calculate "
                                 "(not run: the run stopped first)")
    assert "<b>asked for</b> get_time, calculate" in run._repr_html_()
    assert "<b>answer</b>" not in run._repr_html_()


def test_an_answer_the_budget_threw_away_is_not_logged_as_the_answer():
    """Pay-then-check: the answer crossed the budget, so the run returns none. The log and
    the table say the reply went unused, as the run's own answer (None) does."""
    from agentlab import Limits, Run

    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", COURSE_TOOLS,
                    limits=Limits(max_cost_usd=0.0002), budget="after")
    assert run.stop_reason == "max_cost" and run.answer is None and len(run.steps) == 2
    last = run.steps[-1]
    assert last.reply_unused and last.answer is None and not last.message.get("tool_calls")
    assert format_step(last).startswith("  step 1: reply not used (the run stopped first): ")
    assert "<b>reply not used</b>" in run._repr_html_()
    assert "<b>answer</b>" not in run._repr_html_()
    assert not run.steps[0].reply_unused  # only the step whose reply was dropped
    assert Run.from_json(run.to_json()) == run


def test_a_long_answer_is_cut_with_a_visible_mark_in_the_log():
    run = run_agent(TASK, COURSE_TOOLS)
    answer = run.steps[3].message["content"]
    assert len(answer) > 100
    assert format_step(run.steps[3]) == f"  step 3: answer: {answer[:100]}..."


FAKE_KEY = "sk-proj-FAKEfakeFAKEfake0123456789abcdefABCDEF"


def test_keys_are_redacted(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    assert FAKE_KEY not in redact(f"Incorrect API key provided: {FAKE_KEY}.")
    assert "sk-other1234567890" not in redact("key sk-other1234567890 leaked")


def test_an_api_error_that_echoes_the_key_is_redacted(monkeypatch, capsys):
    from agentlab import connect, print_step
    from agentlab.server import make_transport

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)

    def unauthorized(method, path, body):  # what OpenAI says for a wrong key, key included
        return 401, {"error": {"message": f"Incorrect API key provided: {FAKE_KEY}.",
                               "type": "invalid_request_error", "param": None,
                               "code": "invalid_api_key"}}, 0.0

    client = connect("tutor", transport=make_transport(unauthorized))
    assert client.offline  # a tutor name stays offline even with a key set
    run = run_agent("What is 1 + 1?", COURSE_TOOLS, client=client, on_step=print_step)
    assert run.stop_reason == "error" and "AuthenticationError (HTTP 401)" in run.stop_detail
    for text in (run.to_json(), repr(run), run.summary(), run._repr_html_(), repr(client),
                 capsys.readouterr().out):
        assert FAKE_KEY not in text
