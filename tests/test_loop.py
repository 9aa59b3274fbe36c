"""Every guardrail, shown twice: the failure without it, and the guard holding with it.

The misbehaving tutor personas supply the failures. "Without it" for the allowlist, argument
checks and exceptions is the naive loop a beginner writes first (see `naive_dispatch`): it
crashes. With agentlab's loop the same misbehaviour becomes an error observation and the run
goes on.
"""

import json
import threading

import pytest

from agentlab import Deny, Limits, connect, run_agent, tool
from agentlab.server import handle, make_transport
from agentlab.toolkit import COURSE_TOOLS, calculate, get_time, get_weather

COAT = "What's the weather in Paris, and should I take a coat?"
CHAPTER = "What time is it, and what is 17 * 23 + sqrt(144)?"


def naive_dispatch(response, tool_impls):
    """The loop without guardrails: look the tool up and call it with the parsed arguments."""
    for call in response.tool_calls:
        tool_impls[call.function.name](**json.loads(call.function.arguments))


def first_response(model, task, tools=COURSE_TOOLS):
    client = connect(model)
    messages = [{"role": "user", "content": task}]
    return client.chat(messages=messages, tools=[t.schema for t in tools])


def assert_transcript_complete(run):
    """Every tool call the model asked for has an answer message."""
    asked = [c["id"] for m in run.messages for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in run.messages if m["role"] == "tool"]
    assert sorted(asked) == sorted(answered)


# --- the happy path ------------------------------------------------------------------------

def test_the_chapters_question(fixed_clock):
    run = run_agent(CHAPTER, [get_time, calculate])
    assert run.stop_reason == "answered"
    assert "403" in run.answer and "2026-03-14T15:09:26+00:00" in run.answer
    assert [c.name for c in run.steps[0].tool_calls] == ["get_time", "calculate"]  # parallel
    assert len(run.steps) == 2 and run.cost_usd > 0
    assert run.prompt_tokens == sum(s.prompt_tokens for s in run.steps)
    assert_transcript_complete(run)


def test_on_step_observers_see_every_step_as_it_finishes(capsys):
    from agentlab import print_step

    seen = []
    run = run_agent(COAT, COURSE_TOOLS, on_step=[seen.append, print_step])
    assert seen == run.steps
    out = capsys.readouterr().out
    assert 'step 0: calling get_weather({"city": "Paris"})' in out
    assert "step 1: answer: It's 8 °C and light rain in Paris -- yes, take a coat" in out


def test_limits_are_checked():
    with pytest.raises(ValueError, match="max_steps must be a positive number, not 0"):
        Limits(max_steps=0)
    with pytest.raises(ValueError, match="max_cost_usd must be a positive number or None"):
        Limits(max_cost_usd=-1)
    with pytest.raises(ValueError, match="budget mode"):
        run_agent(COAT, COURSE_TOOLS, budget="sometimes")


# --- step limit ----------------------------------------------------------------------------

def test_step_limit():
    unlimited = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper",
                          limits=Limits(max_steps=25))
    assert unlimited.stop_reason == "max_steps" and len(unlimited.steps) == 25  # never answers
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper", limits=Limits(max_steps=3))
    assert run.stop_reason == "max_steps" and len(run.steps) == 3 and run.answer is None
    assert "step limit of 3" in run.stop_detail
    assert run.limits["max_steps"] == 3  # the record says under which limits it ran
    assert_transcript_complete(run)


def test_wind_down_turns_the_last_step_into_an_answer():
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper",
                    limits=Limits(max_steps=3), wind_down=True)
    assert run.stop_reason == "max_steps" and len(run.steps) == 3
    assert run.stop_detail == "Step limit reached: this is step 3 of 3"  # why it wound down
    assert run.steps[-1].wind_down and not run.steps[-1].tool_calls
    assert run.answer.startswith("I had to stop before finishing. From what I gathered: 2 + 2 = 4.")
    note = run.messages[-2]
    assert note["role"] == "user" and note["content"].startswith("[agentlab] Step limit reached")


# --- budget --------------------------------------------------------------------------------

def test_budget_after_paying_overshoots_and_the_default_never_does():
    limits = Limits(max_cost_usd=0.004)
    after = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-verbose", limits=limits,
                      budget="after", client=connect("tutor-verbose", priced_as="gpt-4o"))
    before = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-verbose", limits=limits,
                       client=connect("tutor-verbose", priced_as="gpt-4o"))
    # Without the look-ahead: the chapter's check runs after paying, so the run ends over budget.
    assert after.stop_reason == "max_cost" and after.cost_usd > 0.004
    # With it: the call that could cross the budget is never made.
    assert before.stop_reason == "max_cost" and before.cost_usd <= 0.004
    assert "the next call could cost up to $" in before.stop_detail
    assert len(before.steps) < len(after.steps)
    assert_transcript_complete(after)


