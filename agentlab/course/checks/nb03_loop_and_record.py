"""Notebook 03, The loop in forty lines: the loop and its record: check_count_tool_calls.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import collections

from agentlab.loop import Limits, run_agent
from agentlab.toolkit import COURSE_TOOLS

from ._common import Verdict, attempt, is_stub_result, returned_nothing, short, tutor_client

RECORD_TASKS = [
    "Is it warmer in the capital of Japan or the capital of France?",
    "What's the weather in Paris, and should I take a coat?",
    "What time is it, and what is 17 * 23 + sqrt(144)?",
    "What's the weather in the capital of Peru, in Fahrenheit?",
    "Tell me a joke.",
]


# Runs the check makes beyond RECORD_TASKS, each with a model persona and its limits: one that
# the step limit ends while the model still asks for a tool (its last step is not an answer),
# one that asks for the very same call again and again (each asking counts, not each distinct
# call), and two with failed calls (a tool the model made up, arguments that are not JSON),
# which count as asked for like any other.
UNEVEN_RUNS = [("What is 6 * 7?", "tutor-looper", Limits(max_steps=3)),
               ("What is 6 * 7?", "tutor-stuck", Limits(max_steps=4)),
               ("What is 17 * 23 + sqrt(144)?", "tutor-hallucinator", None),
               ("What is 17 * 23 + sqrt(144)?", "tutor-sloppy", None)]


def check_count_tool_calls(count_tool_calls) -> Verdict:
    """count_tool_calls(run) -> {tool name: how many times the model asked for it}.

    Tried on nine different runs: some answered, one with no tool call at all, one the step
    limit stopped, one asking for the same call again and again, and some with calls that
    failed. So no fixed answer passes.
    """
    client = tutor_client()
    runs = [(task, run_agent(task, COURSE_TOOLS, client=client)) for task in RECORD_TASKS]
    runs += [(f"{task!r} with {model}", run_agent(task, COURSE_TOOLS, client=tutor_client(model),
                                                  limits=limits))
             for task, model, limits in UNEVEN_RUNS]
    shown = None
    for task, run in runs:
        expected = dict(collections.Counter(call.name for call in run.tool_calls))
        got, failed = attempt(f"count_tool_calls(run of {task})", count_tool_calls, run)
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(count_tool_calls, got, "count_tool_calls(run)",
                                    "a dict {tool name: count}")
        if not isinstance(got, dict):
            return Verdict(False, f"return a dict {{tool name: count}}, not {type(got).__name__}")
        if dict(got) != expected:
            failures = sum(call.error is not None for call in run.tool_calls)
            why = (f" (this run ended by {run.stop_reason}, not with an answer)"
                   if run.stop_reason != "answered" else "")
            why += f" ({_calls(failures)} in it failed)" if failures else ""
            asked = [(call.name, call.arguments) for call in run.tool_calls]
            if len(set(asked)) < len(asked):
                why += (f" (it asked for the same call {_times(asked)} times: each time it "
                        "asked counts)")
            return Verdict(False, f"for the run of {task}{why} expected {expected}, got "
                           f"{short(got)}: every step's tool_calls count, and a run with none "
                           "gives {}")
        shown = shown or got
    return Verdict(True, f"right on {len(runs)} runs, e.g. {dict(shown)}")


def _times(asked: list) -> int:
    """How often the most repeated call was asked for. Example: [a, b, a] -> 2"""
    return max(collections.Counter(asked).values())


def _calls(count: int) -> str:
    return f"{count} call{'s' * (count != 1)}"
