"""Old module names that still import: the package was one flat folder before it had wings.

`from agentlab.exercises import check_observe` (a notebook saved last term) keeps working and
warns once, naming the new place (agentlab.course.checks). Only the old names go through here;
every other import is Python's own.

Example: import agentlab.widgets -> DeprecationWarning "agentlab.widgets moved to
         agentlab.course.playground: import it from there"; then agentlab.widgets.Playground
         is agentlab.course.playground.Playground
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

MOVED = {
    "agentlab.exercises": "agentlab.course.checks",
    "agentlab.gauntlet": "agentlab.course.gauntlet",
    "agentlab.quizzes": "agentlab.course.quizzes",
    "agentlab.widgets": "agentlab.course.playground",
    "agentlab.plots": "agentlab.course.plots",
    "agentlab.sweeps": "agentlab.course.sweeps",
    "agentlab.api_checks": "agentlab.server.checks",
    "agentlab.responses_api": "agentlab.server.responses",
    "agentlab.http_server": "agentlab.server.web",
    "agentlab.streaming": "agentlab.server.streaming",
    "agentlab.watched": "agentlab._watched",
    "agentlab.isolated": "agentlab._isolated",
}


class _MovedModule(types.ModuleType):
    """Stands at an old name; every attribute is read from the module at the new one."""

    def __getattr__(self, name: str):
        return getattr(importlib.import_module(MOVED[self.__name__]), name)

    def __dir__(self):
        return dir(importlib.import_module(MOVED[self.__name__]))


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return _MovedModule(spec.name)

    def exec_module(self, module) -> None:
        new = MOVED[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}: import it from there",
                      DeprecationWarning, stacklevel=2)
        module.__doc__ = f"Moved to {new}."


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, _Loader())
        return None


def install() -> None:
    """Put the finder on sys.meta_path once (agentlab/__init__.py calls it)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
