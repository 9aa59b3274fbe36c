"""What happened in a run: a Step per model call, a ToolCall per requested call, and the Run.

Records are plain dataclasses: JSON out (`to_json`) and back in (`Run.from_json`) unchanged, a
table in notebooks (`_repr_html_`), and a short text summary (`summary()`). Every figure in
them is measured (seconds) or reported by the API (tokens) and priced from those tokens; a
cost that had to be estimated says so (`cost_estimated`).

No secret goes in: keys are masked where text enters the package (masking.py), before it
reaches a record; `redact` (the same function) masks once more whatever is printed.
"""

from __future__ import annotations

import dataclasses
import html
import json
from typing import Any

from .masking import mask as redact

# Why a run ended. "truncated": the model's reply was cut at the max-tokens cap (its partial
# text is kept as the answer); "interrupted": Ctrl-C, or a Stop from the playground.
STOP_REASONS = ("answered", "max_steps", "max_cost", "max_seconds", "truncated", "interrupted",
                "error")


@dataclasses.dataclass
class ToolCall:
    """One tool call the model asked for, and what our code did with it."""

    id: str
    name: str
    arguments: str                   # exactly as the model sent them (may be broken JSON)
    result: str                      # the text sent back to the model
    error: str | None = None         # why the call failed or was refused, if it was
    truncated_chars: int = 0         # how much of the result was cut
    denied: str | None = None        # the approval hook's reason, if it refused the call
    seconds: float = 0.0

    @classmethod
    def of(cls, call, outcome) -> ToolCall:
        """The record of one SDK tool call and its tools.Outcome."""
        return cls(id=call.id, name=call.function.name, arguments=call.function.arguments,
                   result=outcome.content, error=outcome.error,
                   truncated_chars=outcome.truncated_chars, denied=outcome.denied,
                   seconds=outcome.seconds)


@dataclasses.dataclass
class Step:
    """One THINK (a model call) and the ACT/OBSERVE that followed it."""

    index: int
    message: dict                    # the assistant message, as appended to the conversation
    tool_calls: list[ToolCall] = dataclasses.field(default_factory=list)
    request_messages: int = 0        # how many messages were sent
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_estimated: bool = False     # True if the cost is a bound, not priced from usage
    model_seconds: float = 0.0       # the model call's latency
    tool_seconds: float = 0.0
    wind_down: bool = False          # the last call, made with tool_choice="none"
    reply_unused: bool = False       # paid for, then the run stopped before using the reply
                                     # (the budget, checked once the call's cost is known)

    @property
    def seconds(self) -> float:
        return self.model_seconds + self.tool_seconds

    @property
    def answer(self) -> str | None:
        """The model's reply text, if this step answered (asked for no tool)."""
        asked = self.tool_calls or self.message.get("tool_calls")
        content = self.message.get("content")
        if asked or self.reply_unused or content is None:
            return None
        return text_of(content)  # a reply made of text parts: their text

    @property
    def calls_not_run(self) -> list[str]:
        """The tools the model asked for in this step that never ran, because the run stopped
        first (a budget checked after paying, a Ctrl-C between two tool calls).

        Example: asked for get_time and calculate, stopped before either -> ["get_time",
        "calculate"]
        """
        asked = self.message.get("tool_calls") or []
        return [(c.get("function") or {}).get("name", "?") for c in asked[len(self.tool_calls):]]


