"""The class's settings that The Littlest JupyterHub's `tljh-config` cannot give.

    sudo cp deploy/tljh_agentlab.py /opt/tljh/config/jupyterhub_config.d/agentlab.py
    sudo tljh-config reload

`tljh-config` sets the limits and the idle culler (docs/INSTRUCTORS.md, "The Littlest
JupyterHub"); this file adds, as deploy/jupyterhub_config.py does on one server: JupyterLab's
internet features off, its pop-up about Jupyter's news answered "no", a notebook's kernel shut
down when its tab is closed, and an idle kernel shut down after half an hour. TLJH loads every
file in that folder after its own settings. Its hub runs in an environment of its own, without
agentlab, so nothing here imports it: tests/test_deploy.py keeps these values equal to
deploy/jupyterhub_config.py's.
"""

import json
import os
import pathlib

c = get_config()  # noqa: F821 (JupyterHub defines get_config in the files it loads)

# Where TLJH keeps the students' environment (their servers and kernels run on its Python).
USER_ENVIRONMENT = pathlib.Path(os.environ.get("TLJH_USER_ENVIRONMENT", "/opt/tljh/user"))

# agentlab.course.launcher.OFFLINE_OPTIONS, and deploy/jupyterhub_config.py's KERNEL_CULLING
OFFLINE_OPTIONS = ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
KERNEL_CULLING = ["--MappingKernelManager.cull_idle_timeout=1800",
                  "--MappingKernelManager.cull_interval=300",
                  "--MappingKernelManager.cull_connected=True"]
c.Spawner.args = [*OFFLINE_OPTIONS, *KERNEL_CULLING]

# JupyterLab's defaults for the course, in the folder the students' JupyterLab reads defaults
# from (a student's own setting still wins): agentlab.course.launcher.LAB_DEFAULTS and
# deploy/jupyterhub_config.py's HUB_LAB_DEFAULTS.
LAB_DEFAULTS = {
    "agentlab-course.json": {"@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false", "checkForUpdates": False}},
    "agentlab-hub.json": {"@jupyterlab/notebook-extension:tracker": {"kernelShutdown": True}},
}
overrides = USER_ENVIRONMENT / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
overrides.mkdir(parents=True, exist_ok=True)
for name, settings in LAB_DEFAULTS.items():
    (overrides / name).write_text(json.dumps(settings, indent=1))
    (overrides / name).chmod(0o644)  # the students' servers read it
