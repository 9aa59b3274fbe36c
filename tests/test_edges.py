"""The guardrails at their edges: the wall clock, non-finite limits, the budget when the API lies,
replies cut at the cap, the wind-down, Ctrl-C, secrets, misuse, and the exact boundaries."""

import _thread
import json
import math
import signal
import threading
import time
import warnings

import pytest

from agentlab import Limits, Run, connect, models, print_step, run_agent, tool
from agentlab.loop import SYSTEM_PROMPT
from agentlab.masking import MASK, mask
from agentlab.guardrails import Budget
from agentlab.pricing import Price
from agentlab.server import handle, make_transport
from agentlab.toolkit import COURSE_TOOLS, calculate
from agentlab.tools import Toolbox, truncate

from scripted_models import COAT, FAKE_KEY, call_then_answer


def answer(text):
    """A scripted model that always answers `text`."""
    return lambda model, messages, tools, tool_choice, **options: {"role": "assistant",
                                                                   "content": text}


# --- 1. the time limit is a wall clock for the whole run ------------------------------------

def never_answers(method, path, body):
    return 200, {}, 3600.0  # the transport honours the request's read timeout, then times out


SLACK_SECONDS = 0.5  # stated in the README: a run ends within max_seconds + this


def test_a_model_that_never_answers_holds_the_run_no_longer_than_its_time_limit():
    # timeout=5: the SDK's own per-call cap, so a broken deadline fails this test, not hangs it
    client = connect("tutor", transport=make_transport(never_answers), max_retries=2, timeout=5)
    start = time.perf_counter()
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=0.5))
    assert time.perf_counter() - start < 0.5 + SLACK_SECONDS
    assert run.stop_reason == "max_seconds"
    # the watched thread (CallAbandoned) and the SDK's own read timeout end it at the same time
    assert any(name in run.stop_detail for name in ("CallAbandoned", "APITimeoutError"))
    assert run.stop_detail.startswith("0.5 s passed during a model call")  # not "failed"


def test_retries_happen_within_a_short_time_limit_and_stop_at_its_edge(fast_retries):
    # fast_retries: the retry is counted, not timed (test_retry_waits_follow_the_sdks_rule
    # checks the real waits)
    failures = []

    def fails_once(method, path, body):
        if not failures:
            failures.append(1)
            return 500, {"error": {"message": "boom", "type": "server_error", "param": None,
                                   "code": None}}, 0.0
        return handle(method, path, body)

    client = connect("tutor", transport=make_transport(fails_once), max_retries=2)
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=2))
    assert run.stop_reason == "answered" and failures == [1]  # retried, though under 10 s


def test_a_retry_after_longer_than_the_time_left_is_not_waited_for():
    def rate_limited(method, path, body):
        return 429, {"error": {"message": "slow down", "type": "requests", "param": None,
                               "code": None}}, 0.0, {"retry-after": "30"}

    client = connect("tutor", transport=make_transport(rate_limited), max_retries=2)
    start = time.perf_counter()
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=1))
    assert time.perf_counter() - start < 1 + SLACK_SECONDS
    assert run.stop_reason == "error" and "RateLimitError (HTTP 429)" in run.stop_detail


@pytest.mark.parametrize("error, attempt, wait", [
    (429, 0, 0.01), (500, 1, 1.0), (503, 0, 0.5), (400, 0, None), (404, 3, None)])
def test_retry_waits_follow_the_sdks_rule(error, attempt, wait):
    import httpx
    import openai

    headers = {"retry-after-ms": "10"} if error == 429 else {}
    response = httpx.Response(error, headers=headers, request=httpx.Request("POST", "http://x"))
    exc = openai.APIStatusError("x", response=response, body=None)
    assert models._retry_wait(exc, attempt) == wait


# --- 2. limits are finite numbers ------------------------------------------------------------

@pytest.mark.parametrize("name", ["max_cost_usd", "max_seconds", "tool_timeout"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_limits_refuse_nan_and_infinity(name, value):
    with pytest.raises(ValueError, match=f"Limits.{name} must be a positive number or None"):
        Limits(**{name: value})


@pytest.mark.parametrize("name", ["max_steps", "max_cost_usd", "max_seconds", "max_result_chars",
                                  "tool_timeout", "max_repeats", "max_output_tokens"])
def test_every_limit_names_itself_when_refused(name):
    with pytest.raises(ValueError, match=f"^Limits.{name} must be a positive number"):
        Limits(**{name: 0})
    with pytest.raises(ValueError, match=f"^Limits.{name} must be a positive number"):
        Limits(**{name: True})  # a bool is not a number of anything


def test_none_still_switches_a_limit_off():
    assert Limits(max_cost_usd=None, max_seconds=None, tool_timeout=None).max_cost_usd is None


@pytest.mark.parametrize("name, can_be_off", [("max_cost_usd", True), ("max_seconds", True),
                                              ("max_steps", False), ("max_output_tokens", False)])
def test_a_refused_limit_says_whether_none_would_switch_it_off(name, can_be_off):
    """The refusal's advice fits the limit: None for one that can be off, never for one that
    must hold (a run without a step or reply cap is not offered), and None is refused there."""
    with pytest.raises(ValueError) as refused:
        Limits(**{name: -1})
    assert str(refused.value).endswith(" (use None for no limit)") is can_be_off, refused.value
    assert str(refused.value).endswith("not -1") is not can_be_off, refused.value
    if not can_be_off:
        with pytest.raises(ValueError, match=f"^Limits.{name} must be a positive number, not None"):
            Limits(**{name: None})


# --- 3. never exceed, and say so when the API lies ----------------------------------------------

def test_there_is_no_client_that_ignores_the_cap():
    assert not hasattr(models, "LocalClient")
    long_reply = "word " * 500
    run = run_agent("Say a lot.", client=connect(respond=answer(long_reply)),
                    limits=Limits(max_output_tokens=50))
    assert run.steps[0].completion_tokens <= 50  # the same cap rule as the tutor's


def test_a_scripted_model_goes_through_the_sdk_like_the_tutor():
    client = connect(respond=call_then_answer("calculate", {"expression": "17 * 23"}))
    run = run_agent("What is 17 * 23?", COURSE_TOOLS, client=client)
    assert run.stop_reason == "answered" and run.answer == "done: 391"
    assert run.steps[0].prompt_tokens > 0 and run.cost_usd > 0


def inflated_usage(factor):
    def handler(method, path, body):
        status, payload, delay = handle(method, path, body)
        if status == 200:
            payload["usage"]["prompt_tokens"] *= factor
        return status, payload, delay
    return handler


def test_an_api_that_bills_more_than_the_bound_stops_the_run_and_says_by_how_much():
    client = connect("tutor", transport=make_transport(inflated_usage(1000)))
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=0.01))
    assert run.stop_reason == "max_cost" and not run.ok and len(run.steps) == 1
    assert run.cost_usd > 0.01  # the overshoot is recorded, not hidden
    assert "more than the" in run.stop_detail and "over the $0.010000 budget by" in run.stop_detail


# --- 4. a reply cut at the cap ---------------------------------------------------------------

def test_a_reply_cut_at_the_token_cap_is_truncated_not_answered():
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-verbose",
                    limits=Limits(max_output_tokens=40))
    assert run.stop_reason == "truncated" and not run.ok
    assert run.answer and len(run.answer) <= 40 * 4  # the partial text is kept
    assert run.stop_detail == ("the reply was cut off at the max-tokens cap "
                               "(Limits.max_output_tokens); its partial text is kept as the answer")


