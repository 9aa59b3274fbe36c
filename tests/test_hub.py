"""deploy/: the class's JupyterHub configuration starts a hub that serves a student the course.

The hub test starts deploy/jupyterhub_config.py's hub on loopback ports (the dummy login and
SimpleLocalProcessSpawner instead of the class password and systemd, as benchmarks/class_hub.py
does), logs one student in, starts their server, hands out the student copy with nbgitpuller
and runs notebook 01 in it. It needs the `hub` extra and configurable-http-proxy from npm
(`npm install --prefix .node configurable-http-proxy`); without them it skips and says so.
CI installs both (.ci/run).
"""

import asyncio
import importlib.util
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.parse

import pytest
import yaml

from agentlab.course.launcher import LAB_DEFAULTS, OFFLINE_OPTIONS

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import class_hub  # noqa: E402

HUB_PACKAGES = ["jupyterhub", "jupyterhub_idle_culler", "nbgitpuller", "requests", "psutil"]


def deploy_config(folder, class_password="a password for the room", spawner=None,
                  systemd=True, state=None):
    """deploy/jupyterhub_config.py as JupyterHub reads it, as root on a machine with systemd
    (or without, `systemd=False`), its state in `folder`: its traitlets config, and the file's
    own names (the limits, the culler's timeout)."""
    traitlets_config = pytest.importorskip("traitlets.config")
    pytest.importorskip("jupyterhub", reason="the hub extra: pip install -e '.[hub]'")
    config = traitlets_config.Config()
    names = {"get_config": lambda: config, "__file__": str(class_hub.DEPLOY_CONFIG)}
    is_dir = os.path.isdir
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLAB_CLASS_PASSWORD", class_password)
        patch.setenv("AGENTLAB_HUB_STATE", str(state or folder / "hub-state"))
        if spawner is None:
            patch.delenv("AGENTLAB_SPAWNER", raising=False)
        else:
            patch.setenv("AGENTLAB_SPAWNER", spawner)
        # systemd's own test that it runs, answered for this machine (a container has none)
        patch.setattr(os.path, "isdir", lambda path: systemd if path == "/run/systemd/system"
                      else is_dir(path))
        patch.setattr(os, "geteuid", lambda: 0, raising=False)  # the hub runs as root
        exec(compile(class_hub.DEPLOY_CONFIG.read_text(), str(class_hub.DEPLOY_CONFIG), "exec"),
             names)
    return config, names


def test_the_hub_refuses_to_start_without_a_class_password(tmp_path):
    with pytest.raises(SystemExit, match="set AGENTLAB_CLASS_PASSWORD"):
        deploy_config(tmp_path, class_password="")
    config, _ = deploy_config(tmp_path)
    assert config.SharedPasswordAuthenticator.user_password == "a password for the room"


def test_without_systemd_the_hub_says_so_in_one_line_at_start(tmp_path):
    # It started, and every student waited out the 180 s start timeout to read "Spawn failed:".
    with pytest.raises(SystemExit) as stopped:
        deploy_config(tmp_path, systemd=False)
    message = str(stopped.value)
    assert "systemd is not running on this machine" in message and "\n" not in message
    config, _ = deploy_config(tmp_path, systemd=True)
    assert config.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"


def test_a_systemd_server_finds_this_environments_commands_and_can_write_the_exchange(tmp_path):
    """A systemd unit keeps no PATH from the hub, and a dynamic user sees the machine read-only:
    without these, `python` and `nbgrader` are not found in a server's terminal, nbgrader cannot
    run alembic, and no release or submit can write the exchange."""
    config, names = deploy_config(tmp_path, systemd=True)
    bin_folder = pathlib.Path(sys.executable).parent
    assert config.SystemdSpawner.extra_paths == [str(bin_folder)]
    for command in ("python", "jupyterhub-singleuser"):
        assert (bin_folder / command).exists(), command
    assert config.SystemdSpawner.readwrite_paths == [str(names["EXCHANGE"])]


