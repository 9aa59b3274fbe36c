"""JupyterHub for a class on one server: every student gets the agentlab course, offline.

    # in a student copy's folder (agentlab course --student-copy); a plain install, not -e,
    # so no student's kernel reads your clone (its solutions); "agentlab" alone on the package
    # index is another project
    python3 -m venv /opt/agentlab && /opt/agentlab/bin/pip install ".[hub]"
    npm install --prefix /opt/agentlab/node configurable-http-proxy
    export PATH=/opt/agentlab/node/node_modules/.bin:$PATH
    export AGENTLAB_CLASS_PASSWORD=...   # the password you give the class (8 characters or more)
    export AGENTLAB_TEACHER_PASSWORD=... # yours, for the admin page (32 characters or more)
    /opt/agentlab/bin/jupyterhub -f deploy/jupyterhub_config.py

docs/INSTRUCTORS.md ("A class on JupyterHub") walks through it, with the nbgitpuller link
that hands out the student copy, the sizing table these limits come from, and the same class
on Kubernetes (deploy/values.yaml carries the same limits; tests/test_hub.py checks they agree
and starts this file's hub for one student).

One Python environment holds the hub and the course: the students' servers and kernels run
on this Python, so what is installed here is what every student has. Left out on purpose:
HTTPS (put the hub behind your institution's proxy, or use The Littlest JupyterHub, which
sets it up) and a user database (a shared class password is enough for a room; switch the
authenticator for your institution's login).
"""

import os
import pathlib
import sys

c = get_config()  # noqa: F821 (JupyterHub defines get_config in the files it loads)

# --- Who logs in: any name with the class password; the teacher is the admin ------------------
# JupyterHub's own shared-password login: students pick a user name and type the password the
# teacher wrote on the board. The teacher logs in with the teacher password to the admin page.
# Anyone with the class password can log in under any student's name: enough for a room, not
# for graded work (then use your institution's login, e.g. an OAuthenticator).
CLASS_PASSWORD = os.environ.get("AGENTLAB_CLASS_PASSWORD", "")
if not CLASS_PASSWORD:  # JupyterHub would start, and nobody could log in
    sys.exit("jupyterhub_config.py: set AGENTLAB_CLASS_PASSWORD to the class's password "
             "(8 characters or more) before starting the hub")
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = CLASS_PASSWORD
# Without it the admin page is closed, and the class works as before.
c.SharedPasswordAuthenticator.admin_password = os.environ.get("AGENTLAB_TEACHER_PASSWORD", "")
c.Authenticator.admin_users = {"teacher"}
c.Authenticator.allow_all = True

# --- Each student's server: systemd gives each one its own limits and a throwaway user --------
# SystemdSpawner (pip install jupyterhub-systemdspawner, in the `hub` extra) runs each server
# as a systemd unit, which is what enforces the limits below on one machine; dynamic users
# mean no system account per student. It is what The Littlest JupyterHub uses.
c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
c.SystemdSpawner.dynamic_users = True
c.SystemdSpawner.isolate_tmp = True
c.SystemdSpawner.disable_user_sudo = True

# The course runs on this environment's Python: its jupyterhub-singleuser, its kernel.
c.Spawner.cmd = [str(pathlib.Path(sys.executable).parent / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"

# --- Offline by default ------------------------------------------------------------------------
# JupyterLab's internet features off, with the options `agentlab course` passes
# (agentlab.course.launcher.OFFLINE_OPTIONS: news feed, extension search, update check).
# JupyterLab still asks "get notified about official Jupyter news?" in a pop-up until someone
# answers: the answer, "no", is given as a default (agentlab.course.launcher.LAB_DEFAULTS; a
# student's own setting still wins) in a settings folder made beside this environment's own,
# which the students' servers read (they run on this environment: world-readable, as it must be).
# The students' servers get only the variables JupyterHub keeps (PATH, LANG, ...): no
# OPENAI_API_KEY or OPENAI_BASE_URL from the hub's environment reaches a notebook, so connect()
# talks to the offline tutor. Notebook 07 shows a student how to use a key of their own.
# (installed in this environment, so imported here, after the settings above)
from agentlab.course.launcher import OFFLINE_OPTIONS, lab_settings_folder  # noqa: E402

LAB_SETTINGS = lab_settings_folder(pathlib.Path(sys.prefix) / "share" / "agentlab-hub")
c.Spawner.args = [*OFFLINE_OPTIONS, f"--LabApp.app_settings_dir={LAB_SETTINGS}"]

# --- Per student: memory and CPU, a guarantee and a limit ----------------------------------------
# From benchmarks/class_hub.py's run of thirty students (docs/INSTRUCTORS.md, "Sizing"): a
# student's server with one notebook's kernel peaked at 0.34 GB, in every notebook. The
# guarantee is what the sizing table counts per student; the limit leaves room for more open
# notebooks (a kernel each). CPU: a class mostly reads and runs a cell now and then (all six
# notebooks 01 to 05 took 22 CPU seconds), so a tenth of a core is guaranteed and one core is
# the most a student's cell may take.
MEMORY_GUARANTEE = "512M"
MEMORY_LIMIT = "1G"
CPU_GUARANTEE = 0.1
CPU_LIMIT = 1.0
c.Spawner.mem_guarantee = MEMORY_GUARANTEE
c.Spawner.mem_limit = MEMORY_LIMIT
c.Spawner.cpu_guarantee = CPU_GUARANTEE
c.Spawner.cpu_limit = CPU_LIMIT
# systemd enforces mem_limit (MemoryMax) and cpu_limit (CPUQuota) itself; a guarantee becomes
# MemoryLow, memory the kernel reclaims from this student last. CPU has no absolute guarantee
# on one machine: equal weights share the cores evenly when every student runs at once.
c.SystemdSpawner.unit_extra_properties = {"MemoryLow": MEMORY_GUARANTEE}

# --- A class starts at once: give the servers time to start on a busy machine ------------------
c.Spawner.start_timeout = 180  # seconds until a started server must be running
c.Spawner.http_timeout = 120   # seconds until it must answer
c.JupyterHub.concurrent_spawn_limit = 40

# --- The idle culler: stop the servers nobody uses, so their memory comes back -----------------
IDLE_TIMEOUT_SECONDS = 3600  # an hour without activity (a lunch break) stops a server
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={IDLE_TIMEOUT_SECONDS}", "--cull-every=300"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
