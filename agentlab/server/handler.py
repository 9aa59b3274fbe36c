"""The offline tutor behind an OpenAI-compatible chat-completions API.

One function, `handle(method, path, body)`, is the API: it checks the request as the real API
does (checks.py), asks the tutor, and writes the response in OpenAI's JSON shapes: a
chat.completion (or its server-sent events with `stream: true`, streaming.py), a model list,
or an error `{"error": {"message", "type", "param", "code"}}` with a 4xx status; never a
stack trace. Two ways reach it:

- `make_transport()`: an in-process transport for the openai SDK's HTTP client. The SDK builds
  and parses real HTTP requests and responses; no socket is opened and no key is needed.
- `serve()`: the same API on a real local port (`python -m agentlab serve`, web.py).

The Responses API (POST /v1/responses) is the same tutor asked in other shapes: responses.py
translates its request into a chat-completions one and the answer back.

What it implements: `n` choices, `tool_choice`, `parallel_tool_calls: false` (at most one call
a reply), `stop` sequences, the `max_tokens` / `max_completion_tokens` cap, `stream` with
`stream_options.include_usage`. Other fields a framework sends (`store`, `metadata`, `user`,
`top_p`, ...) are accepted and have no effect. Left out on purpose: every endpoint but
/v1/chat/completions, /v1/responses, /v1/models and /v1/models/{model} (a 405 names the method a
path takes in its Allow header, see `allowed_methods`); /v1/responses/{id} gets a 404 (the
server keeps responses only for previous_response_id).
"""

from __future__ import annotations

import functools
import hashlib
import json
import time

from .. import tutor
from . import responses
from .checks import APIError, check_request, chosen_tools, parse_body
from .streaming import EventStream, event_stream, response_events

__all__ = ["APIError", "complete", "handle", "make_transport", "sdk_http"]

MAX_BODY_BYTES = 1_000_000
CREATED = 1767225600  # a fixed timestamp (2026-01-01) keeps the tutor's responses deterministic
# GET /v1/models/{model} too
ENDPOINTS = "POST /v1/chat/completions, POST /v1/responses and GET /v1/models"


