"""The playground driven from code: set the sliders, click Run, read the history and plots."""

import json

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from agentlab import connect  # noqa: E402
from agentlab.course.playground import Playground  # noqa: E402

TASKS = ["What's the weather in Paris, and should I take a coat?", "What is 2 + 2?"]


@pytest.fixture
def playground():
    return Playground(TASKS)


def test_three_runs_with_different_limits(playground):
    playground.task.value = "What is 2 + 2?"
    playground.model.value = "tutor-looper"
    playground.max_steps.value = 2
    playground.run_button.click()
    playground.max_steps.value = 5
    playground.run_button.click()
    playground.model.value = "tutor-verbose"
    playground.max_cost_usd.value = 0.001
    playground.run_button.click()

    runs = playground.history
    assert [r.limits["max_steps"] for r in runs] == [2, 5, 5]
    assert [r.limits["max_cost_usd"] for r in runs] == pytest.approx([0.5, 0.5, 0.001])
    assert [(r.stop_reason, len(r.steps)) for r in runs] == [("max_steps", 2), ("max_steps", 5),
                                                             ("max_cost", 1)]
    assert all(r.cost_usd <= r.limits["max_cost_usd"] for r in runs)
    assert "Run #3: stopped: max_cost after 1 step" in playground.status.value
    assert "stopped: max_cost" in playground.log.value


def test_the_history_plots_hold_a_bar_per_run(playground, monkeypatch):
    from agentlab.course import plots

    drawn = {}
    for name in ("steps_per_run", "cost_per_run", "cumulative_cost", "tokens_per_step", "timeline"):
        original = getattr(plots, name)

        def spy(data, ax, _original=original, _name=name, **options):
            drawn[_name] = _original(data, ax, **options)
            return drawn[_name]
        monkeypatch.setattr(plots, name, spy)

    for steps in (1, 2, 3):
        playground.model.value = "tutor-looper"
        playground.max_steps.value = steps
        playground.run_button.click()
    # Shown, as a cell ending in `playground` does: the three runs are drawn, as real PNGs (the
    # next test checks that every later run redraws).
    playground._repr_mimebundle_()
    assert len(drawn["steps_per_run"].patches) == 3
    assert [p.get_height() for p in drawn["steps_per_run"].patches] == [1, 2, 3]
    assert len(drawn["cost_per_run"].patches) == 3
    assert len(drawn["cumulative_cost"].get_lines()[0].get_xdata()) == 3  # the last run's steps
    # tokens per step: four parts (tool schemas, system prompt, conversation, completion)
    assert len(drawn["tokens_per_step"].patches) == 4 * 3 and len(drawn["timeline"].patches) == 2 * 3
    assert bytes(playground.history_plot.value).startswith(b"\x89PNG")
    assert bytes(playground.run_plot.value).startswith(b"\x89PNG")


def test_plots_are_drawn_once_the_panel_is_shown_and_after_each_run_from_then_on(
        playground, monkeypatch, unrendered_plots):
    import agentlab.course.playground as widgets

    drawn = []
    draw = widgets._KeptPicture.draw
    monkeypatch.setattr(widgets._KeptPicture, "draw", lambda picture, *new: drawn.append(
        [len(ax.patches) for ax in picture.figure.axes]) or draw(picture, *new))
    playground.model.value = "tutor-looper"
    for steps in (1, 2):  # driven from code, not shown (notebook 5's demo): nothing to draw
        playground.max_steps.value = steps
        playground.run_button.click()
    assert drawn == [] and bytes(playground.history_plot.value) == b""

    bundle = playground._repr_mimebundle_()  # shown: the runs so far are drawn at once
    assert "application/vnd.jupyter.widget-view+json" in bundle
    # A bar per run; for the last run's two steps, a line of cost (no bars), four token parts
    # and two time parts per step.
    assert drawn == [[2, 2], [0, 2 * 4, 2 * 2]]
    assert bytes(playground.history_plot.value) and bytes(playground.run_plot.value)
    playground._repr_mimebundle_()  # shown again (a second view): nothing new to draw
    assert len(drawn) == 2

    playground.max_steps.value = 3
    playground.run_button.click()  # from now on, every run redraws
    assert drawn[2:] == [[3, 3], [0, 3 * 4, 3 * 2]]


