"""The tutor as an OpenAI-compatible HTTP API on a real local socket (tornado)."""

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest
from server_helpers import GOOD, post, raw, running_server, split_reply, validator

from agentlab import ChatClient, print_step, run_agent
from agentlab.server.handler import MAX_BODY_BYTES
from agentlab.toolkit import COURSE_TOOLS

TASK = "What time is it, and what is 17 * 23 + sqrt(144)?"


@pytest.fixture(scope="module")
def server():
    with running_server(client_timeout=2.0) as address:
        yield address


@pytest.fixture
def quick_drop_server():
    """A server that drops a stalled client after 0.5 s: far longer than another client's
    request takes, which must be answered while the stalled one waits."""
    with running_server(client_timeout=0.5) as address:
        yield address


def test_the_openai_sdk_talks_to_it_over_a_real_socket(server):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally")
    raw_response = sdk.chat.completions.with_raw_response.create(
        model="tutor", tools=[t.schema for t in COURSE_TOOLS],
        messages=[{"role": "user", "content": TASK}])
    body = json.loads(raw_response.http_response.text)
    validator("CreateChatCompletionResponse").validate(body)
    completion = raw_response.parse()
    names = [c.function.name for c in completion.choices[0].message.tool_calls]
    assert names == ["get_time", "calculate"]
    assert completion.usage.prompt_tokens > 0
    assert [m.id for m in sdk.models.list()][0] == "tutor"


def test_a_whole_run_over_http(server, fixed_clock, capsys):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally")
    client = ChatClient(sdk, default_model="tutor", offline=False, priced_as="gpt-4o-mini")
    run = run_agent(TASK, COURSE_TOOLS, client=client, on_step=print_step)
    assert run.stop_reason == "answered" and "403" in run.answer and "15:09:26" in run.answer
    assert "calling calculate" in capsys.readouterr().out


def test_the_sdk_streams_over_a_real_socket(server):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally")
    stream = sdk.chat.completions.create(
        model="tutor", tools=[t.schema for t in COURSE_TOOLS], stream=True,
        stream_options={"include_usage": True}, messages=[{"role": "user", "content": TASK}])
    chunks = list(stream)
    calls = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"name": "", "arguments": ""})
                call["name"] += delta.function.name or ""
                call["arguments"] += delta.function.arguments or ""
    assert [c["name"] for c in calls.values()] == ["get_time", "calculate"]
    assert json.loads(calls[1]["arguments"]) == {"expression": "17 * 23 + sqrt(144)"}
    assert chunks[-2].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0


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
    assert answer["usage"]["completion_tokens"] == 10
    assert len(answer["choices"][0]["message"]["content"]) == 40
    validator("CreateChatCompletionResponse").validate(answer)


def _with(**fields):
    return json.dumps({**GOOD, **fields}).encode()


