"""Every exercise check accepts differently written right answers, refuses plausible wrong ones
(hard-coded outputs, answered-but-wrong, off-by-one), and never crashes or reaches a real API."""

import collections
import json
import os
import pathlib

import pytest

from agentlab import Deny, Limits, connect, tool
from agentlab.course import checks as ex
from agentlab.course import sweeps
from agentlab.course.checks import (nb02_tools, nb04a_guardrails, nb05_playground, nb06_measuring,
                                    nb07_real_models)

STUBS = [None, ..., 42, "text", lambda *a, **k: None, lambda *a, **k: ...,
         lambda *a, **k: (_ for _ in ()).throw(NotImplementedError)]


def refused(verdict, *words):
    assert not verdict, verdict
    assert repr(verdict).startswith("✗ Not yet: ")
    for word in words:
        assert word in verdict.message, verdict.message
    return True


# --- 01 --------------------------------------------------------------------------------------

def right_observe(messages, call, outcome):
    """A right answer to 01's exercise 1: a result as JSON, a failure as {"error": ...}."""
    if isinstance(outcome, Exception):
        content = json.dumps({"error": f"{type(outcome).__name__}: {outcome}"})
    else:
        content = json.dumps(outcome)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def test_check_observe_accepts_any_readable_text():
    def with_str(messages, call, outcome):
        text = f"Error: {outcome}" if isinstance(outcome, Exception) else str(outcome)
        messages += [dict(role="tool", tool_call_id=call.id, content=text)]

    def as_python_prints_it(messages, call, outcome):  # "ValueError: no demo data ..."
        text = (f"{type(outcome).__name__}: {outcome}" if isinstance(outcome, Exception)
                else json.dumps(outcome))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": text})

    assert ex.check_observe(right_observe)
    assert ex.check_observe(with_str)
    assert ex.check_observe(as_python_prints_it)  # a student review: it was refused


def test_check_observe_says_what_to_do_when_the_exception_escapes():
    def raises_it_again(messages, call, outcome):  # a student review: no hint said what to do
        if isinstance(outcome, Exception):
            raise outcome
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(outcome)})

    refused(ex.check_observe(raises_it_again), "raised ValueError", "append its message as an "
            "error")


@pytest.mark.parametrize("write_failure", [
    lambda e: f"ERROR - the tool failed: {e}",
    lambda e: json.dumps({"status": "error", "message": str(e)}),
    lambda e: f"Failed: {e}",
    lambda e: f"error: {e}",
    lambda e: json.dumps({"ok": False, "error": str(e)}),
], ids=["ERROR -", "status error", "Failed:", "lower-case error:", "ok false"])
def test_check_observe_accepts_failures_a_real_model_reads_as_failures(write_failure):
    """The reviewer's right answers, refused before: a model reads each as a failed call."""
    def observe(messages, call, outcome):
        content = (write_failure(outcome) if isinstance(outcome, Exception)
                   else json.dumps(outcome))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    assert ex.check_observe(observe)


@pytest.mark.parametrize("write_failure", [
    lambda e: str(e), lambda e: f"The tool said {e}", lambda e: json.dumps({"message": str(e)}),
    lambda e: json.dumps({"status": "ok", "message": str(e)}), lambda e: f"Errors: {e}",
], ids=["bare", "a sentence", "a message alone", "status ok", "Errors (another word)"])
def test_check_observe_still_refuses_a_failure_with_no_marker(write_failure):
    def observe(messages, call, outcome):
        content = (write_failure(outcome) if isinstance(outcome, Exception)
                   else json.dumps(outcome))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    refused(ex.check_observe(observe), "reads like a result")


def test_check_observe_refuses_plausible_mistakes():
    paris = json.dumps({"city": "Paris", "temp_c": 8, "conditions": "light rain"})
    hard_coded = lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id, "content": paris})
    refused(ex.check_observe(hard_coded), "missing")
    fixed_id = lambda m, c, r: m.append({"role": "tool", "tool_call_id": "call_0_0",
                                         "content": json.dumps(r)})
    refused(ex.check_observe(fixed_id), "tool_call_id")
    not_text = lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id, "content": r})
    refused(ex.check_observe(not_text), "json.dumps")
    as_user = lambda m, c, r: m.append({"role": "user", "content": json.dumps(r)})
    refused(ex.check_observe(as_user), "role 'tool'")
    twice = lambda m, c, r: m.extend([{"role": "tool", "tool_call_id": c.id, "content": "{}"}] * 2)
    refused(ex.check_observe(twice), "exactly one")
    refused(ex.check_observe(lambda m, c, r: 1 / 0), "ZeroDivisionError")
    all_errors = lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id,
                                           "content": json.dumps({"error": str(r)})})
    refused(ex.check_observe(all_errors), "reads like a failure, but the call worked")


def test_check_observe_wants_a_failure_marked_and_explained():
    # The answer shown above the exercise (json.dumps of a result) cannot encode an exception.
    as_shown = lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id,
                                         "content": json.dumps(r)})
    refused(ex.check_observe(as_shown), "not JSON serializable", "as an error")
    as_plain_text = lambda m, c, r: m.append({"role": "tool", "tool_call_id": c.id,
                                              "content": str(r)})
    refused(ex.check_observe(as_plain_text), "reads like a result")
    vague = lambda m, c, r: right_observe(m, c, RuntimeError("failed")
                                          if isinstance(r, Exception) else r)
    refused(ex.check_observe(vague), "does not say what went wrong")


def test_check_observe_never_crashes_when_the_conversation_is_broken():
    def replaces_the_request(messages, call, outcome):  # the review's probe p3
        messages[-1] = {"role": "tool", "tool_call_id": call.id, "content": "{}"}
        right_observe(messages, call, outcome)

    refused(ex.check_observe(replaces_the_request), "could not read the conversation")


def right_cost(prompt, cached, completion, p_in, p_cached, p_out):
    return ((prompt - cached) * p_in + cached * p_cached + completion * p_out) / 1e6


