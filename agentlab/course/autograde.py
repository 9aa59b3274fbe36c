"""nbgrader's autograde, with each graded cell's verdict taken outside the student's kernel.

    # deploy/nbgrader_config.py
    c.Autograde.autograde_preprocessors = [GradeOutsideTheKernel, ...the rest of nbgrader's]
    c.GradeOutsideTheKernel.sandbox = True   # bubblewrap's (agentlab.course.sandbox)

nbgrader's own autograde runs a hand-in in a fresh kernel, hidden tests included, and scores a
graded cell by what the kernel printed. But every cell of the student's runs in that kernel
first: a cell that patches `importlib`, `json`, `subprocess` or agentlab itself can make the
hidden test print any score. So this preprocessor, in the teacher's process, runs the student's
cells as nbgrader does, but never a graded cell's hidden test: where a graded cell asks for a
verdict (`handin.capstone(run_agent, [...])` or `handin.exercise("check_x", f)`, read from the
cell's source, which nbgrader restores from the gradebook), the kernel is only asked for the
answers it names, as bytes. After the kernel is gone, the teacher's process starts the grading
process itself (agentlab.course.handin), reads its verdict, and writes the cell's output and
score. What the kernel did can change which function is graded, not how the capstone's loop is
graded (it runs apart from its grader); an exercise answer runs beside its check, so a hand-in
built to forge can forge its exercise points (handin.py, docs/INSTRUCTORS.md say so).

All of a hand-in's code (its kernel, its loop, its exercise answers) runs in a sandbox
(agentlab.course.sandbox) that holds nothing of the course: not your home, not the gradebook,
not the other hand-ins, not your environment's tokens.
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import os
import shutil
import tempfile

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader.preprocessors import Execute
from traitlets import Bool

from agentlab.course import handin
from agentlab.course.sandbox import Sandbox, environment

@dataclasses.dataclass
class Asked:
    """One verdict a graded cell asks for: its question and the answers it names (their source
    text, as the cell writes them, e.g. "run_agent")."""

    header: dict
    answers: list[str]

    def export_source(self) -> str:
        """The code the kernel runs to hand over the answers' bytes."""
        return (f"__import__('agentlab.course.handin', fromlist=['handin'])"
                f".show_answer({self.header!r}, {', '.join(self.answers)})")


def asked_in(source: str) -> list[Asked]:
    """The verdicts a graded cell's source asks for, in order.

    Example: 'handin.capstone(run_agent, ["answers"])' -> [Asked({"kind": "capstone", "rows":
    ["answers"], "seed": None}, ["run_agent"])]
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    asked = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "handin"):
            continue
        args = [ast.get_source_segment(source, arg) for arg in node.args]
        keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        if node.func.attr == "capstone":
            rows = ast.literal_eval(node.args[1])
            header = handin.capstone_header(rows, keywords.get("seed"))
            asked.append((node.lineno, node.col_offset, Asked(header, args[:1])))
        elif node.func.attr == "exercise":
            header = handin.exercise_header(ast.literal_eval(node.args[0]))
            asked.append((node.lineno, node.col_offset, Asked(header, args[1:])))
    return [question for *_, question in sorted(asked, key=lambda found: found[:2])]


def asked_in_graded(cell) -> list[Asked]:
    """The verdicts a cell asks for, if it is a graded code cell."""
    graded = cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    return asked_in(cell.source) if graded else []


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel in an environment made from nothing and, when `sandbox` is set, in the
    sandbox, with its connection file and sockets in a folder of its own (`ipc` transport)."""

    sandbox: Sandbox | None = None
    folder: str | None = None

    async def _async_pre_start_kernel(self, **kw):
        if self.sandbox is not None:
            # One folder of the teacher's for all the kernel may write: the connection file,
            # its sockets, and a copy of the hand-in's folder. Nothing in it is read again
            # (a link planted there leads nowhere), and all of it is removed with the kernel.
            self.folder = tempfile.mkdtemp(prefix="agentlab-kernel-")
            self.transport, self.cache_ports = "ipc", False
            self.ip = os.path.join(self.folder, "kernel")
            self.connection_file = os.path.join(self.folder, "kernel.json")
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        # JPY_* are jupyter_client's own (the session's name, the parent's pid): nothing secret
        kw["env"] = {**environment(),
                     **{k: v for k, v in kw.get("env", {}).items() if k.startswith("JPY_")}}
        if self.sandbox is not None:
            # The kernel starts in a copy of the hand-in's folder (the notebook and the files it
            # came with), as nbgrader's own autograde starts it in the folder itself. A copy:
            # the folder is the one nbgrader writes the graded notebook into, and a link the
            # hand-in planted there would send that write to any file of the teacher's.
            # JPY_PARENT_PID=1: "no parent to watch" (the sandbox's pids are its own), so the
            # kernel neither polls the teacher's pid nor prints how to connect to it.
            handed_in = os.path.join(self.folder, "hand-in")
            if kw.get("cwd"):
                shutil.copytree(kw["cwd"], handed_in, symlinks=True)
            else:
                os.mkdir(handed_in)
            kernel_cmd = self.sandbox.wrap(kernel_cmd, shared=self.folder, cwd=handed_in,
                                           env={"JPY_PARENT_PID": "1"})
        return await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self.folder and not restart:
            shutil.rmtree(self.folder, ignore_errors=True)