def test_a_same_user_spawner_only_when_asked_for_by_name_with_its_risk(tmp_path, capsys):
    # Every student's kernel as the hub's own user reads the hub's passwords, its cookie secret
    # and database, and every other student's files: never by accident.
    with pytest.raises(SystemExit, match="not a spawner this file knows.*same-user.*cookie secret"):
        deploy_config(tmp_path, spawner="local")
    config, _ = deploy_config(tmp_path, spawner="same-user", systemd=False)
    assert config.JupyterHub.spawner_class == "jupyterhub.spawner.SimpleLocalProcessSpawner"
    risk = capsys.readouterr().err
    for danger in ("class and teacher passwords", "cookie secret", "every other student's files",
                   "the solutions", "never for a class"):
        assert danger in risk
    homes = config.SimpleLocalProcessSpawner.home_dir_template
    assert homes.startswith(str(tmp_path / "hub-state"))


def test_the_hubs_state_is_kept_outside_the_course(tmp_path):
    # Started in a student copy's folder, the hub wrote jupyterhub_cookie_secret and
    # jupyterhub.sqlite there, and `git add -A` published them: a forged admin cookie.
    config, names = deploy_config(tmp_path)
    state = tmp_path / "hub-state"
    assert config.JupyterHub.cookie_secret_file == str(state / "jupyterhub_cookie_secret")
    assert config.JupyterHub.db_url == f"sqlite:///{state / 'jupyterhub.sqlite'}"
    assert config.ConfigurableHTTPProxy.pid_file == str(state / "jupyterhub-proxy.pid")
    assert state.stat().st_mode & 0o777 == 0o700  # root's alone
    assert names["COURSE_FOLDER"] == ROOT
    with pytest.raises(SystemExit, match="lies inside the course's folder"):
        deploy_config(tmp_path, state=ROOT / "hub-state")
    assert not (ROOT / "hub-state").exists()


@pytest.mark.parametrize("typed, name", [
    ("ada", "ada"), ("John Smith", "john-smith"), ("josé", "jose"), ("teacher", "teacher"),
    ("  Zoë_O'Brien ", "zoe-o-brien"), ("李", ""), ("2pac", "2pac"), ("a" * 40, "a" * 40)])
def test_user_names_are_written_as_systemd_takes_them(tmp_path, typed, name):
    # "john smith" and "josé" went unescaped into a systemd unit's name and a user's name.
    pytest.importorskip("jupyterhub")
    config, names = deploy_config(tmp_path)
    assert names["systemd_user_name"](typed) == name
    authenticator = config.JupyterHub.authenticator_class(config=config)
    normalized = authenticator.normalize_username(typed)
    assert normalized == name
    # what systemd takes: a user's name of lowercase letters, digits and dashes, a letter
    # first, 31 characters at most; refused at login otherwise
    valid = re.fullmatch(r"[a-z][a-z0-9-]{0,30}", normalized) is not None
    assert authenticator.validate_username(normalized) == valid
    assert valid == (name not in ("", "2pac") and len(name) <= 31)


def test_a_student_logs_in_with_a_name_systemd_cannot_take_as_it_is(tmp_path):
    pytest.importorskip("jupyterhub")
    config, _ = deploy_config(tmp_path)
    authenticator = config.JupyterHub.authenticator_class(config=config)
    user = asyncio.run(authenticator.get_authenticated_user(
        None, {"username": "José Smith", "password": "a password for the room"}))
    assert user["name"] == "jose-smith"
    assert asyncio.run(authenticator.get_authenticated_user(
        None, {"username": "李", "password": "a password for the room"})) is None


def test_idle_kernels_are_shut_down_and_closing_a_notebook_ends_its_kernel(tmp_path):
    # JupyterLab keeps every opened notebook's kernel running: ten after notebooks 01 to 09,
    # which the memory limit killed around notebook 06.
    config, names = deploy_config(tmp_path)
    culling = names["KERNEL_CULLING"]
    assert culling == ["--MappingKernelManager.cull_idle_timeout=1800",
                       "--MappingKernelManager.cull_interval=300",
                       "--MappingKernelManager.cull_connected=True"]
    assert all(option in config.Spawner.args for option in culling)
    assert names["KERNEL_IDLE_SECONDS"] < names["IDLE_TIMEOUT_SECONDS"]
    [settings] = [a.split("=", 1)[1] for a in config.Spawner.args
                  if a.startswith("--LabApp.app_settings_dir=")]
    ours = pathlib.Path(settings) / "overrides.d" / "agentlab-hub.json"
    assert json.loads(ours.read_text()) == names["HUB_LAB_DEFAULTS"] == {
        "@jupyterlab/notebook-extension:tracker": {"kernelShutdown": True}}


