"""Python processes that start on another date: time-machine moves a process's wall clock
(time.time, datetime.now) and leaves the monotonic clocks alone, so timeouts and durations
behave as usual. Every Python process started with `travelled(...)`'s environment imports the
sitecustomize module it writes (Python imports one at every start, if it is on the path), and
that module starts the travel; the zone comes from TZ.

Two users: tools/execute_notebooks.py saves the notebooks from kernels that live at the
course's pinned instant, so a cell that reads datetime.now() itself (the chapter's own
get_time) shows the same morning as the course's clock; tests/test_any_day.py runs the saved
notebooks on other days, in other zones, to show that nothing they print reads the wall clock.
"""

from __future__ import annotations

import datetime
import os
import pathlib

TRAVEL_VARIABLE = "AGENTLAB_TRAVEL_TO"  # the instant a process starts at, as a Unix time

SITECUSTOMIZE = f'''\
import os
if os.environ.get("{TRAVEL_VARIABLE}"):
    import time_machine
    time_machine.travel(float(os.environ["{TRAVEL_VARIABLE}"]), tick=True).start()
'''


def travelled(folder: pathlib.Path, instant: str, zone: str | None = None) -> dict:
    """os.environ for Python processes that start at `instant` (ISO 8601), in `zone` if given.

    Example: travelled(tmp, "2028-02-29T12:00:00+00:00", "America/St_Johns")
    """
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join([str(folder)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    when = datetime.datetime.fromisoformat(instant).timestamp()
    return {**os.environ, "PYTHONPATH": path, TRAVEL_VARIABLE: repr(when),
            **({"TZ": zone} if zone else {})}
