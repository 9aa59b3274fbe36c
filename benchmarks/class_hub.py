"""A class on JupyterHub, simulated on this machine: students log in, get their server, pull the
course with nbgitpuller and run its notebooks through their server's own REST and kernel APIs,
while the teacher's client keeps asking the hub for its status. Prints one table.

    python benchmarks/class_hub.py                           # 30 students, notebooks 01 to 05
    python benchmarks/class_hub.py --students 3 --notebooks 01,04b --json class.json
    python benchmarks/class_hub.py --students 4 --keep-kernels \
        --notebooks 01,02,03,04a,04b,05,06,07,08,09   # the memory of the kernels left open

What runs: deploy/jupyterhub_config.py, the class's own configuration (its shared-password
login too), with the changes a laptop needs (tests/test_hub.py uses the same): its
same-user spawner, asked for by name (AGENTLAB_SPAWNER=same-user: SimpleLocalProcessSpawner
instead of systemd's; servers run as this user, in a folder each, so no system accounts; it
enforces no limits: the memory and CPU columns measure what a student takes), the hub's state
in the run's folder, and free loopback ports. The proxy is configurable-http-proxy from npm, installed
under .node/ (`npm install --prefix .node configurable-http-proxy`) or found on PATH.

The course is pulled with nbgitpuller, not copied: it is how a teacher hands it out (docs/
INSTRUCTORS.md), so the hand-out path is what gets measured. Its source is the student copy
(`agentlab course --student-copy`) committed to a git repository in a temporary folder,
reached by a file:// URL: no network.

Each notebook runs the way JupyterLab runs it: a session (POST /api/sessions) starts a kernel in
the notebook's folder, each code cell is an execute_request on the kernel's websocket, and the
text outputs are compared with the saved ones after notebooks/sanitize.cfg, as nbval does. A
cell whose output differs is counted, by notebook and cell.

First one student runs every notebook alone on the hub (the row "alone": the times the class's
are compared with), then the class arrives. Bounded: students start `--stagger` seconds apart,
the run stops starting notebooks after `--wall` seconds, a cell has `--cell-timeout` seconds,
and everything the script started is stopped at the end. Loopback only. Memory and CPU come
from /proc (Linux): per student, every process whose environment names that JupyterHub user
(the server and its kernels).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

from agentlab.toolkit import CLOCK_VARIABLE, SAVED_NOTEBOOKS_CLOCK

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEPLOY_CONFIG = ROOT / "deploy" / "jupyterhub_config.py"
SANITIZE = ROOT / "notebooks" / "sanitize.cfg"
COURSE_FOLDER = "agentlab-students"  # where nbgitpuller puts the course in a student's home
PASSWORD = "class-of-thirty"          # the class password of this run (loopback only)
CHAPTERS = ["01", "02", "03", "04a", "04b", "05"]


# --- the proxy, the course's repository, the hub ----------------------------------------------

def proxy_command() -> str | None:
    """configurable-http-proxy: the project's .node/ install, else one on PATH, else None."""
    local = ROOT / ".node" / "node_modules" / ".bin" / "configurable-http-proxy"
    if local.exists():
        return str(local)
    return shutil.which("configurable-http-proxy")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def course_repository(folder: pathlib.Path) -> str:
    """The student copy, committed on branch main of a new git repository in `folder`: what a
    teacher publishes for nbgitpuller. Returns its file:// URL."""
    from agentlab.course import student_copy

    copy = folder / COURSE_FOLDER
    with contextlib.redirect_stdout(None):
        student_copy(copy, checkout=ROOT)
    who = {"GIT_AUTHOR_NAME": "teacher", "GIT_AUTHOR_EMAIL": "teacher@localhost",
           "GIT_COMMITTER_NAME": "teacher", "GIT_COMMITTER_EMAIL": "teacher@localhost"}
    for command in (["init", "-q", "-b", "main"], ["add", "-A"],
                    ["commit", "-q", "-m", "the course, without its solutions"]):
        subprocess.run(["git", *command], cwd=copy, check=True, env={**os.environ, **who})
    return copy.as_uri()


