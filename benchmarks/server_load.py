"""The tutor's HTTP server under a bounded load on 127.0.0.1: 8 concurrent clients, 300
requests each, then it stops. Prints throughput, p50 and p99 latency, and errors.

    python benchmarks/server_load.py
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from agentlab.server import make_server
from agentlab.toolkit import COURSE_TOOLS

CLIENTS, REQUESTS = 8, 300
BODY = json.dumps({"model": "tutor", "messages": [{"role": "user", "content": "What is 6 * 7?"}],
                   "tools": [t.schema for t in COURSE_TOOLS]}).encode()


def load(clients: int = CLIENTS, requests: int = REQUESTS) -> dict:
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = server.server_address

    def client(_):
        conn = http.client.HTTPConnection(*address, timeout=10)
        latencies, errors = [], 0
        for _ in range(requests):
            start = time.perf_counter()
            try:
                conn.request("POST", "/v1/chat/completions", body=BODY,
                             headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                errors += response.status != 200
            except OSError:
                errors += 1
                conn = http.client.HTTPConnection(*address, timeout=10)
            latencies.append(time.perf_counter() - start)
        conn.close()
        return latencies, errors

    try:
        start = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(client, range(clients)))
        elapsed = time.perf_counter() - start
    finally:
        server.shutdown()
        server.server_close()
    latencies = sorted(l for ls, _ in results for l in ls)
    return {"requests": len(latencies), "errors": sum(e for _, e in results),
            "throughput": len(latencies) / elapsed,
            "p50": statistics.median(latencies), "p99": latencies[int(0.99 * (len(latencies) - 1))]}


if __name__ == "__main__":
    r = load()
    print(f"{r['requests']} requests from {CLIENTS} clients: {r['throughput']:.0f} requests/s, "
          f"p50 {1000 * r['p50']:.2f} ms, p99 {1000 * r['p99']:.2f} ms, {r['errors']} errors")