def test_sliders_and_pickers():
    playground = Playground(TASKS[0])
    for slider in (playground.max_steps, playground.max_cost_usd, playground.max_seconds,
                   playground.max_result_chars):
        assert slider.continuous_update is False
    assert playground.max_cost_usd.base == 10  # a log scale: 10 µ$ to $1
    assert "tutor-slow" in playground.model.options
    assert ("gpt-4o", "gpt-4o") in playground.priced_as.options


def test_priced_as_changes_only_the_price(playground):
    playground.run_button.click()
    playground.priced_as.value = "gpt-4o"
    playground.run_button.click()
    cheap, dear = playground.history
    assert cheap.prompt_tokens == dear.prompt_tokens and dear.cost_usd > 10 * cheap.cost_usd
    assert dear.priced_as == "gpt-4o"


def test_errors_show_in_the_panel(playground, monkeypatch):
    import agentlab.course.playground as widgets

    def broken(*args, **kwargs):
        raise RuntimeError("the model server is unplugged")

    monkeypatch.setattr(widgets, "run_agent", broken)
    assert playground.run() is None
    assert "RuntimeError: the model server is unplugged" in playground.status.value
    assert playground.last_error == "RuntimeError: the model server is unplugged"
    assert playground.history == [] and playground.run_button.disabled is False


def test_a_run_cannot_be_started_twice(playground):
    starts = []

    def step_observer_that_clicks_again(step):
        starts.append(playground.run())  # a second click while the first run is going

    import agentlab.course.playground as widgets

    original = widgets.run_agent

    def run_agent(*args, **kwargs):
        kwargs["on_step"] = [kwargs["on_step"], step_observer_that_clicks_again]
        return original(*args, **kwargs)

    widgets.run_agent = run_agent
    try:
        playground.run_button.click()
    finally:
        widgets.run_agent = original
    assert starts and all(s is None for s in starts)
    assert len(playground.history) == 1


def test_clear_and_save(playground, tmp_path, unrendered_plots):
    playground._repr_mimebundle_()  # shown: its plots are drawn
    playground.run_button.click()
    assert bytes(playground.history_plot.value) and bytes(playground.run_plot.value)
    target = playground.save(tmp_path / "runs.json")
    saved = json.loads(target.read_text())
    assert len(saved) == 1 and saved[0]["stop_reason"] == "answered"
    assert "Saved 1 run(s)" in playground.status.value
    assert playground.save(tmp_path / "missing-folder" / "runs.json") is None
    assert "could not save" in playground.status.value
    playground.clear()
    assert playground.history == [] and bytes(playground.history_plot.value) == b""
    assert playground.save(target) is None  # an empty history does not overwrite the runs
    assert "Nothing to save" in playground.status.value
    assert len(json.loads(target.read_text())) == 1


@pytest.mark.parametrize("configured, priced", [
    ("gpt-4o", "gpt-4o"), ("llama3.2", "llama3.2"), (None, "gpt-4o-mini")])
