"""Time per step of the offline tutor, three ways: a direct call (LocalClient: no SDK, no HTTP),
through the openai SDK and the in-process transport (the default), and through the SDK and
the real HTTP server on 127.0.0.1.

    python benchmarks/offline_path.py
"""

from __future__ import annotations

import statistics
import threading
import time

import openai

from agentlab import ChatClient, connect, run_agent
from agentlab.models import LocalClient
from agentlab.server import make_server
from agentlab.toolkit import COURSE_TOOLS

TASK = "What's the weather in the capital of Peru, in Fahrenheit?"  # four steps


def seconds_per_step(client, rounds: int = 30) -> float:
    run_agent(TASK, COURSE_TOOLS, client=client)  # warm up
    samples = []
    for _ in range(rounds):
        run = run_agent(TASK, COURSE_TOOLS, client=client)
        samples.append(run.seconds / len(run.steps))
    return statistics.median(samples)


def measure(rounds: int = 30) -> dict:
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address
    try:
        clients = {
            "direct call (LocalClient)": LocalClient(),
            "openai SDK, in-process transport": connect("tutor"),
            "openai SDK, HTTP on 127.0.0.1": ChatClient(
                openai.OpenAI(base_url=f"http://{host}:{port}/v1", api_key="unused"),
                default_model="tutor", offline=False, priced_as="gpt-4o-mini"),
        }
        figures = {name: [] for name in clients}
        for _ in range(3):  # alternate, so drift affects every path alike
            for name, client in clients.items():
                figures[name].append(seconds_per_step(client, rounds // 3))
        return {name: statistics.median(s) for name, s in figures.items()}
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    figures = measure()
    base = figures["direct call (LocalClient)"]
    for name, value in figures.items():
        print(f"{name:34} {1000 * value:7.3f} ms/step  {value / base:5.1f}x the direct call")
