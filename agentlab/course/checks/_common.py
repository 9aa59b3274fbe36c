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


def still_a_stub(fn) -> bool:
    """Whether fn's body is still the stub's: a docstring, then only `...`, `pass` or a raise
    of NotImplementedError. A function the student filled in is not, even if it returns None.

    Example: def f(x): "Doc." ; ...   -> True;   def f(x): x.append(1)  -> False
    """
    import ast
    import inspect
    import textwrap

    fn = getattr(fn, "function", fn)  # a @tool: the function it wraps
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):  # no source to read (a builtin, exec'd code)
        return False
    defined = tree.body[0] if tree.body else None
    if not isinstance(defined, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a lambda or a callable object: it was written, not left as the stub
    body = list(defined.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    return all(_stub_statement(statement) for statement in body)


def _stub_statement(statement) -> bool:
    import ast

    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value is Ellipsis
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def returned_nothing(fn, got, call: str, wanted: str) -> Verdict:
    """The verdict on a None or ... result: "fill in the stub" only for a stub; for a function
    the student filled in, what it returned and what it should return instead."""
    if got is Ellipsis or still_a_stub(fn):  # `return ...` is the stub's placeholder too
        return Verdict(False, f"{call} returned {short(got)}: fill in the stub")
    return Verdict(False, f"{call} returned None: does every path end with a `return`? It "
                   f"should return {wanted}")


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


def rounded(got: float, exact: float) -> bool:
    """got is exact rounded to some number of decimals: the right value, rounded too early.
    Not 0: a value rounded to nothing says nothing of the sum (and a function returning 0 for
    everything is no rounding).

    Example: rounded(0.83, 5 / 6) -> True;  rounded(0.8, 2 / 3) -> False;  rounded(0, 0.004)
             -> False
    """
    return got not in (exact, 0) and any(got == round(exact, digits) for digits in range(13))


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


def without_ellipses(text: str) -> str:
    """text without its ellipses ("...", "…", JSON's "\\u2026"), which alone say nothing was cut
    (the rule of notebook 04a's check_truncate and of the capstone's truncation row).

    Example: '"rain-0 rain-1 ..."' -> '"rain-0 rain-1 "'
    """
    return text.replace("...", "").replace("…", "").replace("\\u2026", "")
