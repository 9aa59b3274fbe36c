"""Tools for the process-isolation tests: a child process imports them by name, so they live
in a module of their own (a tool defined inside a test function could not be found there)."""

import os
import re
import time

from agentlab import tool

# A module that takes its time to import, in the children of a test that sets this.
time.sleep(float(os.environ.get("AGENTLAB_TEST_SLOW_IMPORT", "0")))


@tool
def backtrack(n: int) -> str:
    """A regular expression that backtracks for 2**n steps, holding the GIL throughout."""
    return str(re.match(r"(a+)+$", "a" * n + "b"))


@tool
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


@tool
def fails(text: str) -> str:
    """Always raises."""
    raise ValueError(f"no {text}")


@tool
def vanishes(text: str) -> str:
    """Ends its own process without a word."""
    os._exit(3)


@tool
def counts(n: int) -> str:
    """Returns an iterator, which holds no text until it is consumed."""
    return iter(range(n))


@tool
def starts_a_program(pid_file: str) -> str:
    """Starts `sleep 60`, writes its pid and its own to pid_file, then waits for it."""
    import subprocess

    program = subprocess.Popen(["sleep", "60"])
    with open(pid_file, "w") as f:
        f.write(f"{program.pid} {os.getpid()}")
    program.wait()
    return "slept"


@tool
def ignores_sigterm(pid_file: str) -> str:
    """Ignores SIGTERM, writes its pid to pid_file, then sleeps a minute."""
    import signal
    import time

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
    return "woke"


@tool
def raises_base(kind: str) -> str:
    """Raises KeyboardInterrupt, asyncio's CancelledError or GeneratorExit, by name."""
    import asyncio

    raise {"KeyboardInterrupt": KeyboardInterrupt, "CancelledError": asyncio.CancelledError,
           "GeneratorExit": GeneratorExit}[kind]("stop here")


@tool
def late_and_large(megabytes: int, wait: float) -> str:
    """Waits `wait` seconds, then returns that many megabytes of text."""
    import time

    time.sleep(wait)
    return "a" * (megabytes << 20)


@tool
def instant() -> str:
    """Returns at once."""
    return "now"


@tool
def forks_then_dies(text: str) -> str:
    """Forks a process that sleeps a minute holding every descriptor, then ends its own."""
    import time

    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    os._exit(3)
