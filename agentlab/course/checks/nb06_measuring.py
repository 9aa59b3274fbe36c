"""Notebook 06, Measuring runs: check_success_rates.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import copy
import functools
import inspect
import types

from ._common import (Verdict, as_number, attempt, is_stub_result, returned_nothing, rounded,
                      short, spied, tutor_client)

_CHECK_TASKS = 6  # the first six of sweeps.MEASURE_TASKS


@functools.lru_cache(maxsize=None)
def _check_sweep(limit: str, values: tuple) -> list:
    """A sweep of the first tasks over one limit, for check_success_rates. The offline tutor
    gives the same runs every time, so each sweep is run once a session, not at every check.
    """
    from agentlab.course import sweeps

    return sweeps.sweep(sweeps.MEASURE_TASKS[:_CHECK_TASKS], limit, list(values),
                        client=tutor_client())


OWN_SUCCESS_RATES = ("my_success_rates calls agentlab's own success_rates: write yours from "
                     "result.setting and result.solved")


def check_success_rates(success_rates) -> Verdict:
    """success_rates(results) -> {setting: share of tasks solved}, like agentlab.course.sweeps'.

    Tried on two sweeps; the second has runs that answer but answer wrongly (results cut too
    short to read), so counting answers instead of correct answers does not pass. agentlab's
    own success_rates is not an answer, however it is reached: a name bound to it, or the
    module's attribute at run time (agentlab.course.sweeps.success_rates, importlib).
    """
    from agentlab.course import sweeps

    if _reaches(success_rates, sweeps.success_rates):
        return Verdict(False, OWN_SUCCESS_RATES)
    # Two sweeps, once a session: a second or two the first time, so say so first.
    print(f"Sweeping the first {_CHECK_TASKS} tasks over max_steps, then max_result_chars ...",
          flush=True)
    for limit, values in (("max_steps", (1, 2, 4)), ("max_result_chars", (20, 4000))):
        results = copy.deepcopy(_check_sweep(limit, values))  # the student's own copy
        expected = {v: sum(r.solved for r in results if r.setting == v) / _CHECK_TASKS
                    for v in values}
        with spied(sweeps, "success_rates") as calls:  # reached through the module at run time
            got, failed = attempt(f"my_success_rates(a {limit} sweep)", success_rates, results)
        if calls:
            return Verdict(False, OWN_SUCCESS_RATES)
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(success_rates, got, "my_success_rates(results)",
                                    "a dict {setting: share solved}")
        if not isinstance(got, dict) or set(got) != set(expected):
            return Verdict(False, f"return a dict keyed by setting ({list(expected)}), "
                           f"not {short(got)}")
        numbers = {k: as_number(got[k]) for k in expected}
        wrong = {k: got[k] for k in expected
                 if numbers[k] is None or abs(numbers[k] - expected[k]) > 1e-9}
        if wrong:
            return Verdict(False, f"for the {limit} sweep expected {expected}, got "
                           f"{short(got, 120)}: "
                           + _rate_hint(results, got, expected))
    return Verdict(True, f"right on two sweeps, e.g. {short(got, 120)}")


def _reaches(fn, target) -> bool:
    """Whether fn is `target`, or its code (nested functions included) reaches it: through a
    global or a variable of an enclosing function that holds it, or holds its module (then
    the code names it as an attribute). A local of the same name is not `target`.

    Example: _reaches(lambda r: sweeps.success_rates(r), sweeps.success_rates) -> True
    """
    if fn is target:
        return True
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    names, codes = set(), [code]
    while codes:  # the names used by fn and by the functions defined inside it
        inner = codes.pop()
        names |= set(inner.co_names)
        codes += [c for c in inner.co_consts if isinstance(c, types.CodeType)]
    module = inspect.getmodule(target)
    held = [fn.__globals__.get(name) for name in names]
    held += [cell.cell_contents for cell in fn.__closure__ or () if _filled(cell)]
    return any(value is target or (value is module and target.__name__ in names)
               for value in held)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # a variable of the enclosing function that is not set yet
        return False
    return True


def _rate_hint(results, got, expected) -> str:
    answered = {v: sum(r.run.stop_reason == "answered" for r in results if r.setting == v)
                / sum(1 for r in results if r.setting == v) for v in expected}
    try:
        if all(abs(float(got[k]) - answered[k]) < 1e-9 for k in expected):
            return "an answer is not a correct answer: use result.solved"
        if all(abs(float(got[k]) - 100 * expected[k]) < 1e-6 for k in expected):
            return "a share is between 0 and 1, not a percentage"
        wrong = [k for k in expected if abs(float(got[k]) - expected[k]) > 1e-9]
        if all(rounded(float(got[k]), expected[k]) for k in wrong):
            return ("the shares are right but rounded: return them exact (5 of 6 is "
                    "0.8333...), and round only where you print them")
    except (TypeError, ValueError):
        pass
    return "for each setting, the solved results divided by all results at that setting"
