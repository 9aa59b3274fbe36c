"""Matplotlib figures drawn from Run records: the shape of a run, and a history of runs.

Across runs:   steps_per_run (bars coloured by stop reason, each run's max_steps drawn),
               cost_per_run (each run's budget drawn).
Within a run:  cumulative_cost (against the budget line), tokens_per_step (the prompt grows at
               every step, because the whole conversation is sent again), timeline (model time
               vs tool time per step).
Together:      compare (four panels for a run history, with a key naming each run's model,
               prices and budget mode).
Sweeps:        success_rate (tasks solved against a limit, from agentlab.course.sweeps).
The loop:      loop_diagram (THINK, ACT, OBSERVE as a drawn cycle, parts highlighted, each
                guardrail written where it sits).

Every title states what to see in the figure, computed from the runs it shows.

Every function draws on the `ax` you pass, or on a new figure, and returns the Axes (compare
returns the Figure). The same runs give the same picture. Sizes and fonts are chosen to read on
a projector. matplotlib is imported by this module only, so `import agentlab` stays light.

Left out on purpose: interactivity (the playground redraws these after each run instead).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator

from agentlab.records import STOP_REASONS, Run

FONT = 13
SIZE = (9, 5)
COLOURS = {"answered": "#2a9d8f", "max_steps": "#e9c46a", "max_cost": "#e76f51",
           "max_seconds": "#8d6cab", "truncated": "#f4a261", "interrupted": "#adb5bd",
           "error": "#6c757d"}  # one per records.STOP_REASONS (a test keeps them in step)
PROMPT, COMPLETION, MODEL, TOOL, LIMIT = "#457b9d", "#f4a261", "#457b9d", "#2a9d8f", "#d62828"


def _fitted(ax, title: str) -> str:
    """The title wrapped to the axes' width, so that a half-width panel never clips it.

    Example: on a 4-inch-wide axes at 13 pt, a 58-character title becomes two lines.
    """
    width_inches = ax.get_position().width * ax.figure.get_figwidth()
    characters = max(20, int(width_inches * 72 / (FONT * 0.6)))  # ~0.6 em per character
    return textwrap.fill(title, characters)


def _axes(ax, title: str):
    if ax is None:
        _, ax = plt.subplots(figsize=SIZE)
    # y=1.0: the title sits just above the axes, where matplotlib would put it anyway (no plot
    # here has ticks on top); left to find that place itself, it lays out the ticks once more
    # at every draw, a sixth of the playground's redraw.
    ax.set_title(_fitted(ax, title), fontsize=FONT, y=1.0)
    ax.tick_params(labelsize=FONT - 1)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return ax


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Short tick labels, '#1', '#2', ...: the key (run_key) says what each run was."""
    return [f"#{i}" for i in range(1, len(runs) + 1)]


BUDGET_MODES = {"before": "never exceed", "after": "pay, then check"}


def run_key(runs: Sequence[Run]) -> list[str]:
    """One line per run: its number, model, the prices it was charged at and its budget mode.

    Example: '#1 tutor-verbose, priced as gpt-4o, budget 3¢ (pay, then check)'
    """
    lines = []
    for i, run in enumerate(runs, 1):
        budget = run.limits.get("max_cost_usd")
        money = "no budget" if budget is None else f"budget {_dollars(budget)}"
        mode = BUDGET_MODES.get(run.budget_mode, run.budget_mode)
        lines.append(f"#{i} {run.model}, priced as {run.priced_as}, {money} ({mode}), "
                     f"max_steps {run.limits.get('max_steps')}: {run.stop_reason}")
    return lines


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
    # No minor ticks: on a log scale they would be dozens of unlabelled marks to draw
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylabel(label, fontsize=FONT)


