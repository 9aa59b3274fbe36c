"""Open the course: JupyterLab on the notebooks, with this environment's Python, offline.

    agentlab course                 # or: python -m agentlab course
    agentlab course --check         # check that it can start, say what it would run, and exit
    agentlab course -- --ip=0.0.0.0 # anything after -- goes to JupyterLab as it is

It installs nothing and downloads nothing, so a second run starts at once and works with no
network: JupyterLab's news feed and its update check (both fetched from the internet) are
switched off. JupyterLab refuses to start as root (a container, a cloud VM) unless told
--allow-root; the launcher passes that flag when it runs as root, and says so.

A teacher makes the copy to hand out, without the reference solutions, with student_copy()
(handout.py; docs/INSTRUCTORS.md, "Handing out a copy without the solutions"):

    agentlab course --student-copy ../students

"Offline" is JupyterLab's side: the notebooks themselves use a real, billed API when
OPENAI_API_KEY or OPENAI_BASE_URL is set in the environment (notebook 07 teaches this), so the
launcher says so when it sees one, before anything starts.

Left out on purpose: choosing a kernel (the notebooks run on the Python that runs this) and
any install step (that is the README's first command, run once).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import shutil
import sys
import tempfile

from agentlab.masking import mask

# JupyterLab options that keep it off the network: no news feed, no extension search in the
# package index, no check for a newer version.
OFFLINE_OPTIONS = ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
# JupyterLab's own settings for the course: news_url=None stops the feed, but JupyterLab still
# asks "get notified about official Jupyter news?" in a pop-up over the notebook until someone
# answers it. Its answer is a setting; these are given as defaults (a user's own settings win),
# in the folder JupyterLab reads defaults from (see lab_settings_folder).
LAB_DEFAULTS = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                                "checkForUpdates": False}}
LOADING_MESSAGE = "loading JupyterLab (the first start after installing can take half a minute) ..."
ROOT_MESSAGE = ("running as root: passing --allow-root to JupyterLab "
                "(it refuses to start as root without it)")


class CourseError(Exception):
    """The course cannot open here; the message says what to do."""


def find_notebooks(checkout: pathlib.Path | None = None, here: pathlib.Path | None = None
                   ) -> pathlib.Path:
    """The course's notebooks/ folder: the current folder's when it is a copy of the course
    (a student copy a teacher checks with their own environment opens itself, not the clone
    that environment was installed from), else beside the package (an `-e` install of a
    clone), else any notebooks/ folder here.

    Example: a clone at ~/agentlab -> ~/agentlab/notebooks, from whatever folder you are in;
             in ~/agentlab-students (a student copy) -> ~/agentlab-students/notebooks.
    """
    checkout = checkout or pathlib.Path(__file__).resolve().parents[2]  # agentlab/course/
    here = here or pathlib.Path.cwd()
    a_course_here = (here / "agentlab" / "course" / "launcher.py").is_file()
    for folder in ([here / "notebooks"] if a_course_here else []) + [checkout / "notebooks",
                                                                      here / "notebooks"]:
        if any(folder.glob("*.ipynb")):
            return folder
    raise CourseError("cannot find the course's notebooks/ folder: run this from the agentlab "
                      "folder (the one with notebooks/ and README.md)")


def online_note() -> str | None:
    """A line saying the notebooks will reach a real API, or None when they stay offline.

    Example: with OPENAI_API_KEY set -> "note: OPENAI_API_KEY is set, so the notebooks' connect()
             uses the real API, billed to that key; unset it for the offline tutor"
    """
    names = [name for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL") if os.environ.get(name)]
    if not names:
        return None
    where = "the server at OPENAI_BASE_URL" if "OPENAI_BASE_URL" in names else (
        "the real API, billed to that key")
    return (f"note: {' and '.join(names)} {'is' if len(names) == 1 else 'are'} set, so the "
            f"notebooks' connect() uses {where}; unset {'it' if len(names) == 1 else 'them'} "
            "for the offline tutor")


def running_as_root() -> bool:
    """True for root on Linux and macOS (Windows has no root and no --allow-root problem)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def lab_arguments(notebooks: pathlib.Path, *, as_root: bool, port: int | None = None,
                  open_browser: bool = True, extra: list[str] | tuple = ()) -> list[str]:
    """JupyterLab's command-line arguments for the course.

    Example: lab_arguments(Path("nb"), as_root=True, port=9000)
             -> ["--ServerApp.root_dir=nb", "--LabApp.news_url=None", ...,
                 "--port=9000", "--allow-root"]
    """
    arguments = [f"--ServerApp.root_dir={notebooks}", *OFFLINE_OPTIONS]
    if port is not None:
        arguments.append(f"--port={port}")
    if not open_browser:
        arguments.append("--no-browser")
    if as_root:
        arguments.append("--allow-root")
    return arguments + list(extra)


