"""The limits playground: sliders for the limits, a Run button, a live step log and plots.

    from agentlab.course.playground import Playground
    playground = Playground(["What's the weather in Paris, and should I take a coat?", ...])
    playground            # in a notebook: the panel

Move a slider, press Run, compare the runs. Everything can be driven from code as well, which
is how the notebooks and the tests use it:

    playground.max_steps.value = 2
    playground.run_button.click()
    playground.history[-1].stop_reason      # 'max_steps'

Design notes:
- Standard ipywidgets only (no custom front-end code), so it works in JupyterLab, VS Code and
  Colab. The step log is an HTML widget and the plots are PNG Image widgets whose *values* are
  updated: no Output-widget capture, so a notebook cell that drives the panel prints nothing
  unexpected and nbval sees exactly what the cell itself prints.
- Sliders use continuous_update=False: a run starts only when Run is pressed.
- A failing run shows its error message in the panel (and in `last_error`), never swallowed.
- Pressing Run in the front end starts the run on a background thread, so the kernel stays
  free to hear Stop, and a second press (a double click) while it goes is refused, not queued
  behind it. `.click()` from code runs synchronously, so a cell can read the result at once.
- Stop ends the run at the next step boundary (stop reason "interrupted"); the steps so far
  are kept in the history like any other run.
- The plots are drawn for a panel someone can see: after each run once the panel has been
  shown, and at once when it is first shown. A copy driven from code and never shown (notebook
  5's `demo`) skips the two figures. They are made once and kept as pixels, at the size they
  are shown, and hidden until there is a run to draw. A press redraws only what changed: the
  new run's bar and limit marks and the titles on the history plot (whose x axis keeps room
  for the runs to come), and on the last run's plot what is on axes whose ticks held
  (_KeptPicture; benchmarks/playground_press.py times a press). Shown means displayed itself
  (`playground` or `playground.panel` as a cell's result, or display()); a panel put inside
  another container is not told, so call `playground.redraw()` after its runs there.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import pathlib
import threading
import time
from collections.abc import Sequence

import ipywidgets as W

from agentlab.loop import Limits, StopRun, run_agent
from agentlab.models import TUTOR_MODELS, connect
from agentlab.records import Run, format_step, redact
from agentlab.toolkit import COURSE_TOOLS

PRICE_MODELS = ["gpt-4o-mini", "gpt-4.1-mini", "gpt-5-mini", "gpt-4o", "gpt-4.1", "gpt-5"]
RUN_THE_CELLS = ("The live playground appears here once this notebook's cells have run: run them "
                 "from the top (Shift+Enter on each, or Run > Run All Cells).")
_LOG_STYLE = ("font-family: monospace; font-size: 12px; white-space: pre-wrap; max-height: 16em; "
              "overflow-y: auto; border: 1px solid #ccc; padding: 4px; margin: 0")


def _model_choices() -> list[str]:
    """The tutor's personas, and first the real model when a key or server is configured."""
    import os

    from agentlab.models import DEFAULT_ONLINE_MODEL

    real = []
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        real = [os.environ.get("AGENTLAB_MODEL") or DEFAULT_ONLINE_MODEL]
    return real + [p for p in TUTOR_MODELS if p not in real]


def _own_price(client, model: str):
    """What a run is charged at until the student picks a price: a real model its own prices
    (or the client's, if it was given one), a tutor persona gpt-4o-mini's. A real model that
    genai-prices does not know is then refused by the budget, as connect() would refuse it,
    rather than charged at another model's prices.

    Example: "gpt-4o" -> "gpt-4o"; "tutor-verbose" -> "gpt-4o-mini"; "llama3.2" -> "llama3.2"
    """
    if client is not None:
        return client.priced_as(model)
    return PRICE_MODELS[0] if model in TUTOR_MODELS else model


def _price_option(price) -> tuple:
    """A dropdown option, (label, value): a model name, or a Price under its name.

    Example: "gpt-4o" -> ("gpt-4o", "gpt-4o"); Price(0, 0, "local") -> ("local", Price(...))
    """
    return str(getattr(price, "model", price)), price


def _encoded(canvas) -> bytes:
    """The canvas's pixels as they are, as a PNG: RGB (the figures are opaque, so a quarter
    fewer bytes to send than RGBA) at zlib's fastest level (~40-60 KB, a few ms sooner)."""
    from PIL import Image

    buffer = io.BytesIO()
    pixels = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(),
                              "raw", "RGBA", 0, 1)
    pixels.convert("RGB").save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