def _reason_legend(ax, runs, extra=(), loc="best"):
    reasons = [r for r in STOP_REASONS if any(run.stop_reason == r for run in runs)]
    handles = [Patch(color=COLOURS[r], label=r) for r in reasons] + list(extra)
    columns = 2 if len(handles) > 3 else 1
    _room_for_legend(ax, rows=-(-len(handles) // columns))
    ax.legend(handles=handles, fontsize=FONT - 2, loc=loc, ncol=columns, framealpha=0.9)


def _room_for_legend(ax, rows: int):
    """Raise the top of the y axis so a band above the data is free for a legend of `rows`
    lines: in a long history no gap between the bars is left for it, and it hid the limits.
    The band is a share of the axes' height (a row of text is about 7% of a playground panel,
    whose final size is known only once the figure is laid out), so it holds at any size.

    Example: 3 rows -> the data keep the lower 61% of the axes (0.06 + 3 * 0.11 is free)
    """
    share = min(0.06 + 0.11 * rows, 0.6)
    bottom, top = ax.get_ylim()
    if ax.get_yscale() == "log":
        ax.set_ylim(bottom, bottom * (top / bottom) ** (1 / (1 - share)))
    else:
        ax.set_ylim(bottom, bottom + (top - bottom) / (1 - share))


RUN_TICKS = 10  # beyond this many runs, a label per bar would run together: label some


def _run_axis(ax, runs, room: int | None = None):
    """Runs on the x axis: each labelled up to RUN_TICKS runs, then #1 and every 2nd, 5th,
    10th, 20th... run, so the labels stay readable (and cheap to draw) in a long history.
    `room`: lay the axis out for that many runs, labelled alike, however many there are yet.

    Example: 40 runs are labelled #1, #5, #10, ..., #40
    """
    slots = len(runs) if room is None else max(room, len(runs))
    ax.set_xlim(-0.6, max(slots, 3) - 0.4)  # one run is one bar, not a wall
    step = 1
    while slots / step > RUN_TICKS:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2  # 1, 2, 5, 10, 20...
    shown = sorted({0, *range(step - 1, slots, step)}) if slots else []
    ax.set_xticks(shown, [f"#{i + 1}" for i in shown])
    ax.set_xlabel("run", fontsize=FONT)


def room_for(runs: int) -> int:
    """Room on a history plot's x axis for `runs` runs and those to come: 10, 20, 50, 100,
    200, 500... (the playground's, so that a new run adds its bar and moves no other).

    Example: 1 -> 10; 10 -> 10; 11 -> 20; 40 -> 50; 200 -> 200; 201 -> 500
    """
    room = 10
    while room < runs:
        room = room * 5 // 2 if str(room).startswith("2") else room * 2  # 10, 20, 50, 100...
    return room


def _run_bars(ax, runs: list[Run], heights: list[float], drawn: int) -> None:
    """A bar per run, coloured by why it stopped, from run `drawn` on: the bars of the runs
    before are on `ax` already (the playground adds the new run's bar to its history plot
    rather than drawing every bar again)."""
    ax.bar(range(drawn, len(runs)), heights[drawn:],
           color=[COLOURS[r.stop_reason] for r in runs[drawn:]], width=0.6)


def steps_per_run(runs: Sequence[Run], ax=None, *, drawn: int = 0, room: int | None = None):
    """One bar per run: how many steps it took, coloured by why it stopped; its max_steps drawn.
    `drawn`: how many of the runs' bars `ax` holds already (see _run_bars). `room`: the x axis
    laid out for that many runs (see room_for), the legend kept top right, above the bars."""
    runs = list(runs)
    answered = sum(r.stop_reason == "answered" for r in runs)
    # The others did not all hit a limit: an error or the Stop button ends a run too.
    title = (f"{answered} of {len(runs)} runs answered; the colours say why the others stopped"
             if answered < len(runs) else f"All {len(runs)} runs answered within their step limit")
    ax = _axes(ax, title)
    _run_bars(ax, runs, [len(r.steps) for r in runs], drawn)
    # A run stopped before its first call (a budget too small for one) has no bar: mark it
    # on the axis in its colour, so it is not mistaken for a missing run.
    for i, run in enumerate(runs[drawn:], drawn):
        if not run.steps:
            ax.text(i, 0, "0", ha="center", va="bottom", fontsize=FONT, fontweight="bold",
                    color=COLOURS[run.stop_reason])
    limits = [r.limits.get("max_steps") for r in runs]
    ax.scatter(range(len(runs)), limits, marker="_", s=1200, linewidths=3, color=LIMIT, zorder=3)
    ax.set_ylabel("steps (model calls)", fontsize=FONT)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max([1, *limits, *(len(r.steps) for r in runs)]) * 1.25)
    _run_axis(ax, runs, room)
    limit = plt.Line2D([], [], color=LIMIT, lw=3, label="step limit (max_steps)")
    _reason_legend(ax, runs, [limit], loc="best" if room is None else "upper right")
    return ax


def cost_per_run(runs: Sequence[Run], ax=None, *, drawn: int = 0, room: int | None = None):
    """One bar per run: what it cost; its budget (max_cost_usd) drawn. `drawn` and `room`:
    as for steps_per_run."""
    runs = list(runs)
    over = sum(1 for r in runs if r.limits.get("max_cost_usd") is not None
               and r.cost_usd > r.limits["max_cost_usd"])
    ax = _axes(ax, f"{over} of {len(runs)} runs ended over budget (red mark: max_cost_usd)" if over
               else "No run spent more than its budget (red mark: max_cost_usd)")
    _run_bars(ax, runs, [r.cost_usd for r in runs], drawn)
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
    _run_axis(ax, runs, room)
    budget = plt.Line2D([], [], color=LIMIT, lw=3, label="budget (max_cost_usd)")
    _reason_legend(ax, runs, [budget], loc="best" if room is None else "upper right")
    return ax


def look_ahead(run: Run) -> float | None:
    """The bound on the next call that stopped a never-exceed run, read from its stop detail.

    Example: a run stopped with "the next call could cost up to $0.020002 and ..." gives 0.020002
    """
    import re

    if run.stop_reason != "max_cost":
        return None
    found = re.search(r"could cost up to \$([0-9.]+)", run.stop_detail or "")
    return float(found.group(1)) if found else None


def _cumulative_title(run: Run, spent: float, bound: float | None) -> str:
    budget = run.limits.get("max_cost_usd")
    if bound is not None:
        return (f"Stopped early: {_dollars(spent)} spent + up to {_dollars(bound)} for the next "
                f"call would pass the {_dollars(budget)} budget")
    if run.stop_reason == "max_cost" and budget is not None and spent > budget:
        return f"Paid, then checked: the run ended {_dollars(spent - budget)} over its budget"
    return f"The cost climbs every step ({run.model}: {run.stop_reason})"


def cumulative_cost(run: Run, ax=None):
    """The money spent after each step, against the run's budget; for a run the look-ahead
    stopped, the dashed line to the call it refused (spent so far + that call's bound)."""
    total, points = 0.0, []
    for step in run.steps:
        total += step.cost_usd
        points.append(total)
    bound = look_ahead(run)
    ax = _axes(ax, _cumulative_title(run, total, bound))
    ax.plot(range(len(points)), points, marker="o", lw=2.5, color=PROMPT, label="spent")
    budget = run.limits.get("max_cost_usd")
    top = max([1e-9, *points])
    if bound is not None:
        ax.plot([len(points) - 1 if points else 0, len(points)], [total, total + bound], ls=":",
                lw=2.5, marker="x", color=LIMIT, label="look-ahead: the refused call's worst case")
        top = max(top, total + bound)
    if budget is not None and budget <= 10 * top:
        ax.axhline(budget, color=LIMIT, lw=2, ls="--", label=f"budget {_dollars(budget)}")
        top = max(top, budget)
    elif budget is not None:  # far above: drawing it would flatten the line to nothing
        ax.plot([], [], color=LIMIT, lw=2, ls="--", label=f"budget {_dollars(budget)} (far above)")
    ax.set_ylim(0, top * 1.15)
    ax.set_xlabel("step (one model call)", fontsize=FONT)
    ax.set_xticks(range(len(points) + (bound is not None)))
    _money_axis(ax, "cost so far (US dollars)")
    ax.legend(fontsize=FONT - 2, loc="upper left")
    return ax


def prompt_parts(run: Run) -> list[tuple[int, int, int]]:
    """Per step, the prompt's tokens split into (tool schemas, system prompt, conversation).

    By the tutor's token rule (an estimate for a real model): the schemas are what the first
    prompt holds beyond its two messages, and they are sent again at every step.

    Example: a first prompt of 444 tokens whose two messages count 55 has 389 schema tokens
    """
    from agentlab.pricing import count_tokens, message_tokens

    if not run.steps:
        return []
    system = message_tokens(run.messages[0]) if run.messages else 0
    schemas = max(0, run.steps[0].prompt_tokens - count_tokens(run.messages[:2], None))
    return [(schemas, system, max(0, s.prompt_tokens - schemas - system)) for s in run.steps]


SCHEMAS, SYSTEM, CONVERSATION = "#a8dadc", "#1d3557", "#457b9d"


def tokens_per_step(run: Run, ax=None):
    """Tokens per step, the prompt split into tool schemas, system prompt and conversation: the
    schemas and system prompt are paid again at every step, and the conversation grows."""
    parts = prompt_parts(run)
    first = run.steps[0].prompt_tokens if run.steps else 0
    share = parts[0][0] / first if parts and first else 0
    ax = _axes(ax, f"Tool schemas are {share:.0%} of the first prompt; the conversation grows "
               "every step")
    steps = range(len(run.steps))
    bottom = [0] * len(parts)
    for index, (label, colour) in enumerate([("tool schemas", SCHEMAS), ("system prompt", SYSTEM),
                                             ("conversation so far", CONVERSATION)]):
        heights = [p[index] for p in parts]
        ax.bar(steps, heights, bottom=bottom, color=colour, width=0.6, label=label)
        bottom = [b + h for b, h in zip(bottom, heights)]
    completion = [s.completion_tokens for s in run.steps]
    ax.bar(steps, completion, bottom=bottom, color=COMPLETION, width=0.6, label="completion")
    ax.set_xlabel("step (one model call)", fontsize=FONT)
    ax.set_xticks(list(steps))
    ax.set_ylabel("tokens", fontsize=FONT)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max([1, *(b + c for b, c in zip(bottom, completion))]) * 1.45)
    ax.legend(fontsize=FONT - 3, loc="upper left", ncol=2)
    return ax


