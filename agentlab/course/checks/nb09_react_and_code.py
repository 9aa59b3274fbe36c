"""Notebook 09, Text ReAct and code actions: check_react_loop, check_code_allowlist.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re

from agentlab import tutor
from agentlab.records import Run
from agentlab.toolkit import get_weather
from agentlab.tutor.personas import MADE_UP_TOOL

from ._common import TUTOR, Verdict, attempt, is_stub_result, returned_nothing, short, spied

REACT_TASKS = {  # task -> what the answer must say, from the tools' own results
    "What's the weather in Oslo?": lambda: str(get_weather(city="Oslo")["temp_c"]),
    "What is 17 * 23 + 4?": lambda: "395",
}


# The models check_react_loop tries, and what each asks of the loop beyond the tutor's tasks.
REACT_MODELS = {
    TUTOR: "run the action's tool and send its result back as 'Observation: ...' until the "
           "reply has an Answer",
    "tutor-base": "the model made that up: send stop=['Observation:'] so its reply ends after "
                  "Action Input, and run the tool yourself",
    "tutor-hallucinator": "it asks for search_web, a tool that is not in TOOLS: never look it up "
                          "or run it, send back an Observation whose error names it (and the "
                          "tools there are), and it asks for a real one",
    "tutor-sloppy": "it writes an Action Input that is not JSON, then arguments of the wrong "
                    "type: send each error back as the Observation (the parse error, the "
                    "tool's own exception), saying what was wrong, and it fixes them",
}


# What json.loads says of broken JSON ("Expecting ',' delimiter", "Unterminated string ...",
# "Extra data", 3.13's "Illegal trailing comma"): an error that says one of these said what the
# parser said, not only that the JSON was broken.
PARSER_SAID = re.compile(r"Expecting (?:value|property name|'.' delimiter)|Unterminated string|"
                         r"Extra data|Invalid control character|Invalid \\+escape|"
                         r"trailing comma|line \d+ column \d+", re.IGNORECASE)
# How notebook 09's parse_reply finds an action in a reply.
ACTION = re.compile(r"Action:\s*(\S+)\s*\nAction Input:\s*(.+)", re.S)


def check_react_loop(react_loop) -> Verdict:
    """react_loop(task, model) -> the answer, from a text-ReAct loop over the course's tools.

    Tried on two tasks with the tutor; with `tutor-base`, which writes past its turn (a
    made-up Observation, "42", and an answer from it) unless the request's stop sequence ends
    its reply: a loop that sends no stop, or trusts text after its Action, answers 42; with
    `tutor-hallucinator`, which asks for a tool that does not exist, and `tutor-sloppy`, whose
    Action Input is broken JSON, then wrongly typed: each answers right only if the loop sends
    the error back as the Observation, and a loop that crashes on them or runs whatever name it
    reads fails. While it runs, a function named like the made-up tool sits among the loop's
    globals, so a loop that looks a name up outside TOOLS (globals(), eval) runs it, and fails.
    The error for broken JSON must say what the parser said (its JSONDecodeError's message),
    and the answer is the text after "Answer:", not the whole reply.
    """
    example = None  # the tutor's first answer, shown when every model got it right
    for model, hint in REACT_MODELS.items():
        for task, expected in REACT_TASKS.items():
            call = f"react_loop({task!r}, model={model!r})"
            with spied(tutor, "respond") as requests, _planted(react_loop, MADE_UP_TOOL) as ran:
                answer, failed = attempt(call, react_loop, task, model=model)
            if ran:
                return Verdict(False, f"with {model}, react_loop ran {MADE_UP_TOOL}, a function "
                               "it found outside TOOLS (globals(), eval, a module): look a tool "
                               "up in TOOLS only, and send back an error for any other name")
            if failed is not None:
                return failed if model == TUTOR else Verdict(False, f"{failed.message}: {hint}")
            if is_stub_result(answer) and model == TUTOR:
                return returned_nothing(react_loop, answer, call, "the text after 'Answer:'")
            if is_stub_result(answer):
                return Verdict(False, f"with {model}, react_loop({task!r}) gave no answer "
                               f"({short(answer)}): {hint}")
            if not isinstance(answer, str):
                return Verdict(False, f"return the answer's text, not {short(answer)}")
            if WHOLE_REPLY.search(answer):
                return Verdict(False, f"{call} returned {short(answer)}: that is the model's "
                               "whole reply; return only the text after 'Answer:'")
            unexplained = _unexplained_json_error(requests)
            if model == "tutor-sloppy" and unexplained:
                return Verdict(False, f"with {model}, the Action Input {short(unexplained[0])} "
                               f"came back as {short(unexplained[1], 120)}: say what the parser "
                               "said, str(e) of its JSONDecodeError (as parse_reply does), so "
                               "the model can find its mistake")
            if expected() not in answer:
                return Verdict(False, f"with {model} the answer to {task!r} should say "
                               f"{expected()}, got {short(answer)}: {hint}")
            example = example or answer
    return Verdict(True, "right with the tutor, with tutor-base (which writes past its turn) "
                   "and with models that ask for a missing tool or send broken arguments, "
                   f"e.g. {short(example)}")


# A reply's labels: text that holds one is the model's whole reply, not the answer in it.
WHOLE_REPLY = re.compile(r"^\s*(?:Thought|Action|Action Input|Answer):", re.MULTILINE)


@contextlib.contextmanager
def _planted(fn, name: str):
    """A function `name` put among fn's globals while the check runs (unless one is there), so
    a loop that looks a tool up outside its allowlist finds it; yields the list of its runs."""
    ran, namespace = [], getattr(fn, "__globals__", None)
    if not isinstance(namespace, dict) or name in namespace:
        yield ran
        return

    def made_up_tool(**arguments):
        ran.append(arguments)
        return {"results": []}

    namespace[name] = made_up_tool
    try:
        yield ran
    finally:
        namespace.pop(name, None)


def _unexplained_json_error(requests: list) -> tuple[str, str] | None:
    """(a broken Action Input, the observation that answered it) when that observation does not
    say what the parser said; None when every broken input was answered with it.

    requests: the tutor's calls, (model, messages, ...), as spied.
    """
    messages = requests[-1][1] if requests and len(requests[-1]) > 1 else []
    for sent, answer in itertools.pairwise(messages):
        if not (isinstance(sent, dict) and isinstance(answer, dict)):
            continue
        found = ACTION.search(str(sent.get("content") or "")) if sent.get("role") == \
            "assistant" else None
        if not found:
            continue
        raw = found[2].split("\nObservation:")[0].strip()
        try:
            json.loads(raw)
        except json.JSONDecodeError as e:
            said = str(answer.get("content") or "")
            if e.msg not in said and not PARSER_SAID.search(said):
                return raw, said
    return None


CODE_ALLOWED = [  # snippets an allowlist must let through (tools: get_weather, calculate)
    "print(get_weather(city='Oslo'))",
    "print(get_weather(city='Oslo'))\nprint(calculate(expression='2 + 2'))",
    "final_answer('It is -3 °C in Oslo.')",
    "result = calculate(expression='17 * 23')\nfinal_answer(result)",
]
CODE_REFUSED = [  # and snippets it must refuse
    "import os\nprint(os.listdir('.'))",
    "from os import system",  # an import of a name: ast.ImportFrom, not ast.Import
    "print(__builtins__)",  # a name that starts with __, neither called nor an attribute
    "__import__('os').system('echo hi')",
    "print(open('/etc/passwd').read())",
    "exec('import os')",
    "print(eval('1 + 1'))",
    "print(get_weather.__globals__)",
    "print(().__class__.__bases__[0].__subclasses__())",
    "delete_files(path='/')",
    "print(get_weather(city='Oslo')",  # not even Python: nothing runs
]


def check_code_allowlist(allowed) -> Verdict:
    """allowed(code, tool_names) -> True only for a snippet that calls nothing but the listed
    tools, print and final_answer: no import, no attribute, no other name called."""
    names = ["get_weather", "calculate"]
    for code in CODE_ALLOWED + CODE_REFUSED:
        want = code in CODE_ALLOWED
        got, failed = attempt(f"allowed({code!r})", allowed, code, list(names))
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(allowed, got, f"allowed({code!r})", "True or False")
        if got is not want:
            what = "let through" if want else "refuse"
            return Verdict(False, f"it should {what} {code!r} (return {want}), got "
                           f"{short(got)}" + ("" if want else _why_refused(code)))
    return Verdict(True, f"lets {len(CODE_ALLOWED)} safe snippets through and refuses "
                   f"{len(CODE_REFUSED)}, among them imports, open, eval and dunder attributes")


def _why_refused(code: str) -> str:
    """What the notebook's rule refuses in a snippet, for the message."""
    if code.startswith("from "):
        return ": `from os import system` is an import too (ast.ImportFrom)"
    if "__" in code:
        return ": it uses a name that starts with __"
    return ""


__all__ = [name for name in dir() if name.startswith("check_")] + ["Verdict", "Run"]