SEND_PAUSE_S = 0.015  # after a press's answer, before its last drawing (_after_the_press)

# The figures are drawn at the size they are shown, at 72 dpi (a point is a pixel): 820 px
# wide fits the output area of a 1280x800 JupyterLab with its file browser open, so the
# 13-point text of agentlab.course.plots shows at 13 px instead of being scaled down to 7.
HISTORY_SIZE = (11.4, 4.3)  # steps and cost per run, side by side
RUN_SIZE = (11.4, 7.2)      # the last run: cost and tokens side by side, its timeline under them
MARGINS = {"left": 0.09, "right": 0.98, "bottom": 0.13, "top": 0.8, "wspace": 0.32}


def _figures():
    """The playground's two figures, made once and redrawn in place after every run.

    Outside pyplot's global state (safe to draw on the run's background thread), each on its
    own Agg canvas at 72 dpi, with fixed margins: a layout pass per redraw (tight_layout)
    would cost as much as the drawing.
    """
    from matplotlib.figure import Figure

    history = Figure(figsize=HISTORY_SIZE, dpi=72)
    history.subplots(1, 2)
    history.subplots_adjust(**MARGINS)
    run = Figure(figsize=RUN_SIZE, dpi=72)
    grid = run.add_gridspec(2, 2, height_ratios=(3, 2), hspace=0.6)
    run.add_subplot(grid[0, 0]), run.add_subplot(grid[0, 1]), run.add_subplot(grid[1, :])
    run.subplots_adjust(**{**MARGINS, "bottom": 0.08, "top": 0.88})
    return _KeptPicture(history), _KeptPicture(run)


def _emptied(figure, keep_bars: bool = False) -> list:
    """The figure's axes, with what the last drawing put on them taken off, ready for the next.

    Not Axes.clear(): that throws away the axes' ticks too, and making ticks anew is most of
    a redraw's time. Taken off here: every bar, line, marker and text the plots add, and what
    they set that the next drawing might not set again (a log scale, an inverted axis).
    keep_bars: leave the bars and their "0" marks, for a drawing that only adds bars.
    """
    for ax in figure.axes:
        if not keep_bars:
            for container in [*ax.containers]:  # bars: the legend would find them again
                container.remove()
        for artist in [*ax.lines, *ax.collections,
                       *([] if keep_bars else [*ax.patches, *ax.texts])]:
            artist.remove()
        if ax.legend_ is not None:
            ax.legend_.remove()
        if ax.get_yscale() != "linear":
            ax.set_yscale("linear")
        ax.yaxis.set_inverted(False)
        if keep_bars:  # the history's plots set both limits; relim would measure every bar
            continue
        # A fresh axes' limits, then autoscaling on: a run with no steps draws nothing, and
        # must not be shown on the last run's scale
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.relim()
        ax.autoscale()
    return figure.axes


