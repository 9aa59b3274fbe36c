"""Plots drawn from runs: hand-made runs (exact figures) and real offline runs."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from agentlab import Limits, Run, Step, run_agent  # noqa: E402
from agentlab.course import plots  # noqa: E402
from agentlab.toolkit import COURSE_TOOLS  # noqa: E402


def hand_made(steps, reason, max_steps=10, budget=0.5, cost_per_step=0.001):
    return Run(task="t", model="tutor", priced_as="gpt-4o-mini",
               limits={"max_steps": max_steps, "max_cost_usd": budget}, stop_reason=reason,
               steps=[Step(index=i, message={"role": "assistant", "content": None},
                           prompt_tokens=100 * (i + 1), completion_tokens=10,
                           cost_usd=cost_per_step, model_seconds=0.5, tool_seconds=0.25)
                      for i in range(steps)])


RUNS = [hand_made(2, "answered"), hand_made(3, "max_steps", max_steps=3),
        hand_made(1, "max_cost", budget=0.0015)]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_steps_per_run_bars_coloured_by_stop_reason_with_limits():
    ax = plots.steps_per_run(RUNS)
    bars = ax.patches
    assert [b.get_height() for b in bars] == [2, 3, 1]
    assert [matplotlib.colors.to_hex(b.get_facecolor()) for b in bars] == [
        plots.COLOURS["answered"], plots.COLOURS["max_steps"], plots.COLOURS["max_cost"]]
    limits = ax.collections[0].get_offsets()
    assert [tuple(p) for p in limits] == [(0, 10), (1, 3), (2, 10)]
    assert ax.get_ylabel() == "steps (model calls)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "answered", "max_steps", "max_cost", "step limit (max_steps)"]


def test_a_run_of_no_steps_is_marked_in_its_colour_not_left_blank():
    ax = plots.steps_per_run([hand_made(0, "max_cost"), hand_made(2, "answered")])
    [zero] = [t for t in ax.texts if t.get_text() == "0"]
    assert zero.get_position()[0] == 0
    assert matplotlib.colors.to_hex(zero.get_color()) == plots.COLOURS["max_cost"]


def test_cost_per_run_draws_budgets_in_readable_units():
    ax = plots.cost_per_run(RUNS)
    assert [round(b.get_height(), 6) for b in ax.patches] == [0.002, 0.003, 0.001]
    assert [tuple(p) for p in ax.collections[0].get_offsets()] == [(0, 0.5), (1, 0.5), (2, 0.0015)]
    assert ax.get_yscale() == "log"  # budgets of 50¢ next to costs of 0.1¢
    assert plots._dollars(0.0015) == "0.15¢" and plots._dollars(2.5) == "$2.50"
    assert plots._dollars(0.000000034) == "3.4e-06¢"


def test_within_a_run():
    run = hand_made(3, "answered", budget=0.004)
    ax = plots.cumulative_cost(run)
    line = ax.get_lines()
    assert list(line[0].get_ydata()) == pytest.approx([0.001, 0.002, 0.003])
    assert line[1].get_ydata()[0] == 0.004  # the budget line
    far = plots.cumulative_cost(hand_made(3, "answered", budget=0.5))
    legend = [t.get_text() for t in far.get_legend().get_texts()]
    assert legend == ["spent", "budget 50¢ (far above)"]
    assert far.get_ylim()[1] == pytest.approx(0.003 * 1.15)
    tokens = plots.tokens_per_step(run)  # schemas (the first prompt beyond its 3 priming
    # tokens), system prompt (none here), the rest (priming + conversation), then the completion
    assert [b.get_height() for b in tokens.patches] == [97] * 3 + [0] * 3 + [3, 103, 203] + [10] * 3
    times = plots.timeline(run)
    assert [b.get_width() for b in times.patches] == [0.5] * 3 + [0.25] * 3


def test_compare_and_determinism():
    fig = plots.compare(RUNS)
    assert len(fig.axes) == 4 and [len(ax.patches) for ax in fig.axes[:2]] == [3, 3]
    again = plots.compare(RUNS)
    assert [[p.get_height() for p in ax.patches] for ax in fig.axes] == [
        [p.get_height() for p in ax.patches] for ax in again.axes]


def test_plots_of_real_offline_runs():
    runs = [run_agent("What's the weather in the capital of Peru, in Fahrenheit?", COURSE_TOOLS),
            run_agent("What is 2 + 2?", COURSE_TOOLS, model="tutor-looper",
                      limits=Limits(max_steps=2))]
    ax = plots.steps_per_run(runs)
    assert [b.get_height() for b in ax.patches] == [4, 2]
    tokens = plots.tokens_per_step(runs[0])
    schemas = [b.get_height() for b in tokens.patches[:4]]
    conversation = [b.get_height() for b in tokens.patches[8:12]]
    assert len(set(schemas)) == 1 and schemas[0] > 300  # sent again, unchanged, every step
    assert conversation == sorted(conversation) and conversation[0] < conversation[-1]  # grows
    assert tokens.get_title().startswith("Tool schemas are 88% of the first prompt")
    _, ax = plt.subplots()
    assert plots.cost_per_run(runs, ax) is ax  # draws on the Axes it is given


def test_importing_agentlab_loads_no_plotting_widgets_or_sdk():
    import subprocess
    import sys

    code = ("import sys, agentlab; heavy = [m for m in ('matplotlib', 'ipywidgets', 'openai', "
            "'genai_prices') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_titles_say_what_to_see():
    assert plots.steps_per_run(RUNS).get_title().startswith("1 of 3 runs answered")
    assert "hit a limit" not in plots.steps_per_run([hand_made(1, "error")]).get_title()
    assert "ended over budget" not in plots.cost_per_run(RUNS[:2]).get_title()
    over = hand_made(2, "max_cost", budget=0.0015)
    assert plots.cost_per_run([over]).get_title().startswith("1 of 1 runs ended over budget")
    curve = plots.success_rate({"tutor": {1: 0.0, 2: 0.6, 4: 1.0}}, xlabel="max_steps")
    assert curve.get_title() == "Success rises with max_steps: 100% solved from 4 on"


def test_cumulative_cost_draws_the_look_ahead_that_stopped_a_run():
    run = hand_made(2, "max_cost", budget=0.003)
    run.stop_detail = ("the next call could cost up to $0.002000 and only $0.001000 of the "
                       "$0.003000 budget is left")
    ax = plots.cumulative_cost(run)
    look = [line for line in ax.get_lines() if line.get_label().startswith("look-ahead")][0]
    assert list(look.get_xdata()) == [1, 2]
    assert list(look.get_ydata()) == pytest.approx([0.002, 0.004])
    assert ax.get_title().startswith("Stopped early")
    assert plots.look_ahead(hand_made(2, "answered")) is None


def test_compare_keys_each_run_with_its_prices_and_budget_mode():
    verbose = hand_made(2, "max_cost", budget=0.03)
    verbose.model, verbose.priced_as, verbose.budget_mode = "tutor-verbose", "gpt-4o", "after"
    fig = plots.compare(RUNS + [verbose])
    key = fig.texts[0].get_text().splitlines()[1:]  # under a header line
    assert len(key) == 4
    assert key[3].startswith("#4 tutor-verbose, priced as gpt-4o, budget 3¢ (pay, then check)")
    assert "(never exceed)" in key[0]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["#1", "#2", "#3", "#4"]


def test_loop_diagram_highlights_one_part():
    ax = plots.loop_diagram("act")
    faces = [matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches
             if hasattr(p, "get_boxstyle")]
    assert faces.count("#ffd166") == 1
    assert "One step = one turn" in ax.get_title()


def test_every_stop_reason_has_a_colour_and_can_be_drawn():
    """A run the playground's Stop ended ("interrupted") or one cut at the token cap
    ("truncated") is drawn like any other, never a KeyError."""
    from agentlab.records import STOP_REASONS

    assert set(plots.COLOURS) == set(STOP_REASONS)
    runs = [hand_made(1, reason) for reason in STOP_REASONS]
    assert len(plots.steps_per_run(runs).patches) == len(STOP_REASONS)
    assert len(plots.cost_per_run(runs).patches) == len(STOP_REASONS)


def test_a_title_is_wrapped_to_its_axes_so_a_half_width_panel_never_clips_it():
    title = "No run spent more than its budget (red mark: max_cost_usd)"
    fig, (half, _) = plt.subplots(1, 2, figsize=(9, 5))
    wide = plt.subplots(figsize=(12, 5))[1]
    assert "\n" in plots._fitted(half, title) and "\n" not in plots._fitted(wide, title)


def hidden_by_the_legend(ax) -> list[str]:
    """The bars, points and line vertices that the axes' legend covers (in pixels, drawn)."""
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    hidden = [f"bar at x={bar.get_x():.2f}" for bar in ax.patches
              if isinstance(bar, matplotlib.patches.Rectangle) and bar.get_height()
              and bar.get_window_extent().overlaps(legend)]
    for artist in [*ax.lines, *ax.collections]:
        points = (artist.get_xydata() if hasattr(artist, "get_xydata") else artist.get_offsets())
        hidden += [f"{type(artist).__name__} point {tuple(map(float, point))}"
                   for point, (x, y) in zip(points, ax.transData.transform(points))
                   if legend.contains(x, y)]
    return hidden


