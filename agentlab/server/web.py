"""The API (handler.handle) on a real local port, served by tornado: `agentlab serve`.

Tornado comes with JupyterLab, so it costs students nothing, and it already does what a
hand-written http.server got wrong: a listen backlog of 1,024 instead of 5, chunked request
bodies, keep-alive, one event loop where a slow or stalled client waits without holding a
thread, and timeouts that drop such a client. What is ours is the API's shape: every answer,
errors included, is JSON in OpenAI's error shape (HEAD gets the status and no body).

- The tutor runs in a worker thread, off the event loop, so other clients' I/O goes on while
  it thinks; a persona's 'thinking' delay is an asynchronous sleep that blocks no one. A POST
  not answered within MAX_THINKING_SECONDS gets a 504 saying so. Everything else (GET
  /v1/models, a 404, a 405) is answered on the event loop at once, never queued behind POSTs.
- Bodies are read as they arrive and refused with 413 past MAX_BODY_BYTES, whether the
  client announced its length or sent it in chunks.
- Request lines over 8 KB get 414 and more than 100 header fields get 431. Beyond 1 MB of
  request line and headers tornado closes the connection without an answer. A Content-Length
  that is not plain digits 0-9 gets 400.
- Out of file descriptors (more clients than the process may open files), the Listener stops
  accepting for a moment instead of spinning, and logs one line a minute, not a traceback per
  try; waiting clients are served once descriptors are free again.
- Each answered request can be reported as a `Served` record (method, path, model, status,
  milliseconds, an error's reason) to `on_request`: `agentlab serve` prints it as one line,
  masked (agentlab/__main__.py); this package imports nothing that masks, so it prints nothing.
  A request tornado cannot parse at all (JSONErrorsHTTPServer) never reaches a handler and
  is not reported.

Left out on purpose: TLS and HTTP/2 (a local teaching server).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import errno
import json
import logging
import re
import socket
import threading
import time

import tornado.httpserver
import tornado.netutil
import tornado.web

from .. import tutor
from . import handler
from .checks import APIError
from .streaming import EventStream

MAX_REQUEST_LINE = 8_192
MAX_HEADER_FIELDS = 100
MAX_HEAD_BYTES = 1_000_000  # past this, tornado drops the connection unanswered
BACKLOG = 1_024
OUT_OF_DESCRIPTORS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
ACCEPT_PAUSE = 0.25   # seconds without accepting once the process is out of descriptors
LOG_EVERY = 60.0      # seconds: at most one log line per this, however long it lasts
MAX_THINKING_SECONDS = 30.0  # a POST answered in more than this gets a 504 instead
# The tutor's threads: a POST waits here for one of them; GET and refusals never do.
_THINKERS = concurrent.futures.ThreadPoolExecutor(max_workers=8,
                                                  thread_name_prefix="agentlab-tutor")
log = logging.getLogger("agentlab.serve")


@dataclasses.dataclass(frozen=True)
class Served:
    """One answered request, as `agentlab serve` logs it. Its text is as the client sent it
    (unmasked, any character): whoever prints it masks it and keeps it to one line."""

    method: str
    path: str  # without the query
    model: object  # what the body's "model" held (any JSON), or None: no body, or not JSON
    status: int
    milliseconds: float  # from the request's first byte to its answer
    reason: str | None  # the error's message, for a status of 400 or more


@tornado.web.stream_request_body
class APIHandler(tornado.web.RequestHandler):
    """Every method on every path: reads the body, lets handler.handle answer, writes JSON."""

    SUPPORTED_METHODS = ("GET", "HEAD", "POST", "DELETE", "PATCH", "PUT", "OPTIONS", "TRACE",
                         "CONNECT")

    def initialize(self, respond=None):
        self.respond = respond
        self.body = bytearray()
        self.seen = {}  # what handler.handle saw in the body: the model, for the log line
        self.reason = None  # an error's message, for the log line

    def prepare(self):
        """Refuse, before reading a byte of body, what is too big to be a real request."""
        request = self.request
        if len(request.method) + len(request.uri) + len(request.version) > MAX_REQUEST_LINE:
            raise APIError(414, f"The request line is longer than {MAX_REQUEST_LINE:,} bytes.")
        if len(list(request.headers.get_all())) > MAX_HEADER_FIELDS:
            raise APIError(431, f"The request has more than {MAX_HEADER_FIELDS} header fields.")
        length = request.headers.get("Content-Length")
        if length is None:
            return
        # Only ASCII digits: str.isdigit() also accepts "²" and "١" (headers are read as
        # latin-1, so the byte 0xb2 is "²"), which int() cannot read: that was a 500.
        if not (length.isascii() and length.isdigit()):
            raise APIError(400, f"Content-Length must be a number of bytes in the digits 0-9, "
                           f"not {length[:20]!r}.")
        if int(length) > handler.MAX_BODY_BYTES:
            raise APIError(413, f"The request body must be at most {handler.MAX_BODY_BYTES:,} "
                           f"bytes (Content-Length: {length[:20]}).")

    def data_received(self, chunk: bytes):
        if self._finished:  # already refused: the rest of the body is dropped
            return
        self.body += chunk
        if len(self.body) > handler.MAX_BODY_BYTES:  # a chunked body that keeps coming
            refusal = APIError(413, f"The request body is longer than "
                               f"{handler.MAX_BODY_BYTES:,} bytes.")
            self.send_error(413, exc_info=(APIError, refusal, None))

    async def _answer(self, *args):
        arguments = (self.request.method, self.request.uri, bytes(self.body), self.respond,
                     self.seen)
        if self.request.method != "POST":  # GET /v1/models, a 404, a 405: answered at once
            status, payload, delay = handler.handle(*arguments)
        else:
            status, payload, delay = await _thought_about(arguments)
        if status >= 400:
            self.reason = payload["error"]["message"]
        if delay:
            await asyncio.sleep(delay)
        self.set_status(status)
        for name, value in handler.extra_headers(status, self.request.path).items():
            self.set_header(name, value)
        if isinstance(payload, EventStream):
            self.set_header("Content-Type", EventStream.media_type)
            self.set_header("Cache-Control", "no-cache")
            # The events are all ready (the tutor wrote its whole reply first): one write.
            self.write(b"".join(payload))
        else:
            self._write_json(payload)

    get = head = post = delete = patch = put = options = trace = connect = _answer

    def _write_json(self, payload: dict):
        self.set_header("Content-Type", "application/json")
        if self.request.method != "HEAD":  # HEAD: the status and headers, never a body
            self.write(json.dumps(payload).encode())

    def write_error(self, status_code: int, **kwargs):
        """Every error tornado itself raises (405 for an odd method, ...) as OpenAI's JSON."""
        error = kwargs.get("exc_info", (None, None))[1]
        for name, value in handler.extra_headers(status_code, self.request.path).items():
            self.set_header(name, value)
        if not isinstance(error, APIError):
            kind = "server_error" if status_code >= 500 else "invalid_request_error"
            error = APIError(status_code, f"{self._reason} ({self.request.method[:20]} "
                             f"{self.request.path[:100]}); this server has {handler.ENDPOINTS}.",
                             type=kind)
        self.reason = error.message
        self._write_json(error.body())

    def _handle_request_exception(self, e: BaseException):
        if isinstance(e, APIError) and not self._finished:  # a refusal, not a crash
            self.send_error(e.status, exc_info=(type(e), e, None))
            return
        super()._handle_request_exception(e)

    def log_exception(self, typ, value, tb):
        if not isinstance(value, APIError):
            super().log_exception(typ, value, tb)