class _KeptPicture:
    """A figure kept as pixels between runs, redrawn only where its picture changed.

    Each axes has a frame (its background, grid, ticks and labels) and what is drawn on it
    (bars, lines, marks, spines, title, legend). The frames are kept as pixels: an axes whose
    limits and ticks are as they were keeps its frame, and only what is on it is painted
    again over that frame. In the history plot, a run added to the history paints only its
    own bar and limit marks, and the new title (new_runs); its x axis has room for the runs to
    come (plots.room_for), so that no other bar moves.
    """

    def __init__(self, figure):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure, self.canvas = figure, FigureCanvasAgg(figure)
        self._frame = None  # the frames' pixels, rows from the top (height x width x 4)
        self._frame_keys = {}  # axes -> what its frame was drawn from (see _frame_key)
        self._frame_boxes = {}  # axes -> where its frame was drawn (ticks and labels included)
        self._titles = {}  # axes -> where its title was drawn, to be painted over
        self._legends = {}  # axes -> what its legend said (see _legend_key)

    def draw(self, new_runs: range | None = None) -> None:
        """Bring the pixels up to date with the axes. `new_runs`: only these runs' bars and
        marks were added since the last drawing (and the titles changed)."""
        renderer = self.canvas.get_renderer()
        if self._frame is None:
            self._draw_frames()
            new_runs = None  # nothing is on the frames yet
        for ax in self.figure.axes:
            if self._frame_keys[ax] != self._frame_key(ax):
                self._draw_frame(ax, renderer)
                self._paint_axes(ax, renderer)
            elif (new_runs is None or self._legends.get(ax) != _legend_key(ax, renderer)
                  or not self._paint_runs(ax, new_runs, renderer)):
                self._paint_axes(ax, renderer)
        self._titles = {ax: ax.title.get_window_extent(renderer) for ax in self.figure.axes}
        self._legends = {ax: _legend_key(ax, renderer) for ax in self.figure.axes}

    def png(self) -> bytes:
        return _encoded(self.canvas)

    # --- the frames --------------------------------------------------------------------------

    @staticmethod
    def _on_frame(ax) -> list:
        """What is drawn on the frame: all the axes holds but its background and axis."""
        return [*ax.patches, *ax.lines, *ax.collections, *ax.texts, *ax.spines.values(),
                ax.title, *([ax.legend_] if ax.legend_ else [])]

    @staticmethod
    def _frame_key(ax) -> tuple:
        """What a frame is drawn from: limits, scales, ticks and axis labels.

        Example: a history plot's steps axes -> ((-0.6, 9.6), (0.0, 18.9), 'linear', ...)
        """
        return (ax.get_xlim(), ax.get_ylim(), ax.get_xscale(), ax.get_yscale(),
                tuple(ax.get_xticks()), tuple(ax.get_yticks()),
                tuple(t.get_text() for t in ax.get_xticklabels()),
                tuple(t.get_text() for t in ax.get_yticklabels()),
                ax.get_xlabel(), ax.get_ylabel())

    def _draw_frames(self) -> None:
        """Every frame at once, the first time: the whole figure with nothing on its axes."""
        import numpy as np

        with _hidden([a for ax in self.figure.axes for a in self._on_frame(ax)]):
            self.canvas.draw()
        self._frame = np.array(self.canvas.buffer_rgba())  # a copy: the canvas goes on
        renderer = self.canvas.get_renderer()
        for ax in self.figure.axes:
            self._frame_keys[ax] = self._frame_key(ax)
            with _hidden(self._on_frame(ax)):
                self._frame_boxes[ax] = _whole_pixels(ax.get_tightbbox(renderer))
            self._titles[ax] = ax.title.get_window_extent(renderer)

    def _draw_frame(self, ax, renderer) -> None:
        """One axes' frame again, where the old one was and the new one goes."""
        from matplotlib.colors import to_rgba
        from matplotlib.transforms import Bbox

        with _hidden(self._on_frame(ax)):
            box = _whole_pixels(ax.get_tightbbox(renderer))
            region = _pixels(self._frame, Bbox.union([box, self._frame_boxes[ax]]))
            self._frame[region] = [round(255 * c) for c in to_rgba(self.figure.get_facecolor())]
            canvas = self._canvas_pixels()
            canvas[region] = self._frame[region]
            ax.draw(renderer)
            self._frame[region] = canvas[region]
        self._frame_keys[ax], self._frame_boxes[ax] = self._frame_key(ax), box

    # --- what is on them ---------------------------------------------------------------------

    def _paint_axes(self, ax, renderer) -> None:
        """All that is on the axes, over its frame: within the axes, the old and new titles'
        places and the legend's."""
        from matplotlib.transforms import Bbox

        places = [ax.bbox.padded(2), self._titles[ax], ax.title.get_window_extent(renderer)]
        if ax.legend_:
            places.append(ax.legend_.get_window_extent(renderer))
        self._paint(_whole_pixels(Bbox.union(places)), self._on_frame(ax), renderer)

    def _paint_runs(self, ax, new_runs: range, renderer) -> bool:
        """Only the new runs' bars and marks, and the title; False (nothing painted) where a
        new run's place meets the legend, which cannot be drawn in part."""
        from matplotlib.transforms import Bbox

        boxes = [self._run_box(ax, i, renderer) for i in new_runs]
        legend = ax.legend_.get_window_extent(renderer) if ax.legend_ else None
        if legend is not None and any(box.overlaps(legend) for box in boxes):
            return False
        for box in boxes:
            self._paint(box, self._touching(ax, box), renderer)
        title = ax.title.get_window_extent(renderer)  # the old title's place, and the new's
        self._paint(_whole_pixels(Bbox.union([self._titles[ax], title]).padded(2)),
                    [ax.title, *ax.spines.values()], renderer)  # the top spine is under it
        return True

    @staticmethod
    def _run_box(ax, index: int, renderer):
        """Where run `index` is drawn, in whole pixels: its bar, its "0" mark and its limit
        marks (as wide as the marker, which in a long history is wider than a run's place),
        within the axes."""
        from matplotlib.transforms import Bbox

        parts = [ax.patches[index].get_window_extent(renderer)]
        parts += [t.get_window_extent(renderer) for t in ax.texts
                  if t.get_position()[0] == index]
        for marks in ax.collections:
            # The marker's own shape (a "_" is a line as wide as its size and as high as its
            # line is thick), in points, then pixels
            shape = marks.get_paths()[0].get_extents()
            size = marks.get_sizes().max() ** 0.5 * ax.figure.dpi / 72
            thick = marks.get_linewidths().max() / 2 * ax.figure.dpi / 72
            wide = size * max(abs(shape.x0), abs(shape.x1)) + thick
            high = size * max(abs(shape.y0), abs(shape.y1)) + thick
            offsets = marks.get_offsets()
            for x, y in ax.transData.transform(offsets[offsets[:, 0] == index]):
                parts.append(Bbox.from_extents(x - wide, y - high, x + wide, y + high))
        return _whole_pixels(Bbox.intersection(Bbox.union(parts).padded(2), ax.bbox))

    @staticmethod
    def _touching(ax, box) -> list:
        """What is drawn inside `box`: the bars of the runs it spans, the limit marks, the
        "0" marks near it, and the spines, which lie over the bars."""
        left, right = ax.transData.inverted().transform([(box.x0, 0), (box.x1, 0)])[:, 0]
        bars = ax.patches[max(0, int(left)):max(0, int(right) + 2)]
        zeros = [t for t in ax.texts if left - 1 <= t.get_position()[0] <= right + 1]
        return [*bars, *ax.collections, *zeros, *ax.spines.values()]

    def _paint(self, box, artists, renderer) -> None:
        """The frame's pixels inside `box`, then `artists` drawn over them, clipped to it."""
        from matplotlib.transforms import Bbox

        region = _pixels(self._frame, box)
        self._canvas_pixels()[region] = self._frame[region]
        for artist in sorted(artists, key=lambda a: a.get_zorder()):
            clip_on, clip_box = artist.get_clip_on(), artist.get_clip_box()
            inside = box if clip_box is None else Bbox.intersection(clip_box, box)
            if inside is None:  # its own clip and the box do not meet: nothing to draw
                continue
            artist.set_clip_on(True)
            artist.set_clip_box(inside)
            try:
                artist.draw(renderer)
            finally:
                artist.set_clip_on(clip_on)
                artist.set_clip_box(clip_box)

    def _canvas_pixels(self):
        import numpy as np

        return np.asarray(self.canvas.buffer_rgba())


