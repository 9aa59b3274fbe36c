"""A student's first minute in a notebook: how long a fresh kernel takes to give its first
answer and its first plot, and how much memory a kernel holds, for this tree and an earlier
commit, in one run.

Method. For each tree, fresh kernels (jupyter_client, this environment's Python, the
earlier commit's `agentlab/` first on PYTHONPATH, as benchmarks/playground_press.py does),
the trees alternating, each kernel timed through the steps a notebook takes:
  - start: from launch until the kernel answers (kernel_info);
  - `import agentlab` (what every notebook's first cell does);
  - first answer: `run_agent` on the tutor with the course's tools (connect, the SDK, the run);
  - first plot: `plots.steps_per_run` of that run, rendered to PNG (matplotlib's import and
    first draw; notebooks 01, 02, 04a show the loop diagram this way);
  - the playground: `Playground(...)` built and shown, with one run drawn (notebook 5);
  - memory: the kernel's resident set (VmRSS from /proc, Linux) after the first answer, after
    the first plot and after the playground: what each notebook left open costs a laptop.
The wall times are medians of the kernels; the memory is the same in every kernel.

    python benchmarks/first_kernel.py                      # against 9b54b39, 5 kernels each
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from playground_press import ROOT, STARTING_COMMIT, extract  # noqa: E402

RSS = ("print(int([l for l in open('/proc/self/status') if l.startswith('VmRSS')][0]"
       ".split()[1]) // 1024)")
STEPS = {
    "import agentlab": "import agentlab",
    "first answer": ("from agentlab import run_agent\nfrom agentlab.toolkit import COURSE_TOOLS\n"
                     "run = run_agent('What is 17 * 23?', COURSE_TOOLS)"),
    "first plot": ("import io\ntry:\n    from agentlab.course import plots\n"
                   "except ImportError:  # a tree from before the three wings\n"
                   "    from agentlab import plots\n"
                   "plots.steps_per_run([run]).figure.savefig(io.BytesIO(), format='png')"),
    "playground": ("try:\n    from agentlab.course.playground import Playground\n"
                   "except ImportError:  # a tree from before the three wings\n"
                   "    from agentlab.widgets import Playground\n"
                   "playground = Playground(['What is 17 * 23?'])\n"
                   "playground._repr_mimebundle_()\nplayground.run_button.click()"),
}
MEMORY_AFTER = ("first answer", "first plot", "playground")


def one_kernel(source: pathlib.Path) -> dict:
    from jupyter_client.manager import KernelManager

    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "agg"}
    manager = KernelManager(kernel_name="python3")
    start = time.perf_counter()
    manager.start_kernel(env=env, cwd=str(ROOT / "notebooks"))
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        figures = {"start": time.perf_counter() - start}
        for name, code in STEPS.items():
            start = time.perf_counter()
            _run(client, code)
            figures[name] = time.perf_counter() - start
            if name in MEMORY_AFTER:
                figures[f"MB after {name}"] = int(_run(client, RSS))
        where = _run(client, "print(agentlab.__file__)")
        if not where.startswith(str(source)):
            raise RuntimeError(f"agentlab came from {where}, not {source}")
        return figures
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _run(client, code: str) -> str:
    printed = []

    def collect(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    reply = client.execute_interactive(code, timeout=300, output_hook=collect)
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"{code!r} failed: {reply['content'].get('evalue')}")
    return "".join(printed).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default=STARTING_COMMIT)
    parser.add_argument("--kernels", type=int, default=5, help="fresh kernels per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agentlab-kernel-") as folder:
        trees = {"now": ROOT, args.base: extract(args.base, pathlib.Path(folder))}
        one_kernel(ROOT)  # warm the OS file cache and bytecode caches, untimed
        one_kernel(trees[args.base])
        samples = {name: [] for name in trees}
        for _ in range(args.kernels):
            for name, source in trees.items():
                samples[name].append(one_kernel(source))
    print(f"A fresh kernel's first steps, medians of {args.kernels} kernels per tree, trees "
          f"alternating ({os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the "
          "end):")
    print(f"  {'':28} {'now':>9} {args.base:>9} {'now/then':>9}")
    for key in samples["now"][0]:
        now = statistics.median(s[key] for s in samples["now"])
        then = statistics.median(s[key] for s in samples[args.base])
        unit, scale = ("MB", 1) if key.startswith("MB") else ("ms", 1000)
        print(f"  {key + ' (' + unit + ')':28} {now * scale:9.0f} {then * scale:9.0f} "
              f"{now / then:8.2f}x")


if __name__ == "__main__":
    sys.exit(main())
