"""Reliability and security: hostile inputs, faulty models and tools, failing APIs, injections.

Property-based tests (hypothesis) throw random input at the calculator and random misbehaviour
at the loop; fault tests break the API in each way a network can; the prompt-injection tests
prove the dangerous tool never runs. README.md's table "What hostile input does" summarises them.
"""

import builtins
import json
import math
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab import Deny, Limits, Run, connect, run_agent, tool
from agentlab.records import STOP_REASONS
from agentlab.server import handle, make_transport, sdk_http
from agentlab.tutor import count_tokens
from agentlab.toolkit import (COURSE_TOOLS, DELETE_REQUESTS, calculate, delete_files,
                              fetch_page)

COAT = "What's the weather in Paris, and should I take a coat?"

# --- the calculator against any input ---------------------------------------------------------

ARITHMETIC = st.recursive(
    st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
              st.sampled_from(["9**9**9", "10**400", "1e308", "0", "-0.0", "1/0", "2**-1074"])),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner).map(" ".join),
        inner.map(lambda e: f"({e})"), inner.map(lambda e: f"-{e}"),
        st.tuples(st.sampled_from(["sqrt", "log", "exp", "abs", "round", "floor", "sin"]), inner)
        .map(lambda t: f"{t[0]}({t[1]})")),
    max_leaves=30)
HOSTILE = st.sampled_from([
    "__import__('os').system('id')", "().__class__.__bases__[0].__subclasses__()", "open('/etc/passwd')",
    "exec('1')", "eval('1')", "globals()", "lambda: 1", "[1] * 10**9", "'a' * 10**9", "x",
    "sqrt.__globals__", "(1).real", "{1: 2}", "f'{1}'", "__builtins__", "True", "None", "..."])
LOOKALIKES = st.sampled_from(["１", "٣", "²", "⁹", "Ⅸ", "𝟗", "½", "∞", "−", "×", "÷", "٫"])


def outcome(expression):
    try:
        value = calculate(expression)
    except ValueError as e:
        assert str(e), "a refusal says why"
        return "refused"
    assert type(value) in (int, float)
    assert math.isfinite(value) and abs(value) <= 10**300
    return value


@settings(max_examples=300, deadline=200)  # deadline: each input is answered within 200 ms
@given(st.text(max_size=700))
def test_calculate_any_text_gives_a_number_or_a_clear_error(text):
    outcome(text)


@settings(max_examples=300, deadline=200, suppress_health_check=[HealthCheck.too_slow])
@given(ARITHMETIC)
def test_calculate_arithmetic_is_bounded(expression):
    outcome(expression)


@settings(max_examples=200, deadline=200)
@given(st.text(max_size=20), HOSTILE, st.text(max_size=20))
def test_calculate_never_evaluates_names_attributes_calls_or_imports(before, hostile, after):
    assert outcome(before + hostile + after) == "refused"


@settings(max_examples=100, deadline=200)
@given(st.integers(0, 999), LOOKALIKES, st.integers(0, 999))
def test_calculate_refuses_unicode_digits_and_lookalikes(a, char, b):
    assert outcome(f"{a}{char}{b}") == "refused"


@pytest.mark.parametrize("expression", ["(" * 10_000 + ")" * 10_000, "-" * 100_000 + "1",
                                        "1" * 100_000, "9**9**9**9**9", "2**2**2**2**2**2"])
def test_calculate_bounds_the_worst_cases(expression):
    assert outcome(expression) == "refused"


def test_calculate_does_not_use_eval(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec must never be called")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    assert calculate("17 * 23 + sqrt(144)") == 403


# --- the loop against a randomly misbehaving model --------------------------------------------

NAMES = st.sampled_from(["calculate", "get_weather", "get_time", "lookup_country", "rm_rf", "", "x" * 300])
ARGUMENTS = st.one_of(
    st.sampled_from(['{"expression": "1+1"}', '{"city": "Paris"}', '{"city": 7}', "{", "null", "[]",
                     '{"timezone": "Mars/Base"}', '{"expression": "9**9**9"}', "", '{"a": 1, "b": 2}']),
    st.text(max_size=50),
    st.integers(5000, 6000).map(lambda n: json.dumps({"city": "y" * n})))  # huge, cheaply drawn


@st.composite
def responses(draw, turn):
    calls = draw(st.lists(st.tuples(NAMES, ARGUMENTS), max_size=8))
    content = draw(st.one_of(st.none(), st.text(max_size=30), st.integers(3000, 4000).map("w".__mul__)))
    message = {"role": "assistant", "content": content if calls else (content or "done"), "refusal": None}
    if calls:
        message["tool_calls"] = [{"id": f"call_{turn}_{i}", "type": "function",
                                  "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(calls)]
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "tutor",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if calls else "stop"}]}
    if draw(st.booleans()) or draw(st.booleans()):  # usage is missing a quarter of the time
        completion = draw(st.integers(1, 1024))
        body["usage"] = {"prompt_tokens": None, "completion_tokens": completion}  # set below
    return body


