"""Notebook 05, The limits playground: slider_budgets, check_smallest_budget.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import math

from agentlab.loop import Limits, run_agent
from agentlab.models import connect
from agentlab.toolkit import COURSE_TOOLS

from ._common import TUTOR, Verdict, as_number, is_stub_result, short

PERU = "What's the weather in the capital of Peru, in Fahrenheit?"


def slider_budgets() -> list[float]:
    """The values the playground's max_cost_usd slider can take: 10**-5 to 1 in quarter decades."""
    return [round(10 ** (-5 + k / 4), 12) for k in range(21)]


# Priced as gpt-4.1, not the playground's default: the notebook's demo and "What to try" show
# the default prices' budgets (0.0018, 0.0032) above the exercise, so a guess copied from them
# would pass.
SMALLEST_BUDGET_PRICES = "gpt-4.1"


def _run_at(budget: float):
    client = connect(TUTOR, priced_as=SMALLEST_BUDGET_PRICES)
    return run_agent(PERU, COURSE_TOOLS, client=client, limits=Limits(max_cost_usd=budget))


def _answers_at(budget: float) -> bool:
    return _run_at(budget).ok


def check_smallest_budget(max_cost_usd) -> Verdict:
    """The smallest slider budget at which the tutor, priced as gpt-4.1, answers the Peru
    question (never exceed).

    The slider's value and its readout (rounded to two significant digits) are both right;
    the neighbouring slider values are not.
    """
    value = as_number(max_cost_usd)
    if value is None:
        hint = ": fill in the stub" if is_stub_result(max_cost_usd) else ""
        return Verdict(False, f"give the budget as a number of dollars, not "
                       f"{short(max_cost_usd)}{hint}")
    # A run per slider value, from the smallest up: a second or two, so say so first.
    print(f"Running the Peru question at each slider budget from the smallest up, priced as "
          f"{SMALLEST_BUDGET_PRICES} ...", flush=True)
    budgets = slider_budgets()
    smallest = next(b for b in budgets if _answers_at(b))
    if abs(value - smallest) <= 0.03 * smallest:  # the slider's readout rounds to 2 digits
        return Verdict(True, f"${value:g} (the slider's {smallest:.2g}) is the smallest budget on "
                       f"the slider that answers the Peru question at {SMALLEST_BUDGET_PRICES} "
                       "prices")
    if not math.isfinite(value) or value <= 0:
        return Verdict(False, f"{value!r}: a budget is a number of dollars above 0")
    run = _run_at(value)
    if run.ok and value > smallest:
        return Verdict(False, f"${value:g}: it answers, but a smaller slider value works too")
    if run.ok:  # below the smallest slider value that answers, so between two of its values
        return Verdict(False, f"${value:g}: it answers, but it is not a value the slider can "
                       "take (10 to the power -5, -4.75, -4.5, ... 0, its readout rounded to "
                       "two digits): the exercise asks for the smallest slider value")
    # Why it stopped, in the run's own words: usually the look-ahead, which refuses a call whose
    # worst case could cross the budget even when the whole run would cost less.
    return Verdict(False, f"${value:g}: at {SMALLEST_BUDGET_PRICES} prices it does not answer: "
                   f"{run.stop_reason} after {len(run.steps)} steps ({run.stop_detail})")