@dataclasses.dataclass
class Hub:
    url: str           # http://127.0.0.1:PORT, the proxy's public address
    token: str         # the teacher's API token (a service with admin scopes)
    process: subprocess.Popen
    log: pathlib.Path
    started: list = dataclasses.field(default_factory=list)  # noted and ended by stop_hub

    def api(self, path: str, method: str = "GET", **options):
        import requests

        return requests.request(method, f"{self.url}/hub/api{path}", timeout=30,
                                headers={"Authorization": f"token {self.token}"}, **options)


TEST_CONFIG = """\
# deploy/jupyterhub_config.py, with what a run on this machine needs instead (class_hub.py):
# its same-user spawner (AGENTLAB_SPAWNER=same-user, asked for by name: no systemd here), the
# students' homes and the hub's state in the run's folder, loopback ports.
c = get_config()  # noqa: F821
load_subconfig({deploy!r})  # noqa: F821
c.SimpleLocalProcessSpawner.home_dir_template = {home!r}
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.services.append({{"name": "teacher", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "teacher", "services": ["teacher"], "scopes": [
    "admin:users", "admin:servers", "list:users", "read:users", "tokens", "read:services"]}})
if {as_root!r}:  # JupyterLab refuses root without it (a container, CI)
    c.Spawner.args = c.Spawner.args + ["--allow-root"]
# The course's clock pinned where the saved notebooks were made, as the test command pins it:
# get_time's weekday changes a prompt's token count, and the outputs are compared with the
# saved ones. (A class's hub leaves the real clock.)
c.Spawner.environment = {{{clock_variable!r}: {clock!r}}}
"""