@dataclasses.dataclass
class Run:
    """A whole run: the task, the limits it ran under, every step, and how it ended."""

    task: str
    model: str
    priced_as: str
    limits: dict
    steps: list[Step] = dataclasses.field(default_factory=list)
    answer: str | None = None
    stop_reason: str = "answered"
    stop_detail: str = ""
    budget_mode: str = "before"
    seconds: float = 0.0
    messages: list[dict] = dataclasses.field(default_factory=list)

    # --- totals, derived from the steps so they can never disagree with them
    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.steps)

    @property
    def cost_usd(self) -> float:
        return sum(s.cost_usd for s in self.steps)

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for s in self.steps for c in s.tool_calls]

    @property
    def ok(self) -> bool:
        return self.stop_reason == "answered"

    # --- JSON
    def to_dict(self) -> dict:
        """All fields, plus the derived totals (for readers of the JSON; ignored on load)."""
        return {**dataclasses.asdict(self), "totals": {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd, "tool_calls": len(self.tool_calls)}}

    def to_json(self, indent: int | None = None) -> str:
        # masked again on the way out, like everything printed: a Run made by hand or loaded
        # from a file did not pass through the masking where text enters the package
        return redact(json.dumps(self.to_dict(), indent=indent, ensure_ascii=False))

    @classmethod
    def from_dict(cls, data: dict) -> Run:
        data = dict(data)
        data.pop("totals", None)
        data["steps"] = [Step(**{**s, "tool_calls": [ToolCall(**c) for c in s["tool_calls"]]})
                         for s in data.get("steps", [])]
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> Run:
        return cls.from_dict(json.loads(text))

    # --- display
    def summary(self) -> str:
        """One line: how it ended, steps, tool calls, tokens, cost."""
        ending = "answered" if self.ok else f"stopped: {self.stop_reason}"
        estimated = " (includes an estimate)" if any(s.cost_estimated for s in self.steps) else ""
        return (f"{ending} after {len(self.steps)} step{'s' * (len(self.steps) != 1)}, "
                f"{len(self.tool_calls)} tool call{'s' * (len(self.tool_calls) != 1)}, "
                f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, "
                f"${self.cost_usd:.6f}{estimated} as {self.priced_as}")

    def __repr__(self):
        answer = _cut(text_of(self.answer), 60)
        return redact(f"<Run {self.model}: {self.summary()}; answer: {answer!r}>")

    def _repr_html_(self) -> str:
        e = html.escape
        rows = []
        for s in self.steps:
            if s.tool_calls:  # each text masked before its cut, so no prefix of a key is left
                what = "<br>".join(
                    f"<code>{e(c.name)}({e(redact(c.arguments)[:80])})</code> &rarr; "
                    f"{'<b>error</b>: ' + e(redact(c.error)[:120]) if c.error else ''}"
                    f"{e(redact(c.result)[:120]) if not c.error else ''}"
                    f"{f' <i>(cut {c.truncated_chars:,} chars)</i>' if c.truncated_chars else ''}"
                    for c in s.tool_calls)
            elif s.reply_unused and not s.calls_not_run:
                what = ("<b>reply not used</b> <i>(the run stopped first)</i>: "
                        + e(_cut(redact(text_of(s.message.get("content"))), 200)))
            else:
                reply = redact(text_of(s.message.get("content")))
                what = "<b>answer</b>: " + e(_cut(reply, 200))
            if s.calls_not_run:
                what = (what + "<br>" if s.tool_calls else "") + (
                    f"<b>asked for</b> {e(', '.join(s.calls_not_run))} "
                    "<i>(not run: the run stopped first)</i>")
            cost = f"${s.cost_usd:.6f}{' (est.)' if s.cost_estimated else ''}"
            rows.append(f"<tr><td>{s.index}{' (wind-down)' if s.wind_down else ''}</td>"
                        f"<td style='text-align:left'>{what}</td><td>{s.prompt_tokens:,}</td>"
                        f"<td>{s.completion_tokens:,}</td><td>{cost}</td></tr>")
        head = ("<tr><th>step</th><th>model asked / answered &rarr; our code observed</th>"
                "<th>prompt tok</th><th>completion tok</th><th>cost</th></tr>")
        detail = f" ({e(self.stop_detail)})" if self.stop_detail else ""
        return redact(f"<div><p><b>{e(self.task)}</b><br>{e(self.summary())}{detail}</p>"
                      f"<table>{head}{''.join(rows)}</table>"
                      f"<p><b>Answer:</b> {e(text_of(self.answer) or '(none)')}</p></div>")


def text_of(content) -> str:
    """A message's content as text, whatever shape the API gave it.

    Example: "Paris" -> "Paris"; None -> ""
             [{"type": "text", "text": "Par"}, {"type": "text", "text": "is"}] -> "Paris"
    Parts that are not text (an image, a refusal) are left out; anything else becomes str().
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part["text"] for part in content
                       if isinstance(part, dict) and isinstance(part.get("text"), str))
    return str(content)


def _cut(text: str, limit: int) -> str:
    """Example: _cut("abcdef", 4) -> "abcd..."; _cut("abc", 4) -> "abc" """
    return text if len(text) <= limit else text[:limit] + "..."


def format_step(step: Step) -> str:
    """The step log line(s) printed while a run goes (the chapter's observability print)."""
    lines = []
    for c in step.tool_calls:
        outcome = redact(f"error: {c.error}" if c.error else c.result)  # masked, then cut
        lines.append(f"  step {step.index}: calling {c.name}({c.arguments}) -> "
                     f"{_cut(outcome, 100)}")
    if step.calls_not_run:  # the model asked, but the run stopped before these ran
        lines.append(f"  step {step.index}: asked for {', '.join(step.calls_not_run)} "
                     "(not run: the run stopped first)")
    if not lines:
        kind = "wind-down answer" if step.wind_down else "answer"
        if step.reply_unused:  # paid for, but the run stopped before returning it
            kind = "reply not used (the run stopped first)"
        reply = redact(text_of(step.message.get("content")))
        lines.append(f"  step {step.index}: {kind}: {_cut(reply, 100)}")
    return redact("\n".join(lines))


def print_step(step: Step) -> None:
    """An on_step observer that prints each step as it finishes."""
    print(format_step(step), flush=True)  # format_step masks its text


def as_plain(value: Any) -> Any:
    """A JSON-safe copy (SDK objects become dicts)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    if isinstance(value, dict):
        return {k: as_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_plain(v) for v in value]
    return value
