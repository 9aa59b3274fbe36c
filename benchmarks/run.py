"""Run every benchmark, print a table of medians and ratios, and write benchmarks/RESULTS.md
with the machine, the date and the versions.

    pip install -e ".[bench]"       # the comparison frameworks (optional)
    python benchmarks/run.py
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import pathlib
import platform
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))

import frameworks  # noqa: E402
import import_time  # noqa: E402
import notebooks  # noqa: E402
import offline_path  # noqa: E402
import server_load  # noqa: E402

PACKAGES = ["agentlab", "openai", "genai-prices", "smolagents", "openai-agents", "pydantic-ai-slim",
            "matplotlib", "ipywidgets", "nbval"]


def versions() -> str:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def main() -> str:
    out = []

    def say(line=""):
        print(line, flush=True)
        out.append(line)

    say(f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}")
    say(f"Date: {datetime.date.today().isoformat()}")
    say(f"Versions: {versions()}")
    say()
    say("1. " + frameworks.table("Loop overhead per step (median of 15 alternating batches of 20 runs)",
                                 frameworks.per_step(), "ms/step", 1000))
    say()
    say("2. " + frameworks.table("Cold start to first answer (median of 5 fresh processes each)",
                                 frameworks.cold_start(), "s", 1))
    say()
    say(f"3. import agentlab: {1000 * import_time.import_seconds():.1f} ms (median of 7, -X importtime); "
        f"python -c pass: {1000 * import_time.interpreter_floor():.1f} ms; heavy modules loaded: "
        f"{import_time.heavy_modules_loaded() or 'none'}")
    say()
    nb = notebooks.measure()
    say(f"4. Notebook suite: {nb['notebooks']} notebooks under strict nbval in {nb['suite']:.1f} s "
        f"(limit 120 s); an empty notebook under the same nbval: {nb['floor']:.1f} s; "
        f"suite / floor = {nb['suite'] / nb['floor']:.1f}x, {nb['suite'] / nb['floor'] / nb['notebooks']:.2f}x per notebook")
    say()
    paths = offline_path.measure()
    base = paths["direct call (LocalClient)"]
    say("5. The offline tutor per step (median), three paths:")
    for name, value in paths.items():
        say(f"     {name:34} {1000 * value:7.3f} ms/step  {value / base:5.1f}x the direct call")
    say()
    load = server_load.load()
    say(f"6. Server load on 127.0.0.1: {load['requests']} requests from {server_load.CLIENTS} clients, "
        f"{load['throughput']:.0f} requests/s, p50 {1000 * load['p50']:.2f} ms, "
        f"p99 {1000 * load['p99']:.2f} ms, {load['errors']} errors")
    return "\n".join(out)


if __name__ == "__main__":
    text = main()
    results = pathlib.Path(__file__).parent / "RESULTS.md"
    notes = results.read_text().split("<!-- figures -->")[0] if results.exists() else "# Benchmark results\n\n"
    results.write_text(notes + "<!-- figures -->\n```\n" + text + "\n```\n")
    print(f"\nwritten to {results}")
