"""Notebook 09, Text ReAct and code actions: check_react_loop, check_code_allowlist.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

from agentlab.records import Run
from agentlab.toolkit import get_weather

from ._common import TUTOR, Verdict, attempt, is_stub_result, short

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


def check_react_loop(react_loop) -> Verdict:
    """react_loop(task, model) -> the answer, from a text-ReAct loop over the course's tools.

    Tried on two tasks with the tutor; with `tutor-base`, which writes past its turn (a
    made-up Observation, "42", and an answer from it) unless the request's stop sequence ends
    its reply: a loop that sends no stop, or trusts text after its Action, answers 42; with
    `tutor-hallucinator`, which asks for a tool that does not exist, and `tutor-sloppy`, whose
    Action Input is broken JSON, then wrongly typed: each answers right only if the loop sends
    the error back as the Observation, and a loop that crashes on them or runs whatever name it
    reads fails. (A loop that catches every error but has no allowlist is not caught here:
    none of these models names a function that exists outside TOOLS.)
    """
    example = None  # the tutor's first answer, shown when every model got it right
    for model, hint in REACT_MODELS.items():
        for task, expected in REACT_TASKS.items():
            answer, failed = attempt(f"react_loop({task!r}, model={model!r})", react_loop,
                                      task, model=model)
            if failed is not None:
                return failed if model == TUTOR else Verdict(False, f"{failed.message}: {hint}")
            if is_stub_result(answer) and model == TUTOR:
                return Verdict(False, f"react_loop returned {short(answer)}: fill in the stub")
            if is_stub_result(answer):
                return Verdict(False, f"with {model}, react_loop({task!r}) gave no answer "
                               f"({short(answer)}): {hint}")
            if not isinstance(answer, str):
                return Verdict(False, f"return the answer's text, not {short(answer)}")
            if expected() not in answer:
                return Verdict(False, f"with {model} the answer to {task!r} should say "
                               f"{expected()}, got {short(answer)}: {hint}")
            example = example or answer
    return Verdict(True, "right with the tutor, with tutor-base (which writes past its turn) "
                   "and with models that ask for a missing tool or send broken arguments, "
                   f"e.g. {short(example)}")


CODE_ALLOWED = [  # snippets an allowlist must let through (tools: get_weather, calculate)
    "print(get_weather(city='Oslo'))",
    "print(get_weather(city='Oslo'))\nprint(calculate(expression='2 + 2'))",
    "final_answer('It is -3 °C in Oslo.')",
    "result = calculate(expression='17 * 23')\nfinal_answer(result)",
]
CODE_REFUSED = [  # and snippets it must refuse
    "import os\nprint(os.listdir('.'))",
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
            return Verdict(False, f"allowed returned {short(got)}: fill in the stub")
        if got is not want:
            what = "let through" if want else "refuse"
            return Verdict(False, f"it should {what} {code!r} (return {want}), got "
                           f"{short(got)}")
    return Verdict(True, f"lets {len(CODE_ALLOWED)} safe snippets through and refuses "
                   f"{len(CODE_REFUSED)}, among them imports, open, eval and dunder attributes")


__all__ = [name for name in dir() if name.startswith("check_")] + ["Verdict", "Run"]
