"""A tool call run in a fresh Python process, which can be stopped on time.

A thread cannot be killed, and a tool that holds the GIL (a backtracking regular expression,
one long loop in C) keeps even the waiting thread from waking at its timeout (_watched.py). A
process can be killed: the waiting process holds no lock of the tool's, wakes at the timeout,
and ends the tool there. This is how production agents sandbox tools (a container or a VM is
the same idea with a stronger wall); here it is only the first step: a separate interpreter.

    run_agent(task, tools, limits=Limits(isolate="process"))

What it costs and needs, stated plainly:
- A fresh interpreter per call ("spawn": no fork of a process that has threads), about 0.1 to
  0.3 s each here. Worth it for a tool that can run away, not for get_time.
- The child imports the tool by its module and name, so the tool must live in a module (a .py
  file): a function defined in a notebook cell or in __main__ cannot be found there and is
  refused with an error saying so. Its arguments and its result must be picklable; the result
  is turned into text in the child.
- Left out on purpose: limits on the child's memory, files and network (a container's job).

Example: call(calculate, {"expression": "2 + 2"}, 5.0) -> "4"
"""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.connection

from ._watched import Overran


class FailedInChild(Exception):
    """The tool raised in the child process; the message is its exception_text there."""


class UnreadableInChild(Exception):
    """The tool's result could not be turned into text in the child; the message says why."""


def reference(tool) -> tuple[str, str]:
    """Where the child process finds the tool: (module, name). Raises ValueError if nowhere.

    Example: the course's calculate -> ("agentlab.toolkit", "calculate")
    """
    function = getattr(tool, "function", tool)
    module, name = function.__module__, function.__qualname__
    if module in ("__main__", "__mp_main__") or "<locals>" in name:
        raise ValueError(f"{name} is defined in {'a function' if '<locals>' in name else module}"
                         ": isolate='process' runs a tool in a fresh Python process, which "
                         "imports it by name, so define it in a module (a .py file) and import "
                         "it from there")
    return module, name


def _child(module: str, name: str, arguments: dict, pipe) -> None:
    """In the child: import the tool, call it, send back ("ok", text) or what went wrong."""
    from ._text import exception_text, to_text

    found = getattr(importlib.import_module(module), name)
    function = getattr(found, "function", found)  # a @tool is a Tool: call its function
    try:
        result = function(**arguments)
    except BaseException as e:  # noqa: BLE001 - every way it ends goes back to the parent
        pipe.send(("failed", exception_text(e)))
        return
    try:
        pipe.send(("ok", to_text(result)))
    except Exception as e:
        pipe.send(("unreadable", exception_text(e)))


def _ended(child) -> tuple[str, str]:
    child.join(1)
    return "failed", f"its process ended with exit code {child.exitcode}"


def call(tool, arguments: dict, timeout: float | None) -> str:
    """Run the tool in a fresh process; its result as text. Raises Overran (the child killed)
    if it takes longer than `timeout`, FailedInChild or UnreadableInChild if it failed."""
    module, name = reference(tool)
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(module, name, arguments, sending),
                            daemon=True, name=f"agentlab-tool-{name}")
    child.start()
    sending.close()  # the child holds its own copy: EOF here once the child is gone
    try:
        # Wait for a message or for the child to end, whichever comes first: a child that dies
        # before it reads its arguments leaves the pipe open (spawn's resource sharer holds it).
        if not multiprocessing.connection.wait([receiving, child.sentinel], timeout):
            raise Overran  # the tool is stopped, not abandoned: the finally kills it
        if receiving.poll(0.1):  # a child that ended after sending: its message is there
            try:
                kind, text = receiving.recv()
            except EOFError:
                kind, text = _ended(child)
        else:  # the child died without a word (os._exit, a crash in C, a failed start)
            kind, text = _ended(child)
    finally:
        child.kill()
        child.join()
        receiving.close()
    if kind == "failed":
        raise FailedInChild(text)
    if kind == "unreadable":
        raise UnreadableInChild(text)
    return text
