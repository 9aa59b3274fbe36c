"""What a loop carries to its process, read in the grading process as data: does its code call
agentlab.run_agent, or hold a copy of run_agent's own code?

    library_use(pickled_loop) -> "its code calls it" | "it runs a pasted copy of its code" | ""

The loop's process cannot be trusted to tell (a loop undoes there whatever the grader puts
there, such as the count of the library's runs in runner.py), so the grading process reads the
loop as it was sent: cloudpickle's bytes (boundary.pickled), which hold the code of every
function defined in a notebook (its code object's parts: its bytecode, the names it loads) and
name every module and function it takes from elsewhere. Nothing in them runs here: the pickle
is read by an Unpickler whose every global is a stand-in (_Global) and whose every call is
only recorded (_Call); a code object is rebuilt from its parts, never run, and read with dis.
The student's own modules that the loop names (a .py file outside the Python installation and
agentlab) are read too, from their source, compiled and never run.

A loop is named when
- it holds agentlab.run_agent itself (`from agentlab import run_agent`, by reference);
- its code reads the attribute, or imports the name, `run_agent` (`agentlab.run_agent`,
  `from agentlab import loop; loop.run_agent`) while it reaches agentlab or agentlab.loop as a
  module (held, imported, or named in a string);
- its code is run_agent's code: agentlab/loop.py's run_agent pasted (into a cell, or a module
  of one's own), called with any arguments, its variables renamed or a few of its lines changed
  (its steps compared in order with run_agent's: _shape, _copied).

Not named, and notebook 08 says so: a name built at run time (getattr(agentlab, name) with
the name joined from pieces), code decoded, downloaded or read from a file at run time, a
pasted copy rewritten in many places. The grader still watches the calls such a loop makes
(boundary.py: the library's max-tokens cap with its time left).
"""

from __future__ import annotations

import difflib
import dis
import functools
import importlib.machinery
import io
import pathlib
import pickle
import site
import sysconfig
import types

LIBRARY_NAME = "run_agent"
LIBRARY_MODULES = ("agentlab", "agentlab.loop")  # the modules a loop reaches run_agent through
CALLS, PASTED = "its code calls it", "it runs a pasted copy of its code"
# How alike two codes' steps must be (difflib's ratio) to call one a copy of run_agent: a copy
# with its wind-down taken out or its model call rewritten measures 0.96-0.99, the chapter's
# listing and the course's own loops 0.18-0.26.
COPY_SIMILARITY = 0.8
MOST_MODULES_READ = 50  # the student's own modules read per loop, at most


def library_use(data: bytes) -> str:
    """How the pickled loop reaches agentlab.run_agent, said after "handed the run to
    agentlab.run_agent" in the report; "" if it does not in any way this module can see."""
    try:
        carried = _read(data)
    except Exception:  # noqa: BLE001 - unreadable as data: the calls it makes still count
        return ""
    if any(g.module in LIBRARY_MODULES and g.name == LIBRARY_NAME for g in carried.globals):
        return CALLS
    codes = [c for c in (_rebuilt(parts) for parts in carried.code_parts) if c is not None]
    modules = carried.modules | {g.module for g in carried.globals}
    codes += list(_own_sources(modules, codes))
    return _named_in(codes, modules)


def _named_in(codes: list[types.CodeType], modules: set[str]) -> str:
    library = _shape(_library_code())
    names, reached = set(), bool(modules & set(LIBRARY_MODULES))
    for code in _every_code(codes):
        if _copied(_shape(code), library):
            return PASTED
        for instruction in _instructions(code):
            if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM", "LOAD_CONST"):
                names.add(instruction.argval if isinstance(instruction.argval, str) else None)
            if instruction.opname == "IMPORT_NAME" and instruction.argval in LIBRARY_MODULES:
                reached = True
    reached = reached or bool(names & set(LIBRARY_MODULES))
    return CALLS if reached and LIBRARY_NAME in names else ""


# --- the pickle, read as data ------------------------------------------------------------------

