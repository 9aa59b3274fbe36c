"""Per-run and per-step cost of each framework on the students' path: the openai SDK with the
same canned transport (setups.py, canned.py), in one interleaved run.

Method: every framework runs scripts of 1, 2, 5, 10 and 20 model calls. A round times a small
batch of runs of each (framework, length); the frameworks alternate round-robin, and their
order rotates each round, so drift on a shared machine touches all alike. After R rounds the
median seconds per run of each (framework, length) are fitted (see `fit`): the slope is
the average cost of one added step (a model call and a tool call), and the growth says how
much dearer each step is than the last. The 1-step run (one model call, no tool) is the
fixed cost of a run, measured rather than extrapolated.
Everything is warmed up first (two runs of each length, untimed).

Ratios are paired: this machine's CPU speed swings by up to 1.8x in phases of a few seconds
(a fixed loop timed every 0.2 s takes 20 ms, then 36 ms), so a ratio of two medians can land
its two figures in different phases. A round runs every framework at one length back to back,
so each ratio is taken within a round first (the round's fit for one framework over the same
round's fit for the other, or their times at one length), then its median over the rounds is
reported. The absolute figures are medians of the rounds, as above.

    python benchmarks/frameworks.py              # prints the table
    python benchmarks/frameworks.py --quick      # tiny counts, to check that it runs
    python benchmarks/frameworks.py --cpu        # CPU time instead of wall time (shared machine)
"""

from __future__ import annotations

import statistics
import sys

import numpy

import setups

LENGTHS = (1, 2, 5, 10, 20)
# The rows: agentlab and the frameworks, agentlab's default offline path, and the SDK floor.
ROWS = ["agentlab", "agentlab-default", "sdk-floor", "smolagents", "openai-agents", "pydantic-ai",
        "langchain"]


def available(names=ROWS) -> dict:
    """The setups that can be built here (a framework that is not installed is skipped)."""
    built = {}
    for name in names:
        try:
            built[name] = setups.build(name)
        except ImportError as e:
            print(f"  {name}: skipped ({e.name} is not installed: pip install -e '.[bench]')")
    return built


def fit(per_run: dict) -> dict:
    """The run's cost as a function of its length k, from {k: seconds per run}:

    per_step  the least-squares slope of a straight line: the average cost of an added step
              (a model call and a tool call) over the lengths measured
    growth    2c of a least-squares parabola a + b*k + c*k^2: how much more each step costs
              than the one before, because every request carries, and the SDK re-processes,
              the whole conversation so far

    The fixed cost of a run is not extrapolated (with the line bending upward, an intercept
    is mostly noise); `table` shows the shortest run, one model call, measured directly.

    Example: {1: 3.0, 2: 7.0, 5: 31.0, 10: 111.0} (1 + k + k^2 seconds)
             -> {"per_step": 12.2, "growth": 2.0}
    """
    lengths, seconds = list(per_run), list(per_run.values())
    per_step = statistics.linear_regression(lengths, seconds).slope
    c = numpy.polyfit(lengths, seconds, 2)[0]
    return {"per_step": per_step, "growth": float(2 * c)}


def measure(names=ROWS, lengths=LENGTHS, rounds: int = 15, runs: int = 4,
            clock: str = "wall") -> dict:
    """{name: {"per_run": {steps: median s}, "per_step": s, "growth": s}}, from one
    interleaved run."""
    built = available(names)
    for setup in built.values():  # warm-up: imports, caches, the floor's recorded requests
        for steps in lengths:
            setup.batch(steps, 2)
    samples = {name: {steps: [] for steps in lengths} for name in built}
    order = list(built)
    for r in range(rounds):
        rotated = order[r % len(order):] + order[:r % len(order)]
        for steps in lengths:
            for name in rotated:
                samples[name][steps].append(built[name].batch(steps, runs, clock) / runs)
    figures = {}
    for name, by_length in samples.items():
        per_run = {steps: statistics.median(s) for steps, s in by_length.items()}
        rounds_seen = [{steps: s[r] for steps, s in by_length.items()} for r in range(rounds)]
        figures[name] = {"per_run": per_run, **fit(per_run), "rounds": rounds_seen}
    return figures


def paired_ratio(figures: dict, name: str, base: str, what) -> float:
    """The median over rounds of name's figure over base's figure in the same round.

    what: "per_step" (each round's slope) or a run length (each round's time per run).
    Example: rounds [{1: 2, 2: 4}, {1: 3, 2: 6}] over [{1: 1, 2: 2}, {1: 1, 2: 2}], what=2
             -> median(4 / 2, 6 / 2) = 2.5
    """
    ratios = []
    for mine, theirs in zip(figures[name]["rounds"], figures[base]["rounds"]):
        if what == "per_step":
            ratios.append(fit(mine)["per_step"] / fit(theirs)["per_step"])
        else:
            ratios.append(mine[what] / theirs[what])
    return statistics.median(ratios)


def table(figures: dict) -> list[str]:
    """The comparison rows, with each figure as a ratio to agentlab's."""
    base = figures.get("agentlab")
    lengths = list(next(iter(figures.values()))["per_run"])
    short, long = min(lengths), max(lengths)
    lines = [f"  {'':17} {f'{short}-step':>8} {'per step':>9} {'growth':>8} {f'{long}-step':>9}"
             f"   x agentlab",
             f"  {'':17} {'run ms':>8} {'ms':>9} {'us/step':>8} {'run ms':>9}"
             f"   ({short}-step run, per step, {long}-step run)"]
    for name, f in figures.items():
        ratios = ""
        if base and name != "agentlab":
            ratios = ", ".join(f"{paired_ratio(figures, name, 'agentlab', k):.2f}"
                               for k in (short, "per_step", long))
        lines.append(f"  {name:17} {1000 * f['per_run'][short]:8.3f} {1000 * f['per_step']:9.3f} "
                     f"{1e6 * f['growth']:8.1f} {1000 * f['per_run'][long]:9.3f}   {ratios}")
    return lines


def floor_lines(figures: dict) -> list[str]:
    """agentlab (canned transport and default path) as a multiple of the SDK floor."""
    floor = figures.get("sdk-floor")
    if not floor:
        return []
    short = min(floor["per_run"])
    lines = []
    for name in ("agentlab", "agentlab-default"):
        if name in figures:
            f = figures[name]
            lines.append(f"  {name} / sdk-floor: "
                         f"{paired_ratio(figures, name, 'sdk-floor', 'per_step'):.2f}x per step, "
                         f"{paired_ratio(figures, name, 'sdk-floor', short):.2f}x a {short}-step "
                         f"run (own share {1000 * (f['per_step'] - floor['per_step']):.3f} ms a "
                         "step, from the medians)")
    return lines


if __name__ == "__main__":
    quick, clock = "--quick" in sys.argv, "cpu" if "--cpu" in sys.argv else "wall"
    if quick:
        result = measure(rounds=2, runs=1, lengths=(1, 2, 5), clock=clock)
    else:
        result = measure(clock=clock)
    print("\n".join(table(result) + floor_lines(result)))