def test_the_price_comparison_keeps_its_legend_off_every_bar():
    # notebook 06's chart: the legend in the top right corner hid task 5's bars
    runs = [hand_made(3 + i % 2, "answered") for i in range(5)]
    ax = plots.price_comparison(runs, ["gpt-4o-mini", "gpt-4.1-mini", "gpt-4.1", "gpt-4o"])
    assert len(ax.patches) == 20 and not hidden_by_the_legend(ax)
    assert ax.get_title() == "Same tokens, 17x the price: gpt-4o against gpt-4o-mini"
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"task {i}" for i in range(1, 6)]


@pytest.mark.parametrize("count", [1, 3, 5, 12, 20])
def test_the_run_histories_legends_hide_no_bar_or_limit(count):
    reasons = ["answered", "max_steps", "max_cost", "answered", "error"]
    runs = [hand_made(1 + i % 4, reasons[i % 5], max_steps=3 + i % 3) for i in range(count)]
    for draw in (plots.steps_per_run, plots.cost_per_run):
        ax = draw(runs)
        assert not hidden_by_the_legend(ax), draw.__name__
        plt.close(ax.figure)
    panels = plots.compare(runs).axes  # the playground's four panels: smaller axes
    assert not hidden_by_the_legend(panels[0]) and not hidden_by_the_legend(panels[1])