def test_a_real_model_is_priced_as_itself_not_as_the_tutor(configured, priced, monkeypatch):
    """A budget checked at gpt-4o-mini's prices would let a gpt-4o run spend 16 times more; an
    unknown model is then refused by the budget (it fails closed), as connect() does."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000")
    if configured:
        monkeypatch.setenv("AGENTLAB_MODEL", configured)
    else:
        monkeypatch.delenv("AGENTLAB_MODEL", raising=False)
    playground = Playground(TASKS[0])
    assert playground.priced_as.value == priced
    assert playground._client().priced_as() == priced
    playground.model.value = "tutor-verbose"  # a price the model picked goes with it
    assert playground.priced_as.value == "gpt-4o-mini"
    playground.priced_as.value = "gpt-4.1"  # a price the student picked stays
    playground.model.value = "tutor"
    assert playground.priced_as.value == "gpt-4.1"
    playground.model.value = playground.model.options[0]  # back to the real model: its price
    assert playground.priced_as.value == playground.model.options[0]


def test_a_given_clients_own_price_is_kept():
    from agentlab import Price

    local = Price(0, 0, "local")
    playground = Playground(TASKS[0], client=connect(priced_as=local))
    assert playground.priced_as.value == local and playground.priced_as.label == "local"
    playground.run_button.click()
    assert playground.history[-1].priced_as == "local" and playground.history[-1].cost_usd == 0


def test_a_plot_that_fails_on_first_display_leaves_the_panel_shown_with_the_error(
        playground, monkeypatch):
    def broken():
        raise RuntimeError("no fonts")

    monkeypatch.setattr(playground, "redraw", broken)
    bundle = playground._repr_mimebundle_()  # must not raise: the panel is still displayed
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "could not be drawn: RuntimeError: no fonts" in playground.status.value


def test_display_text_is_short_and_stable_and_says_to_run_the_cells(playground):
    """A notebook opened before its cells run shows this text where the panel will be."""
    bundle = playground._repr_mimebundle_()
    assert bundle["text/plain"] == (
        "<Playground: 2 task(s), 0 run(s)>\nThe live playground appears here once this "
        "notebook's cells have run: run them from the top (Shift+Enter on each, or Run > Run "
        "All Cells).")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_the_step_log_updates_live_during_a_run(playground, monkeypatch):
    import agentlab.course.playground as widgets

    seen = []
    original = widgets.run_agent

    def run_agent(*args, **kwargs):
        kwargs["on_step"] = [kwargs["on_step"], lambda step: seen.append(playground.log.value)]
        return original(*args, **kwargs)

    monkeypatch.setattr(widgets, "run_agent", run_agent)
    playground.model.value = "tutor-looper"
    playground.max_steps.value = 3
    playground.run_button.click()
    assert len(seen) == 3
    assert ["step 0:" in v and "step 1:" not in v for v in seen] == [True, False, False]
    assert "step 1:" in seen[1] and "step 2:" not in seen[1] and "step 2:" in seen[2]


def test_the_model_picker_offers_the_real_model_when_one_is_configured(monkeypatch):
    assert Playground(TASKS).model.options[0] == "tutor"  # offline: the personas only
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("AGENTLAB_MODEL", "llama3.2")
    options = Playground(TASKS).model.options
    assert options[0] == "llama3.2" and "tutor-looper" in options


def test_only_standard_ipywidgets_so_any_front_end_renders_it(playground):
    """JupyterLab, VS Code and Colab render the standard widget set; no custom front-end code."""
    def walk(widget):
        yield widget
        for child in getattr(widget, "children", ()):
            yield from walk(child)

    modules = {(w._view_module, w._model_module) for w in walk(playground.panel)}
    assert modules <= {("@jupyter-widgets/controls", "@jupyter-widgets/controls"),
                       ("@jupyter-widgets/base", "@jupyter-widgets/base")}
    assert len(list(walk(playground.panel))) > 15


def press(button):
    """What a click in the front end sends the kernel (`.click()` is the code-driven path)."""
    button._handle_button_msg(button, {"event": "click"}, [])


def test_a_double_click_in_the_front_end_never_starts_two_runs(playground, quick_slow_tutor):
    playground.model.value = "tutor-slow"  # a run takes a second: the second press lands in it
    press(playground.run_button)
    press(playground.run_button)  # the double click
    assert "already going" in playground.status.value
    run = playground.wait(30)
    assert len(playground.history) == 1 and run.stop_reason == "answered"
    assert playground.run_button.disabled is False and playground.stop_button.disabled is True


def test_stop_ends_a_run_at_the_next_step_boundary(playground, monkeypatch):
    import agentlab.course.playground as widgets

    original = widgets.run_agent

    def run_agent(*args, **kwargs):  # Stop pressed while step 1 is going
        press_stop = lambda step: step.index == 1 and playground.stop_button.click()  # noqa: E731
        kwargs["on_step"] = [press_stop, kwargs["on_step"]]
        return original(*args, **kwargs)

    monkeypatch.setattr(widgets, "run_agent", run_agent)
    playground.model.value = "tutor-looper"
    playground.run_button.click()
    run = playground.history[-1]
    assert run.stop_reason == "interrupted" and len(run.steps) == 2
    assert "Stop button" in run.stop_detail and "stopped: interrupted" in playground.log.value
    monkeypatch.setattr(widgets, "run_agent", original)
    playground.run_button.click()  # the next run is not stopped by the last one's Stop
    assert playground.history[-1].stop_reason == "max_steps"


def test_stop_from_the_front_end_while_a_run_goes_in_the_background(playground, quick_slow_tutor):
    playground.model.value = "tutor-slow"
    press(playground.run_button)
    playground.stop_button.click()
    run = playground.wait(30)
    assert run.stop_reason == "interrupted" and len(run.steps) == 1


def test_the_playground_log_and_saved_json_hold_no_key(playground, monkeypatch, tmp_path,
                                                       fast_retries):
    from agentlab import tool

    key = "sk-proj-FAKEfakeFAKEfake0123456789abcdefABCDEF"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    @tool
    def get_weather(city: str) -> str:
        """Get the weather in a city."""
        return f"rain (fetched with {key})"

    panel = Playground(TASKS[0], tools=[get_weather])
    panel.model.value = "tutor"  # the key would pick the real API: stay offline, reach the tool
    panel.run_button.click()
    saved = panel.save(tmp_path / "runs.json").read_text()
    assert "rain (fetched with [masked key])" in saved  # the tool ran; its key was masked
    for text in (panel.log.value, saved, panel.status.value):
        assert key[:10] not in text


def test_the_plots_are_hidden_until_there_is_a_run_so_no_broken_image_shows(playground):
    playground._repr_mimebundle_()  # shown, with no run yet: an empty image would be broken
    assert playground.history_plot.layout.display == playground.run_plot.layout.display == "none"
    playground.run_button.click()
    assert playground.history_plot.layout.display is None and bytes(playground.history_plot.value)
    assert playground.run_plot.layout.display is None and bytes(playground.run_plot.value)
    playground.clear()
    assert playground.history_plot.layout.display == playground.run_plot.layout.display == "none"


def test_the_figures_are_kept_between_runs_and_redrawn_in_place(playground):
    """Two figures for the panel's life, each run's drawing replacing the last one's: the
    legends name each stop reason once, and there is a bar per run, not per drawing."""
    playground._repr_mimebundle_()
    playground.model.value = "tutor-looper"
    for steps in (1, 2, 3):
        playground.max_steps.value = steps
        playground.run_button.click()
        figures = playground._figures
        history, run = (picture.figure for picture in figures)
        assert playground._figures is figures  # the same two figures after every run
    steps, cost = history.axes
    assert [p.get_height() for p in steps.patches] == [1, 2, 3]
    assert len(cost.patches) == 3
    assert [t.get_text() for t in steps.get_legend().get_texts()] == [
        "max_steps", "step limit (max_steps)"]
    spent, tokens, times = run.axes
    assert len(spent.get_lines()[0].get_xdata()) == 3 and len(tokens.patches) == 4 * 3
    assert [t.get_text() for t in times.get_legend().get_texts()] == ["model", "tools"]
    assert times.get_xlim()[1] >= max(s.model_seconds + s.tool_seconds  # every step shows
                                      for s in playground.history[-1].steps)
    playground.max_cost_usd.value = 1e-5  # too small for one call: a run with no step
    playground.run_button.click()
    # an empty timeline, on an emptied axes' scale ended past its round number
    from agentlab.course.playground import _round_up

    assert playground.history[-1].steps == [] and len(times.patches) == 0
    right = times.get_xlim()[1] / 1.05
    assert times.get_xlim()[0] == 0 and right == pytest.approx(_round_up(right))


def test_the_plots_are_drawn_at_the_size_they_are_shown():
    """At most 820 px wide, the output area's width on a 1280x800 screen with JupyterLab's
    file browser open: a wider picture is scaled down, and its 13-px text with it."""
    import struct

    playground = Playground(TASKS[0])
    playground._repr_mimebundle_()
    playground.run_button.click()
    for image in (playground.history_plot, playground.run_plot):
        width, height = struct.unpack(">II", bytes(image.value)[16:24])  # the PNG's IHDR
        assert 700 <= width <= 820 and height >= 250


def test_a_run_added_to_the_history_adds_its_bars_and_keeps_the_others(playground):
    """The history plot keeps the bars it drew; after another run it adds only the new run's
    (the bar patches are the same objects), and after Clear it starts again."""
    playground._repr_mimebundle_()
    for steps in (1, 2):
        playground.model.value = "tutor-looper"
        playground.max_steps.value = steps
        playground.run_button.click()
    steps_axes, cost_axes = playground._figures[0].figure.axes
    before = list(steps_axes.patches)
    playground.max_steps.value = 3
    playground.run_button.click()
    assert steps_axes.patches[:2] == before and len(steps_axes.patches) == 3
    assert [p.get_height() for p in steps_axes.patches] == [1, 2, 3] and len(cost_axes.patches) == 3
    playground.history.pop()  # a history that did not just grow is drawn again whole
    playground.max_steps.value = 4
    playground.run_button.click()
    assert [p.get_height() for p in steps_axes.patches] == [1, 2, 4]
    assert steps_axes.patches[0] is not before[0]
    playground.clear()
    playground.run_button.click()
    assert [p.get_height() for p in steps_axes.patches] == [4] and len(cost_axes.patches) == 1


# --- the pictures kept as pixels: a press redraws only what changed -------------------------

def pixels(image):
    """An Image widget's PNG as an array of pixels (rows x columns x RGB)."""
    import io

    import numpy
    from PIL import Image

    return numpy.array(Image.open(io.BytesIO(bytes(image.value))))


