"""The tutor's HTTP server under a bounded load on 127.0.0.1, each side in its own process:
`python -m agentlab serve --port N` is started as a subprocess, and each client is another
Python process that sends its requests over one keep-alive connection. Bounded in count
(requests per client) and in time (every client stops at its deadline). Prints throughput,
p50 and p99 latency, and errors.

    python benchmarks/server_load.py [--clients 4] [--requests 300]
"""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).parent.parent
CLIENTS, REQUESTS, SECONDS = 4, 300, 30.0
TOOLS = [{"type": "function", "function": {
    "name": "calculate", "description": "Evaluate arithmetic.",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                   "required": ["expression"]}}}]
BODY = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "What is 6 * 7?"}],
                   "tools": TOOLS}).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client(port: int, requests: int, start_at: float, deadline: float) -> dict:
    """One client process's work: wait for the common start, then send requests in turn."""
    while time.time() < start_at:
        time.sleep(0.001)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    latencies, errors, began = [], 0, time.time()
    for _ in range(requests):
        if time.time() > deadline:
            break
        start = time.perf_counter()
        try:
            conn.request("POST", "/v1/chat/completions", body=BODY,
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            errors += response.status != 200
        except OSError:
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        latencies.append(time.perf_counter() - start)
    conn.close()
    return {"latencies": latencies, "errors": errors, "began": began, "ended": time.time()}


def start_server(port: int) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "agentlab", "serve", "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()  # the server says where it listens once it does
    if f":{port}/v1" not in line:
        server.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return server


def load(clients: int = CLIENTS, requests: int = REQUESTS, seconds: float = SECONDS,
         start_delay: float = 1.0) -> dict:
    """Start the server, then `clients` client processes that begin together after start_delay
    seconds (time for them all to be up) and stop after `requests` each or `seconds`."""
    port = free_port()
    server = start_server(port)
    try:
        start_at = time.time() + start_delay  # every client process is up and waiting by then
        deadline = start_at + seconds
        procs = [subprocess.Popen([sys.executable, __file__, "--client", str(port), str(requests),
                                   repr(start_at), repr(deadline)],
                                  cwd=ROOT, stdout=subprocess.PIPE, text=True)
                 for _ in range(clients)]
        results = [json.loads(p.communicate(timeout=seconds + 30)[0]) for p in procs]
    finally:
        server.terminate()
        server.wait(10)
    latencies = sorted(l for r in results for l in r["latencies"])
    elapsed = max(r["ended"] for r in results) - min(r["began"] for r in results)
    return {"clients": clients, "requests": len(latencies),
            "errors": sum(r["errors"] for r in results), "throughput": len(latencies) / elapsed,
            "p50": statistics.median(latencies), "p99": latencies[int(0.99 * (len(latencies) - 1))]}


def lines(r: dict) -> list[str]:
    return [f"  server in its own process, {r['clients']} client processes: "
            f"{r['requests']} requests, "
            f"{r['throughput']:.0f} requests/s, p50 {1000 * r['p50']:.2f} ms, "
            f"p99 {1000 * r['p99']:.2f} ms, {r['errors']} errors (on {os.cpu_count()} cores)"]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--client"]:
        port, requests, start_at, deadline = sys.argv[2:6]
        print(json.dumps(client(int(port), int(requests), float(start_at), float(deadline))))
    else:
        args = sys.argv
        n = int(args[args.index("--clients") + 1]) if "--clients" in args else CLIENTS
        count = int(args[args.index("--requests") + 1]) if "--requests" in args else REQUESTS
        print("\n".join(lines(load(n, count))))