async def _thought_about(arguments: tuple) -> tuple[int, object, float]:
    """handler.handle(*arguments) in a worker thread, waited for at most MAX_THINKING_SECONDS;
    past that, a 504 that says so. The tutor reads in linear time, so this is a backstop: the
    thread cannot be killed, but its client gets an answer and nobody else waits for it."""
    work = asyncio.get_running_loop().run_in_executor(_THINKERS, handler.handle, *arguments)
    try:
        return await asyncio.wait_for(work, MAX_THINKING_SECONDS)
    except asyncio.TimeoutError:
        raise APIError(504, f"The request took longer than {MAX_THINKING_SECONDS:g} s to "
                       "answer and was given up; send a shorter one.", type="server_error",
                       code="timeout") from None


class JSONErrorsHTTPServer(tornado.httpserver.HTTPServer):
    """Tornado's HTTP server, except that a request it cannot parse at all (a garbled request
    line, HTTP/1.1 without a Host header, broken chunk framing) gets OpenAI's JSON error shape
    instead of tornado's bare `400 Bad Request` with no body.

    Tornado writes that reply deep inside its connection code, with no hook; we recognise its
    exact bytes on the connection's stream and send our JSON instead.
    """

    BARE_400 = b"HTTP/1.1 400 Bad Request\r\n\r\n"

    def handle_stream(self, stream, address):
        write = stream.write

        def write_json_instead(data, *args, **kwargs):
            if data == self.BARE_400:
                data = _json_reply(400, "The request is not valid HTTP/1.1: it needs a request "
                                   "line 'METHOD /path HTTP/1.1', a Host header, and well-formed "
                                   f"headers and body; this server has {handler.ENDPOINTS}.")
            return write(data, *args, **kwargs)

        stream.write = write_json_instead
        super().handle_stream(stream, address)


