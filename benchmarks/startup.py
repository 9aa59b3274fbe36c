"""Whole-process start-up: a bare interpreter, `import openai`, `import agentlab`, and each
framework's first answer on the canned model (setups.py, a 3-step run), every one timed as a
fresh process from spawn to exit, interleaved round-robin, medians.

Fairness: a process is timed whole, never an in-process import against a whole process. The
machine sets PYTHONDONTWRITEBYTECODE=1, which would make only agentlab (installed editable,
with no bytecode cache) compile its modules on every start; so the processes run with a
shared bytecode cache in a temporary folder (PYTHONPYCACHEPREFIX), filled by an untimed
warm-up, as a student's machine would have.

    python benchmarks/startup.py
"""

from __future__ import annotations

import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import notebooks

HERE = pathlib.Path(__file__).parent
FLOORS = {
    "python -c pass": ["-c", "pass"],
    "import openai": ["-c", "import openai"],
    "import agentlab": ["-c", "import agentlab"],
}
HEAVY = ("matplotlib", "ipywidgets", "openai", "genai_prices", "fastjsonschema", "numpy")


def commands(frameworks, floors=FLOORS) -> dict:
    first_answer = {f"{name} first answer": [str(HERE / "setups.py"), name, "3"]
                    for name in frameworks}
    return {**floors, **first_answer}


def environment(cache: str) -> dict:
    """A student's environment (bytecode caches written), with every process's caches in one
    fresh folder, so that all of them start from the same cache state."""
    return {**notebooks.student_env(), "PYTHONPYCACHEPREFIX": cache}


def whole_process(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env,
                   cwd=HERE.parent, timeout=120)
    return time.perf_counter() - start


def measure(frameworks=("agentlab", "smolagents", "openai-agents", "pydantic-ai", "langchain"),
            repeats: int = 7, floors=FLOORS, warm_up: bool = True) -> dict:
    """{command: median seconds}, every command a fresh process, interleaved."""
    runnable = [name for name in frameworks if _importable(name)]
    todo = commands(runnable, floors)
    with tempfile.TemporaryDirectory(prefix="agentlab-pycache-") as cache:
        env = environment(cache)
        for args in todo.values() if warm_up else ():  # fills the bytecode and OS file caches
            whole_process(args, env)
        samples = {name: [] for name in todo}
        for _ in range(repeats):
            for name, args in todo.items():
                samples[name].append(whole_process(args, env))
    return {name: statistics.median(s) for name, s in samples.items()}


def heavy_modules_loaded() -> list[str]:
    """Heavy modules that `import agentlab` loads (they should load only when used)."""
    code = f"import sys, agentlab; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=HERE.parent)
    return out.stdout.split()


def _importable(name: str) -> bool:
    import importlib.util

    module = {"agentlab": "agentlab", "pydantic-ai": "pydantic_ai", "openai-agents": "agents",
              "smolagents": "smolagents", "langchain": "langchain"}[name]
    return importlib.util.find_spec(module) is not None


def lines(figures: dict) -> list[str]:
    bare, sdk = figures["python -c pass"], figures["import openai"]
    out = [f"  {'process':32} {'ms':>8} {'- bare python':>14} {'x agentlab':>11}"]
    base = figures.get("agentlab first answer")
    for name, value in figures.items():
        ratio = f"{value / base:10.2f}x" if base and name.endswith("first answer") else ""
        out.append(f"  {name:32} {1000 * value:8.1f} {1000 * (value - bare):14.1f} {ratio:>11}")
    own = figures["import agentlab"] - bare
    out.append(f"  import agentlab costs {1000 * own:.1f} ms over a bare interpreter; "
               f"import openai {1000 * (sdk - bare):.1f} ms (agentlab loads openai only when used)")
    if base:
        out.append(f"  agentlab's first answer / (python + import openai) = {base / sdk:.2f}x")
    return out


if __name__ == "__main__":
    print("\n".join(lines(measure(repeats=2 if "--quick" in sys.argv else 7))))
    print(f"  heavy modules loaded by import agentlab: {heavy_modules_loaded() or 'none'}")
