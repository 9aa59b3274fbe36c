"""Matplotlib figures drawn from Run records: the shape of a run, and a history of runs.

Across runs:   steps_per_run (bars coloured by stop reason, each run's max_steps drawn),
               cost_per_run (each run's budget drawn).
Within a run:  cumulative_cost (against the budget line), tokens_per_step (the prompt grows at
               every step, because the whole conversation is sent again), timeline (model time
               vs tool time per step).
Together:      compare (four panels for a run history).
Sweeps:        success_rate (tasks solved against a limit, from agentlab.sweeps).

Every function draws on the `ax` you pass, or on a new figure, and returns the Axes (compare
returns the Figure). The same runs give the same picture. Sizes and fonts are chosen to read on
a projector. matplotlib is imported by this module only, so `import agentlab` stays light.

Left out on purpose: interactivity (the playground redraws these after each run instead).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, MaxNLocator

from .records import STOP_REASONS, Run

FONT = 13
SIZE = (9, 5)
COLOURS = {"answered": "#2a9d8f", "max_steps": "#e9c46a", "max_cost": "#e76f51",
           "max_seconds": "#8d6cab", "error": "#6c757d"}
PROMPT, COMPLETION, MODEL, TOOL, LIMIT = "#457b9d", "#f4a261", "#457b9d", "#2a9d8f", "#d62828"


def _axes(ax, title: str):
    if ax is None:
        _, ax = plt.subplots(figsize=SIZE)
    ax.set_title(title, fontsize=FONT + 2)
    ax.tick_params(labelsize=FONT - 1)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return ax


def run_labels(runs: Sequence[Run]) -> list[str]:
    """'#1' over the model's name, numbered in history order."""
    return [f"#{i}\n{run.model}" for i, run in enumerate(runs, 1)]


def _dollars(value: float) -> str:
    """Readable money: cents below a dollar, and enough digits to tell small costs apart."""
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"${value:,.2f}"
    cents = value * 100
    return f"{cents:.3g}¢" if abs(cents) >= 0.001 else f"{cents:.1e}¢"


def _money_axis(ax, label: str):
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _dollars(v)))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_ylabel(label, fontsize=FONT)


def _reason_legend(ax, runs, extra=()):
    reasons = [r for r in STOP_REASONS if any(run.stop_reason == r for run in runs)]
    handles = [Patch(color=COLOURS[r], label=r) for r in reasons] + list(extra)
    ax.legend(handles=handles, fontsize=FONT - 2, loc="best", framealpha=0.9)


def _run_axis(ax, runs):
    ax.set_xlim(-0.6, max(len(runs), 3) - 0.4)  # one run is one bar, not a wall
    ax.set_xticks(range(len(runs)), run_labels(runs), rotation=45 if len(runs) > 6 else 0,
                  ha="right" if len(runs) > 6 else "center")
    ax.set_xlabel("run", fontsize=FONT)


def steps_per_run(runs: Sequence[Run], ax=None):
    """One bar per run: how many steps it took, coloured by why it stopped; its max_steps drawn."""
    ax = _axes(ax, "Steps per run")
    runs = list(runs)
    ax.bar(range(len(runs)), [len(r.steps) for r in runs],
           color=[COLOURS[r.stop_reason] for r in runs], width=0.6)
    limits = [r.limits.get("max_steps") for r in runs]
    ax.scatter(range(len(runs)), limits, marker="_", s=1200, linewidths=3, color=LIMIT, zorder=3)
    ax.set_ylabel("steps (model calls)", fontsize=FONT)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max([1, *limits, *(len(r.steps) for r in runs)]) * 1.25)
    _run_axis(ax, runs)
    _reason_legend(ax, runs, [plt.Line2D([], [], color=LIMIT, lw=3, label="step limit (max_steps)")])
    return ax


def cost_per_run(runs: Sequence[Run], ax=None):
    """One bar per run: what it cost; its budget (max_cost_usd) drawn."""
    ax = _axes(ax, "Cost per run")
    runs = list(runs)
    ax.bar(range(len(runs)), [r.cost_usd for r in runs],
           color=[COLOURS[r.stop_reason] for r in runs], width=0.6)
    budgets = [r.limits.get("max_cost_usd") for r in runs]
    shown = [(i, b) for i, b in enumerate(budgets) if b is not None]
    if shown:
        ax.scatter(*zip(*shown), marker="_", s=1200, linewidths=3, color=LIMIT, zorder=3)
    values = [v for v in [*(b for _, b in shown), *(r.cost_usd for r in runs)] if v > 0] or [1e-6]
    if max(values) / min(values) > 50:  # budgets far above the costs: a log scale shows both
        ax.set_yscale("log")
        ax.set_ylim(min(values) / 3, max(values) * 3)
    else:
        ax.set_ylim(0, max(values) * 1.25)
    _money_axis(ax, "cost (US dollars, priced from tokens)")
    _run_axis(ax, runs)
    _reason_legend(ax, runs, [plt.Line2D([], [], color=LIMIT, lw=3, label="budget (max_cost_usd)")])
    return ax