def test_an_unpriceable_model_fails_closed_before_any_call():
    run = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", priced_as="no-such-model-xyz"))
    assert run.stop_reason == "max_cost" and run.steps == []
    assert "cannot price the next call" in run.stop_detail and "no-such-model-xyz" in run.stop_detail
    # Switching the budget off is an explicit choice; then the run goes ahead unpriced.
    free = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", priced_as="no-such-model-xyz"),
                     limits=Limits(max_cost_usd=None), budget="before")
    assert free.stop_reason == "answered"
    assert all(s.cost_estimated and s.cost_usd == 0 for s in free.steps)
    assert "(includes an estimate)" in free.summary()


def without_usage(method, path, body):
    status, payload, delay = handle(method, path, body)
    payload.pop("usage", None)
    return status, payload, delay


def test_a_response_without_usage_counts_as_over_budget():
    client = connect("tutor", transport=make_transport(without_usage))
    run = run_agent(COAT, COURSE_TOOLS, client=client)
    assert run.stop_reason == "max_cost"
    assert "reported no token usage" in run.stop_detail and "counted as over budget" in run.stop_detail
    assert len(run.steps) == 1 and run.steps[0].cost_estimated and run.steps[0].cost_usd > 0
    assert_transcript_complete(run)


# --- time limit ----------------------------------------------------------------------------

def test_time_limit_stops_a_slow_model_and_keeps_the_finished_step(quick_slow_tutor):
    think = quick_slow_tutor  # seconds a request: the limit allows one, not two
    slow = run_agent(COAT, COURSE_TOOLS, model="tutor-slow", limits=Limits(max_seconds=None))
    assert slow.stop_reason == "answered" and len(slow.steps) == 2 and slow.seconds >= 2 * think
    run = run_agent(COAT, COURSE_TOOLS, model="tutor-slow", limits=Limits(max_seconds=1.8 * think))
    assert run.stop_reason == "max_seconds"
    assert len(run.steps) == 1 and run.steps[0].tool_calls[0].name == "get_weather"
    assert run.messages[-1]["role"] == "tool"  # the transcript so far is kept


# --- allowlist -----------------------------------------------------------------------------

def test_allowlist():
    response = first_response("tutor-hallucinator", COAT)
    with pytest.raises(KeyError, match="search_web"):
        naive_dispatch(response, {t.name: t for t in COURSE_TOOLS})
    run = run_agent(COAT, COURSE_TOOLS, model="tutor-hallucinator")
    bad = run.steps[0].tool_calls[0]
    assert bad.name == "search_web" and bad.error.startswith("unknown tool 'search_web'")
    assert run.stop_reason == "answered" and "take a coat" in run.answer  # it recovered


# --- arguments -----------------------------------------------------------------------------

def test_malformed_and_wrong_typed_arguments():
    response = first_response("tutor-sloppy", CHAPTER, [calculate])
    with pytest.raises(json.JSONDecodeError):
        naive_dispatch(response, {"calculate": calculate})
    run = run_agent(CHAPTER, [calculate], model="tutor-sloppy")
    errors = [c.error for c in run.tool_calls]
    assert "not valid JSON" in errors[0]
    assert "argument 'expression' must be string" in errors[1]
    assert errors[2] is None
    assert run.stop_reason == "answered" and "= 403" in run.answer


# --- tool exception and timeout ------------------------------------------------------------

def test_tool_exceptions_go_back_to_the_model():
    @tool
    def get_weather(city: str) -> dict:  # noqa: F811 - a broken twin of the course's tool
        """Get the weather in a city."""
        raise ConnectionError("weather service down")

    with pytest.raises(ConnectionError):
        naive_dispatch(first_response("tutor", COAT), {"get_weather": get_weather})
    run = run_agent(COAT, [get_weather])
    assert run.tool_calls[0].error == "get_weather failed: ConnectionError: weather service down"
    assert run.stop_reason == "answered" and "could not use get_weather" in run.answer


