"""A local server started as a child process by a test: a free port, waiting until it answers,
stopping it. Used by the JupyterLab, course-command and framework tests."""

from __future__ import annotations

import pathlib
import socket
import subprocess
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answers(url: str, process: subprocess.Popen, log: pathlib.Path,
                       seconds: float) -> bytes:
    """The body `url` answers with, once it does; the log's tail if the process dies first or
    `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return answer.read()
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer: {log.read_text()[-2000:]}") from None
            time.sleep(0.1)  # poll often: these servers start in a few seconds


def stop(process: subprocess.Popen, seconds: float = 15) -> None:
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()


def open_descriptors() -> set[tuple[str, str]]:
    """This process's open descriptors, each as (number, what it points at), after a garbage
    collection. A descriptor leaked by the code under test shows as a pair not there before; one
    that something else closed meanwhile (an earlier test's object collected, under xdist) does
    not hide it, even when the leak reuses its number: a new pipe or socket has a new inode."""
    import gc
    import os

    gc.collect()
    pairs = set()
    for number in os.listdir("/proc/self/fd"):
        try:
            pairs.add((number, os.readlink(f"/proc/self/fd/{number}")))
        except OSError:  # the descriptor listdir itself held, closed by now
            pass
    return pairs