class GradeOutsideTheKernel(Execute):
    """nbgrader's Execute, but a graded cell's verdict comes from outside the kernel."""

    sandbox = Bool(
        True, help="Run a hand-in's code in a sandbox that holds nothing of the course "
                   "(bubblewrap; agentlab.course.sandbox). Without it, a hand-in's code reads "
                   "what you can read: the solutions, the gradebook, the other hand-ins."
    ).tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        km.sandbox = self._sandbox
        return km

    def preprocess(self, nb, resources=None, km=None):
        self._sandbox = Sandbox() if self.sandbox else None
        if self._sandbox is not None:
            self._sandbox.check()
        else:
            self.log.warning("Grading hand-ins without a sandbox: a hand-in's code can read "
                             "what you can (c.GradeOutsideTheKernel.sandbox)")
        self._waiting: list[tuple] = []  # (cell, [(asked, payload or error outputs)])
        try:
            nb, resources = super().preprocess(nb, resources, km)
        except (CellTimeoutError, DeadKernelError) as e:  # a kernel the hand-in hung or killed
            # Not raised on to nbgrader: it would drop this hand-in and keep the marks of an
            # earlier one. Every graded cell the kernel never reached scores nothing, and says
            # why.
            self.log.warning("Autograde stopped in this hand-in's kernel: %s", e)
            reached = {id(cell) for cell, _ in self._waiting}
            for cell in nb.cells:
                if id(cell) not in reached and asked_in_graded(cell):
                    cell.outputs = [_error(type(e).__name__, f"autograde stopped before this "
                                           f"cell: {str(e).strip()[:300]}")]
            resources = self.resources
        # The kernel is gone now: nothing of the student's runs while the verdicts are made.
        for cell, answers in self._waiting:
            cell.outputs = []
            for asked, payload in answers:
                said = self._verdict(asked, payload)
                cell.outputs.extend(said)
                if any(output.output_type == "error" for output in said):
                    break  # as in Python: the cell stops at its first error
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        asked = asked_in_graded(cell)
        if not asked:
            return super().preprocess_cell(cell, resources, index)
        answers = []
        for question in asked:
            export = nbformat.v4.new_code_cell(question.export_source())
            export = self.execute_cell(export, index, store_history=False)
            self.nb.cells[index] = cell  # nbclient put the cell it ran in the notebook's place
            answers.append((question, self._payload(export.outputs)))
        self._waiting.append((cell, answers))
        cell.outputs = []
        return cell, self.resources

    @staticmethod
    def _payload(outputs) -> bytes | list:
        """The answers' bytes the kernel showed, or the outputs that say why it could not."""
        errors = [o for o in outputs if o.output_type == "error"]
        shown = [o for o in outputs if o.output_type == "display_data"
                 and handin.ANSWER_TYPE in o.get("data", {})]
        if errors:
            return errors
        if len(shown) != 1:
            return [_error("HandInError", f"the kernel showed {len(shown)} answers, not one: "
                           "something in the notebook prints on its own")]
        try:
            return base64.b64decode(shown[0]["data"][handin.ANSWER_TYPE], validate=True)
        except (ValueError, TypeError):  # binascii.Error is a ValueError
            return [_error("HandInError", "the kernel's answer was not the bytes it is asked "
                           "for: something in the notebook changed how answers are handed over")]

    def _verdict(self, asked: Asked, payload: bytes | list) -> list:
        """The outputs of one verdict: as the cell would print them, or its error."""
        if isinstance(payload, list):
            return payload
        try:
            answer = handin.verdict(asked.header, payload, self._sandbox)
            if asked.header["kind"] == "capstone":
                text, points = handin.capstone_said(asked.header["rows"], answer)
            else:
                ok, text = handin.exercise_said(asked.header["check"], answer)
        except handin.HandInError as e:
            return [_error("HandInError", str(e))]
        except (KeyError, TypeError, AttributeError, ValueError):  # a verdict of another shape
            return [_error("HandInError", "the grading process's verdict was not one: "
                           "something in the hand-in wrote it")]
        if asked.header["kind"] == "capstone":
            return [nbformat.v4.new_output("stream", name="stdout", text=text + "\n"),
                    nbformat.v4.new_output("execute_result", {"text/plain": str(points)},
                                           execution_count=None)]
        if not ok:
            return [_error("AssertionError", text)]
        return [nbformat.v4.new_output("stream", name="stdout", text=text + "\n")]


def _error(name: str, text: str):
    return nbformat.v4.new_output("error", ename=name, evalue=text,
                                  traceback=[f"{name}: {text}"])
