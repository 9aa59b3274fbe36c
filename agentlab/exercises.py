"""Checks for the notebooks' exercises: each tells a student whether an attempt works, and why not.

    from agentlab.exercises import check_temperature_tool
    check_temperature_tool(my_tool)      # ✓ Works: ... or ✗ Not yet: ... with a hint

How every check behaves (and tests/test_exercises.py holds them to it):
- it takes the student's function (or value) as an argument, never reads globals;
- it never crashes: an exception, a stub's `...`, None or a wrong type becomes "✗ Not yet";
- it tries several inputs, so a hard-coded answer for one of them does not pass;
- it runs on the offline tutor through connect("tutor"), always: a key in the environment
  changes nothing, and no check ever reaches a real API.

The student notebooks show each check failing on the stub; notebooks/solutions/ shows it
passing on a reference solution.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import functools
import inspect
import io
import json
import math
import os
import random
import types

from .loop import Limits, run_agent
from .models import connect
from .records import Run
from .toolkit import COURSE_TOOLS, get_weather
from .tools import Deny, Tool
from .tutor.reading import cut_note_in, error_in_text

TUTOR = "tutor"  # every check's model: the offline tutor, named explicitly


@dataclasses.dataclass
class Verdict:
    ok: bool
    message: str

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"{'✓ Works' if self.ok else '✗ Not yet'}: {self.message}"


def _attempt(description: str, fn, *args, **kwargs):
    """Call student code; return (result, None) or (None, a Verdict saying what went wrong)."""
    if not callable(fn):
        return None, Verdict(False, f"expected a function, got {_short(fn)}")
    try:
        return fn(*args, **kwargs), None
    except NotImplementedError:
        return None, Verdict(False, f"{description}: fill in the stub first")
    except Exception as e:
        return None, Verdict(False, f"{description} raised {type(e).__name__}: {_short(e, 150)}")


def _short(value, limit: int = 80) -> str:
    if value is Ellipsis:
        return "..."
    text = str(value) if isinstance(value, Exception) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_stub_result(value) -> bool:
    return value is None or value is Ellipsis


def _number(value) -> float | None:
    """value as a float, or None if it is not a real number (bools are not numbers here).

    Example: _number(Decimal("0.5")) -> 0.5;  _number(Fraction(1, 4)) -> 0.25;  _number("1") -> None
    """
    import decimal
    import numbers

    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        return None
    return float(value)


def _tutor(model: str = TUTOR):
    return connect(model)


# --- 01: the loop by hand ------------------------------------------------------------------

COAT = "What's the weather in {city}, and should I take a coat?"


def _one_request(city: str, call_id: str):
    """A conversation in which the tutor has asked for get_weather(city); the call gets call_id."""
    client = _tutor()
    messages = [{"role": "user", "content": COAT.format(city=city)}]
    response = client.chat(messages=messages, tools=[get_weather.schema])
    raw = response.tool_calls[0]
    call = types.SimpleNamespace(id=call_id, type="function", function=types.SimpleNamespace(
        name=raw.function.name, arguments=raw.function.arguments))
    message = dict(response.message, tool_calls=[
        {"id": call_id, "type": "function",
         "function": {"name": raw.function.name, "arguments": raw.function.arguments}}])
    messages.append(message)
    return client, messages, call


def check_observe(observe) -> Verdict:
    """observe(messages, call, outcome) appends the tool message that answers `call`; `outcome`
    is the tool's result (a dict) or the exception the tool raised.

    Any text the model can read is right for a result (json.dumps(result), str(result), ...):
    the check asks that the text carries the result's values. A failure must read as one
    ({"error": "..."}, as agentlab's loop writes it, or text starting "Error:") and carry the
    exception's message, so the model can fix its call. Tried on two cities with two call ids,
    then on a city the tool has no data for.
    """
    answers = []
    for city, call_id in (("Paris", "call_check_paris_7"), ("Oslo", "call_check_oslo_3"),
                          ("Atlantis", "call_check_atlantis_5")):
        client, messages, call = _one_request(city, call_id)
        try:
            outcome, wanted = get_weather(city), None
        except ValueError as error:  # no demo data for this city: the tool raises
            outcome, wanted = error, str(error)
        values = [] if wanted else [str(outcome["temp_c"]), str(outcome["conditions"])]
        before = len(messages)
        what = "a failed call (outcome is the exception the tool raised)" if wanted else "a result"
        _, failed = _attempt(f"observe(messages, call, outcome) for {what}", observe, messages,
                             call, outcome)
        if failed is not None:
            if wanted and "not JSON serializable" in failed.message:
                failed.message += (": an exception is not JSON; send its message as an error, "
                                   "as the refusal cell above does")
            elif wanted:  # it let the tool's exception out (raised it again, or tripped on it)
                failed.message += (": a failed call is no reason to stop; append its message "
                                   "as an error, e.g. json.dumps({'error': str(outcome)}), so "
                                   "the model can fix its call")
            return failed
        if not isinstance(messages, list) or len(messages) != before + 1:
            added = len(messages) - before if isinstance(messages, list) else "?"
            hint = " (fill in the stub)" if added == 0 else ""
            return Verdict(False, f"observe should append exactly one message to messages; "
                           f"it added {added}{hint}")
        added = messages[-1]
        if not isinstance(added, dict) or added.get("role") != "tool":
            return Verdict(False, "append a dict with role 'tool': "
                           "{'role': 'tool', 'tool_call_id': ..., 'content': ...}")
        if added.get("tool_call_id") != call_id:
            return Verdict(False, f"tool_call_id must be the call's id ({call_id!r}), not "
                           f"{_short(added.get('tool_call_id'))}: it tells the model which "
                           "request this answers")
        content = added.get("content")
        if not isinstance(content, str):
            return Verdict(False, f"content must be text, not {type(content).__name__}: "
                           "turn the outcome into a string, e.g. json.dumps(result)")
        if wanted:
            failure = _observation_failure(content, wanted)
            if failure:
                return Verdict(False, failure)
        elif error_in_text(content) is not None:  # a result that reads as a failed call
            return Verdict(False, f"{_short(content)} reads like a failure, but the call "
                           "worked: send a result as it is, json.dumps(result), and mark only "
                           "an exception as an error")
        missing = [v for v in values if v not in content]
        if missing:
            return Verdict(False, f"the content does not carry the result: {missing} missing from "
                           f"{_short(content)}")
        try:  # a conversation observe has broken (an id changed, a message replaced) is refused
            reply = client.chat(messages=messages, tools=[get_weather.schema])
        except Exception as e:
            return Verdict(False, f"after observe the model could not read the conversation: "
                           f"{type(e).__name__}: {_short(e, 200)}; append one message and "
                           "leave the others as they are")
        answers.append(reply.message.get("content") or "")
    return Verdict(True, f"the model read your observations and answered: {answers[0]!r}, "
                   f"and, for the failed call: {answers[-1]!r}")


def _observation_failure(content: str, message: str) -> str | None:
    """What is wrong with the observation of a failed call, or None if the model can read it.

    Example: _observation_failure('{"error": "no data"}', "no data") -> None
    """
    said = error_in_text(content)
    if said is None:
        return (f"{_short(content)} reads like a result: mark a failure as one, "
                "json.dumps({'error': ...}) (or text starting 'Error:'), so the model knows "
                "its call failed")
    if message not in content and message not in said:
        return (f"the error {_short(said)} does not say what went wrong: send the exception's "
                "message, str(outcome), so the model can fix its call")
    return None


def check_estimate_cost(estimate_cost) -> Verdict:
    """estimate_cost(prompt_tokens, cached_tokens, completion_tokens, input_per_mtok,
    cached_input_per_mtok, output_per_mtok) -> dollars.

    As the API reports them, cached_tokens are part of prompt_tokens: the part of the prompt
    the provider had cached, charged at the (lower) cached-input price. Prices are US dollars
    per million tokens, as price lists give them. Any real number is a right type (a float, a
    Decimal, a Fraction).
    """
    # Every cached case has a prompt of 1,024 tokens or more, as OpenAI caches (notebook 01).
    cases = [(215, 0, 20, 0.15, 0.075, 0.60), (2_444, 1_280, 30, 2.50, 1.25, 10.00),
             (1_000_000, 1_000_000, 0, 0.15, 0.075, 0.60), (0, 0, 1_000_000, 0.15, 0.075, 0.60),
             (12_345, 11_264, 678, 0.40, 0.10, 1.60)]
    for case in cases:
        expected = _cost(*case)
        call = f"estimate_cost{case}"
        got, failed = _attempt(call, estimate_cost, *case)
        if failed is not None:
            return failed
        if _is_stub_result(got):
            return Verdict(False, f"{call} returned {_short(got)}: fill in the stub and return "
                           "the cost in dollars")
        number = _number(got)
        if number is None:
            return Verdict(False, f"{call} should return a number of dollars, not {_short(got)}")
        if not math.isclose(number, expected, rel_tol=1e-9, abs_tol=1e-15):
            return Verdict(False, f"{call} should be ${expected:.8f}, not {_short(got)}: "
                           + _cost_hint(number, *case))
    return Verdict(True, "uncached prompt, cached prompt and completion tokens, each at its "
                   "price per million")


def _cost(prompt, cached, completion, p_in, p_cached, p_out) -> float:
    return ((prompt - cached) * p_in + cached * p_cached + completion * p_out) / 1e6


def _cost_hint(got: float, prompt, cached, completion, p_in, p_cached, p_out) -> str:
    """Name the likely mistake behind a wrong cost."""
    def near(value):
        return math.isclose(got, value, rel_tol=1e-6)

    if near(_cost(prompt, cached, completion, p_in, p_cached, p_out) * 1e3):
        return "prices are per million tokens, not per thousand"
    if near(_cost(prompt, cached, completion, p_in, p_cached, p_out) * 1e6):
        return "divide by a million: prices are per million tokens"
    if near((prompt * p_in + completion * p_out) / 1e6):
        return "the cached tokens cost less: charge them at the cached-input price"
    if near((prompt * p_in + cached * p_cached + completion * p_out) / 1e6):
        return ("cached tokens are counted inside prompt_tokens: only prompt_tokens - "
                "cached_tokens pay the full input price")
    if near(_cost(prompt, cached, completion, p_out, p_cached, p_in)):
        return "input and output prices are swapped"
    if near(_cost(prompt, cached, 0, p_in, p_cached, p_out) + completion * p_in / 1e6):
        return "completion tokens have their own (higher) price"
    return ("each kind of token has its price per million: which tokens pay which price, "
            "and are cached tokens counted inside prompt_tokens?")


# --- 02: tools ------------------------------------------------------------------------------

# How far a result may be from the exact °F: a result rounded to one decimal is right.
ROUNDED = 0.05 + 1e-9
# Inputs the check tries but never names in a message: a table of the named ones fails on these.
# Seeded, so a verdict is the same at every run.
_UNNAMED_CELSIUS = [round(random.Random(2026 + k).uniform(-60, 150), 1) for k in range(4)]


def check_temperature_tool(candidate) -> Verdict:
    """A @tool convert_temperature(celsius) -> Fahrenheit, with its argument described.

    Any annotation that lets the model send 36.6 is right (float, float | int): the check asks
    the tool's own schema whether it accepts 36.6. Tried on five values it names, then on
    values it does not, so a table of the named ones does not pass.
    """
    if not isinstance(candidate, Tool):
        return Verdict(False, "decorate your function with @tool")
    parameters = getattr(candidate, "parameters", None) or {}
    params = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
    if list(params) != ["celsius"]:
        return Verdict(False, f"it should take one argument, celsius; it takes {list(params)}")
    if not _schema_accepts(parameters, {"celsius": 36.6}):
        return Verdict(False, "annotate celsius as float, so the model may send 36.6 as well as 37")
    if not params["celsius"].get("description"):
        return Verdict(False, "describe celsius in an Args: section of the docstring")
    if not candidate.description:
        return Verdict(False, "give the function a docstring: its first line is what the "
                       "model reads")
    if candidate.description.startswith("Replace this docstring"):
        return Verdict(False, "replace the stub's docstring: its first line is what the model "
                       "reads, so say what the tool does")
    for c, f in ((100, 212), (-40, -40), (37, 98.6), (0, 32), (21.5, 70.7)):
        got, failed = _attempt(f"convert_temperature({c})", candidate, c)
        if failed is not None:
            return failed
        number = _number(got)
        if number is None or abs(number - f) > ROUNDED:
            hint = " (fill in the stub)" if _is_stub_result(got) else ""
            return Verdict(False, f"{c} °C should be {f} °F, not {_short(got)}{hint}")
    for c in _UNNAMED_CELSIUS:
        try:
            got = candidate(c)
            number, why = _number(got), f"gave {_short(got)}"
        except Exception as e:
            number, why = None, f"raised {type(e).__name__}"
        if number is None or abs(number - (c * 9 / 5 + 32)) > ROUNDED:
            return Verdict(False, f"right on the five values named here, but on another "
                           f"temperature it {why}, not its °F: compute °F from "
                           "celsius for any value (a table of answers fails here)")
    return Verdict(True, "schema and results are right: "
                   + json.dumps(candidate.schema["function"]["parameters"]))


def _schema_accepts(schema, arguments: dict) -> bool:
    """Whether `arguments` are valid under the JSON schema (False for a broken schema).

    fastjsonschema, as the tutor's server uses: importing jsonschema takes about a second (its
    format checker builds grammars), which a student would wait for at their first check.
    """
    import fastjsonschema

    try:
        fastjsonschema.validate(schema, arguments)
        return True
    except Exception:  # the arguments break the schema, or the schema cannot be read
        return False


# --- 03: the loop and its record ------------------------------------------------------------

RECORD_TASKS = [
    "Is it warmer in the capital of Japan or the capital of France?",
    "What's the weather in Paris, and should I take a coat?",
    "What time is it, and what is 17 * 23 + sqrt(144)?",
    "What's the weather in the capital of Peru, in Fahrenheit?",
    "Tell me a joke.",
]


# Runs the check makes beyond RECORD_TASKS, each with a model persona and its limits: one that
# the step limit ends while the model still asks for a tool (its last step is not an answer),
# and two with failed calls (a tool the model made up, arguments that are not JSON), which
# count as asked for like any other.
UNEVEN_RUNS = [("What is 6 * 7?", "tutor-looper", Limits(max_steps=3)),
               ("What is 17 * 23 + sqrt(144)?", "tutor-hallucinator", None),
               ("What is 17 * 23 + sqrt(144)?", "tutor-sloppy", None)]


def check_count_tool_calls(count_tool_calls) -> Verdict:
    """count_tool_calls(run) -> {tool name: how many times the model asked for it}.

    Tried on eight different runs: some answered, one with no tool call at all, one the step
    limit stopped, and some with calls that failed. So no fixed answer passes.
    """
    client = _tutor()
    runs = [(task, run_agent(task, COURSE_TOOLS, client=client)) for task in RECORD_TASKS]
    runs += [(f"{task!r} with {model}", run_agent(task, COURSE_TOOLS, client=_tutor(model),
                                                  limits=limits))
             for task, model, limits in UNEVEN_RUNS]
    shown = None
    for task, run in runs:
        expected = dict(collections.Counter(call.name for call in run.tool_calls))
        got, failed = _attempt(f"count_tool_calls(run of {task})", count_tool_calls, run)
        if failed is not None:
            return failed
        if _is_stub_result(got):
            return Verdict(False, f"count_tool_calls returned {_short(got)}: fill in the stub")
        if not isinstance(got, dict):
            return Verdict(False, f"return a dict {{tool name: count}}, not {type(got).__name__}")
        if dict(got) != expected:
            failures = sum(call.error is not None for call in run.tool_calls)
            why = (f" (this run ended by {run.stop_reason}, not with an answer)"
                   if run.stop_reason != "answered" else "")
            why += f" ({_calls(failures)} in it failed)" if failures else ""
            return Verdict(False, f"for the run of {task}{why} expected {expected}, got "
                           f"{_short(got)}: every step's tool_calls count, and a run with none "
                           "gives {}")
        shown = shown or got
    return Verdict(True, f"right on {len(runs)} runs, e.g. {dict(shown)}")


def _calls(count: int) -> str:
    return f"{count} call{'s' * (count != 1)}"


# --- 04a: the chapter's guardrails -----------------------------------------------------------

def _report(word: str, count: int) -> str:
    """A long text whose start differs from its end: "rain-0 rain-1 rain-2 ..."."""
    return " ".join(f"{word}-{i}" for i in range(count))


def _result_of_length(length: int, word: str) -> dict:
    """A result whose JSON is exactly `length` characters long (length >= 60)."""
    result = {"city": "Lima", "report": _report(word, length)}
    text = json.dumps(result)
    cut = len(text) - length  # the report is plain ASCII: each character dropped is one less
    return {"city": "Lima", "report": result["report"][: len(result["report"]) - cut]}


SHORT_RESULT = {"city": "Oslo", "temp_c": -3, "note": 'a "quoted" word'}
LONG_RESULT = {"city": "Paris", "report": _report("rain", 2000)}
# (result, max_chars): a short one; long ones; a string; and, to catch `<` written for `<=`,
# a result exactly max_chars long (it fits) and one a character longer (it does not).
TRUNCATE_CASES = [(SHORT_RESULT, 200), (LONG_RESULT, 300), (LONG_RESULT, 1000),
                  (_report("a plain string", 300), 120),
                  (_result_of_length(400, "snow"), 400), (_result_of_length(401, "hail"), 400)]


def check_truncate(truncate) -> Verdict:
    """truncate(result, max_chars) -> text for the model: valid JSON, at most max_chars long.

    A result whose JSON fits in max_chars (exactly max_chars included) comes through whole; a
    longer one is cut but stays valid JSON, keeps the start of the result, at least a fifth
    of max_chars of it, and says it was cut (tutor.reading.cut_note_in, the rule of the
    gauntlet's truncation row; the chapter's json.dumps(result)[:4000] breaks the JSON and
    says nothing). Each long input's text runs "word-0 word-1 ...", so keeping its end
    instead does not pass.
    """
    for result, max_chars in TRUNCATE_CASES:
        whole = json.dumps(result)
        call = f"truncate(<{len(whole):,}-character result>, {max_chars})"
        got, failed = _attempt(call, truncate, result, max_chars)
        if failed is not None:
            return failed
        if not isinstance(got, str):
            hint = ": fill in the stub" if _is_stub_result(got) else ""
            return Verdict(False, f"{call} should return text, not {_short(got)}{hint}")
        if len(got) > max_chars:
            return Verdict(False, f"{call} returned {len(got):,} characters: at most {max_chars}")
        try:
            parsed = json.loads(got)
        except ValueError:
            return Verdict(False, f"{call} is not valid JSON ({_short(got[-40:])} at its end): "
                           "cut the text inside, then build the JSON")
        if len(whole) <= max_chars:
            if parsed != result:
                exactly = (f" (this one is exactly {max_chars} characters: it fits)"
                           if len(whole) == max_chars else "")
                return Verdict(False, f"a result that fits should come through unchanged{exactly}"
                               f"; got {_short(got)}")
            continue
        text = result if isinstance(result, str) else result["report"]
        kept = max((_kept_start(text, s) for s in _strings_in(parsed)), default=0)
        if kept < max_chars // 5:
            where = " (the end, or a fixed text?)" if kept < 20 else ""
            return Verdict(False, f"{call} kept {kept} characters of the start of the result"
                           f"{where}; keep the beginning, as much as fits")
        if cut_note_in(got) is None:  # the gauntlet's truncation row asks the same
            return Verdict(False, f"{call} cut it silently ({_short(got[-40:])} at its end): "
                           "say inside the JSON that it was cut, and how much, such as "
                           "' [cut: 1,234 of 5,678 characters]', so the model knows it read "
                           "only part")
    return Verdict(True, "results that fit pass whole, to the last character; longer ones are "
                   "cut, keep their start, say they were cut and still parse as JSON")


def _strings_in(value) -> list[str]:
    """Every string in a parsed JSON value, keys included.

    Example: {"a": ["x", 1], "b": "y"} -> ["a", "x", "b", "y"]
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings_in(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings_in(v)]
    return []


