"""A tool call run in a fresh Python process, which can be stopped on time.

A thread cannot be killed, and a tool that holds the GIL (a backtracking regular expression,
one long loop in C) keeps even the waiting thread from waking at its timeout (_watched.py). A
process can be killed: the waiting process holds no lock of the tool's, wakes at the timeout,
and ends the tool there. This is how production agents sandbox tools (a container or a VM is
the same idea with a stronger wall); here it is only the first step: a separate interpreter.

    run_agent(task, tools, limits=Limits(isolate="process"))

How it isolates:
- The child is a fresh interpreter that starts from this module (_child), never from the
  user's script: a script without an `if __name__ == "__main__":` guard is not run again in
  each child (multiprocessing's "spawn" would run it again, its model calls included).
- The child leads a process group of its own. At the timeout the whole group is killed with
  SIGKILL (which a tool cannot catch or ignore): the tool and every program it started end
  together, none is left behind orphaned. The group is killed when the call ends in any way.
- The timeout counts the tool's own time: the clock starts when the child has imported the
  tool and is about to call it, not when the interpreter starts (0.1 to 0.3 s here).
  Starting is bounded on its own, by START_SECONDS.
- The result comes back in pieces of CHUNK_BYTES and must have arrived by the timeout, as a
  thread's result must have been returned by then: a large result that is late is dropped.
- What the tool raises ends the run as it would on a thread: an Exception or SystemExit is the
  tool's failure, KeyboardInterrupt is Ctrl-C ("interrupted"), any other BaseException
  (CancelledError, GeneratorExit) ends the run as the tool's doing.

What it costs and needs, stated plainly:
- A fresh interpreter per call, about 0.1 to 0.3 s each here. Worth it for a tool that can
  run away, not for get_time.
- The child imports the tool by its module and name, so the tool must live in a module (a .py
  file): a function defined in a notebook cell or in __main__ cannot be found there and is
  refused with an error saying so. Its arguments must be picklable (JSON values are); its
  result is turned into text in the child.
- Left out on purpose: limits on the child's memory, files and network (a container's job);
  Windows has no process groups, so there only the child itself is killed.

Example: call(calculate, {"expression": "2 + 2"}, 5.0) -> "4"
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pathlib
import pickle
import signal
import subprocess
import sys
import time
from multiprocessing.connection import Connection

from ._watched import Overran

START_SECONDS = 30.0   # a child that has not imported its tool by then is given up
CHUNK_BYTES = 1 << 20  # a result comes back in pieces: a late one is cut off between them
POLL_SECONDS = 0.05    # how often the wait looks whether the child has died without a word
READY = b"ready"
# The child's first line of Python: find agentlab where the parent found it, then run _child.
_BOOT = ("import sys; sys.path.insert(0, sys.argv[2]); "
         "from agentlab._isolated import _child; _child(int(sys.argv[1]))")
_ROOT = str(pathlib.Path(__file__).resolve().parent.parent)


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


# --- in the child ----------------------------------------------------------------------------

def _child(fd: int) -> None:
    """In the child: read the call from stdin, import the tool, say READY, call it, and send
    back (kind, text) or, for a BaseException, (kind, text, its type's module and name)."""
    os.set_inheritable(fd, False)  # programs the tool starts must not hold the pipe open
    pipe = Connection(fd, readable=False)
    from ._text import exception_text, to_text

    try:
        module, name, arguments, path = pickle.load(sys.stdin.buffer)
        sys.path[:] = path  # the parent's: its folders, the tool's module among them
        found = getattr(importlib.import_module(module), name)
        function = getattr(found, "function", found)  # a @tool is a Tool: call its function
    except BaseException as e:  # noqa: BLE001 - every way it ends goes back to the parent
        _send(pipe, ("failed", f"it could not be loaded in a fresh process: "
                               f"{exception_text(e)}"))
        return
    pipe.send_bytes(READY)
    try:  # the same split as on a thread (guardrails.run_tool_within, tools.Toolbox.call)
        result = function(**arguments)
        try:
            outcome = ("ok", to_text(result))
        except Exception as e:
            outcome = ("unreadable", exception_text(e))
    except (Exception, SystemExit) as e:
        outcome = ("failed", exception_text(e))
    except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt, CancelledError, ...
        outcome = ("stopped", str(e), type(e).__module__, type(e).__qualname__)
    _send(pipe, outcome)


def _send(pipe: Connection, outcome: tuple) -> None:
    data = pickle.dumps(outcome)
    pipe.send_bytes(len(data).to_bytes(8, "big"))
    for start in range(0, len(data), CHUNK_BYTES):
        pipe.send_bytes(data[start:start + CHUNK_BYTES])


# --- in the parent ---------------------------------------------------------------------------

class _TimedOut(Exception):
    """The wait for the child's next message reached its end."""


def call(tool, arguments: dict, timeout: float | None, deadline: float | None = None) -> str:
    """Run the tool in a fresh process; its result as text. Raises Overran (the child's process
    group killed) if it takes longer than `timeout` (None: no limit) or reaches `deadline`
    (the run's end, a time.perf_counter() value, which the start counts against too),
    FailedInChild or UnreadableInChild if it failed, KeyboardInterrupt or another
    BaseException as the tool raised it (rebuilt by name)."""
    module, name = reference(tool)
    reading, writing = os.pipe()
    try:
        child = subprocess.Popen([sys.executable, "-c", _BOOT, str(writing), _ROOT],
                                 stdin=subprocess.PIPE, pass_fds=(writing,),
                                 start_new_session=True)  # its own process group: killpg
    finally:
        os.close(writing)  # the child holds its own copy: EOF here once it is gone
    pipe = Connection(reading, writable=False)
    try:
        try:
            child.stdin.write(pickle.dumps((module, name, arguments, list(sys.path))))
            child.stdin.close()
        except BrokenPipeError:  # it died before reading: said below, from its exit code
            pass
        started_by = time.perf_counter() + START_SECONDS
        try:
            first = _next_message(pipe, child, _earlier(started_by, deadline))
        except _TimedOut:
            if deadline is not None and deadline < started_by:
                raise Overran from None  # the run's time ran out while it started
            raise FailedInChild(f"its process did not start within {START_SECONDS:g} s") from None
        if first == READY:  # the tool's own time starts now
            until = None if timeout is None else time.perf_counter() + timeout
            until = _earlier(until, deadline)
            try:
                outcome = _outcome(_next_message(pipe, child, until), pipe, child, until)
            except _TimedOut:
                raise Overran from None  # stopped, not abandoned: the finally kills it
        else:  # it could not load the tool (first is its outcome's length), or it died
            outcome = _outcome(first, pipe, child, None)
    finally:
        _kill_group(child)
        pipe.close()
    return _result(outcome)


def _earlier(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _next_message(pipe: Connection, child: subprocess.Popen, until: float | None):
    """The child's next message, or None if it ended without one; _TimedOut at `until`."""
    while True:
        left = POLL_SECONDS if until is None else until - time.perf_counter()
        if left <= 0:
            raise _TimedOut
        if pipe.poll(min(left, POLL_SECONDS)) or child.poll() is not None and pipe.poll(0):
            try:
                return pipe.recv_bytes()
            except EOFError:
                return None
        if child.poll() is not None:  # it died without a word (os._exit, a crash in C)
            return None


def _outcome(header, pipe: Connection, child: subprocess.Popen, until: float | None) -> tuple:
    """The child's outcome, read in pieces after its length (header), each by `until`."""
    if header is None or len(header) != 8:  # its pipe closed: it has ended, or is ending
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(1)  # for its exit code; a child still running is killed after this
        if child.poll() is None:  # it closed its pipe (all its descriptors, say) and runs on
            return ("failed", "its process closed its pipe without a result, and was killed")
        return ("failed", f"its process ended with exit code {child.poll()}")
    size, data = int.from_bytes(header, "big"), bytearray()
    while len(data) < size:
        piece = _next_message(pipe, child, until)
        if piece is None:
            return _outcome(None, pipe, child, until)
        data += piece
    return pickle.loads(data)


def _result(outcome: tuple) -> str:
    kind, text = outcome[:2]
    if kind == "ok":
        return text
    if kind == "unreadable":
        raise UnreadableInChild(text)
    if kind == "stopped":  # a BaseException: raised here as it was there, for the same stop
        module, qualname = outcome[2:]
        if (module, qualname) == ("builtins", "KeyboardInterrupt"):
            raise KeyboardInterrupt(text)
        raise type(qualname.rpartition(".")[2], (BaseException,), {"__module__": module})(text)
    raise FailedInChild(text)


def _kill_group(child: subprocess.Popen) -> None:
    """SIGKILL the child's process group (the tool and every program it started), reap it."""
    if hasattr(os, "killpg"):
        try:
            os.killpg(child.pid, signal.SIGKILL)  # the group's id is the child's pid
        except (ProcessLookupError, PermissionError):  # the whole group has ended already
            pass
    else:
        child.kill()
    child.wait()
