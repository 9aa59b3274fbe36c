"""Measuring runs: run a set of tasks under a range of limits and count what succeeded.

    results = sweep(COURSE_TASKS, "max_steps", [1, 2, 3, 4, 5])
    success_rates(results)            # {1: 0.0, 2: 0.6, ...}

A run succeeds when it answered and its answer contains the task's expected text. Everything
is measured on the offline tutor by default, so the numbers are the same on every machine.

Left out on purpose: statistics over repeated noisy runs (the tutor is deterministic; with a
real model, run each point several times and report the spread).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .loop import Limits, run_agent
from .records import Run
from .toolkit import COURSE_TOOLS


@dataclasses.dataclass(frozen=True)
class Task:
    """A task and a piece of text its correct answer must contain."""

    text: str
    expect: str

    def solved_by(self, run: Run) -> bool:
        return run.stop_reason == "answered" and self.expect.lower() in (run.answer or "").lower()


COURSE_TASKS = [
    Task("What time is it, and what is 17 * 23 + sqrt(144)?", "403"),
    Task("What's the weather in Paris, and should I take a coat?", "take a coat"),
    Task("What is the capital of Kenya?", "Nairobi"),
    Task("Is it warmer in the capital of Japan or the capital of France?", "Tokyo is the warmest"),
    Task("What's the weather in the capital of Peru, in Fahrenheit?", "66.2 °F"),
]


@dataclasses.dataclass
class Result:
    """One task run at one setting."""

    setting: object
    task: Task
    run: Run

    @property
    def solved(self) -> bool:
        return self.task.solved_by(self.run)


def sweep(tasks: Sequence[Task], limit: str, values: Sequence, *, base: Limits | None = None,
          tools=COURSE_TOOLS, client=None, model: str | None = None, progress: bool = False,
          **run_options) -> list[Result]:
    """Run every task at every value of one limit (e.g. "max_steps" or "max_cost_usd").

    progress=True shows an ipywidgets progress bar (in a notebook). Other keyword arguments go
    to run_agent (e.g. budget="after").
    """
    base = base or Limits()
    if limit not in {f.name for f in dataclasses.fields(Limits)}:
        raise ValueError(f"{limit!r} is not a limit; choose one of "
                         f"{', '.join(f.name for f in dataclasses.fields(Limits))}")
    bar = _progress_bar(len(tasks) * len(values), f"sweeping {limit}") if progress else None
    results = []
    for value in values:
        limits = dataclasses.replace(base, **{limit: value})
        for task in tasks:
            run = run_agent(task.text, tools, client=client, model=model, limits=limits, **run_options)
            results.append(Result(value, task, run))
            if bar is not None:
                bar.value += 1
    if bar is not None:
        bar.description = "done"
    return results


def success_rates(results: Sequence[Result]) -> dict:
    """The share of tasks solved at each setting, in the order the settings were swept."""
    rates: dict = {}
    for r in results:
        solved, total = rates.get(r.setting, (0, 0))
        rates[r.setting] = (solved + r.solved, total + 1)
    return {setting: solved / total for setting, (solved, total) in rates.items()}


def _progress_bar(total: int, label: str):
    import ipywidgets
    from IPython.display import display

    bar = ipywidgets.IntProgress(value=0, min=0, max=total, description=label,
                                 style={"description_width": "initial"})
    display(bar)
    return bar