def _kept_start(text: str, kept: str) -> int:
    """How many characters of the start of `text` appear in `kept`.

    Example: _kept_start("rain-0 rain-1 rain-2", "cut: rain-0 rain-1 ...") -> 14
    """
    low, high = 0, len(text)  # text[:n] in kept holds for every n up to the answer
    while low < high:
        middle = (low + high + 1) // 2
        if text[:middle] in kept:
            low = middle
        else:
            high = middle - 1
    return low


# --- 04b: beyond the chapter ----------------------------------------------------------------

EUROPE = {"Paris", "London", "Berlin", "Madrid", "Rome", "Oslo"}


def check_europe_only(approve) -> Verdict:
    """approve(name, arguments) allows get_weather for the six European cities however the
    model writes them, refuses every other call, and says in each refusal what is allowed."""
    allowed_spellings = ["Paris", "paris", " Oslo ", "ROME", "Madrid", "london", "Berlin"]
    refused_cities = ["Tokyo", "Lima", "New York", "Parisian", "Romeo", ""]
    cases = [("get_weather", {"city": c}, True) for c in allowed_spellings]
    cases += [("get_weather", {"city": c}, False) for c in refused_cities]
    cases += [("calculate", {"expression": "1 + 1"}, False), ("get_time", {}, False),
              ("delete_files", {"path": "/home"}, False)]
    for name, arguments, allowed in cases:
        verdict, failed = _attempt(f"approve({name!r}, {arguments})", approve, name,
                                   dict(arguments))
        if failed is not None:
            return failed
        if verdict is Ellipsis:
            return Verdict(False, "approve returned ...: fill in the stub")
        if (verdict is True) != allowed:  # only True allows: the loop refuses anything else
            return Verdict(False, f"approve({name!r}, {arguments}) should "
                           f"{'allow' if allowed else 'deny'} it, but returned {_short(verdict)}"
                           + (" (only True allows a call)" if allowed else ""))
        if allowed:
            continue
        reason = verdict.reason if isinstance(verdict, Deny) else verdict
        if not isinstance(reason, str) or not reason.strip():
            return Verdict(False, f"approve({name!r}, {arguments}) returned {_short(verdict)}: "
                           "deny with a reason the model can read, return Deny('...')")
        must_name = sorted(EUROPE) if name == "get_weather" else ["get_weather"]
        missing = [word for word in must_name if word.lower() not in reason.lower()]
        if missing:
            return Verdict(False, f"the reason for approve({name!r}, {arguments}) is "
                           f"{reason!r}: say what the model may ask for instead (it does not "
                           f"name {', '.join(missing)})")
    run = run_agent("Is it warmer in Tokyo or in Paris?", COURSE_TOOLS, client=_tutor(),
                    approve=approve)
    denied = [c.name + str(json.loads(c.arguments)) for c in run.tool_calls if c.denied]
    return Verdict(True, f"in a real run the model was refused {denied} and answered: "
                   f"{run.answer!r}")


