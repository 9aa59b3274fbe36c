"""Helpers shared by the server's tests: the reference schema, a server on a free port, and
plain HTTP requests that show exactly what went over the wire."""

import contextlib
import functools
import http.client
import json
import pathlib
import socket
import threading

import fastjsonschema

from agentlab.server import make_server

DATA = pathlib.Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "openai-chat-completions.openapi.json").read_text())
RESPONSES_REFERENCE = json.loads((DATA / "openai-responses.openapi.json").read_text())
GOOD = {"model": "tutor", "messages": [{"role": "user", "content": "hi"}]}


def validator(name, reference=None):
    """A validator for one of the reference's schemas (a response, a stream chunk, an error);
    reference: another reference description (RESPONSES_REFERENCE), chat completions' if None.

    It honours OpenAPI's `nullable: true` (null is allowed as well), as the API's own
    description means it: a stream chunk's `finish_reason` is required and nullable, and the
    real API sends null there in every chunk but the last.
    """
    return _validator(name, "responses" if reference is RESPONSES_REFERENCE else "chat")


@functools.lru_cache(maxsize=None)
def _validator(name: str, which: str):
    """Compiled once per schema: the Responses reference is 300 schemas, and the fuzz tests
    check every event of hundreds of streams. fastjsonschema, not jsonschema: 0.14 ms an
    event instead of 1.4 ms (`jsonschema` took 9 s of the Responses fuzz), the same verdict
    on 3,000 mutated events. Formats ("date-time", "uri") are not asserted, as jsonschema
    does not assert them by default either."""
    reference = RESPONSES_REFERENCE if which == "responses" else REFERENCE
    schema = with_nullable({**reference, "$ref": f"#/components/schemas/{name}"})
    return Compiled(fastjsonschema.compile(schema, use_formats=False))


class Compiled:
    """validator(...).validate(value): raises fastjsonschema's JsonSchemaValueException (a
    ValueError naming the field) if the value breaks the schema."""

    def __init__(self, check):
        self.validate = check


def with_nullable(schema):
    """Example: {"type": "string", "nullable": True} -> {"anyOf": [{"type": "string"},
    {"type": "null"}]}; everything else unchanged."""
    if isinstance(schema, list):
        return [with_nullable(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: with_nullable(value) for key, value in schema.items()}
    if schema.pop("nullable", False) is True:
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


@contextlib.contextmanager
def running_server(**options):
    """The API on 127.0.0.1 on a free port, in a background thread: yields (host, port)."""
    server = make_server("127.0.0.1", 0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def post(address, path, body: bytes, method="POST", headers=None):
    """(status, parsed JSON body) for one request on a fresh connection."""
    conn = http.client.HTTPConnection(*address, timeout=10)
    conn.request(method, path, body=body,
                 headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, (json.loads(data) if data else None)


def raw(address, data: bytes, timeout: float = 10) -> bytes:
    """Send bytes as they are and read the reply until the server closes the connection."""
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(data)
        reply = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                reply += chunk
    return reply


def split_reply(reply: bytes) -> tuple[int, dict, bytes]:
    """(status, headers with lower-case names, body) of one raw HTTP/1.1 reply."""
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body
