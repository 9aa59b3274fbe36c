"""The faults an outside edge review found (issue 21): one test per promise that broke.

Exceptions outside Exception, untrusted prices, keys in every shape a value takes, the whole-run
deadline against a slow network, tools that overrun (and isolate="process"), and the budget's
look-ahead against an API that reports cached prompts. 43 of this file's 71 tests failed on the
code before the fixes. The others pin what must not change (the new key pattern against the old
one, a free price, the budget's stated edge) or kill the mutants of masking.py, api_checks.py
and pricing.py that outlived the suite (benchmarks/MUTATION.md); they pass on the old code too.
The tests written from the survivors of _isolated.py and _watched.py (issue 33) pass on the
code of that run too, but one: a child that closes its pipe and runs on was said to have
"ended with exit code None".
"""

import asyncio
import json
import re
import socket
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab import Limits, Run, connect, run_agent, tool
from agentlab.masking import KEY_SHAPE, MASK, mask, public_url
from agentlab.guardrails import Budget
from agentlab.pricing import Price, Unpriceable, cost_usd
from agentlab.records import format_step
from agentlab.server import handle, make_transport
from agentlab.toolkit import COURSE_TOOLS
from agentlab.tools import Toolbox

from loopback import loopback
from processes import open_descriptors
from scripted_models import COAT, FAKE_KEY, call_then_answer


def kept(run: Run) -> None:
    """The run came back whole: its paid step, every tool call answered, a JSON round trip."""
    assert len(run.steps) == 1 and run.cost_usd > 0
    asked = [c["id"] for m in run.messages for c in m.get("tool_calls") or []]
    assert asked == [m["tool_call_id"] for m in run.messages if m["role"] == "tool"]
    assert Run.from_json(run.to_json()) == run


# --- exceptions outside Exception end the run, kept --------------------------------------------

class Custom(BaseException):
    """A BaseException of a framework's own, as trio and gevent have."""


@pytest.mark.parametrize("raised", [asyncio.CancelledError, GeneratorExit, Custom])
def test_a_tool_raising_a_base_exception_ends_the_run_with_error_kept(raised):
    @tool
    def get_weather(city: str) -> str:
        """Get the weather."""
        raise raised("stop everything")

    run = run_agent(COAT, [get_weather],
                    client=connect(respond=call_then_answer("get_weather", {"city": "Paris"})))
    assert run.stop_reason == "error" and raised.__name__ in run.stop_detail
    kept(run)
    assert run.tool_calls[0].error and raised.__name__ in run.tool_calls[0].error  # it ran


@pytest.mark.parametrize("raised", [asyncio.CancelledError, SystemExit, GeneratorExit, Custom])
def test_an_approval_hook_raising_a_base_exception_ends_the_run_with_error_kept(raised):
    ran = []

    @tool
    def get_weather(city: str) -> str:
        """Get the weather."""
        ran.append(city)
        return "rain"

    def approve(name, arguments):
        raise raised("the hook gives up")

    run = run_agent(COAT, [get_weather], approve=approve,
                    client=connect(respond=call_then_answer("get_weather", {"city": "Paris"})))
    assert run.stop_reason == "error" and "approval hook" in run.stop_detail
    assert raised.__name__ in run.stop_detail
    assert not ran  # fails closed: the call never ran
    kept(run)


@pytest.mark.parametrize("raised", [asyncio.CancelledError, GeneratorExit, Custom])
def test_an_observer_raising_a_base_exception_ends_the_run_with_error_kept(raised):
    def show(step):
        raise raised("the view went away")

    run = run_agent(COAT, COURSE_TOOLS, on_step=show)
    assert run.stop_reason == "error" and "on_step observer show" in run.stop_detail
    kept(run)


def test_a_model_call_raising_a_base_exception_ends_the_run_with_error():
    def respond(model, messages, tools, tool_choice, **options):
        raise asyncio.CancelledError("the event loop is shutting down")

    run = run_agent(COAT, COURSE_TOOLS, client=connect(respond=respond))
    assert run.stop_reason == "error" and "CancelledError" in run.stop_detail


# --- a price that cannot be trusted is refused, and the budget fails closed ---------------------

@pytest.mark.parametrize("prices", [(float("nan"), 1), (1, float("nan")), (-1, -1), (0.15, -1),
                                    (float("inf"), 1), (1, float("-inf")), (True, 1), ("1", 1)])
def test_a_price_that_is_not_a_finite_non_negative_number_is_refused(prices):
    with pytest.raises(ValueError, match="Price.(input|output)_per_mtok must be"):
        Price(*prices)


def test_a_free_model_has_a_price_of_zero():
    assert Price(0, 0).cost(10**6, 10**6) == 0


def test_the_budget_fails_closed_for_a_cost_that_is_not_a_finite_non_negative_number():
    class Broken(Price):  # a subclass that gets past the checks: the cost still is not trusted
        def cost(self, prompt_tokens, completion_tokens):
            return float("nan")

    with pytest.raises(Unpriceable, match="not a finite"):
        cost_usd(Broken(1, 1), 10, 10)
    assert Budget(0.01, Broken(1, 1)).refuse_call([{"role": "user", "content": "hi"}], None, 10)


# --- keys in every shape a value takes -----------------------------------------------------------

def test_mask_reaches_into_every_shape_a_value_takes():
    parts = [{"type": "text", "text": f"the key is {FAKE_KEY}"}]
    assert mask(parts) == [{"type": "text", "text": f"the key is {MASK}"}]
    assert mask({FAKE_KEY: (FAKE_KEY, 1)}) == {MASK: (MASK, 1)}
    assert mask(f"key {FAKE_KEY}".encode()) == f"key {MASK}".encode()
    assert mask(b"\xff" + FAKE_KEY.encode()) == b"\xff" + MASK.encode()  # not UTF-8 still
    assert mask(42) == 42 and mask(None) is None


def parts_reply(text):
    """A scripted model whose reply content is a list of text parts, as some servers send."""
    return lambda model, messages, tools, tool_choice, **options: {
        "role": "assistant", "content": [{"type": "text", "text": text}]}