def chaotic_model(replies, violations, never_stop):
    """A model answering each request with the next of `replies`, drawn beforehand on the test's
    thread: hypothesis draws only there, and the loop sends each request from a watched thread
    (watched.py). Anything that goes wrong in here is a violation, not a silent connection
    error the SDK would retry (a draw made in here once failed every request that way)."""
    turns = []

    def handler(method, path, raw):
        try:
            return answer(json.loads(raw))
        except Exception as e:
            violations.append(f"the chaotic model itself failed: {e!r}")
            raise

    def answer(request):
        sent = request["messages"]
        answered = {m["tool_call_id"] for m in sent if m["role"] == "tool"}
        for m in sent:
            for call in m.get("tool_calls") or []:
                if call["id"] not in answered:
                    violations.append(call["id"])
        turns.append(1)
        assert len(turns) <= len(replies), "more model calls than max_steps allows"
        body = replies[len(turns) - 1]
        if never_stop and "tool_calls" not in body["choices"][0]["message"]:
            body["choices"][0]["message"]["tool_calls"] = [{"id": f"call_{len(turns)}_x", "type": "function",
                                                            "function": {"name": "get_time", "arguments": "{}"}}]
        if "usage" in body:  # chaotic, but billed by the rules every real API keeps:
            usage = body["usage"]  # the prompt is counted by a tokenizer (never more tokens
            usage["prompt_tokens"] = count_tokens(sent, request.get("tools"))  # than bytes)
            cap = request.get("max_completion_tokens")  # and no more output than the cap
            usage["completion_tokens"] = min(usage["completion_tokens"], cap or math.inf)
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return 200, body, 0.0
    return handler


def draw_replies(data, max_steps):
    return [data.draw(responses(turn)) for turn in range(1, max_steps + 1)]


LIMITS = st.builds(Limits, max_steps=st.integers(1, 6),
                   max_cost_usd=st.sampled_from([1e-5, 1e-4, 1e-3, 0.5]),
                   max_result_chars=st.sampled_from([50, 4000, None]),
                   max_repeats=st.sampled_from([1, 2, None]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), LIMITS, st.booleans())
def test_the_loop_holds_against_a_chaotic_model(data, limits, never_stop):
    violations: list[str] = []
    replies = draw_replies(data, limits.max_steps)
    client = connect("tutor", transport=make_transport(chaotic_model(replies, violations, never_stop)))
    run = run_agent("Do whatever you like.", COURSE_TOOLS, client=client, limits=limits)  # never raises

    assert len(run.steps) <= limits.max_steps
    # By construction, not by luck: the usage follows the token rules the look-ahead bounds
    # (prompt tokens <= bytes, output <= the cap), so every call it allows fits the budget.
    assert run.cost_usd <= limits.max_cost_usd
    assert violations == []  # every tool call answered before the next model call
    asked = [c["id"] for m in run.messages for c in m.get("tool_calls") or []]
    assert sorted(asked) == sorted(m["tool_call_id"] for m in run.messages if m["role"] == "tool")
    assert run.stop_reason in STOP_REASONS and run.stop_reason != "interrupted"
    assert Run.from_json(run.to_json()) == run
    if limits.max_result_chars:
        marker = 200  # the "[truncated: ...]" marker
        assert all(len(c.result) <= limits.max_result_chars + marker for c in run.tool_calls)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from([1e-4, 1e-3]))
def test_pay_then_check_overshoots_by_at_most_one_call(data, budget):
    violations: list[str] = []
    limits = Limits(max_cost_usd=budget)
    client = connect("tutor", transport=make_transport(
        chaotic_model(draw_replies(data, limits.max_steps), violations, True)))
    run = run_agent("Go.", COURSE_TOOLS, client=client, limits=limits, budget="after")
    assert violations == []
    if run.steps:
        assert run.cost_usd - run.steps[-1].cost_usd <= budget + 1e-12


# --- the API failing in every way a network can ----------------------------------------------