# --- 5. the wind-down always ends with an answer -----------------------------------------------

@tool(name="get_weather")  # a name the tutor plans for: one call per city, in one step
def big_weather(city: str) -> str:
    """Get the weather in a city, with a long report."""
    return f"{city}: " + "rain, " * 2000


@pytest.mark.parametrize("model, task, tools", [
    ("tutor", "What is the weather in Paris, London, Tokyo and Lima?", [big_weather]),
    ("tutor-looper", "What is 2 + 2?", COURSE_TOOLS),
    ("tutor-verbose", "What is 2 + 2?", COURSE_TOOLS)])
def test_the_wind_down_ends_with_an_answer_at_every_budget(model, task, tools):
    ended = []
    for i in range(40):
        budget = 0.0005 * 1.1 ** i
        run = run_agent(task, tools, model=model, wind_down=True,
                        limits=Limits(max_cost_usd=budget, max_steps=8))
        if run.steps:  # a budget too small for even one call cannot buy an answer
            ended.append((budget, run.answer is not None, run.cost_usd <= budget))
    assert len(ended) >= 30
    assert all(has_answer and within for _, has_answer, within in ended), ended


# --- 6. Ctrl-C keeps what was done -----------------------------------------------------------

@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler, even where pytest was started with SIGINT ignored (a
    background job): interrupt_main() does nothing for an ignored signal."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_a_tool_returns_the_run_with_its_finished_steps(ctrl_c_raises):
    @tool
    def get_weather(city: str) -> str:
        """Get the weather; the user presses Ctrl-C meanwhile."""
        _thread.interrupt_main()  # what Ctrl-C does: KeyboardInterrupt in the main thread
        time.sleep(2)
        return "rain"

    client = connect(respond=call_then_answer("get_weather", {"city": "Paris"}))
    run = run_agent(COAT, [get_weather], client=client)
    assert run.stop_reason == "interrupted"
    assert run.stop_detail == ("interrupted by Ctrl-C (KeyboardInterrupt); the steps so far "
                               "are kept, with the tool calls that ran in the last one")
    assert len(run.steps) == 1 and run.cost_usd > 0  # the paid model call is kept
    assert Run.from_json(run.to_json()) == run
    asked = [c["id"] for m in run.messages for c in m.get("tool_calls") or []]
    assert asked == [m["tool_call_id"] for m in run.messages if m["role"] == "tool"]


def test_a_step_cut_short_by_ctrl_c_is_shown_to_the_observers_once(capsys):
    """Ctrl-C at the second tool call of a step: the step log shows the call that ran and the
    one Ctrl-C cut short (an outside review: the step was in the record, not in the log), which
    may have run: it is never recorded as "not run" (a second review: a tool that sent an email
    was recorded as never run)."""
    def approve(name, arguments):
        if name == "calculate":
            raise KeyboardInterrupt  # what Ctrl-C does, at the second call of the step
        return True

    seen = []
    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", COURSE_TOOLS,
                    approve=approve, on_step=[seen.append, print_step])
    assert run.stop_reason == "interrupted" and len(run.steps) == 1
    assert seen == run.steps  # shown once, as it was when the run stopped
    assert [c.name for c in run.steps[0].tool_calls] == ["get_time", "calculate"]
    assert run.steps[0].tool_calls[1].error.startswith("interrupted by Ctrl-C while it was")
    assert run.steps[0].calls_not_run == []
    log = capsys.readouterr().out
    assert "step 0: calling get_time(" in log
    assert "step 0: calling calculate(" in log and "-> error: interrupted by Ctrl-C" in log


def test_a_tool_that_ctrl_c_interrupts_while_it_runs_is_not_recorded_as_never_run(ctrl_c_raises):
    sent = []

    @tool
    def send_email(to: str) -> str:
        """Send an email."""
        # Ctrl-C while the tool runs: timed from inside it, so a slow start (a first import, a
        # busy machine) cannot move it before the tool or outside run_agent.
        threading.Timer(0.05, _thread.interrupt_main).start()
        time.sleep(0.3)
        sent.append(to)
        return "sent"

    run = run_agent("go", [send_email], client=connect(respond=call_then_answer(
        "send_email", {"to": "bob@example.com"})))
    time.sleep(0.4)  # the abandoned tool finishes in the background, as Python cannot stop it
    assert run.stop_reason == "interrupted" and sent == ["bob@example.com"]
    [call] = run.tool_calls
    assert "it may have run, and may still finish in the background" in call.error
    tool_message = [m for m in run.messages if m["role"] == "tool"]
    assert len(tool_message) == 1 and "may have run" in tool_message[0]["content"]


def test_ctrl_c_during_a_model_call_keeps_the_steps_before_it(ctrl_c_raises):
    turns = []

    def respond(model, messages, tools, tool_choice, **options):
        turns.append(1)
        if len(turns) == 2:
            _thread.interrupt_main()
            time.sleep(1)
        return call_then_answer("calculate", {"expression": "1 + 1"})(
            model, messages, tools, tool_choice)

    run = run_agent("What is 1 + 1?", COURSE_TOOLS, client=connect(respond=respond))
    assert run.stop_reason == "interrupted" and len(run.steps) == 1
    assert run.steps[0].tool_calls[0].result == "2"


# --- 7. secrets are masked at the source -------------------------------------------------------

def test_masking_replaces_a_whole_key():
    assert mask(f"key={FAKE_KEY}.") == f"key={MASK}."
    assert mask("sk-short") == "sk-short"  # too short to be a key
    assert mask(None) is None