class _Global:
    """A module's global the pickle names (a function, a class): named, never imported.
    `made` is the list of everything the pickle made: a call whose result it drops (such as
    cloudpickle's, that gives a function its globals) is kept there."""

    def __init__(self, module: str, name: str, made: list):
        self.module, self.name, self.made = module, name, made
        made.append(self)

    def __call__(self, *args, **kwargs):
        return _Call(self, args + tuple(kwargs.values()), self.made)

    def __setstate__(self, state):
        pass


class _Call:
    """A call the pickle asks for (to build an object), recorded instead of made."""

    def __init__(self, called, args: tuple, made: list):
        self.called, self.args, self.parts, self.made = called, tuple(args), [], made
        made.append(self)

    def __call__(self, *args, **kwargs):
        return _Call(self, args + tuple(kwargs.values()), self.made)

    # what the pickle adds to the object it built: its state, items, elements
    def __setstate__(self, state):
        self.parts.append(state)

    def __setitem__(self, key, value):
        self.parts.append((key, value))

    def append(self, value):
        self.parts.append(value)

    def extend(self, values):
        self.parts.extend(values)

    def add(self, value):
        self.parts.append(value)


class _Reader(pickle._Unpickler):  # the Python unpickler: its steps can be replaced one by one
    """Reads a pickle without running anything in it: globals are _Global, calls are _Call."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data))
        self.made: list = []

    def find_class(self, module, name):
        return _Global(str(module), str(name), self.made)

    def load_newobj(self):  # cls.__new__(cls, *args), recorded
        args = self.stack.pop()
        self.stack[-1] = _Call(self.stack[-1], tuple(args), self.made)
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        kwargs, args = self.stack.pop(), self.stack.pop()
        self.stack[-1] = _Call(self.stack[-1], tuple(args) + tuple(dict(kwargs).values()),
                               self.made)
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex


class _Carried:
    """What the pickle holds: the globals it names, the modules it imports (cloudpickle's
    subimport), and the parts of every code object (types.CodeType's arguments)."""

    def __init__(self):
        self.globals: list[_Global] = []
        self.modules: set[str] = set()
        self.code_parts: list[tuple] = []


def _read(data: bytes) -> _Carried:
    carried, seen, reader = _Carried(), set(), _Reader(data)
    waiting = [reader.load(), *reader.made]
    while waiting:
        value = waiting.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
            continue
        seen.add(id(value))
        if isinstance(value, _Global):
            carried.globals.append(value)
        elif isinstance(value, _Call):
            if _is_code_type(value.called):
                carried.code_parts.append(value.args)
            if isinstance(value.called, _Global) and value.called.name == "subimport":
                carried.modules.update(a for a in value.args if isinstance(a, str))
            waiting += [value.called, *value.args, *value.parts]
        elif isinstance(value, dict):
            waiting += [*value.keys(), *value.values()]
        elif isinstance(value, (list, tuple, set, frozenset)):
            waiting += list(value)
    return carried


def _is_code_type(called) -> bool:
    """types.CodeType as cloudpickle names it: _builtin_type("CodeType"), or by its name."""
    if isinstance(called, _Global):
        return called.name == "CodeType"
    return (isinstance(called, _Call) and isinstance(called.called, _Global)
            and called.called.name == "_builtin_type" and called.args == ("CodeType",))


def _rebuilt(parts: tuple) -> types.CodeType | None:
    """A code object from its parts (its constants' code objects first); built, never run.
    Parts made for another Python's CodeType do not fit: None."""
    try:
        return types.CodeType(*(tuple(_rebuilt_consts(p)) if isinstance(p, tuple) else p
                                for p in parts))
    except Exception:  # noqa: BLE001 - parts that do not make a code object here
        return None


def _rebuilt_consts(consts: tuple):
    for const in consts:
        if isinstance(const, _Call) and _is_code_type(const.called):
            yield _rebuilt(const.args)
        else:
            yield const


def _every_code(codes):
    """Each code object and the ones nested in it (its functions, classes, comprehensions)."""
    waiting = list(codes)
    while waiting:
        code = waiting.pop()
        yield code
        waiting += [c for c in code.co_consts if isinstance(c, types.CodeType)]


def _instructions(code: types.CodeType):
    try:
        return list(dis.get_instructions(code))
    except Exception:  # noqa: BLE001 - bytecode dis cannot read: nothing read from it
        return []


def _library_code() -> types.CodeType:
    from agentlab import loop

    return loop.run_agent.__code__


# Bookkeeping that differs with where the same source is compiled (a method call reads as an
# attribute when its object was imported in the same module), not with what the code does.
NOT_THE_SHAPE = {"CACHE", "PRECALL", "PUSH_NULL", "NOP", "EXTENDED_ARG", "RESUME", "COPY_FREE_VARS",
                 "MAKE_CELL"}
NAMES_KEPT = {"LOAD_GLOBAL", "LOAD_ATTR", "STORE_ATTR", "IMPORT_NAME", "IMPORT_FROM", "LOAD_CONST",
              "COMPARE_OP", "BINARY_OP", "KW_NAMES"}


def _shape(code: types.CodeType) -> list:
    """What the code does, step by step: each instruction, with the names of the globals,
    attributes and constants it uses but not its local variables' names nor its jump offsets
    (so a copy with its variables renamed has the same shape)."""
    shape = []
    for instruction in _instructions(code):
        opname = "LOAD_ATTR" if instruction.opname == "LOAD_METHOD" else instruction.opname
        if opname in NOT_THE_SHAPE:
            continue
        kept = instruction.argval if opname in NAMES_KEPT else None
        shape.append((opname, kept if isinstance(kept, (str, int, float, tuple)) else None))
    return shape


def _copied(shape: list, library: list) -> bool:
    """The shape is run_agent's, or so close that it is run_agent's code with a few lines
    changed: a loop of one's own, a third as long as run_agent, never comes near."""
    if len(shape) < len(library) * COPY_SIMILARITY or len(library) < len(shape) * COPY_SIMILARITY:
        return False
    matcher = difflib.SequenceMatcher(None, shape, library, autojunk=False)
    return matcher.quick_ratio() >= COPY_SIMILARITY and matcher.ratio() >= COPY_SIMILARITY


# --- the student's own modules, read from their source -----------------------------------------

def _own_sources(modules: set[str], codes: list[types.CodeType]):
    """The compiled source of each module of the student's own that the loop names, and of
    those that they import in turn (at most MOST_MODULES_READ)."""
    waiting, done = sorted(modules | _imported(codes)), set()
    while waiting and len(done) < MOST_MODULES_READ:
        name = waiting.pop()
        if name in done:
            continue
        done.add(name)
        file = _own_file(name)
        if file is None:
            continue
        try:
            code = compile(file.read_bytes(), str(file), "exec")
        except (OSError, SyntaxError, ValueError):
            continue
        yield code
        waiting += sorted(_imported([code]) - done)


def _imported(codes) -> set[str]:
    return {i.argval for c in _every_code(codes) for i in _instructions(c)
            if i.opname == "IMPORT_NAME" and isinstance(i.argval, str)}


def _own_file(name: str) -> pathlib.Path | None:
    """The source file of module `name` if it is the student's own: found as the import system
    would find it (nothing imported, nothing run), outside the Python installation and
    agentlab. None for anything else."""
    if not name or name.split(".")[0] == "agentlab" or name.startswith("."):
        return None
    spec, search = None, None
    parts = name.split(".")
    for depth in range(1, len(parts) + 1):
        try:
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:depth]), search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        search = spec.submodule_search_locations
    if not spec.origin or not spec.origin.endswith(".py"):
        return None
    file = pathlib.Path(spec.origin).resolve()
    return file if is_own_file(file) else None


def is_own_file(file) -> bool:
    """A source file of the student's own: outside the Python installation, the installed
    packages and agentlab (a .py beside the notebook, a module of one's own)."""
    file = pathlib.Path(file).resolve()
    return not any(file.is_relative_to(place) for place in _installed())


@functools.cache
def _installed() -> tuple[pathlib.Path, ...]:
    """Where Python's own modules, the installed packages and agentlab live."""
    paths = sysconfig.get_paths()
    places = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths]
    places += site.getsitepackages()  # a system Python's dist-packages among them
    return tuple(pathlib.Path(p).resolve() for p in places) + (pathlib.Path(__file__).parents[2],)