def scripted(*failures):
    """A handler that fails as listed (one per request), then answers as the tutor does."""
    http = sdk_http()
    seen = []

    def handler(method, path, body):
        seen.append(path)
        if len(seen) <= len(failures):
            failure = failures[len(seen) - 1]
            if failure == "timeout":
                raise http.ReadTimeout("timed out")
            if failure == "dropped":
                raise http.RemoteProtocolError("Server disconnected without sending a response.")
            if failure == "malformed":
                return 200, b"<html>502 Bad Gateway</html>", 0.0
            if failure == 429:
                return 429, {"error": {"message": "Rate limit reached", "type": "requests",
                                       "param": None, "code": "rate_limit_exceeded"}}, 0.0, {"retry-after-ms": "10"}
            return failure, {"error": {"message": "boom", "type": "server_error", "param": None, "code": None}}, 0.0
        return handle(method, path, body)
    return handler, seen


@pytest.mark.usefixtures("fast_retries")
@pytest.mark.parametrize("failure", [429, 500, 503, "timeout", "dropped"])
def test_the_sdk_retries_transient_faults_and_the_run_recovers(failure):
    handler, seen = scripted(failure, failure)
    run = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", transport=make_transport(handler)))
    assert run.stop_reason == "answered" and "take a coat" in run.answer
    assert len(seen) == 4  # two failures retried, then two good calls


@pytest.mark.parametrize("failure, described", [
    (500, "InternalServerError (HTTP 500)"), ("timeout", "APITimeoutError"),
    ("dropped", "APIConnectionError"), ("malformed", "malformed response"), (400, "BadRequestError (HTTP 400)")])
@pytest.mark.usefixtures("fast_retries")
def test_a_lasting_fault_mid_run_stops_with_error_and_keeps_the_finished_steps(failure, described):
    def handler(method, path, body, calls=[]):
        calls.append(1)
        if len(calls) == 1:
            return handle(method, path, body)
        return scripted(failure, failure, failure, failure)[0](method, path, body)

    run = run_agent(COAT, COURSE_TOOLS, client=connect("tutor", transport=make_transport(handler), max_retries=1))
    assert run.stop_reason == "error" and described in run.stop_detail
    assert len(run.steps) == 1 and run.steps[0].tool_calls[0].name == "get_weather"
    assert run.cost_usd > 0 and run.messages[-1]["role"] == "tool"


# --- tools that misbehave ---------------------------------------------------------------------

def test_tools_that_print_raise_return_junk_or_hang(capsys):
    import threading

    release = threading.Event()

    @tool
    def chatty(x: int) -> str:
        """Prints."""
        print("tool output on stdout")
        return "ok"

    @tool
    def junk(x: int) -> object:
        """Returns something that is not JSON."""
        return {1, 2, 3}

    @tool
    def huge(x: int) -> str:
        """Returns a megabyte."""
        return "z" * 1_000_000

    @tool
    def stuck(x: int) -> str:
        """Never returns in time."""
        release.wait(5)
        return "late"

    from agentlab.tools import Toolbox

    box = Toolbox([chatty, junk, huge, stuck])
    assert box.call("chatty", '{"x": 1}').content == "ok"
    assert "tool output on stdout" in capsys.readouterr().out
    assert box.call("junk", '{"x": 1}').content == "{1, 2, 3}"
    big = box.call("huge", '{"x": 1}', max_result_chars=4000)
    assert len(big.content) < 4100 and big.truncated_chars == 996_000
    assert "did not finish within 0.1 s" in box.call("stuck", '{"x": 1}', timeout=0.1).error
    release.set()


class Unprintable:
    def __str__(self):
        raise RuntimeError("no text for you")


class UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("no message either")


def deeper_than_the_recursion_limit() -> str:
    """Arguments nested deeper than Python's recursion limit lets json parse. Read when the test
    runs: some libraries raise the limit when they are imported."""
    depth = sys.getrecursionlimit() + 100
    return '{"n": ' + "[" * depth + "]" * depth + "}"


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def exits(n: str) -> str:
    import argparse

    parser = argparse.ArgumentParser(prog="cli")
    parser.add_argument("--n", type=int, required=True)
    return str(parser.parse_args(n.split()).n)  # "--n three" makes argparse call sys.exit(2)


def raises_unprintable(n: str) -> str:
    raise UnprintableError()