def drawn_whole(picture):
    """The same figure drawn afresh on a new canvas: what the kept pixels must equal."""
    import io

    import numpy
    from PIL import Image

    from agentlab.course.playground import _KeptPicture

    fresh = _KeptPicture(picture.figure)
    fresh.draw()
    return numpy.array(Image.open(io.BytesIO(fresh.png())))


def test_each_press_shows_the_same_pixels_as_the_figures_drawn_afresh(playground):
    """Painting over kept pixels must not show what a whole drawing would not: after runs that
    add a bar, change the step limit, stop with no step (its "0" mark), change the legend
    and pass the room on the x axis (10 runs), both plots are the figures drawn afresh."""
    import numpy

    playground._repr_mimebundle_()
    playground.model.value = "tutor-looper"
    settings = [{"max_steps": 2}, {"max_steps": 3}, {"max_steps": 3},
                {"max_cost_usd": 1e-5}, {"max_cost_usd": 0.5, "max_steps": 1}]
    settings += [{"max_steps": 2 + i % 2} for i in range(7)]  # runs 6 to 12: past 10
    for number, setting in enumerate(settings, 1):
        for name, value in setting.items():
            getattr(playground, name).value = value
        playground.run_button.click()
        history, run = playground._figures
        assert (pixels(playground.history_plot) == drawn_whole(history)).all(), number
        assert (pixels(playground.run_plot) == drawn_whole(run)).all(), number
    assert len(playground.history) == 12 and playground.history[3].steps == []
    for image, picture in zip((playground.history_plot, playground.run_plot), playground._figures):
        picture.canvas.draw()  # and matplotlib's own drawing of the whole figure agrees
        assert (pixels(image) == numpy.array(picture.canvas.buffer_rgba())[..., :3]).all()