@pytest.mark.parametrize("where", ["result", "error", "straddling the cut"])
def test_a_key_from_a_tool_never_reaches_the_model_or_the_record(where, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    cut = 100

    @tool
    def read_config(name: str) -> str:
        """Read a configuration value."""
        if where == "error":
            raise RuntimeError(f"bad config: api_key={FAKE_KEY}")
        if where == "straddling the cut":
            return "x" * (cut - 10) + FAKE_KEY  # a cut at 100 would leave "sk-proj-FA"
        return f"api_key={FAKE_KEY}"

    sent = []

    def respond(model, messages, tools, tool_choice, **options):
        sent.append(json.dumps(messages))
        return call_then_answer("read_config", {"name": "key"})(model, messages, tools, tool_choice)

    run = run_agent("Show the config.", [read_config], client=connect(respond=respond),
                    limits=Limits(max_result_chars=cut), on_step=print_step)
    shown = [*sent, run.to_json(), repr(run), run._repr_html_(), run.summary(),
             capsys.readouterr().out]
    for text in shown:
        assert FAKE_KEY[:10] not in text  # not even a prefix
    assert "[masked" in run.tool_calls[0].result  # the marker may be cut; the key is gone


def test_an_api_error_quoting_a_key_longer_than_the_cut_is_masked(monkeypatch):
    def unauthorized(method, path, body):
        return 401, {"error": {"message": "x" * 480 + f" {FAKE_KEY}", "type": "auth",
                               "param": None, "code": None}}, 0.0

    client = connect("tutor", transport=make_transport(unauthorized))
    run = run_agent(COAT, COURSE_TOOLS, client=client)
    assert run.stop_reason == "error" and FAKE_KEY[:8] not in run.stop_detail


# --- 8. misuse gets a clear error naming the fix ------------------------------------------------

@pytest.mark.parametrize("tools, fix", [
    ("calculate", "not the text 'calculate'"), (calculate, r"pass \[calculate\]"),
    (["calculate"], "pass the function itself"), (42, r"pass \[int\]"),
    (calculate.function, r"pass \[calculate\]")])  # a plain function, not yet a Tool
def test_tools_given_the_wrong_way_name_the_fix(tools, fix):
    with pytest.raises(TypeError, match=fix):
        run_agent("What is 2 + 2?", tools)


@pytest.mark.parametrize("task", [None, 42, ["What is 2 + 2?"]])
def test_a_task_that_is_not_text_names_the_fix(task):
    with pytest.raises(TypeError, match="the task must be text"):
        run_agent(task, [calculate])


def test_tool_warns_about_a_missing_docstring_and_a_misnamed_argument():
    def nameless(city: str) -> str:
        return city

    with pytest.warns(UserWarning, match="@tool .*nameless has no docstring"):
        tool(nameless)

    def misnamed(city: str) -> str:
        """Get the weather.

        Args:
            town: The city.
        """
        return city

    with pytest.warns(UserWarning, match="describes town, which is not a parameter"):
        tool(misnamed)
    def misnamed_twice(city: str) -> str:
        """Get the weather.

        Args:
            town: The city.
            zone: The time zone.
        """
        return city

    with pytest.warns(UserWarning, match="describes town, zone, which are not parameters"):
        tool(misnamed_twice)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tool(big_weather.function)  # a documented tool: no warning


@pytest.mark.parametrize("make", [tool, tool(name="weather"), lambda f: Toolbox([f]),
                                  lambda f: Toolbox.of([f])])
def test_a_tool_warning_points_at_the_line_that_made_the_tool(make):
    """Python shows a warning's file and line: the student's cell, not agentlab's tools.py."""
    def nameless(city: str) -> str:
        return city

    with pytest.warns(UserWarning, match="has no docstring") as caught:
        make(nameless)
    assert caught[0].filename == __file__


# --- 9. priced_as for every client; a flat sum of 100 numbers -----------------------------------

@pytest.mark.parametrize("make", [
    lambda price: connect("tutor", priced_as=price),
    lambda price: connect(respond=answer("4"), priced_as=price),
    lambda price: connect("tutor", transport=make_transport(handle), priced_as=price)])
def test_priced_as_works_for_every_client(make):
    cheap = run_agent("What is 2 + 2?", COURSE_TOOLS, client=make("gpt-4o-mini"))
    dear = run_agent("What is 2 + 2?", COURSE_TOOLS, client=make("gpt-4o"))
    assert dear.priced_as == "gpt-4o" and dear.cost_usd > 10 * cheap.cost_usd
    assert dear.prompt_tokens == cheap.prompt_tokens


def test_calculate_accepts_a_flat_sum_of_100_numbers_but_not_deep_nesting():
    assert calculate("+".join(["1"] * 100)) == 100
    assert calculate(" * ".join(["1"] * 100) + " - 1") == 0
    with pytest.raises(ValueError, match="nested too deeply"):
        calculate("-" * 60 + "1")


# --- 11. one thread per tool call, none left parked ---------------------------------------------

def test_tool_calls_leave_no_thread_behind():
    """Every thread a call starts has ended once the calls return, whatever it is named."""
    box = Toolbox([calculate])
    before = set(threading.enumerate())
    for _ in range(50):
        assert box.call("calculate", '{"expression": "1 + 1"}', timeout=1).content == "2"
    deadline = time.time() + 5
    while time.time() < deadline and set(threading.enumerate()) - before:
        time.sleep(0.01)
    assert not set(threading.enumerate()) - before


# --- 12. the exact boundaries ------------------------------------------------------------------

MARKER_100 = "\n...[truncated: 1 of 101 characters cut]"


def test_truncation_at_its_exact_edge():
    assert truncate("x" * 100, 100) == ("x" * 100, 0)
    cut, chars = truncate("x" * 101, 100)
    assert chars == 1 and cut == "x" * 100 + MARKER_100 and len(cut) == 100 + len(MARKER_100)
    assert truncate("", 1) == ("", 0) and truncate("abc", None) == ("abc", 0)


@pytest.mark.parametrize("length, cut", [(100, 0), (101, 1)])
def test_a_result_exactly_max_result_chars_long_is_not_cut(length, cut):
    @tool
    def exact(n: int) -> str:
        """Return n characters."""
        return "y" * n

    outcome = Toolbox([exact]).call("exact", json.dumps({"n": length}), max_result_chars=100)
    assert outcome.truncated_chars == cut
    assert outcome.content == ("y" * 100 + MARKER_100 if cut else "y" * 100)


PRICE = Price(1.0, 1.0, "one-dollar-per-million")


def test_a_spend_exactly_equal_to_the_budget_is_within_it():
    messages = [{"role": "user", "content": "hi"}]
    probe = Budget(1.0, PRICE)
    bound = probe.call_bound(messages, None, 100)
    exact = Budget(bound, PRICE)
    assert exact.refuse_call(messages, None, 100) is None  # spent 0 + bound == budget: allowed
    assert Budget(bound * (1 - 1e-9), PRICE).refuse_call(messages, None, 100)  # a hair under
    exact.spent = bound
    assert exact.overspent() is None
    exact.spent = math.nextafter(bound, math.inf)
    assert "over the" in exact.overspent()


def test_each_charge_belongs_to_its_own_step():
    from agentlab.pricing import cost_usd

    run = run_agent(COAT, COURSE_TOOLS, model="tutor-looper", limits=Limits(max_steps=4))
    assert [s.index for s in run.steps] == [0, 1, 2, 3]
    for step in run.steps:
        assert step.cost_usd == pytest.approx(
            cost_usd("gpt-4o-mini", step.prompt_tokens, step.completion_tokens), rel=1e-12)
    assert len({s.prompt_tokens for s in run.steps}) == 4  # each step priced on its own usage
    assert run.cost_usd == pytest.approx(sum(s.cost_usd for s in run.steps))


def test_an_observer_can_stop_the_run_at_a_step_boundary():
    from agentlab.loop import StopRun

    def stop_after_two(step):
        if step.index == 1:
            raise StopRun("enough for now")

    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper", on_step=stop_after_two)
    assert run.stop_reason == "interrupted" and run.stop_detail == "enough for now"
    assert len(run.steps) == 2 and run.answer is None
    silent = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper",
                       on_step=lambda step: (_ for _ in ()).throw(StopRun()))
    assert silent.stop_detail == "stopped by an on_step observer" and len(silent.steps) == 1


# --- the wind-down's look-ahead, at its edges ---------------------------------------------------

def look_ahead(max_usd, mode="before", left=None, step_seconds=()):
    """last_step on a one-message conversation, with a stub clock and finished steps."""
    from types import SimpleNamespace

    from agentlab.loop import last_step
    from agentlab.records import Step

    spend = Budget(max_usd, PRICE, mode)
    run = SimpleNamespace(steps=[Step(index=i, message={}, model_seconds=s)
                                 for i, s in enumerate(step_seconds)])
    clock = SimpleNamespace(left=lambda: left)
    schemas = [calculate.schema]
    return last_step(0, Limits(max_steps=5), spend, clock, run, [{"role": "user",
                                                                  "content": "hi"}], schemas)


