"""Per-run and per-step cost of each framework on the students' path: the openai SDK with the
same canned transport (setups.py, canned.py), in one interleaved run.

Method: every framework runs scripts of 2, 5, 10 and 20 model calls. A round times a small
batch of runs of each (framework, length); the frameworks alternate round-robin, and their
order rotates each round, so drift on a shared machine touches all alike. After R rounds the
median seconds per run of each (framework, length) are fitted with a least-squares line:
the slope is the marginal cost of one added step (a model call and a tool call), the
intercept the fixed cost of a run (setting up, the first request's extras, the records).
Everything is warmed up first (two runs of each length, untimed).

    python benchmarks/frameworks.py              # prints the table
    python benchmarks/frameworks.py --quick      # tiny counts, to check that it runs
    python benchmarks/frameworks.py --cpu        # CPU time instead of wall time (shared machine)
"""

from __future__ import annotations

import statistics
import sys

import setups

LENGTHS = (2, 5, 10, 20)
# The rows: agentlab and the frameworks, agentlab's default offline path, and the SDK floor.
ROWS = ["agentlab", "agentlab-default", "sdk-floor", "smolagents", "openai-agents", "pydantic-ai"]


def available(names=ROWS) -> dict:
    """The setups that can be built here (a framework that is not installed is skipped)."""
    built = {}
    for name in names:
        try:
            built[name] = setups.build(name)
        except ImportError as e:
            print(f"  {name}: skipped ({e.name} is not installed: pip install -e '.[bench]')")
    return built


def fit(per_run: dict) -> tuple[float, float]:
    """Least-squares (fixed seconds per run, seconds per added step) over {steps: seconds}.

    Example: {2: 0.004, 5: 0.007, 10: 0.012} -> (0.002, 0.001)
    """
    slope, intercept = statistics.linear_regression(list(per_run), list(per_run.values()))
    return intercept, slope


def measure(names=ROWS, lengths=LENGTHS, rounds: int = 15, runs: int = 4,
            clock: str = "wall") -> dict:
    """{name: {"per_run": {steps: median s}, "fixed": s, "per_step": s}} from one interleaved run."""
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
        fixed, per_step = fit(per_run)
        figures[name] = {"per_run": per_run, "fixed": fixed, "per_step": per_step}
    return figures


def table(figures: dict) -> list[str]:
    """The comparison rows, with each figure as a ratio to agentlab's."""
    base = figures.get("agentlab")
    longest = max(next(iter(figures.values()))["per_run"])
    lines = [f"  {'':18} {'fixed ms/run':>12} {'ms/added step':>14} {f'{longest}-step run ms':>16}"
             f" {'x agentlab':>22}",
             f"  {'':18} {'':>12} {'':>14} {'':>16} {'(fixed, step, run)':>22}"]
    for name, f in figures.items():
        ratios = ""
        if base and name != "agentlab":
            ratios = (f"{f['fixed'] / base['fixed']:.2f}, {f['per_step'] / base['per_step']:.2f}, "
                      f"{f['per_run'][longest] / base['per_run'][longest]:.2f}")
        lines.append(f"  {name:18} {1000 * f['fixed']:12.3f} {1000 * f['per_step']:14.3f} "
                     f"{1000 * f['per_run'][longest]:16.3f} {ratios:>22}")
    return lines


def floor_lines(figures: dict) -> list[str]:
    """agentlab (canned transport and default path) as a multiple of the SDK floor."""
    floor = figures.get("sdk-floor")
    if not floor:
        return []
    lines = []
    for name in ("agentlab", "agentlab-default"):
        if name in figures:
            f = figures[name]
            lines.append(f"  {name} / sdk-floor: {f['per_step'] / floor['per_step']:.2f}x per step, "
                         f"{f['fixed'] / floor['fixed']:.2f}x fixed per run "
                         f"(own share {1000 * (f['per_step'] - floor['per_step']):.3f} ms a step)")
    return lines


if __name__ == "__main__":
    quick, clock = "--quick" in sys.argv, "cpu" if "--cpu" in sys.argv else "wall"
    result = measure(rounds=2, runs=1, lengths=(2, 5), clock=clock) if quick else measure(clock=clock)
    print("\n".join(table(result) + floor_lines(result)))
