"""Checks for the notebooks' exercises: each tells a student whether an attempt works, and why not.

    from agentlab.exercises import check_temperature_tool
    check_temperature_tool(my_tool)      # ✓ ... or ✗ ... with the reason

Every check runs the student's code on the offline tutor, catches what it raises, and returns
a Verdict (true when the attempt works; it prints as one line). The notebooks run each check on
a reference solution, so the checks themselves are tested whenever the notebooks are.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import os

from .loop import Limits, run_agent
from .models import connect
from .records import Run
from .toolkit import COURSE_TOOLS, get_weather
from .tools import Deny, Tool


@dataclasses.dataclass
class Verdict:
    ok: bool
    message: str

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"{'✓ Works' if self.ok else '✗ Not yet'}: {self.message}"


def _attempt(description: str, fn, *args, **kwargs):
    """Call student code; return (result, None) or (None, a Verdict saying what it raised)."""
    try:
        return fn(*args, **kwargs), None
    except Exception as e:
        return None, Verdict(False, f"{description} raised {type(e).__name__}: {e}")


# --- 01: the loop by hand ------------------------------------------------------------------

def check_observe(observe) -> Verdict:
    """observe(messages, call, result) appends the tool message answering `call`."""
    client = connect("tutor")
    messages = [{"role": "user", "content": "What's the weather in Paris, and should I take a coat?"}]
    response = client.chat(messages=messages, tools=[get_weather.schema])
    messages.append(response.message)
    call = response.tool_calls[0]
    before = len(messages)
    _, failed = _attempt("observe(...)", observe, messages, call, get_weather("Paris"))
    if failed is not None:
        return failed
    if len(messages) != before + 1:
        return Verdict(False, f"observe should append exactly one message; it added {len(messages) - before}")
    added = messages[-1]
    if not isinstance(added, dict) or added.get("role") != "tool":
        return Verdict(False, "the appended message needs role 'tool'")
    if added.get("tool_call_id") != call.id:
        return Verdict(False, f"tool_call_id must be the call's id ({call.id!r}) so the model knows which call it answers")
    if not isinstance(added.get("content"), str):
        return Verdict(False, "content must be text: json.dumps(result)")
    answer = client.chat(messages=messages, tools=[get_weather.schema]).message["content"] or ""
    if "take a coat" not in answer:
        return Verdict(False, f"the model could not use that result; it said: {answer[:120]!r}")
    return Verdict(True, f"the model read your observation and answered: {answer!r}")


# --- 02: tools ------------------------------------------------------------------------------

def check_temperature_tool(candidate) -> Verdict:
    """A @tool convert_temperature(celsius: float) -> Fahrenheit, with its argument described."""
    if not isinstance(candidate, Tool):
        return Verdict(False, "decorate your function with @tool")
    params = candidate.parameters.get("properties", {})
    if list(params) != ["celsius"]:
        return Verdict(False, f"it should take one argument, celsius; it takes {list(params)}")
    if params["celsius"].get("type") != "number":
        return Verdict(False, "annotate celsius as float, so the model sends a number")
    if not params["celsius"].get("description"):
        return Verdict(False, "describe celsius in an Args: section of the docstring")
    if not candidate.description:
        return Verdict(False, "give the function a docstring: its first line is what the model reads")
    for c, f in ((100, 212), (-40, -40), (37, 98.6)):
        got, failed = _attempt(f"convert_temperature({c})", candidate, c)
        if failed is not None:
            return failed
        if not isinstance(got, (int, float)) or abs(got - f) > 1e-6:
            return Verdict(False, f"{c} °C should be {f} °F, not {got!r}")
    return Verdict(True, "schema and results are right: " + json.dumps(candidate.schema["function"]["parameters"]))


# --- 03: the loop and its record ------------------------------------------------------------

def check_count_tool_calls(count_tool_calls) -> Verdict:
    """count_tool_calls(run) -> {tool name: how many times the model asked for it}."""
    run = run_agent("Is it warmer in the capital of Japan or the capital of France?", COURSE_TOOLS)
    expected = dict(collections.Counter(call.name for call in run.tool_calls))
    got, failed = _attempt("count_tool_calls(run)", count_tool_calls, run)
    if failed is not None:
        return failed
    if got != expected:
        return Verdict(False, f"expected {expected}, got {got!r}: look at run.steps[i].tool_calls")
    return Verdict(True, f"{got}")


# --- 04: guardrails -------------------------------------------------------------------------

EUROPE = {"Paris", "London", "Berlin", "Madrid", "Rome", "Oslo"}


def check_europe_only(approve) -> Verdict:
    """approve(name, arguments) allows get_weather for European cities only; denies the rest."""
    cases = [("get_weather", {"city": c}, c in EUROPE) for c in ("Paris", "Oslo", "Tokyo", "Lima")]
    cases += [("calculate", {"expression": "1 + 1"}, False), ("get_time", {}, False)]
    for name, arguments, allowed in cases:
        verdict, failed = _attempt(f"approve({name!r}, {arguments})", approve, name, arguments)
        if failed is not None:
            return failed
        said_yes = verdict is True or verdict is None
        if said_yes != allowed:
            return Verdict(False, f"approve({name!r}, {arguments}) should {'allow' if allowed else 'deny'} it")
        if not allowed and not isinstance(verdict, (Deny, str)):
            return Verdict(False, "deny with a reason the model can read: return Deny('...')")
    run = run_agent("Is it warmer in Tokyo or in Paris?", COURSE_TOOLS, approve=approve)
    denied = [c.name + str(json.loads(c.arguments)) for c in run.tool_calls if c.denied]
    return Verdict(True, f"in a real run the model was refused {denied} and answered: {run.answer!r}")


def check_looper_settings(limits: Limits, wind_down: bool = False) -> Verdict:
    """Settings under which tutor-looper stops within 3 steps *and* gives an answer."""
    if not isinstance(limits, Limits):
        return Verdict(False, "pass a Limits(...) object")
    run = run_agent("What is 6 * 7?", COURSE_TOOLS, model="tutor-looper", limits=limits, wind_down=wind_down)
    if len(run.steps) > 3:
        return Verdict(False, f"it ran {len(run.steps)} steps; stop it within 3")
    if not run.answer:
        return Verdict(False, f"it stopped ({run.stop_reason}) without an answer: which option gives the model a last word?")
    return Verdict(True, f"stopped after {len(run.steps)} steps ({run.stop_reason}) with the answer {run.answer!r}")


# --- 05: the playground ---------------------------------------------------------------------

PERU = "What's the weather in the capital of Peru, in Fahrenheit?"


def slider_budgets() -> list[float]:
    """The values the playground's max_cost_usd slider can take: 10**-5 to 1 in quarter decades."""
    return [round(10 ** (-5 + k / 4), 12) for k in range(21)]