def _legend_key(ax, renderer) -> tuple | None:
    """What the axes' legend says, and where: a legend that changed is painted again whole.

    Example: ('answered', 'step limit (max_steps)', (576.0, 218.5, 160.1, 45.2))
    """
    if ax.legend_ is None:
        return None
    return (*(t.get_text() for t in ax.legend_.get_texts()),
            tuple(ax.legend_.get_window_extent(renderer).bounds))


@contextlib.contextmanager
def _hidden(artists):
    """The artists made invisible for a while (drawing a frame without what is on it)."""
    shown = [a for a in artists if a.get_visible()]
    for artist in shown:
        artist.set_visible(False)
    try:
        yield
    finally:
        for artist in shown:
            artist.set_visible(True)


def _pixels(image, box) -> tuple:
    """The rows and columns of `image` (rows from the top) inside `box` (display pixels, y
    from the bottom), cut to the image.

    Example: in a 310-row image, Bbox([[10, 4], [21, 9]]) -> rows 301:306, columns 10:21
    """
    height, width = image.shape[:2]
    x0, y0, x1, y1 = (int(v) for v in box.extents)
    return (slice(max(0, height - y1), max(0, height - max(0, y0))),
            slice(max(0, x0), max(0, min(width, x1))))


def _round_up(value: float) -> float:
    """The next 1, 2 or 5 times a power of ten, from `value` up.

    Example: 0.0123 -> 0.02; 0.05 -> 0.05; 3.2 -> 5.0; 0 -> 1.0
    """
    import math

    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= value * (1 - 1e-9))


