"""The gauntlet: grade an agent loop you wrote yourself, by watching what it does.

    from agentlab.course.gauntlet import grade
    report = grade(run_agent)     # a table in a notebook
    report.held, report.broken    # lists of check names
    grade(run_agent, seed=7)      # the same draws again: the report shows each grade's seed

`run_agent` is yours, with the chapter's signature, and returns the answer text:

    run_agent(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50)

Each check runs it against a scripted, misbehaving model (agentlab/course/gauntlet/scripted.py) and
hostile tools. Your function runs in a Python process of its own (runner.py); the `client` and
`tool_impls` it is handed there ask this process, which answers as the model, runs the tools,
records every request (the messages and tools sent, what each response cost) and every call,
and alone holds the draws, the seed, the rows and the verdict (boundary.py). A row's verdict
comes from what your loop does, never from reading your code (the code is read for one thing
only: whether it is agentlab.run_agent's, below). Costs are charged at gpt-4o-mini's prices. Use
`client.chat(model=model, messages=..., tools=tools)` as the chapter does.

Nothing a check uses is fixed: every grade draws afresh (agentlab/course/gauntlet/draws.py) the tool
names and argument names (one pool for every tool: a name says nothing of how the tool
behaves), the arguments, the tasks, the step limits, the length (so the cost) of each reply and
the budgets. A loop that recognises a tool by its name, or counts calls at a fixed price, holds
one grade by luck at best. `seed=` repeats a grade's draws when asked.

A check whose verdict depends on a limit's value runs the loop twice, with different numbers: a
loop that hard-codes a count instead of reading its argument is caught.

A loop that hands the work to `agentlab.run_agent` (however it reaches it) is the library's
loop, not yours: every row it ran in is broken and says so. The grader reads it in the code your
function was sent with, in this process (carried.py: `agentlab.run_agent` named in it, or its
code pasted in, even with a few lines changed), and also notices it by behaviour: the library's
step book-keeping running in your loop's process, and the calls it makes (its max-tokens cap and
the time left of its clock). A name built at run time, or code read or decoded at run time, is
not read (notebook 08 says so).

Every check first asks that each run ends and returns text: a loop that raises, returns
something other than a str, or has not returned after `timeout` seconds (2 by default) is
broken, with what it raised or returned as the evidence. A failure sent back to the model must
read as one, as notebook 01's check_observe asks ({"error": ...}, text starting "Error:" or
"Failed:", an exception as Python prints it): an error in bare text reads as a result. Then:

The loop itself, right on ordinary tasks (notebooks 02 and 03 teach each)
    answers        the plain loop. The model asks for a tool, then answers. Held: every model
                   call offered the tools, the tool ran once, its result went back in a tool
                   message, and run_agent returned the model's answer text (surrounding
                   whitespace aside).
    right_tool     three tools offered; the model asks one that is not the first, then two
                   different ones in one message. Held: each call ran the tool it names, with
                   its arguments (a loop that reads the name once a message runs one for both).
    call_ids       2 to 4 calls in one message, then one more; each result holds its own code.
                   Held: the tool message with each call's id holds that call's result.
    history        two lookups, then an answer that needs both results; the model answers with
                   both only if the conversation it is sent still holds them. Held: the answer
                   names both, and every request starts with the one before it, its reply after.
    plain_result   a tool that works. Held: its result goes back not marked as a failure.
    fresh_run      two runs in one process: the same call 3 times in the first, once in the
                   second. Held: it runs in the second, whose first request holds nothing of
                   the first run. Every run is watched for this: a run whose first request
                   holds an earlier run's messages (its task, a reply the model gave there)
                   kept them in a list outside run_agent, and every row that breaks with it
                   says so first. A prompt or worked examples of the loop's own are not those.

The chapter's guardrails
    max_steps      the model never stops asking for tools. run_agent gets two step limits, one
                   from 2-4 and one from 5-7, in a drawn order. Held: exactly that many model
                   calls each time, and the returned text says the step limit stopped the run
                   (it names steps, calls, requests, turns, iterations, the maximum, what is
                   allowed or the limit's number; "Stopped." does not). A loop that winds down
                   (its last call sends tool_choice="none") may return the model's answer.
    budget         the model writes a musing of drawn length with every tool call: long in one
                   run (each call dear), short in the other (each call cheap), the budgets drawn
                   to allow a few dear calls or many cheap ones. Held: no model call once the
                   responses so far cost more than the budget, and no stop, while the model
                   still asks, with room in the budget for two more calls (a count of calls
                   stops too late in one run or too early in the other), and the returned
                   text says the budget stopped the run (it names the budget, the cost, the
                   spending, money, $ or the budget's amount; "Stopped." or "step limit
                   reached" does not), as max_steps asks of its limit. The chapter's
                   pay-then-check holds: it may cross the budget by one call, then stops.
    stop_names_limit
                   the model never stops asking: once under a step limit, once under a budget.
                   Held: each text names its own limit (as max_steps and budget ask), and the
                   two are not the same sentence once their numbers are taken out.
    allowlist      the model asks for a tool that is neither in `tools` nor in `tool_impls`.
                   Held: no tool runs for that call, the call is answered with an error that
                   names the tool asked for (or the tools there are: "the tool failed" says
                   nothing), and the run goes on to the next call. The allowlist is
                   `tool_impls`, as in the chapter; the point is safety (the model never
                   chooses what runs).
    bad_json       the model's first call has malformed JSON arguments (one of five sloppy
                   forms). Held: the loop does not crash, answers that call with an error that
                   says what was wrong (it names the JSON, or what the parser said: "Expecting
                   ',' delimiter"; "invalid arguments" does not say what was wrong with them:
                   tutor.reading.JSON_NAMED), and runs the model's corrected call.
    unencodable    the tool's result holds a datetime, which json.dumps refuses (notebook 03's
                   second crash). Held: the loop does not crash, answers the call with the
                   value as text (default=str) or with an error, and asks the model again.
    tool_error     the tool raises an exception (kind and message drawn). Held: the call is
                   answered with an error that contains the exception's message.
    truncation     the tool returns 300,000 to 1,200,000 characters. Held: no message in the
                   next request is longer than 20,000 characters (the API refuses a body over
                   1 MB, so a loop that does not cut crashes on its next call), and the cut
                   result says it was cut ("truncated", "cut", "omitted", "more characters",
                   "...", best with how much: tutor.reading.cut_note_in), so the model knows it
                   read only part; notebook 4a's check_truncate asks the same. A cut that
                   leaves invalid JSON still holds; the evidence says so.
    observability  the model calls two tools, then answers. Held: each call is shown while the
                   run goes, after the model asked for it and before the next model call: the
                   tool's name with its arguments or its result (a list of the tools offered
                   names them, but shows no call). Observed: stdout and stderr (swapped for a
                   buffer during every check, so your prints do not fill the notebook), and log
                   records that pass your loggers' levels (records from openai, httpx and
                   httpcore are not the loop's and are ignored).

Beyond the chapter (notebook 04b teaches each)
    time           the tool never returns on its own. Held: run_agent returns text within the
                   check's timeout anyway (give up on a tool after about a second), and the hung
                   call, if the run goes on, is answered with an error.
    repeats        the model asks one tool for several different arguments (parallel calls
                   in one message, so the first repeat past the rule comes at its 8th reply
                   however many: a step cap of 10 sees it), then one call again and again,
                   first between new questions to another tool, then by turns with a third
                   tool asked the very same arguments. The rule: the same tool with
                   the same arguments runs at most 3 times in a run. It runs twice, with the
                   same max_steps and task: 2 to 4 different arguments in one run, 4 to 5 more
                   than that in the other. Held, in both: every call's first ask runs (new
                   arguments, the repeated call, the third tool's), no call runs more than 3
                   times, and at least one repeat was not run (refused, or the run stopped at
                   it). A guard by tool name alone (a tool refused after N runs, whatever its
                   arguments) cannot hold both runs, whatever N; one counting only in a row
                   never sees the repeat asked between others; one keyed on the arguments alone
                   refuses the third tool; one that answers only the first call of a message
                   leaves the others unanswered, and the API refuses its next request.
    unanswered_tool_calls
                   the model asks for 2 to 4 calls in one message. Held: the next request
                   answers every call id with a tool message (the API refuses one that does not).

How a run is bounded: the grader waits at most `timeout` seconds for each run, then kills the
loop's process with everything it started (SIGKILL to its process group); the next run starts
a fresh one. A hung tool of the gauntlet runs on a thread of the grader's and is released when
its check ends. The checks run in an order drawn from the seed; grade() prints one line that
grows a dot per check.

Left out on purpose: grading the answer's wording, and anything that needs a real model.
"""