def test_tool_timeout():
    release = threading.Event()

    @tool
    def get_weather(city: str) -> dict:  # noqa: F811
        """Get the weather in a city."""
        release.wait(0.2)  # four times the 0.05 s timeout below
        return {"city": city, "temp_c": 1}

    waited = run_agent(COAT, [get_weather], limits=Limits(tool_timeout=None))
    assert waited.tool_calls[0].error is None and '"temp_c": 1' in waited.tool_calls[0].result
    run = run_agent(COAT, [get_weather], limits=Limits(tool_timeout=0.05))
    release.set()
    assert run.tool_calls[0].error == "get_weather did not finish within 0.05 s and was abandoned"
    assert run.stop_reason == "answered"


# --- truncation ----------------------------------------------------------------------------

def test_truncation():
    @tool
    def get_weather(city: str) -> str:  # noqa: F811
        """Get the weather in a city."""
        return "rain " * 2000  # 10,000 characters

    full = run_agent(COAT, [get_weather], limits=Limits(max_result_chars=None))
    assert len(full.messages[3]["content"]) == 10_000
    run = run_agent(COAT, [get_weather])  # default max_result_chars=4000
    sent = run.messages[3]["content"]
    assert sent.startswith("rain " * 800) and sent.endswith("[truncated: 6,000 of 10,000 characters cut]")
    assert run.tool_calls[0].truncated_chars == 6000
    assert run.prompt_tokens < full.prompt_tokens


# --- repeat guard --------------------------------------------------------------------------

def test_repeat_guard():
    stuck = run_agent(COAT, COURSE_TOOLS, model="tutor-stuck",
                      limits=Limits(max_repeats=None, max_steps=8))
    assert stuck.stop_reason == "max_steps" and len(stuck.tool_calls) == 8
    run = run_agent(COAT, COURSE_TOOLS, model="tutor-stuck", limits=Limits(max_repeats=2))
    ran = [c for c in run.tool_calls if c.error is None]
    refused = [c for c in run.tool_calls if c.error]
    assert len(ran) == 2 and len(refused) == 1 and refused[0].error.startswith("repeat guard")
    assert run.stop_reason == "answered" and "take a coat" in run.answer


# --- approval ------------------------------------------------------------------------------

def test_approval_denial_goes_back_to_the_model():
    runs = []

    @tool
    def get_weather(city: str) -> dict:  # noqa: F811
        """Get the weather in a city."""
        runs.append(city)
        return {"city": city, "temp_c": 8}

    allowed = run_agent(COAT, [get_weather])
    assert runs == ["Paris"] and allowed.tool_calls[0].denied is None
    runs.clear()
    run = run_agent(COAT, [get_weather], approve=lambda name, args: Deny("weather costs money today"))
    assert runs == []  # the model asked; our code said no
    assert run.tool_calls[0].denied == "weather costs money today"
    assert run.tool_calls[0].error == "not allowed: weather costs money today"
    assert run.stop_reason == "answered" and "weather costs money today" in run.answer


# --- API failure mid-run -------------------------------------------------------------------

def fails_after(n_ok, status=500):
    calls = []

    def handler(method, path, body):
        calls.append(path)
        if len(calls) > n_ok:
            return status, {"error": {"message": "the server is on fire", "type": "server_error",
                                      "param": None, "code": None}}, 0.0
        return handle(method, path, body)
    return handler, calls


def test_an_api_error_mid_run_keeps_the_partial_run(fast_retries):
    handler, calls = fails_after(1)
    client = connect("tutor", transport=make_transport(handler), max_retries=2)
    run = run_agent(COAT, COURSE_TOOLS, client=client)
    assert run.stop_reason == "error"
    assert "InternalServerError (HTTP 500)" in run.stop_detail and "on fire" in run.stop_detail
    assert len(calls) == 1 + 3  # one good call, then the SDK's first try and two retries
    assert len(run.steps) == 1 and run.steps[0].tool_calls[0].result.startswith('{"city": "Paris"')
    assert run.cost_usd > 0 and run.messages[-1]["role"] == "tool"
    assert_transcript_complete(run)