def test_the_one_server_config_and_kubernetes_values_agree(tmp_path):
    config, names = deploy_config(tmp_path)
    values = yaml.safe_load((ROOT / "deploy" / "values.yaml").read_text())
    single = values["singleuser"]
    assert single["memory"] == {"guarantee": config.Spawner.mem_guarantee,
                                "limit": config.Spawner.mem_limit}
    assert single["cpu"] == {"guarantee": config.Spawner.cpu_guarantee,
                             "limit": config.Spawner.cpu_limit}
    assert config.SystemdSpawner.unit_extra_properties["MemoryLow"] == config.Spawner.mem_guarantee
    assert values["cull"]["enabled"] and values["cull"]["timeout"] == names["IDLE_TIMEOUT_SECONDS"]
    culler = config.JupyterHub.services[0]["command"]
    assert f"--timeout={names['IDLE_TIMEOUT_SECONDS']}" in culler
    assert f"--cull-every={values['cull']['every']}" in culler
    assert single["defaultUrl"] == config.Spawner.default_url
    assert single["startTimeout"] == config.Spawner.start_timeout
    hub = values["hub"]["config"]
    # the same login; on one server its user names are written as systemd takes them
    assert hub["JupyterHub"]["authenticator_class"] == "shared-password"
    shared = pytest.importorskip("jupyterhub.authenticators.shared")
    assert issubclass(config.JupyterHub.authenticator_class, shared.SharedPasswordAuthenticator)
    assert hub["Authenticator"]["admin_users"] == sorted(config.Authenticator.admin_users)
    # the same kernel culling and JupyterLab defaults
    assert hub["Spawner"]["args"] == OFFLINE_OPTIONS + names["KERNEL_CULLING"]
    files = single["extraFiles"]
    assert files["agentlab-hub-settings"]["data"] == names["HUB_LAB_DEFAULTS"]
    assert files["agentlab-hub-settings"]["mountPath"].endswith("/overrides.d/agentlab-hub.json")


def test_students_servers_are_offline_as_agentlab_course_is(tmp_path):
    config, _ = deploy_config(tmp_path)
    values = yaml.safe_load((ROOT / "deploy" / "values.yaml").read_text())
    assert config.Spawner.args[:len(OFFLINE_OPTIONS)] == OFFLINE_OPTIONS
    # and the news question answered as `agentlab course` answers it (its setting's default)
    [settings] = [a.split("=", 1)[1] for a in config.Spawner.args
                  if a.startswith("--LabApp.app_settings_dir=")]
    ours = pathlib.Path(settings) / "overrides.d" / "agentlab-course.json"
    assert json.loads(ours.read_text()) == LAB_DEFAULTS
    assert values["hub"]["config"]["Spawner"]["args"][:len(OFFLINE_OPTIONS)] == OFFLINE_OPTIONS
    settings = values["singleuser"]["extraFiles"]["agentlab-course-settings"]
    assert settings["mountPath"].endswith("/share/jupyter/lab/settings/overrides.d/"
                                          "agentlab-course.json")
    assert settings["data"] == LAB_DEFAULTS
    # A key in the hub's environment does not reach the students' servers: JupyterHub passes
    # only the variables it keeps, and the class adds none.
    assert not any("OPENAI" in name for name in config.Spawner.get("env_keep", []))
    # the class adds only where nbgrader's config and exchange are (test_the_teacher_grades...)
    assert sorted(config.Spawner.environment) == ["AGENTLAB_EXCHANGE", "JUPYTER_CONFIG_PATH"]


class FakeSpawner:
    """What the hub's pre-spawn hook reads and sets of a server about to start."""

    def __init__(self, config, name):
        self.user = type("User", (), {"name": name})()
        self.environment = dict(config.Spawner.environment)
        self.args = list(config.Spawner.args)


