"""The process boundary: a student's loop runs in a process of its own, the verdict in this one.

    loop = LoopProcess(run_agent)       # the loop sent to a fresh process (runner.py)
    trial = loop.run(task, tools, respond, timeout, max_steps=..., max_cost_usd=...)
    loop.close()

This process holds everything a verdict is made of: the draws and the seed, which check runs,
the scripted model (answered here, through agentlab's own server, so the loop meets the real
API's rules), the hostile tools (run here, on threads of their own, so one that hangs holds up
nothing), and the records of every call. The loop's process only asks. So nothing a loop does
in its own process (patching the grader, reading frames or globals, catching the grader's
exceptions, editing what it was handed) can change what is recorded here.

A run that outlives its timeout is killed with its whole process group (SIGKILL): nothing it
started goes on. The next run starts a fresh process. Within one grade, runs that end normally
share one process, as they would share a kernel: a loop that keeps state in a global between
runs shows it (the fresh_run check).

How the loop gets there: cloudpickle, which sends a function defined in a notebook by value,
with the helpers and imports it uses. What the loop's process sends back is JSON, never a
pickle: this process never runs code that the loop's process wrote.
"""

from __future__ import annotations

import json
import multiprocessing.connection
import os
import pathlib
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types

from agentlab.guardrails import Limits
from agentlab.pricing import Unpriceable, cost_usd, reported_tokens
from agentlab.server import handle

from .carried import library_use
from .watch import Request, ToolCallRecord, Trial

PRICED_AS = "gpt-4o-mini"     # what every model call is charged at, whatever the environment
LARGEST_MESSAGE = 64_000_000  # bytes: a loop's question past this breaks its run
START_TIMEOUT = 60.0          # seconds a fresh process may take to load the loop
# The library's loop calls the client with these: its max-tokens cap (Limits' default) and
# the time left of its clock on every call. A loop of the student's own sends neither both.
LIBRARY_MAX_TOKENS = Limits().max_output_tokens


class CannotSendLoop(Exception):
    """The loop cannot be sent to a fresh process; the message says why and what to do."""


class PickledLoop:
    """A loop pickled in another process (agentlab.course.handin, grading a hand-in): sent on
    to the loop's process as it came. The grading process never unpickles it, so nothing in it
    runs here."""

    def __init__(self, data: bytes):
        self.data = bytes(data)

    def __call__(self, *args, **kwargs):
        raise TypeError("a pickled loop runs only in a process of its own (LoopProcess)")


def why_it_cannot_travel(error: Exception, name: str) -> str:
    """What a student reads when their function cannot be pickled for a fresh process: the
    reason, and what to change (the hand-in's graded cells say the same, handin.py)."""
    return (f"({type(error).__name__}: {str(error)[:200]}). Keep what {name} uses at module "
            "level to functions, modules and plain values (a lock, a thread or an open file "
            f"cannot be sent): make them inside {name} instead")


def pickled(run_agent) -> bytes:
    """The loop, pickled by value where it was defined outside agentlab (a notebook, a test),
    by reference where it is agentlab's own (agentlab.run_agent itself)."""
    import cloudpickle

    if isinstance(run_agent, PickledLoop):
        return run_agent.data

    module = sys.modules.get(getattr(run_agent, "__module__", None) or "")
    agentlab_dir = pathlib.Path(__file__).resolve().parents[2]
    by_value = module is not None and module.__name__ != "__main__" and not (
        pathlib.Path(getattr(module, "__file__", "") or "").resolve().is_relative_to(agentlab_dir))
    if by_value:
        cloudpickle.register_pickle_by_value(module)
    try:
        return cloudpickle.dumps(run_agent)
    except Exception as e:  # noqa: BLE001 - any reason it cannot go is the student's to fix
        raise CannotSendLoop("grade() runs your loop in a fresh process and could not send it "
                             f"there {why_it_cannot_travel(e, 'run_agent')}") from e
    finally:
        if by_value:
            cloudpickle.unregister_pickle_by_value(module)


