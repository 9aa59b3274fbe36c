"""The package's three wings and the arrows between them (docs/layout.md).

    agentlab/           the core: what chapter 51 describes (loop, guardrails, tools, ...)
    agentlab/course/    the classroom: checks, grader, quizzes, playground, plots, sweeps
    agentlab/server/    the offline model's HTTP face
    agentlab/tutor/     the offline model

Arrows run down, never up and never in a circle: course -> core -> server -> tutor (the course
may also use the server and the tutor). The command line (agentlab/__main__.py) is the front
door and may use every wing; nothing imports it. Every import counts, those inside a function
too (a lazy import is still an arrow); only `if TYPE_CHECKING:` blocks, which never run, do not.
The imports are read from the source with ast, so the test sees what a reader sees.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import warnings

import pytest

import agentlab
from agentlab import _moved

PACKAGE = pathlib.Path(agentlab.__file__).parent
# A wing's rank: a module may import its own wing and those of a lower rank only.
RANKS = {"tutor": 0, "server": 1, "core": 2, "course": 3, "front door": 4}


def module_name(path: pathlib.Path) -> str:
    """Example: agentlab/course/checks/__init__.py -> "agentlab.course.checks" """
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def wing(module: str) -> str:
    """Example: "agentlab.course.plots" -> "course"; "agentlab.loop" -> "core" """
    parts = module.split(".")
    if module == "agentlab.__main__":
        return "front door"
    if len(parts) > 1 and parts[1] in ("course", "server", "tutor"):
        return parts[1]
    return "core"


def _skipped_blocks(tree: ast.AST) -> set[int]:
    """The ids of nodes inside `if TYPE_CHECKING:` blocks."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped |= {id(n) for n in ast.walk(child)}
    return skipped


def imports_of(module: str) -> set[str]:
    """The agentlab modules one module imports, by full name.

    `from . import x` counts as an import of the submodule x when x is one, else of the package.
    Example: agentlab.loop -> {"agentlab._text", "agentlab.guardrails", "agentlab.models", ...}
    """
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    skipped = _skipped_blocks(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("agentlab")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if not origin.startswith("agentlab"):
                continue
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                found.add(submodule if submodule in MODULES else origin)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def test_the_three_wings_are_packages_whose_names_say_what_they_are():
    assert {wing(m) for m in MODULES} == set(RANKS)
    for package in ("agentlab.course", "agentlab.course.checks", "agentlab.course.gauntlet",
                    "agentlab.server", "agentlab.tutor"):
        assert MODULES[package].name == "__init__.py", package
    # the generated schemas are data, not modules a reader meets
    assert not [m for m in MODULES if "schema" in m.rsplit(".", 1)[-1]]
    assert sorted(p.name for p in (PACKAGE / "server" / "schemas").glob("*.json")) == [
        "chat_completions_request.json", "responses_request.json"]


def test_no_module_reaches_up_a_wing():
    upward = [f"{module} ({wing(module)}) imports {target} ({wing(target)})"
              for module, targets in GRAPH.items() for target in sorted(targets)
              if RANKS[wing(target)] > RANKS[wing(module)]]
    assert upward == []


def test_the_server_uses_only_the_tutor_and_the_tutor_only_itself():
    assert {t for m, ts in GRAPH.items() if wing(m) == "server" for t in ts
            if wing(t) not in ("server", "tutor")} == set()
    assert {t for m, ts in GRAPH.items() if wing(m) == "tutor" for t in ts
            if wing(t) != "tutor"} == set()


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports, as the modules along it, or None.

    Example: {"a": {"b"}, "b": {"a"}} -> ["a", "b", "a"];  {"a": {"b"}, "b": set()} -> None
    """
    done, path = set(), []

    def visit(module) -> list[str] | None:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if cycle := visit(target):
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        if cycle := visit(module):
            return cycle
    return None


def test_find_cycle_finds_one():  # the check below must be able to fail
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"agentlab.server.handler": {"agentlab.server.web"},
                       "agentlab.server.web": {"agentlab.server.handler"}}) is not None


def test_no_import_cycle_anywhere_in_the_package():
    assert find_cycle(GRAPH) is None


def test_the_cuts_the_issue_names_hold():
    # server <-> http_server and tools <-> isolated were circles; the Budget, the Deadline and
    # the RepeatGuard lived in three modules
    assert "agentlab.server.web" not in GRAPH["agentlab.server.handler"]
    assert "agentlab.tools" not in GRAPH["agentlab._isolated"]
    from agentlab import guardrails

    for name in ("Limits", "Deadline", "Budget", "RepeatGuard", "Deny", "truncate",
                 "not_on_allowlist", "run_tool_within", "ask_approval"):
        assert getattr(guardrails, name).__module__ == "agentlab.guardrails", name


def test_the_views_take_token_counts_from_pricing_and_model_names_from_the_client():
    assert "agentlab.tutor" not in GRAPH["agentlab.course.plots"]
    assert "agentlab.pricing" in GRAPH["agentlab.course.plots"]
    assert not any(t.startswith("agentlab.tutor") for t in GRAPH["agentlab.course.playground"])
    from agentlab.models import TUTOR_MODELS
    from agentlab.tutor import PERSONAS

    assert TUTOR_MODELS == PERSONAS


def test_what_students_import_from_agentlab_still_imports():
    for name in ("run_agent", "Limits", "connect", "ChatClient", "Response", "estimate_cost",
                 "Price", "Budget", "Unpriceable", "Run", "Step", "ToolCall", "print_step", "tool",
                 "Tool", "Toolbox", "Deny"):
        assert hasattr(agentlab, name), name
    from agentlab.loop import Limits, run_agent  # noqa: F401 - the old homes of moved names
    from agentlab.tools import Deny, RepeatGuard, exception_text, to_text, truncate  # noqa: F401


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_module_name_imports_the_new_module_and_says_where_it_went(old):
    new = importlib.import_module(_moved.MOVED[old])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alias = importlib.import_module(old)
        names = [n for n in dir(new) if not n.startswith("__")]
        assert names and all(getattr(alias, n) is getattr(new, n) for n in names[:20])
    # warned once, at the first import in this process (another test may have made it first)
    assert all(issubclass(w.category, DeprecationWarning) and _moved.MOVED[old] in str(w.message)
               for w in caught)


def test_an_old_name_says_so_in_a_fresh_process(tmp_path):
    import subprocess
    import sys

    script = ("import warnings; warnings.simplefilter('always')\n"
              "from agentlab.exercises import check_observe\n"
              "from agentlab.gauntlet import grade\n"
              "import agentlab.course.checks as new\n"
              "assert check_observe is new.check_observe\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "agentlab.exercises moved to agentlab.course.checks" in done.stderr
    assert "agentlab.gauntlet moved to agentlab.course.gauntlet" in done.stderr


def test_the_core_is_small_enough_to_read_in_one_sitting():
    """The size the README's layout reports; private helpers (_*.py) are not read."""
    core = [p for m, p in MODULES.items() if wing(m) == "core" and not p.name.startswith("_")]
    lines = sum(len(p.read_text().splitlines()) for p in core)
    assert lines < 3000, f"the core has grown to {lines} lines"