def test_the_teacher_grades_with_nbgrader_and_the_students_cannot(tmp_path, monkeypatch):
    config, names = deploy_config(tmp_path)
    exchange = tmp_path / "agentlab-exchange"  # beside the hub's state, unless asked elsewhere
    assert names["EXCHANGE"] == exchange and exchange.stat().st_mode & 0o7777 == 0o1777
    assert config.Spawner.environment == {"JUPYTER_CONFIG_PATH": str(ROOT / "deploy"),
                                          "AGENTLAB_EXCHANGE": str(exchange)}
    teacher, student = FakeSpawner(config, "teacher"), FakeSpawner(config, "ada")
    for spawner in (teacher, student):
        config.Spawner.pre_spawn_hook(spawner)
    # The course's folder (the solutions, the hand-ins, the gradebook): the teacher's alone.
    assert teacher.environment["AGENTLAB_NBGRADER_COURSE"] == "~/agentlab-course"
    assert "AGENTLAB_NBGRADER_COURSE" not in student.environment
    off = ["--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=False",
           "--ServerApp.jpserver_extensions=nbgrader.server_extensions.course_list=False"]
    assert student.args[-2:] == off and not set(off) & set(teacher.args)
    # every server reads deploy/nbgrader_config.py: the course, the exchange, the stub
    nbgrader_config = ROOT / "deploy" / "nbgrader_config.py"
    for spawner in (teacher, student):
        for name, value in spawner.environment.items():
            monkeypatch.setenv(name, value)
        if "AGENTLAB_NBGRADER_COURSE" not in spawner.environment:
            monkeypatch.delenv("AGENTLAB_NBGRADER_COURSE", raising=False)
        traitlets_config = pytest.importorskip("traitlets.config")
        read = traitlets_config.Config()
        exec(compile(nbgrader_config.read_text(), str(nbgrader_config), "exec"),
             {"get_config": lambda: read})
        assert read.CourseDirectory.course_id == "agentlab"
        assert read.Exchange.root == str(exchange)
        assert read.ClearSolutions.code_stub == {"python": "..."}
        root = read.CourseDirectory.get("root")
        if spawner is teacher:
            assert root == str(pathlib.Path("~/agentlab-course").expanduser())
        else:
            assert root is None


def needs_the_hub():
    for module in HUB_PACKAGES:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: pip install -e '.[hub]'")
    proxy = class_hub.proxy_command()
    if proxy is None:
        pytest.skip("configurable-http-proxy not found: "
                    "npm install --prefix .node configurable-http-proxy (needs npm)")
    return proxy


@pytest.mark.long
def test_the_hub_serves_a_student_the_course(tmp_path):
    proxy = needs_the_hub()
    limit = deploy_config(tmp_path / "config")[1]["MEMORY_LIMIT"]  # "1G", as JupyterHub reads it
    limit = int(float(limit[:-1]) * 1024 ** ("KMG".index(limit[-1]) + 1))
    repository = class_hub.course_repository(tmp_path)
    # A key in the hub's environment, as a careless teacher's shell might have.
    hub_environment = {"OPENAI_API_KEY": "set-in-the-hubs-shell"}
    with class_hub.running_hub(tmp_path, proxy, environment=hub_environment,
                               stop_seconds=3) as hub:
        culler = hub.api("/services/idle-culler").json()
        assert culler.get("pid"), f"the idle culler is not running: {culler}"
        # Its state in a folder of its own, none in the folder it was started from.
        state = ["jupyterhub.sqlite", "jupyterhub_cookie_secret", "jupyterhub-proxy.pid"]
        assert all((tmp_path / "hub-state" / name).exists() for name in state)
        assert not any((tmp_path / name).exists() for name in state)

        student = class_hub.Student(hub, "ada")
        student.log_in()
        student.start_server(seconds=60)
        student.pull(repository)
        # The hand-out link of docs/INSTRUCTORS.md, as a student's browser follows it: through
        # the hub to their own server's nbgitpuller page (which then pulls, as above).
        link = f"{hub.url}/hub/user-redirect/git-pull?" + urllib.parse.urlencode({
            "repo": repository, "branch": "main",
            "urlpath": f"lab/tree/{class_hub.COURSE_FOLDER}/notebooks/01_the_loop_by_hand.ipynb"})
        page = student.web.get(link, timeout=60)
        assert page.status_code == 200 and page.url.startswith(f"{hub.url}/user/ada/git-pull?")
        folder = f"{class_hub.COURSE_FOLDER}/notebooks"
        notebooks = student.listing(folder)
        assert {"01_the_loop_by_hand.ipynb", "05_the_limits_playground.ipynb"} <= set(notebooks)
        assert "solutions" not in notebooks, "the hand-out must not carry the solutions"

        # No pop-up asking about Jupyter's news over the notebook: the answer is a default.
        setting = student.web.get(f"{hub.url}/user/ada/lab/api/settings/"
                                  "@jupyterlab/apputils-extension:notification", timeout=30)
        assert setting.json()["schema"]["properties"]["fetchNews"]["default"] == "false"
        # Closing a notebook's tab ends its kernel, as a default the student can change.
        setting = student.web.get(f"{hub.url}/user/ada/lab/api/settings/"
                                  "@jupyterlab/notebook-extension:tracker", timeout=30)
        assert setting.json()["schema"]["properties"]["kernelShutdown"]["default"] is True

        # nbgrader's formgrader (the gradebook, every hand-in) is the teacher's alone.
        formgrader = student.web.get(f"{hub.url}/user/ada/formgrader", timeout=30)
        assert formgrader.status_code == 404, "a student's server serves the formgrader"

        # Notebook 01 as the student runs it, then a look around in its kernel.
        probe = ("import os\nfrom agentlab import connect\nprint(connect())\n"
                 "print(os.environ.get('OPENAI_API_KEY'), os.environ['MEM_LIMIT'])")
        # the server that runs this kernel was told to shut idle kernels down
        server = ("import os, pathlib\n"
                  "print(pathlib.Path(f'/proc/{os.getppid()}/cmdline').read_bytes().split(b'\\0'))")
        run = student.run_notebook("01", cell_timeout=60, then=[probe, server])
        assert run.error is None and run.cells > 5
        assert run.differing == [], f"notebook 01's cells {run.differing} differ on the hub"
        printed = "".join(o.get("text", "") for o in run.then[0])
        assert "offline tutor" in printed
        assert printed.splitlines()[-1] == f"None {limit}", "offline, with the class's limit"
        command = "".join(o.get("text", "") for o in run.then[1])
        assert "--MappingKernelManager.cull_idle_timeout=1800" in command, command
        # A hub stuck in its clean-up, as one was on a loaded machine: it is killed after
        # stop_seconds, and its proxy, idle culler and the student's server, which run in
        # sessions of their own, were left running. The test's stop ends them too.
        os.kill(hub.process.pid, signal.SIGSTOP)
    assert len(hub.started) >= 3, "the proxy, the idle culler and ada's server were noted"
    assert all(class_hub.ended(p) for p in hub.started), "the hub left processes running"