def two_calls_cost():
    from agentlab.loop import _after_this_step

    spend, limits, messages = Budget(1.0, PRICE), Limits(max_steps=5), [{"role": "user",
                                                                          "content": "hi"}]
    return (spend.call_bound(messages, [calculate.schema], limits.max_output_tokens)
            + spend.call_bound(_after_this_step(messages, limits), [calculate.schema],
                               limits.max_output_tokens))


def test_the_wind_down_starts_when_this_call_and_the_answer_no_longer_both_fit():
    needed = two_calls_cost()
    assert look_ahead(needed) is None  # exactly enough for this call and the final answer
    stop = look_ahead(needed * (1 - 1e-6))
    assert stop.reason == "max_cost"
    assert stop.detail == "Budget nearly spent: there is money for one more call only"
    assert look_ahead(needed * 0.5, mode="after") is None  # the chapter's mode has no look-ahead
    assert look_ahead(None) is None


def test_the_wind_down_starts_when_less_than_two_steps_of_time_are_left():
    assert look_ahead(None, left=2.0, step_seconds=[1.0, 1.0]) is None  # exactly two steps left
    assert look_ahead(None, left=2.5, step_seconds=[1.5, 0.5]) is None  # the mean step, not sum
    assert look_ahead(None, left=1.5, step_seconds=[0.5, 0.5]) is None  # three steps' time
    stop = look_ahead(None, left=1.99, step_seconds=[1.0, 1.0])
    assert stop.reason == "max_seconds" and stop.detail.startswith("Time nearly up")
    assert look_ahead(None, left=0.1) is None  # no step yet: no measure of a step's time


def test_run_agent_gives_the_look_ahead_the_tools_schemas_on_the_first_step():
    """Before the first call no prompt size is known: the tools' schemas count, and a long
    description (4,000 characters) is enough to end a budget. With money for this call and the
    answer only if the schemas were left out, the first step is the last: told to answer."""
    from agentlab.loop import _after_this_step

    @tool(name="get_weather", description="Get the weather in a city. " * 150)
    def weather(city: str) -> str:
        return "rain"

    def tools_unless_told_to_answer(model, messages, tools, tool_choice, **options):
        if tool_choice == "none":
            return {"role": "assistant", "content": "I cannot look it up: no money left."}
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'}}]}

    client = connect(respond=tools_unless_told_to_answer)
    limits = Limits(max_steps=5)
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": "Weather in Lima?"}]

    def this_call_and_the_answer(schemas) -> float:
        spend = Budget(1.0, client.priced_as(client.default_model))
        return (spend.call_bound(messages, schemas, limits.max_output_tokens)
                + spend.call_bound(_after_this_step(messages, limits), schemas,
                                   limits.max_output_tokens))

    between = (this_call_and_the_answer([weather.schema]) + this_call_and_the_answer(None)) / 2
    run = run_agent("Weather in Lima?", [weather], client=client, wind_down=True,
                    limits=Limits(max_steps=5, max_cost_usd=between))
    assert len(run.steps) == 1 and not run.steps[0].tool_calls
    assert run.answer == "I cannot look it up: no money left." and run.stop_reason == "max_cost"


def test_the_step_limit_note_counts_steps_from_one():
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper", wind_down=True,
                    limits=Limits(max_steps=3))
    assert run.messages[-2]["content"].startswith(
        "[agentlab] Step limit reached: this is step 3 of 3. Do not call tools")


def test_an_unpriced_response_is_charged_the_bound_of_its_own_call():
    def no_usage(method, path, body):
        status, payload, delay = handle(method, path, body)
        payload.pop("usage", None)
        return status, payload, delay

    client = connect("tutor", transport=make_transport(no_usage))
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=None))
    first = run.steps[0]
    bound = Budget(None, "gpt-4o-mini").call_bound(
        run.messages[:2], Toolbox(COURSE_TOOLS).schemas, Limits().max_output_tokens)
    assert first.cost_estimated and first.cost_usd == bound
    assert first.prompt_tokens == 0 and first.completion_tokens == 0  # none reported, none made up


def test_the_look_ahead_prices_the_conversation_as_it_could_stand_after_this_step():
    from agentlab.loop import _after_this_step

    messages = [{"role": "user", "content": "hi"}]
    after = _after_this_step(messages, Limits(max_output_tokens=10, max_result_chars=100))
    assert after[0] is messages[0] and len(after) == 6
    assert after[1] == {"role": "assistant", "content": "x" * 40}  # a reply at the cap
    assert after[2:5] == [{"role": "tool", "tool_call_id": "call_reserved",
                           "content": "x" * 160}] * 3  # three results, cut, with a marker
    assert after[5] == {"role": "user", "content": "[agentlab] Budget nearly spent. Do not call "
                        "tools; answer now with what you have gathered."}
    unlimited = _after_this_step(messages, Limits(max_result_chars=None))
    assert len(unlimited[2]["content"]) == 4060


def test_the_wind_down_answers_even_after_more_results_than_it_reserved_room_for():
    @tool(name="get_weather")
    def long_weather(city: str) -> str:
        """Get the weather in a city, with a long report."""
        return "rain, " * 1000

    def eight_calls_then_answer(model, messages, tools, tool_choice, **options):
        if tool_choice == "none" or messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": "It rains everywhere."}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps({"city": f"c{i}"})}}
            for i in range(8)]}

    client = connect(respond=eight_calls_then_answer)
    endings = []
    for i in range(40):
        budget = 0.0005 * 1.1 ** i
        run = run_agent("Weather in eight cities?", [long_weather], client=client,
                        wind_down=True, limits=Limits(max_cost_usd=budget))
        if run.steps:
            endings.append((run.answer, run.cost_usd <= budget, run.steps[0].tool_calls))
    assert len(endings) >= 30
    assert all(answer == "It rains everywhere." and within for answer, within, _ in endings)
    withheld = [c for _, _, calls in endings for c in calls if c.result.startswith(
        '{"error": "result withheld')]
    assert withheld and all(c.error.startswith("withheld") for c in withheld)


