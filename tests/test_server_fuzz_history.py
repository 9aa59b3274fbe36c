"""Schemathesis over the Responses API's history (issue 32): the fuzzed input items with their
references pointed at items the server really stores, and earlier answers sent back as clients
send them (without `type`, `status` or `id`), so that the new paths (a reference resolved, an
answer taken without what the API fills in) are fuzzed too, not only refused at "not found".
No request may get a 5xx, and every answer must validate against the reference schema.
tests/test_server_fuzz.py fuzzes both APIs as the reference describes them."""

from __future__ import annotations

import json
import pathlib

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import checks as builtin  # noqa: E402
from server_helpers import post, running_server  # noqa: E402

from agentlab.server import responses as responses_api  # noqa: E402

RESPONSES_SPEC = pathlib.Path(__file__).parent / "data" / "openai-responses.openapi.json"
# The coverage phase is tests/test_server_fuzz.py's (in CI); here, the fuzzed cases only.
schema = schemathesis.openapi.from_path(RESPONSES_SPEC, config=schemathesis.Config.from_dict(
    {"phases": {"coverage": {"enabled": False}}}))
CHECKS = [builtin.not_a_server_error, builtin.status_code_conformance,
          builtin.content_type_conformance, builtin.response_schema_conformance]
EXAMPLES = 40
READ = (None, *responses_api.ITEM_SCHEMAS)  # the item types the tutor reads (None: a message)
WEATHER = {"type": "function", "name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


@pytest.fixture(scope="module")
def served():
    """The server on a free port, in this process."""
    with running_server(client_timeout=5.0) as address:
        yield address


def stored_turn(address) -> list[dict]:
    """One stored response's output, its sentence and its call, for a fuzzed request to refer
    to. Asked for again for each case: another test in this process may have emptied the
    store (tests/test_server_history.py shrinks it); the same request gives the same ids."""
    status, first = post(address, "/v1/responses", json.dumps(
        {"model": "tutor", "input": "What's the weather in Oslo?", "tools": [WEATHER]}).encode())
    assert status == 200, first
    assert [item["type"] for item in first["output"]] == ["message", "function_call"]
    return first["output"]


@pytest.fixture(scope="module")
def session():
    import requests

    with requests.Session() as shared:
        yield shared


@pytest.fixture(scope="module")
def statuses():
    """The statuses of the requests that carried the history: the fuzzing must reach the tutor
    through it (references resolved, the answer taken), not only get refused."""
    seen = {"requests": 0, "with the history": []}
    yield seen
    if seen["requests"] >= EXAMPLES:  # the whole test ran, not a single selected case
        # some fuzzed bodies break another rule (19 of 24 got through here)
        assert seen["with the history"].count(200) >= 5, seen


def history(output: list[dict]) -> list[dict]:
    """The stored turn as the clients send it back: the AI SDK's references (one with its type,
    one without), LangChain's answer without status, and the call's output."""
    message, call = output
    return [{"type": "item_reference", "id": message["id"]}, {"id": call["id"]},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "It is sunny.", "annotations": []}]},
            {"type": "function_call_output", "call_id": call["call_id"],
             "output": '{"city": "Oslo", "temperature_c": 18}'}]


@pytest.mark.long
@schema.include(path="/v1/responses", method="POST").parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_history_as_clients_send_it_gets_a_5xx(case, served, session, statuses):
    base_url = f"http://{served[0]}:{served[1]}"
    if isinstance(case.body, dict):
        case.body["model"] = "tutor"  # reach the tutor: an unknown model is only a 404
        case.body.pop("stream", None)
        case.body.pop("previous_response_id", None)  # a made-up id is only a 400
        case.body["store"] = False  # fuzz is not kept: the store holds the stored turn
        # Function tools only, and a tool_choice among them: the tutor refuses the rest,
        # whatever comes with them (tests/test_server_fuzz.py fuzzes those refusals).
        if isinstance(case.body.get("tools"), list):
            case.body["tools"] = [tool for tool in case.body["tools"]
                                  if not isinstance(tool, dict) or tool.get("type") == "function"]
        choice = case.body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") not in ("function", "allowed_tools"):
            del case.body["tool_choice"]
        given = case.body.get("input")
        if isinstance(given, str):
            given = [{"role": "user", "content": given}]
        if isinstance(given, list):  # the stored turn amid the fuzzed items the tutor reads
            given = [item for item in given if not isinstance(item, dict)
                     or item.get("type") in READ]
            middle = len(given) // 2
            case.body["input"] = given[:middle] + history(stored_turn(served)) + given[middle:]
    response = case.call(base_url=base_url, session=session, timeout=10)
    case.validate_response(response, checks=CHECKS)
    statuses["requests"] += 1
    if isinstance(case.body, dict) and "input" in case.body:
        statuses["with the history"].append(response.status_code)


@pytest.mark.parametrize("cap", [16.0, 17.0])
def test_a_whole_number_written_with_a_point_caps_the_reply(cap):
    """Found by the fuzzing above: max_output_tokens 16.0 (an integer to JSON Schema) reached
    the cap's cut as a float, a 500 ("The offline tutor failed: TypeError") before."""
    from agentlab.server import handle

    status, response, _ = handle("POST", "/v1/responses", json.dumps(
        {"model": "tutor", "input": "Tell me about the agent loop.",
         "max_output_tokens": cap}).encode())
    assert status == 200, response
    assert response["status"] == "incomplete" and response["usage"]["output_tokens"] <= cap