def test_ci_installs_what_the_hub_test_needs():
    script = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[test,compat,hub]"' in script
    # where class_hub.proxy_command() looks first: .node/node_modules/.bin/
    assert re.search(r"npm install --prefix \.node .*configurable-http-proxy", script)
    assert re.search(r"missing\+=\(npm\)", script), "CI installs npm where it is missing"


def test_the_simulation_shares_the_notebooks_out_and_reads_binary_frames():
    chapters = ["01", "02", "03", "04a"]
    assert class_hub.notebooks_for(0, chapters, None) == chapters
    shares = [class_hub.notebooks_for(i, chapters, 2) for i in range(3)]
    assert shares == [["01", "02"], ["01", "03"], ["01", "04a"]]  # each chapter run by someone
    # A message with buffers (a widget's PNG) comes as a binary frame: count, offsets, JSON.
    message = b'{"header": {}}'
    frame = (2).to_bytes(4, "big") + (12).to_bytes(4, "big") + (26).to_bytes(4, "big")
    assert class_hub._message_part(frame + message + b"\x89PNG") == message
    assert class_hub._message_part('{"a": 1}') == '{"a": 1}'


def test_outputs_are_compared_as_nbval_compares_them():
    rules = class_hub.sanitizers()
    saved = [{"output_type": "stream", "name": "stdout", "text": ["took 0.2 s\n"]}]
    assert class_hub.text_of(saved, rules) == class_hub.text_of(
        [{"output_type": "stream", "name": "stdout", "text": "took 1.7 s\n"}], rules)
    assert class_hub.text_of(saved, rules) != class_hub.text_of(
        [{"output_type": "stream", "name": "stdout", "text": "took 1.7 s!\n"}], rules)


def test_a_kernel_that_dies_mid_cell_is_reported_not_waited_for():
    # When a kernel process dies, its server restarts it and says so on the websocket; the
    # cell's reply never comes. The simulation must say so at once, not wait out its timeout.
    class DyingKernel:
        def write_message(self, text):
            pass

        async def read_message(self):
            await asyncio.sleep(0.01)  # a real socket waits: the timeout below can fire
            return json.dumps({"header": {"msg_type": "status"}, "parent_header": {},
                               "content": {"execution_state": "restarting"}})

    student = class_hub.Student.__new__(class_hub.Student)
    student.name = "ada"
    with pytest.raises(ConnectionError, match="the kernel died"):
        asyncio.run(asyncio.wait_for(student._cell(DyingKernel(), "session", "print(1)"), 5))