class _Abandoned(BaseException):
    """Raised into a loop the check stopped waiting for, past its `except Exception`."""


class _RecordingClient:
    """The tutor's client, keeping every request's messages; it stops a loop left behind."""

    def __init__(self):
        self.client, self.requests, self.abandoned = _tutor(), [], False

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
        return Verdict(False, f"expected your loop, a function, got {_short(my_loop)}")
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
                           f"{_short(e, 150)}")
        if _is_stub_result(outcome["returned"]):
            return Verdict(False, f"with {label}, my_loop returned "
                           f"{_short(outcome['returned'])}: fill in the stub")
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
                               f"{_short(content)}, which reads like a result: mark it as an "
                               "error")
            if hook is europe_only and reason not in content:
                return Verdict(False, f"the refusal sent back for {city} is {_short(content)}: "
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
        return Verdict(False, f"pass a Limits(...) object, not {_short(limits)}")
    if not isinstance(wind_down, bool):
        return Verdict(False, f"wind_down is True or False, not {_short(wind_down)}")
    run = run_agent("What is 6 * 7?", COURSE_TOOLS, client=_tutor("tutor-looper"), limits=limits,
                    wind_down=wind_down)
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


# --- 05: the playground ---------------------------------------------------------------------

PERU = "What's the weather in the capital of Peru, in Fahrenheit?"


def slider_budgets() -> list[float]:
    """The values the playground's max_cost_usd slider can take: 10**-5 to 1 in quarter decades."""
    return [round(10 ** (-5 + k / 4), 12) for k in range(21)]


# Priced as gpt-4.1, not the playground's default: the notebook's demo and "What to try" show
# the default prices' budgets (0.0018, 0.0032) above the exercise, so a guess copied from them
# would pass.
SMALLEST_BUDGET_PRICES = "gpt-4.1"


def _run_at(budget: float):
    client = connect(TUTOR, priced_as=SMALLEST_BUDGET_PRICES)
    return run_agent(PERU, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=budget))