def test_the_wind_down_withholds_only_the_newest_results_of_its_step_and_says_so():
    """Which results make room for the answer: the newest of the last step's, as many as the
    answer needs and no more, and each one withheld is marked in the step's record as in the
    messages the model is sent."""
    from agentlab.loop import WITHHELD

    @tool(name="get_weather")
    def long_weather(city: str) -> str:
        """Get the weather in a city, with a long report."""
        return "rain, " * 1000

    def one_call_then_eight_then_answer(model, messages, tools, tool_choice, **options):
        if tool_choice == "none":
            return {"role": "assistant", "content": "It rains everywhere."}
        calls = 1 if len(messages) == 2 else 8
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{len(messages)}_{i}", "type": "function",
             "function": {"name": "get_weather", "arguments": json.dumps({"city": f"c{i}"})}}
            for i in range(calls)]}

    client = connect(respond=one_call_then_eight_then_answer)
    withheld_counts = set()
    for i in range(24):  # $0.0044 to $0.0097: from no second step to nothing withheld
        budget = 0.0044 * 1.035 ** i
        # No cap on results: eight of 6,000 characters come in where the look-ahead allowed
        # for fewer, so the wind-down must withhold some to afford the answer.
        limits = Limits(max_cost_usd=budget, max_steps=3, max_output_tokens=400,
                        max_result_chars=None)
        run = run_agent("Weather in nine cities?", [long_weather], client=client,
                        wind_down=True, limits=limits)
        assert run.cost_usd <= budget
        if len(run.steps) < 2 or not run.steps[1].tool_calls:
            continue
        assert run.answer == "It rains everywhere.", (budget, run.stop_reason, run.stop_detail)
        first, second = run.steps[0].tool_calls, run.steps[1].tool_calls
        results = {m["tool_call_id"]: m["content"] for m in run.messages if m["role"] == "tool"}
        assert all(results[c.id] != WITHHELD and c.result != WITHHELD for c in first)
        for call in second:  # the record says what the model saw, withheld or not
            assert call.result == results[call.id]
            assert (call.error or "").startswith("withheld") == (call.result == WITHHELD)
        withheld = [call.result == WITHHELD for call in second]
        # the newest results go first: once one is withheld, every later one is too
        assert withheld == sorted(withheld), withheld
        withheld_counts.add(sum(withheld))
    assert {0, 1, 2, 3, 4} <= withheld_counts  # the sweep crossed the whole range


def test_the_wind_down_withholds_nothing_that_cannot_help():
    """A result no longer than the note that would replace it is kept (withholding it would
    only lengthen the prompt), and when withholding every longer one of the step still leaves
    no room for the answer, none is withheld: the run stops at its budget with every result in
    its records, not with results given up for an answer never asked for. An older step's
    results are never withheld."""
    from agentlab.loop import WITHHELD

    @tool
    def look_up(item: str) -> str:
        """Look an item up."""
        return "a long report, " * 100 if item.startswith("long") else "ok"

    def one_then_sixty(model, messages, tools, tool_choice, **options):
        if tool_choice == "none":
            return {"role": "assistant", "content": "Done."}
        items = ["long first"] if len(messages) == 2 else [
            f"long {i}" if i < 10 else f"short {i}" for i in range(60)]
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{len(messages)}_{i}", "type": "function",
             "function": {"name": "look_up", "arguments": json.dumps({"item": item})}}
            for i, item in enumerate(items)]}

    client = connect(respond=one_then_sixty)
    outcomes = set()
    for i in range(20):  # $0.0039 to $0.0047: no room at all, some withheld, none needed
        budget = 0.0039 * 1.01 ** i
        limits = Limits(max_cost_usd=budget, max_steps=3, max_output_tokens=2048,
                        max_result_chars=300)
        run = run_agent("Look them up.", [look_up], client=client, wind_down=True,
                        limits=limits)
        if len(run.steps) < 2 or not run.steps[1].tool_calls:
            continue
        results = {m["tool_call_id"]: m["content"] for m in run.messages if m["role"] == "tool"}
        assert all(results[c.id] == c.result != WITHHELD for c in run.steps[0].tool_calls)
        second = run.steps[1].tool_calls
        assert all(results[call.id] == call.result for call in second)
        withheld = [call for call in second if call.result == WITHHELD]
        assert not [call for call in withheld if "short" in call.arguments]
        if withheld:  # given up only for an answer the run then asked for and got
            assert run.answer == "Done.", (budget, run.stop_reason)
        outcomes.add((run.stop_reason if run.answer is None else "answered", bool(withheld)))
    assert {("max_cost", False), ("answered", True), ("answered", False)} <= outcomes, outcomes


def test_the_wind_down_never_withholds_an_older_steps_result():
    """make_room_for_the_answer on its own, with a budget that counts characters: the last
    step's two results cannot make room however they are cut, the first step's could. It is
    kept all the same (the model has read it already), and so are the last step's: the run
    will stop at its budget, and its records keep every result."""
    from types import SimpleNamespace

    from agentlab.loop import make_room_for_the_answer
    from agentlab.records import ToolCall

    long = "x" * 1000

    class CountsCharacters:
        def refuse_call(self, messages, schemas, max_output_tokens):
            return None if sum(len(m.get("content") or "") for m in messages) <= 900 else "no"

    def call(i):
        return {"id": f"call_{i}", "type": "function",
                "function": {"name": "look_up", "arguments": "{}"}}

    messages = [{"role": "user", "content": "Look it up."},
                {"role": "assistant", "content": None, "tool_calls": [call(0)]},
                {"role": "tool", "tool_call_id": "call_0", "content": long},
                {"role": "assistant", "content": None, "tool_calls": [call(1), call(2)]},
                {"role": "tool", "tool_call_id": "call_1", "content": long},
                {"role": "tool", "tool_call_id": "call_2", "content": long},
                {"role": "user", "content": "[agentlab] Answer now."}]
    before = [dict(m) for m in messages]
    records = [ToolCall(id=f"call_{i}", name="look_up", arguments="{}", result=long)
               for i in (1, 2)]
    run = SimpleNamespace(steps=[SimpleNamespace(tool_calls=records)])
    make_room_for_the_answer(CountsCharacters(), messages, [], Limits(), run)
    assert messages == before
    assert all(r.result == long and r.error is None for r in records)


# --- small helpers, at their edges --------------------------------------------------------------

def stub_call(name="calculate", arguments='{"expression": "1 + 1"}'):
    from types import SimpleNamespace

    return SimpleNamespace(id="call_1", function=SimpleNamespace(name=name, arguments=arguments))


@pytest.mark.parametrize("left", [0.0, -1.0, 0.5])
def test_a_tool_call_after_the_deadline_is_not_run(left):
    from types import SimpleNamespace

    from agentlab.loop import act

    clock = SimpleNamespace(left=lambda: left, end=lambda: time.perf_counter() + left)
    outcome = act(Toolbox([calculate]), stub_call(), Limits(), clock, None, None)
    if left <= 0:
        assert outcome.content == '{"error": "not run: the run\'s time limit was reached"}'
        assert outcome.error == "not run: the run's time limit was reached"
    else:
        assert outcome.content == "2" and outcome.error is None


def test_a_tool_call_with_no_time_limits_at_all_runs():
    from types import SimpleNamespace

    from agentlab.loop import act

    limits = Limits(tool_timeout=None, max_seconds=None)
    no_limit = SimpleNamespace(left=lambda: None, end=lambda: None)
    outcome = act(Toolbox([calculate]), stub_call(), limits, no_limit, None, None)
    assert outcome.content == "2"


class Failure(Exception):
    pass


@pytest.mark.parametrize("make, described", [
    (lambda: Failure("plain words"), "Failure: plain words"),
    (lambda: Failure(), "Failure: no details"),
    (lambda: type("APIish", (Exception,), {"message": "from the API", "status_code": 418})(
        "ignored"), "APIish (HTTP 418): from the API"),
    (lambda: Failure("y" * 600), "Failure: " + "y" * 491)])
def test_api_errors_are_described_in_one_masked_line_of_at_most_500_characters(make, described):
    from agentlab.loop import _describe

    assert _describe(make()) == described


def test_reprice_prices_the_same_tokens_at_another_model():
    from agentlab.pricing import cost_usd, reprice

    run = run_agent(COAT, COURSE_TOOLS)
    expected = sum(cost_usd("gpt-4o", s.prompt_tokens, s.completion_tokens) for s in run.steps)
    assert reprice(run, "gpt-4o") == expected and expected > 10 * run.cost_usd
    assert reprice(run, PRICE) == pytest.approx((run.prompt_tokens + run.completion_tokens) / 1e6)