def test_check_estimate_cost():
    from decimal import Decimal
    from fractions import Fraction

    assert ex.check_estimate_cost(right_cost)
    assert ex.check_estimate_cost(lambda p, k, c, i, ki, o: (p - k) / 1_000_000 * i
                                  + k * (ki / 1_000_000) + c * o / 1e6)
    # Any real number of dollars (review D8: a Decimal was refused).
    assert ex.check_estimate_cost(lambda *a: Decimal(repr(right_cost(*a))))
    assert ex.check_estimate_cost(lambda *a: Fraction(right_cost(*a)))
    refused(ex.check_estimate_cost(lambda *a: right_cost(*a) * 1e3), "per million")
    refused(ex.check_estimate_cost(lambda p, k, c, i, ki, o: right_cost(p, k, c, o, ki, i)),
            "swapped")
    refused(ex.check_estimate_cost(lambda p, k, c, i, ki, o: (p * i + c * o) / 1e6), "cached")
    refused(ex.check_estimate_cost(lambda p, k, c, i, ki, o: (p * i + k * ki + c * o) / 1e6),
            "inside prompt_tokens")
    refused(ex.check_estimate_cost(lambda p, k, c, i, ki, o: right_cost(p, k, 0, i, ki, o)
                                   + c * i / 1e6), "own")
    refused(ex.check_estimate_cost(lambda *a: round(right_cost(*a), 4)))
    # the right sum, rounded: told so, not sent back to the formula (a student review)
    refused(ex.check_estimate_cost(lambda *a: round(right_cost(*a), 6)), "rounded")
    assert "rounded" not in ex.check_estimate_cost(lambda *a: 0).message
    refused(ex.check_estimate_cost(lambda *a: 0.000044), "should be")
    refused(ex.check_estimate_cost(lambda *a: "$0.000044"), "number")
    # The four-argument formula shown above the exercise is not the answer.
    refused(ex.check_estimate_cost(lambda p, c, i, o: (p * i + c * o) / 1e6), "TypeError")


# --- 02 --------------------------------------------------------------------------------------

DOCUMENTED = "Celsius to Fahrenheit.\n\n    Args:\n        celsius: degrees C.\n"


def _temperature_tool(body, doc=DOCUMENTED, annotation=float):
    def convert_temperature(celsius: annotation) -> float:
        return body(celsius)
    convert_temperature.__doc__ = doc
    return tool(convert_temperature)


def test_check_temperature_tool():
    assert ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32))
    assert ex.check_temperature_tool(_temperature_tool(lambda c: 32 + 1.8 * c))
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: (c - 32) * 5 / 9)), "212")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5)), "212")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: 212)), "-40")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: str(c * 9 / 5 + 32))))
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32,
                                                        doc="Celsius to Fahrenheit.")), "describe")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 // 5 + 32, annotation=int)),
            "float")
    refused(ex.check_temperature_tool(lambda c: c * 9 / 5 + 32), "@tool")


def test_check_temperature_tool_does_not_wait_for_jsonschema(monkeypatch):
    """The first check a student runs in notebook 02 does not import jsonschema (about a second
    of its format checker's grammars): fastjsonschema reads the schema, and a broken schema
    accepts nothing."""
    import sys

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # importing it would now fail
    assert ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32))
    assert nb02_tools._schema_accepts({"type": "object"}, {"celsius": 36.6})
    assert not nb02_tools._schema_accepts({"type": "no such type"}, {"celsius": 36.6})
    assert not nb02_tools._schema_accepts({"properties": {"celsius": {"type": "integer"}}},
                                  {"celsius": 36.6})


def test_check_temperature_tool_accepts_any_annotation_that_takes_36_6():
    assert ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32,
                                                       annotation=float | int))


def test_check_temperature_tool_accepts_a_result_rounded_to_one_decimal_not_to_none():
    """The course prints "66.2 °F": rounding to a tenth is a right answer (a student review)."""
    assert ex.check_temperature_tool(_temperature_tool(lambda c: round(c * 9 / 5 + 32, 1)))
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: round(c * 9 / 5 + 32))),
            "37 °C should be 98.6 °F, not 99")


def test_check_temperature_tool_refuses_a_table_of_the_values_it_names():
    table = {100: 212, -40: -40, 37: 98.6, 0: 32, 21.5: 70.7}
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: table[c])),
            "on another temperature it raised KeyError")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: table.get(c, 0))),
            "on another temperature it gave 0, not its °F")
    # The unnamed inputs never appear in a verdict, nor does the formula (the answer).
    verdict = ex.check_temperature_tool(_temperature_tool(lambda c: table[c]))
    assert not any(str(c) in verdict.message for c in nb02_tools._UNNAMED_CELSIUS)
    assert "9/5" not in verdict.message and "1.8" not in verdict.message


def test_check_temperature_tool_asks_for_a_docstring_before_its_args_section():
    """A function with no docstring at all was told to describe celsius in an Args: section
    "of the docstring" it did not have (a review): the docstring comes first."""
    with pytest.warns(UserWarning, match="no docstring"):
        undocumented = _temperature_tool(lambda c: c * 9 / 5 + 32, doc=None)
    verdict = ex.check_temperature_tool(undocumented)
    refused(verdict)
    assert verdict.message.startswith("give the function a docstring"), verdict.message
    # A docstring without an Args: section is then told about the section.
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32,
                                                        doc="Celsius to Fahrenheit.")), "Args:")


def test_check_temperature_tool_refuses_the_stubs_docstring():
    stub_doc = ("Replace this docstring: a summary line, then an Args: section describing "
                "celsius.\n\n    Args:\n        celsius: x\n")
    refused(ex.check_temperature_tool(_temperature_tool(lambda c: c * 9 / 5 + 32, doc=stub_doc)),
            "replace the stub's docstring")


# --- 03 --------------------------------------------------------------------------------------

def test_check_count_tool_calls():
    def with_loops(run):
        counts = {}
        for step in run.steps:
            for call in step.tool_calls:
                counts[call.name] = counts.get(call.name, 0) + 1
        return counts

    assert ex.check_count_tool_calls(with_loops)
    assert ex.check_count_tool_calls(
        lambda run: collections.Counter(c.name for c in run.tool_calls))
    refused(ex.check_count_tool_calls(lambda run: {"lookup_country": 2, "get_weather": 2}))
    refused(ex.check_count_tool_calls(lambda run: {c.name: 1 for c in run.tool_calls}))
    refused(ex.check_count_tool_calls(lambda run: {"get_weather": len(run.steps)}))
    refused(ex.check_count_tool_calls(lambda run: {c.name: len(run.steps) - 1
                                                   for c in run.tool_calls}))
    refused(ex.check_count_tool_calls(lambda run: [c.name for c in run.tool_calls]), "dict")


def test_check_count_tool_calls_refuses_the_reviewers_wrong_attempts():
    """Both held when every run ended answered with no failed call (an outside review)."""
    def skips_the_last_step(run):  # "the last step is the answer": not when a limit stops it
        return dict(collections.Counter(c.name for s in run.steps[:-1] for c in s.tool_calls))

    def only_successful_calls(run):  # a failed call was asked for too
        return dict(collections.Counter(c.name for c in run.tool_calls if c.error is None))

    refused(ex.check_count_tool_calls(skips_the_last_step), "not with an answer")
    refused(ex.check_count_tool_calls(only_successful_calls), "failed")

    def counts_steps_with_calls(run):  # one per step, not one per call
        return dict(collections.Counter(s.tool_calls[0].name for s in run.steps if s.tool_calls))
    refused(ex.check_count_tool_calls(counts_steps_with_calls))


