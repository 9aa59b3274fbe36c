"""The offline tutor's OpenAI-compatible face: the same HTTP API a real model sits behind.

    handler.py    handle(method, path, body): Chat Completions and the model list, in OpenAI's
                  JSON shapes; make_transport(): the in-process transport connect() uses
    responses.py  the Responses API (POST /v1/responses), read as a chat-completions request
    checks.py     the request checks: OpenAI's published request schemas (schemas/, kept as
                  JSON data) and the API's own rules, each refusal a 4xx that names the field
    streaming.py  server-sent events for `stream: true`
    web.py        the same API on a real port, served by tornado: `agentlab serve`

It imports nothing of agentlab but the tutor (agentlab/tutor/), the model it serves.
Tornado is imported only when a port is wanted (serve, make_server): connect() needs only the
in-process transport.
"""

from .checks import APIError
from .handler import complete, handle, make_transport, sdk_http

_ON_A_PORT = ("serve", "make_server", "listen", "CannotListen", "why_cannot_listen", "url_host",
              "TutorHTTPServer", "Served")

__all__ = ["APIError", "complete", "handle", "make_transport", "sdk_http", *_ON_A_PORT]


def __getattr__(name: str):
    """serve(), make_server() and the rest of web.py, imported (with tornado) on first use."""
    if name in _ON_A_PORT:
        from . import web

        return getattr(web, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
