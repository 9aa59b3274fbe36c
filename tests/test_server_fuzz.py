"""Schemathesis fuzzes the server from OpenAI's own API description (with the `paths` we
added): no request may get a 5xx, and every answer (streamed or not, error or not) must
validate against the reference schema."""

import json
import pathlib

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import checks as builtin  # noqa: E402
from server_helpers import running_server, validator  # noqa: E402

SPEC = pathlib.Path(__file__).parent / "data" / "openai-chat-completions.openapi.json"
schema = schemathesis.openapi.from_path(SPEC)


@pytest.fixture(scope="module")
def base_url():
    with running_server(client_timeout=5.0) as (host, port):
        yield f"http://{host}:{port}"


def stream_chunks_validate(response):
    """Each event of a `stream: true` answer is a chunk that validates, ending in [DONE]."""
    if not response.headers.get("content-type", [""])[0].startswith("text/event-stream"):
        return
    events = response.text.split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""], "a stream ends with data: [DONE]"
    for event in events[:-2]:
        assert event.startswith("data: ")
        validator("CreateChatCompletionStreamResponse").validate(json.loads(event[6:]))


@schema.parametrize()
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_5xx_and_every_answer_validates(case, base_url, statuses):
    if isinstance(case.body, dict):  # reach the tutor: an unknown model is only a 404
        case.body["model"] = "tutor"
    response = case.call(base_url=base_url, timeout=10)
    case.validate_response(response, checks=[
        builtin.not_a_server_error, builtin.status_code_conformance,
        builtin.content_type_conformance, builtin.response_schema_conformance])
    stream_chunks_validate(response)
    statuses.append(response.status_code)


@pytest.fixture(scope="module")
def statuses():
    """The statuses seen: the fuzzing must reach the tutor (200s), not only get refused."""
    seen = []
    yield seen
    if len(seen) > 50:  # the whole module ran, not a single selected case
        assert seen.count(200) >= 10, sorted(seen)
