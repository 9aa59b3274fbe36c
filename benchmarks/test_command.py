"""The README's test command (`python -m pytest`: unit tests, then strict nbval over every
notebook), timed whole for this tree and for an earlier commit, back to back in one run.
A benchmark that prints figures, not a test (its name is not collected: pytest's testpaths
are tests/ and notebooks/).

Method. The earlier commit's whole tree is extracted with `git archive` into a temporary
folder, and the command runs there with this environment's Python and the commit's own
pyproject settings (so the commit runs serially, as it did, and this tree with its
pytest-xdist options); `agentlab` is imported from the commit's tree (PYTHONPATH first, for
pytest, the notebook kernels nbval starts and every subprocess a test starts). Each session
is timed from spawn to exit, with Python's bytecode caches written as on a student's laptop
(PYTHONDONTWRITEBYTECODE removed: with it, every session would re-compile the tests'
asserts). The outcomes (passed, failed, skipped) are printed beside each time: the same
checks must pass in both. Beside the wall time, the CPU time of the whole process tree
(pytest, its workers, the kernels and subprocesses), which a loaded machine changes less.
With --workers, this tree also runs with `-n N` for each N given. With --cores, both sessions
run on each number of cores given, as on a machine with that many: the session may use only the
first N of this machine's cores (its CPU affinity, as `taskset` sets it; `-n auto` counts those,
conftest.py), which shows how each command scales with cores.

Which environment runs it matters: the README's setup installs the `test` extra only, so the
hub's and the agent frameworks' tests skip there (CI adds the `hub` and `compat` extras). Run
the script with the Python of an environment made as the README says to time what a student
times; the first lines say which extras it has. `--same-checks` leaves out of both sessions the
test files and notebooks the earlier commit did not have (the files both have may still hold
more checks now).

    python benchmarks/test_command.py                     # against 9b54b39
    python benchmarks/test_command.py --workers 1,2       # ... and this tree on 1 and 2 workers
    python benchmarks/test_command.py --same-checks       # only the files 9b54b39 had
    python benchmarks/test_command.py --cores 1,2         # both on one core, then on two
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = pathlib.Path(__file__).parent.parent
STARTING_COMMIT = "9b54b39"


def environment(tree: pathlib.Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def session(tree: pathlib.Path, extra: list[str], imports_from: pathlib.Path | None,
            cores: int | None = None) -> dict:
    """Run the README's command in `tree`, on the first `cores` cores this process may use
    (all of them if None); its wall time and outcome counts."""
    allowed = sorted(os.sched_getaffinity(0)) if cores else []
    start, cpu = time.perf_counter(), _children_cpu()
    # -rsfE: the failed tests are listed too (the project's -rs lists only the skipped ones)
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsfE",
                          *extra], cwd=tree, capture_output=True, text=True,
                         env=environment(imports_from),
                         preexec_fn=(lambda: os.sched_setaffinity(0, allowed[:cores]))
                         if cores else None)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    summary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-500:]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|error)",
                                                     summary)}
    failed = [line for line in out.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return {"seconds": seconds, "cpu": cpu, "counts": counts, "summary": summary,
            "failed": failed}


def _children_cpu() -> float:
    """CPU seconds of every finished descendant: pytest, its workers, their kernels and
    subprocesses (each level waits for its children, so their time is counted)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def extract(commit: str, into: pathlib.Path) -> pathlib.Path:
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                             capture_output=True).stdout
    target = into / commit
    target.mkdir()
    with tempfile.TemporaryFile() as file:
        file.write(archive)
        file.seek(0)
        tarfile.open(fileobj=file).extractall(target)
    return target


def added_since(commit: str) -> list[str]:
    """The test files and notebooks this tree has and `commit` had not."""
    def tests_and_notebooks(listing: list[str]) -> set[str]:
        out = subprocess.run(["git", *listing, "--", "tests", "notebooks"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout.split()
        return {path for path in out
                if path.endswith(".ipynb") or re.search(r"(^|/)test_[^/]*\.py$", path)}
    return sorted(tests_and_notebooks(["ls-files"])
                  - tests_and_notebooks(["ls-tree", "-r", "--name-only", commit]))


def extras_installed() -> str:
    """Which of the project's optional test extras this Python's environment has."""
    from importlib.util import find_spec

    have = {"hub": find_spec("jupyterhub") is not None,
            "compat": find_spec("smolagents") is not None}
    return ", ".join(f"{name} {'installed' if on else 'absent: its tests skip'}"
                     for name, on in have.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default=STARTING_COMMIT)
    parser.add_argument("--workers", default="", help="also run this tree with -n N, e.g. 1")
    parser.add_argument("--paths", nargs="*", default=[],
                        help="only these paths, e.g. notebooks (the notebooks' execution)")
    parser.add_argument("--extra", default="", help="more pytest options for every session, "
                        "e.g. --extra=--ignore=tests/test_any_day.py (a module only one has)")
    parser.add_argument("--same-checks", action="store_true", help="leave out the test files "
                        "and notebooks the earlier commit did not have, in both sessions")
    parser.add_argument("--cores", default="", help="run both sessions on each number of "
                        "this machine's cores given, e.g. 1,2 (Linux: CPU affinity)")
    args = parser.parse_args()
    core_counts = [int(n) for n in args.cores.split(",") if n] or [None]
    if args.cores and max(core_counts) > len(os.sched_getaffinity(0)):
        parser.error(f"--cores: this process may use {len(os.sched_getaffinity(0))} cores")
    results = {}
    with tempfile.TemporaryDirectory(prefix="agentlab-suite-") as folder:
        base = extract(args.base, pathlib.Path(folder))
        shown = options = [*args.extra.split(), *args.paths]
        if args.same_checks:
            left_out = added_since(args.base)
            print(f"Left out of both sessions (not in {args.base}): {' '.join(left_out)}")
            options = [*shown, *(f"--ignore={path}" for path in left_out)]
        for cores in core_counts:
            on = f", {cores} core{'s' * (cores > 1)}" if cores else ""
            before = results[f"{args.base} (its own settings{on})"] = session(
                base, options, base, cores)
            results[f"now (its own settings{on})"] = {**session(ROOT, options, None, cores),
                                                      "against": before}
        for workers in filter(None, args.workers.split(",")):
            results[f"now with -n {workers}"] = session(ROOT, ["-n", workers, *options], None)
    command = " ".join(["python -m pytest", *shown]) + (" (same checks)" * args.same_checks)
    print(f"The README's test command, `{command}`, whole sessions one after another "
          f"({os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the end; "
          f"{sys.executable}: {extras_installed()}):")
    first = next(iter(results.values()))
    for name, result in results.items():  # each against the earlier commit on as many cores
        against = result.get("against", first)["seconds"]
        print(f"  {name:41} {result['seconds']:7.1f} s  {result['seconds'] / against:5.2f}x  "
              f"(CPU {result['cpu']:6.1f} s)  {result['summary'].strip('= ')}")
    for name, result in results.items():  # which tests failed, so that a flaky one is seen
        for line in result["failed"]:
            print(f"  {name}: {line}")


if __name__ == "__main__":
    sys.exit(main())
