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
import signal
import sys
import urllib.parse

import pytest
import yaml

from agentlab.course.launcher import LAB_DEFAULTS, OFFLINE_OPTIONS

ROOT = pathlib.Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import class_hub  # noqa: E402

HUB_PACKAGES = ["jupyterhub", "jupyterhub_idle_culler", "nbgitpuller", "requests", "psutil"]


def deploy_config(class_password="a password for the room"):
    """deploy/jupyterhub_config.py as JupyterHub reads it: its traitlets config, and the file's
    own names (the limits, the culler's timeout)."""
    traitlets_config = pytest.importorskip("traitlets.config")
    config = traitlets_config.Config()
    names = {"get_config": lambda: config}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTLAB_CLASS_PASSWORD", class_password)
        exec(compile(class_hub.DEPLOY_CONFIG.read_text(), "jupyterhub_config.py", "exec"), names)
    return config, names


def test_the_hub_refuses_to_start_without_a_class_password():
    with pytest.raises(SystemExit, match="set AGENTLAB_CLASS_PASSWORD"):
        deploy_config(class_password="")
    config, _ = deploy_config()
    assert config.SharedPasswordAuthenticator.user_password == "a password for the room"


def test_the_one_server_config_and_kubernetes_values_agree():
    config, names = deploy_config()
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
    assert hub["JupyterHub"]["authenticator_class"] == config.JupyterHub.authenticator_class
    assert hub["Authenticator"]["admin_users"] == sorted(config.Authenticator.admin_users)


def test_students_servers_are_offline_as_agentlab_course_is():
    config, _ = deploy_config()
    values = yaml.safe_load((ROOT / "deploy" / "values.yaml").read_text())
    assert config.Spawner.args[:len(OFFLINE_OPTIONS)] == OFFLINE_OPTIONS
    # and the news question answered as `agentlab course` answers it (its setting's default)
    [settings] = [a.split("=", 1)[1] for a in config.Spawner.args
                  if a.startswith("--LabApp.app_settings_dir=")]
    ours = pathlib.Path(settings) / "overrides.d" / "agentlab-course.json"
    assert json.loads(ours.read_text()) == LAB_DEFAULTS
    assert values["hub"]["config"]["Spawner"]["args"] == OFFLINE_OPTIONS
    [settings] = values["singleuser"]["extraFiles"].values()
    assert settings["mountPath"].endswith("/share/jupyter/lab/settings/overrides.d/"
                                          "agentlab-course.json")
    assert settings["data"] == LAB_DEFAULTS
    # A key in the hub's environment does not reach the students' servers: JupyterHub passes
    # only the variables it keeps, and the class adds none.
    assert not any("OPENAI" in name for name in config.Spawner.get("env_keep", []))
    assert not config.Spawner.get("environment")


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
    repository = class_hub.course_repository(tmp_path)
    # A key in the hub's environment, as a careless teacher's shell might have.
    hub_environment = {"OPENAI_API_KEY": "set-in-the-hubs-shell"}
    with class_hub.running_hub(tmp_path, proxy, environment=hub_environment,
                               stop_seconds=3) as hub:
        culler = hub.api("/services/idle-culler").json()
        assert culler.get("pid"), f"the idle culler is not running: {culler}"

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

        # Notebook 01 as the student runs it, then a look around in its kernel.
        probe = ("import os\nfrom agentlab import connect\nprint(connect())\n"
                 "print(os.environ.get('OPENAI_API_KEY'), os.environ['MEM_LIMIT'])")
        run = student.run_notebook("01", cell_timeout=60, then=[probe])
        assert run.error is None and run.cells > 5
        assert run.differing == [], f"notebook 01's cells {run.differing} differ on the hub"
        printed = "".join(o.get("text", "") for o in run.then[0])
        assert "offline tutor" in printed
        assert printed.splitlines()[-1] == f"None {1024 ** 3}", "offline, with the class's limit"
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