def test_the_loop_diagram_draws_every_box_whole_inside_its_picture():
    # The ANSWER box's right border was cut off at the edge of the axes.
    for highlight in [None, "think", "act", "observe", "answer", "limits"]:
        ax = plots.loop_diagram(highlight)
        ax.figure.canvas.draw()
        frame = ax.get_window_extent()
        for box in [p for p in ax.patches if hasattr(p, "get_boxstyle")]:
            edge = box.get_window_extent()
            assert (frame.x0 <= edge.x0 and edge.x1 <= frame.x1 and frame.y0 <= edge.y0
                    and edge.y1 <= frame.y1), (highlight, edge, frame)
        plt.close(ax.figure)


@pytest.mark.parametrize("count, labels", [
    (3, ["#1", "#2", "#3"]), (10, [f"#{i}" for i in range(1, 11)]),
    (40, ["#1", "#5", "#10", "#15", "#20", "#25", "#30", "#35", "#40"]),
    (60, ["#1", "#10", "#20", "#30", "#40", "#50", "#60"])])
def test_a_long_history_labels_some_runs_so_the_labels_stay_apart(count, labels):
    ax = plots.steps_per_run([hand_made(2, "answered")] * count)
    assert [t.get_text() for t in ax.get_xticklabels()] == labels


def test_the_loop_diagram_names_where_each_guardrail_sits():
    # 04a's diagram lit only LIMITS, while most of the chapter's guardrails act in ACT/OBSERVE.
    ax = plots.loop_diagram(("act", "observe", "limits"), guardrails=plots.CHAPTER_GUARDRAILS)
    faces = [matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches
             if hasattr(p, "get_boxstyle")]
    assert faces.count("#ffd166") == 3
    texts = " ".join(t.get_text() for t in ax.texts)
    for guardrail in ["allowlist", "errors back", "printing", "truncation", "step limit",
                      "budget"]:
        assert guardrail in texts
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="no part acts"):
        plots.loop_diagram("acts")


@pytest.mark.parametrize("guardrails", [plots.CHAPTER_GUARDRAILS, plots.BEYOND_THE_CHAPTER,
                                        {"answer": "wind-down's answer"}])
def test_the_guardrails_written_on_the_loop_stay_inside_it_and_off_its_boxes(guardrails):
    ax = plots.loop_diagram(tuple(guardrails), guardrails=guardrails)
    ax.figure.canvas.draw()
    frame = ax.get_window_extent()
    boxes = [p.get_window_extent() for p in ax.patches if hasattr(p, "get_boxstyle")]
    labels = [t for t in ax.texts if t.get_text() in guardrails.values()]
    assert len(labels) == len(guardrails)
    for label in labels:
        edge = label.get_window_extent()
        assert frame.x0 <= edge.x0 and edge.x1 <= frame.x1, label.get_text()
        assert not [b for b in boxes if b.overlaps(edge)], label.get_text()
    plt.close(ax.figure)
