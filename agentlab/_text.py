"""What a tool's result and a tool's exception become: the text the model reads.

Shared by the tools' gate (tools.py, guardrails.py) and the child process that runs an isolated
tool (_isolated.py), which must turn its result into text the same way. Private: a student need
not read it; tools.py shows where each piece is used.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Iterator
from typing import Any


def to_text(result: Any) -> str:
    """A tool's result as the text the model reads: JSON where possible, else str().

    A value JSON has no type for (a datetime, a set) is written as its str() inside the JSON,
    so the model still reads one valid document.
    Example: {"now": datetime(2026, 3, 14, 15, 9)} -> '{"now": "2026-03-14 15:09:00"}'
    """
    if isinstance(result, str):
        return result
    if isinstance(result, (Iterator, Awaitable)):
        raise TypeError(f"it is a {type(result).__name__}, which holds no values until it is "
                        "consumed: return list(...) of it (or a plain value)")
    if not isinstance(result, (dict, list, tuple, int, float, bool, type(None))):
        return str(result)  # an object of its own: its text is all the model can read
    try:
        return json.dumps(result, ensure_ascii=False, allow_nan=False, default=str)
    except (TypeError, ValueError):  # NaN or infinity, or a key JSON cannot take
        return str(result)


class Unreadable(Exception):
    """A tool's result that could not be turned into text (its __cause__ says why)."""


def exception_text(error: BaseException) -> str:
    """An exception as "Type: message", even when its message cannot be made.

    Example: ValueError("bad") -> "ValueError: bad"; an exception whose __str__ raises ->
             "BrokenError (its message could not be read)"
    """
    try:
        return f"{type(error).__name__}: {error}"
    except Exception:
        return f"{type(error).__name__} (its message could not be read)"