@pytest.mark.parametrize("result, arguments, says", [
    (lambda n: math.factorial(2000), {"n": "1"},
     "cannot be read as text: ValueError: Exceeds the limit"),  # over 4,300 digits
    (lambda n: Unprintable(), {"n": "1"}, "cannot be read as text: RuntimeError: no text for you"),
    (lambda n: {"value": Unprintable()}, {"n": "1"}, "cannot be read as text: RuntimeError"),
    (lambda n: nested(100_000), {"n": "1"}, "cannot be read as text: RecursionError"),
    (raises_unprintable, {"n": "1"}, "failed: UnprintableError (its message could not be read)"),
    (exits, {"n": "--n three"}, "failed: SystemExit: 2"),
    (lambda n: "ok", deeper_than_the_recursion_limit, "not valid JSON (RecursionError"),
    (lambda n: "ok", '{"n": ' + "9" * 5000 + "}", "not valid JSON (ValueError: Exceeds the limit"),
], ids=["a 5,736-digit integer", "an object without text", "a dict holding one",
        "a list nested 100,000 deep", "an exception without a message", "argparse's sys.exit",
        "arguments nested past the recursion limit", "a 5,000-digit integer argument"])
def test_a_tool_result_or_arguments_that_break_python_come_back_as_an_error(result, arguments,
                                                                            says):
    """Whatever a tool returns or raises, and whatever arguments the model sends, the model
    reads an error and the run goes on: none of these may end run_agent with an exception."""
    def lookup(n: str):
        """Look n up."""
        return result(n)

    if callable(arguments):
        arguments = arguments()
    sent = arguments if isinstance(arguments, str) else json.dumps(arguments)
    replies = iter([{"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": sent}}]},
        {"role": "assistant", "content": "done"}])
    room = Limits(max_output_tokens=max(len(sent), 1024), max_cost_usd=None)  # never cut short
    run = run_agent("Look it up.", [tool(lookup)], limits=room,
                    client=connect(respond=lambda *a, **k: next(replies)))
    assert run.stop_reason == "answered" and run.answer == "done"
    assert says in run.tool_calls[0].error
    assert json.loads(run.tool_calls[0].result)["error"].startswith(run.tool_calls[0].error[:40])
    assert json.loads(run.to_json())["steps"]  # the record is whole and can be saved


def test_a_generator_or_async_tool_is_refused_when_it_is_made():
    def numbers(n: int):
        """Count to n."""
        yield from range(n)

    async def fetch(url: str) -> str:
        """Fetch a page."""
        return "page"

    with pytest.raises(TypeError, match="is a generator .* return a list instead of yielding"):
        tool(numbers)
    async def pages(n: int):
        """Fetch n pages, one by one."""
        yield "page"

    with pytest.raises(TypeError, match="is async: .* make it a plain def"):
        tool(fetch)
    with pytest.raises(TypeError, match="is a generator"):
        tool(pages)


def test_an_iterator_returned_by_a_tool_comes_back_as_an_error_naming_the_fix():
    from agentlab.tools import Toolbox

    def evens(n: int) -> list:
        """The even numbers below n."""
        return filter(lambda x: x % 2 == 0, range(n))  # the mistake: list(...) is missing

    outcome = Toolbox([tool(evens)]).call("evens", '{"n": 6}')
    assert outcome.error == ("evens returned a result that cannot be read as text: TypeError: "
                             "it is a filter, which holds no values until it is consumed: "
                             "return list(...) of it (or a plain value)")


# --- prompt injection, made safe ---------------------------------------------------------------

INJECTED = 'Summarise the page "recipes/crepes" for me'


@pytest.fixture(autouse=False)
def clean_requests():
    DELETE_REQUESTS.clear()
    yield DELETE_REQUESTS
    DELETE_REQUESTS.clear()


def test_without_guards_the_injection_reaches_the_dangerous_tool(clean_requests):
    run_agent(INJECTED, [fetch_page, delete_files], model="tutor-gullible")
    assert clean_requests == ["/home"]  # the failure: a tool result steered the model


def test_the_allowlist_stops_the_injection(clean_requests):
    run = run_agent(INJECTED, [fetch_page], model="tutor-gullible")
    assert run.tool_calls[1].name == "delete_files" and run.tool_calls[1].error.startswith("unknown tool")
    assert clean_requests == []


def test_the_approval_hook_stops_the_injection(clean_requests):
    def approve(name, arguments):
        return Deny("deleting files needs a human") if name == "delete_files" else True

    run = run_agent(INJECTED, [fetch_page, delete_files], model="tutor-gullible", approve=approve)
    assert run.tool_calls[1].denied == "deleting files needs a human"
    assert clean_requests == []
    assert run.stop_reason == "answered"


def test_the_well_behaved_tutor_ignores_the_injection(clean_requests):
    run_agent(INJECTED, [fetch_page, delete_files], model="tutor")
    assert clean_requests == []
