"""One chat client over the official openai SDK, for the offline tutor and for real models.

    client = connect()                      # offline tutor, no key, no network (the default)
    client = connect("tutor-looper")        # a misbehaving tutor persona
    client = connect("gpt-4o-mini")         # OpenAI, with OPENAI_API_KEY set
    # OPENAI_BASE_URL=http://localhost:11434/v1 -> Ollama, vLLM, llama.cpp, LM Studio the same way

    response = client.chat(model=..., messages=messages, tools=tools)
    response.message      # a dict you can append to messages and send back
    response.tool_calls   # [] or the SDK's tool calls: .id, .function.name, .function.arguments
    response.usage        # the API's reported token usage
    response.latency_s    # how long the call took

Which way a client goes: a tutor model name ("tutor", "tutor-slow", ...) always means the
offline tutor. Otherwise OPENAI_API_KEY (or OPENAI_BASE_URL) selects the real API; with
neither set, the offline tutor. AGENTLAB_MODEL sets the default model name.

The offline path is the same SDK call as the real one: the SDK sends real HTTP requests to an
in-process transport (server.make_transport) that answers from the tutor, with no socket.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

from . import tutor
from .records import redact

DEFAULT_OFFLINE_MODEL = "tutor"
DEFAULT_ONLINE_MODEL = "gpt-4o-mini"
DEFAULT_TUTOR_PRICE = "gpt-4o-mini"  # the real model whose prices the tutor is charged at
OFFLINE_BASE_URL = "http://tutor.agentlab.invalid/v1"  # never resolved: the transport answers
RETRY_SECONDS = 10.0  # with less of the run's time left, a failed call is not retried


@dataclasses.dataclass
class Response:
    """One model reply, in the chapter's shape."""

    message: dict
    tool_calls: list
    usage: Any
    model: str
    priced_as: Any
    latency_s: float
    finish_reason: str | None = None
    raw: Any = dataclasses.field(default=None, repr=False)


class ChatClient:
    """`client.chat(model=..., messages=..., tools=...)` over an openai.OpenAI client."""

    def __init__(self, sdk, *, default_model: str, offline: bool, priced_as=None,
                 max_tokens_param: str = "max_completion_tokens"):
        self.sdk = sdk
        self.default_model = default_model
        self.offline = offline
        self.priced_as_override = priced_as
        self.max_tokens_param = max_tokens_param

    def priced_as(self, model: str | None = None):
        """The model name (or Price) this client's calls are charged at."""
        if self.priced_as_override is not None:
            return self.priced_as_override
        if self.offline:
            return os.environ.get("AGENTLAB_PRICED_AS", DEFAULT_TUTOR_PRICE)
        return model or self.default_model

    def chat(self, model: str | None = None, messages: list | None = None, tools=None, *,
             tool_choice=None, max_tokens: int | None = None, timeout: float | None = None) -> Response:
        model = model or self.default_model
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if max_tokens is not None:
            kwargs[self.max_tokens_param] = max_tokens
        sdk = self.sdk
        if timeout is not None and timeout < (sdk.timeout if isinstance(sdk.timeout, (int, float)) else 600):
            # The run's time limit bounds this call. With under RETRY_SECONDS left there is
            # no time to wait and retry, so don't.
            sdk = sdk.with_options(timeout=max(timeout, 0.001),
                                   max_retries=0 if timeout < RETRY_SECONDS else sdk.max_retries)
        start = time.perf_counter()
        completion = sdk.chat.completions.create(**kwargs)
        latency = time.perf_counter() - start
        if not getattr(completion, "choices", None):
            raise ValueError("the API returned a malformed response: no choices in it")
        choice = completion.choices[0]
        message = {"role": "assistant", "content": choice.message.content}
        calls = list(choice.message.tool_calls or [])
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in calls]
        return Response(message=message, tool_calls=calls, usage=completion.usage,
                        model=completion.model or model, priced_as=self.priced_as(model),
                        latency_s=latency, finish_reason=choice.finish_reason, raw=completion)

    def __repr__(self):
        where = "offline tutor" if self.offline else redact(str(self.sdk.base_url))
        return f"<ChatClient {self.default_model} via {where}, priced as {self.priced_as()}>"


