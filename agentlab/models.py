"""One chat client over the official openai SDK, for the offline tutor and for real models.

    client = connect()                      # offline tutor, no key, no network (the default)
    client = connect("tutor-looper")        # a misbehaving tutor persona
    client = connect("gpt-4o-mini")         # OpenAI, with OPENAI_API_KEY set
    client = connect(respond=my_model)      # a scripted model: my_model(model, messages, tools,
                                            # tool_choice, **options) -> an assistant message
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
in-process transport (server.make_transport) that answers from the tutor, with no socket. A
scripted model goes the same way, so its usage and its max-tokens cap follow the tutor's rule
(one rule, in server.complete, for every offline client).

Time: `chat(..., timeout=seconds)` bounds the whole call, retries included. The SDK is asked
for one attempt at a time (max_retries=0) with what is left of that time as its timeout, and
this module retries what the SDK would retry (connection errors, timeouts, 408/409/429/5xx),
waiting as the API asks (retry-after) or 0.5 s, 1 s, ..., but never past the deadline.
The SDK's timeout is per read of the socket, not per call, and no timeout covers a name lookup:
a server trickling its body a byte at a time or sending its headers late, or a slow resolver,
would hold a call far longer. So the call runs on a watched thread (_watched.py) that is waited
for no longer than `timeout`: past it, the call is abandoned (CallAbandoned) and whatever it
returns later is dropped. Why a thread and not the SDK's options or a deadline-aware transport:
it bounds every stage the same way, name lookup included (which neither can interrupt), in a
dozen lines that know nothing of the SDK's insides. Streaming is not used.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import email.utils
import math
import os
import time
from typing import Any

from . import tutor
from ._watched import Overran, run_within
from .masking import mask, public_url, remember_key
from .records import redact

DEFAULT_OFFLINE_MODEL = "tutor"
DEFAULT_ONLINE_MODEL = "gpt-4o-mini"
DEFAULT_TUTOR_PRICE = "gpt-4o-mini"  # the real model whose prices the tutor is charged at
OFFLINE_BASE_URL = "http://tutor.agentlab.invalid/v1"  # never resolved: the transport answers
RETRY_STATUSES = {408, 409, 429} | set(range(500, 600))  # the SDK's own rule for what to retry
FIRST_RETRY_WAIT = 0.5  # seconds; doubles on each retry, as the SDK's does
MAX_BACKOFF = 8.0       # seconds: the SDK's longest backoff
MAX_RETRY_AFTER = 120.0  # seconds: a server asking for longer is not retried (the SDK's rule)


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
    """`client.chat(model=..., messages=..., tools=...)` over an openai.OpenAI client.

    The SDK client's settings (base URL, timeout, headers) are read once, when the ChatClient
    is made: to change them, make a new one (connect() does).
    """

    def __init__(self, sdk, *, default_model: str, offline: bool, priced_as=None,
                 max_tokens_param: str = "max_completion_tokens"):
        self.sdk = sdk
        # One try per call: _create retries itself, within the call's deadline. Made once:
        # with_options copies the client, about 30 us a step if done per call.
        self._single_try = sdk.with_options(max_retries=0)
        # The SDK imports its chat module at its first use (0.1 s, a second on a machine busy
        # with a class): here, so a run's time limit does not pay for it in its first step.
        self._single_try.chat.completions  # noqa: B018 (touched for its import)
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
             tool_choice=None, max_tokens: int | None = None,
             timeout: float | None = None) -> Response:
        """One chat completion. timeout: seconds the call may take in all, retries included."""
        model = model or self.default_model
        kwargs: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
        if max_tokens is not None:
            kwargs[self.max_tokens_param] = max_tokens
        start = time.perf_counter()
        try:
            completion = self._within(timeout, lambda: self._create(kwargs, timeout))
        except Exception as e:  # a 401 echoing the key, shown by hand in a notebook: masked
            raise masked_error(e)  # noqa: B904 - the same exception, its texts masked
        latency = time.perf_counter() - start
        if not getattr(completion, "choices", None):
            raise ValueError("the API returned a malformed response: no choices in it")
        choice = completion.choices[0]
        # A key in a reply (a model echoing what it was told) is masked as it enters, like a
        # tool's result: the records, the next request and the tools see "[masked key]".
        message = {"role": "assistant", "content": redact(choice.message.content)}
        calls = [_masked_call(c) for c in choice.message.tool_calls or []]
        if calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in calls]
        return Response(message=message, tool_calls=calls, usage=completion.usage,
                        model=completion.model or model, priced_as=self.priced_as(model),
                        latency_s=latency, finish_reason=choice.finish_reason, raw=completion)

    @staticmethod
    def _within(timeout: float | None, create):
        """create() on a watched thread (_watched.py), so that `timeout` bounds the whole call:
        the name lookup, the connection, headers sent late, a body trickled a byte at a time.
        A reply that comes after it is dropped (CallAbandoned), never returned as an answer."""
        if timeout is None:
            return create()
        try:
            return run_within(create, timeout, name="agentlab-model-call")
        except Overran as e:
            raise CallAbandoned(timeout, e.took) from None

    def _create(self, kwargs: dict, timeout: float | None):
        """sdk.chat.completions.create, retried as the SDK would, within `timeout` seconds."""
        import openai

        deadline = None if timeout is None else time.perf_counter() + timeout
        for attempt in range(self.sdk.max_retries + 1):
            # The time left for this try, as the SDK's per-request timeout (none: its default).
            time_left = {} if deadline is None else {
                "timeout": max(deadline - time.perf_counter(), 0.001)}
            try:
                return self._single_try.chat.completions.create(**kwargs, **time_left)
            except (openai.APIConnectionError, openai.APIStatusError) as e:  # timeouts included
                wait = _retry_wait(e, attempt)
                if (attempt == self.sdk.max_retries or wait is None
                        or (deadline is not None and time.perf_counter() + wait >= deadline)):
                    raise
                time.sleep(wait)

    def __repr__(self):
        where = "offline tutor" if self.offline else public_url(self.sdk.base_url)
        return f"<ChatClient {self.default_model} via {where}, priced as {self.priced_as()}>"


def masked_error(error: BaseException) -> BaseException:
    """The exception itself, with any key in its message, its args and an API error's
    message and body masked: whoever prints it (a notebook's traceback, a log) sees
    "[masked key]". Its type is kept, so `except openai.AuthenticationError` still works."""
    try:
        error.args = tuple(mask(a) if isinstance(a, (str, bytes, list, dict)) else a
                           for a in error.args)
        for name in ("message", "body"):
            if isinstance(getattr(error, name, None), (str, list, dict)):
                setattr(error, name, mask(getattr(error, name)))
    except (AttributeError, TypeError):  # an exception that will not be changed
        pass
    return error


class CallAbandoned(TimeoutError):
    """A model call that did not return within its time: abandoned, its reply dropped."""

    def __init__(self, timeout: float, took: float | None = None):
        late = "" if took is None else f"; its reply came after {took:.2f} s and was dropped"
        super().__init__(f"no reply within the {timeout:.2f} s the call had (name lookup, "
                         f"connection, headers and body together){late}")


def _masked_call(call):
    """An SDK tool call with any key in its name, id or arguments masked (the call itself if
    it holds none)."""
    function = {field: getattr(call.function, field, None) for field in ("name", "arguments")}
    masked = {field: redact(value) for field, value in function.items()}
    if masked == function and redact(call.id) == call.id:
        return call
    return call.model_copy(update={"id": redact(call.id),
                                   "function": call.function.model_copy(update=masked)})


def _retry_wait(error, attempt: int) -> float | None:
    """Seconds to wait before retrying a failed call, or None if it must not be retried.

    The SDK's rule. A server's "x-should-retry: true" or "false" decides whether to retry;
    without it, the statuses in RETRY_STATUSES are retried. Its retry-after-ms or retry-after
    (seconds, or an HTTP date) is honoured when it is above 0 and at most two minutes; a longer
    one means "do not retry"; anything else (0, negative, NaN, junk) gets the usual backoff:
    0.5 s, 1 s, 2 s ..., at most 8 s (the SDK also shortens each by up to a quarter at random;
    we do not, so that a run is repeatable).
    Example: a 429 with "retry-after-ms: 10" -> 0.01; a 500 on the 2nd attempt -> 1.0;
             a 429 with "retry-after: 600" -> None; a 400 -> None
    """
    backoff = min(FIRST_RETRY_WAIT * 2 ** attempt, MAX_BACKOFF)
    response = getattr(error, "response", None)
    if response is None:  # no response at all: a dropped connection or a timeout
        return backoff
    should = response.headers.get("x-should-retry", "").lower()
    if should == "false" or (should != "true" and response.status_code not in RETRY_STATUSES):
        return None
    asked = _retry_after(response.headers)
    if asked is None or math.isnan(asked) or asked <= 0:
        return backoff
    if asked > MAX_RETRY_AFTER:  # infinity too: a number too large for a float
        return None
    return asked


def _retry_after(headers) -> float | None:
    """The seconds a server asked us to wait, from retry-after-ms or retry-after, if it said.

    A number too large for a float ("1e999") asks for too long, not for nothing: it reads as
    infinity, which _retry_wait refuses; "inf" written out is junk (None).
    Example: {"retry-after-ms": "250"} -> 0.25; {"retry-after": "2"} -> 2.0;
             {"retry-after": <an HTTP date 3 s from now>} -> about 3.0; {"retry-after": "x"} -> None
    """
    for header, per_second in (("retry-after-ms", 1000), ("retry-after", 1)):
        text = headers.get(header)
        if text is None:
            continue
        try:
            value = float(text) / per_second
        except ValueError:
            continue
        if math.isinf(value) and text.strip().lower().lstrip("+-") in ("inf", "infinity"):
            return None  # "inf" written out is junk, not a wait
        return value
    try:  # an HTTP date: the seconds until then
        when = email.utils.parsedate_to_datetime(headers.get("retry-after", ""))
        return (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    except (TypeError, ValueError, OverflowError):
        return None


# The offline tutor's models, each a persona (a steady tutor, a sloppy one, one that loops...):
# name -> what it does. The one public place for their names: `agentlab models` lists them, the
# playground offers them, connect() accepts them.
TUTOR_MODELS: dict[str, str] = dict(tutor.PERSONAS)


def is_tutor(model: str | None) -> bool:
    return model in TUTOR_MODELS


_TUTOR_WARMED_UP = False
_WARM_UP_TOOL = {"type": "function", "function": {
    "name": "calculate", "description": "Evaluate an arithmetic expression.",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                   "required": ["expression"]}}}


def _warm_up_the_tutor(client: ChatClient) -> None:
    """One small call to the tutor, the first time this process makes an offline client.

    The SDK and the tutor's request checks build their parsers on their first call: 0.15 s on
    an idle machine, a second on a server busy with a class. Paid here, it is not paid in a
    run's first step, where it counts against the run's time limit and could change how the run
    ends (notebook 04b's time-limit demo). The tutor keeps nothing from one call to the next.
    """
    global _TUTOR_WARMED_UP
    if _TUTOR_WARMED_UP:
        return
    _TUTOR_WARMED_UP = True
    client.chat(model=DEFAULT_OFFLINE_MODEL, tools=[_WARM_UP_TOOL],
                messages=[{"role": "user", "content": "What is 1 + 1?"}])


def connect(model: str | None = None, *, api_key: str | None = None, base_url: str | None = None,
            priced_as=None, max_retries: int = 2, timeout: float = 60.0, transport=None,
            respond=None) -> ChatClient:
    """A chat client: the offline tutor by default, a real API when a key or base URL is set.

    model:      the default model for client.chat (else AGENTLAB_MODEL, else a default per path)
    priced_as:  a model name known to genai-prices, or a pricing.Price, to charge calls at
    transport:  for the offline path, an SDK transport to use instead of the tutor's
                (tests inject faults this way: server.make_transport(handler))
    respond:    a scripted model for the offline path, in place of the tutor:
                respond(model, messages, tools, tool_choice, **options) -> assistant message
                dict. Its usage and max-tokens cap follow the tutor's rule.
    """
    import openai  # imported here: `import agentlab` stays fast

    model = model or os.environ.get("AGENTLAB_MODEL") or None
    if isinstance(model, str) and mask(model) != model:  # connect("sk-proj-..."): a key
        remember_key(model)
        raise ValueError("the model name given to connect() looks like an API key (not shown "
                         "here): pass a key as connect(api_key=...) or in OPENAI_API_KEY, and "
                         "a model name as the first argument")
    remember_key(api_key)  # an API error may echo it back: mask it like the environment's
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    offline = is_tutor(model) or respond is not None or not (api_key or base_url)
    if respond is not None:
        if transport is not None:
            raise ValueError("give connect() a transport or a respond function, not both")
        model = model or DEFAULT_OFFLINE_MODEL
    if offline:
        if model is not None and not is_tutor(model):
            if close := difflib.get_close_matches(model, TUTOR_MODELS, n=1, cutoff=0.75):
                raise ValueError(f"there is no offline model {model!r}: did you mean "
                                 f"{close[0]!r}? (`agentlab models` lists them)")
            raise ValueError(f"model {model!r} needs a real API: set OPENAI_API_KEY (and "
                             "OPENAI_BASE_URL for a local server), or use one of the offline "
                             f"tutor models: {', '.join(TUTOR_MODELS)}")
        from .server import make_transport, sdk_http

        http_client = sdk_http().Client(transport=transport or make_transport(respond=respond))
        sdk = openai.OpenAI(api_key="offline-tutor-needs-no-key", base_url=OFFLINE_BASE_URL,
                            http_client=http_client, max_retries=max_retries, timeout=timeout)
        client = ChatClient(sdk, default_model=model or DEFAULT_OFFLINE_MODEL, offline=True,
                            priced_as=priced_as)
        if transport is None and respond is None:
            _warm_up_the_tutor(client)
        return client
    sdk = openai.OpenAI(api_key=api_key or "no-key-needed-for-local-servers", base_url=base_url,
                        max_retries=max_retries, timeout=timeout)
    # Local OpenAI-compatible servers know the older "max_tokens"; OpenAI wants the newer name.
    param = "max_tokens" if base_url else "max_completion_tokens"
    return ChatClient(sdk, default_model=model or DEFAULT_ONLINE_MODEL, offline=False,
                      priced_as=priced_as, max_tokens_param=param)