def lab_settings_folder(into: pathlib.Path, installed: pathlib.Path | None = None
                        ) -> pathlib.Path:
    """A copy of JupyterLab's application settings folder with the course's defaults added.

    JupyterLab reads defaults from <app settings>/overrides.d/*.json; the environment's own
    folder (<prefix>/share/jupyter/lab/settings) is copied as it is, so what another package
    put there still holds, and the course's file is added beside it.

    Example: lab_settings_folder(tmp) -> tmp/settings, holding overrides.d/agentlab-course.json
    """
    if installed is None:
        from jupyterlab.commands import get_app_dir

        installed = pathlib.Path(get_app_dir()) / "settings"
    folder = into / "settings"
    if installed.is_dir():
        shutil.copytree(installed, folder, dirs_exist_ok=True)  # a hub makes it at every start
    (folder / "overrides.d").mkdir(parents=True, exist_ok=True)
    # Written beside, then renamed into place: a hub reloading its config (or two at once) while
    # JupyterLab reads the file must never let it read a file cut short.
    ours = folder / "overrides.d" / "agentlab-course.json"
    with tempfile.NamedTemporaryFile("w", dir=ours.parent, suffix=".tmp", delete=False) as file:
        file.write(json.dumps(LAB_DEFAULTS, indent=1))
    os.chmod(file.name, 0o644)  # a temporary file is the owner's alone; students' servers read it
    os.replace(file.name, ours)
    return folder


def missing_packages() -> list[str]:
    """The packages the course needs to open that this Python cannot import."""
    return [name for name in ("jupyterlab", "ipykernel", "ipywidgets", "matplotlib")
            if importlib.util.find_spec(name) is None]


def open_course(*, port: int | None = None, open_browser: bool = True, check: bool = False,
                extra: list[str] | tuple = ()) -> int:
    """Start JupyterLab on the notebooks (until Ctrl-C), or with check=True only check it could."""
    missing = missing_packages()
    if missing:
        raise CourseError(f"{', '.join(missing)} not installed for {sys.executable}: run the "
                          "README's course command (it installs them into .venv), or "
                          "`python -m pip install -e .` in your environment")
    notebooks = find_notebooks()
    as_root = running_as_root()
    arguments = lab_arguments(notebooks, as_root=as_root, port=port, open_browser=open_browser,
                              extra=extra)
    if as_root:
        print(ROOT_MESSAGE, flush=True)
    if note := online_note():
        print(note, flush=True)
    # JupyterLab's import takes a second or two, and up to half a minute on the first start
    # after installing (nothing is cached yet): say what is happening meanwhile.
    print(LOADING_MESSAGE, flush=True)
    from jupyterlab import __version__ as lab_version
    from jupyterlab.labapp import LabApp

    if check:
        print(mask(f"ok: JupyterLab {lab_version} with {sys.executable}; `agentlab course` "
                   f"runs jupyter lab {' '.join(arguments)}"))  # options typed may hold a key
        return 0
    print(f"opening the course in JupyterLab {lab_version}: {notebooks} (Ctrl-C twice stops it)",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="agentlab-course-") as scratch:
        settings = lab_settings_folder(pathlib.Path(scratch))
        # First the course's settings folder, so that one given after -- still wins.
        LabApp.launch_instance(argv=[f"--LabApp.app_settings_dir={settings}", *arguments])
    return 0


# What a student copy leaves out, by path from the top of the checkout: the reference solutions,
# the tests (they read the solutions), the instructor's guide (it answers the open questions),
# and what a working checkout gathers (git history, virtual environment, the hub's proxy from
# npm, saved runs, builds).
