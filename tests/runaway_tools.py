"""Tools for the process-isolation tests: a child process imports them by name, so they live
in a module of their own (a tool defined inside a test function could not be found there)."""

import os
import re

from agentlab import tool


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
