"""What every pytest run in this folder needs, the unit tests' and nbval's over the notebooks
alike, also in a student copy (which has no tests/ folder): it runs offline."""

import os

# Tests and notebooks never reach the network: whatever the shell has set, the suite (and the
# notebook kernels nbval starts, which inherit this environment) run offline, on the tutor.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLAB_MODEL", "AGENTLAB_PRICED_AS"):
    os.environ.pop(_name, None)

# The same outputs on any day: the course's clock (get_time) reads the instant the saved
# notebooks were executed at, in this process and in the kernels nbval starts. In class nobody
# sets it and get_time reads the real time. tests/test_any_day.py runs the notebooks under other
# dates and time zones to show nothing else in them reads the wall clock.
from agentlab.toolkit import CLOCK_VARIABLE, SAVED_NOTEBOOKS_CLOCK  # noqa: E402

os.environ[CLOCK_VARIABLE] = SAVED_NOTEBOOKS_CLOCK


def pytest_sessionstart(session):
    # A fresh machine builds matplotlib's font cache on first import and says so on stderr;
    # build it here, before nbval starts kernels, so no notebook cell sees that message.
    import matplotlib.font_manager  # noqa: F401
