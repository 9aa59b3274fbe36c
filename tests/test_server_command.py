"""`agentlab serve` as a student runs it (issue 32): one log line per request (method, path,
model, status, milliseconds, and an error's reason), never a key in it, none with --quiet; and
`python -m agentlab` run from the folder that holds the clone says what happened and what to do.
Each in a subprocess, as the command runs; the lines' format also in-process (RequestLog)."""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from processes import free_port, stop, wait_until_answers

import agentlab
from agentlab.__main__ import RequestLog
from agentlab.server import Served

ROOT = pathlib.Path(__file__).resolve().parents[1]
SECRET = "sk-proj-secretsecretsecret1234"  # as a student's real key looks
HIDDEN_SECRET = "not-shaped-like-a-key-42"  # found only because the environment names it


def post(url: str, body: dict) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {SECRET}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def serve_and_send(tmp_path, *options: str) -> tuple[list[str], list[int]]:
    """`python -m agentlab serve` with options, sent REQUESTS; (its output lines, statuses)."""
    port = free_port()
    log = tmp_path / "serve.txt"
    env = {**os.environ, "OPENAI_API_KEY": HIDDEN_SECRET}
    with log.open("w") as output:
        process = subprocess.Popen([sys.executable, "-m", "agentlab", "serve", "--port",
                                    str(port), *options], cwd=ROOT, env=env, stdout=output,
                                   stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_answers(f"{url}/models", process, log, 15)
        statuses = [post(f"{url}{path}", body) for path, body in REQUESTS]
        deadline = time.monotonic() + 5  # the last line is written as its answer goes out
        while log.read_text().count("\n") < 2 + len(REQUESTS) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop(process, 5)
    return log.read_text().splitlines(), statuses


REQUESTS = [
    ("/chat/completions", {"model": "tutor", "messages": [{"role": "user", "content": "hi"}]}),
    ("/responses", {"model": "tutor", "input": [{"type": "item_reference", "id": "msg_gone"}]}),
    ("/chat/completions", {"model": SECRET, "messages": []}),  # a key pasted as the model
    ("/chat/completions", {"model": f"tutor\n{HIDDEN_SECRET}\x1b[2J", "messages": []}),
    ("/responses?key=" + SECRET, {"model": "tutor", "input": "hi", "temperature": SECRET}),
]


def test_serve_logs_one_line_per_request_and_never_a_key(tmp_path):
    lines, statuses = serve_and_send(tmp_path)
    assert statuses == [200, 400, 404, 404, 400]
    assert lines[0].startswith("agentlab tutor: OpenAI-compatible API on")
    requests = lines[1:]
    assert requests[0].startswith("GET /v1/models - 200 ")  # the wait for the server to answer
    logged = requests[1:]
    assert len(logged) == len(REQUESTS), lines  # one line each, whatever the model held
    assert logged[0].startswith("POST /v1/chat/completions tutor 200 ")
    assert logged[0].endswith(" ms")
    assert logged[1].startswith("POST /v1/responses tutor 400 ")
    assert "Item with id 'msg_gone' not found" in logged[1]  # the reason, on the server's side
    assert logged[2].startswith("POST /v1/chat/completions [masked key] 404 ")
    assert logged[3].startswith("POST /v1/chat/completions tutor [masked key]\\x1b[2J 404 ")
    assert logged[4].startswith("POST /v1/responses tutor 400 ")  # the query is left out
    assert "Invalid 'temperature'" in logged[4]
    output = "\n".join(lines)
    assert SECRET not in output and HIDDEN_SECRET not in output and "secret" not in output
    assert "\x1b" not in output


def test_serve_quiet_logs_no_request(tmp_path):
    lines, statuses = serve_and_send(tmp_path, "--quiet")
    assert statuses == [200, 400, 404, 404, 400]
    assert len(lines) == 1 and lines[0].startswith("agentlab tutor: OpenAI-compatible API on")


def test_a_log_line_is_one_bounded_line_of_printable_text():
    reason = "Invalid 'x': " + "é\u2028\x00\x85\r\n" * 10_000
    line = RequestLog().line(Served("POST", "/v1/responses", {"a": [1]}, 400, 2.6, reason))
    assert line.startswith('POST /v1/responses {"a": [1]} 400 3 ms: Invalid \'x\': é')
    assert line.isprintable() and len(line) < 600


SERVED = Served("GET", "/v1/models", None, 200, 0.1, None)


def test_logging_stops_quietly_when_its_output_closes():
    closed = io.StringIO()
    closed.close()
    log = RequestLog(closed)
    log(SERVED)  # no exception: serving goes on
    log.flush(10)
    assert log.closed
    log(SERVED)  # and later lines are not even formatted


class Stalled(io.StringIO):
    """An output nobody reads (a full pipe): a write waits until `reader` is set."""

    def __init__(self):
        super().__init__()
        self.reader = threading.Event()

    def write(self, text):
        self.reader.wait(30)
        return super().write(text)


def test_an_output_nobody_reads_never_holds_the_server_up(monkeypatch):
    """Before the log had a thread of its own, a full stdout pipe (`agentlab serve` started
    with stdout=PIPE and never read) would have stopped the server's event loop at a print."""
    monkeypatch.setattr(RequestLog, "WAITING", 3)
    output = Stalled()
    log = RequestLog(output)
    handing_over = threading.Thread(target=lambda: [log(SERVED) for _ in range(10)])
    handing_over.start()
    handing_over.join(10)
    assert not handing_over.is_alive()  # all ten handed over while nothing could be written
    output.reader.set()
    log.flush(10)
    lines = output.getvalue().splitlines()
    dropped = [int(line.split()[0].strip("(")) for line in lines if "dropped" in line]
    written = [line for line in lines if line.startswith("GET /v1/models - 200")]
    assert len(dropped) == 1 and dropped[0] >= 6  # at most 3 waiting and 1 being written
    assert len(written) + dropped[0] == 10  # each line written or counted, none lost unsaid


def test_python_m_agentlab_from_the_folder_holding_the_clone_says_what_to_do(tmp_path):
    """From the folder that holds the clone, Python imports the clone (no __init__.py) as a
    namespace package: before, "ImportError: cannot import name 'Outcome' from
    'agentlab.tools' (unknown location)". The link stands for a clone named agentlab."""
    if not pathlib.Path(agentlab.__file__).is_relative_to(ROOT):
        pytest.skip("agentlab is installed from elsewhere, not this checkout (pip install -e): "
                    "the installed package wins over a folder, so nothing goes wrong")
    (tmp_path / "agentlab").symlink_to(ROOT, target_is_directory=True)
    done = subprocess.run([sys.executable, "-m", "agentlab", "serve", "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr and "ImportError" not in done.stderr, done.stderr
    assert f"found the folder {tmp_path / 'agentlab'}" in done.stderr, done.stderr
    assert "(cd agentlab)" in done.stderr and "`agentlab` command" in done.stderr
    assert done.stdout == ""  # it did not start serving
