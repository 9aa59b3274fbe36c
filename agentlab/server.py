"""The offline tutor behind an OpenAI-compatible chat-completions API.

One function, `handle(method, path, body)`, is the API: it checks the request, asks the tutor
and writes the response in OpenAI's JSON shapes (a chat.completion, a model list, or an error
`{"error": {"message", "type", "param", "code"}}` with a 4xx status; never a stack trace).
Two ways reach it:

- `TutorTransport`: an in-process transport for the openai SDK's HTTP client. The SDK builds
  and parses real HTTP requests and responses; no socket is opened and no key is needed.
- `serve()`: the same API on a real local port (`python -m agentlab serve`), for curl or any
  other OpenAI client.

Left out on purpose: streaming, and every endpoint but /v1/chat/completions and /v1/models.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time

from . import tutor

MAX_BODY_BYTES = 1_000_000
CREATED = 1767225600  # a fixed timestamp (2026-01-01) keeps the tutor's responses deterministic
ROLES = {"system", "developer", "user", "assistant", "tool"}


class APIError(Exception):
    """A request the API refuses, with the status and OpenAI error fields to send back."""

    def __init__(self, status: int, message: str, *, type: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.type, self.param, self.code = status, message, type, param, code

    def body(self) -> dict:
        return {"error": {"message": self.message, "type": self.type, "param": self.param,
                          "code": self.code}}


def _check_request(body: dict) -> None:
    if not isinstance(body, dict):
        raise APIError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str):
        raise APIError(400, "'model' is required and must be a string.", param="model")
    if model not in tutor.PERSONAS:
        raise APIError(404, f"The model '{model[:100]}' does not exist here. The offline tutor "
                       f"serves: {', '.join(tutor.PERSONAS)}.", param="model", code="model_not_found")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise APIError(400, "'messages' is required and must be a non-empty array.", param="messages")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise APIError(400, f"messages[{i}] must be an object with a 'role' among "
                           f"{sorted(ROLES)}.", param=f"messages[{i}]")
        if m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
            raise APIError(400, f"messages[{i}] is a tool message without a 'tool_call_id'.",
                           param=f"messages[{i}].tool_call_id")
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    for i, m in enumerate(messages):  # like OpenAI: every tool call must have been answered
        for call in (m.get("tool_calls") or []) if m["role"] == "assistant" else []:
            if not isinstance(call, dict) or call.get("id") not in answered:
                raise APIError(400, "An assistant message with 'tool_calls' must be followed by "
                               f"tool messages responding to each 'tool_call_id' (messages[{i}]).",
                               param="messages")
    tools = body.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(
            isinstance(t, dict) and isinstance(t.get("function", {}).get("name"), str) for t in tools)):
        raise APIError(400, "'tools' must be an array of {'type': 'function', 'function': "
                       "{'name': ...}} objects.", param="tools")
    for key in ("max_tokens", "max_completion_tokens"):
        cap = body.get(key)
        if cap is not None and (type(cap) is not int or cap < 1):
            raise APIError(400, f"'{key}' must be a positive integer.", param=key)
    if body.get("stream"):
        raise APIError(400, "The offline tutor does not stream; leave 'stream' unset.", param="stream")


def complete(body: dict, respond=None) -> tuple[dict, float]:
    """A chat.completion for a checked request, and how long the tutor 'thinks' first.

    respond: the model to ask instead of the tutor (tests script a model turn by turn); its
    reply goes through the same usage and token-cap rule as the tutor's.
    """
    model, messages, tools = body["model"], body["messages"], body.get("tools")
    respond = respond or tutor.respond
    message = respond(model, messages, tools, body.get("tool_choice"),
                            parallel_tool_calls=body.get("parallel_tool_calls", True),
                            response_format=body.get("response_format"),
                            temperature=body.get("temperature"), seed=body.get("seed"))
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    prompt_tokens = tutor.count_tokens(messages, tools)
    completion_tokens = tutor.completion_tokens(message)
    cap = body.get("max_completion_tokens") or body.get("max_tokens")
    if cap is not None and completion_tokens > cap:  # like a real model: cut at the cap
        message = {"role": "assistant", "content": (message.get("content") or "")[: cap * 4]}
        finish, completion_tokens = "length", min(cap, tutor.text_tokens(message["content"]))
    message.setdefault("content", None)
    message["refusal"] = None
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:24]
    response = {
        "id": f"chatcmpl-tutor-{digest}", "object": "chat.completion", "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return response, tutor.think_seconds(model)


def models_list() -> dict:
    return {"object": "list", "data": [
        {"id": name, "object": "model", "created": CREATED, "owned_by": "agentlab"}
        for name in tutor.PERSONAS]}


def handle(method: str, path: str, body: bytes, respond=None) -> tuple[int, dict, float]:
    """The whole API: (status, JSON body, delay in seconds) for one HTTP request."""
    path = path.split("?")[0].rstrip("/")
    try:
        if path in ("/v1/models", "/models"):
            if method != "GET":
                raise APIError(405, f"Use GET for {path}.")
            return 200, models_list(), 0.0
        if path not in ("/v1/chat/completions", "/chat/completions"):
            raise APIError(404, f"Unknown endpoint {method} {path[:100]}; this server has POST "
                           "/v1/chat/completions and GET /v1/models.", code="unknown_url")
        if method != "POST":
            raise APIError(405, f"Use POST for {path}.")
        if len(body) > MAX_BODY_BYTES:
            raise APIError(413, f"The request body is {len(body):,} bytes; at most "
                           f"{MAX_BODY_BYTES:,} are accepted.")
        try:
            request = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise APIError(400, f"The body is not valid JSON: {e}.") from None
        _check_request(request)
        response, delay = complete(request, respond)
        return 200, response, delay
    except APIError as e:
        return e.status, e.body(), 0.0
    except Exception as e:  # a bug in the tutor must still answer in the API's shape
        return 500, APIError(500, f"The offline tutor failed: {type(e).__name__}.",
                             type="server_error").body(), 0.0


# ---------------------------------------------------------------------------------------------
# In-process: a transport for the openai SDK's HTTP client


def sdk_http():
    """The HTTP library the installed openai SDK is built on (httpx, or httpx2 in openai 3)."""
    import importlib

    import openai

    return importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])


def make_transport(handler=handle, *, respond=None):
    """An SDK transport that answers every request with `handler`, in this process.

    respond: a scripted model to use instead of the tutor (see `complete`).

    handler(method, path, body) returns (status, payload, delay) like `handle`, optionally with
    a fourth item, a dict of response headers. A bytes payload is sent as it is (tests use that
    to send a malformed body), and an exception the handler raises reaches the SDK as a
    transport failure would (tests raise timeouts and dropped connections that way).
    """
    http = sdk_http()
    if respond is not None:
        handler = functools.partial(handle, respond=respond)

    class TutorTransport(http.BaseTransport):
        def handle_request(self, request):
            status, payload, delay, *headers = handler(request.method, request.url.path, request.read())
            if delay:
                # Honour the request's read timeout the way a socket would.
                timeout = (request.extensions.get("timeout") or {}).get("read")
                if timeout is not None and timeout < delay:
                    time.sleep(timeout)
                    raise http.ReadTimeout("the offline tutor took too long", request=request)
                time.sleep(delay)
            headers = headers[0] if headers else None
            if isinstance(payload, bytes):
                return http.Response(status, content=payload, headers=headers, request=request)
            return http.Response(status, json=payload, headers=headers, request=request)

    return TutorTransport()


# ---------------------------------------------------------------------------------------------
# On a real port


def make_server(host: str = "127.0.0.1", port: int = 8000, *, client_timeout: float = 10.0):
    """A threaded HTTP server for the API (call .serve_forever(); .server_address has the port)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle's algorithm on, the client's
        # delayed ACK then holds every keep-alive response back by ~40 ms.
        disable_nagle_algorithm = True
        timeout = client_timeout  # a client that stalls mid-request is dropped, not waited for
        server_version = "agentlab-tutor"

        def _read(self, method) -> tuple[int, dict, float]:
            """Read the body within the size cap and the client timeout, then ask the API."""
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            try:
                if not 0 <= length <= MAX_BODY_BYTES:
                    raise APIError(413 if length > 0 else 400,
                                   f"Content-Length must be between 0 and {MAX_BODY_BYTES:,}.")
                try:
                    body = self.rfile.read(length)
                except (TimeoutError, OSError):  # a client that stalls mid-body
                    raise APIError(408, f"The request body did not arrive within {client_timeout:g} s.") from None
            except APIError as refusal:
                self.close_connection = True  # the rest of what it sent cannot be trusted
                return refusal.status, refusal.body(), 0.0
            return handle(method, self.path, body)

        def _answer(self, method):
            status, payload, delay = self._read(method)
            if delay:
                time.sleep(delay)
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client left before its answer: nothing to tell it
                self.close_connection = True

        def do_GET(self):
            self._answer("GET")

        def do_POST(self):
            self._answer("POST")

        def log_message(self, format, *args):  # quiet: one line per request is noise in class
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

    return Server((host, port), Handler)


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the tutor until Ctrl-C."""
    server = make_server(host, port)
    address = server.server_address
    print(f"agentlab tutor: OpenAI-compatible API on http://{address[0]}:{address[1]}/v1 "
          f"(models: {', '.join(tutor.PERSONAS)}). Ctrl-C stops it.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
