"""The limits playground's waits, timed as a student meets them: a Run press from the front
end's click message to the redrawn history plot and the Run button enabled again (and on to
the last run's plot, drawn after the button since issue 35), and the other
controls (a model or price change, Clear history, Save history as JSON) from their message to
the kernel done with it, at 1, 40 and 200 runs in the history, for this tree and for two
earlier commits, side by side in one run.

Method. A real ipykernel (jupyter_client, this environment's Python) plays notebook 5: it
builds `Playground([task.text for task in COURSE_TASKS])`, makes n - 1 runs from code, then
displays the panel (which draws the history, as a cell ending in `playground` does). The
benchmark then acts as the front end: it sends the Run button's comm message
`{"event": "click"}`, exactly what JupyterLab sends, and times until the kernel has published
the new history plot and the Run button enabled again on its IOPub channel: the press is
answered (the run, its step log, the drawing before the button and the messages' way out are
included; the browser's decoding of the PNGs is not). Since issue 35 the last run's plot is
drawn after the button; the time to its message is reported too ("drawn whole"); in the
earlier trees it came before the button. Each press is made at a step limit other than the
last one's (9 or 10), so the history picture always changes, and each adds a run, as a
student pressing Run again and again does: the presses timed "at n runs" leave n, n + 1, ...
n + presses - 1 runs in the history. The trees' kernels take turns press by press (the same
noise for all); each figure is the median of the presses, and each ratio is taken from those
medians.

How a press's answer splits: the kernel times itself (the Run button disabled to enabled
again: the run, its step log and the drawing until then) and its drawing until the button
(`playground._draw()`, or `redraw()` in the earlier trees, wrapped in SETUP); transfer is the
rest of the wall clock: the click's way in, the thread starting, the plots' and the button's
messages' way out. The other waits are timed from the message (a dropdown's new index as
JupyterLab sends it, or a button's click) to the kernel's idle status for it (after every
message it sent in reply), the history filled again after each Clear.

The earlier commits' `agentlab/` folders are extracted with `git archive` into a temporary
folder, each put first on its kernel's PYTHONPATH: same Python, same packages, only the
package's code differs (the kernel prints where agentlab came from, and it is checked).

    python benchmarks/playground_press.py                   # 7 presses each, 1/40/200 runs
    python benchmarks/playground_press.py --presses 3 --lengths 1 40
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import queue
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = pathlib.Path(__file__).parent.parent
STARTING_COMMIT = "9b54b39"  # the turn-3 start
MAIN_COMMIT = "3506c27"      # main before the press was made incremental (issue 35)
HISTORY_LENGTHS = (1, 40, 200)  # the aims: within 100 ms at 1 and 40 runs, no slower at 200
OTHER_WAITS = ("model", "price", "save", "clear")

SETUP = """
try:  # this tree, or (ImportError) a tree from before the package's three wings
    from agentlab.course.playground import Playground
    from agentlab.course.sweeps import COURSE_TASKS
except ImportError:
    from agentlab.sweeps import COURSE_TASKS
    from agentlab.widgets import Playground
import agentlab
import tempfile
import time
playground = Playground([task.text for task in COURSE_TASKS])
playground.save_path = __import__("pathlib").Path(tempfile.mkdtemp()) / "runs.json"
for _ in range({before}):
    playground.run_button.click()
display(playground)
# The kernel times itself: the Run button disabled to enabled, and the drawing in between
# (since issue 35 a press draws through _draw, the history before the button and the last
# run after it; before, through redraw, both before the button)
spans = {{"drawing": 0.0}}
_drawing_name = "_draw" if hasattr(playground, "_draw") else "redraw"
_redraw = getattr(playground, _drawing_name)
def timed_redraw(*args, **kwargs):
    start = time.perf_counter()
    try:
        _redraw(*args, **kwargs)
    finally:
        spans["drawing"] += time.perf_counter() - start
setattr(playground, _drawing_name, timed_redraw)
def _button(change):
    spans[change["new"]] = time.perf_counter()
    if change["new"] is False:  # the drawing done before the press was answered
        spans["drawing before the button"] = spans["drawing"]
playground.run_button.observe(_button, names="disabled")
print(agentlab.__file__, playground.run_button.model_id, playground.history_plot.model_id,
      playground.run_plot.model_id, playground.model.model_id, playground.priced_as.model_id,
      playground.save_button.model_id, playground.clear_button.model_id)
