"""The gauntlet's report: one entry per check, held or broken, with the evidence.

    report.held      ['max_steps', 'budget', ...]   names of the checks that held
    report.broken    ['bad_json', ...]              names of the checks that broke
    report           a table in a notebook (_repr_html_), readable text elsewhere (__repr__)

The summary comes from what the grader recorded: a report whose entries are changed after
grading says so in its summary ("edited after grading"), instead of showing the edit as a
pass. It names every argument grade() was given beyond the defaults (timeout, only, seed), so
a grade with a longer timeout or fewer checks never reads as the full one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import html


@dataclasses.dataclass
class Entry:
    """One check's verdict and its evidence."""

    name: str
    held: bool
    expect: str          # what the check demands
    model: str           # what the model did
    loop: str            # what the loop did
    cost_usd: float      # what the run cost, by the responses' reported usage
    calls: int           # model calls the loop made
    hint: str = ""       # for a broken check: what to change
    chapter: bool = True  # one of the chapter's guardrails (False: beyond the chapter)

    @property
    def status(self) -> str:
        return "✓ held" if self.held else "✗ broken"

    @property
    def cost(self) -> str:
        return f"${self.cost_usd:.6f} over {self.calls} model call{'s' * (self.calls != 1)}"


@dataclasses.dataclass
class Report:
    entries: list[Entry]
    seed: int | None = None  # grade(run_agent, seed=...) draws this grade's checks again
    asked: dict = dataclasses.field(default_factory=dict)  # grade()'s arguments, not defaults

    def __post_init__(self):
        self._as_graded = self._fingerprint()

    def _fingerprint(self) -> str:
        """A digest of every entry and argument, as the grader made them."""
        made = repr([dataclasses.astuple(e) for e in self.entries]) + repr(
            (self.seed, sorted(self.asked.items())))
        return hashlib.sha256(made.encode()).hexdigest()

    @property
    def edited(self) -> bool:
        """Changed since grading: an entry, its verdict, the seed or the arguments."""
        return self._fingerprint() != self._as_graded

    @property
    def held(self) -> list[str]:
        return [e.name for e in self.entries if e.held]

    @property
    def broken(self) -> list[str]:
        return [e.name for e in self.entries if not e.held]

    def __getitem__(self, name: str) -> Entry:
        for entry in self.entries:
            if entry.name == name:
                return entry
        raise KeyError(name)

    def summary(self) -> str:
        if self.edited:
            return ("✗ Edited after grading: this report's entries are not the grader's. "
                    "Grade again for a verdict.")
        n, k = len(self.entries), len(self.held)
        given = "".join(f", {key}={value!r}" for key, value in self.asked.items()
                        if key != "seed")
        seed = f" (seed {self.seed}{given})" if self.seed is not None else (
            f" ({given[2:]})" if given else "")
        if k == n:
            return f"✓ All checks held ({n} of {n}){seed}."
        return f"✗ Not yet: {k} of {n} checks held; broken: {', '.join(self.broken)}{seed}."

    def __repr__(self):
        lines = [self.summary(), ""]
        for e in self.entries:
            where = "" if e.chapter else " (beyond the chapter)"
            lines.append(f"{e.status:9} {e.name}{where}")
            lines.append(f"    expect: {e.expect}")
            lines.append(f"    model:  {e.model}")
            lines.append(f"    loop:   {e.loop}")
            lines.append(f"    cost:   {e.cost}")
            if e.hint and not e.held:
                lines.append(f"    hint:   {e.hint}")
        return "\n".join(lines)

    def _repr_html_(self):
        rows = []
        for e in self.entries:
            colour = "#1a7f37" if e.held else "#cf222e"
            hint = f"<br><b>Hint:</b> {html.escape(e.hint)}" if e.hint and not e.held else ""
            where = "" if e.chapter else "<br><small>beyond the chapter</small>"
            rows.append(
                f"<tr><td><code>{e.name}</code>{where}</td><td>{html.escape(e.expect)}</td>"
                f"<td>{html.escape(e.model)}</td><td>{html.escape(e.loop)}{hint}</td>"
                f"<td>{html.escape(e.cost)}</td>"
                f"<td style='color:{colour};white-space:nowrap'><b>{e.status}</b></td></tr>")
        head = "".join(f"<th style='text-align:left'>{h}</th>" for h in
                       ("Check", "Expect", "The model", "Your loop", "Cost", "Status"))
        return (f"<p><b>{html.escape(self.summary())}</b></p><table><thead><tr>{head}</tr>"
                f"</thead><tbody>{''.join(rows)}</tbody></table>")
