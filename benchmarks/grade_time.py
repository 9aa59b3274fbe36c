"""How long an honest loop's full grade takes: this tree against the one before the process
boundary (the loop graded on a thread of the student's kernel), in one run.

    python benchmarks/grade_time.py [--before 3506c27] [--rounds 5]

What a student waits for is `grade(run_agent)` in notebook 08: the first grade in a fresh
kernel (which pays for starting the loop's process and for the grader's first calls) and the
grades after it. Each round starts a fresh Python process per tree, the trees alternating, and
in it times one first grade and three more. The loop is an honest one that holds every row in
both trees (this tree has 18 rows, the earlier one 12: the time per row is printed too). The
earlier tree's package is taken from git into a temporary folder and put first on the path.
The floor: an interpreter that imports agentlab and returns, timed the same way.

Load matters (2 cores here): the script prints the load average at its end; read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEFORE = "3506c27"  # main before the process boundary (the three wings in place)

HONEST = '''
import json, threading, time

def run_agent(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
    from agentlab import estimate_cost
    messages = [{"role": "user", "content": user_message}]
    spent, history = 0.0, []
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        spent += estimate_cost(response)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            name, raw = call.function.name, call.function.arguments
            print(f"step {step}: {name}({raw})")
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": one_call(name, raw, tool_impls, history)})
        if spent > max_cost_usd:
            return f"Stopped: over the ${max_cost_usd} budget."
    return f"Stopped: the step limit ({max_steps}) was reached."

def one_call(name, raw, tool_impls, history):
    if name not in tool_impls:
        return json.dumps({"error": f"unknown tool {name!r}; the tools are {list(tool_impls)}"})
    try:
        arguments = json.loads(raw or "{}")
    except ValueError as e:
        return json.dumps({"error": f"the arguments are not valid JSON: {e}"})
    key = (name, json.dumps(arguments, sort_keys=True))
    if history.count(key) >= 3:
        return json.dumps({"error": f"{name} already ran 3 times with these arguments"})
    history.append(key)
    box = {}

    def work():
        try:
            box["result"] = tool_impls[name](**arguments)
        except Exception as e:
            box["error"] = f"{type(e).__name__}: {e}"
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(0.5)
    if worker.is_alive():
        return json.dumps({"error": f"{name} did not finish within 0.5 s"})
    if "error" in box:
        return json.dumps({"error": box["error"]})
    text = json.dumps(box.get("result"), default=str)
    if len(text) > 4000:
        return text[:4000] + f"... [truncated: {len(text) - 4000} characters cut]"
    return text
'''

TIMED = HONEST + '''
import time
t0 = time.perf_counter()
from agentlab.course.gauntlet import grade
import io, contextlib
times, rows, held = [], 0, True
for n in range(4):
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        report = grade(run_agent, seed=100 + n)
    times.append(time.perf_counter() - start)
    rows, held = len(report.entries), held and not report.broken
print(json.dumps({"import": time.perf_counter() - t0 - sum(times), "first": times[0],
                  "later": times[1:], "rows": rows, "held": held}))
'''

FLOOR = "import time; t = time.perf_counter(); import agentlab; print(time.perf_counter() - t)"


def extract(commit: str, into: pathlib.Path) -> pathlib.Path:
    """The package as it was at `commit`, in a folder of its own."""
    archive = subprocess.run(["git", "archive", commit, "agentlab"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def timed(tree: pathlib.Path, script: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=tree, timeout=600)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        trees = {"now": ROOT, options.before: extract(options.before, pathlib.Path(folder))}
        results = {name: [] for name in trees}
        for _ in range(options.rounds):
            for name, tree in trees.items():  # alternating: both trees share the load
                results[name].append(timed(tree, TIMED))
        floor = statistics.median(
            float(subprocess.run([sys.executable, "-c", FLOOR], capture_output=True, text=True,
                                 cwd=ROOT).stdout) for _ in range(options.rounds))
    print(f"An honest loop's grade, medians of {options.rounds} fresh processes per tree, "
          "the trees alternating:\n")
    print(f"{'tree':>10} {'rows':>5} {'held':>5} {'first grade (s)':>16} {'later (s)':>10} "
          f"{'per row, later (ms)':>20}")
    medians = {}
    for name, runs in results.items():
        first = statistics.median(r["first"] for r in runs)
        later = statistics.median(t for r in runs for t in r["later"])
        rows = runs[0]["rows"]
        medians[name] = (first, later, rows)
        print(f"{name:>10} {rows:>5} {str(all(r['held'] for r in runs)):>5} {first:>16.2f} "
              f"{later:>10.2f} {1000 * later / rows:>20.0f}")
    (f_now, l_now, r_now), (f_then, l_then, r_then) = medians["now"], medians[options.before]
    print(f"\nnow/{options.before}: first grade {f_now / f_then:.2f}x, later grades "
          f"{l_now / l_then:.2f}x, per row (later) {(l_now / r_now) / (l_then / r_then):.2f}x")
    print(f"floor: `import agentlab` alone takes {floor:.2f} s in a fresh process")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
