"""Every limit of a run, in one place: the guardrails of chapter 51, and the ones beyond it.

The loop (loop.py) and the tools' gate (tools.py) call these; each guardrail is one named piece:

    Limits          the numbers: steps, cost, seconds, result size, tool timeout, repeats
    step limit      Limits.max_steps: loop.py's `for index in range(limits.max_steps)`
    time limit      Deadline: the run's wall clock; it bounds each model and tool call too
    budget          Budget: the money spent, and whether the next call may be made
    allowlist       not_on_allowlist(): only the run's own tools are ever run
    tool timeout    run_tool_within(): a tool call waited for at most its seconds, on a watched
                    thread (abandoned if it overruns) or in a process (killed)
    truncation      truncate(): a long result cut, with a marker that says so
    repeat guard    RepeatGuard: the same call asked for too many times in a row is refused
    approval        ask_approval(), Deny: our hook, not the model, decides whether a call runs

Each "no" comes back to the model as an {"error": ...} observation that names the problem
(tools.py), and a limit that ends a run keeps its steps (loop.py): the chapter's other two
guardrails, "errors returned to the model" and printing each step (records.print_step), live
where they happen.

The budget, in one of two modes:
    "before" (the default) bounds each call's worst case *before* sending it (the prompt's
             tokens at the input price + the max-tokens cap at the output price) and refuses a
             call that could cross the budget, so a run never ends over budget;
    "after"  is the chapter's listing: pay, add, then check, so the last call can overshoot.
A model or response that cannot be priced counts as over budget: the budget fails closed.
pricing.py says how prompt tokens are bounded without a tokenizer, and when that bound does
not hold.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import _isolated
from ._text import Unreadable, exception_text, to_text
from ._watched import Overran, run_within
from .pricing import Unpriceable, cost_usd, estimate_cost, whole_prompt

if TYPE_CHECKING:  # tools.py imports this module: the name only, for the type hint
    from .tools import Outcome

ISOLATION = ("thread", "process")  # how a tool runs: run_tool_within() below

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
    isolate: str = "thread"             # tools run on a thread, or "process": killed on time

    def __post_init__(self):
        _check_limit("max_steps", self.max_steps, int, optional=False)
        _check_limit("max_cost_usd", self.max_cost_usd, (int, float))
        _check_limit("max_seconds", self.max_seconds, (int, float))
        _check_limit("max_result_chars", self.max_result_chars, int)
        _check_limit("tool_timeout", self.tool_timeout, (int, float))
        _check_limit("max_repeats", self.max_repeats, int)
        _check_limit("max_output_tokens", self.max_output_tokens, int, optional=False)
        if self.isolate not in ISOLATION:
            raise ValueError(f"Limits.isolate must be one of {ISOLATION}, not {self.isolate!r}")


def _check_limit(name: str, value, kind, optional: bool = True) -> None:
    """A limit is a positive, finite number (or None where it can be switched off).

    NaN is refused explicitly: every comparison with NaN is False, so a NaN limit would
    silently switch its guardrail off. Infinity is refused too: None says "no limit".
    """
    if value is None and optional:
        return
    if (not isinstance(value, kind) or isinstance(value, bool) or not math.isfinite(value)
            or value <= 0):
        raise ValueError(f"Limits.{name} must be a positive number{' or None' if optional else ''}"
                         f", not {value!r}" + (" (use None for no limit)" if optional else ""))


# --- the time limit --------------------------------------------------------------------------

class Deadline:
    """The run's wall clock."""

    def __init__(self, seconds: float | None):
        self.start, self.seconds = time.perf_counter(), seconds

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float | None:
        return None if self.seconds is None else self.seconds - self.elapsed()

    def end(self) -> float | None:
        """When the run must end, as a time.perf_counter() value (None: no time limit)."""
        return None if self.seconds is None else self.start + self.seconds

    def expired(self) -> bool:
        return self.seconds is not None and self.elapsed() >= self.seconds


# --- the budget ------------------------------------------------------------------------------

PER_MESSAGE_TOKENS = 8  # role and separators; generous, since this is an upper bound


def _bytes(item) -> int:
    return len(json.dumps(item, ensure_ascii=False, default=str).encode())


