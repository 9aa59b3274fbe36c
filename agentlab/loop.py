"""The agent loop: THINK (ask the model), ACT (run the tools it asked for), OBSERVE (append the
results), REPEAT, until the model answers in plain text or a limit stops it.

`run_agent` below is the chapter's listing with each guardrail given a name (each one a named
piece of guardrails.py, where Limits, the numbers, lives too):

    step limit      for index in range(limits.max_steps)
    time limit      a deadline for the whole run; it also bounds each model call (retries
                    included) and each tool call
    budget          Budget: by default refuses a call that *could* cross max_cost_usd;
                    budget="after" is the chapter's pay-then-check, which can overshoot
    observability   every finished step goes to the on_step observers (print_step prints it)
    allowlist,      Toolbox.call (tools.py): unknown tools, broken or wrong arguments, repeated
    errors back,    calls, denials by the approval hook, exceptions and timeouts all come back
    truncation      to the model as {"error": ...}; long results are cut with a marker
    wind-down       optional: the last step the limits allow is a call with tool_choice="none"

A run that stops keeps its steps, usage, cost and transcript, and says why it stopped (one of
records.STOP_REASONS). Ctrl-C during a run is a stop too ("interrupted"), not a lost run.
Left out on purpose: streaming, async, parallel tool execution (calls run one after another,
so a run is deterministic), and memory across runs.
"""

from __future__ import annotations

import contextlib
import dataclasses

from ._text import exception_text
from .guardrails import Budget, Deadline, EndRun, Limits, RepeatGuard
from .masking import mask, public_url
from .models import connect
from .pricing import Unpriceable, token_count
from .records import Run, Step, ToolCall, print_step, text_of
from .tools import Outcome, Toolbox

SYSTEM_PROMPT = ("You are a helpful assistant. Use tools when needed. "
                 "When you have the answer, reply normally without calling a tool.")


@dataclasses.dataclass(frozen=True)
class Stop:
    """Why a run ends: a stop reason (records.STOP_REASONS), a sentence, and any answer."""

    reason: str
    detail: str = ""
    answer: str | None = None


class StopRun(Exception):
    """Raised by an on_step observer to end the run at this step boundary ("interrupted").

    The playground's Stop button works this way.
    """


class ObserverFailed(Exception):
    """An on_step observer raised: the run stops with "error" and names it."""

    def __init__(self, observer, error: BaseException):
        name = getattr(observer, "__name__", type(observer).__name__)
        super().__init__(f"the on_step observer {name} raised {exception_text(error)}; the "
                         "run stopped there, with its steps kept")


