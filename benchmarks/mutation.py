"""Mutation testing of the guardrails' modules with mutmut: how many small changes to the code
(a `>=` made `>`, a constant changed, a line dropped) the tests notice. A change no test
notices ("survived") is either a test missing or code that does not matter; MUTATION.md beside
this file explains every survivor of the last run.

Not part of the test command: a module takes minutes to hours. Each module runs in a copy of
the project under a temporary folder (mutmut writes its mutants/ folder there, not here), with
only the test files that exercise it, one pytest per mutant, three at a time (--children).

    pip install "mutmut>=3.3"
    python benchmarks/mutation.py masking pricing      # some modules
    python benchmarks/mutation.py                      # all five (hours on two cores)
    python benchmarks/mutation.py masking --keep DIR   # keep the copy: `mutmut show NAME` in it
    python benchmarks/mutation.py loop --minutes 20    # stop after 20 minutes: the rest is
                                                       # reported as "not checked"
    python benchmarks/mutation.py loop --keep DIR --resume   # go on with a stopped run
    python benchmarks/mutation.py _isolated --children 2     # two mutants at a time, not 3

Code the tests run only in a child process (IN_CHILD) is given the tests that start that child.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The test files that exercise each module: enough to kill what can be killed, few enough to
# keep a module to minutes (mutmut runs, per mutant, only the tests that reached its function).
TESTS = {
    "masking": ["tests/test_review_faults.py", "tests/test_edges.py", "tests/test_records.py"],
    "api_checks": ["tests/test_server_protocol.py", "tests/test_review_faults.py",
                   "tests/test_tutor_protocol.py"],
    "pricing": ["tests/test_review_faults.py", "tests/test_edges.py", "tests/test_records.py"],
    "tools": ["tests/test_tools.py", "tests/test_review_faults.py", "tests/test_edges.py",
              "tests/test_hostile.py"],
    "loop": ["tests/test_loop.py", "tests/test_review_faults.py", "tests/test_edges.py"],
    # The private clocks: a tool in a fresh process, and a call on a watched thread.
    "_isolated": ["tests/test_review_faults.py"],
    "_watched": ["tests/test_review_faults.py"],
}
# Code that the tests run in a child process they start. mutmut gives a mutant the tests that
# reached its function as it saw them in the test process; what a child runs is counted in the
# child, and lost, so _child and _send would be "no tests", and run_within would not get the
# test whose child exits with a hung tool. Each such function is given more tests: those that
# reached a function of the test process (call starts the child that runs _child), or a test
# named. mutmut names the mutant to run in the MUTANT_UNDER_TEST environment variable, which a
# child inherits, so the mutant is the code the child runs in those tests.
IN_CHILD = {
    "_isolated": {"_child": "call", "_send": "call"},
    "_watched": {"run_within": "tests/test_review_faults.py::"
                               "test_a_hung_tools_thread_never_keeps_python_from_exiting"},
}
# Imported once by mutmut's fork server, before it forks the process that runs a mutant's
# tests: the heavy libraries only. Never agentlab or the tests: see config() below.
PRELOADED = ["openai", "httpx", "pydantic", "hypothesis", "jsonschema", "fastjsonschema",
             "genai_prices", "numpy", "matplotlib.pyplot", "_pytest.pytester", "nbval.plugin",
             "schemathesis"]
# Where mutmut's own way is kept: forking every mutant from a process that has imported the
# tests and run them once is several times faster, and loop.py builds nothing at import and
# remembers nothing between calls that its tests rely on (see config()).
FORKED = {"loop"}
CHILDREN = 3  # mutants at a time: their tests wait (time limits) as often as they compute;
# --children 2 on a machine whose cores other work shares
COPIED = ["agentlab", "tests", "conftest.py", "pyproject.toml", "README.md", "notebooks"]


def config(module: str, folder: pathlib.Path) -> str:
    """mutmut's settings for one module, appended to the copy's pyproject.toml.

    Each mutant's tests run in a process that imports agentlab and the test files afresh
    (a fork server that preloaded only PRELOADED). mutmut's default forks every mutant from a
    process that has already imported them and run the tests once, and then a mutant never
    reaches what was done at import or remembered between calls: the tools the test files
    define at import built their schemas with the unmutated code, and the server's memory of
    the messages it has checked skipped the check. Both made mutants survive that the tests
    kill (MUTATION.md, first runs). The modules in FORKED keep mutmut's default."""
    tests = ", ".join(f'"{t}"' for t in TESTS[module])
    preloaded = folder / "preloaded.txt"
    return (f'\n[tool.mutmut]\nsource_paths = ["agentlab/"]\n'
            f'only_mutate = ["agentlab/{module}.py"]\n'
            + ("" if module in FORKED else
               f'process_isolation = "forkserver"\nforkserver_warmup = "import"\n'
               f'preload_modules_file = "{preloaded}"\n')
            + f"pytest_add_cli_args_test_selection = [{tests}]\n"
            # the project's addopts run nbval over every notebook: not wanted per mutant
            f'pytest_add_cli_args = ["-p", "no:cacheprovider", "-o", "addopts=", "-q", '
            f'"-p", "no:randomly", "-x"]\n'
            # With fresh imports, a mutant that breaks an import (a tool's schema, built at
            # import, that raises) leaves pytest unable to collect the tests mutmut selected;
            # mutmut's worker then waits for its time limit, and reports a timeout (a kill:
            # the tests did not pass). 8x the tests' own time, not mutmut's 15x, keeps those
            # waits shorter.
            + ("" if module in FORKED else "timeout_multiplier = 8\n"))