def test_a_reply_made_of_text_parts_is_masked_and_can_be_shown(capsys):
    run = run_agent("Say the key.", [], client=connect(respond=parts_reply(f"It is {FAKE_KEY}")),
                    on_step=lambda step: print(format_step(step)))
    shown = [run.answer, json.dumps(run.messages), run.to_json(), repr(run), run._repr_html_(),
             capsys.readouterr().out]
    for text in shown:
        assert FAKE_KEY[:10] not in text
    assert run.answer == f"It is {MASK}"  # the parts' text, as the answer
    assert run.steps[-1].answer == run.answer


def test_a_key_as_a_tool_parameters_default_is_not_sent_to_the_model():
    @tool
    def fetch(url: str, api_key: str = FAKE_KEY) -> str:
        """Fetch a page with our key."""
        return f"fetched with {api_key[:3]}"

    sent = []

    def respond(model, messages, tools, tool_choice, **options):
        sent.append(json.dumps(tools))
        return call_then_answer("fetch", {"url": "http://x"})(model, messages, tools, tool_choice)

    run = run_agent("Fetch it.", [fetch], client=connect(respond=respond))
    assert sent and all(FAKE_KEY[:10] not in text for text in sent)
    assert run.tool_calls[0].result == "fetched with sk-"  # the tool still gets its real default


def test_a_clients_repr_shows_no_password_or_token_from_its_base_url():
    client = connect("gpt-4o-mini", api_key="x" * 20,
                     base_url="http://me:hunter2@127.0.0.1:9/v1?token=abc123")
    assert "hunter2" not in repr(client) and "abc123" not in repr(client)
    assert "127.0.0.1:9/v1" in repr(client)


def test_a_key_given_to_connect_and_echoed_by_a_401_is_masked(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    secret = "my-own-secret-key-0123456789"  # not sk- shaped: only knowing it can mask it

    body = json.dumps({"error": {"message": f"Incorrect API key provided: {secret}.",
                                 "type": "auth", "param": None, "code": None}}).encode()
    with loopback(lambda: [b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
                           + body]) as url:
        client = connect("gpt-4o-mini", api_key=secret, base_url=url, max_retries=0)
        run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=5))
    assert run.stop_reason == "error" and secret not in run.stop_detail
    assert MASK in run.stop_detail


@pytest.mark.parametrize("text, masked", [
    ("ask-sk-12345678", f"ask-{MASK}"), ("xsk-12345678", "xsk-12345678"),
    ("\\nsk-12345678", f"\\n{MASK}"), ("sk-1234567", "sk-1234567"), ("sk-12345678", MASK),
    ("xsk-" * 5 + "sk-12345678", "xsk-" * 5 + MASK), ("xsk-xsk-12345678", "xsk-xsk-12345678"),
    ("_sk-abcdefgh_", MASK.join(["_", ""]))])
def test_the_literal_first_key_shape_finds_what_the_look_behind_one_found(text, masked):
    assert mask(text) == masked


# The pattern before the fix, as an oracle: right, but tried at every position of the text.
LOOK_BEHIND_FIRST = re.compile(r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt]))sk-[A-Za-z0-9_*-]{8,}")


@settings(max_examples=300)
@given(st.text(alphabet="sk-_*xn\\0 \t\u00e9", max_size=60))
def test_the_literal_first_pattern_masks_exactly_what_the_old_one_did(text):
    assert KEY_SHAPE.sub(MASK, text) == LOOK_BEHIND_FIRST.sub(MASK, text)



# --- the whole-run deadline holds whatever the network does ------------------------------------

ANSWER = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                     "model": "gpt-4o-mini", "choices": [{
                         "index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Take a coat."}}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 3,
                               "total_tokens": 13}}).encode()
HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n" % len(ANSWER))
MARGIN = 0.5  # seconds the tests allow past a deadline on a busy machine (README; test_edges)


def trickled():  # the head at once, then the body a byte every 0.4 s (12 bytes: 4.8 s at most)
    return [HEAD, *[item for byte in ANSWER[:12] for item in (0.4, bytes([byte]))]]


def late_head():  # the head at 0.8 s, the body at 1.6 s
    return [0.8, HEAD, 0.8, ANSWER]


@pytest.mark.parametrize("script", [trickled, late_head])
def test_a_slow_network_cannot_stretch_the_runs_deadline(script):
    with loopback(script) as url:
        client = connect("gpt-4o-mini", api_key="x" * 20, base_url=url, max_retries=0)
        start = time.perf_counter()
        run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=1))
    took = time.perf_counter() - start
    assert run.stop_reason == "max_seconds" and run.answer is None
    assert took < 1 + MARGIN and run.seconds < 1 + MARGIN


def test_a_slow_name_lookup_cannot_stretch_the_runs_deadline(monkeypatch):
    """A 3 s lookup, with no network: getaddrinfo stubbed for one made-up name."""
    real = socket.getaddrinfo

    def slow_lookup(host, *args, **kwargs):
        if host == "slow-lookup.agentlab.test":
            time.sleep(3)
            host = "127.0.0.1"  # port 9 (discard): refused, so the abandoned call ends too
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow_lookup)
    client = connect("gpt-4o-mini", api_key="x" * 20, max_retries=0,
                     base_url="http://slow-lookup.agentlab.test:9/v1")
    start = time.perf_counter()
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_seconds=1))
    assert run.stop_reason == "max_seconds" and time.perf_counter() - start < 1 + MARGIN


def test_a_reply_that_arrives_after_the_deadline_is_not_an_answer():
    """The call is timed to end just past the deadline: its reply is dropped, not answered."""
    def late(model, messages, tools, tool_choice, **options):
        time.sleep(0.6)
        return {"role": "assistant", "content": "too late"}

    run = run_agent("Hi", [], client=connect(respond=late), limits=Limits(max_seconds=0.5))
    assert run.stop_reason == "max_seconds" and run.answer is None


# --- a tool that overruns its timeout ----------------------------------------------------------

