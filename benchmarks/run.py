"""Run every benchmark in one go and print the table; with --markdown, also write the figures
into benchmarks/RESULTS.md (between its `<!-- figures -->` markers), with the machine, the
date and the versions, so RESULTS.md is regenerated in one command.

    pip install -e ".[bench]"                 # the compared frameworks
    python benchmarks/run.py                  # everything (~17 minutes; a quiet machine, please)
    python benchmarks/run.py --markdown       # ... and write RESULTS.md's figures
    python benchmarks/run.py --quick          # tiny counts, no notebooks nor full pytest: a smoke
    --skip-pytest                             # leave out the README test command's full run
    --cpu                                     # section 1 in CPU time, on a machine shared with
                                              # other work (the final figures: wall time)

Each section's method is in its script's docstring.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import frameworks  # noqa: E402
import notebooks  # noqa: E402
import server_load  # noqa: E402
import startup  # noqa: E402
import suite_time  # noqa: E402

RESULTS = pathlib.Path(__file__).parent / "RESULTS.md"
PACKAGES = ["agentlab", "openai", "httpx2", "genai-prices", "smolagents", "openai-agents",
            "pydantic-ai-slim", "langchain", "langchain-openai", "langgraph", "nbval", "pytest",
            "jupyterlab", "playwright"]


def versions() -> str:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}; load average at start "
            f"{load:.2f}")


def main(quick: bool = False, skip_pytest: bool = False, clock: str = "wall") -> str:
    out = []

    def say(*lines):
        for line in lines or ("",):
            print(line, flush=True)
            out.append(line)

    say(machine(), f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"Versions: {versions()}", "")

    rounds, runs, lengths = (2, 1, (1, 2, 5)) if quick else (15, 4, frameworks.LENGTHS)
    say(f"1. Agent runs on the openai SDK, one canned transport for all; fit over runs of "
        f"{', '.join(map(str, lengths))} steps (medians of {rounds} interleaved rounds of "
        f"{runs} runs each; {clock} time)")
    figures = frameworks.measure(rounds=rounds, runs=runs, lengths=lengths, clock=clock)
    say(*frameworks.table(figures), *frameworks.floor_lines(figures), "")

    repeats = 1 if quick else 7
    say(f"2. Whole processes, from spawn to exit (median of {repeats}, interleaved)")
    heavy = startup.heavy_modules_loaded() or "none"
    say(*startup.lines(startup.measure(repeats=repeats)),
        f"  heavy modules loaded by import agentlab: {heavy}", "")

    clients, requests = (2, 20) if quick else (server_load.CLIENTS, server_load.REQUESTS)
    say("3. The HTTP server (python -m agentlab serve) on 127.0.0.1")
    say(*server_load.lines(server_load.load(clients, requests)), "")

    if quick:
        say("4./5. Notebooks and the test command: left out of a quick run")
        return "\n".join(out)
    say("4. Notebooks under strict nbval, one session each")
    nb = notebooks.measure()
    say(*notebooks.lines(nb), "")
    say("5. The README's test command against its floor")
    say(*suite_time.lines(suite_time.measure(run_pytest=not skip_pytest, rounds=3)))
    return "\n".join(out)


def write_markdown(text: str) -> None:
    """Put the figures between RESULTS.md's markers, leaving its prose as it is."""
    start, end = "<!-- figures -->", "<!-- /figures -->"
    notes = RESULTS.read_text()
    before, rest = notes.split(start, 1)
    after = rest.split(end, 1)[1] if end in rest else "\n"
    RESULTS.write_text(f"{before}{start}\n```\n{text}\n```\n{end}{after}")
    print(f"\nwritten to {RESULTS}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Run every benchmark and print the table.")
    parser.add_argument("--markdown", action="store_true", help="write RESULTS.md's figures")
    parser.add_argument("--quick", action="store_true", help="tiny counts: a smoke run")
    parser.add_argument("--skip-pytest", action="store_true",
                        help="leave out the README test command's full run")
    parser.add_argument("--cpu", action="store_true",
                        help="time section 1 in CPU time (steadier on a shared machine)")
    args = parser.parse_args()
    result = main(quick=args.quick, skip_pytest=args.skip_pytest,
                  clock="cpu" if args.cpu else "wall")
    if args.markdown:
        write_markdown(result)
