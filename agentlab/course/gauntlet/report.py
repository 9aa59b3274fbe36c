"""The gauntlet's report: one entry per check, held or broken, with the evidence.

    report.held      ['max_steps', 'budget', ...]   names of the checks that held
    report.broken    ['bad_json', ...]              names of the checks that broke
    report           a table in a notebook (_repr_html_), readable text elsewhere (__repr__)

The summary is the text the grader made when it graded, kept as it was: editing the entries
afterwards changes no verdict in it (held and broken are the grader's too), and a report whose
entries differ from what the grader made says so ("edited after grading"), with the grader's
verdict. Nothing the report offers remakes that record from edited entries; in the notebook's
kernel anything can still be overwritten by hand (the hand-in grades in a fresh process:
handin.py). It names every argument grade() was given beyond the defaults (timeout, only, seed), so
a grade with a longer timeout, fewer checks or a chosen seed never reads as a fresh full one.
"""

from __future__ import annotations

import dataclasses
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
        # Made once, as the grader made the report: what it shows and what it compares with.
        # There is no method to make them again from edited entries.
        self._graded_record = repr(([dataclasses.astuple(e) for e in self.entries], self.seed,
                                    sorted(self.asked.items())))
        self._graded_verdicts = tuple((e.name, bool(e.held)) for e in self.entries)
        self._graded_summary = self._verdict()

    @property
    def edited(self) -> bool:
        """Changed since grading: an entry, its verdict, the seed or the arguments."""
        now = repr(([dataclasses.astuple(e) for e in self.entries], self.seed,
                    sorted(self.asked.items())))
        return now != self._graded_record or self._verdict() != self._graded_summary

    @property
    def held(self) -> list[str]:
        """The checks that held, as graded (an entry edited afterwards changes nothing here)."""
        return [name for name, held in self._graded_verdicts if held]

    @property
    def broken(self) -> list[str]:
        return [name for name, held in self._graded_verdicts if not held]

    def __getitem__(self, name: str) -> Entry:
        for entry in self.entries:
            if entry.name == name:
                return entry
        raise KeyError(name)

    def summary(self) -> str:
        """The grader's verdict, as it was made when the report was graded."""
        if self.edited:
            return ("✗ Edited after grading: this report's entries are not the grader's, whose "
                    f"verdict was: {self._graded_summary}")
        return self._graded_summary

    def _verdict(self) -> str:
        """The summary line of the entries as they are now."""
        n = len(self.entries)
        held = [e.name for e in self.entries if e.held]
        broken = [e.name for e in self.entries if not e.held]
        arguments = self._arguments()
        if len(held) == n:
            return f"✓ All checks held ({n} of {n}){arguments}."
        return f"✗ Not yet: {len(held)} of {n} checks held; broken: {', '.join(broken)}{arguments}."

    def _arguments(self) -> str:
        """How this grade was asked for, as the summary ends: every argument beyond the
        defaults, and the seed either way, told apart: " (seed=5, chosen, timeout=8)" when it
        was given (a grade picked among seeds reads as picked), " (new draws, seed 81342)" when
        grade() drew it (seed=81342 replays them)."""
        said = [f"{key}={value!r}" for key, value in self.asked.items() if key != "seed"]
        if self.seed is not None and "seed" in self.asked:
            said.insert(0, f"seed={self.seed}, chosen")
        elif self.seed is not None:
            said.insert(0, f"new draws, seed {self.seed}")
        return f" ({', '.join(said)})" if said else ""

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