def _answers_at(budget: float) -> bool:
    return _run_at(budget).ok


def check_smallest_budget(max_cost_usd) -> Verdict:
    """The smallest slider budget at which the tutor, priced as gpt-4.1, answers the Peru
    question (never exceed).

    The slider's value and its readout (rounded to two significant digits) are both right;
    the neighbouring slider values are not.
    """
    value = _number(max_cost_usd)
    if value is None:
        hint = ": fill in the stub" if _is_stub_result(max_cost_usd) else ""
        return Verdict(False, f"give the budget as a number of dollars, not "
                       f"{_short(max_cost_usd)}{hint}")
    budgets = slider_budgets()
    smallest = next(b for b in budgets if _answers_at(b))
    if abs(value - smallest) <= 0.03 * smallest:  # the slider's readout rounds to 2 digits
        return Verdict(True, f"${value:g} (the slider's {smallest:.2g}) is the smallest budget on "
                       f"the slider that answers the Peru question at {SMALLEST_BUDGET_PRICES} "
                       "prices")
    if not math.isfinite(value) or value <= 0:
        return Verdict(False, f"{value!r}: a budget is a number of dollars above 0")
    run = _run_at(value)
    if run.ok:
        return Verdict(False, f"${value:g}: it answers, but a smaller slider value works too")
    # Why it stopped, in the run's own words: usually the look-ahead, which refuses a call whose
    # worst case could cross the budget even when the whole run would cost less.
    return Verdict(False, f"${value:g}: at {SMALLEST_BUDGET_PRICES} prices it does not answer: "
                   f"{run.stop_reason} after {len(run.steps)} steps ({run.stop_detail})")