# --- 04a -------------------------------------------------------------------------------------

def test_check_truncate():
    def wrapped(result, max_chars):
        text = json.dumps(result)
        if len(text) <= max_chars:
            return text
        note = {"truncated": "", "cut_characters": len(text)}
        room = max_chars - len(json.dumps(note)) - 10
        return json.dumps({"truncated": text[:room], "cut_characters": len(text) - room})

    def shrink_until_it_fits(result, max_chars):
        text, keep = json.dumps(result), max_chars
        while len(json.dumps(text[:keep] + " [cut]")) > max_chars:
            keep -= 1
        return json.dumps(result) if len(json.dumps(result)) <= max_chars else \
            json.dumps(text[:keep] + " [cut]")

    assert ex.check_truncate(wrapped)
    assert ex.check_truncate(shrink_until_it_fits)
    refused(ex.check_truncate(lambda r, n: json.dumps(r)[:n]), "not valid JSON")
    refused(ex.check_truncate(lambda r, n: json.dumps(json.dumps(r)[:n])), "unchanged")
    refused(ex.check_truncate(lambda r, n: json.dumps({"truncated": True})))
    refused(ex.check_truncate(lambda r, n: r), "text")


def _cut(keep):
    """A truncate that passes a result that fits and cuts the rest with keep(text, max_chars)."""
    def truncate(result, max_chars):
        text = json.dumps(result)
        return text if len(text) <= max_chars else json.dumps(keep(text, max_chars))
    return truncate