class Listener:
    """Accepts connections on a listening socket for tornado's HTTP server, and copes with
    running out of file descriptors.

    Tornado's own accept loop (netutil.add_accept_handler) treats "Too many open files" as a
    crash: the listening socket stays readable, so the event loop calls it again at once, and
    every call logs a traceback (58,940 lines in 12 s, one core busy, in an outside review).
    Here the listener stops reading for ACCEPT_PAUSE seconds and logs one line: the waiting
    clients stay in the kernel's backlog and are accepted once descriptors are free again
    (a stalled client is dropped after the client timeout, or leaves).
    """

    def __init__(self, sock, http: tornado.httpserver.HTTPServer):
        self.sock, self.http = sock, http
        self.loop = asyncio.get_running_loop()
        self.last_logged = -LOG_EVERY
        self.closed = False

    def start(self) -> None:
        if not self.closed:  # a pause may end after the server has stopped
            self.loop.add_reader(self.sock.fileno(), self.accept)

    def stop(self) -> None:
        self.loop.remove_reader(self.sock.fileno())

    def close(self) -> None:
        self.closed = True
        self.stop()

    def accept(self) -> None:
        for _ in range(BACKLOG):  # as tornado does: a batch at a time, so others get a turn
            try:
                connection, address = self.sock.accept()
            except (BlockingIOError, InterruptedError):  # nothing more is waiting
                return
            except ConnectionAbortedError:  # it left while in the queue
                continue
            except OSError as e:
                if e.errno not in OUT_OF_DESCRIPTORS:
                    raise
                self.pause(e)
                return
            # tornado's own per-connection setup, the call its add_sockets makes
            self.http._handle_connection(connection, address)

    def pause(self, error: OSError) -> None:
        self.stop()
        self.loop.call_later(ACCEPT_PAUSE, self.start)
        now = time.monotonic()
        if now - self.last_logged >= LOG_EVERY:
            self.last_logged = now
            log.warning("agentlab serve: out of file descriptors (%s); new clients wait "
                        "until open connections close (at most one such line a minute)",
                        error.strerror)