@tool
def backtrack(n: int) -> str:
    """A regular expression that backtracks for about a second, holding the GIL throughout."""
    import re

    return str(re.match(r"(a+)+$", "a" * n + "b"))


def test_a_result_that_arrives_after_the_tool_timeout_is_not_used_as_if_on_time():
    run = run_agent("Match it.", [backtrack], limits=Limits(tool_timeout=0.05),
                    client=connect(respond=call_then_answer("backtrack", {"n": 23})))
    call = run.tool_calls[0]
    assert call.error and "did not finish within 0.05 s" in call.error, call
    assert "did not finish" in run.messages[3]["content"]  # the model is told so
    assert call.result != "None"


# --- the look-ahead is a bound for an API that reports cached prompts ---------------------------

def cached_prompts(report_cached=True):
    """An API that reports only the uncached part of a prompt as prompt_tokens on a cache hit
    (the cached part in prompt_tokens_details), as a provider that counts cache reads apart
    from input does, and bills the full prompt on a miss, every sixth call. Its tokenizer is
    honest but coarse: a token per byte of the request's messages and tools, the most any
    byte-level tokenizer can count."""
    calls = []

    def handler(method, path, body):
        status, payload, delay = handle(method, path, body)
        if status == 200:
            calls.append(1)
            request = json.loads(body)
            full = sum(len(json.dumps(request.get(field) or [], ensure_ascii=False).encode())
                       for field in ("messages", "tools"))
            usage = payload["usage"]
            usage["prompt_tokens"] = full
            if len(calls) % 6 != 1:  # a hit: only the newest tenth was not in the cache
                usage["prompt_tokens"] = full // 10
                if report_cached:
                    usage["prompt_tokens_details"] = {"cached_tokens": full - full // 10}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return status, payload, delay
    return handler


def test_the_before_budget_holds_when_the_api_reports_cached_prompts():
    """The review's case: 6 of 40 budgets ended over (worst +23%): the look-ahead trusted the
    last call's reported prompt tokens, which a hit reports as a tenth of the prompt."""
    over = []
    for i in range(40):
        budget = 0.004 * 1.08 ** i
        client = connect("tutor-looper", transport=make_transport(cached_prompts()),
                         priced_as=Price(2.5, 10))
        run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client,
                        limits=Limits(max_cost_usd=budget, max_steps=12, max_repeats=None,
                                      max_output_tokens=100))
        if run.cost_usd > budget:
            over.append((round(budget, 4), round(run.cost_usd, 4)))
    assert not over


def test_an_api_that_reports_no_cached_tokens_at_all_is_the_stated_edge():
    """README and pricing.py state it: an API that leaves a hit's cached tokens out of both
    fields can bill a miss beyond the look-ahead. The run then stops at once and says so."""
    stops = []
    for i in range(40):
        budget = 0.004 * 1.08 ** i
        client = connect("tutor-looper", transport=make_transport(cached_prompts(False)),
                         priced_as=Price(2.5, 10))
        run = run_agent("What is 2 + 2?", COURSE_TOOLS, client=client,
                        limits=Limits(max_cost_usd=budget, max_steps=12, max_repeats=None,
                                      max_output_tokens=100))
        if run.cost_usd > budget:
            stops.append((run.stop_reason, "the look-ahead allowed for" in run.stop_detail))
    assert stops and set(stops) == {("max_cost", True)}  # over, but never a clean answer


# --- isolate="process": a tool that holds the GIL is stopped on time --------------------------

def test_threads_cannot_stop_a_tool_that_holds_the_gil_and_the_readme_says_so():
    """The stated limit: with a thread, the run ends late by as long as the tool holds the GIL
    (its result dropped all the same)."""
    from runaway_tools import backtrack as runaway

    began, ended = [], []  # when the regex started and ended, timed inside the run

    @tool
    def backtrack(n: int) -> str:
        """A regular expression that backtracks for 2**n steps, holding the GIL throughout."""
        began.append(time.perf_counter())
        result = runaway(n)
        ended.append(time.perf_counter())  # maybe after the run returned: waited for below
        return result

    start = time.perf_counter()
    run = run_agent("Match it.", [backtrack], limits=Limits(tool_timeout=0.1, max_seconds=0.3),
                    client=connect(respond=call_then_answer("backtrack", {"n": 25})))
    took = time.perf_counter() - start
    for _ in range(1000):  # the abandoned thread appends once it has the GIL again
        if ended:
            break
        time.sleep(0.01)
    holding = ended[0] - began[0]
    # Timed in the same run, not against a separate timing of the regex, which a busy machine
    # makes longer or shorter: the run could not end before the regex let go of the GIL. (The
    # slack: the thread may note the end a little after the regex let go.)
    assert holding > 0.4, f"the regex held the GIL {holding:.2f} s only: raise n above 25"
    assert took >= began[0] - start + holding - 0.25, (took, began[0] - start, holding)
    assert run.stop_reason == "max_seconds" and "did not finish" in run.tool_calls[0].error


def test_a_tool_in_its_own_process_is_stopped_at_its_timeout_even_holding_the_gil():
    from runaway_tools import backtrack as runaway

    start = time.perf_counter()
    run = run_agent("Match it.", [runaway],
                    limits=Limits(tool_timeout=0.5, max_seconds=2, isolate="process"),
                    client=connect(respond=call_then_answer("backtrack", {"n": 30})))
    assert time.perf_counter() - start < 2 + MARGIN  # 2**30 steps: minutes, were it not killed
    assert "did not finish within 0.5 s" in run.tool_calls[0].error
    assert "its process killed" in run.tool_calls[0].error  # not "abandoned", as a thread is


@pytest.mark.parametrize("name, arguments, seen", [
    ("shout", {"text": "hi"}, "done: HI"),
    ("fails", {"text": "luck"}, "fails failed: ValueError: no luck"),
    ("vanishes", {"text": "x"}, "vanishes failed: its process ended with exit code 3"),
    ("counts", {"n": 3}, "counts returned a result that cannot be read as text")])