def test_a_tools_repr_is_its_name_and_first_line():
    assert repr(calculate).startswith("Tool('calculate': ") and "\n" not in repr(calculate)

    @tool(description="first line\nsecond line")
    def two_lines(x: int) -> int:
        return x

    def bare(x: int) -> int:
        return x

    with pytest.warns(UserWarning):
        bare_tool = tool(bare)
    assert repr(two_lines) == "Tool('two_lines': first line)"
    assert repr(bare_tool) == "Tool('bare': )"
    assert repr(Toolbox([two_lines, bare_tool])) == "Toolbox(two_lines, bare)"


def test_the_repeat_guard_ignores_the_order_of_arguments_and_counts_exactly():
    from agentlab.tools import RepeatGuard

    guard = RepeatGuard(2)
    assert guard.check("f", {"a": 1, "b": 2}) is None
    assert guard.check("f", {"b": 2, "a": 1}) is None  # the same call, keys in another order
    refusal = guard.check("f", {"a": 1, "b": 2})
    assert "was already called 2 times in a row" in refusal


# --- the loop's own bookkeeping ----------------------------------------------------------------

def test_the_time_limit_is_checked_before_each_step():
    @tool
    def get_weather(city: str) -> str:
        """Get the weather in a city, slowly."""
        time.sleep(0.4)
        return "rain"

    run = run_agent(COAT, [get_weather], model="tutor-looper",
                    limits=Limits(max_seconds=0.3, tool_timeout=None))
    assert run.stop_reason == "max_seconds" and run.stop_detail == "0.3 s have passed"
    assert len(run.steps) == 1  # the tool ran (or was abandoned) at the deadline; no step 2


def test_each_step_records_the_messages_it_sent_and_its_charge_counts_them(monkeypatch):
    charged = []
    original = Budget.charge

    def spy(self, response, messages_sent):
        charged.append(messages_sent)
        return original(self, response, messages_sent)

    monkeypatch.setattr(Budget, "charge", spy)
    run = run_agent(COAT, COURSE_TOOLS, budget="after")
    replies = [i for i, m in enumerate(run.messages) if m["role"] == "assistant"]
    assert [s.request_messages for s in run.steps] == replies == charged
    assert run.messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert run.budget_mode == "after" and all(s.model_seconds > 0 for s in run.steps)


def test_the_first_calls_bound_includes_the_tool_schemas():
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": COAT}]
    schemas = Toolbox(COURSE_TOOLS).schemas
    cap = Limits().max_output_tokens
    with_tools = Budget(None, "gpt-4o-mini").call_bound(messages, schemas, cap)
    without = Budget(None, "gpt-4o-mini").call_bound(messages, None, cap)
    budget = (with_tools + without) / 2
    run = run_agent(COAT, COURSE_TOOLS, limits=Limits(max_cost_usd=budget))
    assert run.stop_reason == "max_cost" and run.steps == []
    wound_down = run_agent(COAT, COURSE_TOOLS, limits=Limits(max_cost_usd=budget), wind_down=True)
    assert wound_down.steps == []


class ChoosyClient:
    """A client that is neither of connect()'s: its price and its reply depend on the model."""

    default_model = "tutor"

    def __init__(self):
        self.inner = connect(respond=lambda model, *a, **k: {"role": "assistant",
                                                             "content": f"I am {model}"})

    def priced_as(self, model):
        return PRICE if model == "tutor-verbose" else "gpt-4o-mini"

    def chat(self, model=None, **kwargs):
        return self.inner.chat(model=model or self.default_model, **kwargs)


def test_run_agent_asks_the_client_for_the_model_it_was_given():
    # Not the default model, and not tutor-slow: the server would make it think for a second.
    run = run_agent("Who are you?", client=ChoosyClient(), model="tutor-verbose")
    assert run.answer == "I am tutor-verbose" and run.model == "tutor-verbose"
    assert run.priced_as == "one-dollar-per-million"
    assert run_agent("Who are you?", client=ChoosyClient()).answer == "I am tutor"


def test_the_budget_counts_every_step_not_just_the_last():
    budget = 0.0005
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper",
                    limits=Limits(max_cost_usd=budget, max_steps=40, max_output_tokens=100))
    assert run.stop_reason == "max_cost" and 2 < len(run.steps) < 40
    assert run.cost_usd <= budget


# --- usage that is not a count of tokens fails closed ------------------------------------------

def usage_set_to(field, value, steps=(0,)):
    """A transport whose replies report `field` as `value` (None: left out) on the given steps."""
    seen = []

    def handler(method, path, body):
        status, payload, delay = handle(method, path, body)
        if status == 200:
            if len(seen) in steps:
                if value is None:
                    del payload["usage"][field]
                else:
                    payload["usage"][field] = value
            seen.append(1)
        return status, payload, delay
    return make_transport(handler)


@pytest.mark.parametrize("field, value", [
    ("prompt_tokens", -10**6), ("completion_tokens", -10**6), ("completion_tokens", None),
    ("prompt_tokens", None), ("prompt_tokens", 2.5), ("completion_tokens", "many"),
    ("prompt_tokens", 10**400)])  # more than a float can price: it must not crash the run
def test_usage_that_is_not_a_count_stops_the_run_as_over_budget(field, value):
    """A negative count would hand money back to the budget, a missing one would be charged as
    zero: each makes the response unpriceable, and the budget fails closed at that step."""
    client = connect("tutor", transport=usage_set_to(field, value))
    run = run_agent(COAT, COURSE_TOOLS, client=client,
                    limits=Limits(max_cost_usd=0.002, max_steps=30))
    assert run.stop_reason == "max_cost" and len(run.steps) == 1
    said = f"{field}={value!r}" if value != 10**400 else f"{field} over 1,000,000,000,000"
    assert f"reported {said}, not a count of tokens" in run.stop_detail
    step = run.steps[0]
    assert step.cost_estimated and step.cost_usd > 0 and run.cost_usd <= 0.002
    # the count that is a count is recorded; the other is 0
    kept, lost = (("prompt_tokens", "completion_tokens") if field == "completion_tokens"
                  else ("completion_tokens", "prompt_tokens"))
    assert getattr(step, kept) > 0 and getattr(step, lost) == 0


@pytest.mark.parametrize("value", [True, -1, 2.5, math.nan, math.inf, "12", None])
def test_reported_tokens_takes_only_whole_numbers_of_zero_or_more(value):
    from types import SimpleNamespace

    from agentlab.pricing import Unpriceable, reported_tokens

    assert reported_tokens(SimpleNamespace(prompt_tokens=7, completion_tokens=0)) == (7, 0)
    with pytest.raises(Unpriceable, match="not a count of tokens"):
        reported_tokens(SimpleNamespace(prompt_tokens=7, completion_tokens=value))


def test_a_whole_number_sent_as_a_float_is_still_a_count():
    client = connect("tutor", transport=usage_set_to("completion_tokens", 40.0, steps=range(9)))
    run = run_agent(COAT, COURSE_TOOLS, client=client)
    assert run.stop_reason == "answered" and run.steps[0].completion_tokens == 40
    assert not any(s.cost_estimated for s in run.steps)