def run_agent(task: str, tools=(), *, client=None, model: str | None = None,
              limits: Limits | None = None, on_step=None, approve=None, budget: str = "before",
              wind_down: bool = False, system_prompt: str = SYSTEM_PROMPT) -> Run:
    """Run the agent loop on one task and return its Run record.

    tools:     a list of @tool functions, a Toolbox, or the chapter's (schemas, implementations)
    client:    a ChatClient (default: connect(model), the offline tutor unless a key is set)
    on_step:   a function, or a list of them, called with each finished Step (print_step prints)
    approve:   approve(tool_name, arguments) -> True to allow; anything else refuses the call
               (Deny(reason) or a str gives the model the reason; None, a forgotten return, too)
    budget:    "before" (never exceeds max_cost_usd) or "after" (the chapter's; can overshoot)
    wind_down: make the last step the limits allow a final answer (tool_choice="none")
    """
    if not isinstance(task, str):
        raise TypeError(f"the task must be text (a str), not {type(task).__name__}: "
                        "run_agent('What is 2 + 2?', [calculate])")
    if limits is None:
        limits = Limits()
    elif not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, e.g. Limits(max_steps=3), not "
                        f"{type(limits).__name__}" + (": from a dict, Limits(**your_dict)"
                                                      if isinstance(limits, dict) else ""))
    # A key typed into the task or the system prompt never reaches the model or the records.
    task, system_prompt = mask(task), mask(system_prompt)
    client = client or connect(model)
    model = model or client.default_model
    toolbox = Toolbox.of(tools)
    if limits.isolate == "process":  # a tool a fresh process cannot import: say so now
        toolbox.check_importable()
    schemas = toolbox.schemas  # what the model sees, the same at every step
    messages = [{"role": "system", "content": system_prompt}, {"role": "user", "content": task}]
    priced_as = client.priced_as(model)
    run = Run(task=task, model=model, priced_as=str(getattr(priced_as, "model", priced_as)),
              limits=dataclasses.asdict(limits), budget_mode=budget, messages=messages)
    spend = Budget(limits.max_cost_usd, priced_as, budget)
    clock = Deadline(limits.max_seconds)
    repeats = RepeatGuard(limits.max_repeats)
    steps = Steps(run, on_step)
    try:
        for index in range(limits.max_steps):                               # STEP LIMIT
            if stop := time_is_up(clock, limits):                           # TIME LIMIT
                return end(run, clock, stop)
            last = wind_down and last_step(index, limits, spend, clock, run, messages, schemas)
            if last:                                                        # WIND-DOWN (optional)
                messages.append(wind_down_request(last))  # last: the Stop this step will make
                make_room_for_the_answer(spend, messages, schemas, limits, run)
            if stop := budget_before(spend, messages, schemas, limits):     # BUDGET (look ahead)
                return end(run, clock, stop)
            try:                                                            # 1. THINK
                response = client.chat(model=model, messages=messages, tools=schemas,
                                       tool_choice="none" if last else None,
                                       max_tokens=limits.max_output_tokens, timeout=clock.left())
            except Exception as e:  # the API failed, retries included: keep what we have
                return end(run, clock, model_failed(e, clock))
            messages.append(response.message)
            step = steps.paid(index, response, len(messages) - 1, last)
            if stop := budget_after(spend, step, response, messages, schemas, limits):  # BUDGET
                step.reply_unused = True  # paid for; its answer or tool calls go unused
                steps.finished(step)
                return end(run, clock, stop)
            if stop := final_reply(response, last):                         # DONE (or cut off)
                return end(run, clock, shown_last(steps, step, stop))
            for call in response.tool_calls:                                # 2. ACT
                with recorded_if_it_ends_the_run(messages, step, call):
                    outcome = act(toolbox, call, limits, clock, approve, repeats)
                observe(messages, step, call, outcome)                      # 3. OBSERVE
            steps.finished(step)                                            # 4. REPEAT
    except (KeyboardInterrupt, StopRun) as e:
        steps.cut_short()  # the step in progress is paid for: the observers see it too
        return end(run, clock, interrupted(e))
    except BaseException as e:  # noqa: BLE001 - a broken observer, tool or hook: Run kept
        steps.cut_short()
        return end(run, clock, broke(e))
    return end(run, clock, Stop("max_steps", f"the step limit of {limits.max_steps} was reached"))


# --- the step's bookkeeping, in one place ----------------------------------------------------

class Steps:
    """Records each step of a run and tells the on_step observers when one is finished."""

    def __init__(self, run: Run, on_step):
        self.run = run
        self.seen = 0  # how many of the run's steps the observers have been shown
        if on_step is None:
            on_step = []
        self.observers = list(on_step) if isinstance(on_step, (list, tuple)) else [on_step]

    def paid(self, index: int, response, messages_sent: int, last: Stop | None) -> Step:
        """A step is recorded as soon as its model call returns: that call is paid for, and a
        Ctrl-C during the tool calls must not lose it."""
        step = Step(index=index, message=response.message, request_messages=messages_sent,
                    model_seconds=response.latency_s, wind_down=bool(last),
                    prompt_tokens=_count_or_zero(response.usage, "prompt_tokens"),
                    completion_tokens=_count_or_zero(response.usage, "completion_tokens"))
        self.run.steps.append(step)
        return step

    def finished(self, step: Step) -> None:
        step.tool_seconds = sum(c.seconds for c in step.tool_calls)
        self.seen = len(self.run.steps)
        for observe in self.observers:
            try:
                observe(step)
            except (StopRun, KeyboardInterrupt):
                raise
            except BaseException as e:  # noqa: BLE001 - a broken observer stops the run, kept
                raise ObserverFailed(observe, e) from e

    def cut_short(self) -> None:
        """Show the observers a step that Ctrl-C or a Stop ended before it finished: its paid
        model call, the tool calls that ran (print_step says which never did). Once only, and a
        second Ctrl-C here stops only the showing, not the run's return."""
        if self.seen == len(self.run.steps):  # no step in progress
            return
        try:
            self.finished(self.run.steps[-1])  # marks it seen before the observers run
        except (KeyboardInterrupt, StopRun, ObserverFailed):
            pass


