"""A call run on a watched thread: the caller waits at most `timeout` seconds for it.

The loop uses it twice, for the same reason: a wall clock must hold whatever the call does.
- A tool (guardrails.run_tool_within): a tool that hangs is abandoned at its timeout.
- A model call (models.py): the SDK's timeout bounds each read of the socket, not the call,
  and nothing bounds a name lookup, so a server that trickles its body a byte at a time, sends
  its headers late, or a resolver that hangs, could hold a call far past the run's deadline.
  Waiting on a thread bounds all of them the same way, with no knowledge of the SDK's insides.

What threads cannot do, stated plainly:
- Python cannot kill a thread. An abandoned call keeps running in the background (a model call
  until its own per-read timeout or the server gives up; a tool until it returns) and whatever
  it returns is dropped. The thread is a daemon, so it never keeps Python from exiting.
- A call that holds the GIL (a backtracking regular expression, one long loop in C) keeps the
  waiting thread from waking until it lets go: the wait ends late, by as long as the call held
  the GIL. Its result is then late, and dropped as such (Overran(took)), never used as if on
  time. Only a separate process can be stopped on time; see docs/hostile-input.md.

Example: run_within(lambda: 2 + 2, 1.0) -> 4; run_within(lambda: time.sleep(5), 0.1) -> Overran
"""

from __future__ import annotations

import threading
import time
from typing import Any


class Overran(Exception):
    """A call did not finish within its timeout.

    took: the seconds it took if it finished late anyway (it held the GIL, so the wait for it
    could not end before it did); None if it was still running when the wait ended.
    """

    def __init__(self, took: float | None = None):
        super().__init__(took)
        self.took = took


def run_within(fn, timeout: float | None, name: str = "agentlab-call"):
    """fn() on a fresh daemon thread, waited for at most `timeout` seconds (None: no limit).

    Returns what fn returns, raises what it raises (any BaseException, in the caller's thread),
    or raises Overran if it did not finish in time or finished late. A thread costs about
    0.1 ms, nothing next to a model call.
    """
    outcome: dict[str, Any] = {}

    def work():
        try:
            outcome["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread below
            outcome["error"] = e

    worker = threading.Thread(target=work, daemon=True, name=name)
    start = time.perf_counter()
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise Overran
    took = time.perf_counter() - start
    if timeout is not None and took > timeout:  # finished, but late: it held the GIL meanwhile
        raise Overran(took)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")
