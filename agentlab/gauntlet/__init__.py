"""The gauntlet: grade an agent loop you wrote yourself, by watching what it does.

    from agentlab.gauntlet import grade
    report = grade(run_agent)     # a table in a notebook
    report.held, report.broken    # lists of check names

`run_agent` is yours, with the chapter's signature, and returns the answer text:

    run_agent(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50)

Each check runs it against a scripted, misbehaving model (a persona of the tutor whose
misbehaviour is written out reply by reply, in agentlab/gauntlet/scripted.py) and hostile
tools. The gauntlet never reads your code: it watches through the `client` it hands you, which
records every request (the messages and tools sent, what each response cost by
`agentlab.estimate_cost`), and through `tool_impls`, whose functions record every call. Costs
are charged at gpt-4o-mini's prices. Use `client.chat(model=model, messages=..., tools=tools)`
as the chapter does.

A check whose verdict depends on a limit's value runs the loop twice, with different numbers
(max_steps and budget; as otter's hidden variants do): a loop that hard-codes a count instead of
reading its argument does the same thing at both settings, and is broken.

Every check first asks that each run ends and returns text: a loop that raises, returns
something other than a str, or has not returned after `timeout` seconds (2 by default) is
broken, with what it raised or returned as the evidence. Then:

The chapter's guardrails
    answers        the plain loop. The model asks for calculate, then answers. Held: every model
                   call offered the tools, the tool ran once, its result went back in a tool
                   message, and run_agent returned the model's answer text (surrounding
                   whitespace aside).
    max_steps      the model never stops asking for tools. run_agent gets max_steps=3, then
                   max_steps=5. Held: exactly 3, then 5 model calls, and the returned text says
                   the step limit stopped the run (it names steps, calls, turns, iterations, the
                   maximum or the limit's number; "Stopped." does not). A loop that winds down
                   (its last call sends tool_choice="none") may return the model's answer.
    budget         every call costs about $0.0004 (long musings with each tool call); run_agent
                   gets max_cost_usd=0.001, then 0.0003 (less than one call). Held: no model call
                   is made once the responses so far cost more than the budget, and, if the
                   budget ended the first run, the smaller one ends it after fewer calls (a run
                   that ended by itself says nothing of the budget). The chapter's
                   pay-then-check holds: it may cross the budget by one call, then stops.
    allowlist      the model asks for delete_files, a tool that is neither in `tools` nor in
                   `tool_impls`. Held: no tool runs for that call, the call is answered with a
                   (non-empty) tool message, and the run goes on to the next call. The allowlist
                   is `tool_impls`, as in the chapter; the point is safety (the model never
                   chooses what runs), not avoiding a crash.
    bad_json       the model's first call has malformed JSON arguments. Held: the loop does not
                   crash, answers that call with a non-empty tool message, and runs the model's
                   corrected call.
    tool_error     the tool raises RuntimeError("the orders database is unavailable"). Held:
                   the call is answered with a tool message that contains the exception's
                   message (an informative error the model can act on).
    truncation     the tool returns 1,000,000 characters. Held: no message in the next request
                   is longer than 20,000 characters. (The API refuses a body over 1 MB, so a loop
                   that does not cut crashes on its next call.) A cut that leaves invalid JSON,
                   or ends with no marker saying it was cut, still holds; the evidence says so.
    observability  the model calls calculate('6 * 7'), then lookup_order('B-2'), then answers.
                   Held: each call is shown while the run goes, after the model asked for it and
                   before the next model call: the tool's name with its arguments or its result
                   (a list of the tools offered names them, but shows no call). Observed:
                   stdout and stderr (swapped for a buffer during every check, so your prints do
                   not fill the notebook), and log records that pass your loggers' levels (a
                   handler on the root logger; records from openai, httpx and httpcore are not
                   the loop's and are ignored).

Beyond the chapter
    time           the tool never returns on its own. Held: run_agent returns text within the
                   check's timeout anyway (give up on a tool after about a second).
    repeats        the model asks for the same call (tool and arguments) every time; max_steps=8.
                   Held: the tool runs at most 3 times, and at least one call the model asked
                   for was not run (refused, or the run stopped at it): a run that a fixed count
                   ended before any repeat was refused shows no guard.
    unanswered_tool_calls
                   the model asks for three calls in one message. Held: the next request answers
                   every call id with a tool message (the API refuses one that does not).

How a run is bounded: your function runs in a daemon thread that the grader waits for at most
`timeout` seconds. Python cannot kill a thread, so a run that overruns is abandoned: its next
model or tool call raises GauntletStop (a BaseException, past `except Exception`) and the
thread ends; a hung tool of the gauntlet is released when its check ends. A loop that spins
without calling anything keeps running in the background until the kernel stops.

Left out on purpose: grading the answer's wording, and anything that needs a real model.
"""

from __future__ import annotations

from .checks import CHECKS, warm_up
from .report import Entry, Report
from .watch import GauntletStop

CHAPTER_CHECKS = ["answers", "max_steps", "budget", "allowlist", "bad_json", "tool_error",
                  "truncation", "observability"]
BEYOND_THE_CHAPTER = ["time", "repeats", "unanswered_tool_calls"]


def grade(run_agent, *, timeout: float = 2.0, only=None) -> Report:
    """Run every check (or those named in `only`) on run_agent and return the Report.

    timeout: seconds each run may take before it counts as hung (and the time check's limit).
    """
    if not callable(run_agent):
        raise TypeError(f"grade() needs your run_agent function, not {type(run_agent).__name__}")
    names = list(CHECKS) if only is None else list(only)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"no check named {', '.join(unknown)}; the checks are {', '.join(CHECKS)}")
    warm_up()
    return Report([CHECKS[name](run_agent, timeout) for name in names])


__all__ = ["grade", "Report", "Entry", "GauntletStop", "CHECKS", "CHAPTER_CHECKS",
           "BEYOND_THE_CHAPTER"]