def test_a_tool_in_its_own_process_answers_fails_or_dies_as_a_thread_one_would(
        name, arguments, seen):
    import runaway_tools

    run = run_agent("Go.", [getattr(runaway_tools, name)], limits=Limits(isolate="process"),
                    client=connect(respond=call_then_answer(name, arguments)))
    assert seen in run.answer


def test_a_tool_in_its_own_process_has_its_result_cut_as_a_thread_ones_is():
    from runaway_tools import shout

    outcome = Toolbox([shout]).call("shout", json.dumps({"text": "a" * 5000}),
                                    max_result_chars=100, isolate="process")
    assert outcome.content.startswith("A" * 100) and outcome.truncated_chars == 4900


def test_isolate_process_refuses_a_tool_a_fresh_process_cannot_import():
    @tool
    def local(city: str) -> str:
        """Defined inside a function."""
        return city

    with pytest.raises(ValueError, match="define it in a module"):
        run_agent("Go.", [local], limits=Limits(isolate="process"))
    with pytest.raises(ValueError, match="Limits.isolate must be one of"):
        Limits(isolate="container")


@pytest.mark.parametrize("module", ["__main__", "__mp_main__", "a function"])
def test_a_tool_a_fresh_process_cannot_import_is_refused_saying_where_it_is(module):
    """A notebook's cell or a script defines a tool in __main__ (__mp_main__ under
    multiprocessing), a function in its <locals>: each refused, the message saying which."""
    def in_a_cell(city: str) -> str:
        """Defined where a fresh process cannot import it."""
        return city

    if module != "a function":
        in_a_cell.__module__, in_a_cell.__qualname__ = module, "in_a_cell"  # as a cell's is
    with pytest.raises(ValueError) as refused:
        run_agent("Go.", [tool(in_a_cell)], limits=Limits(isolate="process"))
    name = in_a_cell.__qualname__
    assert str(refused.value) == (
        f"{name} is defined in {module}: isolate='process' runs a tool in a fresh Python "
        "process, which imports it by name, so define it in a module (a .py file) and import "
        "it from there")


# --- isolate="process" isolates (issue 33): each broken promise, and the review's mutants ------

def _gone(pid: int) -> bool:
    """Has the process ended (and been reaped, or left only as a zombie)?"""
    import os
    import pathlib

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = pathlib.Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rpartition(")")[2].split()[0] == "Z"


def _waited_until_gone(pid: int) -> bool:
    for _ in range(200):  # a killed process is reaped by init a moment later
        if _gone(pid):
            return True
        time.sleep(0.025)
    return False


def test_isolation_never_runs_the_users_script_again(tmp_path):
    """A script without an `if __name__ == "__main__":` guard: its top level runs once, not
    once more in every child (multiprocessing's spawn ran it again, its model calls too)."""
    import pathlib
    import subprocess
    import sys

    ran = tmp_path / "ran.txt"
    script = tmp_path / "no_guard.py"
    script.write_text(f"""
import json, sys
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
with open({str(ran)!r}, "a") as f:
    f.write("top level ran\\n")
from agentlab import Limits, connect, run_agent
from runaway_tools import shout

def respond(model, messages, tools, tool_choice, **options):
    if sum(m["role"] == "tool" for m in messages) == 2:
        return {{"role": "assistant", "content": "done"}}
    return {{"role": "assistant", "content": None, "tool_calls": [{{"id": "c%d" % len(messages),
        "type": "function", "function": {{"name": "shout", "arguments": '{{"text": "a"}}'}}}}]}}

run = run_agent("Go.", [shout], client=connect(respond=respond),
                limits=Limits(isolate="process", max_repeats=None))
print(run.stop_reason, [c.result for c in run.tool_calls])
""")
    root = pathlib.Path(__file__).parents[1]
    done = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True,
                          text=True, timeout=120, env={**__import__("os").environ,
                                                       "PYTHONPATH": str(root)})
    assert "answered" in done.stdout, done.stderr[-2000:]
    assert ran.read_text() == "top level ran\n"  # once, with two tool calls in children


def test_a_program_the_tool_started_dies_with_it_at_the_timeout(tmp_path):
    from runaway_tools import starts_a_program

    pid_file = tmp_path / "pids"
    outcome = Toolbox([starts_a_program]).call(
        "starts_a_program", json.dumps({"pid_file": str(pid_file)}), timeout=1.0,
        isolate="process")
    assert "did not finish within 1 s" in outcome.error
    program, child = map(int, pid_file.read_text().split())
    assert _waited_until_gone(program), "sleep 60 outlived the tool that started it"
    assert _waited_until_gone(child)


def test_a_tool_that_ignores_sigterm_is_killed_all_the_same(tmp_path):
    """SIGKILL, which no tool can catch or ignore (SIGTERM would leave it running, and the
    wait for it would never end)."""
    from runaway_tools import ignores_sigterm

    pid_file = tmp_path / "pid"
    start = time.perf_counter()
    outcome = Toolbox([ignores_sigterm]).call(
        "ignores_sigterm", json.dumps({"pid_file": str(pid_file)}), timeout=1.0,
        isolate="process")
    assert time.perf_counter() - start < 30
    assert "did not finish" in outcome.error
    assert _waited_until_gone(int(pid_file.read_text()))


def test_a_killed_tool_is_stopped_not_finished_late_and_within_its_timeout():
    """Stopped at its timeout, not at twice it, and never said to have finished late."""
    from runaway_tools import backtrack

    start = time.perf_counter()
    outcome = Toolbox([backtrack]).call("backtrack", json.dumps({"n": 40}), timeout=2.0,
                                        isolate="process")
    took = time.perf_counter() - start
    assert "did not finish within 2 s and was stopped (its process killed)" in outcome.error
    assert "finished after" not in outcome.error and "too late" not in outcome.error
    # The child's start (0.1-0.3 s) comes on top; waiting twice the timeout would be >= 4 s.
    assert took < 3.9, took


@pytest.mark.parametrize("kind, stop", [("KeyboardInterrupt", "interrupted"),
                                        ("CancelledError", "error"),
                                        ("GeneratorExit", "error")])
