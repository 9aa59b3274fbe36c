"""Measuring runs: run a set of tasks under a range of limits, or many times, and count successes.

    results = sweep(MEASURE_TASKS, "max_steps", [1, 2, 3, 4, 5])
    success_rates(results)            # {1: 0.0, 2: 0.36, ...}

    trials = repeat(MEASURE_TASKS, times=5, temperature=0.8)   # seeds 0..4
    spread(success_rates(trials))     # mean, lowest and highest success rate over the trials

A run succeeds when it answered and the answer's *value* is right: for a task with a number,
the last number in the answer must equal it (so "= 403." and "is 403 in all" both pass, and a
fluent answer with the wrong number fails). Wording is not judged.

Repeated trials use the tutor's seeded variance: each trial sends temperature and a different
seed with every request, as you would to a real model. The same seed gives the same run.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import statistics
from collections.abc import Sequence

from agentlab.loop import Limits, run_agent
from agentlab.models import connect
from agentlab.records import Run
from agentlab.toolkit import COURSE_TOOLS

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def last_number(text: str | None) -> float | None:
    """The last number written in a text, or None.

    Example: last_number("It's 19 °C in Lima. That is 66.2 °F.") == 66.2
    """
    found = NUMBER.findall(text or "")
    if not found:
        return None
    try:
        return float(found[-1].replace(",", ""))
    except ValueError:
        return None


@dataclasses.dataclass(frozen=True)
class Task:
    """A task and its right answer: a number (`value`) or, failing that, a text it must contain."""

    text: str
    expect: str
    value: float | None = None

    def solved_by(self, run: Run) -> bool:
        if run.stop_reason != "answered":
            return False
        if self.value is not None:
            got = last_number(run.answer)
            return got is not None and math.isclose(got, self.value, rel_tol=1e-9, abs_tol=1e-9)
        return self.expect.lower() in (run.answer or "").lower()


# The five questions the playground offers (notebook 05).
COURSE_TASKS = [
    Task("What time is it, and what is 17 * 23 + sqrt(144)?", "403", 403),
    Task("What's the weather in Paris, and should I take a coat?", "take a coat"),
    Task("What is the capital of Kenya?", "Nairobi"),
    Task("Is it warmer in the capital of Japan or the capital of France?", "15 °C", 15),
    Task("What's the weather in the capital of Peru, in Fahrenheit?", "66.2 °F", 66.2),
]


def _task(text: str, value: float) -> Task:
    return Task(text, f"{value:g}", value)


# A task set for measuring (notebook 06): fourteen tasks, each judged by a number.
MEASURE_TASKS = [
    _task("What is 17 * 23 + sqrt(144)?", 403),
    _task("What is 2**10 - 24?", 1000),
    _task("What is (15 + 27) * 3?", 126),
    _task("What is 100 / 8?", 12.5),
    _task("What is sqrt(2025) / 5?", 9),
    _task("What's the weather in Oslo, in Fahrenheit?", 26.6),
    _task("What's the weather in Cairo, in Fahrenheit?", 75.2),
    _task("What's the weather in Sydney, in Fahrenheit?", 78.8),
    _task("How warm is it in Rome, in Fahrenheit?", 55.4),
    _task("What's the weather in the capital of Peru, in Fahrenheit?", 66.2),
    _task("What's the weather in the capital of Kenya, in Fahrenheit?", 71.6),
    _task("What's the weather in the capital of Japan, in Fahrenheit?", 59),
    _task("Is it warmer in the capital of Japan or the capital of France? How warm?", 15),
    _task("Is it warmer in Oslo or in Lima? How warm?", 19),
]


class SweepStopped(RuntimeError):
    """A run could not reach its model (a wrong address, a bad key, a model that does not
    exist): every other run would fail the same way, so the sweep stops at once. `results`
    holds the runs made so far."""

    def __init__(self, run: Run, done: int, total: int, results: list):
        super().__init__(f"run {done} of {total} could not reach the model: "
                         f"{run.stop_detail.rstrip('.')}. The sweep stopped there, as every "
                         "run would fail the same way (check the model's name, address and "
                         "key, or unset them for the offline tutor); the runs made so far are "
                         "in this error's .results")
        self.results = results


# The openai SDK's errors that no other task or setting would escape. Any other failure (a
# context too long for one task, a server hiccup) is that run's own, counted as unsolved.
UNREACHABLE = ("APIConnectionError", "AuthenticationError", "PermissionDeniedError",
               "NotFoundError")


def _stop_if_the_model_failed(run: Run, results: list, total: int) -> None:
    detail = run.stop_detail or ""
    if run.stop_reason == "error" and detail.startswith(
            tuple(f"the model call failed: {name}" for name in UNREACHABLE)):
        raise SweepStopped(run, len(results), total, results)


@dataclasses.dataclass
class Result:
    """One task run at one setting (a limit's value, or a trial's seed)."""

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

    progress=True prints a progress line before the first run and at each quarter of the runs.
    Other keyword arguments go to run_agent (e.g. budget="after").
    """
    base = base or Limits()
    if limit not in {f.name for f in dataclasses.fields(Limits)}:
        raise ValueError(f"{limit!r} is not a limit; choose one of "
                         f"{', '.join(f.name for f in dataclasses.fields(Limits))}")
    bar = TextProgress(len(tasks) * len(values), f"sweeping {limit}") if progress else None
    results = []
    for value in values:
        limits = dataclasses.replace(base, **{limit: value})
        for task in tasks:
            run = run_agent(task.text, tools, client=client, model=model, limits=limits,
                            **run_options)
            results.append(Result(value, task, run))
            _stop_if_the_model_failed(run, results, len(tasks) * len(values))
            if bar is not None:
                bar.advance()
    return results