def timeline(run: Run, ax=None):
    """Per step, where the time went: waiting for the model, or running tools."""
    model_total = sum(s.model_seconds for s in run.steps)
    tool_total = sum(s.tool_seconds for s in run.steps)
    ax = _axes(ax, "Most of the time went to the " + ("model" if model_total >= tool_total
                                                      else "tools"))
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
    """Four panels for a run history: steps and cost per run, and the last run's cost and
    tokens; under them a key says each run's model, prices and budget mode."""
    runs = list(runs)
    key = run_key(runs)
    fig, axes = plt.subplots(2, 2, figsize=(14, 9 + 0.3 * (len(key) + 1)))
    steps_per_run(runs, axes[0][0])
    cost_per_run(runs, axes[0][1])
    if runs:
        cumulative_cost(runs[-1], axes[1][0])
        tokens_per_step(runs[-1], axes[1][1])
        title = f"Run #{len(runs)}: " + axes[1][0].get_title().replace("\n", " ")
        axes[1][0].set_title(textwrap.fill(title, 60), fontsize=FONT)
    fig.text(0.01, 0.005, "\n".join(["Runs: model, prices charged, budget (how it is checked), "
                                       "step limit: why it stopped", *key]),
             fontsize=FONT - 1, family="monospace", va="bottom")
    fig.tight_layout(rect=(0, (0.3 * (len(key) + 1) + 0.2) / (9 + 0.3 * (len(key) + 1)), 1, 1))
    return fig