def cumulative_cost(run: Run, ax=None):
    """The money spent after each step, against the run's budget."""
    ax = _axes(ax, f"Cumulative cost: {run.model}, {run.stop_reason}")
    total, points = 0.0, []
    for step in run.steps:
        total += step.cost_usd
        points.append(total)
    ax.plot(range(len(points)), points, marker="o", lw=2.5, color=PROMPT, label="spent")
    budget = run.limits.get("max_cost_usd")
    top = max([1e-9, *points])
    if budget is not None and budget <= 10 * top:
        ax.axhline(budget, color=LIMIT, lw=2, ls="--", label=f"budget {_dollars(budget)}")
        top = max(top, budget)
    elif budget is not None:  # far above: drawing it would flatten the line to nothing
        ax.plot([], [], color=LIMIT, lw=2, ls="--", label=f"budget {_dollars(budget)} (far above)")
    ax.set_ylim(0, top * 1.15)
    ax.set_xlabel("step", fontsize=FONT)
    ax.set_xticks(range(len(points)))
    _money_axis(ax, "cost so far (US dollars)")
    ax.legend(fontsize=FONT - 2, loc="upper left")
    return ax


def tokens_per_step(run: Run, ax=None):
    """Prompt and completion tokens per step: the prompt grows as the conversation does."""
    ax = _axes(ax, "Tokens per step")
    steps = range(len(run.steps))
    prompt = [s.prompt_tokens for s in run.steps]
    completion = [s.completion_tokens for s in run.steps]
    ax.bar(steps, prompt, color=PROMPT, width=0.6, label="prompt (the whole conversation)")
    ax.bar(steps, completion, bottom=prompt, color=COMPLETION, width=0.6, label="completion")
    ax.set_xlabel("step", fontsize=FONT)
    ax.set_xticks(list(steps))
    ax.set_ylabel("tokens", fontsize=FONT)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max([1, *(p + c for p, c in zip(prompt, completion))]) * 1.3)
    ax.legend(fontsize=FONT - 2, loc="upper left")
    return ax


def timeline(run: Run, ax=None):
    """Per step, where the time went: waiting for the model, or running tools."""
    ax = _axes(ax, "Where the time went")
    ax.grid(axis="x", alpha=0.3)
    ax.grid(axis="y", visible=False)
    steps = list(range(len(run.steps)))
    model = [s.model_seconds for s in run.steps]
    tools = [s.tool_seconds for s in run.steps]
    ax.barh(steps, model, color=MODEL, height=0.6, label="model")
    ax.barh(steps, tools, left=model, color=TOOL, height=0.6, label="tools")
    ax.set_yticks(steps, [f"step {i}" for i in steps])
    ax.invert_yaxis()
    ax.set_xlabel("seconds (measured)", fontsize=FONT)
    ax.legend(fontsize=FONT - 2, loc="lower right")
    return ax


def compare(runs: Sequence[Run]):
    """Four panels for a run history: steps and cost per run, and the last run's cost and tokens."""
    runs = list(runs)
    fig, axes = plt.subplots(2, 2, figsize=(14, 9))
    steps_per_run(runs, axes[0][0])
    cost_per_run(runs, axes[0][1])
    if runs:
        cumulative_cost(runs[-1], axes[1][0])
        tokens_per_step(runs[-1], axes[1][1])
    fig.tight_layout()
    return fig


def success_rate(curves: dict, ax=None, *, xlabel: str = "limit", log_x: bool = False):
    """Success rate against a limit: one line per curve, {label: {setting: rate}}."""
    ax = _axes(ax, "Tasks solved")
    for label, rates in curves.items():
        ax.plot(list(rates), [100 * r for r in rates.values()], marker="o", lw=2.5, label=label)
    if log_x:
        ax.set_xscale("log")
    ax.set_ylim(-5, 105)
    ax.set_xlabel(xlabel, fontsize=FONT)
    ax.set_ylabel("tasks solved (%)", fontsize=FONT)
    ax.grid(axis="x", alpha=0.3)
    if len(curves) > 1:
        ax.legend(fontsize=FONT - 2, loc="lower right")
    return ax
