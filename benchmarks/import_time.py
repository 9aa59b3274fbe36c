"""How long `import agentlab` takes in a fresh process, and which heavy modules it loads.

matplotlib, ipywidgets, the openai SDK and genai-prices should load only when used.
    python benchmarks/import_time.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys

HEAVY = ("matplotlib", "ipywidgets", "openai", "genai_prices", "fastjsonschema", "numpy")


def import_seconds(module: str = "agentlab", repeats: int = 7) -> float:
    """Median of -X importtime's cumulative microseconds for the module, in seconds."""
    samples = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                             capture_output=True, text=True, check=True)
        line = next(l for l in out.stderr.splitlines()[::-1] if l.rstrip().endswith(f"| {module}"))
        samples.append(int(line.split("|")[1]) / 1e6)
    return statistics.median(samples)


def heavy_modules_loaded() -> list[str]:
    code = f"import sys, agentlab; print([m for m in {HEAVY!r} if m in sys.modules])"
    return eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def interpreter_floor(repeats: int = 7) -> float:
    """A fresh `python -c pass`, for scale."""
    import time

    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


if __name__ == "__main__":
    print(f"import agentlab: {1000 * import_seconds():.1f} ms (median of 7, -X importtime)")
    print(f"python -c pass:  {1000 * interpreter_floor():.1f} ms (the interpreter's own start, for scale)")
    print(f"heavy modules loaded by import agentlab: {heavy_modules_loaded() or 'none'}")
