"""The notebooks' exercise checks: each tells a student whether an attempt works, and why not.

    from agentlab.course.checks import check_temperature_tool
    check_temperature_tool(my_tool)      # ✓ Works: ... or ✗ Not yet: ... with a hint

One module per notebook (notebook 08's grader is agentlab.course.gauntlet):

    nb01_loop_by_hand.py         check_observe, check_estimate_cost
    nb02_tools.py                check_temperature_tool
    nb03_loop_and_record.py      check_count_tool_calls
    nb04a_guardrails.py          check_truncate
    nb04b_beyond_the_chapter.py  check_europe_only, check_loop_approval, check_looper_settings
    nb05_playground.py           check_smallest_budget (and slider_budgets)
    nb06_measuring.py            check_success_rates
    nb07_real_models.py          check_pick_client
    nb09_react_and_code.py       check_react_loop, check_code_allowlist

How every check behaves (and tests/test_exercises.py holds them to it):
- it takes the student's function (or value) as an argument, never reads globals;
- it never crashes: an exception, a stub's `...`, None or a wrong type becomes "✗ Not yet";
- it says "fill in the stub" only to a function that is still the stub (_common.still_a_stub):
  a filled one that returns None is told what it returned;
- a check that runs for more than a second prints first what it waits for;
- it tries several inputs, so a hard-coded answer for one of them does not pass;
- it runs on the offline tutor through connect("tutor"), always: a key in the environment
  changes nothing, and no check ever reaches a real API.

The student notebooks show each check failing on the stub; notebooks/solutions/ shows it
passing on a reference solution.
"""

from ._common import Verdict
from .nb01_loop_by_hand import check_estimate_cost, check_observe
from .nb02_tools import check_temperature_tool
from .nb03_loop_and_record import check_count_tool_calls
from .nb04a_guardrails import check_truncate
from .nb04b_beyond_the_chapter import (
                                       EUROPE,
                                       check_europe_only,
                                       check_loop_approval,
                                       check_looper_settings,
)
from .nb05_playground import check_smallest_budget, slider_budgets
from .nb06_measuring import check_success_rates
from .nb07_real_models import check_pick_client
from .nb09_react_and_code import check_code_allowlist, check_react_loop

__all__ = ["Verdict", "check_observe", "check_estimate_cost", "check_temperature_tool",
           "check_count_tool_calls", "check_truncate", "EUROPE", "check_europe_only",
           "check_loop_approval", "check_looper_settings", "check_smallest_budget",
           "slider_budgets", "check_success_rates", "check_pick_client", "check_react_loop",
           "check_code_allowlist"]