def check_smallest_budget(max_cost_usd: float) -> Verdict:
    """The smallest slider budget at which the tutor answers the Peru question (never exceed)."""
    smallest = next(b for b in slider_budgets()
                    if run_agent(PERU, COURSE_TOOLS, limits=Limits(max_cost_usd=b)).ok)
    if abs(max_cost_usd - smallest) > 1e-6 * smallest:
        ok = run_agent(PERU, COURSE_TOOLS, limits=Limits(max_cost_usd=max_cost_usd)).ok
        hint = "it answers, but a smaller slider value works too" if ok else "it does not answer at that budget"
        return Verdict(False, f"${max_cost_usd:g}: {hint}")
    return Verdict(True, f"${smallest:g} is the smallest budget on the slider that answers the Peru question")


# --- 06: measuring --------------------------------------------------------------------------

def check_success_rates(success_rates) -> Verdict:
    """success_rates(results) -> {setting: share of tasks solved}, like agentlab.sweeps'."""
    from . import sweeps

    results = sweeps.sweep(sweeps.COURSE_TASKS, "max_steps", [1, 2, 4])
    expected = sweeps.success_rates(results)
    got, failed = _attempt("success_rates(results)", success_rates, results)
    if failed is not None:
        return failed
    if not isinstance(got, dict) or set(got) != set(expected):
        return Verdict(False, f"return a dict keyed by setting ({list(expected)}), not {got!r}")
    wrong = {k: got[k] for k in expected if abs(got[k] - expected[k]) > 1e-9}
    if wrong:
        return Verdict(False, f"expected {expected}, got {got}: a result is solved when result.solved is true")
    return Verdict(True, f"{got}")


# --- 07: real models ------------------------------------------------------------------------

@contextlib.contextmanager
def _environment(**values):
    """Set (or, for None, remove) environment variables; restore them all afterwards."""
    from unittest import mock

    with mock.patch.dict(os.environ):
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield


def check_pick_client(pick_client) -> Verdict:
    """pick_client() returns a real client when OPENAI_API_KEY is set, else the offline tutor.

    Nothing is sent anywhere: the check only builds clients, with a fake key.
    """
    with _environment(OPENAI_API_KEY=None, OPENAI_BASE_URL=None, AGENTLAB_MODEL=None):
        offline, failed = _attempt("pick_client() without a key", pick_client)
    if failed is not None:
        return failed
    with _environment(OPENAI_API_KEY="sk-fake-key-for-the-check-0000000000", OPENAI_BASE_URL=None,
                      AGENTLAB_MODEL=None):
        online, failed = _attempt("pick_client() with a key", pick_client)
    if failed is not None:
        return failed
    if not getattr(offline, "offline", False):
        return Verdict(False, "without OPENAI_API_KEY it must return the offline tutor")
    if getattr(online, "offline", True):
        return Verdict(False, "with OPENAI_API_KEY set it must return a client for the real API")
    if "sk-fake" in repr(online):
        return Verdict(False, "the client's repr shows the key: never print a key")
    return Verdict(True, f"without a key: {offline!r}; with one: {online!r}")


__all__ = [name for name in dir() if name.startswith("check_")] + ["Verdict", "Run"]