# --- 06: measuring --------------------------------------------------------------------------

_CHECK_TASKS = 6  # the first six of sweeps.MEASURE_TASKS


@functools.lru_cache(maxsize=None)
def _check_sweep(limit: str, values: tuple) -> list:
    """A sweep of the first tasks over one limit, for check_success_rates. The offline tutor
    gives the same runs every time, so each sweep is run once a session, not at every check.
    """
    from . import sweeps

    return sweeps.sweep(sweeps.MEASURE_TASKS[:_CHECK_TASKS], limit, list(values), client=_tutor())


OWN_SUCCESS_RATES = ("my_success_rates calls agentlab's own success_rates: write yours from "
                     "result.setting and result.solved")


@contextlib.contextmanager
def _spied(module, name: str):
    """Replace module.name with a wrapper that records each call; yield the list of calls."""
    from unittest import mock

    original, calls = getattr(module, name), []

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    with mock.patch.object(module, name, spy):
        yield calls


def check_success_rates(success_rates) -> Verdict:
    """success_rates(results) -> {setting: share of tasks solved}, like agentlab.sweeps'.

    Tried on two sweeps; the second has runs that answer but answer wrongly (results cut too
    short to read), so counting answers instead of correct answers does not pass. agentlab's
    own success_rates is not an answer, however it is reached: a name bound to it, or the
    module's attribute at run time (agentlab.sweeps.success_rates, importlib).
    """
    from . import sweeps

    if _reaches(success_rates, sweeps.success_rates):
        return Verdict(False, OWN_SUCCESS_RATES)
    for limit, values in (("max_steps", (1, 2, 4)), ("max_result_chars", (20, 4000))):
        results = copy.deepcopy(_check_sweep(limit, values))  # the student's own copy
        expected = {v: sum(r.solved for r in results if r.setting == v) / _CHECK_TASKS
                    for v in values}
        with _spied(sweeps, "success_rates") as calls:  # reached through the module at run time
            got, failed = _attempt(f"my_success_rates(a {limit} sweep)", success_rates, results)
        if calls:
            return Verdict(False, OWN_SUCCESS_RATES)
        if failed is not None:
            return failed
        if _is_stub_result(got):
            return Verdict(False, f"my_success_rates returned {_short(got)}: fill in the stub")
        if not isinstance(got, dict) or set(got) != set(expected):
            return Verdict(False, f"return a dict keyed by setting ({list(expected)}), "
                           f"not {_short(got)}")
        numbers = {k: _number(got[k]) for k in expected}
        wrong = {k: got[k] for k in expected
                 if numbers[k] is None or abs(numbers[k] - expected[k]) > 1e-9}
        if wrong:
            return Verdict(False, f"for the {limit} sweep expected {expected}, got "
                           f"{_short(got, 120)}: "
                           + _rate_hint(results, got, expected))
    return Verdict(True, f"right on two sweeps, e.g. {_short(got, 120)}")


