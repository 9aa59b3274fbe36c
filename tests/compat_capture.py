"""See what each framework sends: run the compat cases against a recording proxy of the server.

    python tests/compat_capture.py > /tmp/capture.json     # needs: pip install -e ".[compat]"

The recorder listens on 127.0.0.1, keeps every request body and answers it with
`agentlab.server.handle`, the same function `agentlab serve` uses. With `--fake-stream` it
also answers a streaming request, by turning the plain completion into chat.completion.chunk
events, so that a framework's later turns can be seen even where the server cannot stream yet.
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agentlab import server

import compat_frameworks as frameworks


def chunks(completion: dict) -> list[dict]:
    """A chat.completion as the chunks a streaming server would send, with the usage last.

    Example: {"choices": [{"message": {"content": "Hi"}, ...}]} -> a role+content chunk, a
    finish chunk, a usage chunk.
    """
    base = {k: completion[k] for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    message = completion["choices"][0]["message"]
    delta = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    finish = completion["choices"][0]["finish_reason"]
    return [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": completion["usage"]}]


def recorder(log: list, fake_stream: bool) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self._answer("GET", b"")

        def do_POST(self):
            self._answer("POST", self.rfile.read(int(self.headers.get("Content-Length") or 0)))

        def _answer(self, method, body):
            request = json.loads(body) if body else None
            streaming = isinstance(request, dict) and request.get("stream") and fake_stream
            if streaming:
                plain = {k: v for k, v in request.items() if k not in ("stream", "stream_options")}
                body = json.dumps(plain).encode()
            status, payload, _ = server.handle(method, self.path, body)
            log.append({"path": self.path, "request": request, "status": status,
                        "response": payload})
            if streaming and status == 200:
                data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks(payload))
                data, kind = (data + "data: [DONE]\n\n").encode(), "text/event-stream"
            else:
                data, kind = json.dumps(payload).encode(), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


def capture(framework: str, mode: str, fake_stream: bool) -> dict:
    log: list = []
    httpd = recorder(log, fake_stream)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        output = frameworks.run(framework, url, mode)
        outcome = {"output": output.model_dump() if hasattr(output, "model_dump") else str(output)}
    except Exception as e:  # what fails is what we came to see
        outcome = {"error": f"{type(e).__name__}: {e}"[:2000],
                   "where": traceback.format_exc(limit=-3)[-1500:]}
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {"framework": framework, "mode": mode, "fake_stream": fake_stream, **outcome,
            "requests": log}


if __name__ == "__main__":
    out, sys.stdout = sys.stdout, sys.stderr  # what the frameworks print goes to stderr
    wanted = sys.argv[1:]
    results = []
    for name, modes in frameworks.FRAMEWORK_MODES.items():
        for mode in modes:
            if wanted and name not in wanted:
                continue
            for fake in ([False, True] if mode == "stream" else [False]):
                results.append(capture(name, mode, fake))
                print(name, mode, fake, "error" in results[-1], file=sys.stderr)
    print(json.dumps(results, indent=1, default=str), file=out)