@contextlib.contextmanager
def running_hub(folder: pathlib.Path, proxy: str, *, start_seconds: float = 60,
                stop_seconds: float = 30, environment: dict | None = None):
    """deploy/jupyterhub_config.py's hub on free loopback ports, run from `folder` (its
    database, cookie secret and the students' homes go there); stopped at the end, given
    `stop_seconds` to clean up before it is killed."""
    import requests

    port, token = free_port(), secrets.token_hex(16)
    config = folder / "jupyterhub_config.py"
    config.write_text(TEST_CONFIG.format(
        deploy=str(DEPLOY_CONFIG), home=str(folder / "home" / "{username}"),
        port=port, hub_port=free_port(), api_port=free_port(), proxy=proxy, token=token,
        as_root=hasattr(os, "geteuid") and os.geteuid() == 0,
        clock_variable=CLOCK_VARIABLE, clock=SAVED_NOTEBOOKS_CLOCK))
    log = folder / "jupyterhub.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                   cwd=folder, stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, **(environment or {}),
                                        "AGENTLAB_SPAWNER": "same-user",
                                        "AGENTLAB_HUB_STATE": str(folder / "hub-state"),
                                        "AGENTLAB_CLASS_PASSWORD": PASSWORD,
                                        "AGENTLAB_TEACHER_PASSWORD": secrets.token_hex(20)},
                                   start_new_session=True)  # its proxy and servers with it
    hub = Hub(f"http://127.0.0.1:{port}", token, process, log)
    try:
        deadline = time.monotonic() + start_seconds
        while True:
            try:
                if hub.api("/").ok:
                    break
            except requests.ConnectionError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the hub did not start: {log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield hub
    finally:
        hub.started = stop_hub(process, stop_seconds)


def stop_hub(process: subprocess.Popen, seconds: float = 30) -> list:
    """SIGINT: the hub stops its services, its students' servers and its proxy; then its group,
    if left. Those three run in sessions of their own (so that they outlive a restart of the
    hub), out of reach of its group: a hub killed or stuck in its clean-up would leave them
    running. So every process the hub had started is noted first, and ended here if it is still
    there. Returns those noted (psutil.Process objects; tests/test_hub.py checks each ended)."""
    try:
        import psutil  # the hub extra has it; without it the hub is still stopped
        started = psutil.Process(process.pid).children(recursive=True)
    except Exception:  # psutil missing, or the hub already gone
        started = []
    process.send_signal(signal.SIGINT)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the group this script started, and only it
    process.wait()
    for leftover in still_running(started, seconds=5):
        with contextlib.suppress(psutil.NoSuchProcess):
            leftover.kill()  # psutil checks it is still the process noted, not a new one
    still_running(started, seconds=5)
    return started


def still_running(noted: list, seconds: float = 0) -> list:
    """Those of the noted processes that have not ended, after waiting up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        left = [process for process in noted if not ended(process)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def ended(noted) -> bool:
    """Whether a noted process has ended. A zombie has: the hub's orphans are reaped by the
    machine's first process, which in some containers never reaps them."""
    import psutil

    try:  # is_running: False too when its number was given to another process
        return not noted.is_running() or noted.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# --- a student, through the hub's and their own server's APIs ---------------------------------

def sanitizers() -> list[tuple[re.Pattern, str]]:
    """notebooks/sanitize.cfg's regex:/replace: pairs, as nbval reads them."""
    pairs, pattern = [], None
    for line in SANITIZE.read_text().splitlines():
        if line.startswith("regex:"):
            pattern = re.compile(line[len("regex:"):].strip())
        elif line.startswith("replace:") and pattern is not None:
            pairs.append((pattern, line[len("replace:"):].strip()))
    return pairs


def text_of(outputs: list[dict], rules) -> str:
    """What nbval compares of a cell's outputs, as one text: streams, plain text, errors."""
    parts = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            parts.append("".join(output["text"]))
        elif kind in ("execute_result", "display_data"):
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
        elif kind == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    text = "".join(parts)
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


@dataclasses.dataclass
class NotebookRun:
    name: str
    seconds: float
    cells: int
    differing: list[int]          # code cells (0-based among code cells) whose text differs
    error: str | None = None
    then: list[list[dict]] = dataclasses.field(default_factory=list)  # outputs of `then`


class Student:
    """One student: logs in, starts a server, pulls the course, runs notebooks."""

    def __init__(self, hub: Hub, name: str):
        import requests

        self.hub, self.name = hub, name
        self.web = requests.Session()
        self.token = None

    def log_in(self) -> None:
        """The login form, as a browser fills it in; then a token for the API calls."""
        self.web.get(f"{self.hub.url}/hub/login", timeout=60).raise_for_status()
        xsrf = self.web.cookies.get("_xsrf")
        answer = self.web.post(f"{self.hub.url}/hub/login?next=", timeout=60,
                               allow_redirects=False,
                               data={"username": self.name, "password": PASSWORD, "_xsrf": xsrf})
        if answer.status_code != 302:
            raise RuntimeError(f"login refused: {answer.status_code}")
        # The hub's pages carry the XSRF token that its API wants with a login cookie.
        page = self.web.get(f"{self.hub.url}/hub/token", timeout=60)
        page.raise_for_status()
        xsrf = re.search(r'xsrf_token:\s*"([^"]+)"', page.text) or re.search(
            r'name="_xsrf" value="([^"]+)"', page.text)
        answer = self.web.post(f"{self.hub.url}/hub/api/users/{self.name}/tokens", timeout=60,
                               headers={"X-XSRFToken": xsrf.group(1) if xsrf else ""},
                               json={"note": "class_hub"})
        answer.raise_for_status()
        self.token = answer.json()["token"]
        self.web.headers["Authorization"] = f"token {self.token}"

    def start_server(self, seconds: float) -> None:
        """Ask the hub for this student's server and wait until it is ready."""
        answer = self.web.post(f"{self.hub.url}/hub/api/users/{self.name}/server", timeout=60)
        if answer.status_code not in (201, 202):
            raise RuntimeError(f"spawn refused: {answer.status_code} {answer.text[:200]}")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            user = self.web.get(f"{self.hub.url}/hub/api/users/{self.name}", timeout=60).json()
            server = user.get("servers", {}).get("")
            if server and server.get("ready"):
                return
            if not server and not user.get("pending"):
                raise RuntimeError("the server failed to start (see the hub's log)")
            time.sleep(0.5)
        raise TimeoutError(f"no running server after {seconds:g} s")

    def server(self, path: str) -> str:
        return f"{self.hub.url}/user/{self.name}{path}"

    def pull(self, repository: str) -> None:
        """nbgitpuller's own API (what its link's page calls): clone or update the course."""
        query = urllib.parse.urlencode({"repo": repository, "branch": "main",
                                        "targetpath": COURSE_FOLDER})
        with self.web.get(self.server(f"/git-pull/api?{query}"), stream=True,
                          timeout=120) as answer:
            answer.raise_for_status()
            for line in answer.iter_lines(decode_unicode=True):
                if line.startswith("data:"):
                    event = json.loads(line[len("data:"):])
                    if event.get("phase") == "finished":
                        return
                    if event.get("phase") == "error":
                        raise RuntimeError(f"nbgitpuller: {event.get('message')}")
        raise RuntimeError("nbgitpuller's stream ended without finishing")

    def listing(self, path: str) -> list[str]:
        """The names in a folder of the student's server (its contents API)."""
        answer = self.web.get(self.server(f"/api/contents/{path}"), timeout=60)
        answer.raise_for_status()
        return sorted(item["name"] for item in answer.json()["content"])

    def run_notebook(self, name: str, cell_timeout: float, then: tuple = (),
                     keep_kernel: bool = False) -> NotebookRun:
        """Run every code cell of notebooks/NAME*.ipynb in a new kernel, as JupyterLab does;
        then the sources in `then`, in the same kernel (a test's own checks). With
        `keep_kernel`, the kernel is left running afterwards, as JupyterLab leaves the kernel
        of every notebook a student has opened."""
        start = time.monotonic()
        folder = f"{COURSE_FOLDER}/notebooks"
        path = next(f"{folder}/{n}" for n in self.listing(folder)
                    if n.startswith(f"{name}_") and n.endswith(".ipynb"))
        notebook = self.web.get(self.server(f"/api/contents/{path}"), timeout=60).json()
        cells = [c for c in notebook["content"]["cells"] if c["cell_type"] == "code"]
        try:
            outputs, error = self.execute(path, ["".join(c["source"]) for c in cells]
                                          + list(then), cell_timeout, keep_kernel), None
        except Exception as e:  # a cell that timed out, a dropped websocket: reported
            outputs, error = [], f"{type(e).__name__}: {e}"[:200]
        rules = sanitizers()
        differing = [i for i, (cell, got) in enumerate(zip(cells, outputs))
                     if text_of(cell.get("outputs", []), rules) != text_of(got, rules)]
        return NotebookRun(name, time.monotonic() - start, len(cells), differing, error,
                           outputs[len(cells):])

    def execute(self, path: str, sources: list[str], cell_timeout: float,
                keep_kernel: bool = False) -> list[list[dict]]:
        """Each source run as a cell, in order, in a new kernel of a session for the notebook
        at `path` (in its folder, as JupyterLab opens it); the outputs of each cell. The
        session and its kernel end afterwards, unless `keep_kernel`."""
        session = self.web.post(self.server("/api/sessions"), timeout=120, json={
            "path": path, "type": "notebook", "name": path, "kernel": {"name": "python3"}})
        session.raise_for_status()
        session = session.json()
        try:
            return asyncio.run(self._execute(session["kernel"]["id"], sources, cell_timeout))
        finally:
            if not keep_kernel:
                self.web.delete(self.server(f"/api/sessions/{session['id']}"), timeout=60)

    async def _execute(self, kernel: str, sources: list[str], cell_timeout: float) -> list:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        session = uuid.uuid4().hex
        url = self.server(f"/api/kernels/{kernel}/channels?session_id={session}")
        request = HTTPRequest(url.replace("http://", "ws://", 1), request_timeout=120,
                              headers={"Authorization": f"token {self.token}"})
        socket_ = await websocket_connect(request, max_message_size=256 * 1024 * 1024)
        try:
            return [await asyncio.wait_for(self._cell(socket_, session, source), cell_timeout)
                    for source in sources]
        finally:
            socket_.close()

    async def _cell(self, socket_, session: str, source: str) -> list[dict]:
        """Send one execute_request; gather the outputs until the kernel is idle again."""
        msg_id = uuid.uuid4().hex
        socket_.write_message(json.dumps({
            "channel": "shell", "buffers": [], "metadata": {}, "parent_header": {},
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                       "username": self.name, "version": "5.3",
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
            "content": {"code": source, "silent": False, "store_history": True,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
        outputs = []
        while True:
            raw = await socket_.read_message()
            if raw is None:
                raise ConnectionError("the kernel's websocket closed")
            message = json.loads(_message_part(raw))
            kind, content = message["header"]["msg_type"], message["content"]
            if kind == "status" and content["execution_state"] in ("restarting", "dead"):
                # the server saw the kernel process die: no reply will ever come
                raise ConnectionError(f"the kernel died ({content['execution_state']})")
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if kind == "stream":
                outputs.append({"output_type": "stream", "name": content["name"],
                                "text": content["text"]})
            elif kind in ("execute_result", "display_data", "error"):
                outputs.append({"output_type": kind, **content})
            elif kind == "status" and content["execution_state"] == "idle":
                return outputs


def _message_part(frame: str | bytes) -> str | bytes:
    r"""A websocket frame's message: a text frame is one, a binary frame (a message with
    buffers: a widget's image) starts with a count and offsets, then the message's JSON.

    Example: b"\x00\x00\x00\x01\x00\x00\x00\x08{...}" -> b"{...}" (one part, at byte 8)
    """
    if isinstance(frame, str):
        return frame
    count = int.from_bytes(frame[:4], "big")
    offsets = [int.from_bytes(frame[4 + 4 * i:8 + 4 * i], "big") for i in range(count)]
    return frame[offsets[0]:offsets[1] if count > 1 else None]


# --- watching: memory and CPU per student, the hub's answers to the teacher -----------------

def _proc_user(pid: str) -> str | None:
    try:
        environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for item in environ:
        if item.startswith(b"JUPYTERHUB_USER="):
            return item.split(b"=", 1)[1].decode()
    return None


def memory_now(student: str) -> tuple[float, int]:
    """What a student's processes (their server and kernels) hold now: the sum of their PSS in
    MB (each shared page counted once across all processes, split between its sharers: RSS would
    count the libraries every kernel shares once per kernel) and how many kernels run."""
    megabytes, kernels = 0.0, 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or _proc_user(entry.name) != student:
            continue
        try:
            rollup = pathlib.Path(f"/proc/{entry.name}/smaps_rollup").read_text()
            command = pathlib.Path(f"/proc/{entry.name}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        pss = re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE)
        megabytes += int(pss[1]) / 1024 if pss else 0.0
        kernels += b"ipykernel_launcher" in command
    return megabytes, kernels


class Meter(threading.Thread):
    """Samples /proc twice a second: memory (RSS) and CPU seconds, summed per student (their
    server and kernels) and for the hub (the hub, its proxy and its idle culler)."""

    def __init__(self, hub_pid: int):
        super().__init__(daemon=True)
        self.hub_pid, self.done = hub_pid, threading.Event()
        self.owner: dict[str, str | None] = {}   # pid -> student, "hub", or None for others
        self.cpu: dict[str, float] = {}          # pid -> CPU seconds last seen
        self.peak_mb: dict[str, float] = {}      # student or "hub" -> peak MB
        self.tick, self.page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")

    def _stat(self, pid: str) -> list[str] | None:
        """/proc/PID/stat's fields after the command's name: state, ppid, ..."""
        try:
            return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None

    def _sample(self) -> None:
        rss: dict[str, float] = {}
        for entry in os.scandir("/proc"):
            pid = entry.name
            if not pid.isdigit() or (fields := self._stat(pid)) is None:
                continue
            if pid not in self.owner:
                hub_side = int(pid) == self.hub_pid or int(fields[1]) == self.hub_pid
                self.owner[pid] = _proc_user(pid) or ("hub" if hub_side else None)
            who = self.owner[pid]
            if who is None:
                continue
            self.cpu[pid] = (int(fields[11]) + int(fields[12])) / self.tick
            rss[who] = rss.get(who, 0.0) + int(fields[21]) * self.page / 2 ** 20
        for who, megabytes in rss.items():
            self.peak_mb[who] = max(self.peak_mb.get(who, 0.0), megabytes)

    def cpu_seconds(self, who: str) -> float:
        return sum(s for pid, s in self.cpu.items() if self.owner.get(pid) == who)

    def run(self) -> None:
        while not self.done.wait(0.5):
            self._sample()


class Teacher(threading.Thread):
    """The teacher's client: asks the hub for every student's status, once a second."""

    def __init__(self, hub: Hub):
        super().__init__(daemon=True)
        self.hub, self.done = hub, threading.Event()
        self.seconds: list[float] = []
        self.failures: list[str] = []

    def run(self) -> None:
        while not self.done.wait(1.0):
            start = time.monotonic()
            try:
                answer = self.hub.api("/users?state=active")
                answer.raise_for_status()
                self.seconds.append(time.monotonic() - start)
            except Exception as e:
                self.failures.append(f"{type(e).__name__}: {e}"[:120])


# --- the class ---------------------------------------------------------------------------------

@dataclasses.dataclass
class StudentReport:
    name: str
    server_seconds: float | None = None   # from asking for the server to its being ready
    pull_seconds: float | None = None
    notebooks: list[NotebookRun] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)  # after the wall-time cap
    failure: str | None = None
    # with --keep-kernels: after each notebook, (notebook, kernels running, their PSS in MB)
    kept: list[tuple[str, int, float]] = dataclasses.field(default_factory=list)


def notebooks_for(index: int, chapters: list[str], per_student: int | None) -> list[str]:
    """Every chapter, or a fixed share per student: 01 always, then the others in turn, so
    that the class as a whole runs each one.

    Example: notebooks_for(1, ["01", "02", "03", "04a"], 2) -> ["01", "03"]
    """
    if not per_student or per_student >= len(chapters):
        return list(chapters)
    first, others = chapters[0], chapters[1:]
    return [first] + [others[(index + k) % len(others)] for k in range(per_student - 1)]


def attend(hub: Hub, report: StudentReport, repository: str, notebooks: list[str],
           end: float, cell_timeout: float, keep_kernels: bool = False) -> None:
    student = Student(hub, report.name)
    try:
        student.log_in()
        start = time.monotonic()
        student.start_server(seconds=300)
        report.server_seconds = time.monotonic() - start
        start = time.monotonic()
        student.pull(repository)
        report.pull_seconds = time.monotonic() - start
        for name in notebooks:
            if time.monotonic() > end:
                report.skipped.append(name)
                continue
            report.notebooks.append(student.run_notebook(name, cell_timeout,
                                                         keep_kernel=keep_kernels))
            if keep_kernels:
                time.sleep(1.0)  # the kernel's memory settles once its last cell has run
                report.kept.append((name, *reversed(memory_now(report.name))))
    except Exception as e:
        report.failure = f"{type(e).__name__}: {e}"[:200]


def simulate(students: int, chapters: list[str], per_student: int | None, stagger: float,
             wall: float, cell_timeout: float, folder: pathlib.Path,
             keep_kernels: bool = False) -> dict:
    proxy = proxy_command()
    if proxy is None:
        raise SystemExit("configurable-http-proxy not found: "
                         "npm install --prefix .node configurable-http-proxy")
    repository = course_repository(folder)
    began = time.monotonic()
    with running_hub(folder, proxy) as hub:
        meter, teacher = Meter(hub.process.pid), Teacher(hub)
        meter.start()
        # First one student alone, every notebook: the times the class's are compared with.
        alone = StudentReport("alone")
        attend(hub, alone, repository, chapters, time.monotonic() + wall, cell_timeout,
               keep_kernels)
        hub.api("/users/alone/server", method="DELETE")
        teacher.start()
        end = time.monotonic() + wall
        reports = [StudentReport(f"student{i + 1:02d}") for i in range(students)]
        threads = []
        for i, report in enumerate(reports):
            thread = threading.Thread(target=attend, daemon=True, args=(
                hub, report, repository, notebooks_for(i, chapters, per_student), end,
                cell_timeout, keep_kernels))
            thread.start()
            threads.append(thread)
            time.sleep(stagger)
        for thread in threads:
            thread.join(max(1.0, end - time.monotonic() + 2 * cell_timeout))
        teacher.done.set()
        meter.done.set()
        meter.join()
        teacher.join()
    return {"students": reports, "alone": alone, "meter": meter, "teacher": teacher,
            "seconds": time.monotonic() - began}


# --- the table -----------------------------------------------------------------------------

def describe(result: dict, chapters: list[str]) -> str:
    reports, meter, teacher = result["students"], result["meter"], result["teacher"]
    alone = result["alone"]
    lines = [f"{'student':10} {'server s':>8} {'pull s':>6} "
             + " ".join(f"{c:>6}" for c in chapters) + f" {'peak MB':>8} {'CPU s':>6}  differs"]
    for r in [alone, *reports]:
        times = {n.name: n for n in r.notebooks}
        cells = [f"{times[c].seconds:6.1f}" if c in times and not times[c].error
                 else ("  fail" if c in times else ("   cap" if c in r.skipped else "     -"))
                 for c in chapters]
        differs = [f"{n.name}:{','.join(map(str, n.differing))}" for n in r.notebooks
                   if n.differing] + [f"{n.name} {n.error}" for n in r.notebooks if n.error]
        differs += [f"FAILED {r.failure}"] if r.failure else []
        lines.append(f"{r.name:10} {_f(r.server_seconds):>8} {_f(r.pull_seconds):>6} "
                     + " ".join(cells) + f" {meter.peak_mb.get(r.name, 0):8.0f} "
                     f"{meter.cpu_seconds(r.name):6.1f}  {' '.join(differs) or '-'}")
    lines.append("")
    ready = [r.server_seconds for r in reports if r.server_seconds is not None]
    runs = [n for r in reports for n in r.notebooks]
    peaks = [meter.peak_mb.get(r.name, 0) for r in reports]
    cpu = [meter.cpu_seconds(r.name) for r in reports]
    latency = sorted(teacher.seconds)
    lines += [
        f"students: {len(reports)}, failed: {sum(1 for r in reports if r.failure)}; "
        f"notebooks run: {len(runs)}, with an error: {sum(1 for n in runs if n.error)}, "
        f"with a differing cell: {sum(1 for n in runs if n.differing)}, "
        f"not started (wall-time cap): {sum(len(r.skipped) for r in reports)}",
        f"time to a running server: median {_median(ready)} s, "
        f"max {_f(max(ready, default=None))} s",
        "time per notebook, median in class / alone: " + ", ".join(
            f"{c} {_median([n.seconds for n in runs if n.name == c and not n.error])}"
            f" / {_f(next((n.seconds for n in alone.notebooks if n.name == c), None))} s"
            for c in chapters),
        f"peak memory per student (server + kernel): median {_median(peaks, 0)} MB, "
        f"max {max(peaks, default=0):.0f} MB; the hub (with its proxy and culler): "
        f"{meter.peak_mb.get('hub', 0):.0f} MB, {meter.cpu_seconds('hub'):.0f} CPU s",
        f"CPU per student over the run: median {_median(cpu)} s, total {sum(cpu):.0f} s "
        f"in {result['seconds']:.0f} s of wall time ({os.cpu_count()} cores)",
        f"hub status for the teacher: {len(latency)} answers, median "
        f"{_median(latency, 3)} s, 95th percentile "
        f"{_f(latency[int(0.95 * (len(latency) - 1))] if latency else None, 3)} s, max "
        f"{_f(max(latency, default=None), 3)} s; failures: {len(teacher.failures)}"
        + (f" ({teacher.failures[0]})" if teacher.failures else ""),
    ]
    if any(r.kept for r in [alone, *reports]):
        lines += ["", kept_kernels_table([alone, *reports], chapters)]
    return "\n".join(lines)


def kept_kernels_table(reports: list[StudentReport], chapters: list[str]) -> str:
    """With --keep-kernels: after each notebook, the kernels a student holds and the memory of
    their server and kernels (PSS), the median over the students and the largest.

    Example: after 01: 1 kernel, median 190 MB, max 195 MB; ... after 09: 10 kernels, ...
    """
    lines = ["memory with every opened notebook's kernel left running (PSS of the server and "
             "its kernels, MB):",
             f"{'after':>6} {'kernels':>7} {'median MB':>9} {'max MB':>7}"]
    for chapter in chapters:
        rows = [(k, mb) for r in reports for name, k, mb in r.kept if name == chapter]
        if rows:
            lines.append(f"{chapter:>6} {_median([k for k, _ in rows], 0):>7} "
                         f"{_median([mb for _, mb in rows], 0):>9} "
                         f"{max(mb for _, mb in rows):7.0f}")
    return "\n".join(lines)


def _f(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _median(values: list[float], digits: int = 1) -> str:
    return _f(statistics.median(values) if values else None, digits)


def as_json(result: dict) -> dict:
    meter, teacher = result["meter"], result["teacher"]
    alone = result["alone"]
    return {"seconds": result["seconds"], "cores": os.cpu_count(),
            "alone": {**dataclasses.asdict(alone), "peak_mb": meter.peak_mb.get("alone", 0),
                      "cpu_seconds": meter.cpu_seconds("alone")},
            "students": [{**dataclasses.asdict(r), "peak_mb": meter.peak_mb.get(r.name, 0),
                          "cpu_seconds": meter.cpu_seconds(r.name)}
                         for r in result["students"]],
            "hub_peak_mb": meter.peak_mb.get("hub", 0),
            "hub_cpu_seconds": meter.cpu_seconds("hub"),
            "teacher_seconds": teacher.seconds,
            "teacher_failures": teacher.failures}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--notebooks", default=",".join(CHAPTERS),
                        help="the chapters to run, by number (default: 01 to 05)")
    parser.add_argument("--per-student", type=int, default=None,
                        help="run only this many of them per student: 01, then others in turn")
    parser.add_argument("--stagger", type=float, default=2.0,
                        help="seconds between two students' arrivals")
    parser.add_argument("--wall", type=float, default=900.0,
                        help="seconds after which no new notebook starts")
    parser.add_argument("--cell-timeout", type=float, default=180.0)
    parser.add_argument("--keep-kernels", action="store_true",
                        help="leave each notebook's kernel running, as JupyterLab does for "
                             "every notebook a student opens, and report the memory held "
                             "after each notebook")
    parser.add_argument("--json", type=pathlib.Path, help="also write the figures here")
    parser.add_argument("--hub-log", type=pathlib.Path,
                        help="keep the hub's log (with the students' servers') here")
    args = parser.parse_args(argv)
    if not 1 <= args.students <= 60:
        parser.error("--students: from 1 to 60 (this machine has two cores)")
    chapters = [c.strip() for c in args.notebooks.split(",") if c.strip()]
    import tempfile

    with tempfile.TemporaryDirectory(prefix="class-hub-") as folder:
        print(f"{args.students} students, notebooks {', '.join(chapters)}"
              + (f" ({args.per_student} each)" if args.per_student else "")
              + f", {args.stagger:g} s apart, wall-time cap {args.wall:g} s"
              + (", every kernel left running" if args.keep_kernels else "") + "; "
              f"started {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
              flush=True)
        result = simulate(args.students, chapters, args.per_student, args.stagger, args.wall,
                          args.cell_timeout, pathlib.Path(folder), args.keep_kernels)
        print(describe(result, chapters))
        if args.json:
            args.json.write_text(json.dumps(as_json(result), indent=1, default=str))
        if args.hub_log:  # the hub's log and its students' servers': why something failed
            shutil.copy(pathlib.Path(folder) / "jupyterhub.log", args.hub_log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