def _count_or_zero(usage, field: str) -> int:
    """A reported token count, or 0 for one that is not a count (the budget check that follows
    prices the response as unknown: it stops a run that has a budget, and flags the cost)."""
    try:
        return token_count(usage, field)
    except Unpriceable:
        return 0


# --- the guards: each returns a Stop when the run must end, None when it may go on -------------

def time_is_up(clock: Deadline, limits: Limits) -> Stop | None:
    if clock.expired():
        return Stop("max_seconds", f"{limits.max_seconds:g} s have passed")
    return None


def budget_before(spend: Budget, messages, schemas, limits: Limits) -> Stop | None:
    """The look-ahead: refuse a call that could cross the budget (budget="before" only)."""
    refusal = spend.refuse_call(messages, schemas, limits.max_output_tokens)
    return Stop("max_cost", refusal) if refusal else None


def budget_after(spend: Budget, step: Step, response, messages, schemas,
                 limits: Limits) -> Stop | None:
    """Pay for the call, then check: over budget, or a response that cannot be priced.

    In "after" mode going over is the chapter's expected overshoot. In "before" mode it means
    the API billed more than the look-ahead's bound allowed for: the run stops at once and
    says by how much, rather than report a clean answer over budget.
    """
    try:
        step.cost_usd = spend.charge(response, len(messages) - 1)
    except Unpriceable as e:                                                # fails closed
        step.cost_usd, step.cost_estimated = _worst_case(spend, messages, schemas, limits)
        if limits.max_cost_usd is not None:
            return Stop("max_cost", f"{e}; counted as over budget")
        return None
    overspent = spend.overspent()
    return Stop("max_cost", overspent) if overspent else None


def shown_last(steps: Steps, step: Step, stop: Stop) -> Stop:
    """Show the observers the run's last step; the answer is paid for and kept whatever they do.

    The Stop button or Ctrl-C pressed as the answer came in changes nothing: the run is over.
    A broken observer still stops the run with "error", with the answer kept.
    """
    try:
        steps.finished(step)
    except (StopRun, KeyboardInterrupt):  # pressed while the answer was shown: nothing to stop
        pass
    except ObserverFailed as e:
        return Stop("error", str(e), answer=stop.answer)
    return stop


def final_reply(response, last: Stop | None) -> Stop | None:
    """The run ends with this reply: an answer, a wind-down answer, or a reply cut at the cap."""
    content = response.message.get("content")
    if isinstance(content, list):  # a reply made of text parts: the answer is their text
        content = mask(text_of(content))  # the parts joined: a key split across them, whole
    if response.finish_reason == "length":
        return Stop("truncated", "the reply was cut off at the max-tokens cap "
                    "(Limits.max_output_tokens); its partial text is kept as the answer",
                    answer=content)
    if last:
        return Stop(last.reason, last.detail, answer=content)
    if not response.tool_calls:
        return Stop("answered", answer=content)
    return None


def model_failed(error: Exception, clock: Deadline) -> Stop:
    if clock.expired():  # the call was cut short by the run's time limit, not broken
        return Stop("max_seconds", f"{clock.seconds:g} s passed during a model call "
                    f"({_describe(error)})")
    return Stop("error", f"the model call failed: {_describe(error)}")


def broke(error: BaseException) -> Stop:
    """Any other exception that ends a run: an observer that raised, a tool or an approval hook
    that raised CancelledError or GeneratorExit (EndRun), or one from anywhere else."""
    if isinstance(error, (ObserverFailed, EndRun)):  # they name who raised
        return Stop("error", str(error))
    return Stop("error", f"the run stopped on {exception_text(error)}")


def interrupted(error: BaseException) -> Stop:
    if isinstance(error, StopRun):
        return Stop("interrupted", str(error) or "stopped by an on_step observer")
    return Stop("interrupted", "interrupted by Ctrl-C (KeyboardInterrupt); the steps so far "
                "are kept, with the tool calls that ran in the last one")


