"""Variance: at temperature > 0 the tutor strays in documented ways, at documented rates,
reproducibly for a seed; at temperature 0 or None it never strays."""

import json

import pytest

from agentlab.toolkit import COURSE_TOOLS
from agentlab.tutor import respond
from agentlab.tutor.variance import RATES

TOOLS = [t.schema for t in COURSE_TOOLS]
FIRST = [{"role": "user", "content": "What time is it, and what is 17 * 23 + sqrt(144)?"}]
EXPECTED = respond("tutor", FIRST, TOOLS)
DONE = FIRST + [EXPECTED] + [  # both calls answered: the tutor would now answer
    {"role": "tool", "tool_call_id": c["id"], "content": '{"now": "2026-03-14T15:09:26+00:00"}'
     if c["function"]["name"] == "get_time" else "403"} for c in EXPECTED["tool_calls"]]
SEEDS = range(400)


def strays(reply):
    """Which documented ways a first reply strayed from the expected one."""
    kinds = set()
    calls = reply.get("tool_calls") or []
    if [c["function"]["name"] for c in calls] != ["get_time", "calculate"]:
        kinds.add("wrong_first_tool")
    try:
        json.loads(calls[0]["function"]["arguments"])
    except json.JSONDecodeError:
        kinds.add("malformed_argument")
    return kinds


@pytest.mark.parametrize("temperature", [None, 0, 0.0])
def test_temperature_zero_never_strays(temperature):
    for seed in range(50):
        assert respond("tutor", FIRST, TOOLS, temperature=temperature, seed=seed) == EXPECTED
        assert not respond("tutor", DONE, TOOLS, temperature=temperature, seed=seed).get(
            "tool_calls")


def test_the_same_seed_and_conversation_give_the_same_reply():
    for seed in range(50):
        first = respond("tutor", FIRST, TOOLS, temperature=1.0, seed=seed)
        assert respond("tutor", FIRST, TOOLS, temperature=1.0, seed=seed) == first


def rate(kind, messages, temperature):
    if kind == "extra_step":
        hits = [bool(respond("tutor", messages, TOOLS, temperature=temperature, seed=s).get(
            "tool_calls")) for s in SEEDS]
    else:
        hits = [kind in strays(respond("tutor", messages, TOOLS, temperature=temperature, seed=s))
                for s in SEEDS]
    return sum(hits) / len(hits)


@pytest.mark.parametrize("kind", sorted(RATES))
def test_each_way_of_straying_happens_at_about_its_documented_rate(kind):
    messages = DONE if kind == "extra_step" else FIRST
    for temperature in (1.0, 2.0):
        expected = RATES[kind] * temperature
        assert abs(rate(kind, messages, temperature) - expected) < 0.08, (kind, temperature)


def test_strays_are_recovered_from():
    """A malformed first call is followed by the right one, as a model fixes its slip."""
    seed = next(s for s in SEEDS if "malformed_argument" in strays(
        respond("tutor", FIRST, TOOLS, temperature=1.0, seed=s)))
    slip = respond("tutor", FIRST, TOOLS, temperature=1.0, seed=seed)
    broken = slip["tool_calls"][0]
    after = FIRST + [slip] + [
        {"role": "tool", "tool_call_id": c["id"],
         "content": '{"error": "the arguments are not valid JSON"}' if c is broken else "{}"}
        for c in slip["tool_calls"]]
    fixed = respond("tutor", after, TOOLS)  # temperature 0: no new slips
    assert fixed["tool_calls"][0]["function"]["name"] == broken["function"]["name"]
    json.loads(fixed["tool_calls"][0]["function"]["arguments"])
