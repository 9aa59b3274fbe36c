"""The notebook suite under strict nbval: total time, and the ratio to an empty notebook under
the same nbval (the floor: starting a kernel).

    python benchmarks/notebooks.py
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).parent.parent
NBVAL = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
         "--nbval-sanitize-with", str(ROOT / "notebooks" / "sanitize.cfg")]


def timed(paths: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *NBVAL, *paths], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def empty_notebook(folder: pathlib.Path) -> str:
    path = folder / "empty.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [{"cell_type": "code", "id": "c0", "metadata": {}, "execution_count": 1,
                   "outputs": [], "source": "pass"}]}))
    return str(path)


def measure() -> dict:
    notebooks = sorted(str(p) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    with tempfile.TemporaryDirectory() as folder:
        floor = timed([empty_notebook(pathlib.Path(folder))])
    suite = timed(notebooks)
    return {"notebooks": len(notebooks), "suite": suite, "floor": floor}


if __name__ == "__main__":
    r = measure()
    print(f"{r['notebooks']} notebooks under strict nbval: {r['suite']:.1f} s "
          f"(limit 120 s); one empty notebook: {r['floor']:.1f} s; "
          f"ratio {r['suite'] / r['floor']:.1f}x the floor, {r['suite'] / r['floor'] / r['notebooks']:.2f}x per notebook")