@pytest.mark.parametrize("path, body, status, message", [
    ("/v1/chat/completions", b"{not json", 400, "not valid JSON"),
    ("/v1/chat/completions", b"[1, 2]", 400, "must be a JSON object"),
    ("/v1/chat/completions", json.dumps({"messages": GOOD["messages"]}).encode(), 400,
     "'model' is required"),
    ("/v1/chat/completions", _with(model="gpt-9"), 404, "does not exist"),
    ("/v1/chat/completions", _with(messages="hi"), 400, "Invalid 'messages'"),
    ("/v1/chat/completions", _with(messages=[{"role": "wizard"}]), 400, "'messages[0].role'"),
    ("/v1/chat/completions", _with(tools=[{"type": "function"}]), 400, "'tools[0]'"),
    ("/v1/chat/completions", _with(max_tokens="9"), 400, "'max_tokens'"),
    ("/v1/chat/completions", _with(messages=[
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    ]), 400, "responding to each 'tool_call_id'"),
    ("/v1/completions", json.dumps(GOOD).encode(), 404, "Unknown endpoint POST /v1/completions"),
])
def test_bad_requests_get_openai_shaped_4xx_and_the_server_keeps_serving(
        server, path, body, status, message):
    got_status, answer = post(server, path, body)
    assert got_status == status
    validator("ErrorResponse").validate(answer)
    assert message in answer["error"]["message"]
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_the_unknown_path_message_names_the_path_and_the_endpoints(server):
    status, answer = post(server, "/", b"", method="GET")
    assert status == 404
    assert answer["error"]["message"] == ("Unknown endpoint GET /; this server has POST "
                                          "/v1/chat/completions, POST /v1/responses and GET "
                                          "/v1/models.")


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW"])
def test_every_method_gets_a_json_4xx(server, method):
    reply = raw(server, f"{method} /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                "Connection: close\r\nContent-Length: 0\r\n\r\n".encode())
    status, headers, body = split_reply(reply)
    assert status == 405 and headers["content-type"] == "application/json"
    assert b"\r\nAllow: POST\r\n" in reply  # RFC 9110: a 405 names the methods the path takes
    validator("ErrorResponse").validate(json.loads(body))


def test_head_gets_the_status_and_no_body(server):
    reply = raw(server, b"HEAD /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close"
                b"\r\n\r\n")
    status, headers, body = split_reply(reply)
    assert status == 405 and headers["content-type"] == "application/json" and body == b""


def test_an_over_long_request_line_gets_json_414(server):
    reply = raw(server, b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    status, headers, body = split_reply(reply)
    assert status == 414
    validator("ErrorResponse").validate(json.loads(body))


def test_too_many_headers_get_json_431(server):
    fields = b"".join(b"X-Field-%d: y\r\n" % i for i in range(200))
    reply = raw(server, b"GET /v1/models HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n")
    status, headers, body = split_reply(reply)
    assert status == 431
    validator("ErrorResponse").validate(json.loads(body))


@pytest.mark.parametrize("request_bytes", [
    b"GARBAGE\r\n\r\n",
    b"GET /v1/models HTTP/1.1\r\n\r\n",  # HTTP/1.1 requires a Host header
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"zz\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    # headers are read as latin-1: b"\xb2" is "²", a digit to str.isdigit() that int() cannot
    # read, which got a 500 (an outside review)
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\n",
    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: \u0661\u0662\r\n\r\n"
    .encode(),
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1_0\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
    b"Content-Length: 2\r\n\r\n",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n",
], ids=["garbled", "no-host", "bad-chunk", "bad-length", "superscript-length",
        "arabic-digit-length", "negative-length", "plus-length", "underscore-length",
        "hex-length", "two-lengths", "length-and-chunked"])
def test_a_request_that_is_not_http_gets_a_json_400(server, request_bytes):
    status, headers, body = split_reply(raw(server, request_bytes))
    assert status == 400 and headers["content-type"] == "application/json"
    validator("ErrorResponse").validate(json.loads(body))
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_a_chunked_body_is_read(server):
    body = json.dumps(GOOD).encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    reply = raw(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + chunked)
    status, headers, answer = split_reply(reply)
    assert status == 200
    validator("CreateChatCompletionResponse").validate(json.loads(answer))


def test_a_chunked_body_over_the_cap_gets_json_413(server):
    piece = b"x" * 100_000
    chunks = (b"%x\r\n%s\r\n" % (len(piece), piece)) * (MAX_BODY_BYTES // len(piece) + 2)
    reply = raw(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n")
    status, headers, body = split_reply(reply)
    assert status == 413
    validator("ErrorResponse").validate(json.loads(body))


def test_oversized_bodies_are_refused_unread(server):
    reply = raw(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                b"Content-Length: %d\r\n\r\n" % (MAX_BODY_BYTES + 1))
    status, headers, body = split_reply(reply)
    assert status == 413
    validator("ErrorResponse").validate(json.loads(body))
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_wrong_method(server):
    status, answer = post(server, "/v1/chat/completions", b"", method="GET")
    assert status == 405 and answer["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("method, path, allow", [
    ("GET", "/v1/chat/completions", "POST"), ("POST", "/v1/models", "GET"),
    ("DELETE", "/v1/models/tutor", "GET"), ("BREW", "/v1/models", "GET"),
    ("BREW", "/v1/no-such-path", ""),  # tornado refuses the method before any path is known
])
def test_a_405_says_which_method_the_path_takes_in_an_allow_header(server, method, path, allow):
    reply = raw(server, f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                "Content-Length: 0\r\n\r\n".encode())
    status, headers, body = split_reply(reply)
    assert status == 405 and f"\r\nAllow: {allow}\r\n".encode() in reply
    validator("ErrorResponse").validate(json.loads(body))


def test_the_sdk_retrieves_a_model_and_hears_of_an_unknown_one(server):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally",
                        max_retries=0)
    model = sdk.models.retrieve("tutor-terse")
    assert (model.id, model.object, model.owned_by) == ("tutor-terse", "model", "agentlab")
    with pytest.raises(openai.NotFoundError) as refused:
        sdk.models.retrieve("gpt-9")
    assert refused.value.code == "model_not_found"
    assert "The model 'gpt-9' does not exist here. The offline tutor serves: tutor," in (
        refused.value.message)


def test_the_responses_api_answers_over_a_real_socket(server):
    sdk = openai.OpenAI(base_url=f"http://{server[0]}:{server[1]}/v1", api_key="unused-locally",
                        max_retries=0)
    response = sdk.responses.create(model="tutor", input="What is 2 + 2?", tools=[{
        "type": "function", "name": "calculate", "strict": False,
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}])
    assert response.output[-1].type == "function_call"
    with sdk.responses.stream(model="tutor", input="hi") as stream:
        assert stream.get_final_response().output_text


@pytest.mark.parametrize("field, value, instead", [
    ("functions", [{"name": "get_time", "parameters": {"type": "object"}}], "'tools'"),
    ("function_call", "auto", "'tool_choice'"),
])
def test_the_legacy_functions_fields_are_refused_with_a_pointer(server, field, value, instead):
    status, answer = post(server, "/v1/chat/completions", _with(**{field: value}))
    assert status == 400 and answer["error"]["param"] == field
    assert f"deprecated '{field}' field" in answer["error"]["message"]
    assert instead in answer["error"]["message"]


@pytest.mark.parametrize("sent", [
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"mod",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-",
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n",
], ids=["mid-body", "mid-headers", "mid-chunk"])
def test_a_stalled_client_is_dropped_and_others_are_served_meanwhile(quick_drop_server, sent):
    server = quick_drop_server
    stalled = socket.create_connection(server, timeout=10)
    stalled.sendall(sent)
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200
    stalled.setblocking(False)
    with pytest.raises(BlockingIOError):  # still waiting for its body: the other went first
        stalled.recv(1)
    stalled.setblocking(True)
    assert stalled.recv(65536) == b""  # dropped after client_timeout (0.5 s here)
    stalled.close()
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200


def test_a_slow_persona_does_not_hold_other_clients(server, quick_slow_tutor):
    """tutor-slow thinks (0.3 s here); a request sent meanwhile is answered before it ends."""
    done = []
    slow_body = json.dumps({**GOOD, "model": "tutor-slow"}).encode()
    slow = threading.Thread(target=lambda: done.append(post(server, "/v1/chat/completions",
                                                            slow_body)[0]))
    slow.start()
    assert post(server, "/v1/chat/completions", json.dumps(GOOD).encode())[0] == 200
    assert done == []  # the slow one is still thinking
    slow.join(10)
    assert done == [200]


def test_a_model_busy_computing_does_not_hold_other_clients():
    """The model runs off the event loop: while one request computes, another is answered.

    The busy model computes until the test has received the quick answer (or 10 s pass); it
    then says which of the two ended its work.
    """
    busy_started, received_quick = threading.Event(), threading.Event()

    def respond(model, messages, tools, tool_choice, **options):
        if messages[0]["content"] == "busy":
            busy_started.set()
            deadline = time.monotonic() + 10
            while not received_quick.is_set() and time.monotonic() < deadline:
                sum(range(1000))  # pure Python work, like the tutor's
            return {"role": "assistant",
                    "content": "released" if received_quick.is_set() else "timed out"}
        return {"role": "assistant", "content": "quick"}

    busy_body = json.dumps({**GOOD, "messages": [{"role": "user", "content": "busy"}]}).encode()
    with running_server(respond=respond) as address:
        with ThreadPoolExecutor(1) as pool:
            busy = pool.submit(post, address, "/v1/chat/completions", busy_body)
            assert busy_started.wait(10)
            status, quick = post(address, "/v1/chat/completions", json.dumps(GOOD).encode())
            assert quick["choices"][0]["message"]["content"] == "quick"
            received_quick.set()
            assert busy.result()[1]["choices"][0]["message"]["content"] == "released"


def test_bounded_load_on_loopback_has_no_errors(server):
    """8 concurrent clients, 50 keep-alive requests each, on 127.0.0.1; stops by itself."""
    import http.client

    body = json.dumps({"model": "tutor", "tools": [t.schema for t in COURSE_TOOLS],
                       "messages": [{"role": "user", "content": "What is 6 * 7?"}]}).encode()

    def client(_):
        conn = http.client.HTTPConnection(*server, timeout=10)
        statuses = []
        for _ in range(50):
            conn.request("POST", "/v1/chat/completions", body=body,
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            answer = json.loads(response.read())
            statuses.append(response.status == 200
                            and answer["choices"][0]["finish_reason"] == "tool_calls")
        conn.close()
        return statuses

    with ThreadPoolExecutor(8) as pool:
        results = [ok for statuses in pool.map(client, range(8)) for ok in statuses]
    assert len(results) == 400 and all(results)