# --- acting and observing --------------------------------------------------------------------

_CUT_SHORT_WHY = ("interrupted by Ctrl-C while it was checked or ran: it may have run, and "
                  "may still finish in the background")
CUT_SHORT = Outcome(f'{{"error": "{_CUT_SHORT_WHY}"}}', error=_CUT_SHORT_WHY)


def act(toolbox: Toolbox, call, limits: Limits, clock: Deadline, approve, repeats) -> Outcome:
    """Run one tool call through the toolbox's checks, within what is left of the time limit
    (measured once the checks have passed: a slow approval hook uses up the tool's time)."""
    left = clock.left()
    if left is not None and left <= 0:
        message = "not run: the run's time limit was reached"
        return Outcome(f'{{"error": "{message}"}}', error=message)
    return toolbox.call(call.function.name, call.function.arguments,
                        timeout=limits.tool_timeout, deadline=clock.end(),
                        max_result_chars=limits.max_result_chars, approve=approve,
                        repeat_guard=repeats, isolate=limits.isolate)


@contextlib.contextmanager
def recorded_if_it_ends_the_run(messages: list, step: Step, call):
    """A tool call that ends the run as it runs is still recorded: Ctrl-C (it may have run, so
    never "not run"), or a tool that raised CancelledError or the like (EndRun: how it ended).
    An approval hook that raised leaves its call unrecorded, answered as not run by end()."""
    try:
        yield
    except KeyboardInterrupt:
        observe(messages, step, call, CUT_SHORT)
        raise
    except EndRun as e:
        if e.outcome:
            observe(messages, step, call, e.outcome)
        raise


def observe(messages: list, step: Step, call, outcome: Outcome) -> None:
    """Answer the call in the conversation, and record it in its step."""
    messages.append(observation(call.id, outcome))
    step.tool_calls.append(ToolCall.of(call, outcome))


def observation(call_id: str, outcome: Outcome) -> dict:
    """The tool message that answers one tool call."""
    return {"role": "tool", "tool_call_id": call_id, "content": outcome.content}


# --- the wind-down ---------------------------------------------------------------------------

def last_step(index, limits, spend, clock, run, messages, schemas) -> Stop | None:
    """For the wind-down: if this must be the last step, which limit ends the run and why."""
    if index == limits.max_steps - 1:
        return Stop("max_steps", f"Step limit reached: this is step {index + 1} of "
                    f"{limits.max_steps}")
    if spend.mode == "before" and spend.max_usd is not None:
        try:
            this_call = spend.call_bound(messages, schemas, limits.max_output_tokens)
            answer_call = spend.call_bound(_after_this_step(messages, limits), schemas,
                                           limits.max_output_tokens)
        except Unpriceable:
            return None
        if spend.spent + this_call + answer_call > spend.max_usd:
            return Stop("max_cost", "Budget nearly spent: there is money for one more call only")
    left = clock.left()
    if left is not None and run.steps:
        per_step = sum(s.seconds for s in run.steps) / len(run.steps)
        if left < 2 * per_step:
            return Stop("max_seconds", "Time nearly up: there is time for one more call only")
    return None


WIND_DOWN_RESERVED_RESULTS = 3  # tool results the look-ahead keeps room for after this step


def _after_this_step(messages: list[dict], limits: Limits) -> list[dict]:
    """The conversation as it could stand after this step, for the wind-down's look-ahead: a
    reply as long as the cap allows, a few tool results of the longest size allowed, and the
    wind-down request. The next call is priced on that, not on today's shorter conversation.

    Example: with max_output_tokens=1024, max_result_chars=4000: messages + a 4096-character
             reply + 3 results of 4,060 characters + the wind-down request.
    A step asking for more than 3 calls, or results of any size (max_result_chars=None), can
    still overflow this reserve: make_room_for_the_answer then withholds its newest results.
    """
    reply = {"role": "assistant", "content": "x" * (4 * limits.max_output_tokens)}
    size = (limits.max_result_chars or 4000) + 60  # + the truncation marker
    results = [{"role": "tool", "tool_call_id": "call_reserved", "content": "x" * size}
               for _ in range(WIND_DOWN_RESERVED_RESULTS)]
    request = wind_down_request(Stop("max_cost", "Budget nearly spent"))
    return [*messages, reply, *results, request]