class LoopProcess:
    """The student's loop in a process of its own, started when first needed."""

    def __init__(self, run_agent):
        self.loop = pickled(run_agent)
        self.written = run_agent  # as given: where a run raised is read in its code (checks.py)
        self.child: subprocess.Popen | None = None
        self.ends: list = []  # the pipes and error file of the current process
        self.start()  # at once: its start overlaps the grader's own setup
        # Read here, from what was sent: the loop's process could hide it (carried.py)
        self.library_code = library_use(self.loop)

    def start(self) -> None:
        self._close_ends()  # a killed process's pipes: closed, not leaked one per respawn
        down_read, down_write = os.pipe()  # grader -> loop
        up_read, up_write = os.pipe()      # loop -> grader
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",
                                                                "OPENAI_BASE_URL")}
        self.errors = tempfile.TemporaryFile()
        self.child = subprocess.Popen(
            [sys.executable, "-m", "agentlab.course.gauntlet.runner", str(down_read),
             str(up_write)], pass_fds=(down_read, up_write), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self.errors, env=env, start_new_session=True)
        os.close(down_read)
        os.close(up_write)
        self.outbox = multiprocessing.connection.Connection(down_write, readable=False)
        self.inbox = multiprocessing.connection.Connection(up_read, writable=False)
        self.ends = [self.inbox, self.outbox, self.errors]
        self.send_lock = threading.Lock()
        self._send({"loop": self.loop, "path": sys.path, "log_levels": _log_levels()})
        self.ready = False
        # what this process was given, run by run: what a loop may keep from one run to the next
        self.tasks: list[str] = []
        self.replies: list[dict] = []

    def _send(self, message) -> None:
        with self.send_lock:
            try:
                self.outbox.send_bytes(pickle.dumps(message))
            except (OSError, ValueError):  # the loop's process is gone: its run says so
                pass

    def _receive(self, deadline: float | None) -> dict | None:
        """The loop's next message, or None at the deadline; {"op": "gone"} if it died (its
        end of the pipe closes with it: the read gets EOF)."""
        wait = None if deadline is None else max(0.0, deadline - time.perf_counter())
        if not multiprocessing.connection.wait([self.inbox], wait):
            return None
        try:
            return json.loads(self.inbox.recv_bytes(LARGEST_MESSAGE))
        except EOFError:
            return {"op": "gone"}
        except OSError:
            return {"op": "gone", "why": f"it sent more than {LARGEST_MESSAGE:,} bytes at once"}
        except ValueError:
            return {"op": "gone", "why": "it sent something that is not JSON"}

    def _why_gone(self) -> str:
        self.child.wait(5)
        self.errors.seek(0)
        last = self.errors.read()[-600:].decode(errors="replace").strip().splitlines()
        said = f": {last[-1]}" if last else ""
        return f"its process ended (exit code {self.child.returncode}){said}"

    def _wait_until_ready(self) -> str | None:
        """None once the loop is loaded in its process, else why it could not be."""
        if self.ready:
            return None
        message = self._receive(time.perf_counter() + START_TIMEOUT)
        if message is None:
            self.kill()
            return f"its process did not load the loop within {START_TIMEOUT:g} s"
        if message.get("op") != "ready":
            return message.get("why") or self._why_gone()
        self.ready = True
        return None

    def run(self, task: str, tools: list, respond, timeout: float, *, max_steps: int = 10,
            max_cost_usd: float = 0.50, on_abandon=()) -> Trial:
        """One run of the loop; what it did, as this process recorded it."""
        if self.child is None or self.child.poll() is not None:
            self.start()
        trial = Trial(task=task, earlier_tasks=list(self.tasks),
                      earlier_replies=list(self.replies), library_code=self.library_code)
        self.tasks.append(task)
        if why := self._wait_until_ready():
            trial.finished, trial.raised = True, LoopCrashed(why)
            self.child = None
            return trial
        by_name = {t.name: t for t in tools}
        self._send({"task": task, "schemas": [t.schema for t in tools], "names": list(by_name),
                    "model": "tutor", "max_steps": max_steps, "max_cost_usd": max_cost_usd})
        deadline = time.perf_counter() + timeout
        while True:
            message = self._receive(deadline)
            if message is None:  # past its time: it and all it started are stopped
                trial.abandoned = True
                self.kill()
                for release in on_abandon:
                    release()
                self.start()  # the next run's process loads while the grader judges this one
                return trial
            trial.output.write(str(message.get("output") or ""))
            op = message.get("op")
            if op == "chat":
                answering = time.perf_counter()
                self._chat(trial, message, respond)
                # The grader's own time, playing the model, is no time of the loop's: a first
                # refused request took 1.5-3.9 s here (the server loads jsonschema to say why)
                # and made a loop that did nothing wrong look like one that never returned.
                deadline += time.perf_counter() - answering
            elif op == "tool":
                self._tool(trial, message, by_name)
            elif op == "done":
                self._done(trial, message)
                return trial
            else:  # gone, or a message no runner sends: the run ends here
                trial.finished = True
                trial.raised = LoopCrashed(message.get("why") or self._why_gone())
                self.kill()
                return trial

    def _chat(self, trial: Trial, message: dict, respond) -> None:
        body = str(message.get("body") or "")
        try:
            sent = json.loads(body)
        except ValueError:
            sent = {}
        options = message.get("options") if isinstance(message.get("options"), dict) else {}
        sent = sent if isinstance(sent, dict) else {}
        choice = options.get("tool_choice")
        request = Request(messages=sent.get("messages") if isinstance(sent.get("messages"), list)
                          else [], tools=_tool_names(sent.get("tools")),
                          output_before=trial.output.size(),
                          tool_choice=choice if isinstance(choice, str) else None,
                          library=(options.get("max_tokens") == LIBRARY_MAX_TOKENS
                                   and options.get("timeout") is not None))
        trial.requests.append(request)
        status, payload, _delay, *_ = handle("POST", "/v1/chat/completions", body.encode(),
                                             respond=respond)
        if status == 200:
            request.reply = payload["choices"][0]["message"]
            self.replies.append(request.reply)
            request.cost_usd = _cost(payload)
        else:
            error = payload.get("error", {}) if isinstance(payload, dict) else {}
            request.error = f"HTTP {status}: {error.get('message', payload)}"[:300]
        self._send({"answers": message.get("id"), "answer": ("ok", (status, payload))})

    def _tool(self, trial: Trial, message: dict, by_name: dict) -> None:
        name, arguments = message.get("name"), message.get("arguments")
        arguments = arguments if isinstance(arguments, dict) else {}
        trial.tool_calls.append(ToolCallRecord(str(name), dict(arguments)))
        tool = by_name.get(name)

        def run():  # on a thread of its own: a tool that hangs holds up nothing here
            try:
                if tool is None:
                    raise KeyError(f"no tool named {name!r} was handed to the loop")
                answer = ("ok", tool.function(**arguments))
            except Exception as e:  # noqa: BLE001 - the loop gets what the tool raised
                answer = ("raised", e)
            try:
                pickle.dumps(answer)
            except Exception:  # noqa: BLE001
                answer = ("raised", RuntimeError(str(answer[1])[:300]))
            self._send({"answers": message.get("id"), "answer": answer})
        threading.Thread(target=run, daemon=True, name="gauntlet-tool").start()

    @staticmethod
    def _done(trial: Trial, message: dict) -> None:
        trial.finished = True
        trial.library_runs = int(message.get("library_runs") or 0)
        returned, raised = message.get("returned"), message.get("raised")
        if isinstance(raised, dict):
            trial.raised = Raised(raised)
        elif isinstance(returned, dict) and returned.get("type") == "str":
            trial.returned = str(returned.get("text"))
        elif isinstance(returned, dict) and returned.get("type") == "NoneType":
            trial.returned = None
        elif isinstance(returned, dict):
            trial.returned = Returned(str(returned.get("type")), str(returned.get("repr")))

    def kill(self) -> None:
        """Stop the loop's process and everything it started."""
        if self.child is not None and self.child.poll() is None:
            try:
                os.killpg(self.child.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.child.kill()
            self.child.wait()
        self.ready = False

    def close(self) -> None:
        self.kill()
        self._close_ends()

    def _close_ends(self) -> None:
        for end in self.ends:
            end.close()
        self.ends = []


def _log_levels() -> dict[str, int]:
    """The levels set on this process's loggers (the notebook's logging setup), so that a loop
    that logs its calls is heard in its own process as it would be here."""
    import logging

    levels = {"": logging.getLogger().level}
    for name, logger in logging.Logger.manager.loggerDict.items():
        if isinstance(logger, logging.Logger) and logger.level != logging.NOTSET:
            levels[name] = logger.level
    return levels


def _tool_names(tools) -> list[str]:
    if not isinstance(tools, list):
        return []
    return [str((t.get("function") or t).get("name", "?")) for t in tools if isinstance(t, dict)]


def _cost(payload: dict) -> float:
    """What a response cost at the grader's prices, by the usage the server reported."""
    try:
        usage = types.SimpleNamespace(**(payload.get("usage") or {}))
        return cost_usd(PRICED_AS, *reported_tokens(usage))
    except Unpriceable:
        return 0.0


class LoopCrashed(Exception):
    """The loop's process ended without finishing its run (it crashed, exited or sent junk)."""


class Raised(Exception):
    """What the loop raised in its process: its type's name and its message, as data."""

    def __init__(self, seen: dict):
        super().__init__(str(seen.get("message", "")))
        self.type_name = str(seen.get("type", "Exception"))
        self.not_implemented = bool(seen.get("not_implemented"))
        self.where = seen.get("where") if isinstance(seen.get("where"), dict) else {}


class Returned:
    """Something the loop returned that is not text: its type's name and repr, as data."""

    def __init__(self, type_name: str, shown: str):
        self.type_name, self.shown = type_name, shown

    def __repr__(self):
        return self.shown
