"""Notebook 04b, Beyond the chapter: check_europe_only, check_loop_approval, check_looper_settings.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import json

from agentlab.loop import Limits, run_agent
from agentlab.toolkit import COURSE_TOOLS, get_weather
from agentlab.tools import Deny
from agentlab.tutor.reading import error_in_text

from ._common import TUTOR, Verdict, attempt, is_stub_result, returned_nothing, short, tutor_client

EUROPE = {"Paris", "London", "Berlin", "Madrid", "Rome", "Oslo"}


def check_europe_only(approve) -> Verdict:
    """approve(name, arguments) allows get_weather for the six European cities however the
    model writes them, refuses every other call (one without a city too), and says in each
    refusal what is allowed."""
    allowed_spellings = ["Paris", "paris", " Oslo ", "ROME", "Madrid", "london", "Berlin"]
    refused_cities = ["Tokyo", "Lima", "New York", "Parisian", "Romeo", ""]
    cases = [("get_weather", {"city": c}, True) for c in allowed_spellings]
    cases += [("get_weather", {"city": c}, False) for c in refused_cities]
    cases += [("get_weather", {}, False),  # a call without its city: refused, not a crash
              ("calculate", {"expression": "1 + 1"}, False), ("get_time", {}, False),
              ("delete_files", {"path": "/home"}, False)]
    for name, arguments, allowed in cases:
        verdict, failed = attempt(f"approve({name!r}, {arguments})", approve, name,
                                   dict(arguments))
        if failed is not None:
            if name == "get_weather" and not arguments:
                failed.message += (": the model may leave an argument out; refuse such a call "
                                   "with its reason (arguments.get('city')), don't crash")
            return failed
        if verdict is Ellipsis:
            return Verdict(False, "approve returned ...: fill in the stub")
        if (verdict is True) != allowed:  # only True allows: the loop refuses anything else
            return Verdict(False, f"approve({name!r}, {arguments}) should "
                           f"{'allow' if allowed else 'deny'} it, but returned {short(verdict)}"
                           + (" (only True allows a call)" if allowed else ""))
        if allowed:
            continue
        reason = verdict.reason if isinstance(verdict, Deny) else verdict
        if not isinstance(reason, str) or not reason.strip():
            return Verdict(False, f"approve({name!r}, {arguments}) returned {short(verdict)}: "
                           "deny with a reason the model can read, return Deny('...')")
        must_name = sorted(EUROPE) if name == "get_weather" else ["get_weather"]
        missing = [word for word in must_name if word.lower() not in reason.lower()]
        if missing:
            return Verdict(False, f"the reason for approve({name!r}, {arguments}) is "
                           f"{reason!r}: say what the model may ask for instead (it does not "
                           f"name {', '.join(missing)})")
    run = run_agent("Is it warmer in Tokyo or in Paris?", COURSE_TOOLS, client=tutor_client(),
                    approve=approve)
    denied = [c.name + str(json.loads(c.arguments)) for c in run.tool_calls if c.denied]
    return Verdict(True, f"in a real run the model was refused {denied} and answered: "
                   f"{run.answer!r}")


class _Abandoned(BaseException):
    """Raised into a loop the check stopped waiting for, past its `except Exception`."""


class _RecordingClient:
    """The tutor's client, keeping every request's messages; it stops a loop left behind."""

    def __init__(self):
        self.client, self.requests, self.abandoned = tutor_client(), [], False

    def chat(self, *args, **kwargs):
        if self.abandoned or len(self.requests) >= 12:
            raise _Abandoned("the check stopped this run")
        self.requests.append(copy.deepcopy(kwargs.get("messages") or (args[1:2] or [[]])[0]))
        return self.client.chat(*args, **kwargs)


def _run_loop(my_loop, task: str, approve, seconds: float = 5.0):
    """my_loop(task, ...) with the tutor and a recorded get_weather, in a thread waited for at
    most `seconds`: (what it returned or raised, the cities get_weather ran for, the client)."""
    import threading

    ran, outcome, client = [], {}, _RecordingClient()

    def weather(**arguments):
        ran.append(arguments.get("city"))
        return get_weather(**arguments)

    def target():
        try:
            outcome["returned"] = my_loop(task, [get_weather.schema], {"get_weather": weather},
                                          client, TUTOR, max_steps=6, approve=approve)
        except BaseException as e:  # noqa: BLE001 - what the loop raised is the evidence
            outcome["raised"] = e

    # What the loop prints (each call, if it shows them) stays out of the check's output.
    with contextlib.redirect_stdout(io.StringIO()):
        worker = threading.Thread(target=target, daemon=True, name="check-approval")
        worker.start()
        worker.join(seconds)
    if worker.is_alive():
        client.abandoned = True
        outcome["raised"] = TimeoutError(f"my_loop did not return within {seconds:g} s")
    return outcome, ran, client


def _answer_to_city(requests: list, city: str) -> str | None:
    """The content of the tool message that answered the call asking for `city`, if any."""
    messages = requests[-1] if requests else []
    ids = {c["id"] for m in messages for c in m.get("tool_calls") or []
           if city in c["function"]["arguments"]}
    answers = [m.get("content") for m in messages
               if m.get("role") == "tool" and m.get("tool_call_id") in ids]
    return answers[0] if answers else None


def check_loop_approval(my_loop) -> Verdict:
    """my_loop(..., approve=None) asks approve(name, arguments) before running each call: True
    runs it; a Deny, or anything else, refuses it with an error the model reads. Tried with a
    hook that refuses one city, a hook that returns None, and no hook at all."""
    if not callable(my_loop):
        return Verdict(False, f"expected your loop, a function, got {short(my_loop)}")
    try:
        inspect.signature(my_loop).bind("task", [], {}, None, TUTOR, approve=None)
    except (TypeError, ValueError):
        return Verdict(False, "my_loop takes no approve argument: add approve=None to its "
                       "parameters, after max_cost_usd")
    task = "Is it warmer in Tokyo or in Paris?"
    reason = "only European cities today: ask about Paris, Oslo, Rome or Madrid"

    def europe_only(name, arguments):
        return True if arguments.get("city") != "Tokyo" else Deny(reason)

    trials = [("no hook", None, ["Tokyo", "Paris"]),
              ("a hook that refuses Tokyo", europe_only, ["Paris"]),
              ("a hook that forgot its return (None)", lambda name, arguments: None, [])]
    for label, hook, should_run in trials:
        outcome, ran, client = _run_loop(my_loop, task, hook)
        if "raised" in outcome:
            e = outcome["raised"]
            return Verdict(False, f"with {label}, my_loop raised {type(e).__name__}: "
                           f"{short(e, 150)}")
        if is_stub_result(outcome["returned"]):
            return returned_nothing(my_loop, outcome["returned"], f"with {label}, my_loop",
                                    "the model's answer (or why it stopped)")
        if sorted(ran) != sorted(should_run):
            return Verdict(False, f"with {label}, get_weather ran for {ran or 'no city'}; it "
                           f"should have run for {should_run or 'no city'}"
                           + ("" if hook is None else ": ask approve(name, arguments) before "
                              "each call, and run the call only when it returns True"))
        for city in {"Tokyo", "Paris"} - set(should_run):
            content = _answer_to_city(client.requests, city)
            if content is None:
                return Verdict(False, f"with {label}, the refused call for {city} got no tool "
                               "message: answer it (the API refuses an unanswered call)")
            if error_in_text(content) is None:
                return Verdict(False, f"with {label}, the refused call for {city} was answered "
                               f"{short(content)}, which reads like a result: mark it as an "
                               "error")
            if hook is europe_only and reason not in content:
                return Verdict(False, f"the refusal sent back for {city} is {short(content)}: "
                               "send the Deny's reason (verdict.reason), so the model knows "
                               "what it may ask instead")
    return Verdict(True, "no hook ran both cities; the refusing hook kept Tokyo out with its "
                   "reason; a hook returning None refused both")


def check_looper_settings(limits, wind_down=False) -> Verdict:
    """Settings under which tutor-looper answers 6 * 7 with 42, worked out with a tool (a last
    word before any tool ran does not count), in as few steps as that allows.

    limits: a Limits(...); wind_down: True or False, as run_agent takes it.
    """
    if not isinstance(limits, Limits):
        return Verdict(False, f"pass a Limits(...) object, not {short(limits)}")
    if not isinstance(wind_down, bool):
        return Verdict(False, f"wind_down is True or False, not {short(wind_down)}")
    run = run_agent("What is 6 * 7?", COURSE_TOOLS, client=tutor_client("tutor-looper"),
                    limits=limits, wind_down=wind_down)
    if not run.answer:
        return Verdict(False, f"it stopped ({run.stop_reason}, after {len(run.steps)} steps) "
                       "without an answer: which option gives the model a last word?")
    if "42" not in run.answer or not run.tool_calls:
        return Verdict(False, f"it answered {run.answer[:80]!r} without working out 6 * 7 with "
                       "a tool first: leave it a step to calculate before the last word")
    if len(run.steps) > 2:
        return Verdict(False, f"it answered 42, after {len(run.steps)} steps: it needs fewer. "
                       "How many steps does one calculation and a last word take, and does the "
                       "last word count as a step?")
    return Verdict(True, f"stopped after {len(run.steps)} steps ({run.stop_reason}) with the "
                   f"answer {run.answer!r}")
