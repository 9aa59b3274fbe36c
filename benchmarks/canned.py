"""One canned model for every framework: an HTTP transport for the openai SDK's client that
answers each chat-completions request with the next reply of a fixed script, as JSON.

Every framework compared here talks to its model through the official openai SDK, and each is
handed this same transport (sync for agentlab and smolagents, async for the OpenAI Agents SDK
and Pydantic AI). So the model side costs the same for all of them, and what differs is the
framework: building requests, parsing replies, checking and running tools, keeping records.

A run of k steps is k model calls: k - 1 replies that each ask for one tool call, then a final
answer "done". smolagents ends a run by calling its `final_answer` tool rather than by plain
text, so its last reply is that tool call (`final_as_tool=True`); every other reply is the same.

    canned = Canned()
    canned.start(steps=5)                  # before each run
    ... one run of the framework ...
    canned.finish()                        # checks the run made exactly 5 requests

Left out on purpose: streaming, and any check of the request (the replies do not depend on it,
so no framework pays for the transport parsing its request).
"""

from __future__ import annotations

import importlib
import json

import openai

# The HTTP library the SDK is built on (httpx2 for openai 3, httpx before); found without
# importing agentlab, so the other frameworks' cold starts do not pay for it.
http = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
BASE_URL = "http://canned.invalid/v1"  # never resolved: the transport answers
MODEL = "tutor"  # agentlab's connect() takes a tutor name for its offline path; others don't care
TASK = "Look up the weather in a few cities and do some arithmetic, then say done."


def tool_call(step: int) -> dict:
    """The tool call a script asks for at a step: the two tools alternate, arguments vary.

    Example: tool_call(0) -> get_weather {"city": "City 0"}; tool_call(1) -> calculate {...}
    (varying arguments keep agentlab's repeated-call guard out of the measurement)
    """
    name, args = (("get_weather", {"city": f"City {step}"}) if step % 2 == 0
                  else ("calculate", {"expression": f"{step} * 9 / 5 + 32"}))
    return {"id": f"call_{step}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def reply_message(step: int, steps: int, final_as_tool: bool = False) -> dict:
    """The assistant message at `step` of a `steps`-long script."""
    if step < steps - 1:
        return {"role": "assistant", "content": None, "tool_calls": [tool_call(step)]}
    if final_as_tool:
        call = {"id": f"call_{step}", "type": "function",
                "function": {"name": "final_answer", "arguments": json.dumps({"answer": "done"})}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": "done"}


def completion(message: dict, step: int) -> bytes:
    """A chat.completion JSON body around a message, with fixed usage."""
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return json.dumps({
        "id": f"chatcmpl-canned-{step}", "object": "chat.completion", "created": 1767225600,
        "model": MODEL,
        "choices": [{"index": 0, "message": {**message, "refusal": None},
                     "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }).encode()


class Canned(http.BaseTransport, http.AsyncBaseTransport):
    """The transport: request i of a run gets the script's reply i, ready-made as bytes."""

    def __init__(self, final_as_tool: bool = False, record: bool = False):
        self.final_as_tool = final_as_tool
        self.record = record  # keep each request body (the SDK floor replays agentlab's)
        self.bodies: list[bytes] = []
        self._scripts: dict[int, list[bytes]] = {}
        self.start(2)

    def start(self, steps: int) -> None:
        if steps not in self._scripts:
            self._scripts[steps] = [completion(reply_message(i, steps, self.final_as_tool), i)
                                    for i in range(steps)]
        self.replies, self.served, self.bodies = self._scripts[steps], 0, []

    def finish(self) -> None:
        if self.served != len(self.replies):
            raise AssertionError(f"the run made {self.served} model calls, "
                                 f"the script has {len(self.replies)}")

    def _next(self, request, body: bytes):
        if self.record:
            self.bodies.append(body)
        if self.served >= len(self.replies):
            raise AssertionError(
                f"model call {self.served + 1} of a {len(self.replies)}-step script")
        content = self.replies[self.served]
        self.served += 1
        return http.Response(200, content=content, request=request,
                             headers={"content-type": "application/json"})

    def handle_request(self, request):
        return self._next(request, request.read())

    async def handle_async_request(self, request):
        return self._next(request, await request.aread())


def sync_sdk(transport: Canned, max_retries: int = 2) -> openai.OpenAI:
    """The openai SDK's sync client on the transport, as agentlab's connect() builds it."""
    return openai.OpenAI(api_key="canned", base_url=BASE_URL, max_retries=max_retries,
                         http_client=http.Client(transport=transport))


def async_sdk(transport: Canned) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="canned", base_url=BASE_URL,
                              http_client=http.AsyncClient(transport=transport))


# The two tools every framework gets, as plain functions (each framework wraps them its own
# way). smolagents reads their source and docstrings, so they live in a real file.

def get_weather(city: str) -> dict:
    """Get the weather in a city.

    Args:
        city: The city.
    """
    return {"city": city, "temp_c": 8}


def calculate(expression: str) -> float:
    """Evaluate arithmetic.

    Args:
        expression: The arithmetic.
    """
    return 46.4
