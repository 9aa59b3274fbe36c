"""Execute the course's notebooks from a clean kernel, in order, and save their outputs in place.

    python tools/execute_notebooks.py                         # every notebook, then solutions
    python tools/execute_notebooks.py notebooks/03_*.ipynb    # only these

Run it after changing the package or a notebook, then commit the outputs: strict nbval compares
every saved output with a fresh run. Each notebook gets a kernel of its own, so the order in which
notebooks are executed changes nothing. The environment is the test command's: offline (no key,
no base URL) and with the course's clock pinned (agentlab.toolkit.SAVED_NOTEBOOKS_CLOCK), so the
saved outputs are the ones nbval expects on any day. The kernels' wall clock starts at that
same instant too (tools/wall_clock.py), so a cell that reads datetime.now() itself, as the
chapter's listing does, shows the morning the course's clock shows, not the day of saving
(nbval's sanitize.cfg hides such timestamps when it compares). Timing metadata is not recorded:
it would change every cell's JSON at every run for nothing a reader sees.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

from wall_clock import travelled  # this folder's: the script's own folder is on the path

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def course_environment(folder: pathlib.Path) -> None:
    """The test command's environment: the project's top conftest.py sets it when imported
    (offline, the clock pinned), so the notebooks are saved as nbval will run them; and the
    kernels' wall clock at the pinned instant (a sitecustomize module written into `folder`)."""
    sys.path.insert(0, str(ROOT))
    import conftest  # noqa: F401 - imported for what it sets in os.environ
    from agentlab.toolkit import SAVED_NOTEBOOKS_CLOCK

    try:
        import time_machine  # noqa: F401 - the kernels import it (the `test` extra has it)
    except ImportError:
        sys.exit("time-machine is missing: pip install -e '.[test]'")
    os.environ.update(travelled(folder, SAVED_NOTEBOOKS_CLOCK))


def execute(path: pathlib.Path, timeout: int) -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            record_timing=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    nbformat.write(notebook, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path,
                        help="the notebooks to execute (default: every one, students' first)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may take")
    args = parser.parse_args(argv)
    paths = args.notebooks or (sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
                               + sorted((NOTEBOOKS / "solutions").glob("[0-9]*.ipynb")))
    with tempfile.TemporaryDirectory(prefix="agentlab-clock-") as folder:
        course_environment(pathlib.Path(folder))
        for path in paths:
            started = time.perf_counter()
            shown = path.relative_to(ROOT) if path.is_absolute() else path
            print(f"{shown} ...", end=" ", flush=True)
            execute(path.resolve(), args.timeout)
            print(f"{time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
