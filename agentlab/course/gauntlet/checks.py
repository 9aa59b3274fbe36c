"""The gauntlet's checks: each sets a scripted model and hostile tools on the loop, then judges
what the watched client and tools recorded. The meaning of each check is in the package's
docstring (agentlab/course/gauntlet/__init__.py); this file is how each is carried out.

Every check takes its names, arguments, tasks, limits and costs from a Draws (draws.py), so
what a check asks is the same from grade to grade, but never the names or numbers it asks it
with.
"""

from __future__ import annotations

import datetime
import json
import linecache
import os
import re
import threading
import types

from agentlab.pricing import cost_usd
from agentlab.records import redact
from agentlab.server import handle
from agentlab.tutor.reading import JSON_NAMED, cut_note_in, error_in_text

from ..checks._common import without_ellipses
from . import scripted as s
from .boundary import PRICED_AS, LoopProcess
from .draws import Draws
from .report import Entry
from .watch import Trial

MODEL = "tutor"           # the name the loop passes on; the scripted model answers to it
# The checks whose verdict depends on a limit's value run twice, with different numbers (as
# otter's hidden variants do): a loop that hard-codes a count instead of reading its argument
# behaves the same at both settings, and that is what gives it away.
FEWER_STEPS, MORE_STEPS = (2, 4), (5, 7)  # the ranges of the max_steps check's two limits
MAX_RESULT_CHARS = 20_000  # the longest message allowed after a flood of a tool result
MAX_IDENTICAL_RUNS = 3    # how often the repeats check lets the same call run
NEVER_STOPS = 25          # replies before a never-stopping model gives up and answers
LIBRARY_HINT = ("this row grades a loop you wrote: agentlab.run_agent is the reference to "
                "compare yours with, not the answer; write the loop itself")
REPEAT_HINT = ("remember the calls of this run (name and arguments) and refuse, with an error, "
               f"one that already ran {MAX_IDENTICAL_RUNS} times: the same tool with the same "
               f"arguments runs at most {MAX_IDENTICAL_RUNS} times in a run")
REPEAT_BY_NAME_HINT = ("a guard by tool name alone refuses new questions: a repeat is the same "
                       "tool AND the same arguments; compare both, so the same tool asked with "
                       "other arguments still runs")
REPEAT_BY_ARGUMENTS_HINT = ("a repeat is the same tool AND the same arguments: key the guard on "
                            "(name, arguments), so another tool asked with the same arguments "
                            "still runs")
REPEAT_IN_A_ROW_HINT = (REPEAT_HINT + "; count each call over the whole run, not only in a row: "
                        "asked between other calls, it is still the same call")
FRESH_CONVERSATION_HINT = (
    "start a fresh conversation at each call of run_agent: make messages inside it (your "
    "system message if you send one, then {'role': 'user', 'content': user_message}), not a "
    "list kept outside it (a global) between runs. A run was sent an earlier run's messages, so "
    "what this row read is mixed with theirs: fix that first, then grade again")
MARKER_HINT = ("mark a failure as one, so the model knows its call failed: "
               "json.dumps({'error': ...}), or text starting 'Error:'")


def _watch(loop: LoopProcess, task: str, tools: list, reply, timeout: float, *,
           max_steps: int = 10, max_cost_usd: float = 0.50, on_abandon=()) -> Trial:
    """Run the student's loop once, in its own process, on a scripted model and watched tools.
    reply(n) is the model's n-th reply (scripted.py); reply may also be a respond function
    that reads the conversation (scripted.reading)."""
    respond = reply if getattr(reply, "reads_the_conversation", False) else s.scripted(reply)
    trial = loop.run(task, tools, respond, timeout, max_steps=max_steps,
                     max_cost_usd=max_cost_usd, on_abandon=on_abandon)
    _read_where_it_raised(trial.raised, getattr(loop, "written", None))
    return trial


def warm_up() -> None:
    """A request through the server outside any timed run, with a message of every role a
    loop sends: the request checks compile a validator per kind of message on first use (0.4 s
    here, seconds on a busy machine), which a student's first check should not pay for."""
    call = s.tool_call(0, 0, "calculate", {"expression": "1 + 1"})
    conversation = [{"role": "system", "content": "You are a helpful assistant."},
                    {"role": "user", "content": "Ready?"}, s.asks(call, content="Let me see."),
                    {"role": "tool", "tool_call_id": call["id"], "content": '{"result": 2}'}]
    for messages in (conversation[:2], conversation):
        body = json.dumps({"model": MODEL, "messages": messages,
                           "tools": [s.calculator().schema]}).encode()
        handle("POST", "/v1/chat/completions", body, respond=s.scripted(lambda n: None))
    cost_usd(PRICED_AS, 1, 1)  # the first price lookup loads genai-prices' database