class Budget:
    """Money spent in one run, and whether the next call may be made."""

    MODES = ("before", "after")

    def __init__(self, max_usd: float | None, priced_as, mode: str = "before"):
        if mode not in self.MODES:
            raise ValueError(f"budget mode must be one of {self.MODES}, not {mode!r}")
        self.max_usd, self.mode, self.priced_as = max_usd, mode, priced_as
        self.spent = 0.0
        self.allowed = math.inf     # the last call's bound, from the look-ahead
        self.last_cost = 0.0        # what the last call cost
        self._known_tokens = 0      # the last call's whole prompt, as its usage reported it
        self._known_messages = 0    # how many messages that prompt held

    @property
    def left(self) -> float:
        return math.inf if self.max_usd is None else self.max_usd - self.spent

    def prompt_bound(self, messages: list[dict], tools: list[dict] | None) -> int:
        """An upper bound on the next call's prompt tokens.

        Example: the last call reported 85 prompt tokens (+ 0 cached); one 40-byte message
                 added since -> 85 + (40 + 8) + 8 = 141
        """
        if self._known_messages == 0:
            base = _bytes(tools) if tools else 0
        else:
            base = self._known_tokens
        new = messages[self._known_messages:]
        return base + sum(_bytes(m) + PER_MESSAGE_TOKENS for m in new) + PER_MESSAGE_TOKENS

    def call_bound(self, messages, tools, max_output_tokens: int) -> float:
        """The most the next call can cost: bounded prompt at input price + cap at output price."""
        return cost_usd(self.priced_as, self.prompt_bound(messages, tools), max_output_tokens)

    def refuse_call(self, messages, tools, max_output_tokens: int) -> str | None:
        """In "before" mode: why the next call may not be made, or None if it may.

        A spend exactly equal to the budget is within it: only going over is refused.
        """
        if self.mode != "before" or self.max_usd is None:
            return None
        try:
            bound = self.call_bound(messages, tools, max_output_tokens)
        except Unpriceable as e:
            return f"cannot price the next call, so it counts as over budget: {e}"
        if self.spent + bound > self.max_usd:
            return (f"the next call could cost up to ${bound:.6f} and only ${self.left:.6f} of "
                    f"the ${self.max_usd:.6f} budget is left")
        self.allowed = bound
        return None

    def charge(self, response, messages_sent: int) -> float:
        """Add what a response cost; raises Unpriceable if it cannot be priced."""
        cost = estimate_cost(response)
        known = whole_prompt(response.usage)  # before any change: it may raise Unpriceable
        self.spent += cost
        self.last_cost = cost
        self._known_tokens, self._known_messages = known, messages_sent
        return cost

    def overspent(self) -> str | None:
        """Why the run must stop now that it has paid, or None while it is within the budget.

        In "after" mode (the chapter's) going over is the expected overshoot of the last call.
        In "before" mode it can only mean the API billed more than the look-ahead's bound
        allowed for (a usage report that breaks the token rules); the detail says so.
        """
        if self.max_usd is None or self.spent <= self.max_usd:
            return None
        detail = (f"spent ${self.spent:.6f}, over the ${self.max_usd:.6f} budget by "
                  f"${self.spent - self.max_usd:.6f}")
        if self.mode == "before":
            detail += (f": the API billed ${self.last_cost:.6f} for the last call, more than the "
                       f"${self.allowed:.6f} the look-ahead allowed for")
        return detail


# --- the allowlist ---------------------------------------------------------------------------

def not_on_allowlist(name: str, allowed) -> str | None:
    """Why a tool call may not run because its name is not one of the run's tools, or None.

    Only a tool the run was given is ever called: never one found by name elsewhere (globals(),
    a module), however plausible the name the model made up.
    Example: not_on_allowlist("search_web", ["calculate", "get_time"])
             -> "unknown tool 'search_web'; the tools you can use are: calculate, get_time"
    """
    if name in allowed:
        return None
    return f"unknown tool {name!r}; the tools you can use are: {', '.join(allowed) or 'none'}"


# --- the tool timeout ------------------------------------------------------------------------

