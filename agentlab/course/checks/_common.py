"""What every exercise check shares: the Verdict it returns, and how it calls student code.

Private to agentlab.course.checks: each notebook's checks are in a module of their own
(nb01_loop_by_hand.py, ...); the package's __init__ says how every check behaves.
"""

from __future__ import annotations

import contextlib
import dataclasses

from agentlab.models import connect

TUTOR = "tutor"  # every check's model: the offline tutor, named explicitly


@dataclasses.dataclass
class Verdict:
    ok: bool
    message: str

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"{'✓ Works' if self.ok else '✗ Not yet'}: {self.message}"


def attempt(description: str, fn, *args, **kwargs):
    """Call student code; return (result, None) or (None, a Verdict saying what went wrong)."""
    if not callable(fn):
        return None, Verdict(False, f"expected a function, got {short(fn)}")
    try:
        return fn(*args, **kwargs), None
    except NotImplementedError:
        return None, Verdict(False, f"{description}: fill in the stub first")
    except Exception as e:
        return None, Verdict(False, f"{description} raised {type(e).__name__}: {short(e, 150)}")


def short(value, limit: int = 80) -> str:
    if value is Ellipsis:
        return "..."
    text = str(value) if isinstance(value, Exception) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_stub_result(value) -> bool:
    return value is None or value is Ellipsis


def as_number(value) -> float | None:
    """value as a float, or None if it is not a real number (bools are not numbers here).

    Example: as_number(Decimal("0.5")) -> 0.5;  as_number(Fraction(1, 4)) -> 0.25;
             as_number("1") -> None
    """
    import decimal
    import numbers

    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        return None
    return float(value)


def tutor_client(model: str = TUTOR):
    return connect(model)


@contextlib.contextmanager
def spied(module, name: str):
    """Replace module.name with a wrapper that records each call; yield the list of calls."""
    from unittest import mock

    original, calls = getattr(module, name), []

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    with mock.patch.object(module, name, spy):
        yield calls