WITHHELD = ('{"error": "result withheld: the budget leaves room only for your final answer; '
            'answer with what you have"}')


def make_room_for_the_answer(spend: Budget, messages, schemas, limits, run: Run) -> None:
    """The wind-down's last resort, for a step whose results came in larger than the look-ahead
    allowed for (more than 3 calls, or max_result_chars=None): withhold the newest results,
    one by one, until the final call fits the budget. The records show what the model saw.

    Only what helps is withheld: a result no longer than the note that replaces it stays, and
    if withholding every longer one still leaves no room, nothing is withheld (the run then
    stops at its budget, its records holding every result that came in).

    Example: 8 results of 4,000 characters and money for 3 -> the newest 5 become WITHHELD.
    """
    def fits() -> bool:
        return spend.refuse_call(messages, schemas, limits.max_output_tokens) is None

    withheld = []  # (message, the result it held)
    for message in reversed(messages):
        if fits():
            break
        if message["role"] == "assistant":  # only this step's results, never older ones
            break
        if message["role"] == "tool" and len(message["content"]) > len(WITHHELD):
            withheld.append((message, message["content"]))
            message["content"] = WITHHELD
    if withheld and not fits():  # no room even so: give the results back
        for message, result in withheld:
            message["content"] = result
        return
    ids = {message["tool_call_id"] for message, _ in withheld}
    for call in run.steps[-1].tool_calls if run.steps and ids else []:
        if call.id in ids:
            call.result, call.error = WITHHELD, "withheld to leave money for the final answer"


def wind_down_request(last: Stop) -> dict:
    return {"role": "user", "content": f"[agentlab] {last.detail}. Do not call tools; answer "
            "now with what you have gathered."}


# --- ending a run ----------------------------------------------------------------------------

def _worst_case(spend: Budget, messages, schemas, limits) -> tuple[float, bool]:
    """A cost for a response that could not be priced: the bound if there is one, flagged."""
    try:
        return spend.call_bound(messages[:-1], schemas, limits.max_output_tokens), True
    except Unpriceable:
        return 0.0, True


def _describe(error: Exception) -> str:
    """An API error as one masked line. The key is masked before the cut at 500 characters."""
    status = getattr(error, "status_code", None)
    text = getattr(error, "message", None) or str(error) or "no details"
    where = "" if status else _where(error)  # no answer came back: say where it was sent
    return mask(f"{type(error).__name__}{f' (HTTP {status})' if status else ''}: {text}"
                f"{where}")[:500]


def _where(error: Exception) -> str:
    """Where a request that got no answer went, so a wrong base URL shows in the stop detail
    (masking.public_url: no password or query). Nothing for the offline tutor: its address is
    a reserved .invalid name that never reaches the network.

    Example: a ConnectError for http://user:pw@127.0.0.1:1/v1/chat/completions?x=1
             -> " (sent to http://127.0.0.1:1/v1/chat/completions)"
    """
    url = getattr(getattr(error, "request", None), "url", None)
    if url is None:
        return ""
    if url.scheme not in ("http", "https"):  # "localhost:11434/v1" reads as scheme localhost
        return " (the base URL must start with http:// or https://)"
    if url.host.endswith(".invalid"):
        return ""
    return f" (sent to {public_url(url)})"


def end(run: Run, clock: Deadline, stop: Stop) -> Run:
    """End the run: record why, and answer any tool call left unanswered in the transcript."""
    answered = {m.get("tool_call_id") for m in run.messages if m.get("role") == "tool"}
    for message in list(run.messages):
        for call in message.get("tool_calls") or []:
            if call["id"] not in answered:
                run.messages.append({"role": "tool", "tool_call_id": call["id"], "content":
                                     f'{{"error": "not run: the run stopped ({stop.reason})"}}'})
    run.stop_reason, run.stop_detail, run.answer = stop.reason, mask(stop.detail), stop.answer
    run.seconds = clock.elapsed()
    return run


__all__ = ["run_agent", "Limits", "Stop", "StopRun", "SYSTEM_PROMPT", "print_step"]