def test_a_new_run_repaints_only_its_own_place_and_the_titles(playground, monkeypatch):
    """With the history's frame unchanged, a press paints the new run's bar and limit mark
    and each title; every other pixel of the history plot stays as it was."""
    import numpy

    import agentlab.course.playground as widgets

    playground._repr_mimebundle_()
    playground.model.value = "tutor-looper"
    for steps in (2, 3, 2):
        playground.max_steps.value = steps
        playground.run_button.click()
    before = pixels(playground.history_plot)
    painted, frames = [], []
    paint, draw_frame = widgets._KeptPicture._paint, widgets._KeptPicture._draw_frame
    monkeypatch.setattr(widgets._KeptPicture, "_paint", lambda picture, box, *rest: (
        picture is playground._figures[0] and painted.append(box)) or paint(picture, box, *rest))
    monkeypatch.setattr(widgets._KeptPicture, "_draw_frame", lambda picture, ax, *rest: (
        frames.append(picture)) or draw_frame(picture, ax, *rest))
    playground.max_steps.value = 3
    playground.run_button.click()

    history = playground._figures[0]
    assert history not in frames  # the history's frame (axes, ticks, labels) was kept
    assert len(painted) == 4  # per axes: the new run's place, then the title's
    steps, cost = history.figure.axes
    for ax, (run_box, title_box) in zip((steps, cost), [painted[:2], painted[2:]]):
        bar = ax.patches[3].get_window_extent()
        assert run_box.x0 <= bar.x0 and bar.x1 <= run_box.x1
        assert run_box.width < ax.bbox.width / 4  # its place, not the axes
        assert title_box.y0 >= ax.bbox.y1 - 3  # above the axes
    after = pixels(playground.history_plot)
    changed = numpy.argwhere((after != before).any(axis=2))
    height = after.shape[0]
    for row, column in changed:  # every changed pixel lies in a painted box
        assert any(box.x0 <= column < box.x1 and box.y0 <= height - row <= box.y1
                   for box in painted), (row, column)
    assert len(changed) > 0