def price_comparison(runs: Sequence[Run], models: Sequence[str], ax=None):
    """The same runs (the same tokens) priced at each model's prices: a group of bars per run.

    The legend sits above the bars in a row, with headroom kept for it, so it never hides the
    last group (it once covered task 5's bars in the top right corner).
    """
    from agentlab.pricing import reprice

    runs, models = list(runs), list(models)
    cents = {model: [100 * reprice(run, model) for run in runs] for model in models}
    ratio = (cents[models[-1]][0] / cents[models[0]][0]) if runs and cents[models[0]][0] else 0
    ax = _axes(ax, f"Same tokens, {ratio:.0f}x the price: {models[-1]} against {models[0]}")
    width = 0.8 / max(len(models), 1)
    for i, model in enumerate(models):
        ax.bar([x + i * width for x in range(len(runs))], cents[model], width, label=model)
    ax.set_xticks([x + (len(models) - 1) * width / 2 for x in range(len(runs))],
                  [f"task {i + 1}" for i in range(len(runs))])
    ax.set_ylabel("cost per run (US cents)", fontsize=FONT)
    ax.set_ylim(0, max([1e-9, *(c for values in cents.values() for c in values)]) * 1.3)
    ax.legend(fontsize=FONT - 2, loc="upper center", ncol=len(models), framealpha=0.9)
    return ax