def run_tool_within(tool, arguments: dict, timeout: float | None, isolate: str,
                    observe: Callable[[str], tuple[str, int]],
                    deadline: float | None = None) -> tuple[str, int]:
    """Run one tool call and observe its result (observe: its text -> (what the model reads,
    characters cut)), all within `timeout` seconds (None: no limit).

    isolate="thread":  on a watched thread (_watched.py); if it overruns it is abandoned (Python
                       cannot kill a thread) and whatever it returns later is dropped.
    isolate="process": in a fresh process (_isolated.py), killed if it overruns; the child
                       turns the result into text, so only the observing happens here.
                       Its timeout counts from when the child is ready to call the tool.
    deadline: the run's end (a time.perf_counter() value); `timeout` already stops at it,
                       and a process's start, which its timeout does not count, stops there too.
    Raises Overran if it did not finish in time, Unreadable if its result cannot be read as
    text, and whatever the tool raised.
    """
    if isolate == "process":  # the wait for a process is not held up by the tool's GIL
        return observe(_isolated.call(tool, arguments, timeout, deadline))

    def run_and_observe():
        result = tool.function(**arguments)
        try:
            text = to_text(result)
        except Exception as e:
            raise Unreadable(e) from e
        return observe(text)
    return run_within(run_and_observe, timeout, name="agentlab-tool")


def overran(name: str, timeout: float, isolate: str, error: Overran) -> str:
    """The error the model reads for a tool call that overran its timeout.

    Example: overran("slow", 0.5, "thread", Overran()) -> "slow did not finish within 0.5 s and
             was abandoned"
    """
    late = ("" if error.took is None else f" (it finished after {error.took:.2f} s, too late: "
            "its result was dropped)")
    fate = "stopped (its process killed)" if isolate == "process" else "abandoned"
    return f"{name} did not finish within {timeout:g} s and was {fate}{late}"


# --- truncation ------------------------------------------------------------------------------

def truncate(text: str, max_chars: int | None) -> tuple[str, int]:
    """Cut text to max_chars, ending with a visible marker; return it and how much was cut.

    Example: truncate("abcdef", 4) -> ("abcd\\n...[truncated: 2 of 6 characters cut]", 2)
             truncate("abcd", 4)   -> ("abcd", 0)
    Mask secrets before cutting (masking.mask): a cut can leave a key's prefix behind.
    """
    if max_chars is None or len(text) <= max_chars:
        return text, 0
    cut = len(text) - max_chars
    return text[:max_chars] + f"\n...[truncated: {cut:,} of {len(text):,} characters cut]", cut


# --- the repeat guard ------------------------------------------------------------------------

class RepeatGuard:
    """Refuses the same tool with the same arguments asked for too many times in a row."""

    def __init__(self, max_repeats: int | None):
        self.max_repeats = max_repeats
        self.last_call: tuple[str, str] | None = None
        self.count = 0

    def check(self, name: str, arguments: dict) -> str | None:
        key = (name, json.dumps(arguments, sort_keys=True))
        self.count = self.count + 1 if key == self.last_call else 1
        self.last_call = key
        if self.max_repeats is not None and self.count > self.max_repeats:
            return (f"repeat guard: {name} with these arguments was already called "
                    f"{self.count - 1} times in a row and was not run again; the result will "
                    "not change. Use the earlier result, try something else, or answer.")
        return None


# --- approval --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Deny:
    """Returned by an approval hook to refuse a call; the reason goes back to the model."""

    reason: str = "denied by the approval hook"


def ask_approval(approve, name: str, arguments: dict) -> str | None:
    """Ask the hook; return None to allow, or the reason for a denial.

    Fails closed: only True allows. A hook that raises, or returns anything else (False, None
    from a forgotten `return`, a Deny, a reason as text), refuses the call.
    """
    if approve is None:
        return None
    try:
        verdict = approve(name, arguments)
    except Exception as e:  # a broken hook must not let the call through
        return f"the approval hook failed ({type(e).__name__}: {e}), so the call was not run"
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # sys.exit, CancelledError: the hook asks for everything to stop
        raise EndRun(f"the approval hook raised {exception_text(e)} for {name}, which was not "
                     "run; the run stopped there, with its steps kept") from e
    if verdict is True:
        return None
    if verdict is None:  # a hook that forgot a `return` must not let the call through
        return ("the approval hook returned None, so the call was not run (a hook returns "
                "True to allow a call)")
    if isinstance(verdict, Deny):
        return verdict.reason
    if isinstance(verdict, str):
        return verdict
    return "denied by the approval hook"


class EndRun(Exception):
    """A tool or an approval hook raised a BaseException that is not an error to report to the
    model (asyncio.CancelledError, GeneratorExit, a framework's own, sys.exit in a hook): such
    an exception asks for everything to stop, so the run ends with "error", its steps kept.

    outcome: what to record for the call (None: the loop records nothing for it; the call goes
    down as not run).
    """

    def __init__(self, message: str, outcome: Outcome | None = None):
        super().__init__(message)
        self.outcome = outcome