def test_a_base_exception_in_a_process_ends_the_run_as_on_a_thread(kind, stop):
    from runaway_tools import raises_base

    runs = {isolate: run_agent("Go.", [raises_base], limits=Limits(isolate=isolate),
                               client=connect(respond=call_then_answer("raises_base",
                                                                       {"kind": kind})))
            for isolate in ("thread", "process")}
    assert runs["thread"].stop_reason == runs["process"].stop_reason == stop
    if stop == "error":
        assert f"{kind}: stop here" in runs["process"].stop_detail
        assert runs["thread"].stop_detail == runs["process"].stop_detail


def test_the_timeout_counts_the_tools_own_time_not_the_interpreters_start():
    """Notebook 04b's tool_timeout=0.1 and a tool that returns at once: answered each time
    (the child's 0.1-0.3 s start counted as the tool's time, and it was 'stopped' 10 in 10)."""
    from runaway_tools import instant

    for _ in range(5):
        outcome = Toolbox([instant]).call("instant", "{}", timeout=0.1, isolate="process")
        assert outcome.error is None and outcome.content == "now", outcome.error


def test_the_runs_time_limit_holds_while_a_child_starts(monkeypatch):
    """The tool's timeout leaves the start out, the run's time limit does not: a tool module
    that takes 20 s to import in the child ends the run at its 1 s, not 20 s later."""
    from runaway_tools import instant

    monkeypatch.setenv("AGENTLAB_TEST_SLOW_IMPORT", "20")
    start = time.perf_counter()
    run = run_agent("Go.", [instant], limits=Limits(isolate="process", max_seconds=1,
                                                   tool_timeout=10),
                    client=connect(respond=call_then_answer("instant", {})))
    assert time.perf_counter() - start < 1 + 3  # the child killed at the run's end
    assert run.stop_reason == "max_seconds" and "did not finish" in run.tool_calls[0].error


def test_with_no_run_time_limit_a_child_that_does_not_start_is_given_up_all_the_same(
        monkeypatch):
    """START_SECONDS alone bounds the start when the run has no time limit: a tool module that
    takes 20 s to import fails at START_SECONDS (made 1 s here), saying why."""
    from agentlab import _isolated
    from runaway_tools import instant

    monkeypatch.setenv("AGENTLAB_TEST_SLOW_IMPORT", "20")
    monkeypatch.setattr(_isolated, "START_SECONDS", 1.0)
    start = time.perf_counter()
    outcome = Toolbox([instant]).call("instant", "{}", timeout=10, isolate="process")
    assert outcome.error == "instant failed: its process did not start within 1 s"
    assert time.perf_counter() - start < 10