def _clip(text: str, limit: int) -> str:
    """Text on one line, cut to `limit` characters.

    Example: _clip("  x = {\n  'a': 1}", 9) -> "x = { ..." """
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short(value, limit: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _run_failed(trial: Trial, timeout: float) -> tuple[str, str] | None:
    """Why the run itself failed (the loop's part, a hint), or None if it returned text."""
    if not trial.finished:
        return f"did not return within {timeout:g} s", ""
    error = trial.raised
    if error is None and trial.returned is None and trial.requests:  # a loop, not a stub
        return "returned None", ("return text however the run ends: when a limit stops it, a "
                                 "sentence that says which limit")
    if getattr(error, "not_implemented", False) or (error is None and trial.returned is None):
        what = "raised NotImplementedError" if error else "returned None"
        return what, "fill in run_agent: it returns the model's answer text"
    if error is not None:
        kind = getattr(error, "type_name", type(error).__name__)
        return f"raised {kind}: {_short(str(error), 120)}", ""
    if not isinstance(trial.returned, str):
        kind = getattr(trial.returned, "type_name", type(trial.returned).__name__)
        return (f"returned {kind} {_short(trial.returned)}",
                "run_agent returns text: the model's answer, or why the run stopped")
    return None


def _returned(trial: Trial) -> str:
    return f"returned {_short(trial.returned)}"


def _entry(name, trial, held, expect, model, loop, hint="", chapter=True) -> Entry:
    """One check's entry; trial may be a list of runs (one per setting): their costs add up.
    A run handed to agentlab.run_agent is the library's work, not the student's: it breaks."""
    trials = trial if isinstance(trial, list) else [trial]
    left_over = max(t.left_over for t in trials)
    if any(t.library for t in trials):
        held, hint = False, LIBRARY_HINT
        how = f"{trials[0].library_code}: " if trials[0].library_code else ""
        loop = (f"handed the run to agentlab.run_agent ({how}the library's loop, not yours); "
                f"{loop}")
    elif left_over and not held:  # whatever else broke, the row read an earlier run's messages
        hint = FRESH_CONVERSATION_HINT
        loop += (f"; a run's first model call was sent {left_over} message"
                 f"{'s' * (left_over != 1)} of an earlier run (its task, the model's replies)")
    return Entry(name=name, held=held, expect=expect, model=model, loop=redact(loop),
                 cost_usd=sum(t.cost_usd for t in trials),
                 calls=sum(len(t.requests) for t in trials),
                 hint="" if held else hint, chapter=chapter)


def _answer_to(trial: Trial, call_id: str) -> str | None:
    """The content of the tool message answering call_id in the first request that has one."""
    for request in trial.requests:
        for m in request.messages:
            if m.get("role") == "tool" and m.get("tool_call_id") == call_id:
                content = m.get("content")
                return content if isinstance(content, str) else str(content)
    return None


def _reads_as_failure(content: str | None) -> bool:
    """The rule of notebook 01's check_observe: a failure is marked as one ({"error": ...},
    "Error: ...", an exception as Python prints it), or the model reads it as a result."""
    return bool(content) and error_in_text(content) is not None


def _names_what_went_wrong(content: str | None, clues) -> bool:
    """The failure sent back says what went wrong: it names one of `clues` (the exception's
    message, the tool asked for, the JSON problem), case aside; `clues` may be a pattern.
    A vague "the tool failed" leaves the model guessing (notebook 4a shows it giving up)."""
    if not content:
        return False
    if isinstance(clues, re.Pattern):
        return clues.search(content) is not None
    return any(clue.lower() in content.lower() for clue in clues)


VAGUE_ERROR = "; that error does not say what went wrong"


def _failed_entry(name, trial, failure, expect, model, hint, chapter=True, before="") -> Entry:
    """A run that failed (see _run_failed); before: the evidence of earlier runs of the check.
    A run that raised (its last trial) is told so before the row's own advice: the row could
    not be judged, and the row's advice alone sends the student to the wrong fix."""
    what, generic_hint = failure
    trials = trial if isinstance(trial, list) else [trial]
    raised = trials[-1].raised
    if not generic_hint and raised is not None:
        hint = f"{_fix_the_raise_first(raised)}; then, for this row: {hint}"
    return _entry(name, trials, False, expect, model, f"{before}{what}; {_requests(trials[-1])}",
                  generic_hint or hint, chapter)


def _fix_the_raise_first(error) -> str:
    """What the run raised and where, to fix before the row's own advice.

    Example: -> "first fix what the run raised: KeyError: 'cost' in my_loop (line 9 of its
             cell: `spent += usage['cost']`), so that the run ends with text"
    """
    kind = getattr(error, "type_name", type(error).__name__)
    where = _where(getattr(error, "where", None) or {})
    return redact(f"first fix what the run raised: {kind}: {_clip(str(error), 100)}{where}, "
                  "so that the run ends with text")


def _where(seen: dict) -> str:
    """Where the exception left the student's code, in words (see _read_where_it_raised).

    Example: {"function": "my_loop", "line": 9, "file": "helpers.py", "code": "x = y[0]"}
             -> " in my_loop (helpers.py, line 9: `x = y[0]`)"
    """
    function, line, file = seen.get("function"), seen.get("line"), seen.get("file")
    if not isinstance(function, str) or not isinstance(line, int) or not isinstance(file, str):
        return ""
    code = seen.get("code") if isinstance(seen.get("code"), str) else ""
    shown = f": `{_clip(code, 80)}`" if code.strip() else ""
    return f" in {_clip(function, 40)} ({_place(file, line, seen.get('cell') is True)}{shown})"


def _place(file: str, line: int, cell: bool) -> str:
    """Example: ("/a/helpers.py", 9, False) -> "helpers.py, line 9";
                ("<dynamic-code>", 9, False) -> "line 9" (its file unknown)"""
    if cell:
        return f"line {line} of its cell"
    if file.startswith("<"):
        return f"line {line}"
    return f"{_clip(os.path.basename(file), 60)}, line {line}"


def _read_where_it_raised(error, written) -> None:
    """Where the run raised, completed from the loop as written, which this process holds: the
    loop's process names the function and line, but a function sent by value has lost its file
    (runner.where_raised). Its code is found here by the function's name and first line, and
    the line read from that code's file: a notebook cell as the kernel keeps it, or a file on
    disk. A file the loop's process names is never read: a hint is shown to the student."""
    where = getattr(error, "where", None)
    if not isinstance(where, dict) or where.get("code") or written is None:
        return
    code = next((c for c in _codes(written) if c.co_name == where.get("function")
                 and c.co_firstlineno == where.get("first_line")), None)
    line = where.get("line")
    if code is None or not isinstance(line, int):
        return
    text = _cell_line(code.co_filename, line)
    where.update(file=code.co_filename, cell=bool(text),
                 code=text or linecache.getline(code.co_filename, line))


def _codes(function, most: int = 2_000):
    """The code the loop as written may run: its own, its nested functions', its closures', and
    the functions it names from its module (its helpers), as far as they reach."""
    stack, seen = [(function, getattr(function, "__globals__", {}))], set()
    while stack and len(seen) < most:
        item, names = stack.pop()
        code = getattr(item, "__code__", item)
        if not isinstance(code, types.CodeType) or id(code) in seen:
            continue
        seen.add(id(code))
        yield code
        names = getattr(item, "__globals__", names)
        stack += [(c, names) for c in code.co_consts if isinstance(c, types.CodeType)]
        stack += [(names[n], names) for n in code.co_names
                  if isinstance(names.get(n), types.FunctionType)]
        for cell in getattr(item, "__closure__", None) or ():
            try:
                if isinstance(cell.cell_contents, types.FunctionType):
                    stack.append((cell.cell_contents, names))
            except ValueError:  # an empty cell
                pass


def _cell_line(file: str, line: int) -> str:
    """The text of a line of a notebook cell, as this process (the kernel) keeps the cells'
    code in memory; "" for anything else."""
    entry = linecache.cache.get(file)
    if not (isinstance(entry, tuple) and len(entry) == 4 and entry[1] is None):
        return ""  # IPython keeps a cell as (size, None, lines, name); a file has its mtime
    lines = entry[2]
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _calls(count: int) -> str:
    """Example: 1 -> "1 call"; 3 -> "3 calls" """
    return f"{count} call{'s' * (count != 1)}"


def _requests(trial: Trial) -> str:
    refused = [r.error for r in trial.requests if r.error]
    made = f"made {len(trial.requests)} model call{'s' * (len(trial.requests) != 1)}"
    return made + (f" (the API refused one: {refused[0]})" if refused else "")


def _call(name: str, argument: str, value) -> str:
    """Example: _call("scan_invoice", "ref", "K-12") -> "scan_invoice(ref='K-12')" """
    return f"{name}({argument}={value!r})"


def _lookup(draw: Draws, result_of=None) -> tuple[s.HostileTool, str]:
    """A well-behaved tool with drawn names: (the tool, its argument's name).
    result_of(value) is its result; by default a record with a drawn number."""
    name, argument = draw.tool_name(), draw.argument()
    if result_of is None:
        def result_of(value):
            return {argument: value, "count": len(value) * 7 + 3}
    return s.one_argument_tool(name, argument, f"Look up a {name.split('_')[-1]}.",
                               result_of), argument


def _asks_one(name: str, argument: str, values) -> callable:
    """A script that asks name(argument=values[n]) at reply n, then answers."""
    return lambda n: (s.asks(s.tool_call(n, 0, name, {argument: values[n]}))
                      if n < len(values) else None)


# ---------------------------------------------------------------------------------------------


def check_answers(run_agent, timeout: float, draw: Draws) -> Entry:
    """The plain loop: one tool call, then the model's answer comes back as the return value."""
    value, total = draw.ident(), draw.integer(100, 99_999)
    tool, argument = _lookup(draw, lambda v: {"total": total})
    final = f"The total for {value} is {total}."
    expect = ("the tools are offered on every call, a tool call is run and its result sent "
              "back, the model's answer is returned")
    model = f"asks {_call(tool.name, argument, value)}, then answers {final!r}"
    trial = _watch(run_agent, f"What is the total for {value}?", [tool],
                   lambda n: s.asks(s.tool_call(n, 0, tool.name, {argument: value}))
                   if n == 0 else s.answers(final), timeout)
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("answers", trial, failure, expect, model,
                             "send the model's tool calls to tool_impls and the results back")
    ran = [c.name for c in trial.tool_calls]
    result = _answer_to(trial, "call_0_0")
    toolless = [n for n, r in enumerate(trial.requests) if tool.name not in r.tools]
    held = ran == [tool.name] and result is not None and str(total) in result and (
        trial.returned.strip() == final) and not toolless
    loop = f"ran {ran or 'no tool'}, sent back {_short(result)}, {_returned(trial)}"
    hint = "return response.message['content'] when the model answers without a tool call"
    if toolless:
        loop += f"; model call {toolless[0] + 1} was sent without the tools"
        hint = "send tools=tools with every client.chat call: the model can only ask for those"
    return _entry("answers", trial, held, expect, model, loop, hint)


# A sentence that says the step limit stopped the run names steps (or calls, turns, rounds,
# iterations, attempts, requests, the maximum or what is allowed) or the limit's number:
# "Stopped: step limit reached.", "Gave up after 3 tries", "No answer within the allowed
# number of requests." "Stopped." or "" says nothing; "cost limit reached" names another.
# Whole words (or their start: "steps", "iterations"), so "returned" does not say "turn" nor
# "countries" say "tries".
STEP_LIMIT_WORDS = re.compile(
    r"\b(?:step|iteration|turn|round|loop|cycle|attempt|tries|calls?\b|requests?\b|max|allowed)",
    re.IGNORECASE)
# One that says the budget stopped it names the budget, the cost, the spending, the money or
# its amount: "Stopped: over budget.", "cost limit reached", "spent $0.0021 of $0.002", "out of
# money", "max_cost_usd reached", "too expensive". "Stopped: step limit reached." names another
# limit. A word starts after no letter, so `max_cost_usd` and `over_budget` count and
# "suspended", "percent", "refunds" or "accosted" do not.
BUDGET_WORDS = re.compile(r"\$|(?<![a-z])(?:budget|cost|(?:over)?spen[dt]|money|dollar|usd|"
                          r"pric(?:e|ing)|cents?\b|expens|funds?\b)", re.IGNORECASE)


def _says_why_it_stopped(trial: Trial, words: re.Pattern, limit) -> bool:
    """The returned text says the limit stopped the run (one of `words`, or the limit's value);
    or the loop wound down (its last call asked for a final answer with tool_choice="none")
    and returned the model's answer."""
    text = trial.returned
    if words.search(text) or re.search(rf"\b{re.escape(str(limit))}\b", text):
        return True
    wound_down = trial.requests and trial.requests[-1].tool_choice == "none"
    return bool(wound_down) and text.strip() == s.FINAL_ANSWER


def check_max_steps(run_agent, timeout: float, draw: Draws) -> Entry:
    limits = draw.shuffled([draw.integer(*FEWER_STEPS), draw.integer(*MORE_STEPS)])
    tool, argument = _lookup(draw)
    values = draw.idents(NEVER_STOPS)
    expect = (f"with max_steps={limits[0]}, then again with max_steps={limits[1]}: exactly "
              "that many model calls (the model never stops asking), then text saying the step "
              "limit stopped the run")
    model = f"never stops asking for {tool.name} (gives up after {NEVER_STOPS} replies)"
    hints = []  # what is wrong, most telling first; the first one is the row's hint
    trials, runs = [], []
    for max_steps in limits:
        trial = _watch(run_agent, f"Look up every {tool.name.split('_')[-1]}, one by one.",
                       [tool], _asks_one(tool.name, argument, values), timeout,
                       max_steps=max_steps)
        trials.append(trial)
        failure = _run_failed(trial, timeout)
        if failure:
            before = "".join(f"{run}; " for run in runs)
            return _failed_entry("max_steps", trials, failure, expect, model,
                                 "count the model calls: for step in range(max_steps), and "
                                 "return text after the loop", before=before)
        calls = len(trial.requests)
        run = f"{_requests(trial)} with max_steps={max_steps}, {_returned(trial)}"
        if calls > max_steps:
            hints.append("count the model calls: for step in range(max_steps), and return text "
                         "after the loop")
        elif calls < max_steps:
            hints.append(f"made {_calls(calls)} with max_steps={max_steps}, but the model never "
                         "stopped asking: the loop stops before its limit; for step in "
                         "range(max_steps) makes exactly max_steps calls")
        elif not _says_why_it_stopped(trial, STEP_LIMIT_WORDS, max_steps):
            run += ", which does not say the step limit stopped it"
            hints.append("return a sentence that says the step limit stopped the run, for "
                         f"example 'Stopped: step limit reached ({max_steps} steps).'")
        runs.append(run)
        if calls > NEVER_STOPS:  # no limit at all (the model gave up): a second run would only
            break                # repeat that
    counts = {len(trial.requests) for trial in trials}
    if len(trials) == 2 and len(counts) == 1:  # the same count under both limits
        made = counts.pop()
        hints.insert(0, f"stopped after {made} model call{'s' * (made != 1)} with "
                        f"max_steps={limits[0]} and "
                        f"again with max_steps={limits[1]}: the loop ignores its max_steps "
                        "argument and counts to a number of its own; use the argument: for "
                        "step in range(max_steps)")
    return _entry("max_steps", trials, not hints, expect, model, "; ".join(runs),
                  hints[0] if hints else "")


# The budget check's two runs: one where every call is dear (long musings: the budget ends the
# run within a few calls) and one where every call is cheap (short ones: the budget allows
# many). The length of each reply is drawn, so no price per call can be assumed: a loop that
# counts calls instead of adding up estimate_cost(response) stops too late in one run or too
# early in the other. (chars of musing per reply, the budget in calls of the mean reply)
DEAR = ((5_000, 8_000), (3.0, 4.5))
CHEAP = ((200, 500), (11.0, 14.0))
BUDGET_STEPS = 24  # the step limit of the budget runs: far more than the budgets allow


def _budget_run(draw: Draws, kind) -> tuple[list[str], float]:
    """The musings of one budget run and its budget in dollars."""
    (low, high), (fewest, most) = kind
    sentence = "Let me weigh every angle of this before I act. "
    musings = [(sentence * (high // len(sentence) + 1))[:draw.integer(low, high)]
               for _ in range(BUDGET_STEPS)]
    # A reply's cost, roughly: its tokens (4 characters each) at the output price, plus the
    # conversation so far at the input price; enough to size the budget in calls.
    mean_reply = (low + high) / 2 / 4 * 0.60e-6
    return musings, round(draw.number(fewest, most) * mean_reply * 1.3, 6)


def check_budget(run_agent, timeout: float, draw: Draws) -> Entry:
    tool, argument = _lookup(draw)
    values = draw.idents(BUDGET_STEPS)
    plans = [_budget_run(draw, kind) for kind in draw.shuffled([DEAR, CHEAP])]
    budgets = [budget for _, budget in plans]
    expect = (f"with max_cost_usd={budgets[0]}, then again with max_cost_usd={budgets[1]}: no "
              "model call once the spending is over the budget (the chapter pays, then checks: "
              "one call may cross it), no stop while the budget has room for more calls, then "
              "text saying the budget stopped the run")
    model = ("writes a musing of a drawn length with every tool call, long ones in one run, "
             "short ones in the other, so no call costs a fixed price")
    hint = ("add estimate_cost(response) after every call and stop once the total passes "
            "max_cost_usd: a count of calls is not a budget")
    trials, runs = [], []
    for musings, budget in plans:
        trial = _watch(run_agent, f"Think hard, then look up each {tool.name.split('_')[-1]}.",
                       [tool], lambda n, musings=musings: s.asks(
                           s.tool_call(n, 0, tool.name, {argument: values[n]}),
                           content=musings[n]) if n < BUDGET_STEPS else None,
                       timeout, max_steps=BUDGET_STEPS, max_cost_usd=budget)
        trials.append(trial)
        spent, late_calls = 0.0, 0
        for request in trial.requests:
            if spent > budget:
                late_calls += 1
            spent += request.cost_usd
        failure = _run_failed(trial, timeout)
        if failure:
            before = "".join(f"{run}; " for run in runs)
            if late_calls:  # a loop with no budget may overrun the timeout: it says why
                hint = f"{_calls(late_calls)} after ${budget} was spent: " + hint
                failure = (f"{failure[0]}, {late_calls} model calls after the budget was spent",
                           failure[1])
            return _failed_entry("budget", trials, failure, expect, model, hint, before=before)
        over = (f", ${spent - budget:.6f} over the budget" if spent > budget else
                f", ${spent:.6f} spent")
        late = f", {late_calls} of them after the budget was spent" if late_calls else ""
        runs.append(f"{_requests(trial)} with max_cost_usd={budget}{late}{over}, "
                    f"{_returned(trial)}")
        # A run that stopped while the model still asked for tools, below its step limit, with
        # room left in the budget for one more call as dear as the dearest so far, was not
        # stopped by the budget. (A loop that looks ahead by the last call's cost stops there,
        # rightly; a run that ended by itself, a reply cut at the loop's own max_tokens, says
        # nothing of the budget.)
        asking = bool(trial.requests) and bool((trial.requests[-1].reply or {}).get("tool_calls"))
        dearest = max((r.cost_usd for r in trial.requests), default=0.0)
        early = (asking and not late_calls and len(trial.requests) < BUDGET_STEPS
                 and spent + dearest <= budget)
        if early:
            runs[-1] += ", stopped with room left in the budget"
            hint = (f"made {_calls(len(trial.requests))} with max_cost_usd={budget}, spent "
                    f"${spent:.6f} and stopped while the model still asked, with room for "
                    "more: something other than max_cost_usd stopped it (a fixed count of "
                    "calls, a price per call assumed); stop on the money spent: add up "
                    "estimate_cost(response) and stop once it passes max_cost_usd")
        elif late_calls:
            hint = f"{_calls(late_calls)} after ${budget} was spent: " + hint
        # The budget stopped this run (the model still asked, or the spending crossed the
        # budget): the returned text says so, as max_steps asks of the step limit.
        stopped_by_budget = spent > budget or (asking and len(trial.requests) < BUDGET_STEPS)
        silent = (not late_calls and not early and stopped_by_budget
                  and not _says_why_it_stopped(trial, BUDGET_WORDS, budget))
        if silent and spent <= budget and _says_why_it_stopped(trial, STEP_LIMIT_WORDS,
                                                                BUDGET_STEPS):
            # Under the budget, and it says a step limit stopped it, below the max_steps it was
            # given: a count of its own did (a student review got the budget sentence here,
            # whose example claimed a budget that was not spent).
            runs[-1] += f", which says a step limit stopped it (max_steps was {BUDGET_STEPS})"
            hint = (f"made {_calls(len(trial.requests))} with max_steps={BUDGET_STEPS} and "
                    f"${spent:.6f} of ${budget} spent, and said a step limit stopped it: a count "
                    "of the loop's own stopped it; count to max_steps, and stop on the money: "
                    "add up estimate_cost(response) and stop once it passes max_cost_usd")
        elif silent:
            runs[-1] += ", which does not say the budget stopped it"
            hint = ("return a sentence that says the budget stopped the run, for example "
                    f"'Stopped: the budget of ${budget} is spent (${spent:.6f}).'")
        if late_calls or early or silent:
            return _entry("budget", trials, False, expect, model, "; ".join(runs), hint)
    return _entry("budget", trials, True, expect, model, "; ".join(runs), hint)


def check_allowlist(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a tool the loop was not given is not run; the call is answered with an error "
              "marked as one that names the tool asked for (or the tools there are), and the run "
              "goes on")
    forbidden, (tool, argument) = draw.tool_name(), _lookup(draw)
    asked, value = draw.argument(), draw.ident()
    model = (f"asks {_call(forbidden, asked, value)}, a tool it was not given; then "
             f"{_call(tool.name, argument, value)}; then answers")

    def reply(n):
        if n == 0:
            return s.asks(s.tool_call(n, 0, forbidden, {asked: value}))
        return s.asks(s.tool_call(n, 0, tool.name, {argument: value})) if n == 1 else None
    trial = _watch(run_agent, f"Use {forbidden} on {value}, then look it up.", [tool], reply,
                   timeout)
    hint = "check `name in tool_impls` before calling, and send the refusal back as an error"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("allowlist", trial, failure, expect, model, hint)
    refusal = _answer_to(trial, "call_0_0")
    ran = [c.name for c in trial.tool_calls]
    marked = _reads_as_failure(refusal)
    named = _names_what_went_wrong(refusal, [forbidden, tool.name])
    held = marked and named and ran == [tool.name]
    loop = (f"answered {forbidden} with {_short(refusal)}, ran {ran or 'no tool'}, "
            f"{_returned(trial)}")
    if refusal and not marked:
        loop += "; that answer reads as a result: the model is told a tool it was not given ran"
        hint = ("check `name in tool_impls` before calling, and send the refusal back marked "
                "as an error: json.dumps({'error': ...}), or text starting 'Error:'")
    elif marked and not named:
        loop += VAGUE_ERROR + f" (it names neither {forbidden} nor the tools there are)"
        hint = ("say what went wrong: name the tool the model asked for and the tools it may "
                "use, {'error': f\"unknown tool {name!r}; the tools are: {', '.join(tool_impls)}"
                "\"}, or the model cannot tell what to ask instead")
    return _entry("allowlist", trial, held, expect, model, loop, hint)


def _broken_arguments(argument: str, value: str) -> list[str]:
    """Arguments text a sloppy model writes, none of it valid JSON."""
    return [f'{{"{argument}": "{value}"', f"{{'{argument}': '{value}'}}",
            f'{{"{argument}": "{value}",}}', f"{argument}={value}",
            f'{{"{argument}": "{value}"}}}}']


def check_bad_json(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("malformed arguments do not crash the loop: the call is answered with an error "
              "marked as one that says what was wrong: the arguments are not valid JSON, or "
              "what the parser said")
    tool, argument = _lookup(draw)
    value = draw.ident()
    broken = draw.choice(_broken_arguments(argument, value))
    model = f"sends {tool.name} the arguments {broken!r} (not JSON), then fixes them"

    def reply(n):
        if n == 0:
            return s.asks(s.tool_call(n, 0, tool.name, broken))
        return s.asks(s.tool_call(n, 0, tool.name, {argument: value})) if n == 1 else None
    trial = _watch(run_agent, f"Look up {value}.", [tool], reply, timeout)
    hint = "parse the arguments inside the try: bad JSON is an error to send back, not a crash"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("bad_json", trial, failure, expect, model, hint)
    error = _answer_to(trial, "call_0_0")
    ran = [c.name for c in trial.tool_calls]
    marked = _reads_as_failure(error)
    named = _names_what_went_wrong(error, JSON_NAMED)  # "invalid arguments" does not say why
    held = marked and named and ran == [tool.name]
    loop = f"answered the broken call with {_short(error)}, {_returned(trial)}"
    if error and not marked:
        loop += "; that answer reads as a result, not an error"
        hint = MARKER_HINT
    elif marked and not named:
        loop += VAGUE_ERROR + " (it names neither the JSON nor what the parser said)"
        hint = ("say what went wrong, so the model can fix its call: the arguments are not "
                "valid JSON, with json.loads' message, {'error': f'the arguments are not valid "
                "JSON ({e})'}")
    return _entry("bad_json", trial, held, expect, model, loop, hint)


# (exception, message): what a tool raises in the tool_error check, one drawn per grade.
TOOL_FAILURES = [(RuntimeError, "the {noun} database is unavailable"),
                 (ConnectionError, "the {noun} service refused the connection"),
                 (ValueError, "no {noun} with that id"),
                 (PermissionError, "not allowed to read this {noun}"),
                 (TimeoutError, "the {noun} server did not answer")]


def check_tool_error(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a tool's exception goes back to the model as the call's result, marked as an "
              "error, with its message")
    kind, message = draw.choice(TOOL_FAILURES)
    value, name = draw.ident(), draw.tool_name()
    message = message.format(noun=name.split("_")[-1])

    def fails(_):
        raise kind(message)
    argument = draw.argument()
    tool = s.one_argument_tool(name, argument, "Look something up.", fails)
    model = f"asks {_call(name, argument, value)}; the tool raises {kind.__name__}({message!r})"
    trial = _watch(run_agent, f"What about {value}?", [tool],
                   _asks_one(name, argument, [value]), timeout)
    hint = "wrap the tool call in try/except and send {'error': str(e)} back as its result"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("tool_error", trial, failure, expect, model, hint)
    error = _answer_to(trial, "call_0_0")
    marked = _reads_as_failure(error)
    named = _names_what_went_wrong(error, [message])
    held = marked and named
    loop = f"answered the call with {_short(error)}, {_returned(trial)}"
    if named and not marked:
        loop += "; that answer reads as a result, not an error"
        hint = MARKER_HINT
    elif not held:
        loop += VAGUE_ERROR if marked else ""
        hint += " (the message says what went wrong: keep it)"
    return _entry("tool_error", trial, held, expect, model, loop, hint)


def check_unencodable(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a result JSON cannot encode (a datetime) does not crash the loop: the call is "
              "answered, with the value as text or an error, and the run goes on")
    when = datetime.datetime(draw.integer(2020, 2030), draw.integer(1, 12), draw.integer(1, 28),
                             draw.integer(0, 23), draw.integer(0, 59))
    tool, argument = _lookup(draw, lambda v: {"found": v, "updated": when})
    value = draw.ident()
    model = (f"asks {_call(tool.name, argument, value)}, which returns a datetime "
             f"({when.isoformat()}); then answers")
    trial = _watch(run_agent, f"When was {value} last updated?", [tool],
                   _asks_one(tool.name, argument, [value]), timeout)
    hint = ("turn the result into text inside the try, or with json.dumps(result, default=str):"
            " a datetime is not JSON")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("unencodable", trial, failure, expect, model, hint)
    sent = _answer_to(trial, "call_0_0")
    carries = bool(sent) and str(when.year) in sent
    held = (carries or _reads_as_failure(sent)) and len(trial.requests) >= 2
    loop = f"answered the call with {_short(sent)}, {_returned(trial)}"
    if sent is None:  # nothing went back: what broke is not the encoding
        loop, hint = _not_sent_back(trial, tool.name)
    return _entry("unencodable", trial, held, expect, model, loop, hint)


def _not_sent_back(trial: Trial, tool_name: str) -> tuple[str, str]:
    """The evidence and hint of a run that returned text before any result of its one tool
    call went back to the model: the loop stopped too soon, whatever it made of the result."""
    ran = f"ran {tool_name}" if trial.tool_calls else f"did not run {tool_name}"
    loop = (f"{ran}, then {_returned(trial)}; {_requests(trial)} and sent no result back: "
            "the model never read it")
    hint = ("after running the model's tool calls, append each result as a tool message and "
            "call the model again: the run ends when the model answers without a tool call, "
            "not after the first tool")
    return loop, hint


def check_truncation(run_agent, timeout: float, draw: Draws) -> Entry:
    chars = draw.integer(300_000, 1_200_000)
    lines = [f"2026-{draw.integer(1, 12):02d}-{draw.integer(1, 28):02d} "
             f"{draw.choice(['INFO', 'WARN', 'DEBUG'])} {draw.ident()} served in "
             f"{draw.integer(1, 900)} ms" for _ in range(40)]
    flood = s.flood_text(lines, chars)
    tool, argument = _lookup(draw, lambda v: flood)
    value = draw.ident()
    expect = (f"after a tool returns {chars:,} characters, no message in the next request is "
              f"longer than {MAX_RESULT_CHARS:,}, and the cut result says it was cut")
    model = f"asks {_call(tool.name, argument, value)}, which returns {chars:,} characters"
    trial = _watch(run_agent, f"What does {value} say?", [tool],
                   _asks_one(tool.name, argument, [value]), timeout)
    hint = "cut each tool result to a few thousand characters before appending it"
    later = trial.requests[1:2]
    longest = max((len(str(m.get("content") or "")) for r in later for m in r.messages), default=0)
    failure = _run_failed(trial, timeout)
    if failure:
        what = f"; the next request carried {longest:,} characters" if later else ""
        return _failed_entry("truncation", trial, (failure[0] + what, failure[1]), expect,
                             model, hint)
    sent = _answer_to(trial, "call_0_0")
    note = cut_note_in(without_ellipses(sent or ""))  # a bare "..." says nothing was cut
    held = bool(later) and longest <= MAX_RESULT_CHARS and note is not None
    said = f", saying {_short(note, 50)}" if note else ", with nothing that says it was cut"
    if sent is not None and not _is_json(sent):
        said += " (no longer valid JSON)"
    loop = (f"sent back {len(sent or ''):,} characters{said}, longest message {longest:,}, "
            f"{_returned(trial)}")
    if later and longest <= MAX_RESULT_CHARS and note is None:
        hint = ("say that the result was cut, and how much, so the model knows it read only "
                "part: text[:4000] + f'... [truncated: {len(text) - 4000:,} characters cut]'")
    return _entry("truncation", trial, held, expect, model, loop, hint)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def check_observability(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("each tool call is shown as it happens: its name with its arguments or its result, "
              "printed or logged after the model asked for it and before the next model call "
              "(stdout, stderr, or log records that pass your logging level)")
    # Each call, and what shows it was that call: its argument or its result. A list of the
    # tools offered names them too, but says nothing about which call ran with what.
    plan, tools = [], []
    for _ in range(2):
        value, found = draw.ident(), draw.ident()
        tool, argument = _lookup(draw, lambda v, found=found: {"found": found})
        tools.append(tool)
        plan.append((tool.name, {argument: value}, (value, found)))
    model = "asks " + ", then ".join(_call(name, *next(iter(arguments.items())))
                                     for name, arguments, _ in plan) + ", then answers"
    trial = _watch(run_agent, f"Look up {plan[0][2][0]}, then {plan[1][2][0]}.", tools,
                   lambda n: s.asks(s.tool_call(n, 0, *plan[n][:2])) if n < len(plan) else None,
                   timeout)
    hint = "print each tool call (its name and arguments) as the loop makes it"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("observability", trial, failure, expect, model, hint)
    text = trial.output.text()
    missing, unnamed = [], []
    for n, (name, _, details) in enumerate(plan):  # the text written between call n and n + 1
        window = (text[trial.requests[n].output_before:trial.requests[n + 1].output_before]
                  if n + 1 < len(trial.requests) else "")
        if name not in window:
            missing.append(name)
        elif not any(detail in window for detail in details):
            unnamed.append(name)
    lines = [line for line in text.splitlines() if line.strip()]
    held = not missing and not unnamed
    seen = f"printed or logged {len(lines)} line{'s' * (len(lines) != 1)}"
    if missing:
        seen += f"; not named as it ran: {', '.join(missing)}"
    if unnamed:
        seen += (f"; named without its arguments or result: {', '.join(unnamed)}")
        hint = ("show the call itself, not just the tool's name: print the name with its "
                "arguments (or its result) after the model asks for it")
    if held:
        seen += ", showing each call as it ran"
    loop = seen + (f": {_short(lines[0], 60)}" if lines else "")
    return _entry("observability", trial, held, expect, model, loop, hint)


# --- the loop itself: right on ordinary tasks (notebooks 02 and 03 teach each) ---------------


def _distinct_tools(draw: Draws, count: int, result_of) -> list[tuple[s.HostileTool, str]]:
    """`count` well-behaved tools with different drawn names and arguments."""
    tools, names = [], set()
    while len(tools) < count:
        tool, argument = _lookup(draw, result_of)
        if tool.name not in names:
            names.add(tool.name)
            tools.append((tool, argument))
    return tools


def check_right_tool(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("each call runs the tool it names, with the arguments it gives, the calls of one "
              "message too: the model's choice of tool is followed, never the first tool, the "
              "first call's tool or a guess")
    offered = _distinct_tools(draw, 3, lambda v: {"found": v})
    # One call to a tool that is not the first, then two calls to two different tools in one
    # message: a loop that reads the tool's name once a message runs one tool for both.
    picks = [offered[draw.integer(1, 2)], *draw.shuffled(offered)[:2]]
    asked = [(tool.name, {argument: draw.ident()}) for tool, argument in picks]
    shown = [_call(n, *next(iter(a.items()))) for n, a in asked]
    model = (f"asks {shown[0]}, then {shown[1]} and {shown[2]} in one message, then answers "
             f"(the tools offered: {', '.join(t.name for t, _ in offered)})")
    steps = [[asked[0]], asked[1:]]
    trial = _watch(run_agent, "Look up what I need.", [tool for tool, _ in offered],
                   lambda n: s.asks(*(s.tool_call(n, i, *call) for i, call in enumerate(steps[n])))
                   if n < len(steps) else None, timeout)
    hint = ("run the tool the call names: tool_impls[call.function.name], with "
            "**json.loads(call.function.arguments)")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("right_tool", trial, failure, expect, model, hint)
    ran = [(c.name, c.arguments) for c in trial.tool_calls]
    # the two calls of one message may run in either order (a loop may run them on threads)
    held = ran[:1] == asked[:1] and sorted(map(repr, ran[1:])) == sorted(map(repr, asked[1:]))
    loop = "ran " + (", ".join(_call(n, *next(iter(a.items()), ("", ""))) for n, a in ran)
                     or "no tool") + f", {_returned(trial)}"
    return _entry("right_tool", trial, held, expect, model, loop, hint)


def check_call_ids(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("each result goes back under its own call's id (tool_call_id), the parallel calls "
              "of one message included: the model reads which result answers which call")
    count = draw.integer(2, 4)
    values = draw.idents(count + 1)
    codes = {v: f"{draw.ident()}-{draw.integer(100, 999)}" for v in values}
    tool, argument = _lookup(draw, lambda v: {"found": v, "code": codes.get(v)})
    model = (f"asks {count} calls of {tool.name} in one message, then one more, then answers; "
             "each result holds a code of its own")

    def reply(n):
        if n == 0:
            return s.asks(*[s.tool_call(0, i, tool.name, {argument: v})
                            for i, v in enumerate(values[:count])])
        return s.asks(s.tool_call(1, 0, tool.name, {argument: values[count]})) if n == 1 else None
    trial = _watch(run_agent, f"Look up {', '.join(values)}.", [tool], reply, timeout)
    hint = ("answer each call with its own id: {'role': 'tool', 'tool_call_id': call.id, "
            "'content': the result of that call}, inside the loop over response.tool_calls")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("call_ids", trial, failure, expect, model, hint)
    wrong = []
    calls = [(f"call_0_{i}", v) for i, v in enumerate(values[:count])] + [
        ("call_1_0", values[count])]
    for call_id, value in calls:
        sent = _answer_to(trial, call_id)
        others = [codes[v] for v in values if v != value]
        if sent is None or codes[value] not in sent or any(o in sent for o in others):
            wrong.append(f"{call_id} got {_short(sent, 50)} (its own code is {codes[value]})")
    held = not wrong
    loop = (f"answered every call with its own result, {_returned(trial)}" if held
            else "; ".join(wrong[:2]) + f", {_returned(trial)}")
    ran = {str(record.arguments.get(argument)) for record in trial.tool_calls}
    never_ran = [v for call_id, v in calls
                 if v not in ran and _answer_to(trial, call_id) is not None]
    if wrong and never_ran:  # answered, never run: the loop refused it of its own accord
        loop += f"; {tool.name} never ran for {', '.join(never_ran)}"
        hint = (f"the loop answered a call without running it ({tool.name} for "
                f"{never_ran[0]}, a new question): a check of its own refused it. A repeat guard "
                "keyed on the tool's name alone refuses new questions: key it on the name and "
                "the arguments, (name, arguments)")
    return _entry("call_ids", trial, held, expect, model, loop, hint)


def check_history(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("the conversation keeps what earlier steps learned: every model call is sent the "
              "task, every earlier reply and every result so far, so an answer that needs the "
              "first result can be given")
    first, second = draw.ident(), draw.ident()
    secrets = {first: f"{draw.ident()}-{draw.integer(1000, 9999)}",
               second: f"{draw.ident()}-{draw.integer(1000, 9999)}"}
    tool, argument = _lookup(draw, lambda v: {"key": secrets.get(v)})
    model = (f"asks {_call(tool.name, argument, first)}, then "
             f"{_call(tool.name, argument, second)}, then answers with both keys, if the "
             "conversation it is sent still holds them")

    def reply(n, messages):
        if n < 2:
            return s.asks(s.tool_call(n, 0, tool.name, {argument: (first, second)[n]}))
        seen = json.dumps(messages)
        kept = [secrets[v] for v in (first, second) if secrets[v] in seen]
        if len(kept) == 2:
            return s.answers(f"The keys are {kept[0]} and {kept[1]}.")
        return s.answers("I no longer have the first key: it is not in what I was sent.")
    trial = _watch(run_agent, f"Find the keys of {first} and {second}.", [tool],
                   s.reading(reply), timeout)
    hint = ("keep one messages list for the whole run and send all of it every time: the task, "
            "each assistant message (with its tool_calls), each tool result")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("history", trial, failure, expect, model, hint)
    both = all(secrets[v] in trial.returned for v in (first, second))
    lost = [n + 1 for n in range(1, len(trial.requests))
            if not _keeps(trial.requests[n - 1], trial.requests[n])]
    held = both and not lost
    loop = _returned(trial)
    if lost:
        loop += (f"; model call {lost[0]} was not sent everything call {lost[0] - 1} was, "
                 "with its reply and results")
    return _entry("history", trial, held, expect, model, loop, hint)


def _keeps(before, after) -> bool:
    """A request keeps the one before it: its messages, then that call's reply, come first."""
    kept = [json.dumps(m, sort_keys=True) for m in after.messages]
    earlier = [json.dumps(m, sort_keys=True) for m in before.messages]
    if kept[:len(earlier)] != earlier:
        return False
    reply = before.reply or {}
    calls = [c.get("id") for c in reply.get("tool_calls") or []]
    rest = after.messages[len(earlier):]
    return bool(rest) and rest[0].get("role") == "assistant" and [
        c.get("id") for c in rest[0].get("tool_calls") or []] == calls


def check_plain_result(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a tool's result goes back as a result, not marked as a failure: the model is "
              "told its call worked")
    count, value = draw.integer(10, 9_999), draw.ident()
    tool, argument = _lookup(draw, lambda v: {"found": v, "count": count})
    model = f"asks {_call(tool.name, argument, value)}, then answers"
    trial = _watch(run_agent, f"How many {value} are there?", [tool],
                   _asks_one(tool.name, argument, [value]), timeout)
    hint = ("send a result back as it is, json.dumps(result); only a failure is marked as one "
            "({'error': ...})")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("plain_result", trial, failure, expect, model, hint)
    sent = _answer_to(trial, "call_0_0")
    # {"error": null, "result": ...} holds: null reads as "no error", to a model as to
    # error_in_text; the result is there, not marked as a failure.
    held = bool(sent) and str(count) in sent and not _reads_as_failure(sent)
    loop = f"sent back {_short(sent)}, {_returned(trial)}"
    if sent and _reads_as_failure(sent):
        loop += "; that reads as a failure: the model is told its call failed"
    return _entry("plain_result", trial, held, expect, model, loop, hint)


def check_fresh_run(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a run starts with nothing left from an earlier one: not its messages, not its "
              f"repeat memory (a call that ran {MAX_IDENTICAL_RUNS} times in one run runs again "
              "in the next), not its spending")
    tool, argument = _lookup(draw)
    value, other = draw.ident(), draw.ident()
    tasks = [f"Check {value} for me.", f"Check {value} again, please, for {other}."]
    model = (f"in a first run, asks {_call(tool.name, argument, value)} {MAX_IDENTICAL_RUNS} "
             "times, then answers; in a second run, in the same process, asks it once, then "
             "answers")
    first = _watch(run_agent, tasks[0], [tool],
                   _asks_one(tool.name, argument, [value] * MAX_IDENTICAL_RUNS), timeout)
    hint = ("make the run's state inside run_agent, new at every call of it: the messages, the "
            "repeat guard's memory, the cost so far; nothing kept in globals between runs")
    failure = _run_failed(first, timeout)
    if failure:
        return _failed_entry("fresh_run", first, failure, expect, model, hint)
    second = _watch(run_agent, tasks[1], [tool], _asks_one(tool.name, argument, [value]),
                    timeout)
    failure = _run_failed(second, timeout)
    if failure:
        return _failed_entry("fresh_run", [first, second], failure, expect, model, hint,
                             before="the first run returned; the second ")
    ran_again = len(second.tool_calls) == 1
    held = ran_again and not second.left_over  # _entry says what was left over
    loop = f"second run: ran {tool.name} {len(second.tool_calls)} time(s), {_returned(second)}"
    if not ran_again:
        loop += "; the call did not run: the first run's repeats were still counted"
    return _entry("fresh_run", [first, second], held, expect, model, loop, hint)


def _template(text: str) -> str:
    """A stop sentence with its numbers taken out: two sentences that differ only in
    numbers say the same thing.

    Example: "Stopped after 4 calls ($0.0012)" -> "Stopped after # calls ($#)"
    """
    return re.sub(r"\d+(?:[.,]\d+)*", "#", text.strip())


def check_stop_names_limit(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("a stop says which limit stopped the run: a step-limit stop names the steps, a "
              "budget stop names the budget, and the two do not say the same thing")
    tool, argument = _lookup(draw)
    values = draw.idents(BUDGET_STEPS)
    steps = draw.integer(*FEWER_STEPS)
    musings, budget = _budget_run(draw, DEAR)
    model = (f"never stops asking for {tool.name}: once with max_steps={steps} (a budget it "
             f"never reaches), once with max_cost_usd={budget} (a step limit it never reaches)")
    runs = {}
    for kind, limits, says in (("steps", {"max_steps": steps, "max_cost_usd": 0.50},
                                STEP_LIMIT_WORDS),
                               ("budget", {"max_steps": BUDGET_STEPS, "max_cost_usd": budget},
                                BUDGET_WORDS)):
        trial = _watch(run_agent, f"Look up every {tool.name.split('_')[-1]} you can.", [tool],
                       lambda n: s.asks(s.tool_call(n, 0, tool.name, {argument: values[n]}),
                                        content=musings[n] if kind == "budget" else None)
                       if n < BUDGET_STEPS else None, timeout, **limits)
        runs[kind] = trial
        failure = _run_failed(trial, timeout)
        if failure:
            return _failed_entry("stop_names_limit", list(runs.values()), failure, expect, model,
                                 "return text that says which limit stopped the run")
    texts = {k: t.returned for k, t in runs.items()}
    wound_down = {k: t.requests and t.requests[-1].tool_choice == "none"
                  and texts[k].strip() == s.FINAL_ANSWER for k, t in runs.items()}
    names_own = {"steps": _says_why_it_stopped(runs["steps"], STEP_LIMIT_WORDS, steps),
                 "budget": _says_why_it_stopped(runs["budget"], BUDGET_WORDS, budget)}
    same = (_template(texts["steps"]) == _template(texts["budget"])
            and not all(wound_down.values()))
    held = all(names_own.values()) and not same
    loop = f"returned {_short(texts['steps'], 60)} and {_short(texts['budget'], 60)}"
    hint = ("name the limit that stopped the run, each its own: 'Stopped: the step limit (4) was "
            "reached' is not 'Stopped: the $0.002 budget was spent'")
    if same:
        loop += "; the same sentence for both limits: it does not say which one stopped the run"
    return _entry("stop_names_limit", list(runs.values()), held, expect, model, loop, hint)


# --- beyond the chapter ----------------------------------------------------------------------


def check_time(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = (f"a tool that never returns does not hold up the run: it returns text within "
              f"{timeout:g} s, and the hung call is answered with an error")
    release = threading.Event()
    name, argument, value = draw.tool_name(), draw.argument(), draw.ident()
    tool = s.one_argument_tool(name, argument, "Wait for news.", s.hangs(release))
    model = f"asks {_call(name, argument, value)}, a tool that never returns on its own"
    trial = _watch(run_agent, f"Any news on {value}?", [tool],
                   _asks_one(name, argument, [value]), timeout, on_abandon=[release.set])
    release.set()
    hint = ("run each tool call in a thread and wait about a second at most "
            "(worker.join(timeout), notebook 4b); send back an error if it has not finished")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("time", trial, failure, expect, model, hint, chapter=False)
    reply = _answer_to(trial, "call_0_0")
    # A loop may stop the run at the hung call (then nothing answers it); one that goes on
    # answers it, as a failure.
    held = reply is None or _reads_as_failure(reply)
    loop = f"answered the hung call with {_short(reply)}, {_returned(trial)}"
    if not held:
        loop += "; that answer reads as a result, not an error"
        hint = MARKER_HINT
    return _entry("time", trial, held, expect, model, loop, hint, chapter=False)


# The repeats check's two runs, with the same tool, task and max_steps. In each, the model asks
# the tool for `fewer` (or `more`) different arguments, then for one more call again and again.
# A guard by tool name alone (refuse once the tool ran N times, whatever its arguments) holds
# the first run only if fewer + 1 <= N <= fewer + MAX_IDENTICAL_RUNS (every new question ran,
# the repeat at most MAX_IDENTICAL_RUNS times) and the second only if N >= more + 1. As `more`
# is more than MAX_IDENTICAL_RUNS above `fewer`, no N does both: whatever it is, and however it
# is computed from what the runs share (max_steps, the task, the tool).
# The different arguments come in one message, as parallel calls: each still runs and counts
# as a call of the tool, but the run reaches its first refusable repeat at the model's 8th
# reply, whatever `more` is. So a loop whose step cap is a number of its own (10, not its
# max_steps) is judged here on its repeats; the max_steps row tells it about the cap.
FEWER_NEW = (2, 4)            # different arguments asked in the smaller run
MORE_NEW_ABOVE = (1, 2)       # the larger run asks MAX_IDENTICAL_RUNS + this many more
ROOM_FOR_REPEATS = (4, 6)     # max_steps: the replies up to the repeat + this many more
REPEATS_BUDGET = 0.50         # far more than a run costs (under $0.002)


def _asked(sequence: list[list[tuple[str, str]]], trial: Trial) -> list[tuple[str, str]]:
    """The calls the loop was asked for, in order: reply n asks the calls of sequence[n], for
    each reply it received."""
    received = sum(r.reply is not None for r in trial.requests)
    return [call for calls in sequence[:received] for call in calls]


def _repeats_run(trial: Trial, argument: str, values: list[str], stuck: str,
                 sequence: list[list[tuple[str, str]]], max_steps: int) -> tuple[str, list[str]]:
    """The evidence of one repeats run and what is wrong with it (most telling first)."""
    ran = [(c.name, c.arguments.get(argument)) for c in trial.tool_calls]
    asked = _asked(sequence, trial)
    repeated, twin = sequence[1][0], sequence[-1][0]
    # Every call's first ask is a new question and runs: the repeated call's too, and the twin
    # tool's, asked with the same arguments once the repeated call ran its 3 times.
    skipped = [call for call in dict.fromkeys(asked) if call not in ran]
    runs = max(ran.count(repeated), ran.count(twin))
    run = (f"with {len(values)} different {argument}s first (in one message): ran "
           f"{len(set(ran) - {repeated, twin})} of {len(set(asked) - {repeated, twin})} new "
           f"questions, {repeated[0]}({stuck!r}) {ran.count(repeated)} times (asked between "
           f"others) and {twin[0]}({stuck!r}) {ran.count(twin)} times, over "
           f"{len(trial.requests)} model calls, {_returned(trial)}")
    wrong = []
    if skipped:
        run += (f"; did not run {', '.join(f'{n}({v!r})' for n, v in skipped[:3])}, "
                "which was no repeat")
        wrong.append(REPEAT_BY_ARGUMENTS_HINT if skipped == [twin] else REPEAT_BY_NAME_HINT)
    if runs > MAX_IDENTICAL_RUNS:
        run += f"; ran the same call {runs} times"
        wrong.append(REPEAT_IN_A_ROW_HINT)
    elif not skipped and len(asked) <= len(ran):
        run += "; it ran every call it received, then stopped: none was refused as a repeat"
        wrong.append(f"{REPEAT_HINT}; a count stopped this run after "
                     f"{_calls(len(trial.requests))}, not the repeats (max_steps was "
                     f"{max_steps}, max_cost_usd {REPEATS_BUDGET}): does the loop read its "
                     "max_steps? And its max_cost_usd?")
    return run, wrong


def _repeats_sequence(tools, values: list[str], stuck: str,
                      between: list[str]) -> list[list[tuple[str, str]]]:
    """What the repeats check's model asks, reply by reply: the calls of each, as (tool name,
    argument value).

    Example: first tool A, twin B, other C: [A(v1), A(v2)], [A(s)], [C(n1)], [A(s)], [C(n2)],
             [A(s)], [C(n3)], [A(s)], [C(n4)], [A(s)], [B(s)], [A(s)], [B(s)], ...
    """
    first, twin, other = (tool.name for tool in tools)
    sequence = [[(first, v) for v in values]]  # the new questions, as parallel calls
    for value in between:  # the repeated call, each time between two new questions
        sequence += [[(first, stuck)], [(other, value)]]
    return sequence + [[(first, stuck)], [(twin, stuck)]] * NEVER_STOPS + [[(twin, stuck)]]


def _asks_calls(sequence: list[list[tuple[str, str]]], argument: str) -> callable:
    """A script whose reply n asks the calls of sequence[n] (parallel calls when several)."""
    return lambda n: s.asks(*[s.tool_call(n, i, name, {argument: value})
                              for i, (name, value) in enumerate(sequence[n])]
                            ) if n < NEVER_STOPS else None


def check_repeats(run_agent, timeout: float, draw: Draws) -> Entry:
    tool, argument = _lookup(draw)
    names = {tool.name}
    tools = [tool]
    while len(tools) < 3:  # the twin and the other tool take the same argument
        name = _lookup(draw)[0].name
        if name not in names:
            names.add(name)
            tools.append(s.one_argument_tool(name, argument, f"Look up a {name.split('_')[-1]}.",
                                             lambda v, n=name: {"found": v, "by": n}))
    fewer = draw.integer(*FEWER_NEW)
    counts = draw.shuffled([fewer, fewer + MAX_IDENTICAL_RUNS + draw.integer(*MORE_NEW_ABOVE)])
    between = MAX_IDENTICAL_RUNS + 1
    max_steps = 1 + 2 * between + draw.integer(*ROOM_FOR_REPEATS)
    expect = (f"the same call (tool and arguments) runs at most {MAX_IDENTICAL_RUNS} times in a "
              "run, counted over the whole run, not only in a row; a call past that is refused, "
              "or the run stops at it; every call with new arguments runs, and so does another "
              f"tool asked with the same arguments (max_steps={max_steps}, in two runs)")
    model = (f"asks {tool.name} for {counts[0]} different {argument}s in one run, {counts[1]} "
             f"in the other, all in one message, then one {tool.name} call again and again, "
             f"between new questions to {tools[2].name}, then {tools[1].name} with the same "
             f"{argument}, whatever comes back")
    task = f"Look up each {tool.name.split('_')[-1]} you need."
    trials, runs, wrong = [], [], []
    for different in counts:
        *values, stuck = draw.idents(different + 1)
        sequence = _repeats_sequence(tools, values, stuck, draw.idents(between))
        trial = _watch(run_agent, task, tools, _asks_calls(sequence, argument), timeout,
                       max_steps=max_steps, max_cost_usd=REPEATS_BUDGET)
        trials.append(trial)
        failure = _run_failed(trial, timeout)
        if failure:
            before = "".join(f"{run}; " for run in runs)
            unanswered = _unanswered(trial, len(values))
            if unanswered:  # the API refused the next request: the loop raised there
                failure = (f"{failure[0]}; left {', '.join(unanswered)} unanswered", failure[1])
            return _failed_entry("repeats", trials, failure, expect, model,
                                 UNANSWERED_HINT if unanswered else REPEAT_HINT,
                                 chapter=False, before=before)
        run, run_wrong = _repeats_run(trial, argument, values, stuck, sequence, max_steps)
        runs.append(run)
        wrong += run_wrong
    wrong.sort(key=lambda hint: hint != REPEAT_BY_NAME_HINT)  # a guard by name: say so first
    return _entry("repeats", trials, not wrong, expect, model, "; ".join(runs),
                  wrong[0] if wrong else "", chapter=False)


UNANSWERED_HINT = ("loop over every call in response.tool_calls and append one tool message per "
                   "call id")


def _unanswered(trial: Trial, count: int) -> list[str]:
    """The ids of the model's first reply's `count` parallel calls that no later request
    answered (the API refuses a request that leaves one out)."""
    asked = bool(trial.requests) and trial.requests[0].reply is not None
    return [f"call_0_{i}" for i in range(count)
            if asked and _answer_to(trial, f"call_0_{i}") is None]


def check_unanswered_tool_calls(run_agent, timeout: float, draw: Draws) -> Entry:
    expect = ("every tool call the model asks for is answered by a tool message with its id "
              "(the API refuses a conversation that leaves one out)")
    count = draw.integer(2, 4)
    tool, argument = _lookup(draw)
    values = draw.idents(count)
    model = f"asks for {count} calls of {tool.name} in one message (parallel tool calls)"
    trial = _watch(run_agent, f"Look up {', '.join(values)}.", [tool],
                   lambda n: s.asks(*[s.tool_call(n, i, tool.name, {argument: v})
                                      for i, v in enumerate(values)]) if n == 0 else None,
                   timeout)
    hint = UNANSWERED_HINT
    unanswered = _unanswered(trial, count)
    failure = _run_failed(trial, timeout)
    if failure:
        what = f"; left {', '.join(unanswered)} unanswered" if unanswered else ""
        return _failed_entry("unanswered_tool_calls", trial, (failure[0] + what, failure[1]),
                             expect, model, hint, chapter=False)
    held = not unanswered and len(trial.requests) >= 2
    loop = (f"ran {tool.name} {len(trial.tool_calls)} times, "
            + (f"left {', '.join(unanswered)} unanswered" if unanswered
               else f"answered all {count} ids")
            + f", {_returned(trial)}")
    return _entry("unanswered_tool_calls", trial, held, expect, model, loop, hint, chapter=False)


CHECKS = {
    "answers": check_answers,
    "right_tool": check_right_tool,
    "call_ids": check_call_ids,
    "history": check_history,
    "plain_result": check_plain_result,
    "fresh_run": check_fresh_run,
    "max_steps": check_max_steps,
    "budget": check_budget,
    "stop_names_limit": check_stop_names_limit,
    "allowlist": check_allowlist,
    "bad_json": check_bad_json,
    "unencodable": check_unencodable,
    "tool_error": check_tool_error,
    "truncation": check_truncation,
    "observability": check_observability,
    "time": check_time,
    "repeats": check_repeats,
    "unanswered_tool_calls": check_unanswered_tool_calls,
}