def complete(body: dict, respond=None, raw: bytes | None = None) -> tuple[dict, float]:
    """A chat.completion for a checked request, and how long the tutor 'thinks' first.

    respond: the model to ask instead of the tutor (tests script a model turn by turn); its
    reply goes through the same usage and token-cap rule as the tutor's.
    raw: the request's bytes as received, hashed for the response id (see `response_id`).
    """
    model, messages = body["model"], body["messages"]
    tools, tool_choice = allowed_tools(body.get("tools"), body.get("tool_choice"))
    respond = respond or tutor.respond
    choices, completion_tokens = [], 0
    for index in range(body.get("n") or 1):
        message = respond(model, messages, tools, tool_choice,
                          parallel_tool_calls=body.get("parallel_tool_calls") is not False,
                          response_format=body.get("response_format"),
                          temperature=body.get("temperature"), seed=_seed(body, index))
        message, finish, tokens = reply_within_limits(message, body)
        choices.append({"index": index, "message": message, "finish_reason": finish,
                        "logprobs": None})
        completion_tokens += tokens
    prompt_tokens = tutor.count_tokens(messages, tools)
    response = {
        "id": response_id(body, raw), "object": "chat.completion", "created": CREATED,
        "model": model, "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return response, tutor.think_seconds(model)


def allowed_tools(tools, tool_choice) -> tuple:
    """(the tools the model may call, the tool_choice to follow among them): a tool_choice of
    type allowed_tools keeps every tool in the request (prompt caching stays intact) but lets
    the model call only those it lists, in its mode ("auto" or "required").

    Example: tools [get_time, calculate], {"type": "allowed_tools", "allowed_tools": {"mode":
             "required", "tools": [get_time's name]}} -> ([get_time], "required")
    """
    if not (isinstance(tool_choice, dict) and tool_choice.get("type") == "allowed_tools"):
        return tools, tool_choice
    names = set(chosen_tools(tool_choice))
    kept = [t for t in tools or [] if t["function"]["name"] in names]
    return kept, tool_choice["allowed_tools"]["mode"]


def response_id(body: dict, raw: bytes | None = None) -> str:
    """The same request gets the same id, so the tutor's responses are deterministic.

    The request's raw bytes are hashed when we have them: the SDK serialises the same request
    to the same bytes, and hashing them costs microseconds, where re-serialising the parsed
    body costs about a tenth of a millisecond a step on a long run.
    Example: response_id({}, b'{}') -> "chatcmpl-tutor-" and 24 hex digits
    """
    if raw is None:
        raw = json.dumps(body, sort_keys=True).encode()
    return f"chatcmpl-tutor-{hashlib.blake2b(raw, digest_size=12).hexdigest()}"


def _seed(body: dict, index: int):
    """Choice i of n samples with seed + i, so the n choices differ when temperature > 0
    (at temperature 0 they are the same, as a real model's nearly are)."""
    seed = body.get("seed")
    return seed if index == 0 else (seed or 0) + index


def reply_within_limits(message: dict, body: dict) -> tuple[dict, str, int]:
    """The one usage and cap rule: (message as sent, finish_reason, completion tokens).

    parallel_tool_calls false keeps the first call only; a `stop` sequence ends the content
    before it; a reply longer than the max-tokens cap is cut at the cap, like a real model's,
    with finish_reason "length".
    Example: a 600-token answer with max_tokens=10 -> its first 40 characters, "length", 10
    """
    message = {"role": "assistant", **message}
    if body.get("parallel_tool_calls") is False and message.get("tool_calls"):
        message["tool_calls"] = message["tool_calls"][:1]
    message["content"] = _before_stop(message.get("content"), body.get("stop"))
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    tokens = tutor.completion_tokens(message)
    cap = body.get("max_completion_tokens") or body.get("max_tokens")
    if cap is not None and tokens > cap:
        message = {"role": "assistant", "content": (message.get("content") or "")[: cap * 4]}
        finish, tokens = "length", min(cap, tutor.text_tokens(message["content"]))
    message["refusal"] = None
    return message, finish, tokens


def _before_stop(content, stop):
    """Example: _before_stop("one. two.", ["."]) -> "one";  stop None -> content unchanged."""
    if not content or not stop:
        return content
    for sequence in [stop] if isinstance(stop, str) else stop:
        content = content.split(sequence)[0] if sequence else content
    return content


def handle(method: str, path: str, body: bytes, respond=None,
           seen: dict | None = None) -> tuple[int, object, float]:
    """The whole API: (status, payload, delay in seconds) for one HTTP request.

    The payload is a JSON-ready dict, or an EventStream (a list of encoded server-sent events)
    when the request asked for `stream: true`.
    seen: if given, it gets the "model" the body names once the body is read (the log line
    of `agentlab serve` names it), so the body is parsed once.
    """
    try:
        return _route(method, path, body, respond, seen)
    except APIError as e:
        return e.status, e.body(), 0.0
    except Exception as e:  # a bug in the tutor must still answer in the API's shape
        return 500, APIError(500, f"The offline tutor failed: {type(e).__name__}.",
                             type="server_error").body(), 0.0


def model_object(name: str) -> dict:
    """One model as GET /v1/models lists it, or an APIError 404 if the server has no such model."""
    if name not in tutor.PERSONAS:
        raise APIError(404, f"The model '{name[:100]}' does not exist here. The offline tutor "
                       f"serves: {', '.join(tutor.PERSONAS)}.", code="model_not_found")
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "agentlab"}


def models_list() -> dict:
    return {"object": "list", "data": [model_object(name) for name in tutor.PERSONAS]}


def _endpoint(path: str) -> str:
    """A request's path without its query, a trailing slash and the /v1 prefix (the SDK's
    base URL ends in /v1; a client given the bare host leaves it out).

    Example: "/v1/models/tutor/?x=1" -> "/models/tutor";  "/" -> "/"
    """
    path = path.split("?")[0].rstrip("/") or "/"
    return path.removeprefix("/v1") or "/"