def _json_reply(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 reply carrying one API error; the connection closes after it."""
    body = json.dumps(APIError(status, message).body()).encode()
    return (f"HTTP/1.1 {status} Bad Request\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def application(respond=None, on_request=None) -> tornado.web.Application:
    """Every path answered by APIHandler; each answered request reported to on_request (a
    Served), or to no one (tornado's own access log stays off: it would print the query)."""

    def report(answered: tornado.web.RequestHandler) -> None:
        if on_request is None or not isinstance(answered, APIHandler):
            return
        request = answered.request
        on_request(Served(request.method, request.path, answered.seen.get("model"),
                          answered.get_status(), request.request_time() * 1000,
                          answered.reason if answered.get_status() >= 400 else None))

    return tornado.web.Application([(r".*", APIHandler, {"respond": respond})],
                                   log_function=report)


# `agentlab serve`'s port when none is given: none a hub or a notebook server takes (JupyterHub
# 8000, 8001 and 8081, Jupyter 8888, vLLM 8000, llama.cpp 8080, Ollama 11434, LM Studio 1234),
# so a student's server left running in the background never blocks the class's hub.
DEFAULT_PORT = 8642


class TutorHTTPServer:
    """The API on host:port, bound at once (port 0 picks a free one: read .server_address).

    serve_forever() runs tornado's event loop in the calling thread until shutdown() is
    called from another thread (or Ctrl-C); server_close() releases the port.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 client_timeout: float = 10.0, respond=None, on_request=None):
        self.sockets = tornado.netutil.bind_sockets(port, host, backlog=BACKLOG)
        self.server_address = self.sockets[0].getsockname()[:2]
        self.client_timeout = client_timeout
        self.respond = respond
        self.on_request = on_request  # called with a Served for each answered request
        self._loop = self._stop = None
        self._serving = threading.Event()  # set while serve_forever runs
        self._shutdown_asked = False

    def serve_forever(self) -> None:
        self._serving.set()
        try:
            asyncio.run(self._serve())
        finally:
            self._serving.clear()

    async def _serve(self):
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        if self._shutdown_asked:  # shutdown() came before the loop existed
            return
        http = JSONErrorsHTTPServer(
            application(self.respond, self.on_request), max_header_size=MAX_HEAD_BYTES,
            # A client that stops sending (mid-headers, mid-body, or idle between requests)
            # is dropped after client_timeout; it never held anyone else up meanwhile.
            idle_connection_timeout=self.client_timeout, body_timeout=self.client_timeout,
            max_body_size=2 * handler.MAX_BODY_BYTES)
        listeners = [Listener(sock, http) for sock in self.sockets]
        for listener in listeners:
            listener.start()
        try:
            await self._stop.wait()
        finally:
            for listener in listeners:
                listener.close()
            http.stop()
            await http.close_all_connections()

    def ask_to_stop(self) -> None:
        """Make serve_forever return soon; safe from another thread or a signal handler."""
        self._shutdown_asked = True
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already closed
                loop.call_soon_threadsafe(self._stop.set)

    def shutdown(self) -> None:
        """Stop serve_forever (from another thread) and wait until it has returned."""
        self.ask_to_stop()
        deadline = time.monotonic() + 10
        while self._serving.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)

    def server_close(self) -> None:
        for sock in self.sockets:
            sock.close()


# ---------------------------------------------------------------------------------------------
# Taking a port, in plain words when it cannot be had


def make_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                client_timeout: float = 10.0, respond=None, on_request=None):
    """The API on a real port: .serve_forever(), .shutdown(), .server_close(), .server_address.
    on_request: called with a Served for each answered request (on the server's thread)."""
    return TutorHTTPServer(host, port, client_timeout=client_timeout, respond=respond,
                           on_request=on_request)


class CannotListen(OSError):
    """The server could not take host:port; the message says why and what to do instead."""


def listen(host: str = "127.0.0.1", port: int = DEFAULT_PORT, on_request=None):
    """make_server, with an OS refusal (port taken, unknown host, ...) said in plain words.

    Example: port 8642 taken -> CannotListen("cannot listen on 127.0.0.1:8642: the address is
             already in use ...; try another port, such as --port 8643, or --port 0 ...")
    """
    try:
        return make_server(host, port, on_request=on_request)
    except OSError as error:
        raise CannotListen(why_cannot_listen(host, port, error)) from error


# The OS's codes for "port taken" and "not an address of this machine"; Windows has its own.
IN_USE = {errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE)}
NOT_HERE = {errno.EADDRNOTAVAIL, getattr(errno, "WSAEADDRNOTAVAIL", errno.EADDRNOTAVAIL)}
FIRST_FREE_PORT = 1024  # ports below need administrator rights on most systems


def why_cannot_listen(host: str, port: int, error: OSError) -> str:
    """One line: which address, why the OS refused it, and what to try instead.

    Example: ("127.0.0.1", 8000, OSError(EADDRINUSE, ...)) -> "cannot listen on
             127.0.0.1:8000: the address is already in use (another server, perhaps an earlier
             agentlab serve); try another port, such as --port 8001, or --port 0 for any free one"
    """
    if with_port := re.fullmatch(r"([^:]+):(\d+)", host):  # "127.0.0.1:8000" given as a host
        return (f"--host {host!r} has a port in it: give the host alone and the port with "
                f"--port, as in --host {with_port[1]} --port {with_port[2]}")
    where = f"cannot listen on {url_host(host)}:{port}"
    local = "such as --host 127.0.0.1 (this machine only) or --host 0.0.0.0 (every network)"
    if isinstance(error, socket.gaierror):
        return (f"{where}: {host!r} is not a host name or address this machine knows "
                f"({error.strerror or error}); use one of its addresses, {local}")
    if error.errno in IN_USE:
        other = port + 1 if port < 65535 else DEFAULT_PORT
        return (f"{where}: the address is already in use (another server, perhaps an earlier "
                f"agentlab serve); try another port, such as --port {other}, or --port 0 for "
                "any free one")
    if error.errno in NOT_HERE:
        return (f"{where}: {host} is not an address of this machine; use one of its "
                f"addresses, {local}")
    if error.errno == errno.EACCES and 0 < port < FIRST_FREE_PORT:
        return (f"{where}: ports below {FIRST_FREE_PORT} need administrator rights; use a "
                f"higher one, such as --port {DEFAULT_PORT}")
    return f"{where}: {error.strerror or error}"


def url_host(host: str) -> str:
    """A host as a URL writes it: an IPv6 address in brackets, since its colons would read as
    the port's.

    Example: "::1" -> "[::1]";  "127.0.0.1" -> "127.0.0.1";  "localhost" -> "localhost"
    """
    return f"[{host}]" if ":" in host else host


def serve(host: str = "127.0.0.1", port: int = DEFAULT_PORT, on_request=None) -> None:
    """Serve the tutor until Ctrl-C. Raises CannotListen if host:port cannot be taken.
    on_request: called with a Served for each answered request (`agentlab serve` logs it)."""
    import signal

    server = listen(host, port, on_request)
    address = server.server_address

    def stop_on_ctrl_c(signum, frame):
        # Ctrl-C asks the server to stop instead of raising KeyboardInterrupt wherever the
        # program happens to be (even inside asyncio setting up its loop); a second one stops
        # at once.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        server.ask_to_stop()

    previous = signal.signal(signal.SIGINT, stop_on_ctrl_c)
    try:
        print(f"agentlab tutor: OpenAI-compatible API on "
              f"http://{url_host(address[0])}:{address[1]}/v1 "
              f"(models: {', '.join(tutor.PERSONAS)}). Ctrl-C stops it.", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
        server.server_close()