def test_without_a_budget_an_unpriceable_reply_does_not_stop_the_run():
    client = connect("tutor", transport=usage_set_to("completion_tokens", None))
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=None))
    assert run.stop_reason == "answered" and run.steps[0].cost_estimated


# --- a server's retry-after, read as the SDK reads it ------------------------------------------

@pytest.mark.parametrize("headers, attempt, wait", [
    ({"retry-after": "2"}, 0, 2.0), ({"retry-after": "120"}, 0, 120.0),
    ({"retry-after": "121"}, 0, None), ({"retry-after": "1e9"}, 0, None),  # too long: no retry
    ({"retry-after": "nan"}, 1, 1.0), ({"retry-after": "-5"}, 0, 0.5),
    ({"retry-after": "0"}, 0, 0.5), ({"retry-after": "inf"}, 0, 0.5),
    ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, 0, 0.5),
    ({"retry-after-ms": "junk", "retry-after": "3"}, 0, 3.0), ({}, 10, 8.0),
    ({"retry-after": "1e999"}, 0, None),  # too large for a float: far too long, not junk
    ({"x-should-retry": "false", "retry-after": "1"}, 0, None)])  # the server says: do not
def test_a_retry_after_that_is_not_a_sensible_wait_gets_the_backoff(headers, attempt, wait):
    import httpx
    import openai

    response = httpx.Response(429, headers=headers, request=httpx.Request("POST", "http://x"))
    error = openai.APIStatusError("x", response=response, body=None)
    assert models._retry_wait(error, attempt) == wait


def test_a_server_may_ask_for_a_retry_of_any_status_and_give_its_wait_as_a_date():
    import email.utils
    from datetime import datetime, timedelta, timezone

    import httpx
    import openai

    def error(status, headers):
        response = httpx.Response(status, headers=headers,
                                  request=httpx.Request("POST", "http://x"))
        return openai.APIStatusError("x", response=response, body=None)

    assert models._retry_wait(error(400, {"x-should-retry": "true"}), 0) == 0.5
    in_five = email.utils.format_datetime(datetime.now(timezone.utc) + timedelta(seconds=5),
                                          usegmt=True)
    assert 3.5 < models._retry_wait(error(503, {"retry-after": in_five}), 0) <= 5
    past = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert models._retry_wait(error(503, {"retry-after": past}), 1) == 1.0  # backoff


def test_a_nan_retry_after_is_retried_and_the_run_recovers():
    failed = []

    def rate_limited_once(method, path, body):
        if not failed:
            failed.append(1)
            return 429, {"error": {"message": "slow down", "type": "rate_limit", "param": None,
                                   "code": None}}, 0.0, {"retry-after": "nan"}
        return handle(method, path, body)

    client = connect("tutor", transport=make_transport(rate_limited_once))
    run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client)
    assert failed and run.stop_reason == "answered"


# --- keys: wrapped, glued, typed into the task, echoed by the model ---------------------------

@pytest.mark.parametrize("text", [
    "\n".join(FAKE_KEY[i:i + 20] for i in range(0, len(FAKE_KEY), 20)),  # wrapped at 20
    FAKE_KEY[:10] + "\u200b" + FAKE_KEY[10:],  # a zero-width space pasted from a web page
    FAKE_KEY[:12] + " \t" + FAKE_KEY[12:]])
def test_the_environments_key_is_masked_even_wrapped_or_with_invisible_characters(text,
                                                                                   monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    assert mask(f"key: {text}.") == f"key: {MASK}."


@pytest.mark.parametrize("text, masked", [
    ("OPENAI_API_KEY_sk-abcdefgh1234", f"OPENAI_API_KEY_{MASK}"),
    ("ключsk-abcdefgh1234", f"ключ{MASK}"), ("(sk-abcdefgh1234)", f"({MASK})"),
    ("task-management-app", "task-management-app"),
    ("risk-assessment-2026", "risk-assessment-2026"),
    ("xsk-abcdefgh1234", "xsk-abcdefgh1234")])
def test_a_key_shape_glued_to_a_word_is_masked_but_words_ending_in_sk_are_not(text, masked,
                                                                               monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert mask(text) == masked


def test_a_key_typed_into_the_task_or_echoed_by_the_model_reaches_no_record(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    sent = []

    @tool
    def call_api(key: str) -> str:
        """Call an API with a key."""
        sent.append(key)
        return "ok"

    def respond(model, messages, tools, tool_choice, **options):
        sent.append(json.dumps(messages))
        if messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": f"Done with key {FAKE_KEY}"}
        return {"role": "assistant", "content": f"Using {FAKE_KEY}", "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": "call_api", "arguments": json.dumps({"key": FAKE_KEY})}}]}

    run = run_agent(f"Use my key {FAKE_KEY} to call the API", [call_api],
                    client=connect(respond=respond), on_step=print_step)
    shown = [*sent, run.task, run.answer, run.tool_calls[0].arguments, run.to_json(), repr(run),
             run._repr_html_(), capsys.readouterr().out]
    assert run.stop_reason == "answered"
    for text in shown:
        assert FAKE_KEY[3:15] not in text
    assert MASK in run.task and MASK in run.answer
    # the call is refused, so no tool computes on "[masked key]" as if it were a key
    assert run.tool_calls[0].error.startswith("the arguments for call_api held an API key, "
                                              "masked as [masked key]")
    assert not [text for text in sent if text == MASK]


@pytest.mark.parametrize("result", [
    lambda key: {"path": "keys.txt", "text": f"# my keys\n{key}\n"},  # a dict's line breaks
    lambda key: [f"a\t{key}"], lambda key: f"a\n{key}".encode(),  # subprocess output is bytes
    lambda key: {"text": "\n".join(key[i:i + 12] for i in range(0, len(key), 12))}])