def test_the_simulation_measures_a_students_kernels_by_their_shared_memory(tmp_path):
    # benchmarks/class_hub.py --keep-kernels: the sizing table counts the kernels a student
    # leaves open, measured as PSS (a page shared by ten kernels counts once, not ten times).
    import subprocess

    def start(*extra):
        return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()", *extra],
                                stdin=subprocess.PIPE, env={**os.environ,
                                                            "JUPYTERHUB_USER": "probe-31"})

    server, kernel = start(), start("ipykernel_launcher")
    try:
        deadline = class_hub.time.monotonic() + 10
        while class_hub.memory_now("probe-31")[1] < 1 and class_hub.time.monotonic() < deadline:
            class_hub.time.sleep(0.05)
        megabytes, kernels = class_hub.memory_now("probe-31")
        assert kernels == 1 and 2 < megabytes < 200  # two small Pythons
        assert class_hub.memory_now("nobody-31") == (0.0, 0)
    finally:
        for process in (server, kernel):
            process.communicate(b"")
    report = class_hub.StudentReport("ada", kept=[("01", 1, 190.4), ("02", 2, 300.0)])
    other = class_hub.StudentReport("bob", kept=[("01", 1, 200.6)])
    table = class_hub.kept_kernels_table([report, other], ["01", "02", "03"])
    assert table.splitlines()[2:] == ["    01       1       196     201",
                                      "    02       2       300     300"]


def unit_started_for(config, name, monkeypatch):
    """What SystemdSpawner hands to systemd-run for `name`'s server: its command, its
    environment and its unit's properties (systemd-run itself, which needs a running systemd,
    is not called; the spawner is told the unit runs once it has asked for it)."""
    from unittest import mock

    from jupyterhub.objects import Hub, Server
    from systemdspawner import SystemdSpawner, systemd

    asked = {}

    async def start_transient_service(unit_name, cmd, args, working_dir,
                                      environment_variables=None, properties=None, **kwargs):
        asked.update(unit=unit_name, command=[*cmd, *args], directory=working_dir,
                     environment=environment_variables, properties=properties)

    async def running(unit_name):
        return bool(asked)

    async def no(unit_name):
        return False

    for name_, fake in (("start_transient_service", start_transient_service),
                        ("service_running", running), ("service_failed", no),
                        ("reset_service", no)):
        monkeypatch.setattr(systemd, name_, fake)
    user = mock.Mock(escaped_name=name, url=f"/user/{name}/", id=1, server=Server())
    user.name = name
    spawner = SystemdSpawner(config=config, user=user, hub=Hub(), api_token="a-token",
                             oauth_client_id=f"jupyterhub-user-{name}")
    config.Spawner.pre_spawn_hook(spawner)
    asyncio.run(spawner.start())
    return asked


def test_the_units_the_spawner_asks_systemd_for_are_units_systemd_reads(tmp_path, monkeypatch):
    """No systemd runs here, but its own checker does: every property the class's spawner sets
    (limits, the exchange made writable, the dynamic user) is one `systemd-analyze verify`
    knows and can parse, and each server's PATH finds this environment's python and nbgrader."""
    pytest.importorskip("systemdspawner", reason="the hub extra: pip install -e '.[hub]'")
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    config, names = deploy_config(tmp_path)
    for name in ("teacher", "ada"):
        asked = unit_started_for(config, name, monkeypatch)
        assert asked["environment"]["PATH"].split(":")[0] == str(pathlib.Path(sys.executable)
                                                                  .parent)
        assert ("AGENTLAB_NBGRADER_COURSE" in asked["environment"]) == (name == "teacher")
        lines = ["[Service]", "ExecStart=" + " ".join(shlex.quote(w) for w in asked["command"]),
                 f"WorkingDirectory={asked['directory']}"]
        for key, value in asked["properties"].items():
            lines += [f"{key}={v}" for v in (value if isinstance(value, list) else [value])]
        assert f"ReadWriteDirectories={names['EXCHANGE']}" in lines
        unit = tmp_path / f"{asked['unit']}.service"
        unit.write_text("\n".join(lines) + "\n")
        done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
        said = done.stdout + done.stderr
        assert done.returncode == 0 and not re.search(
            r"Unknown|Failed to parse|Invalid|ignoring|not a valid|bad", said, re.I), said