from __future__ import annotations

import random
import sys

from .boundary import CannotSendLoop, LoopProcess
from .checks import CHECKS, warm_up
from .draws import Draws, fresh_seed
from .report import Entry, Report

CHAPTER_CHECKS = ["answers", "right_tool", "call_ids", "history", "plain_result", "fresh_run",
                  "max_steps", "budget", "stop_names_limit", "allowlist", "bad_json",
                  "unencodable", "tool_error", "truncation", "observability"]
BEYOND_THE_CHAPTER = ["time", "repeats", "unanswered_tool_calls"]
DEFAULT_TIMEOUT = 2.0


def grade(run_agent, *, timeout: float = DEFAULT_TIMEOUT, only=None,
          seed: int | None = None) -> Report:
    """Run every check (or those named in `only`) on run_agent and return the Report.

    timeout: seconds each run may take before it counts as hung (and the time check's limit).
    seed:    draws the same names, tasks, limits and costs as an earlier grade with that seed
             (the report shows it); None draws new ones.
    """
    if not callable(run_agent):
        raise TypeError(f"grade() needs your run_agent function, not {type(run_agent).__name__}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed is a whole number (or None for new draws), not {seed!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise TypeError(f"timeout is a number of seconds above 0, not {timeout!r}")
    names = list(CHECKS) if only is None else list(only)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"no check named {', '.join(unknown)}; the checks are {', '.join(CHECKS)}")
    asked = {key: value for key, value, default in (("timeout", timeout, DEFAULT_TIMEOUT),
                                                     ("only", only, None), ("seed", seed, None))
             if value != default}
    seed = fresh_seed() if seed is None else seed
    try:
        loop = LoopProcess(run_agent)  # on its way while the grader warms up
    except CannotSendLoop as e:
        raise TypeError(str(e)) from None
    entries = {}
    # The checks run in an order drawn from the seed: a loop that counts its runs learns
    # nothing of which check it is in. The report lists them in the usual order.
    order = random.Random(f"order-{seed}").sample(names, len(names))
    progress = Progress(len(order))
    try:
        warm_up()
        for name in order:
            entries[name] = CHECKS[name](loop, timeout, Draws(seed, name))
            progress.advance()
    finally:
        loop.close()
        progress.done()
    return Report([entries[name] for name in names], seed=seed, asked=asked)


class Progress:
    """One line that grows while the checks run, so a grade of several seconds is never silent:
    "grading: 18 checks .................. done". The same text at every run (nbval compares
    it), whatever the checks' order or time."""

    def __init__(self, count: int):
        self.out = sys.stdout
        self.out.write(f"grading: {count} check{'s' * (count != 1)} ")
        self.out.flush()

    def advance(self) -> None:
        self.out.write(".")
        self.out.flush()

    def done(self) -> None:
        self.out.write(" done\n")
        self.out.flush()


__all__ = ["grade", "Report", "Entry", "CHECKS", "CHAPTER_CHECKS", "BEYOND_THE_CHAPTER"]