def test_a_key_inside_a_structured_tool_result_is_masked(result, monkeypatch):
    """JSON and repr write a line break inside a string as a backslash and an n: the key that
    follows it, or one wrapped at every line, is still found."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)

    def read_file(path: str):
        """Read a file."""
        return result(FAKE_KEY)

    run = run_agent("Read keys.txt", [tool(read_file)], client=connect(
        respond=call_then_answer("read_file", {"path": "keys.txt"})))
    assert MASK in run.tool_calls[0].result
    pieces = [FAKE_KEY[i:i + 12] for i in range(12, len(FAKE_KEY) - 4, 12)]  # past "sk-proj-FAKE"
    for text in (run.to_json(), json.dumps(run.messages), repr(run), run._repr_html_()):
        assert not [piece for piece in pieces if piece in text]


def test_a_key_shape_after_a_line_break_inside_json_is_masked(monkeypatch):
    from agentlab.tools import to_text

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # not the environment's key: its shape
    assert mask(to_text({"text": "keys:\nsk-abcdefghijkl1234\tsk-mnopqrstuvwx5678"})) == (
        f'{{"text": "keys:\\n{MASK}\\t{MASK}"}}')


def test_a_key_in_the_system_prompt_a_tool_calls_name_or_a_loaded_record_is_masked(
        monkeypatch, tmp_path):
    from agentlab.records import format_step
    from agentlab.course.playground import Playground

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    sent = []

    def respond(model, messages, tools, tool_choice, **options):
        sent.append(json.dumps(messages))
        if messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": "done"}
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{FAKE_KEY}", "type": "function",
            "function": {"name": FAKE_KEY, "arguments": "{}"}}]}

    run = run_agent("go", COURSE_TOOLS, system_prompt=f"Your key is {FAKE_KEY}.",
                    client=connect(respond=respond))
    loaded = Run.from_dict({**json.loads(run.to_json()), "answer": f"the key: {FAKE_KEY}"})
    loaded.steps[0].tool_calls[0].result = f"it is {FAKE_KEY}"  # as a hand-edited file might
    playground = Playground("go")
    playground.history.append(loaded)
    saved = playground.save(tmp_path / "runs.json").read_text()
    for text in [*sent, run.to_json(), repr(loaded), format_step(loaded.steps[0]), saved,
                 loaded._repr_html_(), json.dumps(run.messages)]:
        assert FAKE_KEY[8:20] not in text


# --- an observer that breaks, limits given the wrong way, a slow approval hook ----------------

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@pytest.mark.parametrize("error, said", [
    (ValueError("display bug"), "ValueError: display bug"),
    (SystemExit("quit"), "SystemExit: quit"),
    (Unprintable(), "Unprintable (its message could not be read)")])
def test_an_observer_that_raises_stops_the_run_and_the_run_is_kept(error, said):
    def broken_display(step):
        raise error

    run = run_agent(COAT, COURSE_TOOLS, on_step=broken_display)
    assert run.stop_reason == "error" and len(run.steps) == 1 and run.cost_usd > 0
    assert run.stop_detail.startswith(f"the on_step observer broken_display raised {said}")
    tool_replies = [m for m in run.messages if m["role"] == "tool"]
    assert len(tool_replies) == len(run.messages[2]["tool_calls"])  # every call answered


def test_an_answer_already_paid_for_is_kept_whatever_the_observers_do():
    from agentlab.loop import StopRun

    def breaks_on_answers(step):
        if not step.tool_calls:
            raise ValueError("no tool call to show")

    def stop_pressed(step):
        raise StopRun("Stop pressed")

    broken = run_agent("What is 6 * 7?", COURSE_TOOLS, on_step=breaks_on_answers)
    assert broken.stop_reason == "error" and broken.answer == "6 * 7 = 42."
    assert "on_step observer breaks_on_answers raised ValueError" in broken.stop_detail
    late = run_agent("What is 6 * 7?", COURSE_TOOLS, client=connect(respond=answer("42.")),
                     on_step=stop_pressed)  # Stop pressed as the answer came in: run is over
    assert late.stop_reason == "answered" and late.answer == "42."

    def ctrl_c_while_drawing(step):
        raise KeyboardInterrupt

    drawn = run_agent("What is 6 * 7?", COURSE_TOOLS, client=connect(respond=answer("42.")),
                      on_step=ctrl_c_while_drawing)
    assert drawn.stop_reason == "answered" and drawn.answer == "42."


@pytest.mark.parametrize("limits", [{}, {"max_steps": 1}, 3])
def test_limits_given_as_a_dict_or_a_number_name_the_fix(limits):
    with pytest.raises(TypeError, match=r"limits must be a Limits, e\.g\. Limits\(max_steps=3\)"):
        run_agent("What is 2 + 2?", limits=limits)


def test_the_time_an_approval_hook_takes_counts_against_the_run():
    def slow_approval(name, arguments):
        time.sleep(0.6)
        return True

    @tool
    def slow(x: int) -> str:
        """Takes five seconds."""
        time.sleep(5)
        return "late"

    start = time.perf_counter()
    run = run_agent("go", [slow], approve=slow_approval, limits=Limits(max_seconds=1),
                    client=connect(respond=call_then_answer("slow", {"x": 1})))
    assert time.perf_counter() - start < 1 + SLACK_SECONDS
    assert run.stop_reason == "max_seconds"
    assert "did not finish within 0.3" in run.tool_calls[0].error or \
        "did not finish within 0.4" in run.tool_calls[0].error


def test_an_observer_without_a_name_is_named_by_its_class():
    class Display:  # a callable object, as a widget's observer often is: no __name__
        def __call__(self, step):
            raise ValueError("display bug")

    run = run_agent(COAT, COURSE_TOOLS, on_step=Display())
    assert run.stop_detail.startswith("the on_step observer Display raised ValueError")


# --- keys masked in every shape (issue 33) -------------------------------------------------------

def _format_characters():
    import sys
    import unicodedata

    return [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]


def test_every_invisible_character_inside_a_key_is_masked_with_it(monkeypatch):
    """A soft hyphen (U+00AD) inside a key left its last 18 characters showing; every format
    character (Unicode's Cf), and the other invisible ones, now sit inside a key."""
    from agentlab.masking import MASK, mask

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    shaped = "sk-proj-abcdefgh" + "ijklmnopqrstuvwxyz"
    invisible = _format_characters() + ["\u034f", "\u115f", "\u3164", "\ufe0f", "\U000e0100"]
    assert "\u00ad" in invisible
    for character in invisible:
        for key in (shaped, FAKE_KEY):
            text = f"key: {key[:12]}{character}{key[12:]}."
            assert mask(text) == f"key: {MASK}.", (hex(ord(character)), key)


def test_a_key_split_across_two_text_parts_is_masked_in_both_and_in_the_answer():
    """A reply made of text parts: the key's first part alone is masked and the rest showed,
    and run.answer (the parts joined) held the key whole."""
    from agentlab.masking import mask

    key = "sk-proj-" + "abc123def456ghi789jkl"
    reply = [{"type": "text", "text": f"the key is {key[:11]}"},
             {"type": "text", "text": f"{key[11:]} and that is all"}]
    masked = mask(reply)
    assert all(key[4:11] not in p["text"] and key[11:] not in p["text"] for p in masked)
    assert masked[1]["text"].endswith(" and that is all")

    run = run_agent("hi", [], client=connect(respond=lambda *a, **o: {
        "role": "assistant", "content": reply}))
    for text in (run.answer, run.to_json(), repr(run.messages)):
        assert key[11:] not in text and key[4:11] not in text, text
    assert run.answer.startswith("the key is ") and run.answer.endswith(" and that is all")


def test_a_401_raised_by_client_chat_by_hand_never_shows_the_key():
    """Notebooks 01 and 07 call client.chat() themselves: the exception is theirs to print."""
    import traceback

    import openai

    from agentlab.server import make_transport

    key = "sk-proj-" + "Zq81xW02mmRk55tY93bb"

    def unauthorized(method, path, body, respond=None):
        return 401, {"error": {"message": f"Incorrect API key provided: {key}.",
                               "type": "invalid_request_error", "param": None,
                               "code": "invalid_api_key"}}, 0

    client = connect("tutor", transport=make_transport(unauthorized))
    with pytest.raises(openai.AuthenticationError) as raised:
        client.chat(messages=[{"role": "user", "content": "hi"}])
    shown = "".join(traceback.format_exception(raised.value)) + repr(raised.value.body)
    assert "Incorrect API key provided: [masked key]" in shown
    assert key[8:] not in shown


def test_connect_given_a_key_for_a_model_name_never_shows_it():
    key = "sk-proj-" + "Zq81xW02mmRk55tY93bb"
    with pytest.raises(ValueError, match="looks like an API key") as raised:
        connect(key)
    assert key[8:] not in str(raised.value)