def test_the_history_axis_has_room_for_the_runs_to_come(playground, monkeypatch):
    """A run that fits the room adds its bar and moves no other; past it, the room grows
    (10, 20, 50...) and the frame is drawn again."""
    from agentlab.course import plots

    assert [plots.room_for(n) for n in (0, 1, 10, 11, 40, 50, 51, 200, 201)] == [
        10, 10, 10, 20, 50, 50, 100, 200, 500]
    playground._repr_mimebundle_()
    playground.run_button.click()
    steps, cost = playground._figures[0].figure.axes
    assert steps.get_xlim() == cost.get_xlim() == pytest.approx((-0.6, 9.6))
    assert [t.get_text() for t in steps.get_xticklabels()] == [f"#{i}" for i in range(1, 11)]
    playground.history.extend(playground.history * 9)  # ten runs: still the same room
    playground.run_button.click()
    assert steps.get_xlim() == pytest.approx((-0.6, 19.6))
    assert [t.get_text() for t in steps.get_xticklabels()] == ["#1", *(f"#{i}" for i in
                                                                      range(2, 21, 2))]
    # the plots elsewhere are laid out for the runs they have, as before
    ax = plots.steps_per_run(playground.history[:2])
    assert ax.get_xlim() == pytest.approx((-0.6, 2.6))


def test_the_drawn_pngs_are_the_size_they_are_shown_at_after_every_kind_of_press(playground):
    """820 px wide at 72 dpi (a point is a pixel): the first drawing, a press that paints
    over the kept picture, and the press after Clear."""
    playground._repr_mimebundle_()
    for _ in range(2):
        playground.run_button.click()
        assert pixels(playground.history_plot).shape == (309, 820, 3)
        assert pixels(playground.run_plot).shape == (518, 820, 3)
    playground.clear()
    playground.run_button.click()
    assert pixels(playground.history_plot).shape == (309, 820, 3)