"""


class Kernel:
    """A kernel running one tree's agentlab, driven as a front end drives it."""

    def __init__(self, source: pathlib.Path):
        from jupyter_client.manager import start_new_kernel

        env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "agg"}
        self.source, self._printed, self._presses, self._changes = source, [], 0, 0
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env,
                                                     cwd=str(ROOT / "notebooks"))

    def execute(self, code: str) -> str:
        """Run code; return what it printed (raise on an error)."""
        reply = self.client.execute_interactive(code, timeout=600, output_hook=self._collect)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code!r} failed: {reply['content'].get('evalue')}")
        printed, self._printed = "".join(self._printed), []
        return printed

    def _collect(self, message) -> None:
        if message["msg_type"] == "stream":
            self._printed = [*self._printed, message["content"]["text"]]

    def open_playground(self, runs: int) -> None:
        printed = self.execute(SETUP.format(before=runs - 1)).split()
        where, *ids = printed
        self.ids = dict(zip(["button", "history plot", "run plot", *OTHER_WAITS], ids))
        if not where.startswith(str(self.source)):
            raise RuntimeError(f"the kernel imported agentlab from {where}, not {self.source}")

    def press(self) -> dict:
        """Seconds from the click message to the press answered ("wall": the new history plot
        sent and the Run button enabled again), and to everything drawn ("whole": the last
        run's plot sent too, which since issue 35 comes after the button); how the answer
        splits: the kernel's own span ("kernel"), its drawing before the button, and the rest
        ("transfer")."""
        self._presses += 1
        # Each press at another step limit, so the history plot always changes (an unchanged
        # picture would send no update, and there would be nothing to wait for).
        self.execute(f"playground.max_steps.value = {9 + self._presses % 2}\n"
                     "spans['drawing'] = 0.0")
        self._drain()
        # The history plot's message and the button's, in either order; then the run plot's
        # (before the button in the earlier trees), unless its picture came out the same, when
        # none is sent: it is waited for a few seconds at most.
        waiting = {"history plot", "button enabled", "run plot"}
        start, wall, whole = time.perf_counter(), None, None
        self._send(self.ids["button"], {"method": "custom", "content": {"event": "click"}})
        while waiting:
            content = self._next_comm_msg(timeout=120 if wall is None else 5)
            if content is None:  # no new run plot came
                break
            for name, changed in (("history plot", self._new_picture(content, "history plot")),
                                  ("run plot", self._new_picture(content, "run plot")),
                                  ("button enabled", content["comm_id"] == self.ids["button"]
                                   and content["data"].get("state", {}).get("disabled") is False)):
                if changed:
                    waiting.discard(name)
            if wall is None and not waiting & {"history plot", "button enabled"}:
                wall = time.perf_counter() - start
        whole = time.perf_counter() - start if not waiting else wall
        self.execute("playground.wait()")
        kernel, drawing = map(float, self.execute(
            "print(spans[False] - spans[True], spans['drawing before the button'])").split())
        return {"wall": wall, "whole": whole, "kernel": kernel, "drawing": drawing,
                "transfer": wall - kernel}

    def _new_picture(self, content: dict, plot: str) -> bool:
        return (content["comm_id"] == self.ids[plot]
                and ["value"] in content["data"].get("buffer_paths", []))

    def other_wait(self, what: str) -> float:
        """Seconds from a control's message to the kernel idle after handling it."""
        self._changes += 1
        if what == "clear":  # the history filled again, as it was, before each Clear
            self.execute("if not playground.history: playground.history[:] = kept; "
                         "playground.redraw()\nkept = list(playground.history)")
        data = ({"method": "custom", "content": {"event": "click"}} if what in ("save", "clear")
                else {"method": "update", "state": {"index": self._changes % 2},
                      "buffer_paths": []})
        self._drain()
        start = time.perf_counter()
        sent = self._send(self.ids[what], data)
        while True:
            reply = self.client.get_iopub_msg(timeout=120)
            if (reply["msg_type"] == "status" and reply["parent_header"].get("msg_id") == sent
                    and reply["content"]["execution_state"] == "idle"):
                return time.perf_counter() - start

    def _send(self, comm_id: str, data: dict) -> str:
        message = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.client.shell_channel.send(message)
        return message["header"]["msg_id"]

    def _next_comm_msg(self, timeout: float = 120) -> dict | None:
        """The next widget message from the kernel; None if none comes within `timeout`."""
        until = time.perf_counter() + timeout
        while True:
            try:
                reply = self.client.get_iopub_msg(timeout=max(0.0, until - time.perf_counter()))
            except queue.Empty:
                return None
            if reply["msg_type"] == "comm_msg":
                return reply["content"]

    def _drain(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                self.client.get_iopub_msg(timeout=0.05)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def extract(commit: str, into: pathlib.Path) -> pathlib.Path:
    """The commit's agentlab/ folder, unpacked under `into`."""
    archive = subprocess.run(["git", "archive", "--format=tar", commit, "agentlab"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    target = into / commit.replace("/", "_")
    target.mkdir()
    with tempfile.TemporaryFile() as file:
        file.write(archive)
        file.seek(0)
        tarfile.open(fileobj=file).extractall(target)
    return target


def measure(bases: list[str], presses: int, lengths=HISTORY_LENGTHS) -> dict:
    """{(what, tree, n): median seconds}: what is a press's "wall", "kernel", "drawing" or
    "transfer", or one of OTHER_WAITS; tree is "now" or one of `bases`."""
    figures = {}
    with tempfile.TemporaryDirectory(prefix="agentlab-press-") as folder:
        trees = {"now": ROOT, **{base: extract(base, pathlib.Path(folder)) for base in bases}}
        for n in lengths:
            kernels = {name: Kernel(source) for name, source in trees.items()}
            try:
                for kernel in kernels.values():
                    kernel.open_playground(n)  # shown: the first drawing warms up matplotlib
                samples = {name: [] for name in kernels}
                for _ in range(presses):
                    for name, kernel in kernels.items():
                        samples[name].append(kernel.press())
                for name, kernel in kernels.items():  # the waits at n + presses runs
                    for what in OTHER_WAITS:
                        figures[what, name, n] = statistics.median(
                            kernel.other_wait(what) for _ in range(presses))
            finally:
                for kernel in kernels.values():
                    kernel.close()
            for name, values in samples.items():
                for part in ("wall", "whole", "kernel", "drawing", "transfer"):
                    figures[part, name, n] = statistics.median(v[part] for v in values)
    return figures


def report(figures: dict, bases: list[str], lengths=HISTORY_LENGTHS) -> str:
    trees = ["now", *bases]
    heading = (f"{'runs in the history':>20} " + " ".join(f"{t + ' (ms)':>13}" for t in trees)
               + " " + " ".join(f"{'now/' + b:>12}" for b in bases))

    def table(what: str) -> list[str]:
        lines = [heading]
        for n in lengths:
            times = [figures[what, tree, n] for tree in trees]
            lines.append(f"{n:>20} " + " ".join(f"{t * 1000:>13.0f}" for t in times) + " "
                         + " ".join(f"{times[0] / t:>11.2f}x" for t in times[1:]))
        return lines

    lines = ["", "A Run press answered, from the click to the history plot redrawn and the "
             "Run button usable again\n(in the earlier trees the last run's plot is drawn "
             "before the button too):", *table("wall")]
    for tree in trees:
        first = figures["wall", tree, lengths[0]]
        growth = ", ".join(f"{n} runs {figures['wall', tree, n] / first:.2f}x"
                           for n in lengths[1:])
        lines.append(f"{tree}, against one run: {growth}")
    lines += ["", "A Run press drawn whole, from the click to the last run's plot too (since "
              "issue 35, drawn after the\nbutton is usable: a press can be made meanwhile):",
              *table("whole")]
    lines += ["", "How a press's answer splits (ms): the kernel's span (run, step log, drawing "
              "until the button), its\ndrawing alone, and transfer (the rest of the wall "
              "clock):",
              f"{'runs in the history':>20} {'tree':>9} {'kernel':>8} {'drawing':>8} "
              f"{'transfer':>9}"]
    for n in lengths:
        for tree in trees:
            lines.append(f"{n:>20} {tree:>9} " + " ".join(
                f"{figures[part, tree, n] * 1000:>{width}.0f}"
                for part, width in (("kernel", 8), ("drawing", 8), ("transfer", 9))))
    undrawn = {n: figures["kernel", "now", n] - figures["drawing", "now", n] for n in lengths}
    floor = ", ".join(f"{n} runs {seconds * 1000:.0f} ms" for n, seconds in undrawn.items())
    lines.append(f"The floor, what no drawing can save: the run and its step log alone (kernel "
                 f"minus drawing, now): {floor}")
    for what, title in (("model", "A model change"), ("price", "A price change"),
                        ("save", "Save history as JSON"), ("clear", "Clear history")):
        lines += ["", f"{title}, from its message to the kernel done with it (at n + presses "
                  "runs):", *table(what)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", nargs="+", default=[STARTING_COMMIT, MAIN_COMMIT],
                        help="the commits to compare with")
    parser.add_argument("--presses", type=int, default=7, help="timed presses per tree and n")
    parser.add_argument("--lengths", type=int, nargs="+", default=list(HISTORY_LENGTHS))
    args = parser.parse_args()
    figures = measure(args.base, args.presses, args.lengths)
    load = os.getloadavg()[0]
    print(f"The playground's waits, medians of {args.presses} per tree and history length, the "
          f"trees taking turns (load average {load:.1f} at the end, {os.cpu_count()} cores):")
    print(report(figures, args.base, args.lengths))


if __name__ == "__main__":
    sys.exit(main())
