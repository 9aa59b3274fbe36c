"""A misbehaving HTTP server on 127.0.0.1 for tests of the whole-run deadline: it sends the
bytes a script says, with the pauses it says (headers late, a body trickled a byte at a time).

It is bounded so that a test can never hang on it: it serves at most `connections` clients,
each script's pauses add up to a few seconds at most, and its thread is a daemon that closes
the listening socket once those clients are served or LIFETIME seconds have passed.
"""

import contextlib
import socket
import threading
import time

LIFETIME = 15.0  # seconds: the server stops by itself after this, served or not


def read_request(conn: socket.socket) -> None:
    """Read one request's head and its Content-Length body, so the client is not cut off."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


def play(conn: socket.socket, script) -> None:
    """Send each bytes item of the script; sleep for each number in it."""
    with conn:
        conn.settimeout(5)
        try:
            read_request(conn)
            for item in script():
                if isinstance(item, (int, float)):
                    time.sleep(item)
                else:
                    conn.sendall(item)
        except OSError:  # the client gave up: that is what these tests want it to do
            pass


@contextlib.contextmanager
def loopback(script, connections: int = 4):
    """Serve `script` (a function returning a list of bytes and pauses) on a free port.

    Yields the base URL, http://127.0.0.1:<port>/v1.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    stop_at = time.monotonic() + LIFETIME

    def serve():
        served = 0
        with listener:
            while served < connections and time.monotonic() < stop_at:
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                served += 1
                threading.Thread(target=play, args=(conn, script), daemon=True).start()

    threading.Thread(target=serve, daemon=True, name="loopback").start()
    yield f"http://127.0.0.1:{port}/v1"