def test_a_tool_that_cannot_be_loaded_in_its_process_fails_saying_why(tmp_path, monkeypatch):
    """Its module imports here but raises in the child: the tool fails, with the reason."""
    import importlib
    import sys

    (tmp_path / "loads_here_only.py").write_text(
        "import os\nfrom agentlab import tool\n"
        "if os.environ.get('AGENTLAB_TEST_IN_CHILD'):\n    raise ImportError('not here')\n"
        "@tool\ndef here_only() -> str:\n    'Imports in the parent only.'\n"
        "    return 'x'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        here_only = importlib.import_module("loads_here_only").here_only
        monkeypatch.setenv("AGENTLAB_TEST_IN_CHILD", "1")
        outcome = Toolbox([here_only]).call("here_only", "{}", timeout=30, isolate="process")
    finally:
        sys.modules.pop("loads_here_only", None)
    assert outcome.error == ("here_only failed: it could not be loaded in a fresh process: "
                             "ImportError: not here")


def test_the_runs_time_limit_holds_after_a_slow_start(monkeypatch):
    """The tool's timeout starts once the child is ready, but the run's end does not move: a
    4 s start and a tool that waits 60 s end a 4.5 s run at its 4.5 s, not 4.5 s after the
    start (8.5 s or more)."""
    from runaway_tools import late_and_large

    monkeypatch.setenv("AGENTLAB_TEST_SLOW_IMPORT", "4")  # for the child: imported here already
    client = connect(respond=call_then_answer("late_and_large", {"megabytes": 0, "wait": 60}))
    start = time.perf_counter()
    run = run_agent("Go.", [late_and_large], client=client,
                    limits=Limits(isolate="process", max_seconds=4.5, tool_timeout=60))
    took = time.perf_counter() - start
    assert run.stop_reason == "max_seconds" and "did not finish" in run.tool_calls[0].error
    assert took < 4.5 + 2.5, took


def test_a_result_read_too_slowly_after_its_header_is_dropped(monkeypatch):
    """The timeout holds for the whole transfer, not only until its length arrives: the
    parent's reading is made slow (as on a loaded machine) right after the header, past the
    timeout, with the result already in the pipe. It is late, so dropped."""
    from agentlab import _isolated
    from runaway_tools import shout

    read = _isolated._next_message
    messages = []

    def slow_after_the_header(pipe, child, until):
        message = read(pipe, child, until)
        messages.append(message)
        if len(messages) == 2:  # READY, then the header: the rest is read after the timeout
            time.sleep(max(0.0, until - time.perf_counter()) + 0.1)
        return message

    monkeypatch.setattr(_isolated, "_next_message", slow_after_the_header)
    outcome = Toolbox([shout]).call("shout", '{"text": "hi"}', timeout=5, isolate="process")
    assert messages[0] == _isolated.READY and len(messages[1]) == 8
    assert outcome.error and "did not finish within 5 s" in outcome.error


def test_with_no_timeout_the_runs_end_alone_stops_a_process():
    from agentlab import _isolated
    from agentlab._watched import Overran
    from runaway_tools import late_and_large

    start = time.perf_counter()
    with pytest.raises(Overran):
        _isolated.call(late_and_large, {"megabytes": 0, "wait": 60}, None,
                       deadline=time.perf_counter() + 2)
    assert time.perf_counter() - start < 2 + 10


def test_a_result_of_several_pieces_comes_back_whole():
    from runaway_tools import late_and_large

    outcome = Toolbox([late_and_large]).call(
        "late_and_large", json.dumps({"megabytes": 3, "wait": 0}), timeout=60,
        isolate="process", max_result_chars=None)
    assert outcome.error is None and outcome.content == "a" * (3 << 20)


def test_a_large_result_that_arrives_after_the_timeout_is_dropped():
    """The tool returns just before its timeout, but 100 MB cannot be pickled, sent and read
    in the 10 ms left: late, so dropped, as a thread's late result is (before, it was used)."""
    from runaway_tools import late_and_large

    outcome = Toolbox([late_and_large]).call(
        "late_and_large", json.dumps({"megabytes": 100, "wait": 0.49}), timeout=0.5,
        isolate="process", max_result_chars=100)
    assert outcome.error and "did not finish within 0.5 s" in outcome.error


class _RunningChild:
    """Stands for a child process that is still running (or, ended=True, has exited 9)."""

    def __init__(self, ended=False):
        self.ended = ended

    def poll(self):
        return 9 if self.ended else None

    def wait(self, timeout=None):
        return self.poll()


def _result_pipe(pieces: list[bytes], close: bool):
    """A pipe holding a result's header (announcing two pieces) and these pieces."""
    import os
    from multiprocessing.connection import Connection

    from agentlab import _isolated

    reading, writing = os.pipe()
    sender = Connection(writing, readable=False)
    sender.send_bytes((2 * _isolated.CHUNK_BYTES).to_bytes(8, "big"))
    for piece in pieces:
        sender.send_bytes(piece)
    if close:
        sender.close()
    return Connection(reading, writable=False), sender


def test_a_result_still_coming_at_the_timeout_is_given_up_between_its_pieces():
    """The transfer counts within the timeout: a child that sent the first of two pieces and
    no more by then is stopped there, however long the rest would take."""
    from agentlab import _isolated

    pipe, sender = _result_pipe([b"x" * 1000], close=False)
    header = pipe.recv_bytes()
    start = time.perf_counter()
    with pytest.raises(_isolated._TimedOut):
        _isolated._outcome(header, pipe, _RunningChild(), time.perf_counter() + 0.3)
    assert time.perf_counter() - start < 5
    pipe.close()
    sender.close()


def test_a_message_that_lands_as_the_child_dies_is_read_not_lost():
    """The wait looks at the pipe, then at the child: a last message that lands between the
    two looks, from a child that has just ended, is read, not taken for a silent death."""
    from agentlab import _isolated

    class LandsAfterTheFirstLook:
        looks = 0

        def poll(self, timeout):
            self.looks += 1
            return self.looks > 1

        def recv_bytes(self):
            return b"last words"

    pipe = LandsAfterTheFirstLook()
    assert _isolated._next_message(pipe, _RunningChild(ended=True), None) == b"last words"


def test_a_child_that_dies_halfway_through_its_result_is_a_failure_with_its_exit_code():
    from agentlab import _isolated

    pipe, _ = _result_pipe([b"x" * 1000], close=True)
    header = pipe.recv_bytes()
    kind, text = _isolated._outcome(header, pipe, _RunningChild(ended=True),
                                    time.perf_counter() + 5)
    assert (kind, text) == ("failed", "its process ended with exit code 9")
    pipe.close()


def test_a_child_that_closes_its_pipe_and_runs_on_is_not_said_to_have_ended():
    """A tool that closes every descriptor it has (as code that makes itself a daemon does)
    closes the pipe and may run on: the wait gives it a second to end, then says so truly
    (it said "ended with exit code None"), and the call kills it. A `sleep 20` stands for it."""
    import os
    import subprocess
    from multiprocessing.connection import Connection

    from agentlab import _isolated

    reading, writing = os.pipe()
    os.close(writing)
    pipe = Connection(reading, writable=False)
    child = subprocess.Popen(["sleep", "20"], start_new_session=True)
    start = time.perf_counter()
    try:
        header = _isolated._next_message(pipe, child, time.perf_counter() + 5)
        outcome = _isolated._outcome(header, pipe, child, None)
        took = time.perf_counter() - start
    finally:
        _isolated._kill_group(child)
        pipe.close()
    assert outcome == ("failed", "its process closed its pipe without a result, and was killed")
    assert took < 10, took  # a second's grace, not the 20 s it runs on


def test_what_a_tool_raised_in_a_process_is_raised_or_told_as_on_a_thread():
    """The result that cannot be read and Ctrl-C, each the same on a thread and in a process;
    any other BaseException rebuilt with the name a thread shows (its class's own, for a class
    nested in another), its module (a traceback names it) and its message."""
    from agentlab import _isolated
    from runaway_tools import counts, raises_base

    unreadable = {isolate: Toolbox([counts]).call("counts", '{"n": 3}', isolate=isolate).error
                  for isolate in ("thread", "process")}
    assert unreadable["process"] == unreadable["thread"]
    assert "TypeError: it is a range_iterator" in unreadable["thread"]
    for isolate in ("thread", "process"):
        with pytest.raises(KeyboardInterrupt) as interrupt:
            Toolbox([raises_base]).call("raises_base", '{"kind": "KeyboardInterrupt"}',
                                        isolate=isolate)
        assert interrupt.value.args == ("stop here",), isolate
        with pytest.raises(BaseException) as ended:  # the run's end, caused by what it raised
            Toolbox([raises_base]).call("raises_base", '{"kind": "CancelledError"}',
                                        isolate=isolate)
        raised = ended.value.__cause__
        assert (type(raised).__name__, type(raised).__module__, str(raised)) == (
            "CancelledError", "asyncio.exceptions", "stop here"), isolate
    with pytest.raises(BaseException) as stopped:
        _isolated._result(("stopped", "stop here", "trio._core", "Cancelled.Nested"))
    rebuilt = type(stopped.value)
    assert (rebuilt.__name__, rebuilt.__module__, str(stopped.value)) == (
        "Nested", "trio._core", "stop here")


def test_a_child_that_dies_is_noticed_at_once_and_each_call_leaves_no_descriptor():
    from runaway_tools import shout, vanishes

    before = open_descriptors()
    start = time.perf_counter()
    outcome = Toolbox([vanishes]).call("vanishes", '{"text": "x"}', timeout=20,
                                       isolate="process")
    assert "its process ended with exit code 3" in outcome.error  # not "did not finish"
    assert time.perf_counter() - start < 15
    # A process it forked holds the pipe open, so no end of file comes: its death is watched.
    from runaway_tools import forks_then_dies

    start = time.perf_counter()
    outcome = Toolbox([forks_then_dies]).call("forks_then_dies", '{"text": "x"}', timeout=20,
                                              isolate="process")
    assert "its process ended with exit code 3" in outcome.error
    assert time.perf_counter() - start < 15
    for _ in range(3):
        Toolbox([shout]).call("shout", '{"text": "x"}', isolate="process")
    assert open_descriptors() - before == set()


# --- a watched thread (_watched.py): its daemon, and a late call's wording (issue 33) ----------

def test_a_hung_tools_thread_never_keeps_python_from_exiting(tmp_path):
    """Python cannot kill the thread of a tool that hangs past its timeout, so it is a daemon:
    a program whose run has ended exits at once, and does not wait at its exit for the tool
    (here 300 s). A program of its own, since a daemon matters only when Python exits."""
    import os
    import pathlib
    import subprocess
    import sys

    done = tmp_path / "done.txt"  # the run's tool error, written when the run has ended
    script = tmp_path / "hung_tool.py"
    script.write_text(f"""
import pathlib, time
from agentlab import Limits, connect, run_agent, tool
from scripted_models import call_then_answer

@tool
def hangs() -> str:
    \"\"\"Waits far past its timeout.\"\"\"
    time.sleep(300)
    return "late"

run = run_agent("Go.", [hangs], client=connect(respond=call_then_answer("hangs", {{}})),
                limits=Limits(tool_timeout=0.2))
pathlib.Path({str(done)!r}).write_text(run.tool_calls[0].error)
""")
    tests = pathlib.Path(__file__).parent
    path = os.pathsep.join([str(tests.parent), str(tests)])
    with open(tmp_path / "stderr.txt", "w") as stderr:
        child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL,
                                 stderr=stderr, env={**os.environ, "PYTHONPATH": path})
    try:
        for _ in range(2400):  # up to 120 s for the interpreter's start and the run
            if done.exists() or child.poll() is not None:
                break
            time.sleep(0.05)
        child.wait(timeout=10)  # exiting takes milliseconds; waiting for the tool takes 300 s
    except subprocess.TimeoutExpired:
        pytest.fail(f"Python did not exit within 10 s of the run's end (done: {done.exists()})")
    finally:
        child.kill()  # a no-op once it has exited
        child.wait()
    assert child.returncode == 0, (tmp_path / "stderr.txt").read_text()[-2000:]
    assert done.read_text() == "hangs did not finish within 0.2 s and was abandoned"