def _whole_pixels(box):
    """The box grown to whole pixels, so that what is restored and what is drawn agree.

    Example: Bbox([[10.3, 4.8], [20.1, 9.0]]) -> Bbox([[10, 4], [21, 9]])
    """
    import math

    from matplotlib.transforms import Bbox

    return Bbox.from_extents(math.floor(box.x0), math.floor(box.y0), math.ceil(box.x1),
                             math.ceil(box.y1))


class _PressButton(W.Button):
    """A standard Button (the same front-end widget) whose presses in the front end call
    `on_press` instead of the click handlers; `.click()` from code still calls those."""

    def __init__(self, on_press, **kwargs):
        super().__init__(**kwargs)
        self._on_press = on_press

    def _handle_button_msg(self, _, content, buffers):
        if content.get("event") == "click":
            self._on_press()


class _Panel(W.VBox):
    """The playground's panel: a VBox that tells the playground when it is shown."""

    def __init__(self, children, on_show):
        super().__init__(children)
        self._on_show = on_show

    def _repr_mimebundle_(self, **kwargs):
        self._on_show()
        return super()._repr_mimebundle_(**kwargs)


class Playground:
    """A panel to run tasks under limits set with sliders, and to compare the runs."""

    def __init__(self, tasks: str | Sequence[str], tools=COURSE_TOOLS, client=None,
                 models: Sequence[str] | None = None, save_path: str = "agentlab-runs.json"):
        tasks = [tasks] if isinstance(tasks, str) else list(tasks)
        if not tasks:
            raise ValueError("give the playground at least one task")
        self.tools, self.client, self.save_path = tools, client, pathlib.Path(save_path)
        self.history: list[Run] = []
        self.last_error: str | None = None
        self._running = threading.Lock()  # held while a run goes: one run at a time
        self._stop = threading.Event()    # set by Stop; the run ends at its next step boundary
        self._thread: threading.Thread | None = None
        self._shown = False  # has the panel been displayed? Until then, no plot is drawn
        self._figures = None  # the two figures, made at the first redraw and kept
        self._drawn_runs: list[Run] = []  # the runs whose bars the history plot holds
        self._drawing = threading.Lock()
        self._saved_texts: dict[int, tuple[Run, str]] = {}  # id(run) -> (run, its saved JSON)
        models = list(models or ([client.default_model] if client else _model_choices()))

        # Two columns of controls that share the output area's width and wrap under each
        # other where it is narrow: a 1280x800 screen with JupyterLab's file browser open
        # leaves the output area about 820 px (tests/test_browser.py measures it).
        narrow = {"description_width": "9em"}
        short = {"description_width": "5em"}  # model, priced as, budget
        layout = W.Layout(width="100%")
        self.task = W.Dropdown(options=tasks, value=tasks[0], description="task", style=narrow,
                               layout=W.Layout(width="100%", max_width="52em"))
        self.model = W.Dropdown(options=models, value=models[0], description="model", style=short,
                                layout=layout)
        own_price = _own_price(client, models[0])
        prices = [own_price] if own_price not in PRICE_MODELS else []
        self.priced_as = W.Dropdown(options=[_price_option(p) for p in prices + PRICE_MODELS],
                                    value=own_price, description="priced as", style=short,
                                    layout=layout)
        self.max_steps = W.IntSlider(value=10, min=1, max=20, description="max_steps",
                                     continuous_update=False, style=narrow, layout=layout)
        self.max_cost_usd = W.FloatLogSlider(value=0.5, base=10, min=-5, max=0, step=0.25,
                                             description="max_cost_usd", readout_format=".2g",
                                             continuous_update=False, style=narrow, layout=layout)
        self.max_seconds = W.FloatSlider(value=30, min=0.5, max=60, step=0.5,
                                         description="max_seconds", continuous_update=False,
                                         style=narrow, layout=layout)
        # Steps that matter on a log-like scale: a cut of 30 characters teaches as much as 4000.
        self.max_result_chars = W.SelectionSlider(
            options=[20, 30, 50, 100, 200, 500, 1000, 2000, 4000, 8000], value=4000,
            description="max_result_chars", continuous_update=False, style=narrow, layout=layout)
        self.wind_down = W.Checkbox(value=False, description="wind-down: answer at the last step",
                                    indent=False, layout=W.Layout(margin="4px 0 0 5.5em"))
        self.budget_mode = W.ToggleButtons(
            options=[("never exceed", "before"), ("pay, then check", "after")], value="before",
            description="budget", style={**short, "button_width": "10.5em"},
            tooltips=["look ahead: refuse a call that could cross the budget",
                      "the chapter's check, after paying: can overshoot"])
        auto = W.Layout(width="auto")
        self.run_button = _PressButton(self.start, description="Run", button_style="primary",
                                       icon="play", layout=auto)
        self.stop_button = W.Button(description="Stop", icon="stop", layout=auto, disabled=True)
        self.clear_button = W.Button(description="Clear history", icon="trash", layout=auto)
        self.save_button = W.Button(description="Save history as JSON", icon="save", layout=auto)
        self.status = W.HTML(value="Set the limits, then press Run.")
        self.log = W.HTML(value=self._log_html([]))
        # Hidden until there is a run to draw: an Image with no picture shows a broken icon.
        # At most their natural width (never stretched); narrower only in a narrower area.
        self.history_plot = W.Image(format="png", layout=W.Layout(display="none", width="auto",
                                                                  max_width="100%"))
        self.run_plot = W.Image(format="png", layout=W.Layout(display="none", width="auto",
                                                              max_width="100%"))

        self.model.observe(self._price_a_real_model_as_itself, names="value")
        self.run_button.on_click(lambda _: self.run())
        self.stop_button.on_click(lambda _: self.stop())
        self.clear_button.on_click(lambda _: self.clear())
        self.save_button.on_click(lambda _: self.save())
        column = W.Layout(flex="1 1 25em", min_width="22em", max_width="34em",
                          margin="0 1em 0 0")
        self.panel = _Panel([
            self.task,
            W.HBox([W.VBox([self.max_steps, self.max_cost_usd, self.max_seconds,
                            self.max_result_chars], layout=column),
                    W.VBox([self.model, self.priced_as, self.budget_mode, self.wind_down],
                           layout=column)],
                   layout=W.Layout(flex_flow="row wrap", width="100%")),
            W.HBox([self.run_button, self.stop_button, self.clear_button, self.save_button]),
            self.status, self.log,
            self.history_plot, self.run_plot,
        ], on_show=self._show)

    # --- what the buttons do -----------------------------------------------------------------

    def limits(self) -> Limits:
        """The limits the sliders are set to now."""
        return Limits(max_steps=self.max_steps.value, max_cost_usd=self.max_cost_usd.value,
                      max_seconds=self.max_seconds.value,
                      max_result_chars=self.max_result_chars.value)

    def run(self) -> Run | None:
        """Run the chosen task under the sliders' limits; add it to the history and redraw."""
        if not self._running.acquire(blocking=False):
            self._say("A run is already going: wait for it to finish, or press Stop.", error=True)
            return None
        run = None
        try:
            run = self._run()
        finally:
            self._running.release()
            self.run_button.disabled, self.stop_button.disabled = False, True
        self._after_the_press(run)
        return run

    def start(self) -> threading.Thread | None:
        """Start a run on a background thread (what pressing Run in the front end does)."""
        if not self._running.acquire(blocking=False):  # taken here, before the thread starts
            self._say("A run is already going: wait for it to finish, or press Stop.", error=True)
            return None

        def go():
            run = None
            try:
                run = self._run()
            finally:
                self._running.release()
                self.run_button.disabled, self.stop_button.disabled = False, True
            self._after_the_press(run)

        self._thread = threading.Thread(target=go, daemon=True, name="agentlab-playground")
        self._thread.start()
        return self._thread

    def wait(self, timeout: float | None = None) -> Run | None:
        """Wait for a run started with start() to finish; return the last run."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.history[-1] if self.history else None

    def stop(self) -> None:
        """Ask the run that is going to stop at its next step boundary."""
        self._stop.set()
        self._say("Stopping at the end of this step...")

    def _run(self) -> Run | None:
        self._stop.clear()
        self.run_button.disabled, self.stop_button.disabled = True, False
        lines: list[str] = []

        def show(step):
            lines.append(format_step(step))  # masked by format_step
            self.log.value = self._log_html(lines)
            if self._stop.is_set():
                raise StopRun("stopped with the playground's Stop button")

        try:
            self._say(f"Running {self.model.value}...")
            client = self._client()
            run = run_agent(self.task.value, self.tools, client=client, model=self.model.value,
                            limits=self.limits(), on_step=show, budget=self.budget_mode.value,
                            wind_down=self.wind_down.value)
            self.history.append(run)
            lines.append(f"answer: {redact(run.answer)}" if run.answer is not None else
                         f"stopped: {run.stop_reason} ({run.stop_detail})")
            self.log.value = self._log_html(lines)
            self.last_error = None
            self._say(f"Run #{len(self.history)}: {html.escape(run.summary())}")
            if self._shown:  # the comparison a press is for; the last run's detail comes after
                self._draw(last_run=False)
            return run
        except Exception as e:  # shown in the panel, and kept for code that drives it
            self.last_error = redact(f"{type(e).__name__}: {e}")
            self._say(self.last_error, error=True)
            return None

    def clear(self) -> None:
        with self._drawing:  # not halfway through a drawing of the runs it takes away
            self.history.clear()
            self._hide_plots()
        self._saved_texts.clear()
        self.log.value = self._log_html([])
        self._say("History cleared.")

    def save(self, path: str | pathlib.Path | None = None) -> pathlib.Path | None:
        """Write the history as a JSON list of Run records."""
        target = pathlib.Path(path or self.save_path)
        if not self.history:  # an empty save would overwrite the runs saved before
            self._say(f"Nothing to save: the history is empty, so {html.escape(str(target))} "
                      "was left as it was.")
            return None
        runs = list(self.history)  # as it is now: a run may be added while this writes
        try:
            # The same text as json.dumps(a list of the runs' dicts, indent=1), put together
            # from each run's own part, written once per run (see _saved_text)
            target.write_text("[\n" + ",\n".join(map(self._saved_text, runs)) + "\n]")
        except OSError as e:
            self.last_error = f"could not save to {target}: {e}"
            self._say(self.last_error, error=True)
            return None
        kept = {id(run) for run in runs}  # forget the parts of runs no longer in the history
        self._saved_texts = {k: v for k, v in self._saved_texts.items() if k in kept}
        self._say(f"Saved {len(runs)} run(s) to {html.escape(str(target))}.")
        return target

    def _saved_text(self, run: Run) -> str:
        """One run as it stands in the saved JSON list: its record at one space of indent
        more, masked like Run.to_json (a run loaded from a file did not pass the masking).
        Made once per run and kept: a save at 200 runs writes what it made before."""
        kept = self._saved_texts.get(id(run))
        if kept is None or kept[0] is not run:  # a new run (or one at a reused id)
            text = redact(json.dumps(run.to_dict(), indent=1))
            kept = self._saved_texts[id(run)] = (run, " " + text.replace("\n", "\n "))
        return kept[1]

    def _after_the_press(self, run: Run | None) -> None:
        """What a press does once the Run button is usable again: the last run's detail, and
        its part of the saved JSON, made ahead of a save. Skipped for a run another has
        replaced as the last one since (that run draws its own)."""
        if run is None:
            return
        # The kernel sends the button's new state from a thread of its own, which needs the
        # interpreter for a moment: drawing at once would hold it (Agg draws without letting
        # go) and the button would reach the front end some 20 ms later.
        time.sleep(SEND_PAUSE_S)
        try:
            self._saved_text(run)
            if self._shown and self.history and self.history[-1] is run:
                self._draw(history=False)
        except Exception as e:  # shown in the panel, like a run's error
            self.last_error = redact(f"the plots could not be drawn: {type(e).__name__}: {e}")
            self._say(self.last_error, error=True)

    def redraw(self) -> None:
        """Plot steps and cost per run over the history; the last run's cost, tokens and time.

        The figures are kept between runs and redrawn in place at the size they are shown;
        with no history, the plots are hidden (an empty image shows as a broken one).
        """
        self._draw()

    def _draw(self, history: bool = True, last_run: bool = True) -> None:
        """Redraw the history plot, the last run's plot, or both (a press draws the history
        before the Run button is usable again, and the last run's plot after)."""
        with self._drawing:  # the first display and a background run may both redraw
            if not self.history:
                self._hide_plots()
                return
            if self._figures is None:
                self._figures = _figures()
            if history:
                self._draw_history()
            if last_run:
                self._draw_last_run()

    def _draw_history(self) -> None:
        from . import plots

        history = self._figures[0]
        # The history plot holds a bar for each run drawn before: when the history only
        # grew since, those bars stay, and the new runs' bars are added and painted over
        # the picture (titles, limit marks and legends are made again all the same).
        drawn = len(self._drawn_runs)
        grew = drawn < len(self.history) and all(
            a is b for a, b in zip(self.history, self._drawn_runs))
        steps, cost = _emptied(history.figure, keep_bars=grew)
        room = plots.room_for(len(self.history))
        plots.steps_per_run(self.history, steps, drawn=drawn if grew else 0, room=room)
        plots.cost_per_run(self.history, cost, drawn=drawn if grew else 0, room=room)
        history.draw(range(drawn, len(self.history)) if grew else None)
        self._drawn_runs = list(self.history)
        self.history_plot.value = history.png()
        self.history_plot.layout.display = None

    def _draw_last_run(self) -> None:
        from . import plots

        run = self._figures[1]
        spent, tokens, times = _emptied(run.figure)
        plots.cumulative_cost(self.history[-1], spent)
        plots.tokens_per_step(self.history[-1], tokens)
        plots.timeline(self.history[-1], times)
        # Seconds are measured: no two runs take the same. Ending the axis just past a round
        # number above them keeps the timeline's frame (its ticks) from run to run; the 5% past
        # it leaves room for the last tick's label inside the picture.
        times.set_xlim(0, 1.05 * _round_up(times.get_xlim()[1]))
        run.draw()
        self.run_plot.value = run.png()
        self.run_plot.layout.display = None

    def _hide_plots(self) -> None:
        self.history_plot.value = self.run_plot.value = b""
        self.history_plot.layout.display = self.run_plot.layout.display = "none"

    # --- helpers -----------------------------------------------------------------------------

    def _show(self) -> None:
        """The panel is being displayed: draw the runs made before, and every run from now on."""
        if not self._shown:
            self._shown = True
            try:
                self.redraw()
            except Exception as e:  # the panel must still show, with the error in it
                self._say(redact(f"the plots could not be drawn: {type(e).__name__}: {e}"),
                          error=True)

    def _price_a_real_model_as_itself(self, change) -> None:
        """Picking a real model picks its own prices: a budget checked at a cheaper model's
        prices would not hold. Back on a tutor persona, a price picked that way goes back to
        the tutor's (one the student picked stays)."""
        if change["new"] in TUTOR_MODELS:
            if self.priced_as.value == _own_price(self.client, change["old"]) and (
                    change["old"] not in TUTOR_MODELS):
                self.priced_as.value = _own_price(self.client, change["new"])
            return
        price = _own_price(self.client, change["new"])
        if price not in [value for _, value in self.priced_as.options]:
            self.priced_as.options = [_price_option(price), *self.priced_as.options]
        self.priced_as.value = price

    def _client(self):
        if self.client is None:
            return connect(self.model.value, priced_as=self.priced_as.value)
        import copy

        client = copy.copy(self.client)  # same connection, charged at the picked prices
        client.priced_as_override = self.priced_as.value
        return client

    def _say(self, text: str, error: bool = False) -> None:
        colour = "#b00020" if error else "inherit"
        said = f"Error: {html.escape(text)}" if error else text
        self.status.value = f"<span style='color:{colour}'>{said}</span>"

    @staticmethod
    def _log_html(lines: list[str]) -> str:
        body = (html.escape("\n".join(lines)) if lines
                else "(the step log appears here during a run)")
        return f"<pre style='{_LOG_STYLE}'>{body}</pre>"

    def _repr_mimebundle_(self, **kwargs):
        # The live panel for front ends; a short, stable text for everything else (and nbval).
        # A notebook opened before its cells run shows that text where the panel will be (the
        # widgets live in the kernel), so it says what to do.
        bundle = self.panel._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and "text/plain" in bundle:
            bundle["text/plain"] = f"{self!r}\n{RUN_THE_CELLS}"
        return bundle

    def __repr__(self):
        return f"<Playground: {len(self.task.options)} task(s), {len(self.history)} run(s)>"
