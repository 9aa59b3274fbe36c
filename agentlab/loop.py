"""The agent loop: THINK (ask the model), ACT (run the tools it asked for), OBSERVE (append the
results), REPEAT, until the model answers in plain text or a limit stops it.

`run_agent` below is the chapter's listing with each guardrail given a name:

    step limit      for index in range(limits.max_steps)
    time limit      a deadline for the whole run; it also bounds each model and tool call
    budget          Budget: by default refuses a call that *could* cross max_cost_usd;
                    budget="after" is the chapter's pay-then-check, which can overshoot
    observability   every finished step goes to the on_step observers (print_step prints it)
    allowlist,      Toolbox.call: unknown tools, broken or wrong arguments, repeated calls,
    errors back,    denials by the approval hook, exceptions and timeouts all come back to the
    truncation      model as {"error": ...}; long results are cut with a marker
    wind-down       optional: the last step the limits allow is a call with tool_choice="none"

A run that stops keeps its steps, usage, cost and transcript, and says why it stopped.
Left out on purpose: streaming, async, parallel tool execution (calls run one after another,
so a run is deterministic), and memory across runs.
"""

from __future__ import annotations

import dataclasses
import time

from .models import connect
from .pricing import Budget, Unpriceable
from .records import Run, Step, ToolCall, print_step, redact
from .tools import Outcome, RepeatGuard, Toolbox

SYSTEM_PROMPT = ("You are a helpful assistant. Use tools when needed. "
                 "When you have the answer, reply normally without calling a tool.")


@dataclasses.dataclass(frozen=True)
class Limits:
    """Every limit of a run. None switches a limit off (max_steps cannot be switched off)."""

    max_steps: int = 10                 # model calls per run
    max_cost_usd: float | None = 0.50   # US dollars per run
    max_seconds: float | None = 120.0   # wall clock for the whole run
    max_result_chars: int | None = 4000  # longer tool results are cut, with a marker
    tool_timeout: float | None = 10.0   # seconds per tool call
    max_repeats: int | None = 2         # the same call (tool + arguments) this many times in a row
    max_output_tokens: int = 1024       # sent as the request's max tokens; bounds each call's cost

    def __post_init__(self):
        def check(name, value, kind, allow_none=True):
            if value is None and allow_none:
                return
            if not isinstance(value, kind) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number"
                                 f"{' or None' if allow_none else ''}, not {value!r}")
        check("max_steps", self.max_steps, int, allow_none=False)
        check("max_cost_usd", self.max_cost_usd, (int, float))
        check("max_seconds", self.max_seconds, (int, float))
        check("max_result_chars", self.max_result_chars, int)
        check("tool_timeout", self.tool_timeout, (int, float))
        check("max_repeats", self.max_repeats, int)
        check("max_output_tokens", self.max_output_tokens, int, allow_none=False)


class Deadline:
    """The run's wall clock."""

    def __init__(self, seconds: float | None):
        self.start, self.seconds = time.perf_counter(), seconds

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        return None if self.seconds is None else self.seconds - self.elapsed()

    def expired(self) -> bool:
        return self.seconds is not None and self.elapsed() >= self.seconds


