"""deploy/ as a teacher follows it: the Kubernetes values the chart accepts, the course in each
student's home, the commands of docs/INSTRUCTORS.md, The Littlest JupyterHub's settings.

The one-server configuration itself (deploy/jupyterhub_config.py) is tested in test_hub.py.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from agentlab.course import handout
from agentlab.course.launcher import LAB_DEFAULTS, OFFLINE_OPTIONS
from test_hub import deploy_config

ROOT = pathlib.Path(__file__).parent.parent
VALUES = ROOT / "deploy" / "values.yaml"
GUIDE = ROOT / "docs" / "INSTRUCTORS.md"
# The chart's own files for the version deploy/values.yaml pins: its values.schema.json (as the
# chart package publishes it) and its default values (tests/data/README.md says where from).
CHART = ROOT / "tests" / "data" / "z2jh-4.4.0"


def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


def helm_merge(defaults, ours):
    """Values as helm merges a values file into the chart's defaults: maps key by key, anything
    else (lists too) replaced; null deletes a default."""
    if not (isinstance(defaults, dict) and isinstance(ours, dict)):
        return ours
    merged = dict(defaults)
    for key, value in ours.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merge(defaults.get(key), value)
    return merged


def schema_errors(ours: dict) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((CHART / "values.schema.json").read_text())
    merged = helm_merge(yaml.safe_load((CHART / "values.yaml").read_text()), ours)
    validator = jsonschema.Draft7Validator(schema)
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(merged))


def test_the_kubernetes_values_are_valid_for_the_chart_they_pin():
    assert schema_errors(values()) == []
    # the check can fail: a misspelt key and a number where the chart wants a string
    wrong = values()
    wrong["singleuser"]["memory"]["limitt"] = "1G"
    wrong["singleuser"]["defaultUrl"] = 7
    assert len(schema_errors(wrong)) == 2


def helm_commands(text: str) -> list[str]:
    """Every `helm upgrade --install ...` command in a text, its continued lines joined (and
    a comment's leading '#' dropped)."""
    lines = [re.sub(r"^\s*#\s?", "", line) for line in text.splitlines()]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    return [line.strip() for line in joined.splitlines() if "helm upgrade --install" in line]


def test_the_helm_command_pins_the_chart_and_keeps_passwords_strings():
    # Unpinned, a newer chart could refuse these values; with --set a password of digits
    # became a number, which JupyterHub refuses.
    commands = helm_commands(VALUES.read_text()) + helm_commands(GUIDE.read_text())
    assert len(commands) >= 2, commands  # in the values file's header and in the guide
    version = CHART.name.removeprefix("z2jh-")
    for command in commands:
        assert f"--version {version}" in command, command
        passwords = re.findall(r"(--set\S*) hub\.config\.\S*password=", command)
        assert passwords and set(passwords) == {"--set-string"}, command


def poststart_command(repository: str) -> list[str]:
    """The image's postStart hook, with the image's course folder at `repository`."""
    command = values()["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert "file:///srv/agentlab-course" in command[-1]
    return [*command[:-1], command[-1].replace("file:///srv/agentlab-course", repository)]


def git(folder, *arguments):
    who = {"GIT_AUTHOR_NAME": "teacher", "GIT_AUTHOR_EMAIL": "teacher@localhost",
           "GIT_COMMITTER_NAME": "teacher", "GIT_COMMITTER_EMAIL": "teacher@localhost"}
    return subprocess.run(["git", *arguments], cwd=folder, check=True, capture_output=True,
                          text=True, env={**os.environ, **who}).stdout


def test_the_course_reaches_each_students_home_from_the_image(tmp_path):
    # The home volume mounted over /home/jovyan hid the image's notebooks, and the pods could
    # not reach a git host to clone them. The image keeps the course in /srv/agentlab-course
    # (a git repository, built with --target-repo-dir) and each start merges it into the home.
    gitpuller = shutil.which("gitpuller", path=str(pathlib.Path(sys.executable).parent))
    if gitpuller is None:
        pytest.skip("nbgitpuller is not installed: pip install -e '.[hub]'")
    image = handout.student_copy(tmp_path / "image", checkout=ROOT)
    git(image, "init", "-q", "-b", "main")
    git(image, "add", "-A")
    git(image, "commit", "-q", "-m", "the course")
    home = tmp_path / "home"
    home.mkdir()
    environment = {**os.environ, "HOME": str(home),
                   "PATH": f"{pathlib.Path(gitpuller).parent}{os.pathsep}{os.environ['PATH']}"}
    start = poststart_command(image.as_uri())
    subprocess.run(start, check=True, env=environment, capture_output=True, timeout=120)
    course = home / "agentlab-students"
    first = course / "notebooks" / "01_the_loop_by_hand.ipynb"
    assert first.exists() and not (course / "notebooks" / "solutions").exists()
    # A student's edit, then a new image with a new file: the next start keeps the edit and
    # brings the file.
    first.write_text(first.read_text().replace("{", '{"edited by the student": true,', 1))
    (image / "notebooks" / "10_new.ipynb").write_text("{}")
    git(image, "add", "-A")
    git(image, "commit", "-q", "-m", "a new notebook")
    subprocess.run(start, check=True, env=environment, capture_output=True, timeout=120)
    assert '"edited by the student": true' in first.read_text()
    assert (course / "notebooks" / "10_new.ipynb").exists()
    # A start never fails on the course: a pod whose postStart hook fails is killed.
    broken = poststart_command((tmp_path / "no-such-repository").as_uri())
    finished = subprocess.run(broken, env=environment, capture_output=True, text=True,
                              timeout=120)
    assert finished.returncode == 0 and "could not be updated" in finished.stderr


def test_the_guide_builds_the_image_where_the_hook_finds_it():
    guide = GUIDE.read_text()
    [build] = re.findall(r"repo2docker [^`]*?--image-name", guide, re.DOTALL)
    assert "--target-repo-dir /srv/agentlab-course" in build
    assert "--user-name jovyan" in build


def guide_block(containing: str) -> str:
    """The fenced shell block of docs/INSTRUCTORS.md that contains `containing`."""
    blocks = re.findall(r"```bash\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    [block] = [b for b in blocks if containing in b]
    return block


def test_the_guides_update_never_deletes_a_running_hubs_state(tmp_path):
    # The guide's `rsync --delete` update deleted a running hub's database from the
    # repository's folder.
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    update = guide_block("agentlab-students-new")
    assert "rsync" not in update
    update = "\n".join(line for line in update.splitlines() if not line.endswith(" push"))
    old = handout.student_copy(tmp_path / "agentlab-students", checkout=ROOT)
    git(old, "init", "-q", "-b", "main")
    (old / "notebooks" / "99_dropped.ipynb").write_text("{}")
    git(old, "add", "-A")
    git(old, "commit", "-q", "-m", "the course")
    state = ["jupyterhub.sqlite", "jupyterhub_cookie_secret"]
    for name in state:  # a hub started here (before its state moved out)
        (old / name).write_text("the running hub's")
    course = tmp_path / "course"
    shutil.copytree(ROOT, course, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".node", "__pycache__", "*.egg-info", ".pytest_cache"))
    subprocess.run(["bash", "-euo", "pipefail", "-c", update], cwd=course, check=True,
                   capture_output=True, timeout=120, env={
                       **os.environ, "PATH": f"{pathlib.Path(sys.executable).parent}"
                                             f"{os.pathsep}{os.environ['PATH']}",
                       "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost",
                       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost"})
    assert all((old / name).read_text() == "the running hub's" for name in state)
    assert not (old / "notebooks" / "99_dropped.ipynb").exists()  # what the course dropped
    committed = git(old, "ls-files").split()
    assert "notebooks/01_the_loop_by_hand.ipynb" in committed
    assert not set(state) & set(committed) and "notebooks/99_dropped.ipynb" not in committed


def test_the_littlest_jupyterhub_gets_the_offline_settings_tljh_config_cannot_give(tmp_path):
    config_module = pytest.importorskip("traitlets.config")
    config = config_module.Config()
    snippet = ROOT / "deploy" / "tljh_agentlab.py"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLJH_USER_ENVIRONMENT", str(tmp_path / "user"))
        exec(compile(snippet.read_text(), str(snippet), "exec"), {"get_config": lambda: config})
    _, one_server = deploy_config(tmp_path)
    assert config.Spawner.args == OFFLINE_OPTIONS + one_server["KERNEL_CULLING"]
    overrides = tmp_path / "user" / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    assert json.loads((overrides / "agentlab-course.json").read_text()) == LAB_DEFAULTS
    assert (json.loads((overrides / "agentlab-hub.json").read_text())
            == one_server["HUB_LAB_DEFAULTS"])


def test_the_littlest_jupyterhub_path_keeps_the_hub_extra_out_of_the_students_environment():
    # `pip install ".[hub]"` into TLJH's user environment put JupyterHub 5 beside TLJH's hub.
    guide = GUIDE.read_text()
    installs = re.findall(r"/opt/tljh/user/bin/pip install [^`\n]*", guide)
    assert installs, "the guide installs the course into TLJH's user environment"
    assert all("[hub]" not in line and "-e" not in line.split() for line in installs), installs
    section = guide[guide.index("### The Littlest JupyterHub"):]
    section = section[:section.index("\n### ", 1)]
    # its login admits nobody until the teacher adds them: said, with the way to add them
    assert "users.allowed" in section and "tljh_agentlab.py" in section


def test_every_engine_gets_the_same_limits(tmp_path):
    _, one_server = deploy_config(tmp_path)
    guide = GUIDE.read_text()
    assert f"tljh-config set limits.memory {one_server['MEMORY_LIMIT']}" in guide
    assert f"tljh-config set limits.cpu {one_server['CPU_LIMIT']:g}" in guide
    assert f"services.cull.timeout {one_server['IDLE_TIMEOUT_SECONDS']}" in guide