def test_a_tool_that_finishes_late_is_told_so_and_one_at_its_timeout_is_not(monkeypatch):
    """A tool that holds the GIL past its timeout has finished by the time the wait can end:
    it is late, said with how long it took, and its result dropped. On a real clock a test
    cannot say for sure whether the wait ends before or after the tool's last bytecodes (a
    race), so the watch reads a clock of the test's, which the tool moves: 2 s past a 1 s
    timeout, then exactly 1 s (within it, at the limit)."""
    from types import SimpleNamespace

    from agentlab import _watched

    clock = [100.0]  # not 0: a start of 0 would hide a start added instead of subtracted
    monkeypatch.setattr(_watched, "time", SimpleNamespace(perf_counter=lambda: clock[0]))

    def taking(seconds: float):
        @tool
        def slow() -> str:
            """Takes its seconds on the test's clock."""
            clock[0] += seconds
            return "xyzzy"
        return slow

    late = Toolbox([taking(2.0)]).call("slow", "{}", timeout=1.0)
    assert late.error == ("slow did not finish within 1 s and was abandoned (it finished after "
                          "2.00 s, too late: its result was dropped)")
    assert "xyzzy" not in late.content
    on_time = Toolbox([taking(1.0)]).call("slow", "{}", timeout=1.0)
    assert on_time.error is None and on_time.content == "xyzzy"


# --- the mutants of masking.py and api_checks.py that outlived the suite ------------------------

def test_a_key_shape_is_sk_and_at_least_eight_key_characters_underscores_included():
    assert mask("sk-12345678") == MASK and mask("sk-1234567") == "sk-1234567"  # 8, not 9
    assert mask("sk-abcd_efgh_ijkl") == MASK  # "_" is a key character: no tail left behind


def test_the_environments_key_is_found_through_a_byte_order_mark(monkeypatch):
    key = "my-env-key-0123456789"  # not sk- shaped: only the environment's pattern finds it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    assert mask(f"key={key[:6]}\ufeff{key[6:]}") == f"key={MASK}"


def test_an_environment_key_of_exactly_eight_characters_is_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "abcdefgh")
    assert mask("x abcdefgh y") == f"x {MASK} y"
    monkeypatch.setenv("OPENAI_API_KEY", "abcdefg")  # seven: too short, would mask words
    assert mask("x abcdefg y") == "x abcdefg y"


def test_the_environments_key_is_stripped_of_the_white_space_around_it(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "  my-env-key-0123456789\n")
    assert mask("key=my-env-key-0123456789.") == f"key={MASK}."


def test_public_url_masks_a_key_in_the_path_and_drops_user_and_query():
    url = f"http://me:hunter2@127.0.0.1:8/{FAKE_KEY}/v1/?token=abc"
    assert public_url(url) == f"http://127.0.0.1:8/{MASK}/v1"


def test_the_server_refuses_audio_output_as_the_readme_promises():
    status, payload, _ = handle("POST", "/v1/chat/completions", json.dumps({
        "model": "tutor", "messages": [{"role": "user", "content": "hi"}],
        "modalities": ["text", "audio"]}).encode())
    assert status == 400 and payload["error"]["param"] == "modalities"
    assert "text only" in payload["error"]["message"]