def _reaches(fn, target) -> bool:
    """Whether fn is `target`, or its code (nested functions included) reaches it: through a
    global or a variable of an enclosing function that holds it, or holds its module (then
    the code names it as an attribute). A local of the same name is not `target`.

    Example: _reaches(lambda r: sweeps.success_rates(r), sweeps.success_rates) -> True
    """
    if fn is target:
        return True
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    names, codes = set(), [code]
    while codes:  # the names used by fn and by the functions defined inside it
        inner = codes.pop()
        names |= set(inner.co_names)
        codes += [c for c in inner.co_consts if isinstance(c, types.CodeType)]
    module = inspect.getmodule(target)
    held = [fn.__globals__.get(name) for name in names]
    held += [cell.cell_contents for cell in fn.__closure__ or () if _filled(cell)]
    return any(value is target or (value is module and target.__name__ in names)
               for value in held)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # a variable of the enclosing function that is not set yet
        return False
    return True


def _rate_hint(results, got, expected) -> str:
    answered = {v: sum(r.run.stop_reason == "answered" for r in results if r.setting == v)
                / sum(1 for r in results if r.setting == v) for v in expected}
    try:
        if all(abs(float(got[k]) - answered[k]) < 1e-9 for k in expected):
            return "an answer is not a correct answer: use result.solved"
        if all(abs(float(got[k]) - 100 * expected[k]) < 1e-6 for k in expected):
            return "a share is between 0 and 1, not a percentage"
    except (TypeError, ValueError):
        pass
    return "for each setting, the solved results divided by all results at that setting"


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