def success_rate(curves: dict, ax=None, *, xlabel: str = "limit", log_x: bool = False,
                 title: str | None = None):
    """Success rate against a limit: one line per curve, {label: {setting: rate}}.

    The default title says where the first curve first reaches its best rate.
    """
    if title is None and curves:
        rates = next(iter(curves.values()))
        best = max(rates.values()) if rates else 0
        first = next((k for k, v in rates.items() if v == best), None)
        title = f"Success rises with {xlabel.split(' ')[0]}: {best:.0%} solved from {first:g} on" \
            if isinstance(first, (int, float)) else "Tasks solved"
    ax = _axes(ax, title or "Tasks solved")
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


# Where each guardrail sits in the loop: most act on a tool call (ACT) or on what goes back
# (OBSERVE); only the step limit, the budget and the time limit stop the loop as a whole.
CHAPTER_GUARDRAILS = {"act": "allowlist · errors back\nprinting each call",
                      "observe": "truncation",
                      "limits": "step limit · budget"}
BEYOND_THE_CHAPTER = {"think": "wind-down: a last call\nwith tool_choice=\"none\"",
                      "act": "tool timeout · repeat guard\napproval hook",
                      "limits": "time limit"}


def loop_diagram(highlight=None, ax=None, guardrails: dict | None = None):
    """The agent loop drawn as a cycle: THINK -> ACT -> OBSERVE -> back, with the exit to an
    answer and the guardrails that can stop it. `highlight` ("think", "act", "observe",
    "limits", or several of them) colours those parts, so each notebook can point at what it
    adds. `guardrails` ({part: text}, e.g. CHAPTER_GUARDRAILS) writes under each part the
    guardrails that sit there."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 5.4))
    # The boxes' rounded padding reaches 0.1 past their corners: a margin on every side keeps
    # each border inside the picture (the ANSWER box's right edge was cut at x = 10).
    ax.set_xlim(-0.2, 10.2)
    ax.set_ylim(-0.2, 6)
    ax.axis("off")
    ax.set_title("One step = one turn of this loop: THINK, then (if the model asked) ACT, OBSERVE",
                 fontsize=FONT)
    boxes = {
        "think": (3.0, 4.3, "THINK\nsend messages + tool\nschemas to the model"),
        "act": (6.6, 1.6, "ACT\nour code checks and runs\nthe requested tool calls"),
        "observe": (0.4, 1.6, "OBSERVE\nappend each result as a\n'tool' message"),
        "answer": (7.3, 4.5, "ANSWER\nno tool call: done"),
        "limits": (3.4, 0.1, "LIMITS checked every step:\nsteps, budget, time"),
    }
    lit = {highlight} if isinstance(highlight, str) else set(highlight or ())
    unknown = (lit | set(guardrails or {})) - set(boxes)
    if unknown:
        raise ValueError(f"no part {', '.join(sorted(unknown))} in the loop; the parts are "
                         f"{', '.join(boxes)}")
    for name, (x, y, text) in boxes.items():
        on = name in lit
        width = 2.6 if name in ("answer",) else 3.0
        ax.add_patch(FancyBboxPatch((x, y), width, 1.1, boxstyle="round,pad=0.1",
                                    facecolor="#ffd166" if on else "#f1faee",
                                    edgecolor=LIMIT if on else "#1d3557", lw=3 if on else 1.5))
        ax.text(x + width / 2, y + 0.55, text, ha="center", va="center", fontsize=FONT - 2)

    def arrow(a, b, label, rad=0.0):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=22, lw=2,
                                     color="#1d3557", connectionstyle=f"arc3,rad={rad}"))
        ax.text((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + 0.25, label, ha="center",
                fontsize=FONT - 3, style="italic")

    arrow((6.15, 5.0), (7.2, 5.0), "text only")
    arrow((5.6, 4.2), (7.6, 2.8), "tool calls")
    arrow((6.5, 2.1), (3.5, 2.1), "results")
    arrow((1.9, 2.8), (2.9, 4.6), "REPEAT")
    # Each part's guardrails in red, where there is room: under ACT and OBSERVE, left of
    # THINK and of LIMITS.
    places = {"think": (1.3, 4.85, "center"), "act": (8.3, 1.05, "center"),
              "observe": (1.9, 1.25, "center"), "limits": (3.2, 0.65, "right"),
              "answer": (8.6, 4.05, "center")}
    for name, text in (guardrails or {}).items():
        x, y, align = places[name]
        ax.text(x, y, text, ha=align, va="center", fontsize=FONT - 3, color=LIMIT,
                weight="bold", wrap=True)
    return ax