def test_a_connection_that_fails_says_where_it_was_sent(fast_retries, monkeypatch):
    """A wrong OPENAI_BASE_URL (here: a closed port on this machine) is named in the stop
    detail, without the password or query a URL can carry."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://student:hunter2@127.0.0.1:1/v1")
    client = connect("llama3.2", priced_as="gpt-4o-mini", max_retries=0)
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client)
    assert run.stop_reason == "error" and "APIConnectionError" in run.stop_detail
    assert run.stop_detail.endswith("(sent to http://127.0.0.1:1/v1/chat/completions)")
    assert "hunter2" not in run.stop_detail and "student" not in run.stop_detail


@pytest.mark.parametrize("base_url, detail", [
    ("http://[::1]:1/v1", "(sent to http://[::1]:1/v1/chat/completions)"),  # pasteable
    ("https://127.0.0.1:1/v1", "(sent to https://127.0.0.1:1/v1/chat/completions)"),
    ("localhost:1/v1", "(the base URL must start with http:// or https://)"),
])
def test_a_base_url_that_cannot_work_is_named_as_it_can_be_fixed(
        fast_retries, monkeypatch, base_url, detail):
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    client = connect("llama3.2", priced_as="gpt-4o-mini", max_retries=0)
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client)
    assert run.stop_reason == "error" and run.stop_detail.endswith(detail)


def test_the_offline_tutor_names_no_address(quick_slow_tutor):
    """Its address is a reserved .invalid name: a timeout is the tutor being slow, not a
    wrong base URL."""
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-slow",
                    limits=Limits(max_seconds=0.1))
    assert run.stop_reason == "max_seconds"
    assert any(name in run.stop_detail for name in ("CallAbandoned", "Timeout"))
    assert "sent to" not in run.stop_detail and ".invalid" not in run.stop_detail


def test_an_error_with_an_answer_names_no_address():
    handler, _ = fails_after(0, status=400)
    run = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", transport=make_transport(handler)))
    assert "sent to" not in run.stop_detail  # the server answered: its message says enough


def test_an_error_with_an_answer_from_a_real_address_names_no_address():
    """A server on this machine (agentlab serve, which refuses an unknown model with a 404 as
    the real API does) answered: its status and message say what was wrong, not where."""
    from server_helpers import running_server

    with running_server() as (host, port):
        client = connect("no-such-model", base_url=f"http://{host}:{port}/v1",
                         api_key="sk-test-key", priced_as="gpt-4o-mini", max_retries=0)
        run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client)
    assert run.stop_reason == "error" and "(HTTP 404)" in run.stop_detail
    assert "sent to" not in run.stop_detail and str(port) not in run.stop_detail


def test_the_tutor_names_no_address_when_its_request_fails_to_connect():
    """An error with no answer that carries the tutor's URL (a transport that fails): the
    reserved .invalid address is not a base URL to fix, so it is not named."""
    from agentlab.server import sdk_http

    http = sdk_http()

    def refuse(request):
        raise http.ConnectError("connection refused", request=request)

    client = connect("tutor", transport=http.MockTransport(refuse), max_retries=0)
    run = run_agent(COAT, COURSE_TOOLS, client=client)
    assert run.stop_reason == "error" and "APIConnectionError" in run.stop_detail
    assert "sent to" not in run.stop_detail and ".invalid" not in run.stop_detail


def test_a_client_error_is_not_retried():
    handler, calls = fails_after(0, status=400)
    run = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", transport=make_transport(handler)))
    assert run.stop_reason == "error" and len(calls) == 1 and run.steps == []


def test_a_call_the_run_never_ran_is_answered_in_the_transcript_with_why():
    """The budget threw away a paid reply that asked for a tool: its call is answered with an
    error saying why it did not run, so the transcript can be sent to the API again (which
    refuses a call left unanswered) and a reader sees what happened."""
    from scripted_models import call_then_answer

    run = run_agent("What time is it?", COURSE_TOOLS, budget="after",
                    client=connect(respond=call_then_answer("get_time", {})),
                    limits=Limits(max_cost_usd=1e-9))
    assert run.stop_reason == "max_cost" and run.steps[-1].reply_unused
    answers = {m["tool_call_id"]: m for m in run.messages if m["role"] == "tool"}
    assert json.loads(answers["call_1"]["content"]) == {
        "error": "not run: the run stopped (max_cost)"}


def test_an_observer_interrupted_after_a_step_is_not_shown_that_step_again():
    """Ctrl-C inside an on_step observer, after its step finished: the run ends interrupted
    with that step kept, and no observer is shown the finished step a second time (only a
    step still in progress is shown when a run is cut short)."""
    shown = []

    def interrupt_once(step):
        shown.append(step.index)
        if len(shown) == 1:
            raise KeyboardInterrupt

    run = run_agent("What is 2 + 2?", COURSE_TOOLS, on_step=interrupt_once)
    assert run.stop_reason == "interrupted" and len(run.steps) == 1
    assert shown == [run.steps[0].index]
