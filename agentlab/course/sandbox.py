"""A sandbox for a hand-in's code while it is graded: it sees the course's Python and nothing else.

    sandbox = Sandbox()                                  # needs bubblewrap (`bwrap`)
    sandbox.wrap([python, "-I", "-m", "agentlab.course.handin"])
    # -> ["bwrap", "--unshare-all", ..., python, "-I", "-m", "agentlab.course.handin"]

Autograde runs a student's code: their notebook in a kernel, their loop and exercise answers in
the grading process (agentlab.course.handin). Run as the teacher, that code could read the
solutions, the gradebook and every other hand-in, write into the gradebook, or use the hub
token in the teacher's environment. bubblewrap (Debian's `bubblewrap`, the sandbox Flatpak
uses; no root needed) starts each of them in namespaces of their own, where the file system
holds only the system's programs and libraries, this Python and its packages, and an empty
/tmp that is also their home: the teacher's home, with the course in it, is not there at all.
No network, no other process to see or signal, an environment made from nothing (no key, no
token), and when the sandbox's first process ends, everything it started ends with it.

A kernel must still talk to the teacher's autograde: it gets one folder of its own, shared
with the teacher's side, for the connection file and the kernel's sockets (jupyter_client's
`ipc` transport: Unix sockets, so the kernel needs no network).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

# What a hand-in may know of the environment it is graded in: its language and clock, and the
# course's own settings; nothing else (no key, no hub token, no course path).
PASSED_ON = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "AGENTLAB_CLOCK", "AGENTLAB_MODEL",
             "AGENTLAB_PRICED_AS")
# The system's programs and libraries (a link, as on a merged-/usr system, stays a link).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
# Of /etc, what Python, its libraries and fonts read; no other file of the machine's settings.
SETTINGS = ("/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime",
            "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/fonts",
            "/etc/mime.types", "/etc/ssl")
HOME = "/tmp"  # the sandbox's own empty /tmp, its cwd and home


class SandboxError(Exception):
    """The sandbox cannot be used here; the message says what to install or set."""


def environment() -> dict[str, str]:
    """A hand-in's environment, made from nothing but what PASSED_ON names and a PATH that
    finds this environment's commands."""
    env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    env["PATH"] = os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.defpath])
    return env


def python_folders() -> list[str]:
    """The folders this Python and agentlab are read from: the environment, the Python it was
    made from, and agentlab's own folder (an editable install reads it from a clone, whose
    solutions must stay out of reach: only the package's folder goes in)."""
    import site

    import agentlab

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
               str(pathlib.Path(agentlab.__file__).resolve().parent),
               str(pathlib.Path(sys.executable).resolve().parent.parent)}
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        folders.add(site.getusersitepackages())  # packages installed with pip --user
    return sorted(f for f in folders if not f.startswith(SYSTEM))


class Sandbox:
    """bubblewrap's command line for a hand-in's process."""

    def __init__(self, bwrap: str | None = None):
        self.bwrap = bwrap or shutil.which("bwrap")
        if self.bwrap is None:
            raise SandboxError(
                "bubblewrap is not installed: `sudo apt install bubblewrap` (Debian, Ubuntu), "
                "or set c.GradeOutsideTheKernel.sandbox = False to grade without it, where a "
                "hand-in's code can read everything you can (docs/INSTRUCTORS.md)")

    def check(self) -> None:
        """SandboxError unless bubblewrap can make its sandbox here: where user namespaces are
        off (some containers, some kernels' settings), it is installed but cannot."""
        done = subprocess.run(self.wrap([sys.executable, "-I", "-c", "pass"]),
                              capture_output=True, text=True, timeout=60, env=environment())
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["nothing said"])[-1]
            why = (": it needs user namespaces, which this machine or container does not allow"
                   if re.search(r"namespace|permi", said, re.I) else "")
            raise SandboxError(
                f"bubblewrap cannot make its sandbox on this machine ({said}){why}. Grade on a "
                "machine where it can, or set c.GradeOutsideTheKernel.sandbox = False, where a "
                "hand-in's code can read everything you can (docs/INSTRUCTORS.md)")

    def wrap(self, command: list[str], *, shared: str | None = None, cwd: str | None = None,
             env: dict[str, str] | None = None) -> list[str]:
        """`command` in a sandbox; `shared`, a folder of the caller's, readable and writable
        in it at the same path (a kernel's connection file and sockets); `cwd`, one more such
        folder, where the command starts (a hand-in's own folder: the files it came with);
        `env`, more of the environment."""
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
                "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--clearenv"]
        for path in SYSTEM:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        for path in [*SETTINGS, *python_folders()]:
            args += ["--ro-bind-try", path, path]
        if shared:
            args += ["--bind", shared, shared]  # cwd, when given, is inside it or bound too
        if cwd and not (shared and cwd.startswith(shared.rstrip("/") + "/")):
            args += ["--bind", cwd, cwd]
        args += ["--chdir", cwd or HOME]
        env = {**environment(), "HOME": HOME, "TMPDIR": HOME, "MPLCONFIGDIR": HOME,
               "IPYTHONDIR": HOME, "JUPYTER_RUNTIME_DIR": HOME, **(env or {})}
        for name, value in env.items():
            args += ["--setenv", name, value]
        return [*args, *command]