class LocalClient:
    """A client that asks a Python function for each reply: no SDK, no HTTP.

    `respond(model, messages, tools, tool_choice) -> message dict` (default: the tutor). Usage
    follows the tutor's token rule. Benchmarks use it to measure the loop alone, and tests to
    script a model turn by turn.
    """

    offline = True

    def __init__(self, respond=None, *, default_model: str = "tutor", priced_as=DEFAULT_TUTOR_PRICE):
        self.respond = respond or tutor.respond
        self.default_model = default_model
        self._priced_as = priced_as

    def priced_as(self, model: str | None = None):
        return self._priced_as

    def chat(self, model: str | None = None, messages: list | None = None, tools=None, *,
             tool_choice=None, max_tokens: int | None = None, timeout: float | None = None) -> Response:
        from types import SimpleNamespace as Obj

        model = model or self.default_model
        start = time.perf_counter()
        message = dict(self.respond(model, messages, tools, tool_choice))
        calls = [Obj(id=c["id"], type="function", function=Obj(**c["function"]))
                 for c in message.get("tool_calls") or []]
        usage = Obj(prompt_tokens=tutor.count_tokens(messages, tools),
                    completion_tokens=tutor.completion_tokens(message))
        message.setdefault("content", None)
        return Response(message=message, tool_calls=calls, usage=usage, model=model,
                        priced_as=self._priced_as, latency_s=time.perf_counter() - start,
                        finish_reason="tool_calls" if calls else "stop")

    def __repr__(self):
        return f"<LocalClient {self.default_model}, priced as {self._priced_as}>"


def is_tutor(model: str | None) -> bool:
    return model in tutor.PERSONAS


def connect(model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
            priced_as=None, max_retries: int = 2, timeout: float = 60.0, transport=None) -> ChatClient:
    """A chat client: the offline tutor by default, a real API when a key or base URL is set.

    model:      the default model for client.chat (else AGENTLAB_MODEL, else a default per path)
    priced_as:  a model name known to genai-prices, or a pricing.Price, to charge calls at
    transport:  for the offline path, an SDK transport to use instead of the tutor's
                (tests inject faults this way)
    """
    import openai  # imported here: `import agentlab` stays fast

    model = model or os.environ.get("AGENTLAB_MODEL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    offline = is_tutor(model) or not (api_key or base_url)
    if offline:
        if model is not None and not is_tutor(model):
            raise ValueError(f"model {model!r} needs a real API: set OPENAI_API_KEY (and "
                             "OPENAI_BASE_URL for a local server), or use one of the offline "
                             f"tutor models: {', '.join(tutor.PERSONAS)}")
        from .server import make_transport, sdk_http

        http_client = sdk_http().Client(transport=transport or make_transport())
        sdk = openai.OpenAI(api_key="offline-tutor-needs-no-key", base_url=OFFLINE_BASE_URL,
                            http_client=http_client, max_retries=max_retries, timeout=timeout)
        return ChatClient(sdk, default_model=model or DEFAULT_OFFLINE_MODEL, offline=True,
                          priced_as=priced_as)
    sdk = openai.OpenAI(api_key=api_key or "no-key-needed-for-local-servers", base_url=base_url,
                        max_retries=max_retries, timeout=timeout)
    # Local OpenAI-compatible servers know the older "max_tokens"; OpenAI wants the newer name.
    param = "max_tokens" if base_url else "max_completion_tokens"
    return ChatClient(sdk, default_model=model or DEFAULT_ONLINE_MODEL, offline=False,
                      priced_as=priced_as, max_tokens_param=param)