def test_check_truncate_refuses_the_reviews_wrong_answers():
    # Keeping the end instead of the beginning (review D3, probe p1).
    refused(ex.check_truncate(_cut(lambda text, n: text[-(n // 2):])), "start of the result")
    # A constant in place of the result.
    refused(ex.check_truncate(_cut(lambda text, n: "rain, rain, rain")), "start of the result")
    # `<` for `<=`: a result exactly max_chars long is cut although it fits.
    def off_by_one(result, max_chars):
        text = json.dumps(result)
        return text if len(text) < max_chars else json.dumps(text[: max_chars // 2] + " [cut]")

    refused(ex.check_truncate(off_by_one), "exactly 400 characters")
    # One past: a result a character too long must be cut (a `<= n + 1` lets it through whole).
    def one_past(result, max_chars):
        text = json.dumps(result)
        return text if len(text) <= max_chars + 1 else json.dumps(text[: max_chars // 2] +
                                                                  " [cut]")

    refused(ex.check_truncate(one_past), "at most 400")


def test_check_truncate_refuses_a_silent_cut_as_the_gauntlet_does():
    """04a asks to say that a result was cut, and the gauntlet's truncation row refuses a silent
    cut: the exercise whose truncate a student puts in their loop agrees with it."""
    silent = _cut(lambda text, n: text[: n // 2])
    refused(ex.check_truncate(silent), "cut it silently")
    assert ex.check_truncate(_cut(lambda text, n: text[: n // 2] + f" ({len(text)} chars, cut)"))


def test_the_exact_and_one_past_cases_are_what_they_say():
    lengths = [(len(json.dumps(r)), n) for r, n in nb04a_guardrails.TRUNCATE_CASES]
    assert (400, 400) in lengths and (401, 400) in lengths


def test_check_truncate_accepts_a_cut_inside_the_result():
    def keep_the_shape(result, max_chars):  # cut the long value, keep the dict
        text = json.dumps(result)
        if len(text) <= max_chars:
            return text
        if isinstance(result, str):
            return json.dumps(result[: max_chars // 2] + " [cut]")
        report = result["report"]
        while len(json.dumps(dict(result, report=report + " [cut]"))) > max_chars:
            report = report[:-10]
        return json.dumps(dict(result, report=report + " [cut]"))

    assert ex.check_truncate(keep_the_shape)


# --- 04b -------------------------------------------------------------------------------------

def right_approve(name, arguments):
    """A right answer to 04b's exercise 1."""
    plan = "Berlin, London, Madrid, Oslo, Paris and Rome"
    if name != "get_weather":
        return Deny(f"only get_weather is allowed, for {plan}")
    if str(arguments.get("city") or "").strip().title() not in ex.EUROPE:
        return Deny(f"the weather plan covers {plan} only")
    return True


def test_check_europe_only():
    europe = {"Paris", "London", "Berlin", "Madrid", "Rome", "Oslo"}
    assert ex.check_europe_only(right_approve)
    assert ex.check_europe_only(lambda n, a: True if n == "get_weather"
                                and a.get("city", "").strip().lower()
                                in {c.lower() for c in europe}
                                else "get_weather only, for " + ", ".join(europe))

    def wrapped(verdict_for):
        return lambda n, a: verdict_for(n, a, right_approve(n, a))

    refused(ex.check_europe_only(lambda n, a: True), "deny")
    # A forgotten return (None) does not allow: the loop refuses it, and so does the check.
    refused(ex.check_europe_only(wrapped(lambda n, a, v: None if v is True else v)),
            "only True allows")
    refused(ex.check_europe_only(wrapped(lambda n, a, v: v is True)), "reason")
    refused(ex.check_europe_only(wrapped(lambda n, a, v: Deny("no") if v is not True else v)),
            "does not name")
    # The demo's hook: exact spellings only, every other tool allowed.
    refused(ex.check_europe_only(lambda n, a: True if a.get("city") in europe else Deny("no")),
            "'paris'")
    refused(ex.check_europe_only(wrapped(lambda n, a, v: True if n == "calculate" else v)),
            "calculate")
    refused(ex.check_europe_only(wrapped(  # a partial match lets "Parisian" through
        lambda n, a, v: True if any(c in a.get("city", "") for c in europe) else v)),
            "Parisian")
    refused(ex.check_europe_only(wrapped(  # the reason for a city must list the plan
        lambda n, a, v: Deny("not in the plan") if n == "get_weather" and v is not True
        else v)), "does not name Berlin")


def test_check_looper_settings():
    assert ex.check_looper_settings(Limits(max_steps=2), True)
    assert ex.check_looper_settings(Limits(max_steps=2, max_repeats=1), wind_down=True)
    # The notebook's demo, one step shorter, is not enough: the exercise asks for the fewest.
    refused(ex.check_looper_settings(Limits(max_steps=3), wind_down=True), "fewer")
    refused(ex.check_looper_settings(Limits(max_steps=3)), "without an answer")
    # A last word before any tool ran is no answer to 6 * 7 (review: these passed).
    refused(ex.check_looper_settings(Limits(max_steps=1), True), "6 * 7")
    refused(ex.check_looper_settings(Limits(max_cost_usd=0.001), True), "6 * 7")
    refused(ex.check_looper_settings(Limits(max_steps=4), wind_down=True), "fewer")
    refused(ex.check_looper_settings({"max_steps": 3}, wind_down=True), "Limits")
    refused(ex.check_looper_settings(Limits(max_steps=3), wind_down=...), "True or False")


# --- 05 --------------------------------------------------------------------------------------

def test_check_smallest_budget_accepts_the_slider_value_and_its_readout():
    assert ex.check_smallest_budget(10 ** -1.75)
    assert ex.check_smallest_budget(0.018)  # what the slider displays


def test_no_check_gives_its_answer_away_in_help_or_in_a_refusal():
    """help(check) is what a student reads first (the student copy has it too)."""
    smallest = next(b for b in ex.slider_budgets() if nb05_playground._answers_at(b))
    answers = {"check_smallest_budget": [f"{smallest:.2g}", f"{smallest:.4g}", "10**-1.75",
                                         "-1.75"],
               "check_looper_settings": ["max_steps=2", "two", "wind_down=True"]}
    for name, giveaways in answers.items():
        doc = getattr(ex, name).__doc__
        for giveaway in giveaways:
            assert giveaway not in doc, (name, giveaway)
    # nor in what a wrong attempt prints
    for wrong in (10 ** -1.5, 0.01, 10 ** -2.75):
        message = ex.check_smallest_budget(wrong).message
        assert f"{smallest:.2g}" not in message and f"{smallest:.4g}" not in message
    for limits, wind_down in ((Limits(max_steps=3), True), (Limits(max_steps=3), False),
                              (Limits(max_steps=1), True)):
        message = ex.check_looper_settings(limits, wind_down).message
        assert "max_steps=2" not in message and "wind_down=True" not in message
    # estimate_cost's last-resort hint asks questions; it does not print the formula
    message = ex.check_estimate_cost(lambda *a: 1.0).message
    assert "(prompt - cached)" not in message


def test_check_smallest_budget_refuses_its_neighbours():
    refused(ex.check_smallest_budget(10 ** -1.5), "smaller slider value")
    refused(ex.check_smallest_budget(0.1), "smaller slider value")
    refused(ex.check_smallest_budget(0.01), "does not answer")
    # Between two slider values, below the smallest that answers, and answering: not told a
    # smaller slider value works (none does), but that the slider cannot take it
    message = ex.check_smallest_budget(0.015).message
    assert "not a value the slider can take" in message and "smaller slider" not in message
    # The default prices' answer, printed in notebook 5 above the exercise, is not this one.
    refused(ex.check_smallest_budget(10 ** -2.75), "does not answer")
    refused(ex.check_smallest_budget("0.018"), "number")
    refused(ex.check_smallest_budget(True), "number")
    for nonsense in (float("nan"), float("inf"), 0, -0.01):
        refused(ex.check_smallest_budget(nonsense), "above 0")


# --- 06 --------------------------------------------------------------------------------------

def test_check_success_rates():
    from agentlab.course.sweeps import success_rates

    def by_hand(results):
        solved, total = {}, {}
        for r in results:
            solved[r.setting] = solved.get(r.setting, 0) + r.solved
            total[r.setting] = total.get(r.setting, 0) + 1
        return {s: solved[s] / total[s] for s in total}

    assert ex.check_success_rates(by_hand)
    # agentlab's own, imported in notebook 6, is no answer: nor is a wrapper around it.
    refused(ex.check_success_rates(success_rates), "agentlab's own")
    refused(ex.check_success_rates(lambda results: success_rates(results)), "agentlab's own")
    refused(ex.check_success_rates(lambda results: sweeps.success_rates(results)), "agentlab's own")

    def nested(results):
        def inner():
            return success_rates(results)
        return inner()

    refused(ex.check_success_rates(nested), "agentlab's own")

    # Reached through the package at run time, not through a name bound to it (review).
    import importlib

    import agentlab

    refused(ex.check_success_rates(lambda results: agentlab.course.sweeps.success_rates(results)),
            "agentlab's own")
    refused(ex.check_success_rates(
        lambda results: importlib.import_module("agentlab.course.sweeps").success_rates(results)),
        "agentlab's own")

    def imported_inside(results):
        from agentlab.course.sweeps import success_rates as theirs
        return theirs(results)

    refused(ex.check_success_rates(imported_inside), "agentlab's own")
    assert sweeps.success_rates is success_rates  # the spy is gone after the check

    def own_dict_named_alike(results):  # a local of the same name is the student's own
        success_rates = {}
        for r in results:
            success_rates.setdefault(r.setting, []).append(r.solved)
        return {s: sum(success_rates[s]) / len(success_rates[s]) for s in success_rates}

    assert ex.check_success_rates(own_dict_named_alike)
    answered = lambda results: {r.setting: sum(x.run.stop_reason == "answered" for x in results
                                               if x.setting == r.setting) /
                                sum(1 for x in results if x.setting == r.setting) for r in results}
    refused(ex.check_success_rates(answered), "result.solved")
    percent = lambda results: {k: 100 * v for k, v in by_hand(results).items()}
    refused(ex.check_success_rates(percent), "percentage")
    # the right shares, rounded: told so, not sent back to the formula (a student review)
    for digits in (2, 3):
        refused(ex.check_success_rates(
            lambda results: {k: round(v, digits) for k, v in by_hand(results).items()}),
            "rounded")
    assert "rounded" not in ex.check_success_rates(
        lambda results: {k: 0 for k in by_hand(results)}).message
    refused(ex.check_success_rates(lambda results: {1: 0.0, 2: 0.5, 4: 1.0}))
    refused(ex.check_success_rates(lambda results: {r.setting: 1.0 for r in results}))
    off_by_one = lambda results: {s: sum(r.solved for r in results if r.setting == s) /
                                  (sum(1 for r in results if r.setting == s) + 1)
                                  for s in dict.fromkeys(r.setting for r in results)}
    refused(ex.check_success_rates(off_by_one))


# --- 07 --------------------------------------------------------------------------------------

def test_check_pick_client(monkeypatch):
    assert ex.check_pick_client(lambda: connect("gpt-4o-mini") if os.environ.get("OPENAI_API_KEY")
                                else connect("tutor"))

    def explicit():
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            return connect("tutor")
        return connect("gpt-4o-mini", api_key=key)

    assert ex.check_pick_client(explicit)
    refused(ex.check_pick_client(lambda: connect()))
    refused(ex.check_pick_client(lambda: connect("tutor")), "a real model")
    refused(ex.check_pick_client(lambda: connect("gpt-4o-mini") if "OPENAI" in str(os.environ)
                                 else connect("tutor")))
    # A key with OPENAI_BASE_URL goes where the SDK would send it: the base URL (review D6).
    assert any(env.get("OPENAI_API_KEY") and env.get("OPENAI_BASE_URL") == url
               for env, url in nb07_real_models.PICK_CASES)
    always_openai = lambda: connect("gpt-4o-mini", base_url=nb07_real_models.OPENAI_URL) \
        if os.environ.get("OPENAI_API_KEY") else connect("tutor")
    refused(ex.check_pick_client(always_openai), "where the SDK would send them")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-outer-value-must-come-back-000000")
    ex.check_pick_client(lambda: connect())
    assert os.environ["OPENAI_API_KEY"] == "sk-outer-value-must-come-back-000000"  # restored


# --- 09: text ReAct and code actions ---------------------------------------------------------

REACT_PROMPT = """You have access to the following tools:
> Tool Name: get_weather
Tool Description: Get the current weather in a city.
Tool Args: {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

> Tool Name: calculate
Tool Description: Evaluate an arithmetic expression.
Tool Args: {"type": "object", "properties": {"expression": {"type": "string"}}, \
"required": ["expression"]}

Answer in this format:
Thought: what you need to do next
Action: the tool's name (one of get_weather, calculate)
Action Input: the tool's arguments, as a JSON object
You will then get:
Observation: the tool's result
When you can answer, write:
Answer: your answer"""


def test_json_problem_reads_what_json_loads_says_on_every_python():
    from agentlab.tutor.reading import JSON_PROBLEM

    for said in ["Expecting ',' delimiter: line 1 column 18 (char 17)",
                 "Unterminated string starting at: line 1 column 10 (char 9)",
                 "Extra data: line 1 column 20 (char 19)",
                 "Illegal trailing comma before end of object: line 1 column 17 (char 16)",  # 3.13
                 "Expecting property name enclosed in double quotes"]:
        assert JSON_PROBLEM.search(said), said


def _react_loop(stop=("Observation:",), answer_first=False, allowlist=True, errors_back=True,
                write_error=lambda e: {"error": f"{type(e).__name__}: {e}"},
                unknown_tool=None, look_in_globals=False, whole_reply=False):
    """A text-ReAct loop as notebook 09 builds it; stop=None, answer_first=True,
    allowlist=False (it looks up whatever name it reads), errors_back=False (a broken
    Action Input or a tool's exception stops it), look_in_globals=True (a name not in the
    allowlist is looked up in globals()) and whole_reply=True (it returns the whole reply, not
    the text after "Answer:") are the mistakes check_react_loop must catch."""
    import re

    from agentlab.toolkit import calculate, get_weather

    tools, sdk = {"get_weather": get_weather, "calculate": calculate}, connect("tutor").sdk

    def react_loop(task, model="tutor"):
        messages = [{"role": "system", "content": REACT_PROMPT},
                    {"role": "user", "content": task}]
        for _ in range(6):
            text = sdk.chat.completions.create(model=model, messages=messages,
                                               stop=list(stop) if stop else None
                                               ).choices[0].message.content
            action = re.search(r"Action:\s*(\S+)\s*\nAction Input:\s*(.*)", text, re.S)
            if "Answer:" in text and (answer_first or not action):
                return text if whole_reply else text.split("Answer:", 1)[1].strip()
            if look_in_globals and action[1] not in tools and action[1] in globals():
                result = globals()[action[1]](**json.loads(action[2]))
            elif allowlist and action[1] not in tools:
                result = (unknown_tool(action[1], list(tools)) if unknown_tool else
                          {"error": f"unknown tool {action[1]!r}; use one of {list(tools)}"})
            else:
                tool = tools[action[1]]  # without the allowlist above, a KeyError ends the loop
                try:
                    result = tool(**json.loads(action[2]))
                except Exception as e:
                    if not errors_back:
                        raise
                    result = write_error(e)
            messages += [{"role": "assistant", "content": text},
                         {"role": "user", "content": f"Observation: {json.dumps(result)}"}]
        return None

    return react_loop


def test_check_react_loop():
    assert ex.check_react_loop(_react_loop())
    refused(ex.check_react_loop(_react_loop(stop=None, answer_first=True)),
            "send stop=['Observation:']")
    refused(ex.check_react_loop(lambda task, model="tutor": "It is -3 °C in Oslo."), "395")
    refused(ex.check_react_loop(_react_loop(allowlist=False)), "search_web, a tool that is not")
    refused(ex.check_react_loop(_react_loop(errors_back=False)), "not JSON, then arguments")
    # A review: a loop that answers every failure with "ok" passed (the model fixed its own
    # call); a model takes "ok" for the result, and answers from it.
    refused(ex.check_react_loop(_react_loop(write_error=lambda e: "ok")), "tutor-sloppy")
    refused(ex.check_react_loop(_react_loop(write_error=lambda e: {})), "tutor-sloppy")


@pytest.mark.parametrize("write_error", [
    lambda e: {"error": str(e)},  # json.loads' own message: "Expecting ',' delimiter ..."
    lambda e: f"{type(e).__name__}: {e}",  # as Python prints it
    # a second review: unmarked, but each says what was wrong
    lambda e: f"Could not parse Action Input as JSON ({e}); fix it and try again.",
    lambda e: f"Invalid JSON: {e}", lambda e: str(e), lambda e: repr(e),
], ids=["the parser's message", "as Python prints it", "could not parse", "invalid JSON",
        "str(e)", "repr(e)"])
def test_check_react_loop_takes_an_error_that_says_what_the_parser_said(write_error):
    assert ex.check_react_loop(_react_loop(write_error=write_error))


@pytest.mark.parametrize("unknown_tool", [
    lambda name, tools: {"tool": name, "result": None},
    lambda name, tools: f"{name}: no results",
], ids=["an empty result", "no results"])
def test_check_react_loop_refuses_an_unknown_tool_answered_as_if_it_ran(unknown_tool):
    refused(ex.check_react_loop(_react_loop(unknown_tool=unknown_tool)), "tutor-hallucinator")


@pytest.mark.parametrize("write_error", [
    lambda e: {"error": "Unexpected error."}, lambda e: {"error": "Illegal input."},
], ids=["unexpected", "illegal"])
def test_check_react_loop_refuses_a_vague_error_for_broken_json(write_error):
    def vague_for_json(e):
        return write_error(e) if isinstance(e, json.JSONDecodeError) else {"error": str(e)}
    refused(ex.check_react_loop(_react_loop(write_error=vague_for_json)), "tutor-sloppy")


def test_check_react_loop_takes_langchains_own_unknown_tool_text():
    # Not marked as an error, but it names the tool and the tools there are: a model reads it.
    def langchain(name, tools):
        return f"{name} is not a valid tool, try one of [{', '.join(tools)}]."
    assert ex.check_react_loop(_react_loop(unknown_tool=langchain))


def _allowed(code, tool_names, *, attributes=True, parse=True):
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        if not parse:
            raise
        return False
    names = set(tool_names) | {"print", "final_answer"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                attributes and isinstance(node, ast.Attribute)):
            return False
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            return False
        if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in names):
            return False
    return True


def test_check_code_allowlist():
    assert ex.check_code_allowlist(_allowed)
    refused(ex.check_code_allowlist(lambda code, names: _allowed(code, names, attributes=False)),
            "__globals__")
    refused(ex.check_code_allowlist(lambda code, names: _allowed(code, names, parse=False)),
            "SyntaxError")
    refused(ex.check_code_allowlist(lambda code, names: True), "import os")


# --- every check -----------------------------------------------------------------------------

CHECKS = sorted(n for n in dir(ex) if n.startswith("check_"))


@pytest.mark.parametrize("name", CHECKS)
@pytest.mark.parametrize("stub", STUBS, ids=["None", "Ellipsis", "int", "str", "returns-None",
                                             "returns-Ellipsis", "raises-NotImplementedError"])
def test_no_check_crashes_on_a_stub_or_a_wrong_type(name, stub):
    verdict = getattr(ex, name)(stub)
    refused(verdict)


RIGHT = {
    "check_observe": right_observe,
    "check_estimate_cost": right_cost,
    "check_temperature_tool": _temperature_tool(lambda c: c * 9 / 5 + 32),
    "check_count_tool_calls": lambda run: dict(collections.Counter(c.name for c in run.tool_calls)),
    "check_truncate": lambda r, n: json.dumps(r) if len(json.dumps(r)) <= n
    else json.dumps(json.dumps(r)[: n // 2] + " [truncated]"),
    "check_europe_only": right_approve,
    "check_looper_settings": Limits(max_steps=2),
    "check_smallest_budget": 10 ** -1.75,
    "check_success_rates": lambda results: {
        s: sum(r.solved for r in results if r.setting == s) /
        sum(1 for r in results if r.setting == s) for s in {r.setting for r in results}},
    "check_pick_client": lambda: connect("gpt-4o-mini") if os.environ.get("OPENAI_API_KEY")
    else connect("tutor"),
    "check_react_loop": _react_loop(),
    "check_code_allowlist": _allowed,
}


def test_every_check_has_a_right_answer_here():
    assert set(RIGHT) == set(CHECKS)


@pytest.mark.parametrize("name", CHECKS)
def test_a_key_in_the_environment_changes_nothing_and_nothing_reaches_the_network(
        name, monkeypatch):
    import httpx

    def no_network(self, request):
        raise AssertionError(f"a check reached the network: {request.url}")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-outer-key-0000000000000000")
    monkeypatch.setenv("AGENTLAB_MODEL", "gpt-4o-mini")
    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", no_network)
    # check_success_rates runs its sweeps again, under the key
    nb06_measuring._check_sweep.cache_clear()
    args = (RIGHT[name], True) if name == "check_looper_settings" else (RIGHT[name],)
    verdict = getattr(ex, name)(*args)
    assert verdict, verdict


@pytest.mark.parametrize("name", CHECKS)
def test_every_check_is_used_by_a_student_notebook_and_its_solution(name):
    root = pathlib.Path(__file__).parent.parent / "notebooks"
    students = "".join(p.read_text() for p in root.glob("0*.ipynb"))
    solutions = "".join(p.read_text() for p in (root / "solutions").glob("0*.ipynb"))
    assert name in students and name in solutions


def test_verdicts_read_as_one_line():
    assert repr(ex.Verdict(True, "fine")) == "✓ Works: fine"
    assert repr(ex.Verdict(False, "no")) == "✗ Not yet: no"


# --- the sweeps that check_success_rates and notebook 06 rely on ----------------------------

def test_success_is_judged_by_the_answers_value():
    from agentlab import Run
    from agentlab.course.sweeps import Task, last_number

    assert last_number("It's 19 °C in Lima. That is 66.2 °F.") == 66.2
    assert last_number("1234 * 5678 = 7,006,652.") == 7006652
    assert last_number("no number") is None and last_number(None) is None
    task = Task("What is 17 * 23 + sqrt(144)?", "403", 403)

    def ended(text, reason="answered"):
        return Run(task="t", model="tutor", priced_as="x", limits={}, answer=text,
                   stop_reason=reason)

    assert task.solved_by(ended("17 * 23 + sqrt(144) = 403."))
    assert task.solved_by(ended("The result is 403.0"))
    assert not task.solved_by(ended("I think 403 is close: 404."))  # answered, but wrong
    assert not task.solved_by(ended("403", reason="max_steps"))


def test_measure_tasks_are_a_dozen_or_more_each_with_a_value():
    from agentlab.course.sweeps import MEASURE_TASKS

    assert len(MEASURE_TASKS) >= 12 and all(t.value is not None for t in MEASURE_TASKS)


def test_spread():
    from agentlab.course.sweeps import spread

    assert spread({0: 0.5, 1: 1.0}) == {"mean": 0.75, "stdev": 0.354, "low": 0.5, "high": 1.0}
    assert spread({0: 0.9})["stdev"] == 0.0
    with pytest.raises(ValueError, match="at least one success rate"):
        spread({})


def test_a_sweep_stops_at_the_first_run_whose_model_failed_and_keeps_what_it_made():
    """A wrong address or a bad key fails every run the same way: the sweep says so at once,
    with the cause, instead of reporting 0% for every setting minutes later."""
    from agentlab import connect
    from agentlab.server import handle, make_transport
    from agentlab.course.sweeps import MEASURE_TASKS, SweepStopped, sweep

    calls = []

    def down_after_two_runs(method, path, body):
        calls.append(path)
        if len(calls) > 4:  # the first two tasks take two model calls each
            return 401, {"error": {"message": "Incorrect API key provided", "type": "auth",
                                   "param": None, "code": "invalid_api_key"}}, 0.0
        return handle(method, path, body)

    client = connect("tutor", transport=make_transport(down_after_two_runs))
    with pytest.raises(SweepStopped) as stopped:
        sweep(MEASURE_TASKS[:3], "max_steps", [2, 4, 6], client=client)
    assert str(stopped.value).startswith("run 3 of 9 could not reach the model: the model "
                                         "call failed: AuthenticationError (HTTP 401)")
    assert ".. " not in str(stopped.value)
    assert [r.solved for r in stopped.value.results] == [True, True, False]
    assert len(calls) == 5  # no run after the failing one


def test_a_failure_of_one_run_only_is_counted_as_unsolved_and_the_sweep_goes_on():
    from agentlab import connect
    from agentlab.server import handle, make_transport
    from agentlab.course.sweeps import MEASURE_TASKS, success_rates, sweep

    def too_long_for_the_first_task(method, path, body):
        if b"What is 17 * 23 + sqrt(144)?" in body:  # one task is "too long"; not the others
            return 400, {"error": {"message": "maximum context length is 128000 tokens",
                                   "type": "invalid_request_error", "param": "messages",
                                   "code": "context_length_exceeded"}}, 0.0
        return handle(method, path, body)

    client = connect("tutor", transport=make_transport(too_long_for_the_first_task))
    results = sweep(MEASURE_TASKS[:3], "max_steps", [4, 6], client=client)
    assert len(results) == 6 and success_rates(results) == {4: 2 / 3, 6: 2 / 3}
    assert [r.run.stop_reason for r in results[:3]] == ["error", "answered", "answered"]


def test_repeated_trials_send_temperature_and_a_seed_per_trial(monkeypatch):
    from agentlab.course import sweeps
    from agentlab import server

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


def test_progress_is_printed_text(capsys):
    from agentlab.course.sweeps import MEASURE_TASKS, sweep

    sweep(MEASURE_TASKS[:2], "max_steps", [1, 4], progress=True)
    assert capsys.readouterr().out.splitlines() == [
        "sweeping max_steps: 0/4 runs (0%)",  # first, what the cell waits for
        "sweeping max_steps: 1/4 runs (25%)", "sweeping max_steps: 2/4 runs (50%)",
        "sweeping max_steps: 3/4 runs (75%)", "sweeping max_steps: 4/4 runs (100%)"]


# --- 04b: the approval hook in the student's own loop ----------------------------------------

def loop_with_approval(refusal=lambda name, verdict: {"error": f"{name} not run: "
                                                                 f"{verdict.reason}"},
                       ask=lambda approve, name, arguments: approve(name, arguments),
                       answer_refusals=True):
    """A student's loop with an approve hook; the arguments plant one mistake each."""
    def my_loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.5,
                approve=None):
        messages = [{"role": "user", "content": user_message}]
        for _ in range(max_steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                name, arguments = call.function.name, json.loads(call.function.arguments)
                verdict = True if approve is None else ask(approve, name, arguments)
                if verdict is True:
                    content = json.dumps(tool_impls[name](**arguments))
                elif not answer_refusals:
                    continue
                else:
                    if not isinstance(verdict, Deny):
                        verdict = Deny("the approval hook refused it")
                    content = refusal(name, verdict)
                    content = content if isinstance(content, str) else json.dumps(content)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return "Stopped: step limit."
    return my_loop


RIGHT["check_loop_approval"] = loop_with_approval()


def test_check_loop_approval_accepts_a_loop_that_asks_before_each_call():
    verdict = ex.check_loop_approval(loop_with_approval())
    assert verdict and repr(verdict).startswith("✓ Works")
    # "Error: ..." text reads as a failure too (notebook 1's rule)
    assert ex.check_loop_approval(loop_with_approval(
        refusal=lambda name, verdict: f"Error: {verdict.reason}"))


def test_check_loop_approval_refuses_each_planted_mistake():
    refused(ex.check_loop_approval(loop_with_approval(ask=lambda approve, n, a: True)),
            "get_weather ran for", "Tokyo")
    # a forgotten return (None) must refuse, as agentlab's loop does: it fails closed
    refused(ex.check_loop_approval(loop_with_approval(
        ask=lambda approve, n, a: approve(n, a) or True)), "None", "no city")
    refused(ex.check_loop_approval(loop_with_approval(
        refusal=lambda name, verdict: {"error": "refused"})), "verdict.reason")
    refused(ex.check_loop_approval(loop_with_approval(
        refusal=lambda name, verdict: f"{name} was not run: {verdict.reason}")),
        "reads like a result")
    refused(ex.check_loop_approval(loop_with_approval(answer_refusals=False)), "raised")
    refused(ex.check_loop_approval(lambda user_message, tools, tool_impls, client, model,
                                   max_steps=10, max_cost_usd=0.5: "done"), "approve=None")
    refused(ex.check_loop_approval(lambda *a, approve=None, **k: ...), "fill in the stub")
    refused(ex.check_loop_approval("my_loop"), "a function")


@pytest.mark.long
def test_check_loop_approval_gives_up_on_a_loop_that_never_returns():
    import threading
    never = threading.Event()

    def hangs(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.5,
              approve=None):
        never.wait(30)

    import time
    started = time.perf_counter()
    refused(ex.check_loop_approval(hangs), "did not return")
    never.set()
    assert time.perf_counter() - started < 10


# --- the review's kinds of attempt: a wrong and a right one for each ---------------------------

def _ellipsis_cut(result, max_chars):  # 04a: "..." alone is no note
    text = json.dumps(result)
    return text if len(text) <= max_chars else json.dumps(text[: max_chars // 2] + "...")


def _worded_cut(result, max_chars):  # 04a: a note in words, with how much
    text = json.dumps(result)
    if len(text) <= max_chars:
        return text
    keep = max_chars // 2
    return json.dumps(text[:keep] + f"... [cut: {len(text) - keep:,} of {len(text):,} characters]")


def _distinct_calls(run):  # 03: a set of (name, arguments) counts a repeated call once
    return dict(collections.Counter(name for name, _ in {(c.name, c.arguments)
                                                         for c in run.tool_calls}))


def _every_asking(run):  # 03
    return dict(collections.Counter(c.name for s in run.steps for c in s.tool_calls))


def _approve_by_key(name, arguments):  # 04b: KeyError on a call without a city
    if name != "get_weather":
        return Deny("only get_weather is allowed")
    city = arguments["city"].strip().title()
    return True if city in ex.EUROPE else Deny(f"covered: {', '.join(sorted(ex.EUROPE))}")


def _approve_by_get(name, arguments):  # 04b
    if name != "get_weather":
        return Deny("only get_weather is allowed")
    city = arguments.get("city")
    if isinstance(city, str) and city.strip().title() in ex.EUROPE:
        return True
    return Deny(f"the plan covers {', '.join(sorted(ex.EUROPE))}; ask for one of them")


def _key_named(name="gpt-4o-mini"):  # 07: an empty OPENAI_API_KEY is taken as a key
    return connect(name) if "OPENAI_API_KEY" in os.environ else connect("tutor")


def _key_valued():  # 07
    return connect("gpt-4o-mini") if os.environ.get("OPENAI_API_KEY") else connect("tutor")


def _allowed_without(kind):  # 09: an allowlist that misses one kind of node
    import ast

    def allowed(code, tool_names):
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return False
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) or (kind != "from"
                                                and isinstance(node, ast.ImportFrom)):
                return False
            if isinstance(node, ast.Attribute):
                return False
            if kind != "dunder" and isinstance(node, ast.Name) and node.id.startswith("__"):
                return False
            if isinstance(node, ast.Call) and not (
                    isinstance(node.func, ast.Name)
                    and node.func.id in {*tool_names, "print", "final_answer"}):
                return False
        return True
    return allowed


def _fahrenheit_tool(shape):  # 02: the number, or a dict as the course's own tools return
    return _temperature_tool(lambda c: shape(c, c * 9 / 5 + 32))


def _vague_json_error(e):  # 09: says the JSON was broken, not what the parser said
    if isinstance(e, json.JSONDecodeError):
        return {"error": "Action Input is not valid JSON; send a JSON object"}
    return {"error": f"{type(e).__name__}: {e}"}


WRONG_ATTEMPTS = [  # (check, attempt, words its refusal must hold)
    ("check_react_loop", _react_loop(look_in_globals=True), ["outside TOOLS"]),
    ("check_react_loop", _react_loop(write_error=_vague_json_error), ["what the parser said"]),
    ("check_react_loop", _react_loop(write_error=lambda e: "Expecting valid JSON, try again"),
     ["what the parser said"]),
    ("check_react_loop", _react_loop(whole_reply=True), ["text after 'Answer:'"]),
    ("check_truncate", _ellipsis_cut, ["bare ellipsis", "in words"]),
    ("check_count_tool_calls", _distinct_calls, ["the same call", "each time it asked counts"]),
    ("check_europe_only", _approve_by_key, ["KeyError", "arguments.get('city')"]),
    ("check_pick_client", _key_named, ["empty key is no key"]),
    ("check_code_allowlist", _allowed_without("from"), ["from os import system"]),
    ("check_code_allowlist", _allowed_without("dunder"), ["__builtins__", "starts with __"]),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: {"result": f}), ["a key that says"]),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: {"fahrenheit": c}), ["should be"]),
]
RIGHT_ATTEMPTS = [  # (check, attempt), each written from the notebook's text
    ("check_react_loop", _react_loop(write_error=lambda e: f"Action Input is not JSON: {e}")),
    ("check_truncate", _worded_cut),
    ("check_count_tool_calls", _every_asking),
    ("check_europe_only", _approve_by_get),
    ("check_pick_client", _key_valued),
    ("check_code_allowlist", _allowed_without("nothing")),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: {"celsius": c, "fahrenheit": f})),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: {"temp_f": round(f, 1)})),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: {"value": f, "unit": "°F"})),
    ("check_temperature_tool", _fahrenheit_tool(lambda c, f: round(f, 1))),
]


@pytest.mark.parametrize("name, attempt, words", WRONG_ATTEMPTS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(WRONG_ATTEMPTS)])
def test_each_kind_of_wrong_attempt_is_refused_with_what_it_did(name, attempt, words):
    refused(getattr(ex, name)(attempt), *words)


@pytest.mark.parametrize("name, attempt", RIGHT_ATTEMPTS,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(RIGHT_ATTEMPTS)])
def test_each_kind_of_right_attempt_is_accepted(name, attempt):
    verdict = getattr(ex, name)(attempt)
    assert verdict, verdict


def test_the_made_up_tool_planted_for_the_check_is_taken_away():
    assert ex.check_react_loop(_react_loop())
    assert "search_web" not in globals()


# A function the student filled in that returns None is told what it returned, not to "fill
# in the stub"; the stub itself still is.

def _stub_count(run):
    """{tool name: how many times the model asked for it} over every step of `run`."""
    ...


def _count_without_return(run):
    counts = {}
    for call in run.tool_calls:
        counts[call.name] = counts.get(call.name, 0) + 1


def _observe_into_a_new_list(messages, call, outcome):
    return messages + [{"role": "tool", "tool_call_id": call.id, "content": json.dumps(outcome)}]


def _truncate_without_return(result, max_chars):
    text = json.dumps(result)
    text = text if len(text) <= max_chars else json.dumps(text[:max_chars // 2] + " [cut]")


@tool
def _convert_without_return(celsius: float) -> float:
    """Convert Celsius to Fahrenheit.

    Args:
        celsius: degrees Celsius.
    """
    fahrenheit = celsius * 9 / 5 + 32  # noqa: F841 - the planted mistake: no return


@tool
def _convert_stub(celsius: float) -> float:
    """Convert Celsius to Fahrenheit.

    Args:
        celsius: degrees Celsius.
    """
    ...


@pytest.mark.parametrize("name, filled, words", [
    ("check_count_tool_calls", _count_without_return, ["returned None", "`return`"]),
    ("check_observe", _observe_into_a_new_list, ["messages.append", "a new list"]),
    ("check_truncate", _truncate_without_return, ["returned None", "`return`"]),
    ("check_temperature_tool", _convert_without_return, ["returned None", "`return`"]),
], ids=["count_tool_calls", "observe", "truncate", "convert_temperature"])
def test_a_filled_function_is_not_told_to_fill_in_the_stub(name, filled, words):
    verdict = getattr(ex, name)(filled)
    refused(verdict, *words)
    assert "fill in the stub" not in verdict.message


@pytest.mark.parametrize("name, stub", [("check_count_tool_calls", _stub_count),
                                        ("check_temperature_tool", _convert_stub)])
def test_the_stub_itself_is_told_to_fill_it_in(name, stub):
    refused(getattr(ex, name)(stub), "fill in the stub")


def test_a_check_that_runs_for_seconds_says_first_what_it_waits_for(capsys):
    """check_smallest_budget runs the Peru question at each slider budget and
    check_success_rates sweeps twice: each prints one line before it starts, the same at every
    run (nbval compares it); a stub, refused at once, waits for nothing."""
    assert ex.check_smallest_budget(RIGHT["check_smallest_budget"])
    assert capsys.readouterr().out == ("Running the Peru question at each slider budget from "
                                       "the smallest up, priced as gpt-4.1 ...\n")
    assert ex.check_success_rates(RIGHT["check_success_rates"])
    assert capsys.readouterr().out == ("Sweeping the first 6 tasks over max_steps, then "
                                       "max_result_chars ...\n")
    refused(ex.check_smallest_budget(...))
    assert capsys.readouterr().out == ""