@contextlib.contextmanager
def _no_network():
    """Any real HTTP request fails at once: a check must never reach an API."""
    from unittest import mock

    import httpx

    def refuse(self, request):
        raise httpx.ConnectError("the exercise check sends nothing over the network",
                                 request=request)

    with mock.patch.object(httpx.HTTPTransport, "handle_request", refuse):
        yield


FAKE_KEY = "sk-fake-key-for-the-check-0000000000"
LOCAL_URL = "http://localhost:11434/v1"
OPENAI_URL = "https://api.openai.com/v1"  # where the SDK sends a request when no base URL is set
PICK_CASES = [  # (environment, where the client should send requests: None for the tutor)
    ({}, None),
    ({"AGENTLAB_MODEL": "gpt-4.1"}, None),
    ({"OPENAI_BASE_URL": LOCAL_URL}, None),
    ({"OPENAI_API_KEY": FAKE_KEY}, OPENAI_URL),
    ({"OPENAI_API_KEY": FAKE_KEY, "AGENTLAB_MODEL": "tutor-looper"}, OPENAI_URL),
    ({"OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": LOCAL_URL}, LOCAL_URL),
]


def check_pick_client(pick_client) -> Verdict:
    """pick_client() -> a client for gpt-4o-mini when OPENAI_API_KEY is set, and the offline
    tutor otherwise, whatever else the environment holds.

    With a key, requests go where the SDK would send them: to OPENAI_BASE_URL when it is set (a
    local server, a proxy), else to OpenAI's API. A base URL without a key is still the tutor.

    Nothing is sent anywhere: the check only builds clients, with a fake key.
    """
    shown = {}
    with _no_network():
        for env, url in PICK_CASES:
            online = url is not None
            values = {k: None for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLAB_MODEL")}
            values.update(env)
            with _environment(**values):
                client, failed = _attempt(f"pick_client() with {_describe_env(env)}", pick_client)
            if failed is not None:
                return failed
            if _is_stub_result(client) or not hasattr(client, "offline"):
                return Verdict(False, f"pick_client() should return connect(...)'s client, not "
                               f"{_short(client)}")
            where = _describe_env(env)
            if online and client.offline:
                return Verdict(False, f"with {where} it must return a client for a real model")
            if not online and not client.offline:
                return Verdict(False, f"with {where} it must return the offline tutor: only "
                               "OPENAI_API_KEY selects a real model here")
            want = "gpt-4o-mini" if online else "tutor"
            if client.default_model != want:
                return Verdict(False, f"with {where} the model should be {want!r}, not "
                               f"{client.default_model!r}: name it, don't inherit AGENTLAB_MODEL")
            sent_to = str(getattr(getattr(client, "sdk", None), "base_url", "")).rstrip("/")
            if online and sent_to != url:
                return Verdict(False, f"with {where} requests should go to {url}, where the SDK "
                               f"would send them, not {sent_to or 'nowhere'}: leave base_url to "
                               "the environment")
            if FAKE_KEY in repr(client):
                return Verdict(False, "the client's repr shows the key: never print a key")
            shown.setdefault(url, client)
    return Verdict(True, f"without a key: {shown[None]!r}; with one: {shown[OPENAI_URL]!r}; "
                   f"with one and OPENAI_BASE_URL: {shown[LOCAL_URL]!r}")


def _describe_env(env: dict) -> str:
    if not env:
        return "no key"
    return ", ".join(f"{k}={'<fake key>' if k == 'OPENAI_API_KEY' else v}" for k, v in env.items())


# --- 09: text ReAct and code actions --------------------------------------------------------

REACT_TASKS = {  # task -> what the answer must say, from the tools' own results
    "What's the weather in Oslo?": lambda: str(get_weather(city="Oslo")["temp_c"]),
    "What is 17 * 23 + 4?": lambda: "395",
}


# The models check_react_loop tries, and what each asks of the loop beyond the tutor's tasks.
REACT_MODELS = {
    TUTOR: "run the action's tool and send its result back as 'Observation: ...' until the "
           "reply has an Answer",
    "tutor-base": "the model made that up: send stop=['Observation:'] so its reply ends after "
                  "Action Input, and run the tool yourself",
    "tutor-hallucinator": "it asks for search_web, a tool that is not in TOOLS: never look it up "
                          "or run it, send back an Observation whose error names it (and the "
                          "tools there are), and it asks for a real one",
    "tutor-sloppy": "it writes an Action Input that is not JSON, then arguments of the wrong "
                    "type: send each error back as the Observation (the parse error, the "
                    "tool's own exception), saying what was wrong, and it fixes them",
}


def check_react_loop(react_loop) -> Verdict:
    """react_loop(task, model) -> the answer, from a text-ReAct loop over the course's tools.

    Tried on two tasks with the tutor; with `tutor-base`, which writes past its turn (a
    made-up Observation, "42", and an answer from it) unless the request's stop sequence ends
    its reply: a loop that sends no stop, or trusts text after its Action, answers 42; with
    `tutor-hallucinator`, which asks for a tool that does not exist, and `tutor-sloppy`, whose
    Action Input is broken JSON, then wrongly typed: each answers right only if the loop sends
    the error back as the Observation, and a loop that crashes on them or runs whatever name it
    reads fails. (A loop that catches every error but has no allowlist is not caught here:
    none of these models names a function that exists outside TOOLS.)
    """
    example = None  # the tutor's first answer, shown when every model got it right
    for model, hint in REACT_MODELS.items():
        for task, expected in REACT_TASKS.items():
            answer, failed = _attempt(f"react_loop({task!r}, model={model!r})", react_loop,
                                      task, model=model)
            if failed is not None:
                return failed if model == TUTOR else Verdict(False, f"{failed.message}: {hint}")
            if _is_stub_result(answer) and model == TUTOR:
                return Verdict(False, f"react_loop returned {_short(answer)}: fill in the stub")
            if _is_stub_result(answer):
                return Verdict(False, f"with {model}, react_loop({task!r}) gave no answer "
                               f"({_short(answer)}): {hint}")
            if not isinstance(answer, str):
                return Verdict(False, f"return the answer's text, not {_short(answer)}")
            if expected() not in answer:
                return Verdict(False, f"with {model} the answer to {task!r} should say "
                               f"{expected()}, got {_short(answer)}: {hint}")
            example = example or answer
    return Verdict(True, "right with the tutor, with tutor-base (which writes past its turn) "
                   "and with models that ask for a missing tool or send broken arguments, "
                   f"e.g. {_short(example)}")


CODE_ALLOWED = [  # snippets an allowlist must let through (tools: get_weather, calculate)
    "print(get_weather(city='Oslo'))",
    "print(get_weather(city='Oslo'))\nprint(calculate(expression='2 + 2'))",
    "final_answer('It is -3 °C in Oslo.')",
    "result = calculate(expression='17 * 23')\nfinal_answer(result)",
]
CODE_REFUSED = [  # and snippets it must refuse
    "import os\nprint(os.listdir('.'))",
    "__import__('os').system('echo hi')",
    "print(open('/etc/passwd').read())",
    "exec('import os')",
    "print(eval('1 + 1'))",
    "print(get_weather.__globals__)",
    "print(().__class__.__bases__[0].__subclasses__())",
    "delete_files(path='/')",
    "print(get_weather(city='Oslo')",  # not even Python: nothing runs
]


def check_code_allowlist(allowed) -> Verdict:
    """allowed(code, tool_names) -> True only for a snippet that calls nothing but the listed
    tools, print and final_answer: no import, no attribute, no other name called."""
    names = ["get_weather", "calculate"]
    for code in CODE_ALLOWED + CODE_REFUSED:
        want = code in CODE_ALLOWED
        got, failed = _attempt(f"allowed({code!r})", allowed, code, list(names))
        if failed is not None:
            return failed
        if _is_stub_result(got):
            return Verdict(False, f"allowed returned {_short(got)}: fill in the stub")
        if got is not want:
            what = "let through" if want else "refuse"
            return Verdict(False, f"it should {what} {code!r} (return {want}), got "
                           f"{_short(got)}")
    return Verdict(True, f"lets {len(CODE_ALLOWED)} safe snippets through and refuses "
                   f"{len(CODE_REFUSED)}, among them imports, open, eval and dunder attributes")


__all__ = [name for name in dir() if name.startswith("check_")] + ["Verdict", "Run"]
