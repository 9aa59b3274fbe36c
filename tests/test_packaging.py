"""environment.yml and pyproject.toml list the same packages with the same lower bounds.

(That CI runs the README's test command is checked in test_quickstart.py.)
"""

import pathlib
import re
import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the check needs to run on one version only

import yaml

ROOT = pathlib.Path(__file__).parent.parent
CONDA_NAMES = {"tzdata": "python-tzdata"}  # where conda-forge's name differs from PyPI's


def parse(requirement: str) -> tuple[str, str]:
    name, _, bound = re.match(r"([A-Za-z0-9_.-]+)\s*((>=)\s*[\w.]+)?", requirement).groups()[:3]
    return name.lower(), requirement[len(name):].strip()


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    requirements = project["dependencies"] + extras["test"] + extras["hub"]
    wanted = dict(parse(r) for r in requirements)
    wanted = {CONDA_NAMES.get(name, name): bound for name, bound in wanted.items()}

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = {}
    for dep in env["dependencies"]:
        for item in dep["pip"] if isinstance(dep, dict) else [dep]:
            if not item.startswith((".", "-e")):
                name, bound = parse(item)
                listed[name] = bound
    assert listed.pop("python") == project["requires-python"] and listed.pop("pip") == ""
    assert listed == wanted
    pip = next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]
    assert ".[test,hub]" in pip


def test_environment_yml_installs_the_course_as_a_plain_package():
    # repo2docker builds the Kubernetes image from environment.yml; an editable install there
    # points into /home/jovyan (or the repository's folder), and the student's home volume,
    # mounted over /home/jovyan, hid it: `import agentlab` failed in every student's kernel.
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]
    local = [item for item in pip if item.lstrip("-e ").startswith(".")]
    assert local == [".[test,hub]"], f"the course, installed as a plain package: {local}"
    assert not any(item.startswith(("-e", "--editable")) for item in pip)


def test_bounds_are_lower_bounds_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for requirement in project["dependencies"] + extras["test"] + extras["hub"]:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+>=[\d.]+", requirement), requirement
    assert project["requires-python"] == ">=3.10"

