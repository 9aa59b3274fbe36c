"""What every pytest run in this folder needs, the unit tests' and nbval's over the notebooks
alike, also in a student copy (which has no tests/ folder): it runs offline."""

import os

# Tests and notebooks never reach the network: whatever the shell has set, the suite (and the
# notebook kernels nbval starts, which inherit this environment) run offline, on the tutor.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLAB_MODEL", "AGENTLAB_PRICED_AS"):
    os.environ.pop(_name, None)


def pytest_sessionstart(session):
    # A fresh machine builds matplotlib's font cache on first import and says so on stderr;
    # build it here, before nbval starts kernels, so no notebook cell sees that message.
    import matplotlib.font_manager  # noqa: F401
