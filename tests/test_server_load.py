"""Load on 127.0.0.1: 20 clients, each sending its requests on new connections, against
`python -m agentlab serve --port 0` in its own process. Zero errors allowed.

The test sends 20 x 20 requests; set AGENTLAB_FULL_LOAD=1 for the issue's full 20 x 200.
"""

import http.client
import json
import os
import pathlib
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentlab.toolkit import COURSE_TOOLS

CLIENTS = 20
REQUESTS = 200 if os.environ.get("AGENTLAB_FULL_LOAD") else 20
ROOT = pathlib.Path(__file__).parents[1]


@pytest.fixture(scope="module")
def served():
    """The CLI's server in a subprocess; its start-up line says the port it bound."""
    process = subprocess.Popen([sys.executable, "-m", "agentlab", "serve", "--port", "0"],
                               cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/v1", line)[1])
        yield "127.0.0.1", port
    finally:
        process.terminate()
        process.wait(10)


def test_twenty_clients_on_new_connections_get_no_errors(served):
    body = json.dumps({"model": "tutor", "tools": [t.schema for t in COURSE_TOOLS],
                       "messages": [{"role": "user", "content": "What is 6 * 7?"}]}).encode()

    def client(_):
        failures = []
        for _ in range(REQUESTS):
            try:
                conn = http.client.HTTPConnection(*served, timeout=30)
                conn.request("POST", "/v1/chat/completions", body=body,
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                answer = json.loads(response.read())
                conn.close()
                if response.status != 200 or answer["choices"][0]["finish_reason"] != "tool_calls":
                    failures.append(f"{response.status}: {answer}")
            except OSError as e:  # a reset or refused connection is a failure, not a crash
                failures.append(repr(e))
        return failures

    with ThreadPoolExecutor(CLIENTS) as pool:
        failures = [f for found in pool.map(client, range(CLIENTS)) for f in found]
    assert failures == [], f"{len(failures)} of {CLIENTS * REQUESTS} failed: {failures[:3]}"


@pytest.mark.parametrize("wait", [0.0, 0.3], ids=["at-once", "while-serving"])
def test_ctrl_c_stops_the_server_quietly(wait):
    """`python -m agentlab serve` ends on Ctrl-C with status 0 and no traceback, whether the
    signal comes right after the start-up line or while it serves."""
    import signal
    import time

    process = subprocess.Popen([sys.executable, "-m", "agentlab", "serve", "--port", "0"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        assert "OpenAI-compatible API on http://127.0.0.1:" in process.stdout.readline()
        time.sleep(wait)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=10)
    finally:
        process.kill()
    assert process.returncode == 0 and err == "", err


# --- one client cannot starve a class (issue 33) ----------------------------------------------

def test_get_models_is_answered_while_every_thinking_thread_is_busy(monkeypatch):
    """More slow POSTs than the server has threads, all still thinking: GET /v1/models is
    answered on the event loop all the same (before, it queued behind them and timed out)."""
    import threading

    from server_helpers import post, running_server

    release, started = threading.Event(), threading.Semaphore(0)

    def slow(model, messages, tools, tool_choice, **options):
        started.release()
        release.wait(30)
        return {"role": "assistant", "content": "done"}

    body = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "hi"}]})
    with running_server(respond=slow) as address:
        posts = [threading.Thread(target=post, args=(address, "/v1/chat/completions",
                                                     body.encode()), daemon=True)
                 for _ in range(12)]
        for thread in posts:
            thread.start()
        for _ in range(8):  # every thread of the server's is now held by a slow request
            assert started.acquire(timeout=10)
        try:
            status, listed = post(address, "/v1/models", b"", method="GET")
            missing = post(address, "/v1/nothing", b"", method="GET")[0]
            assert not release.is_set()  # answered while all of them were still thinking
        finally:
            release.set()
        for thread in posts:
            thread.join(10)
    assert status == 200 and any(m["id"] == "tutor" for m in listed["data"])
    assert missing == 404


def test_a_request_that_thinks_too_long_gets_a_504_that_says_so(monkeypatch):
    import threading

    from agentlab.server import web
    from server_helpers import post, running_server

    monkeypatch.setattr(web, "MAX_THINKING_SECONDS", 0.3)
    release = threading.Event()

    def stuck(model, messages, tools, tool_choice, **options):
        release.wait(30)
        return {"role": "assistant", "content": "too late"}

    body = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "hi"}]})
    with running_server(respond=stuck) as address:
        try:
            status, answer = post(address, "/v1/chat/completions", body.encode())
        finally:
            release.set()
    assert status == 504, answer
    assert "took longer than 0.3 s" in answer["error"]["message"]
    assert answer["error"]["code"] == "timeout"
