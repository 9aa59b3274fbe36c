"""Tools: what the model sees (a JSON schema) and what actually runs (a Python function).

`@tool` turns a typed, documented function into both. `Toolbox` is the gate between the
model's requests and our code. For every tool call the model asks for it decides, in order:

    1. allowlist     is the name one of our tools?
    2. arguments     is the text valid JSON, and does it match the tool's schema?
    3. repeat guard  has the model asked for exactly this call too many times in a row?
    4. approval      does the approval hook (ours, not the model's) allow it?
    5. run           call the function in a worker thread, bounded by a timeout
    6. observe       turn the result into text, cut it to max_result_chars

Any "no" becomes an {"error": "..."} observation that names the problem, so the model can
correct itself and the loop goes on. The model never runs anything; this file does. Each check
that is a guardrail (the allowlist, the repeat guard, approval, the timeout, truncation) is one
named piece of guardrails.py; this file decides the order and turns each "no" into the error.

Left out on purpose: async tools, and killing a tool that overruns its timeout on a thread
(Python cannot kill a thread: the call is abandoned, keeps running in the background and its
result is dropped; _watched.py says what threads cannot do, and a tool holding the GIL is the
case to know). Limits(isolate="process") runs each call in a process that can be killed.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import os
import re
import sys
import time
import types
import typing
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from . import _isolated
from ._text import Unreadable, exception_text, to_text
from ._watched import Overran
from .guardrails import (
    Deny,
    EndRun,
    RepeatGuard,
    ask_approval,
    not_on_allowlist,
    overran,
    run_tool_within,
    truncate,
)
from .masking import MASK, mask

# Deny, EndRun, RepeatGuard, truncate, exception_text and to_text are used here and were first
# defined here: they stay importable from agentlab.tools.
__all__ = ["Tool", "tool", "Toolbox", "Outcome", "Deny", "EndRun", "RepeatGuard", "truncate",
           "exception_text", "to_text"]

# ---------------------------------------------------------------------------------------------
# Building a schema from a function


@dataclasses.dataclass
class Tool:
    """A function the model may ask for, with the schema the model sees."""

    name: str
    description: str
    parameters: dict
    function: Callable[..., Any]

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    @property
    def schema(self) -> dict:
        """The chat-completions tool schema: what the model sees. Masked: a key written as a
        parameter's default or in a description would otherwise go out with every request
        (the function itself still gets its real default)."""
        return mask({"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}})

    def __repr__(self):
        first_line = self.description.splitlines()[0] if self.description else ""
        return f"Tool({self.name!r}: {first_line})"


def tool(function=None, *, name: str | None = None, description: str | None = None):
    """Make a tool from a function with type hints and a docstring.

    The summary of the docstring becomes the description; per-argument descriptions come from
    an "Args:" section (Google style) or ":param x:" lines. Supported types: str, int, float,
    bool, list[...], Optional[...], Literal[...] and Enum subclasses. A missing docstring, or
    an Args: entry naming no parameter, gets a warning: the model reads those descriptions.
    """
    def wrap(fn):
        _refuse_what_never_runs(fn)
        summary, arg_docs = _parse_docstring(inspect.getdoc(fn) or "")
        _warn_about_docs(fn, description or summary, arg_docs)
        return Tool(name=name or fn.__name__, description=description or summary,
                    parameters=_parameters_schema(fn, arg_docs), function=_with_enums(fn))
    return wrap(function) if function is not None else wrap


def _refuse_what_never_runs(fn) -> None:
    """Calling a generator or an async function only makes an object: its body never runs, and
    the model would read "<generator object ...>". The loop calls tools plainly, so say so."""
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"@tool {fn.__qualname__} is a generator (it yields): calling it runs "
                        "none of its body; return a list instead of yielding")
    if inspect.iscoroutinefunction(fn):
        raise TypeError(f"@tool {fn.__qualname__} is async: the loop calls tools plainly, so "
                        "its body would never run; make it a plain def")


def _warn_about_docs(fn, description: str, arg_docs: dict[str, str]) -> None:
    """The model chooses tools by their descriptions: say so when one is missing or wrong."""
    where = getattr(fn, "__qualname__", repr(fn))
    if not description:
        warnings.warn(f"@tool {where} has no docstring, so the model gets no description of "
                      "it: add a docstring saying what it does", UserWarning,
                      stacklevel=_outside_agentlab())
    unknown = sorted(set(arg_docs) - set(inspect.signature(fn).parameters))
    if unknown:
        warnings.warn(f"@tool {where}: its docstring describes {', '.join(unknown)}, which "
                      f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'}; "
                      "fix the Args: section to name the real ones", UserWarning,
                      stacklevel=_outside_agentlab())


def _outside_agentlab() -> int:
    """The stacklevel that makes a warning point at the first line outside agentlab: the
    student's @tool, tool(f) or Toolbox([f]), however many of agentlab's own calls lie
    between (a fixed number fits only one of those ways to make a tool)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1  # level 1: the function that calls warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _with_enums(fn):
    """JSON carries an Enum argument as its value; give the function the Enum member."""
    enums = {p: h for p, h in typing.get_type_hints(fn).items()
             if inspect.isclass(h) and issubclass(h, enum.Enum)}
    if not enums:
        return fn

    def call(*args, **kwargs):
        for pname, cls in enums.items():
            if pname in kwargs and not isinstance(kwargs[pname], cls):
                kwargs[pname] = cls(kwargs[pname])
        return fn(*args, **kwargs)
    return functools.wraps(fn)(call)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (first paragraph) and per-argument descriptions, from a Google-style
    "Args:" section or reST ":param name:" lines."""
    summary = " ".join(doc.split("\n\n")[0].split())
    args: dict[str, str] = {}
    section_indent = entry_indent = None  # inside an Args: section, and inside an entry
    current = None
    param_indent = None  # after a ":param x:" line: its description goes on, indented more
    for line in doc.splitlines():
        text, indent = line.strip(), len(line) - len(line.lstrip())
        param = re.match(r":param\s+(?:\w+\s+)?(\w+):\s*(.*)", text)
        if param:
            current, args[param[1]], param_indent = param[1], param[2], indent
            continue
        if param_indent is not None:
            if text and indent > param_indent and not text.startswith(":"):
                args[current] += " " + text
                continue
            param_indent = None  # a blank line, another field (":returns:") or prose
        if text in ("Args:", "Arguments:", "Parameters:"):
            section_indent, entry_indent, current = indent, None, None
            continue
        if section_indent is None or not text:
            continue
        if indent <= section_indent:  # the next section ("Returns:") or prose: the args end
            section_indent = current = None
            continue
        entry = re.match(r"(\w+)\s*(?:\([^)]*\))?:\s*(.*)", text)
        if entry and (entry_indent is None or indent <= entry_indent):
            entry_indent, current, args[entry[1]] = indent, entry[1], entry[2]
        elif current:
            args[current] += " " + text
    return summary, {k: v.strip() for k, v in args.items()}


def _type_schema(hint, where: str) -> dict:
    origin, type_args = typing.get_origin(hint), typing.get_args(hint)
    if hint is str:
        return {"type": "string"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint in (dict, typing.Any):
        return {"type": "object"} if hint is dict else {}
    if origin is typing.Literal:
        kinds = {type(v) for v in type_args}
        schema = {"enum": list(type_args)}
        if len(kinds) == 1:
            schema.update(_type_schema(kinds.pop(), where))
        return schema
    if inspect.isclass(hint) and issubclass(hint, enum.Enum):
        return {"enum": [member.value for member in hint]}
    if origin in (list, tuple, set, Iterable) or hint in (list, tuple, set):
        items = _type_schema(type_args[0], where) if type_args else {}
        return {"type": "array", "items": items}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in type_args if a is not type(None)]
        inner = [_type_schema(a, where) for a in options]
        if len(options) < len(type_args):
            inner.append({"type": "null"})
        return inner[0] if len(inner) == 1 else {"anyOf": inner}
    raise TypeError(f"{where}: a tool cannot take a {hint!r}; use str, int, float, bool, list, "
                    "Optional, Literal or an Enum")


def _parameters_schema(fn, arg_docs: dict[str, str]) -> dict:
    hints = typing.get_type_hints(fn)
    properties, required = {}, []
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{fn.__name__}: a tool cannot take *{pname}; name every argument")
        if pname not in hints:
            raise TypeError(f"{fn.__name__}: argument {pname!r} needs a type hint")
        prop = _type_schema(hints[pname], f"{fn.__name__}({pname})")
        if pname in arg_docs:
            prop["description"] = arg_docs[pname]
        if param.default is param.empty:
            required.append(pname)
        elif param.default is not None and not isinstance(param.default, enum.Enum):
            prop["default"] = param.default
        properties[pname] = prop
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


# ---------------------------------------------------------------------------------------------
# Running one call


@dataclasses.dataclass
class Outcome:
    """What became of one tool call: the text the model will read, and how it got there."""

    content: str
    error: str | None = None
    arguments: dict | None = None
    truncated_chars: int = 0
    denied: str | None = None
    seconds: float = 0.0


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str):
    """A compiled validator per distinct schema: compiling costs about a millisecond, and a
    Toolbox is built for every run."""
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema_json))


class Toolbox:
    """The tools of one run: their schemas for the model, and the gate that runs calls."""

    def __init__(self, tools: Iterable = (), implementations: dict | None = None):
        self.tools: dict[str, Tool] = {}
        if implementations is not None:  # the chapter's shape: list of schemas + dict of functions
            for schema in tools:
                spec = schema.get("function", schema)
                name = spec["name"]
                if name not in implementations:
                    raise ValueError(f"schema {name!r} has no implementation")
                self.tools[name] = Tool(name, spec.get("description", ""),
                                        spec.get("parameters", {"type": "object",
                                                                "properties": {}}),
                                        implementations[name])
        else:
            for item in tools:
                if not callable(item):
                    raise TypeError(f"each tool must be a function or a Tool, not {item!r}: "
                                    "pass the function itself (import it first)")
                t = item if isinstance(item, Tool) else tool(item)
                self.tools[t.name] = t
        self._validators: dict[str, Any] = {}

    @classmethod
    def of(cls, tools) -> Toolbox:
        """Accept a Toolbox, a list of @tool functions, or the chapter's (schemas, impls) pair."""
        if isinstance(tools, Toolbox):
            return tools
        if tools is None:
            return cls()
        if (isinstance(tools, tuple) and len(tools) == 2 and isinstance(tools[1], dict)):
            return cls(tools[0], tools[1])
        if isinstance(tools, (str, bytes)):
            raise TypeError(f"tools must be a list of functions, not the text {tools!r}: pass "
                            f"the function itself, e.g. [{tools!s}] after importing it")
        if isinstance(tools, Tool) or callable(tools) or not isinstance(tools, Iterable):
            name = getattr(tools, "name", getattr(tools, "__name__", type(tools).__name__))
            raise TypeError(f"tools must be a list, even for one tool: pass [{name}], "
                            f"not {name}")
        return cls(tools or ())

    @property
    def schemas(self) -> list[dict]:
        return [t.schema for t in self.tools.values()]

    def __repr__(self):
        return f"Toolbox({', '.join(self.tools)})"

    def _schema_error(self, name: str, arguments) -> str | None:
        """Why the arguments do not match the tool's schema, or None if they do."""
        import fastjsonschema

        if name not in self._validators:
            schema = json.dumps(self.tools[name].parameters, sort_keys=True)
            self._validators[name] = _validator(schema)
        try:
            self._validators[name](arguments)
        except fastjsonschema.JsonSchemaValueException as e:
            # "data.city must be string" -> "argument 'city' must be string"
            return re.sub(r"^data\.([\w.\[\]]+)", r"argument '\1'", e.message).replace(
                "data ", "the arguments ", 1)
        return None

    def check_importable(self) -> None:
        """For isolate="process": raise ValueError, naming the fix, for a tool that a fresh
        Python process could not import (one defined in a notebook cell or in __main__)."""
        for t in self.tools.values():
            _isolated.reference(t)

    def call(self, name: str, arguments_json: str | None, *, timeout: float | None = None,
             max_result_chars: int | None = 4000, approve=None,
             repeat_guard: RepeatGuard | None = None, deadline: float | None = None,
             isolate: str = "thread") -> Outcome:
        """Decide about one tool call and, if it passes every check, run it.

        timeout:  seconds the tool may take, turning its result into text included
        deadline: the run's end, as a time.perf_counter() value: the tool gets at most what is
                  left of it once the checks (the approval hook too) have passed
        isolate:  "thread" (a watched thread, abandoned if it overruns) or "process" (a fresh
                  process, killed if it overruns: _isolated.py)
        """
        start = time.perf_counter()

        def refuse(message, **extra):
            message = mask(message)  # before the cut: no prefix of a key survives it
            content, cut = truncate(to_text({"error": message}), max_result_chars)
            return Outcome(content, error=message, truncated_chars=cut,
                           seconds=time.perf_counter() - start, **extra)

        if problem := not_on_allowlist(name, self.tools):                 # 1. allowlist
            return refuse(problem)
        try:                                                              # 2. arguments
            arguments = json.loads(arguments_json or "{}")
        except (ValueError, TypeError, RecursionError) as e:  # ValueError: JSONDecodeError too
            why = str(e) if isinstance(e, json.JSONDecodeError) else exception_text(e)
            return refuse(f"the arguments for {name} are not valid JSON ({why}); send one JSON "
                          "object with the arguments by name")
        if not isinstance(arguments, dict):
            return refuse(f"the arguments for {name} must be a JSON object, not "
                          f"{type(arguments).__name__}")
        if MASK in (arguments_json or ""):  # the model sent a key, masked as it came in
            return refuse(f"the arguments for {name} held an API key, masked as {MASK}: a key "
                          "never passes through the model, so the tool must read it itself "
                          "(from the environment)", arguments=arguments)
        problem = self._schema_error(name, arguments)
        if problem:
            return refuse(f"wrong arguments for {name}: {problem}", arguments=arguments)
        if repeat_guard is not None:                                      # 3. repeat guard
            problem = repeat_guard.check(name, arguments)
            if problem:
                return refuse(problem, arguments=arguments)
        denial = ask_approval(approve, name, arguments)                   # 4. approval
        if denial is not None:
            return refuse(f"not allowed: {denial}", arguments=arguments, denied=denial)
        if deadline is not None:  # the run's time left, counted after the approval hook
            left = deadline - time.perf_counter()
            if left <= 0:
                return refuse("not run: the run's time limit was reached", arguments=arguments)
            timeout = left if timeout is None else min(timeout, left)

        def observe(text: str) -> tuple[str, int]:                        # 6. observe
            return truncate(mask(text), max_result_chars)  # masked before the cut

        try:                                                              # 5. run, in time
            content, cut = run_tool_within(self.tools[name], arguments, timeout, isolate, observe,
                                           deadline)
        except Overran as e:
            return refuse(overran(name, timeout, isolate, e), arguments=arguments)
        except Unreadable as e:
            return refuse(f"{name} returned a result that cannot be read as text: "
                          f"{exception_text(e.__cause__)}", arguments=arguments)
        except _isolated.UnreadableInChild as e:
            return refuse(f"{name} returned a result that cannot be read as text: {e}",
                          arguments=arguments)
        except _isolated.FailedInChild as e:
            return refuse(f"{name} failed: {e}", arguments=arguments)
        except (Exception, SystemExit) as e:  # SystemExit: a tool that calls sys.exit or argparse
            return refuse(f"{name} failed: {exception_text(e)}", arguments=arguments)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # CancelledError, GeneratorExit: "stop", not an error to report
            ran = refuse(f"{name} raised {exception_text(e)}, which ends the run",
                         arguments=arguments)
            raise EndRun(f"the tool {name} raised {exception_text(e)}; the run stopped there, "
                         "with its steps kept", ran) from e
        return Outcome(content, arguments=arguments, truncated_chars=cut,
                       seconds=time.perf_counter() - start)
