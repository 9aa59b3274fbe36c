"""JupyterHub for a class on one server: every student gets the agentlab course, offline.

    # in a student copy's folder (agentlab course --student-copy); a plain install, not -e,
    # so no student's kernel reads your clone (its solutions); "agentlab" alone on the package
    # index is another project
    python3 -m venv /opt/agentlab && /opt/agentlab/bin/pip install ".[hub]"
    npm install --prefix /opt/agentlab/node configurable-http-proxy@5
    export PATH=/opt/agentlab/node/node_modules/.bin:$PATH
    export AGENTLAB_CLASS_PASSWORD=...   # the password you give the class (8 characters or more)
    export AGENTLAB_TEACHER_PASSWORD=... # yours, for the admin page (32 characters or more)
    /opt/agentlab/bin/jupyterhub -f deploy/jupyterhub_config.py  # as root; its state: below

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

import json
import os
import pathlib
import re
import sys
import unicodedata

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
c.SharedPasswordAuthenticator.user_password = CLASS_PASSWORD
# Without it the admin page is closed, and the class works as before.
c.SharedPasswordAuthenticator.admin_password = os.environ.get("AGENTLAB_TEACHER_PASSWORD", "")
c.Authenticator.admin_users = {"teacher"}
c.Authenticator.allow_all = True


# User names as systemd can take them. Each student's server is a systemd unit named after them
# (jupyter-NAME-singleuser) run by a user of that name; a name is any text a student types
# ("John Smith", "José"), and systemd takes only lowercase ASCII letters, digits and dashes in
# a user's name. So the name is written that way at login: accents dropped ("josé" -> "jose"),
# lowercase, each run of anything else a dash ("John Smith" -> "john-smith"). Two spellings of
# one name ("José", "jose") are one student. A name with no letter left ("李") is refused at
# login: the username pattern below wants a letter first and at most 31 characters (systemd's
# longest user name).
def systemd_user_name(name: str) -> str:
    """Example: "John Smith" -> "john-smith";  "josé" -> "jose";  "李" -> "" (refused)"""
    letters = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", letters.lower()).strip("-")


USER_NAME_PATTERN = r"^[a-z][a-z0-9-]{0,30}$"


def class_authenticator():
    """JupyterHub's shared-password login, with the user names written as systemd takes them.
    (Imported when the hub loads this file: JupyterHub is installed wherever it runs.)"""
    from jupyterhub.authenticators.shared import SharedPasswordAuthenticator

    class ClassPasswordAuthenticator(SharedPasswordAuthenticator):
        def normalize_username(self, username):
            return systemd_user_name(super().normalize_username(username))

    return ClassPasswordAuthenticator


c.JupyterHub.authenticator_class = class_authenticator()
c.Authenticator.username_pattern = USER_NAME_PATTERN

# --- The hub's own state: outside any folder that is handed out -------------------------------
# The cookie secret signs every login (with it, anyone can forge the teacher's) and the database
# holds every user's tokens. JupyterHub writes both in the folder it is started from; started in
# a student copy, `git add -A` would publish them. They go to a folder of their own, readable by
# root alone (AGENTLAB_HUB_STATE to put it elsewhere), never inside the course's folder.
COURSE_FOLDER = pathlib.Path(__file__).resolve().parent.parent  # the folder holding deploy/
STATE = pathlib.Path(os.environ.get("AGENTLAB_HUB_STATE", "/var/lib/agentlab-hub")).resolve()
if STATE.is_relative_to(COURSE_FOLDER):
    sys.exit(f"jupyterhub_config.py: AGENTLAB_HUB_STATE={STATE} lies inside the course's folder "
             f"{COURSE_FOLDER}, which is handed out: name a folder outside it")
STATE.mkdir(mode=0o700, parents=True, exist_ok=True)
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# --- Each student's server: systemd gives each one its own limits and a throwaway user --------
# SystemdSpawner (pip install jupyterhub-systemdspawner, in the `hub` extra) runs each server
# as a systemd unit, which is what enforces the limits below on one machine; dynamic users
# mean no system account per student. It is what The Littlest JupyterHub uses. Without
# systemd (a container, a laptop) it cannot start a server: every student would wait out the
# start timeout and read "Spawn failed". So the hub refuses to start, in one line, instead.
SAME_USER_RISK = (
    "every student's server and kernel would run as the hub's own user: a student's code could "
    "read the hub's environment (the class and teacher passwords, any API key in it), its "
    "cookie secret and database (enough to log in as the teacher), every other student's "
    "files and tokens, and the solutions if they are on this machine")
SPAWNER = os.environ.get("AGENTLAB_SPAWNER", "systemd")
if SPAWNER == "systemd":
    if not os.path.isdir("/run/systemd/system"):  # systemd's own test that it is running
        sys.exit("jupyterhub_config.py: systemd is not running on this machine, and the class's "
                 "spawner (SystemdSpawner) needs it to start the students' servers; run the hub "
                 "on a server with systemd (docs/INSTRUCTORS.md, \"One server\")")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        sys.exit("jupyterhub_config.py: the class's spawner (SystemdSpawner) starts the "
                 "students' servers as systemd units, which needs root: start the hub as root")
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.dynamic_users = True
    c.SystemdSpawner.isolate_tmp = True
    c.SystemdSpawner.disable_user_sudo = True
    # A systemd unit keeps no PATH from the hub: without this environment's bin/ first on it,
    # a terminal in a server finds neither `python` (this environment's, with agentlab) nor
    # `nbgrader`, and nbgrader itself cannot start `alembic`, which its gradebook runs.
    c.SystemdSpawner.extra_paths = [str(pathlib.Path(sys.executable).parent)]
elif SPAWNER == "same-user":
    # Asked for by name, for a trial on the teacher's own machine: no limits, no isolation.
    print(f"jupyterhub_config.py: AGENTLAB_SPAWNER=same-user: {SAME_USER_RISK}. For a trial "
          "on your own machine only, never for a class.", file=sys.stderr)
    c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "homes" / "{username}")
else:
    sys.exit(f"jupyterhub_config.py: AGENTLAB_SPAWNER={SPAWNER!r} is not a spawner this file "
             "knows: leave it unset for systemd's, or set it to same-user for a trial where "
             f"{SAME_USER_RISK}")

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
# The students' servers get only the variables JupyterHub keeps and the ones set below: no
# OPENAI_API_KEY or OPENAI_BASE_URL from the hub's environment reaches a notebook, so connect()
# talks to the offline tutor. Notebook 07 shows a student how to use a key of their own.
# (installed in this environment, so imported here, after the settings above)
from agentlab.course.launcher import OFFLINE_OPTIONS, lab_settings_folder  # noqa: E402

LAB_SETTINGS = lab_settings_folder(pathlib.Path(sys.prefix) / "share" / "agentlab-hub")

# --- Kernels: each open notebook keeps one; the idle ones are shut down ------------------------
# JupyterLab keeps the kernel of every notebook a student has opened running, even after its
# tab is closed: after notebooks 01 to 09 a student holds ten kernels (docs/INSTRUCTORS.md,
# "Sizing", measured by benchmarks/class_hub.py). Two defaults keep that down: closing a
# notebook's tab shuts its kernel down (a student's own setting still wins), and a kernel left
# idle for half an hour is shut down, even with its tab open (its notebook reruns in seconds:
# Run > Run All Cells). The server itself stops after an hour idle (the idle culler, below).
KERNEL_IDLE_SECONDS = 1800
KERNEL_CULLING = [f"--MappingKernelManager.cull_idle_timeout={KERNEL_IDLE_SECONDS}",
                  "--MappingKernelManager.cull_interval=300",
                  "--MappingKernelManager.cull_connected=True"]
HUB_LAB_DEFAULTS = {"@jupyterlab/notebook-extension:tracker": {"kernelShutdown": True}}
# written beside, then renamed into place, as lab_settings_folder writes its own: a server
# reading it while the hub starts again never reads a file cut short
hub_defaults = LAB_SETTINGS / "overrides.d" / "agentlab-hub.json"
hub_defaults.with_suffix(".tmp").write_text(json.dumps(HUB_LAB_DEFAULTS, indent=1))
hub_defaults.with_suffix(".tmp").chmod(0o644)  # the students' servers read it
os.replace(hub_defaults.with_suffix(".tmp"), hub_defaults)
c.Spawner.args = [*OFFLINE_OPTIONS, *KERNEL_CULLING, f"--LabApp.app_settings_dir={LAB_SETTINGS}"]

# --- Handing in and grading: nbgrader ----------------------------------------------------------
# One class, one grader (nbgrader's docs, "Using nbgrader with JupyterHub"): the teacher grades
# in their own server, where the formgrader runs; students fetch and submit from the Assignments
# tab. Every server reads deploy/nbgrader_config.py (deploy/ on its JUPYTER_CONFIG_PATH): the
# course's name and the exchange, the folder where released assignments wait and hand-ins
# arrive. The exchange is writable by all with the sticky bit (nobody removes another's files);
# nbgrader makes its inbound folder unreadable to students. The course's folder, with the
# sources (the solutions), the hand-ins and the gradebook, is in the teacher's home, and only
# the teacher's server is told where (docs/INSTRUCTORS.md, "Grading a class with nbgrader").
DEPLOY_FOLDER = pathlib.Path(__file__).resolve().parent
EXCHANGE = pathlib.Path(os.environ.get("AGENTLAB_EXCHANGE", STATE.parent / "agentlab-exchange"))
EXCHANGE.mkdir(parents=True, exist_ok=True)
EXCHANGE.chmod(0o1777)
TEACHER_COURSE = "~/agentlab-course"
TEACHERS_ONLY = ["nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"]
c.Spawner.environment = {"JUPYTER_CONFIG_PATH": str(DEPLOY_FOLDER),
                         "AGENTLAB_EXCHANGE": str(EXCHANGE)}
# A dynamic user's unit sees the machine read-only but for its home and its /tmp (systemd's
# ProtectSystem=strict): the exchange is made writable in every server, or no release, fetch
# or submit could write it.
c.SystemdSpawner.readwrite_paths = [str(EXCHANGE)]


def grading_for(spawner) -> None:
    """The formgrader and the course's folder for the teacher; neither for a student."""
    if spawner.user.name in c.Authenticator.admin_users:
        spawner.environment = {**spawner.environment, "AGENTLAB_NBGRADER_COURSE": TEACHER_COURSE}
    else:
        spawner.args = [*spawner.args, *(f"--ServerApp.jpserver_extensions={name}=False"
                                         for name in TEACHERS_ONLY)]


c.Spawner.pre_spawn_hook = grading_for

# --- Per student: memory and CPU, a guarantee and a limit ----------------------------------------
# From benchmarks/class_hub.py --keep-kernels (docs/INSTRUCTORS.md, "Sizing"): a student's
# server holds about 0.15 GB for each notebook's kernel left running, 1.4 GB with all ten of
# 01 to 09 open. The limit holds all ten, with room to spare, so that no kernel is killed
# however many notebooks a student keeps open; the guarantee, what the sizing table counts per
# student, holds four (with the kernels shut down when closed or idle for half an hour, a
# student rarely keeps more). CPU: a class mostly reads and runs a cell now and then (all six
# notebooks 01 to 05 took 22 CPU seconds), so a tenth of a core is guaranteed and one core is
# the most a student's cell may take.
MEMORY_GUARANTEE = "768M"
MEMORY_LIMIT = "2G"
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