def seeded_client(model: str = "tutor", *, temperature: float = 0.8, seed: int = 0, **options):
    """An offline client whose every request carries `temperature` and `seed`.

    run_agent's client.chat sends neither, so the transport adds them to each request's body,
    exactly where a real API would read them.
    """
    from agentlab.server import handle, make_transport

    def with_sampling(method: str, path: str, body: bytes):
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            request = None
        if isinstance(request, dict) and path.rstrip("/").endswith("chat/completions"):
            request.setdefault("temperature", temperature)
            request.setdefault("seed", seed)
            body = json.dumps(request).encode()
        return handle(method, path, body)

    return connect(model, transport=make_transport(with_sampling), **options)


def repeat(tasks: Sequence[Task], times: int, *, temperature: float = 0.8, model: str = "tutor",
           limits: Limits | None = None, tools=COURSE_TOOLS, progress: bool = False,
           **run_options) -> list[Result]:
    """Run every task `times` times, trial k with seed k; a Result's setting is its seed."""
    bar = TextProgress(len(tasks) * times, f"{times} trials") if progress else None
    results = []
    for seed in range(times):
        client = seeded_client(model, temperature=temperature, seed=seed)
        for task in tasks:
            run = run_agent(task.text, tools, client=client, limits=limits, **run_options)
            results.append(Result(seed, task, run))
            _stop_if_the_model_failed(run, results, len(tasks) * times)
            if bar is not None:
                bar.advance()
    return results


def success_rates(results: Sequence[Result]) -> dict:
    """The share of tasks solved at each setting, in the order the settings were swept."""
    rates: dict = {}
    for r in results:
        solved, total = rates.get(r.setting, (0, 0))
        rates[r.setting] = (solved + r.solved, total + 1)
    return {setting: solved / total for setting, (solved, total) in rates.items()}


def spread(rates: dict) -> dict:
    """Mean, standard deviation, lowest and highest of a set of success rates.

    Example: spread({0: 0.5, 1: 1.0}) == {"mean": 0.75, "stdev": 0.354, "low": 0.5, "high": 1.0}
    """
    values = list(rates.values())
    if not values:
        raise ValueError("spread needs at least one success rate: pass success_rates(results) "
                         "of a sweep or of repeat() that made some runs")
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"mean": statistics.fmean(values), "stdev": round(stdev, 3), "low": min(values),
            "high": max(values)}


class TextProgress:
    """Progress as plain printed lines: one before the first run, so a cell says at once what
    it waits for, then one at each quarter of the runs. Readable anywhere.

    No widget: a notebook opened before running shows the saved text, never a widget's repr,
    and a text line is the same on every run.
    """

    def __init__(self, total: int, label: str):
        self.total, self.done, self.label = total, 0, label
        self.marks = {max(1, round(total * q / 4)) for q in (1, 2, 3, 4)}
        print(self, flush=True)

    def advance(self) -> None:
        self.done += 1
        if self.done in self.marks:
            print(self, flush=True)

    def __repr__(self):
        percent = 100 * self.done // max(self.total, 1)
        return f"{self.label}: {self.done}/{self.total} runs ({percent}%)"