def run_agent(task: str, tools=(), *, client=None, model: str | None = None,
              limits: Limits | None = None, on_step=None, approve=None, budget: str = "before",
              wind_down: bool = False, system_prompt: str = SYSTEM_PROMPT) -> Run:
    """Run the agent loop on one task and return its Run record.

    tools:     @tool functions, a Toolbox, or the chapter's (schemas, implementations) pair
    client:    a ChatClient (default: connect(model), the offline tutor unless a key is set)
    on_step:   a function, or a list of them, called with each finished Step (print_step prints)
    approve:   approve(tool_name, arguments) -> True to allow, False/Deny(reason)/str to refuse
    budget:    "before" (never exceeds max_cost_usd) or "after" (the chapter's; can overshoot)
    wind_down: make the last step the limits allow a final answer (tool_choice="none")
    """
    limits = limits or Limits()
    client = client or connect(model)
    model = model or client.default_model
    toolbox = Toolbox.of(tools)
    schemas = toolbox.schemas  # what the model sees, the same at every step
    observers = on_step if isinstance(on_step, (list, tuple)) else [on_step] if on_step else []
    messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": task}]
    priced_as = client.priced_as(model)
    run = Run(task=task, model=model, priced_as=str(getattr(priced_as, "model", priced_as)),
              limits=dataclasses.asdict(limits), budget_mode=budget, messages=messages)
    spend = Budget(limits.max_cost_usd, priced_as, budget)
    clock = Deadline(limits.max_seconds)
    repeat_guard = RepeatGuard(limits.max_repeats)

    def finished(step):
        run.steps.append(step)
        for observe in observers:
            observe(step)

    for index in range(limits.max_steps):                                   # STEP LIMIT
        if clock.expired():                                                 # TIME LIMIT
            return _stop(run, clock, "max_seconds", f"{limits.max_seconds:g} s have passed")
        last = _limit_ahead(index, limits, spend, clock, run, messages, schemas) if wind_down else None
        if last:                                                            # WIND-DOWN (optional)
            messages.append({"role": "user", "content": f"[agentlab] {last[1]}. Do not call "
                             "tools; answer now with what you have gathered."})
        refusal = spend.refuse_call(messages, schemas, limits.max_output_tokens)
        if refusal:                                                         # BUDGET (before)
            return _stop(run, clock, "max_cost", refusal)
        try:                                                                # 1. THINK
            response = client.chat(model=model, messages=messages, tools=schemas,
                                   tool_choice="none" if last else None,
                                   max_tokens=limits.max_output_tokens, timeout=clock.left())
        except Exception as e:  # the API failed after the SDK's retries: keep what we have
            reason = "max_seconds" if clock.expired() else "error"
            return _stop(run, clock, reason, f"the model call failed: {_describe(e)}")
        messages.append(response.message)
        step = Step(index=index, message=response.message, request_messages=len(messages) - 1,
                    model_seconds=response.latency_s, wind_down=bool(last))
        usage = response.usage
        step.prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        step.completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        try:
            step.cost_usd = spend.charge(response, len(messages) - 1)
        except Unpriceable as e:                                            # BUDGET fails closed
            step.cost_usd, step.cost_estimated = _worst_case(spend, messages, schemas, limits)
            if limits.max_cost_usd is not None:
                finished(step)
                return _stop(run, clock, "max_cost", f"{e}; counted as over budget")
        if budget == "after" and spend.overspent():                         # BUDGET (after)
            finished(step)
            return _stop(run, clock, "max_cost", spend.overspent())
        if not response.tool_calls or last:                                 # DONE: an answer
            finished(step)
            if last:
                return _stop(run, clock, last[0], last[1], answer=response.message.get("content"))
            return _stop(run, clock, "answered", "", answer=response.message.get("content"))
        for call in response.tool_calls:                                    # 2. ACT
            outcome = _act(toolbox, call, limits, clock, approve, repeat_guard)
            messages.append({"role": "tool", "tool_call_id": call.id,       # 3. OBSERVE
                             "content": outcome.content})
            step.tool_calls.append(ToolCall(
                id=call.id, name=call.function.name, arguments=call.function.arguments,
                result=outcome.content, error=outcome.error, truncated_chars=outcome.truncated_chars,
                denied=outcome.denied, seconds=outcome.seconds))
        step.tool_seconds = sum(c.seconds for c in step.tool_calls)
        finished(step)                                                      # 4. REPEAT
    return _stop(run, clock, "max_steps", f"the step limit of {limits.max_steps} was reached")


def _act(toolbox: Toolbox, call, limits: Limits, clock: Deadline, approve, repeat_guard) -> Outcome:
    """Run one tool call through the toolbox's checks, within what is left of the time limit."""
    left = clock.left()
    if left is not None and left <= 0:
        message = "not run: the run's time limit was reached"
        return Outcome(f'{{"error": "{message}"}}', error=message)
    timeout = min(t for t in (limits.tool_timeout, left) if t is not None) if (
        limits.tool_timeout is not None or left is not None) else None
    return toolbox.call(call.function.name, call.function.arguments, timeout=timeout,
                        max_result_chars=limits.max_result_chars, approve=approve,
                        repeat_guard=repeat_guard)


def _limit_ahead(index, limits, spend, clock, run, messages, schemas) -> tuple[str, str] | None:
    """For the wind-down: if this is the last step the limits allow, which limit and why."""
    if index == limits.max_steps - 1:
        return "max_steps", f"Step limit reached: this is step {index + 1} of {limits.max_steps}"
    if spend.mode == "before" and spend.max_usd is not None:
        try:
            bound = spend.call_bound(messages, schemas, limits.max_output_tokens)
        except Unpriceable:
            return None
        if spend.spent + 2 * bound > spend.max_usd:
            return "max_cost", "Budget nearly spent: there is money for one more call only"
    left = clock.left()
    if left is not None and run.steps:
        per_step = sum(s.seconds for s in run.steps) / len(run.steps)
        if left < 2 * per_step:
            return "max_seconds", "Time nearly up: there is time for one more call only"
    return None


def _worst_case(spend: Budget, messages, schemas, limits) -> tuple[float, bool]:
    """A cost for a response that could not be priced: the bound if there is one, flagged."""
    try:
        return spend.call_bound(messages[:-1], schemas, limits.max_output_tokens), True
    except Unpriceable:
        return 0.0, True


def _describe(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    text = getattr(error, "message", None) or str(error) or "no details"
    return redact(f"{type(error).__name__}{f' (HTTP {status})' if status else ''}: {text}")[:500]


def _stop(run: Run, clock: Deadline, reason: str, detail: str, answer: str | None = None) -> Run:
    """End the run: record why, and answer any tool call left unanswered in the transcript."""
    answered = {m.get("tool_call_id") for m in run.messages if m.get("role") == "tool"}
    for message in list(run.messages):
        for call in message.get("tool_calls") or []:
            if call["id"] not in answered:
                run.messages.append({"role": "tool", "tool_call_id": call["id"],
                                     "content": f'{{"error": "not run: the run stopped ({reason})"}}'})
    run.stop_reason, run.stop_detail, run.answer = reason, redact(detail), answer
    run.seconds = clock.elapsed()
    return run


__all__ = ["run_agent", "Limits", "SYSTEM_PROMPT", "print_step"]