def test_a_model_or_price_change_and_save_draw_nothing_and_keep_the_state(
        playground, monkeypatch, tmp_path):
    """The other controls answer at once: none of them draws, and each leaves the history,
    the pictures and the panel as a student expects."""
    import agentlab.course.playground as widgets

    playground._repr_mimebundle_()
    playground.run_button.click()
    shown = bytes(playground.history_plot.value), bytes(playground.run_plot.value)
    drawn = []
    monkeypatch.setattr(widgets._KeptPicture, "draw", lambda *args: drawn.append(args))
    playground.model.value = "tutor-verbose"
    playground.priced_as.value = "gpt-4o"
    assert playground.save(tmp_path / "runs.json") is not None
    assert drawn == [] and len(playground.history) == 1
    assert (bytes(playground.history_plot.value), bytes(playground.run_plot.value)) == shown
    assert playground.model.value == "tutor-verbose" and playground.priced_as.value == "gpt-4o"
    playground.clear()  # hides the plots; nothing to draw until the next run
    assert drawn == [] and playground.history == []
    assert playground.history_plot.layout.display == "none"
    assert bytes(playground.history_plot.value) == b""


# --- a press answers first, then draws the detail (issue 35) ----------------------------------

def test_a_press_draws_the_history_and_frees_the_run_button_before_the_last_runs_plot(
        playground):
    """The history plot (what the press compares) is sent, then the Run button is usable again,
    then the last run's plot comes; a second press the same way."""
    playground._repr_mimebundle_()
    order = []
    playground.history_plot.observe(lambda _: order.append("history plot"), names="value")
    playground.run_plot.observe(lambda _: order.append("run plot"), names="value")
    playground.run_button.observe(
        lambda change: order.append(f"run button {'off' if change['new'] else 'on'}"),
        names="disabled")
    for steps in (3, 4):
        playground.max_steps.value = steps
        playground.start()
        playground.wait(60)
    press = ["run button off", "history plot", "run button on", "run plot"]
    assert order == press + press
    assert playground.history_plot.layout.display is None
    assert playground.run_plot.layout.display is None


def test_a_runs_detail_is_not_drawn_once_a_later_run_has_taken_its_place(playground):
    playground._repr_mimebundle_()
    playground.run_button.click()
    first = playground.history[-1]
    playground.max_steps.value = 3
    playground.run_button.click()
    shown = bytes(playground.run_plot.value)
    playground._after_the_press(first)  # the first run's detail, late: the second's stays
    assert bytes(playground.run_plot.value) == shown


def test_a_failing_detail_drawing_is_said_in_the_panel_and_the_run_kept(playground, monkeypatch):
    playground._repr_mimebundle_()

    def broken(self):
        raise RuntimeError("no fonts")

    monkeypatch.setattr(Playground, "_draw_last_run", broken)
    playground.run_button.click()
    assert len(playground.history) == 1 and not playground.run_button.disabled
    assert "the plots could not be drawn: RuntimeError: no fonts" in playground.status.value


def test_save_writes_what_one_json_dump_of_the_history_would_each_run_made_once(
        playground, tmp_path, monkeypatch):
    """Byte for byte the JSON list of the runs' records at indent 1, masked; each run's part
    is made once (when its press ends), so a save at 200 runs does not make 200 again."""
    from agentlab.masking import mask
    from agentlab.records import Run

    made = []
    to_dict = Run.to_dict
    monkeypatch.setattr(Run, "to_dict", lambda self: made.append(self) or to_dict(self))
    key = "sk-proj-" + "a1B2c3D4e5" * 4
    for task in TASKS:
        playground.task.value = task
        playground.run_button.click()
    playground.history[0].answer = f"the key is {key}"  # a record edited by hand...
    playground._saved_texts.clear()  # ...made again at the save
    target = playground.save(tmp_path / "runs.json")
    playground.run_button.click()
    playground.save(target)
    # each run's part made at its press; the first two again once the cache was emptied, and
    # not at the second save
    assert [sum(m is run for m in made) for run in playground.history] == [2, 2, 1]
    monkeypatch.setattr(Run, "to_dict", to_dict)
    expected = mask(json.dumps([r.to_dict() for r in playground.history], indent=1))
    assert target.read_text() == expected
    assert key not in expected and "the key is [masked key]" in expected
    playground.history.pop(0)  # a run taken out of the history leaves the file and the cache
    playground.save(target)
    assert len(json.loads(target.read_text())) == 2 and len(playground._saved_texts) == 2
