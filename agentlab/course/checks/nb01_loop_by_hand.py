"""Notebook 01, The loop by hand: check_observe, check_estimate_cost.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import math
import types

from agentlab.toolkit import get_weather
from agentlab.tutor.reading import error_in_text

from ._common import (Verdict, as_number, attempt, is_stub_result, returned_nothing, rounded,
                      short, still_a_stub, tutor_client)

COAT = "What's the weather in {city}, and should I take a coat?"


def _one_request(city: str, call_id: str):
    """A conversation in which the tutor has asked for get_weather(city); the call gets call_id."""
    client = tutor_client()
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
        _, failed = attempt(f"observe(messages, call, outcome) for {what}", observe, messages,
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
            hint = ""
            if added == 0:
                hint = (" (fill in the stub)" if still_a_stub(observe) else
                        ": append to the list you were given, messages.append(...); a new "
                        "list, returned or assigned, is not the conversation the loop sends")
            return Verdict(False, f"observe should append exactly one message to messages; "
                           f"it added {added}{hint}")
        added = messages[-1]
        if not isinstance(added, dict) or added.get("role") != "tool":
            return Verdict(False, "append a dict with role 'tool': "
                           "{'role': 'tool', 'tool_call_id': ..., 'content': ...}")
        if added.get("tool_call_id") != call_id:
            return Verdict(False, f"tool_call_id must be the call's id ({call_id!r}), not "
                           f"{short(added.get('tool_call_id'))}: it tells the model which "
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
            return Verdict(False, f"{short(content)} reads like a failure, but the call "
                           "worked: send a result as it is, json.dumps(result), and mark only "
                           "an exception as an error")
        missing = [v for v in values if v not in content]
        if missing:
            return Verdict(False, f"the content does not carry the result: {missing} missing from "
                           f"{short(content)}")
        try:  # a conversation observe has broken (an id changed, a message replaced) is refused
            reply = client.chat(messages=messages, tools=[get_weather.schema])
        except Exception as e:
            return Verdict(False, f"after observe the model could not read the conversation: "
                           f"{type(e).__name__}: {short(e, 200)}; append one message and "
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
        return (f"{short(content)} reads like a result: mark a failure as one, "
                "json.dumps({'error': ...}) (or text starting 'Error:'), so the model knows "
                "its call failed")
    if message not in content and message not in said:
        return (f"the error {short(said)} does not say what went wrong: send the exception's "
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
        got, failed = attempt(call, estimate_cost, *case)
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(estimate_cost, got, call, "the cost in dollars")
        number = as_number(got)
        if number is None:
            return Verdict(False, f"{call} should return a number of dollars, not {short(got)}")
        if not math.isclose(number, expected, rel_tol=1e-9, abs_tol=1e-15):
            return Verdict(False, f"{call} should be ${expected:.8f}, not {short(got)}: "
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
    if rounded(got, _cost(prompt, cached, completion, p_in, p_cached, p_out)):
        return ("the sum is right but rounded: a few tokens cost a fraction of a cent, so "
                "return the exact value and round only where you print it")
    return ("each kind of token has its price per million: which tokens pay which price, "
            "and are cached tokens counted inside prompt_tokens?")
