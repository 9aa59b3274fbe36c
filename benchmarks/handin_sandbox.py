"""What the sandbox costs a hand-in's verdict: the capstone's 18 rows graded the way autograde
grades them (agentlab.course.handin.verdict, a fresh `python -I` process), with and without
bubblewrap's sandbox (agentlab.course.sandbox), in one run.

    python benchmarks/handin_sandbox.py [--rounds 5]

A teacher waits for `nbgrader autograde`: per hand-in, a kernel and five verdicts (the five
graded cells of 08). This times the verdicts, the part the sandbox wraps, alternating with and
without it; the floor is the same process without the sandbox. It prints the medians and their
ratio, and the load average (2 cores here): read the ratio.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time

GROUPS = [["answers", "right_tool", "call_ids", "history", "plain_result", "fresh_run"],
          ["max_steps", "budget", "stop_names_limit"],
          ["allowlist", "bad_json", "unencodable", "tool_error"], ["truncation", "observability"],
          ["time", "repeats", "unanswered_tool_calls"]]


def honest_loop():
    """The reference loop of notebook 08's solutions, as a hand-in holds it."""
    import json
    import pathlib

    path = (pathlib.Path(__file__).resolve().parent.parent / "notebooks" / "solutions"
            / "08_grade_your_own_loop_solutions.ipynb")
    cells = json.loads(path.read_text())["cells"]
    [answer] = [c for c in cells
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "run_agent"]
    namespace: dict = {}
    exec("".join(answer["source"]), namespace)
    return namespace["run_agent"]


def one_hand_in(run_agent, sandbox) -> tuple[float, int]:
    """The five graded cells' verdicts: seconds, rows held."""
    from agentlab.course import handin

    started, held = time.perf_counter(), 0
    for rows in GROUPS:
        header = handin.capstone_header(rows)
        answer = handin.verdict(header, handin.answer_bytes(header, run_agent), sandbox)
        held += handin.capstone_said(rows, answer)[1]
    return time.perf_counter() - started, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("bwrap") is None:
        sys.exit("bubblewrap is not installed (apt install bubblewrap)")
    from agentlab.course.sandbox import Sandbox

    run_agent, sandbox = honest_loop(), Sandbox()
    times: dict[str, list[float]] = {"sandbox": [], "no sandbox": []}
    for _ in range(args.rounds):
        for name, box in (("no sandbox", None), ("sandbox", sandbox)):
            seconds, held = one_hand_in(run_agent, box)
            assert held == 18, (name, held)
            times[name].append(seconds)
    floor, boxed = (statistics.median(times[n]) for n in ("no sandbox", "sandbox"))
    print(f"a hand-in's five verdicts, median of {args.rounds}: without the sandbox (the floor) "
          f"{floor:.2f} s, in the sandbox {boxed:.2f} s: {boxed / floor:.2f}x")
    print("load average:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