def copy_project(into: pathlib.Path, module: str) -> None:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns(
                "__pycache__", ".ipynb_checkpoints"))
        else:
            shutil.copy2(source, into / name)
    with open(into / "pyproject.toml", "a") as pyproject:
        pyproject.write(config(module, into))
    (into / "preloaded.txt").write_text("\n".join(PRELOADED) + "\n")


def give_tests_to_child_code(folder: pathlib.Path, module: str) -> int:
    """Add the tests of IN_CHILD[module] to mutmut's record of which tests reached which
    function (written by `mutmut run` before it checks any mutant), and mark unchecked those
    functions' mutants that no test killed ("no tests" or "survived"). Returns how many it
    marked: `mutmut run` then checks them with their new tests."""
    stats_file = folder / "mutants" / "mutmut-stats.json"
    if module not in IN_CHILD or not stats_file.exists():
        return 0
    key = f"agentlab.{module}.x_{{}}".format  # mutmut's name of a function: module.x_name
    stats = json.loads(stats_file.read_text())
    tests = stats["tests_by_mangled_function_name"]
    grown = set()  # the functions given tests they did not have
    for function, given in IN_CHILD[module].items():
        added = [given] if "::" in given else tests.get(key(given), [])
        if not added or any(test not in stats["duration_by_test"] for test in added):
            raise RuntimeError(f"{given}: no such test, or no test reached it")
        if not set(added) <= set(tests.get(key(function), [])):
            tests[key(function)] = sorted(set(tests.get(key(function), [])) | set(added))
            grown.add(key(function))
    stats_file.write_text(json.dumps(stats, indent=4))
    meta_file = folder / "mutants" / "agentlab" / f"{module}.py.meta"
    meta = json.loads(meta_file.read_text())
    verdicts = meta["exit_code_by_key"]
    not_killed = {0, 5, 33}  # mutmut's exit codes for "survived" and "no tests"
    marked = [name for name, code in verdicts.items()
              if code in not_killed and name.partition("__mutmut_")[0] in grown]
    for name in marked:
        verdicts[name] = None  # not checked
    meta_file.write_text(json.dumps(meta, indent=4))
    return len(marked)


def mutmut(folder: pathlib.Path, *args: str, minutes: float | None = None) -> str:
    """Run mutmut in the folder; stop it (and its workers) after `minutes`, keeping what it
    checked so far: the rest is reported as "not checked"."""
    command = ["nice", str(pathlib.Path(sys.executable).parent / "mutmut"), *args]
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=None if minutes is None else minutes * 60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        output, _ = process.communicate()
        return output + f"\n[stopped after {minutes:g} minutes]"
    done = subprocess.CompletedProcess(command, process.returncode, output, "")
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mutmut {' '.join(args)} failed:\n{done.stdout[-3000:]}"
                           f"\n{done.stderr[-3000:]}")
    return done.stdout


def run(module: str, keep: pathlib.Path | None, minutes: float | None,
        resume: bool = False, children: int = CHILDREN) -> collections.Counter:
    folder = pathlib.Path(keep or tempfile.mkdtemp(prefix=f"mutation-{module}-"))
    folder.mkdir(parents=True, exist_ok=True)
    if not resume:  # resuming, mutmut keeps its results so far and checks the rest
        copy_project(folder, module)
    start = time.perf_counter()
    give_tests_to_child_code(folder, module)  # resuming: mutmut has its record already
    log = mutmut(folder, "run", "--max-children", str(children), minutes=minutes)
    if give_tests_to_child_code(folder, module) and not log.endswith("minutes]"):
        left = None if minutes is None else minutes - (time.perf_counter() - start) / 60
        log += mutmut(folder, "run", "--max-children", str(children), minutes=left)
    (folder / "mutmut-run.log").write_text(log)
    results = mutmut(folder, "results", "--all", "true")
    statuses, in_child = collections.Counter(), collections.Counter()
    survivors = []
    child_code = IN_CHILD.get(module, {})
    for line in results.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            statuses[status] += 1
            if status == "survived":
                survivors.append(name)
            if name.partition("__mutmut_")[0].rpartition(".x_")[2] in child_code:
                in_child[status] += 1
    killed = statuses["killed"]
    total = sum(statuses.values())
    print(f"## {module}.py: {killed} of {total} mutants killed ({killed / max(total, 1):.0%}), "
          f"{dict(statuses)}, {time.perf_counter() - start:.0f} s; tests: "
          f"{', '.join(TESTS[module])}")
    if in_child:
        print(f"of which in {', '.join(child_code)}, given the tests that run them in a "
              f"child process too (IN_CHILD): {dict(in_child)}")
    for name in survivors:
        print(f"\n### {name}\n```diff\n{mutmut(folder, 'show', name).strip()}\n```")
    if keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", choices=[[], *TESTS], default=list(TESTS))
    parser.add_argument("--keep", type=pathlib.Path, help="run in this folder and keep it")
    parser.add_argument("--minutes", type=float, help="stop each module after this long")
    parser.add_argument("--resume", action="store_true",
                        help="go on with a run stopped by --minutes in its --keep folder")
    parser.add_argument("--children", type=int, default=CHILDREN,
                        help=f"mutants checked at a time (default {CHILDREN})")
    args = parser.parse_args()
    if args.resume and not (args.keep and len(args.modules) == 1):
        parser.error("--resume needs one module and the --keep folder of its run")
    for module in args.modules or list(TESTS):
        run(module, args.keep, args.minutes, args.resume, args.children)


if __name__ == "__main__":
    main()
