"""The README's test command (`python -m pytest`: the unit tests, then strict nbval over every
notebook) timed whole, against its floor measured in the same run. A benchmark that prints
figures, not a test (its name keeps pytest from collecting it).

Every session runs as on a student's laptop: Python writes its bytecode caches (a setting that
turns them off, such as PYTHONDONTWRITEBYTECODE, is removed from the sessions' environment;
with it, pytest re-rewrites the asserts of every test module and plugin in every session).

The floor is what the suite cannot avoid:
  - pytest's start-up plus one kernel start per notebook: one nbval session over as many empty
    notebooks as the course has (notebooks.floor_session);
  - one JupyterLab start and one Chromium start for the browser test: the server until it
    answers, Chromium launched through Playwright, the lab page loaded until its shell shows.

A third figure splits the suite: the notebooks and the browser check alone (the README's command
given only those paths), against the same floor. What it is over the floor is the notebooks'
cells and the browser test's own work; the rest of the suite's time is the other unit tests.

    python benchmarks/suite_time.py                  # 3 rounds (~11 minutes)
    python benchmarks/suite_time.py --rounds 1       # one round
    python benchmarks/suite_time.py --skip-pytest    # the floor only (a quick smoke test)
"""

from __future__ import annotations

import argparse
import os
import pathlib
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import notebooks
import server_load

ROOT = pathlib.Path(__file__).parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


NOTEBOOKS_AND_BROWSER = ("notebooks", "tests/test_browser.py")


def pytest_seconds(paths: tuple[str, ...] = ()) -> float:
    """The README's command, from the project folder (on `paths` only, if given); it must pass."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pytest", *paths], cwd=ROOT, capture_output=True,
                         text=True, env=notebooks.student_env())
    if out.returncode != 0:
        raise RuntimeError(f"the test suite failed:\n{out.stdout[-3000:]}")
    return time.perf_counter() - start


def lab_and_browser_seconds() -> float | None:
    """One JupyterLab start and one Chromium start with the lab page shown (None: no Chromium)."""
    if not os.path.exists(CHROMIUM):
        return None
    from playwright.sync_api import sync_playwright

    start = time.perf_counter()
    port, token = server_load.free_port(), secrets.token_hex(16)
    with tempfile.TemporaryDirectory() as root:
        lab = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             "--allow-root", "--ServerApp.open_browser=False"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=lab_environment(root))
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_for(f"{base}/api/status?token={token}", lab)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run"])
                page = browser.new_page()
                page.goto(f"{base}/lab?token={token}")
                page.wait_for_selector("#jp-main-dock-panel", timeout=60_000)
                browser.close()
        finally:
            lab.terminate()
            lab.wait(15)
    return time.perf_counter() - start


def lab_environment(root: str) -> dict:
    """A student's environment (notebooks.student_env), with JupyterLab's settings and
    workspaces kept in `root`, so the floor's lab starts as a fresh one would."""
    return {**notebooks.student_env(), "JUPYTERLAB_SETTINGS_DIR": f"{root}/settings",
            "JUPYTERLAB_WORKSPACES_DIR": f"{root}/workspaces"}


def _wait_for(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("JupyterLab did not start")
            time.sleep(0.1)


def measure(run_pytest: bool = True, rounds: int = 1) -> dict:
    """The floor's parts and the two sessions' times, in `rounds` rounds.

    A round measures its floor, then the whole suite and the notebooks-and-browser part, in an
    order that alternates from round to round, so neither session always runs nearer the
    floor (or always on caches the other warmed). Each ratio is the median of the rounds' own
    ratios: this machine's CPU speed swings by up to 1.8x in phases, enough to move one
    session's floor from 22 s to 31 s, and a round's sessions see the same phases as its floor
    more often than those of another round.
    """
    count = len(notebooks.course_notebooks())
    sessions = [("pytest", ()), ("notebooks_part", NOTEBOOKS_AND_BROWSER)]
    seen = []
    for r in range(rounds):
        kernels, lab = notebooks.floor_session(count), lab_and_browser_seconds()
        row = {"kernels": kernels, "lab": lab, "floor": kernels + (lab or 0.0),
               "pytest": None, "notebooks_part": None}
        order = sessions if r % 2 == 0 else sessions[::-1]  # which runs first alternates
        for key, paths in order if run_pytest else []:
            row[key] = pytest_seconds(paths)
        seen.append(row)
    figures = {"notebooks": count, "rounds": rounds}
    for key in ("kernels", "lab", "floor", "pytest", "notebooks_part"):
        values = [r[key] for r in seen if r[key] is not None]
        figures[key] = statistics.median(values) if values else None
    for key, ratio in (("pytest", "ratio"), ("notebooks_part", "notebooks_ratio")):
        figures[f"{ratio}s"] = [r[key] / r["floor"] for r in seen] if run_pytest else []
        figures[ratio] = statistics.median(figures[f"{ratio}s"]) if run_pytest else None
    return figures


def lines(f: dict) -> list[str]:
    lab = f"{f['lab']:.1f} s" if f["lab"] is not None else "skipped (no Chromium)"
    rounds = f.get("rounds", 1)
    each = f"medians of {rounds} rounds, " if rounds > 1 else ""
    out = [f"  floor ({each}each measured at the start of its round): pytest start-up + "
           f"{f['notebooks']} kernel starts {f['kernels']:.1f} s, JupyterLab + Chromium start "
           f"{lab}; total {f['floor']:.1f} s"]
    if f["pytest"] is not None:
        ratios = ", ".join(f"{r:.2f}x" for r in f.get("ratios", []))
        out.append(f"  python -m pytest (README): {f['pytest']:.1f} s; "
                   f"{f['ratio']:.2f}x its floor"
                   + (f" (median of the rounds' own ratios: {ratios})" if rounds > 1 else ""))
    if f.get("notebooks_part") is not None:
        ratios = ", ".join(f"{r:.2f}x" for r in f.get("notebooks_ratios", []))
        out.append(f"  of which the notebooks and the browser check alone "
                   f"(pytest {' '.join(NOTEBOOKS_AND_BROWSER)}): {f['notebooks_part']:.1f} s; "
                   f"{f['notebooks_ratio']:.2f}x the same floor"
                   + (f" (median of the rounds' own ratios: {ratios})" if rounds > 1 else "")
                   + "; the other unit tests add the rest")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-pytest", action="store_true", help="measure the floor only")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of (floor, suite, notebooks part)")
    args = parser.parse_args()
    print("\n".join(lines(measure(run_pytest=not args.skip_pytest, rounds=args.rounds))))