def test_the_server_refuses_a_tool_call_that_is_not_a_function_call():
    custom = {"id": "c1", "type": "custom", "custom": {"name": "grep", "input": "x"}}
    status, payload, _ = handle("POST", "/v1/chat/completions", json.dumps({
        "model": "tutor", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [custom]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"}]}).encode())
    assert status == 400 and payload["error"]["param"] == "messages[1].tool_calls[0].type"
    assert "only function tool calls" in payload["error"]["message"]


def test_a_given_key_of_exactly_eight_characters_is_masked(monkeypatch):
    from agentlab import masking

    monkeypatch.setattr(masking, "_given_keys", set())
    masking.remember_key("k3y-8chr")
    masking.remember_key("short")  # under eight: it would mask ordinary words
    assert mask("a k3y-8chr and a short word") == f"a {MASK} and a short word"


def test_a_longer_given_key_holding_a_shorter_one_is_masked_whole(monkeypatch):
    """Longest first: masking the inner key first would leave the outer one's ends showing."""
    from agentlab import masking

    monkeypatch.setattr(masking, "_given_keys", set())
    masking.remember_key("abcdefgh12")
    masking.remember_key("Zabcdefgh12Z")
    assert mask("key Zabcdefgh12Z.") == f"key {MASK}."


def test_public_url_cuts_at_the_last_at_sign_and_keeps_the_path_as_written():
    assert public_url("http://me:p@ss@127.0.0.1:8/v1") == "http://127.0.0.1:8/v1"
    assert public_url("http://127.0.0.1:8/apiX/") == "http://127.0.0.1:8/apiX"


@pytest.mark.parametrize("cached", [-5, 0.5, "many"])
def test_a_cached_count_that_is_not_a_count_fails_closed(cached):
    def handler(method, path, body):
        status, payload, delay = handle(method, path, body)
        if status == 200:
            payload["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        return status, payload, delay

    client = connect("tutor", transport=make_transport(handler))
    run = run_agent(COAT, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=0.01))
    assert run.stop_reason == "max_cost" and "cached_tokens=" in run.stop_detail


# --- the pricing survivors of the mutation run that mattered ------------------------------------

class Usage:
    """A usage report as the SDK gives it: attributes, details as an object of their own."""

    def __init__(self, prompt_tokens, completion_tokens=0, cached_tokens=None):
        self.prompt_tokens, self.completion_tokens = prompt_tokens, completion_tokens
        if cached_tokens is not None:
            self.prompt_tokens_details = type("Details", (), {"cached_tokens": cached_tokens})()


def test_whole_prompt_adds_the_cached_tokens_reported_apart():
    from agentlab.pricing import whole_prompt

    assert whole_prompt(Usage(90, cached_tokens=810)) == 900
    assert whole_prompt(Usage(900)) == 900 and whole_prompt(Usage(900, cached_tokens=0)) == 900


def test_token_counts_at_their_edges():
    from agentlab.pricing import MOST_TOKENS, token_count

    assert token_count(Usage(12.0), "prompt_tokens") == 12  # a whole float is a count
    assert token_count(Usage(MOST_TOKENS), "prompt_tokens") == MOST_TOKENS  # the edge is in
    with pytest.raises(Unpriceable, match="over 1,000,000,000,000"):
        token_count(Usage(MOST_TOKENS + 1), "prompt_tokens")


def test_a_free_price_costs_nothing_through_the_budgets_own_path():
    assert cost_usd(Price(0, 0), 1000, 1000) == 0  # 0 is a trusted cost, not an unknown one


def test_a_tiered_price_charges_each_part_and_the_tier_the_prompt_falls_in():
    """gemini-2.5-pro's input price is higher past 200k prompt tokens (genai-prices' entry)."""
    assert cost_usd("gemini-2.5-pro", 1000, 0) > 0 and cost_usd("gemini-2.5-pro", 0, 1000) > 0
    assert cost_usd("gemini-2.5-pro", 300_000, 0) / 300_000 > cost_usd(
        "gemini-2.5-pro", 100_000, 0) / 100_000


def test_a_response_without_usage_is_unpriceable_and_says_so():
    from agentlab.pricing import reported_tokens

    with pytest.raises(Unpriceable, match="reported no token usage"):
        reported_tokens(None)


def test_estimate_cost_prices_a_raw_completion_by_its_model_and_refuses_one_without_usage():
    import types

    from agentlab.pricing import estimate_cost

    raw = types.SimpleNamespace(usage=Usage(1000, 1000), model="gpt-4o-mini")
    assert estimate_cost(raw) == cost_usd("gpt-4o-mini", 1000, 1000)
    with pytest.raises(Unpriceable):
        estimate_cost(types.SimpleNamespace(model="gpt-4o-mini"))


def test_the_overshoot_in_stop_detail_is_what_was_spent_over_the_budget():
    budget = Budget(0.001, Price(1, 1), "after")
    budget.spent = 0.0015
    assert budget.overspent().endswith("over the $0.001000 budget by $0.000500")


@pytest.mark.parametrize("tool_given, param", [
    ({"type": "custom", "custom": {"name": "grep"}}, "tools[0].type"),
    ("calculate", "tools[0]")])
def test_the_server_refuses_tools_that_are_not_function_tools(tool_given, param):
    status, payload, _ = handle("POST", "/v1/chat/completions", json.dumps({
        "model": "tutor", "messages": [{"role": "user", "content": "hi"}],
        "tools": [tool_given]}).encode())
    assert status == 400 and payload["error"]["param"] == param
    assert "function tools" in payload["error"]["message"] or "'type'" in payload["error"][
        "message"]


def test_the_prompt_bound_is_exactly_its_documented_sum():
    """pricing.prompt_bound's example: bytes of each new message + 8 a message + 8."""
    budget = Budget(1.0, Price(1, 1))
    message = {"role": "user", "content": "x" * 10}
    size = len(json.dumps(message).encode())
    assert budget.prompt_bound([message], None) == size + 8 + 8
    budget._known_tokens, budget._known_messages = 85, 1  # as charge() leaves them
    assert budget.prompt_bound([message, message], None) == 85 + size + 8 + 8
