"""The limits playground's Run press, timed as a student waits for it: from the front end's
click message to the moment both redrawn plots have left the kernel, at 1, 20, 40 and 60 runs in
the history, for this tree and for an earlier commit, back to back in one run.

Method. A real ipykernel (jupyter_client, this environment's Python) plays notebook 5: it
builds `Playground([task.text for task in COURSE_TASKS])`, makes n - 1 runs from code, then
displays the panel (which draws the history, as a cell ending in `playground` does). The
benchmark then acts as the front end: it sends the Run button's comm message
`{"event": "click"}`, exactly what JupyterLab sends, and times until the kernel has published
the new history plot and then re-enabled the Run button on its IOPub channel (the button comes
back after the whole redraw: the run, its step log, both plots drawn and their bytes' way out
are all included; the browser's decoding of the PNGs is not). Each press is made at a step
limit other than the last one's (9 or 10), so the history picture always changes, and each
adds a run, as a student pressing Run again and again does: the presses timed "at n runs"
leave n, n + 1, ... n + presses - 1 runs in the history (at 1: a fresh playground's first
press and the next ones). The two trees' kernels alternate press by press (the same noise for
both); the figure is the median of the presses, and each ratio is taken from those medians.

The earlier commit's `agentlab/` folder is extracted with `git archive` into a temporary
folder and put first on the kernel's PYTHONPATH: same Python, same packages, only the
package's code differs (the kernel prints where agentlab came from, and it is checked).

    python benchmarks/playground_press.py                   # against 9b54b39, 7 presses each
    python benchmarks/playground_press.py --base HEAD~3 --presses 3
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
STARTING_COMMIT = "9b54b39"
HISTORY_LENGTHS = (1, 20, 40, 60)  # the aims are set at 40

SETUP = """
try:  # this tree, or (ImportError) a tree from before the package's three wings
    from agentlab.course.playground import Playground
    from agentlab.course.sweeps import COURSE_TASKS
except ImportError:
    from agentlab.sweeps import COURSE_TASKS
    from agentlab.widgets import Playground
import agentlab
import time
playground = Playground([task.text for task in COURSE_TASKS])
for _ in range({before}):
    playground.run_button.click()
display(playground)
print(agentlab.__file__, playground.run_button.model_id, playground.history_plot.model_id)
"""


class Kernel:
    """A kernel running one tree's agentlab, driven as a front end drives it."""

    def __init__(self, source: pathlib.Path):
        from jupyter_client.manager import start_new_kernel

        env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "agg"}
        self.source, self._printed, self._presses = source, [], 0
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env,
                                                     cwd=str(ROOT / "notebooks"))

    def execute(self, code: str) -> str:
        """Run code; return what it printed (raise on an error)."""
        reply = self.client.execute_interactive(code, timeout=300, output_hook=self._collect)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code!r} failed: {reply['content'].get('evalue')}")
        printed, self._printed = "".join(self._printed), []
        return printed

    def _collect(self, message) -> None:
        if message["msg_type"] == "stream":
            self._printed = [*self._printed, message["content"]["text"]]

    def open_playground(self, runs: int) -> None:
        printed = self.execute(SETUP.format(before=runs - 1)).split()
        where, self.button, self.history_plot = printed
        if not where.startswith(str(self.source)):
            raise RuntimeError(f"the kernel imported agentlab from {where}, not {self.source}")

    def press(self) -> tuple[float, float]:
        """Seconds from the click message to the panel redrawn (the new history plot sent and
        the Run button enabled again: the last thing a press changes, after the redraw), and
        the kernel's CPU seconds over the press (all its threads)."""
        self._presses += 1
        # Each press at another step limit, so the history plot always changes (an unchanged
        # picture would send no update, and there would be nothing to wait for).
        self.execute(f"playground.max_steps.value = {9 + self._presses % 2}")
        cpu = float(self.execute("print(time.process_time())"))
        self._drain()
        message = self.client.session.msg("comm_msg", {
            "comm_id": self.button, "data": {"method": "custom", "content": {"event": "click"}}})
        waiting = {"history plot", "button enabled"}
        start = time.perf_counter()
        self.client.shell_channel.send(message)
        while waiting:
            reply = self.client.get_iopub_msg(timeout=60)
            content = reply["content"]
            if reply["msg_type"] != "comm_msg":
                continue
            if (content["comm_id"] == self.history_plot
                    and ["value"] in content["data"].get("buffer_paths", [])):
                waiting.discard("history plot")
            if (content["comm_id"] == self.button
                    and content["data"].get("state", {}).get("disabled") is False):
                waiting.discard("button enabled")
        elapsed = time.perf_counter() - start
        self.execute("playground.wait()")
        cpu = float(self.execute("print(time.process_time())")) - cpu
        return elapsed, cpu

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


def measure(base: str, presses: int, lengths=HISTORY_LENGTHS) -> dict:
    """{(clock, tree, n): median seconds}, clock "wall" or "cpu", tree "now" or base."""
    figures = {}
    with tempfile.TemporaryDirectory(prefix="agentlab-press-") as folder:
        trees = {"now": ROOT, base: extract(base, pathlib.Path(folder))}
        for n in lengths:
            kernels = {name: Kernel(source) for name, source in trees.items()}
            try:
                for kernel in kernels.values():
                    kernel.open_playground(n)  # shown: the first drawing warms up matplotlib
                samples = {name: [] for name in kernels}
                for _ in range(presses):
                    for name, kernel in kernels.items():
                        samples[name].append(kernel.press())
            finally:
                for kernel in kernels.values():
                    kernel.close()
            for name, values in samples.items():
                figures["wall", name, n] = statistics.median(wall for wall, _ in values)
                figures["cpu", name, n] = statistics.median(cpu for _, cpu in values)
    return figures


def report(figures: dict, base: str, lengths=HISTORY_LENGTHS) -> str:
    lines = []
    for clock, title in [("wall", "press to redrawn, wall clock"),
                         ("cpu", "the kernel's CPU time over a press (all threads)")]:
        lines += ["", f"{title}:",
                  f"{'runs in the history':>20} {'now (ms)':>10} {base + ' (ms)':>14} "
                  f"{'now/then':>9}"]
        for n in lengths:
            now, then = figures[clock, "now", n], figures[clock, base, n]
            lines.append(f"{n:>20} {now * 1000:>10.0f} {then * 1000:>14.0f} {now / then:>8.2f}x")
        for tree in ("now", base):
            growth = ", ".join(
                f"{n} runs {figures[clock, tree, n] / figures[clock, tree, lengths[0]]:.2f}x"
                for n in lengths[1:])
            lines.append(f"{tree}, against one run: {growth}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default=STARTING_COMMIT, help="the commit to compare with")
    parser.add_argument("--presses", type=int, default=7, help="timed presses per tree and n")
    args = parser.parse_args()
    figures = measure(args.base, args.presses)
    load = os.getloadavg()[0]
    print(f"The playground's Run press, medians of {args.presses} presses per tree and history "
          f"length, the trees alternating (load average {load:.1f} at the end, {os.cpu_count()} "
          "cores):")
    print(report(figures, args.base))


if __name__ == "__main__":
    sys.exit(main())