def allowed_methods(path: str) -> str | None:
    """The methods a path answers (the Allow header of a 405), or None for an unknown path."""
    endpoint = _endpoint(path)
    if endpoint == "/models" or endpoint.startswith("/models/"):
        return "GET"
    if endpoint in ("/chat/completions", "/responses"):
        return "POST"
    return None


def extra_headers(status: int, path: str) -> dict:
    """Headers an answer needs besides its content type: a 405 says which method the path
    takes (RFC 9110 requires its Allow header; empty for a path that takes none).

    Example: (405, "/v1/models") -> {"Allow": "GET"};  (200, "/v1/models") -> {}
    """
    if status != 405:
        return {}
    return {"Allow": allowed_methods(path) or ""}


def _route(method: str, path: str, body: bytes, respond,
           seen: dict | None = None) -> tuple[int, object, float]:
    path = path.split("?")[0].rstrip("/") or "/"
    endpoint, allowed = _endpoint(path), allowed_methods(path)
    if endpoint.startswith("/responses/"):
        raise APIError(404, f"This server does not keep responses to fetch or delete "
                       f"({method[:20]} {path[:100]}); it has {ENDPOINTS}. Continue a "
                       "conversation with previous_response_id instead.", code="unknown_url")
    if allowed is None:
        raise APIError(404, f"Unknown endpoint {method[:20]} {path[:100]}; this server has "
                       f"{ENDPOINTS}.", code="unknown_url")
    if method != allowed:
        raise APIError(405, f"Use {allowed} for {path[:100]}; this server has {ENDPOINTS}.")
    if endpoint == "/models":
        return 200, models_list(), 0.0
    if endpoint.startswith("/models/"):
        return 200, model_object(endpoint.removeprefix("/models/")), 0.0
    if len(body) > MAX_BODY_BYTES:
        raise APIError(413, f"The request body is {len(body):,} bytes; at most "
                       f"{MAX_BODY_BYTES:,} are accepted.")
    request = parse_body(body)
    if seen is not None:
        seen["model"] = request.get("model")
    if endpoint == "/responses":
        return _respond(request, body, respond)
    check_request(request, tutor.PERSONAS)
    response, delay = complete(request, respond, raw=body)
    if request.get("stream"):
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        return 200, event_stream(response, include_usage), delay
    return 200, response, delay


def _respond(request: dict, raw: bytes, respond) -> tuple[int, object, float]:
    """POST /v1/responses: the same tutor, asked in chat-completions terms (responses.py)."""
    request = responses.check(request, tutor.PERSONAS)  # item references resolved
    completion, delay = complete(responses.chat_request(request), respond, raw=raw)
    response = responses.response_object(request, completion, raw)
    if request.get("stream"):
        return 200, response_events(response), delay
    return 200, response, delay


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
            status, payload, delay, *headers = handler(request.method, request.url.path,
                                                       request.read())
            if delay:
                # Honour the request's read timeout the way a socket would.
                timeout = (request.extensions.get("timeout") or {}).get("read")
                if timeout is not None and timeout < delay:
                    time.sleep(timeout)
                    raise http.ReadTimeout("the offline tutor took too long", request=request)
                time.sleep(delay)
            headers = headers[0] if headers else extra_headers(status, request.url.path)
            if isinstance(payload, EventStream):
                return http.Response(status, content=b"".join(payload), request=request,
                                     headers={"Content-Type": EventStream.media_type})
            if isinstance(payload, bytes):
                return http.Response(status, content=payload, headers=headers, request=request)
            # Encoded as the real port encodes it: ASCII-safe, so any text the model echoes
            # (even a lone surrogate from the request) travels.
            return http.Response(status, content=json.dumps(payload).encode(), request=request,
                                 headers={"Content-Type": "application/json", **(headers or {})})

    return TutorTransport()
