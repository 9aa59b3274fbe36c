"""The tutor as an OpenAI-compatible HTTP API on a real local socket."""

import http.client
import json
import pathlib
import threading

import openai
import pytest
from jsonschema import Draft202012Validator

from agentlab import ChatClient, print_step, run_agent
from agentlab.server import MAX_BODY_BYTES, make_server
from agentlab.toolkit import COURSE_TOOLS

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data" / "openai-chat-completions.openapi.json").read_text())


def validator(name):
    return Draft202012Validator({**REFERENCE, "$ref": f"#/components/schemas/{name}"})


@pytest.fixture(scope="module")
def server():
    srv = make_server("127.0.0.1", 0, client_timeout=2.0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv.server_address
    srv.shutdown()
    srv.server_close()


def post(address, path, body: bytes, method="POST", headers=None):
    conn = http.client.HTTPConnection(*address, timeout=10)
    conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, json.loads(data)


def test_the_openai_sdk_talks_to_it_over_a_real_socket(server):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally")
    raw = sdk.chat.completions.with_raw_response.create(
        model="tutor", tools=[t.schema for t in COURSE_TOOLS],
        messages=[{"role": "user", "content": "What time is it, and what is 17 * 23 + sqrt(144)?"}])
    body = json.loads(raw.http_response.text)
    validator("CreateChatCompletionResponse").validate(body)
    completion = raw.parse()
    assert [c.function.name for c in completion.choices[0].message.tool_calls] == ["get_time", "calculate"]
    assert completion.usage.prompt_tokens > 0
    assert [m.id for m in sdk.models.list()][0] == "tutor"


def test_a_whole_run_over_http(server, fixed_clock, capsys):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally")
    client = ChatClient(sdk, default_model="tutor", offline=False, priced_as="gpt-4o-mini")
    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", COURSE_TOOLS,
                    client=client, on_step=print_step)
    assert run.stop_reason == "answered" and "403" in run.answer and "15:09:26" in run.answer
    assert "calling calculate" in capsys.readouterr().out


def test_answers_validate_against_the_reference_schema(server):
    body = {"model": "tutor", "messages": [{"role": "user", "content": "Write a poem"}]}
    status, answer = post(server, "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200 and answer["choices"][0]["finish_reason"] == "stop"
    validator("CreateChatCompletionResponse").validate(answer)
    status, listing = post(server, "/v1/models", b"", method="GET")
    assert status == 200 and {m["id"] for m in listing["data"]} >= {"tutor", "tutor-looper"}


def test_the_max_tokens_cap_cuts_the_answer(server):
    body = {"model": "tutor-verbose", "max_tokens": 10,
            "messages": [{"role": "user", "content": "Write a poem"}]}
    status, answer = post(server, "/v1/chat/completions", json.dumps(body).encode())
    assert answer["choices"][0]["finish_reason"] == "length"
    assert answer["usage"]["completion_tokens"] == 10 and len(answer["choices"][0]["message"]["content"]) == 40
    validator("CreateChatCompletionResponse").validate(answer)


GOOD = {"model": "tutor", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("path, body, status, message", [
    ("/v1/chat/completions", b"{not json", 400, "not valid JSON"),
    ("/v1/chat/completions", b"[1, 2]", 400, "must be a JSON object"),
    ("/v1/chat/completions", json.dumps({"messages": GOOD["messages"]}).encode(), 400, "'model' is required"),
    ("/v1/chat/completions", json.dumps({**GOOD, "model": "gpt-9"}).encode(), 404, "does not exist"),
    ("/v1/chat/completions", json.dumps({**GOOD, "messages": "hi"}).encode(), 400, "non-empty array"),
    ("/v1/chat/completions", json.dumps({**GOOD, "messages": [{"role": "wizard"}]}).encode(), 400, "'role'"),
    ("/v1/chat/completions", json.dumps({**GOOD, "tools": [{"type": "function"}]}).encode(), 400, "'tools'"),
    ("/v1/chat/completions", json.dumps({**GOOD, "max_tokens": "9"}).encode(), 400, "positive integer"),
    ("/v1/chat/completions", json.dumps({**GOOD, "stream": True}).encode(), 400, "does not stream"),
    ("/v1/chat/completions", json.dumps({**GOOD, "messages": [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                               "function": {"name": "f", "arguments": "{}"}}]},
    ]}).encode(), 400, "responding to each 'tool_call_id'"),
    ("/v1/completions", json.dumps(GOOD).encode(), 404, "Unknown endpoint"),
])
def test_bad_requests_get_openai_shaped_4xx_and_the_server_keeps_serving(server, path, body, status, message):
    got_status, answer = post(server, path, body)
    assert got_status == status
    validator("ErrorResponse").validate(answer)
    assert message in answer["error"]["message"]
    ok_status, _ = post(server, "/v1/chat/completions", json.dumps(GOOD).encode())
    assert ok_status == 200


def test_oversized_bodies_are_refused_unread(server):
    conn = http.client.HTTPConnection(*server, timeout=10)
    conn.putrequest("POST", "/v1/chat/completions")
    conn.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413
    validator("ErrorResponse").validate(json.loads(response.read()))
    conn.close()
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_wrong_method(server):
    status, answer = post(server, "/v1/chat/completions", b"", method="GET")
    assert status == 405 and answer["error"]["type"] == "invalid_request_error"


def test_a_stalled_client_gets_408_and_others_are_served_meanwhile(server):
    import socket

    stalled = socket.create_connection(server, timeout=10)
    stalled.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"mod")
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200
    stalled.setblocking(False)
    with pytest.raises(BlockingIOError):  # still waiting for its body: the other was not queued behind it
        stalled.recv(1)
    stalled.setblocking(True)
    reply = b""
    while chunk := stalled.recv(65536):
        reply += chunk
    stalled.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    validator("ErrorResponse").validate(json.loads(body))
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_bounded_load_on_loopback_has_no_errors(server):
    """8 concurrent clients, 100 requests each, on 127.0.0.1; stops by itself."""
    from concurrent.futures import ThreadPoolExecutor

    body = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "What is 6 * 7?"}],
                       "tools": [t.schema for t in COURSE_TOOLS]}).encode()

    def client(_):
        conn = http.client.HTTPConnection(*server, timeout=10)
        statuses = []
        for _ in range(100):
            conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            answer = json.loads(response.read())
            statuses.append(response.status == 200 and answer["choices"][0]["finish_reason"] == "tool_calls")
        conn.close()
        return statuses

    with ThreadPoolExecutor(8) as pool:
        results = [ok for statuses in pool.map(client, range(8)) for ok in statuses]
    assert len(results) == 800 and all(results)
