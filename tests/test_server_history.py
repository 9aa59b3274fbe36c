"""The Responses API's history as real clients send it back (issue 32): an `item_reference` to
a stored item (the Vercel AI SDK's default provider), and earlier assistant messages without
`type`, `status` or `id` (LangChain with use_responses_api=True, the AI SDK with store: false),
taken as the real API takes them; an id the store does not hold gets a 400 naming it.

As raw requests here (handler.handle, in-process), and through LangChain's real client against
`agentlab serve`; tests/test_compat_js.py drives the AI SDK itself."""

from __future__ import annotations

import collections
import json

import pytest
from compat_serve import base_url, bounded, needs, offline  # noqa: F401
from server_helpers import RESPONSES_REFERENCE, validator

from agentlab.server import handle
from agentlab.server import responses as responses_api

WEATHER = {"type": "function", "name": "get_weather", "description": "The weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}}
CALC = {"type": "function", "name": "calculate", "description": "Evaluate arithmetic.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                       "required": ["expression"]}}
TASK = "What is 17 * 23, and what's the weather in Oslo?"
RESULTS = {"get_weather": json.dumps({"city": "Oslo", "temperature_c": 18}),
           "calculate": "391"}


@pytest.fixture
def empty_store(monkeypatch):
    """A store of the test's own, for a test that counts on what is dropped from it: another
    test in this process may have left the server's in any state (test_server_responses.py
    empties its list of responses by hand)."""
    monkeypatch.setattr(responses_api, "_stored", collections.OrderedDict())
    monkeypatch.setattr(responses_api, "_stored_bytes", 0)
    monkeypatch.setattr(responses_api, "_stored_items", {})
    monkeypatch.setattr(responses_api, "_holders", collections.Counter())


def ask(**fields):
    """(status, payload) for a POST to /v1/responses with these fields (model tutor)."""
    status, payload, _ = handle("POST", "/v1/responses",
                                json.dumps({"model": "tutor", **fields}).encode())
    return status, payload


def first_step(**fields) -> dict:
    """The tutor's first answer to TASK: a sentence, then its two calls."""
    status, first = ask(input=TASK, tools=[WEATHER, CALC], **fields)
    assert status == 200, first
    assert [item["type"] for item in first["output"]] == ["message", "function_call",
                                                          "function_call"]
    return first


def outputs(first: dict) -> list[dict]:
    return [{"type": "function_call_output", "call_id": item["call_id"],
             "output": RESULTS[item["name"]]}
            for item in first["output"] if item["type"] == "function_call"]


def answered(status: int, second: dict) -> str:
    assert status == 200, second
    validator("Response", RESPONSES_REFERENCE).validate(second)
    text = second["output"][0]["content"][0]["text"]
    assert "391" in text and "18" in text, text
    return text


def test_item_references_are_read_as_the_stored_items_they_name():
    """What the AI SDK sends at step 2: its earlier text as a reference, its calls in full.
    Before: a 400, "cannot read input items of type 'item_reference'"."""
    first = first_step()
    message, *calls = first["output"]
    replay = [{"type": "item_reference", "id": message["id"]},
              *[{k: c[k] for k in ("type", "call_id", "name", "arguments")} for c in calls]]
    answered(*ask(input=[{"role": "user", "content": TASK}, *replay, *outputs(first)],
                  tools=[WEATHER, CALC]))


def test_every_output_item_may_come_back_as_a_reference_with_or_without_its_type():
    first = first_step()
    references = [{"type": "item_reference", "id": first["output"][0]["id"]}] + [
        {"id": item["id"]} for item in first["output"][1:]]  # `type` is optional in the schema
    answered(*ask(input=[{"role": "user", "content": TASK}, *references, *outputs(first)],
                  tools=[WEATHER, CALC]))


def test_a_reference_reads_the_same_as_the_item_it_names():
    first = first_step()
    given = [{"role": "user", "content": TASK}, *first["output"], *outputs(first)]
    referenced = [{"role": "user", "content": TASK},
                  *[{"type": "item_reference", "id": item["id"]} for item in first["output"]],
                  *outputs(first)]
    assert (responses_api.as_messages({"input": given})
            == responses_api.as_messages(responses_api.check(
                {"model": "tutor", "input": referenced}, ["tutor"])))


@pytest.mark.parametrize("made", [
    {"store": False},  # the response it names was never kept, as on the real API
    None,  # an id never given
])
def test_a_reference_the_store_does_not_hold_gets_a_400_naming_it(made):
    item_id = first_step(**made)["output"][0]["id"] if made else "msg_never_given"
    status, payload = ask(input=[{"role": "user", "content": "hi"},
                                 {"type": "item_reference", "id": item_id}])
    assert status == 400, payload
    validator("ErrorResponse", RESPONSES_REFERENCE).validate(payload)
    assert item_id in payload["error"]["message"]
    assert "store" in payload["error"]["message"]  # and what to do about it
    assert payload["error"]["param"] == "input[1].id"


def test_a_dropped_response_takes_its_items_out_of_reach(monkeypatch, empty_store):
    monkeypatch.setattr(responses_api, "STORED_RESPONSES", 2)
    first = first_step()
    for turn in range(2):
        ask(input=f"turn {turn}")  # the first response is the oldest: dropped
    status, payload = ask(input=[{"type": "item_reference", "id": first["output"][0]["id"]}])
    assert status == 400 and first["output"][0]["id"] in payload["error"]["message"]
    assert first["output"][0]["id"] not in responses_api._stored_items


def test_an_item_a_later_turn_referred_to_outlives_the_response_that_made_it(monkeypatch,
                                                                           empty_store):
    """The AI SDK refers to its first answer at every step: once a later stored turn holds
    it, dropping the first response (the oldest) must not take it out of reach."""
    monkeypatch.setattr(responses_api, "STORED_RESPONSES", 2)
    first = first_step()
    message, *calls = first["output"]
    replay = [{"role": "user", "content": TASK}, {"type": "item_reference", "id": message["id"]},
              *[{k: c[k] for k in ("type", "call_id", "name", "arguments")} for c in calls],
              *outputs(first)]
    answered(*ask(input=replay, tools=[WEATHER, CALC]))  # stored: it holds the message too
    ask(input="another student's question")  # the first response is the oldest: dropped
    assert first["id"] not in responses_api._stored
    answered(*ask(input=replay, tools=[WEATHER, CALC]))  # the reference still resolves


def test_references_read_no_more_than_a_body_may_hold(monkeypatch):
    """A reference is a few bytes and the item it names up to a megabyte: 1 MB of references
    to one big item would have had the tutor read gigabytes (and the store keep them)."""
    big = {"role": "user", "id": "msg_big", "content": "What is 2 + 2? " + "x" * 600_000}
    assert ask(input=[big])[0] == 200  # stored, its id with it
    status, answer = ask(input=[{"type": "item_reference", "id": "msg_big"}])
    assert status == 200, answer
    status, payload = ask(input=[{"type": "item_reference", "id": "msg_big"}] * 2_000)
    assert status == 400, payload
    assert payload["error"]["param"] == "input[1]"  # the second reference is one too many
    assert f"{responses_api.REFERENCED_BYTES:,} bytes" in payload["error"]["message"]


@pytest.mark.parametrize("bad", [{"type": "item_reference"}, {"type": "item_reference", "id": 7},
                                 {"type": "item_reference", "id": ["msg_1"]}])
def test_a_malformed_reference_gets_the_schemas_400(bad):
    status, payload = ask(input=[{"role": "user", "content": "hi"}, bad])
    assert status == 400, payload
    assert payload["error"]["param"].startswith("input[1]")


def test_a_message_id_of_any_shape_is_stored_and_dropped_without_a_500(monkeypatch, empty_store):
    """A message's `id` is not in its schema, so it may be a list: it must not reach the
    item index (a list cannot be a dict key), neither when stored nor when dropped."""
    monkeypatch.setattr(responses_api, "STORED_RESPONSES", 1)
    assert ask(input=[{"role": "user", "content": "hi", "id": ["x"]}])[0] == 200
    assert ask(input=[{"role": "user", "content": "hi", "id": {"a": 1}}])[0] == 200
    assert ask(input="and again")[0] == 200  # drops both


@pytest.mark.parametrize("shape", ["langchain", "ai-sdk-no-store", "no-id-no-type"])
def test_an_earlier_answer_without_type_status_or_id_is_taken(shape):
    """Before: a 400 ("'status' is a required property", or "'type' ..."): the reference's
    OutputMessage requires them, the real API does not."""
    first = first_step(store=False)
    text = first["output"][0]["content"][0]["text"]
    message = {"langchain": {"type": "message", "role": "assistant", "content": [
                   {"type": "output_text", "text": text, "annotations": []}],
                   "id": first["output"][0]["id"]},
               "ai-sdk-no-store": {"role": "assistant", "content": [
                   {"type": "output_text", "text": text}], "id": first["output"][0]["id"]},
               "no-id-no-type": {"role": "assistant", "content": [
                   {"type": "output_text", "text": text}]}}[shape]
    calls = [{k: c[k] for k in ("type", "call_id", "name", "arguments")}
             for c in first["output"][1:]]
    answered(*ask(input=[{"role": "user", "content": TASK}, message, *calls, *outputs(first)],
                  tools=[WEATHER, CALC], store=False))


def test_an_earlier_answer_is_still_held_to_the_rest_of_its_schema():
    """Filling in what the API fills in is all: a wrong status or a part without text is
    still refused, naming it."""
    for message, param in [
        ({"role": "assistant", "status": "done", "content": [
            {"type": "output_text", "text": "hi"}]}, "input[1].status"),
        ({"role": "assistant", "content": [{"type": "output_text"}]}, "input[1].content[0]"),
    ]:
        status, payload = ask(input=[{"role": "user", "content": "hi"}, message])
        assert status == 400, payload
        assert payload["error"]["param"].startswith(param), payload


# ---------------------------------------------------------------------------------------------
# LangChain's real client, use_responses_api=True, through `agentlab serve`


@needs("langchain_openai", "langchain-openai")
@needs("langchain", "langchain")
@pytest.mark.parametrize("store", [None, False])
def test_langchain_on_the_responses_api_runs_the_tool_loop_to_its_answer(store, base_url,
                                                                         offline):
    """LangChain's agent sends the tutor's earlier sentence back as an output message without
    `status` (and, with store=False, without its id): before, a 400 at step 2."""
    import compat_frameworks as frameworks

    def run():
        from langchain.agents import create_agent
        from langchain_openai import ChatOpenAI

        llm = ChatOpenAI(model=frameworks.MODEL, base_url=base_url, api_key=frameworks.API_KEY,
                         max_retries=0, timeout=frameworks.SECONDS, use_responses_api=True,
                         store=store)
        agent = create_agent(llm, tools=[frameworks.get_time, frameworks.calculate])
        state = agent.invoke({"messages": [{"role": "user", "content": frameworks.TASK}]},
                             {"recursion_limit": 2 * frameworks.MAX_STEPS + 1})
        return state["messages"][-1].text

    answer = bounded(run)
    assert "403" in answer and frameworks.FIXED_TIME in answer, answer
