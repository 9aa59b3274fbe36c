"""The gauntlet's checks: each sets a scripted model and hostile tools on the loop, then judges
what the watched client and tools recorded. The meaning of each check is in the package's
docstring (agentlab/gauntlet/__init__.py); this file is how each is carried out.
"""

from __future__ import annotations

import re
import threading

from ..models import connect
from ..pricing import estimate_cost
from ..records import redact
from ..server import make_transport
from . import scripted as s
from .report import Entry
from .watch import Capture, Trial, WatchedClient, run_with_timeout, watched_tools

MODEL = "tutor"           # the name the loop passes on; the scripted model answers to it
PRICED_AS = "gpt-4o-mini"  # prices the gauntlet charges at, whatever the environment says
# The checks whose verdict depends on a limit's value run twice, with different numbers (as
# otter's hidden variants do): a loop that hard-codes a count instead of reading its argument
# behaves the same at both settings, and that is what gives it away.
MAX_STEPS = (3, 5)         # the step limits the max_steps check passes, one run each
# The second budget is below one call's cost, so a loop that checks the budget stops sooner
# there, whatever fixed count (a hard-coded step limit, say) might stop it at the first.
BUDGETS_USD = (0.001, 0.0003)  # the budgets the budget check passes, one run each
MAX_RESULT_CHARS = 20_000  # the longest message allowed after a 1 MB tool result
MAX_IDENTICAL_RUNS = 3    # how often the repeats check lets the same call run
STUCK_STEPS = 8           # the step limit the repeats check passes
NEVER_STOPS = 25          # replies before a never-stopping model gives up and answers


def _watch(run_agent, task: str, tools: list, reply, timeout: float, *, max_steps: int = 10,
           max_cost_usd: float = 0.50, on_abandon=()) -> Trial:
    """Run the student's loop once on a scripted model and watched tools."""
    inner = connect(MODEL, transport=make_transport(respond=s.scripted(reply)),
                    priced_as=PRICED_AS, max_retries=0)
    output = Capture()
    trial = Trial(client=WatchedClient(inner, output), output=output)
    schemas, impls = watched_tools(tools, trial)
    args = (task, schemas, impls, trial.client, MODEL)
    return run_with_timeout(trial, run_agent, args,
                            {"max_steps": max_steps, "max_cost_usd": max_cost_usd},
                            timeout, on_abandon)


def warm_up() -> None:
    """One model call outside any timed run: the SDK's first request and the first price
    lookup load code (about 0.2 s here), which a student's first check should not pay for."""
    client = connect(MODEL, transport=make_transport(respond=s.scripted(lambda n: None)),
                     priced_as=PRICED_AS, max_retries=0)
    response = client.chat(model=MODEL, messages=[{"role": "user", "content": "Ready?"}],
                           tools=[s.calculator().schema])
    estimate_cost(response)


def _short(value, limit: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _run_failed(trial: Trial, timeout: float) -> tuple[str, str] | None:
    """Why the run itself failed (the loop's part, a hint), or None if it returned text."""
    if not trial.finished:
        return f"did not return within {timeout:g} s", ""
    error = trial.raised
    if isinstance(error, NotImplementedError) or (error is None and trial.returned is None):
        what = "raised NotImplementedError" if error else "returned None"
        return what, "fill in run_agent: it returns the model's answer text"
    if error is not None:
        return f"raised {type(error).__name__}: {_short(str(error), 120)}", ""
    if not isinstance(trial.returned, str):
        return (f"returned {type(trial.returned).__name__} {_short(trial.returned)}",
                "run_agent returns text: the model's answer, or why the run stopped")
    return None


def _returned(trial: Trial) -> str:
    return f"returned {_short(trial.returned)}"


def _entry(name, trial, held, expect, model, loop, hint="", chapter=True) -> Entry:
    """One check's entry; trial may be a list of runs (one per setting): their costs add up."""
    trials = trial if isinstance(trial, list) else [trial]
    return Entry(name=name, held=held, expect=expect, model=model, loop=redact(loop),
                 cost_usd=sum(t.client.cost_usd for t in trials),
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


def _failed_entry(name, trial, failure, expect, model, hint, chapter=True, before="") -> Entry:
    """A run that failed (see _run_failed); before: the evidence of earlier runs of the check."""
    what, generic_hint = failure
    trials = trial if isinstance(trial, list) else [trial]
    return _entry(name, trials, False, expect, model, f"{before}{what}; {_requests(trials[-1])}",
                  generic_hint or hint, chapter)


def _calls(count: int) -> str:
    """Example: 1 -> "1 call"; 3 -> "3 calls" """
    return f"{count} call{'s' * (count != 1)}"


def _requests(trial: Trial) -> str:
    refused = [r.error for r in trial.requests if r.error]
    made = f"made {len(trial.requests)} model call{'s' * (len(trial.requests) != 1)}"
    return made + (f" (the API refused one: {refused[0]})" if refused else "")


# ---------------------------------------------------------------------------------------------


def check_answers(run_agent, timeout: float) -> Entry:
    """The plain loop: one tool call, then the model's answer comes back as the return value."""
    final = "17 * 23 is 391."
    expect = ("the tools are offered on every call, a tool call is run and its result sent "
              "back, the model's answer is returned")
    model = "asks calculate('17 * 23'), then answers " + repr(final)
    trial = _watch(run_agent, "What is 17 * 23?", [s.calculator()],
                   lambda n: s.asks(s.tool_call(n, 0, "calculate", {"expression": "17 * 23"}))
                   if n == 0 else s.answers(final), timeout)
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("answers", trial, failure, expect, model,
                             "send the model's tool calls to tool_impls and the results back")
    ran = [c.name for c in trial.tool_calls]
    result = _answer_to(trial, "call_0_0")
    toolless = [n for n, r in enumerate(trial.requests) if "calculate" not in r.tools]
    held = ran == ["calculate"] and result is not None and "391" in result and (
        trial.returned.strip() == final) and not toolless
    loop = f"ran {ran or 'no tool'}, sent back {_short(result)}, {_returned(trial)}"
    hint = "return response.message['content'] when the model answers without a tool call"
    if toolless:
        loop += f"; model call {toolless[0] + 1} was sent without the tools"
        hint = "send tools=tools with every client.chat call: the model can only ask for those"
    return _entry("answers", trial, held, expect, model, loop, hint)


# A sentence that says the step limit stopped the run names steps (or calls, turns, rounds,
# iterations, attempts, the maximum) or the limit's number: "Stopped: step limit reached.",
# "Gave up after 3 tries". "Stopped." or "" says nothing; "cost limit reached" names another.
# Whole words (or their start: "steps", "iterations"), so "returned" does not say "turn" nor
# "countries" say "tries".
STEP_LIMIT_WORDS = re.compile(
    r"\b(?:step|iteration|turn|round|loop|cycle|attempt|tries|calls?\b|max)", re.IGNORECASE)


def _says_step_limit(trial: Trial, max_steps: int) -> bool:
    """The returned text says the step limit stopped the run; or the loop wound down (its last
    call asked for a final answer with tool_choice="none") and returned the model's answer."""
    text = trial.returned
    if STEP_LIMIT_WORDS.search(text) or re.search(rf"\b{max_steps}\b", text):
        return True
    wound_down = trial.requests and trial.requests[-1].tool_choice == "none"
    return bool(wound_down) and text.strip() == s.FINAL_ANSWER


def check_max_steps(run_agent, timeout: float) -> Entry:
    first, second = MAX_STEPS
    expect = (f"with max_steps={first}, then again with max_steps={second}: exactly that many "
              "model calls (the model never stops asking), then text saying the step limit "
              "stopped the run")
    model = f"never stops asking for calculate (gives up after {NEVER_STOPS} replies)"
    hints = []  # what is wrong, most telling first; the first one is the row's hint
    trials, runs = [], []
    for max_steps in MAX_STEPS:
        trial = _watch(run_agent, "Square every number, one by one.", [s.calculator()],
                       lambda n: s.asks(s.tool_call(n, 0, "calculate",
                                                    {"expression": f"{n} * {n}"}))
                       if n < NEVER_STOPS else None, timeout, max_steps=max_steps)
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
        elif calls < max_steps and len(trials) > 1 and calls == len(trials[0].requests):
            hints.insert(0, f"made {_calls(calls)} with max_steps={max_steps}: the loop ignores "
                            "its max_steps argument; count up to it: for step in "
                            "range(max_steps)")
        elif calls < max_steps:
            hints.append(f"made {_calls(calls)} with max_steps={max_steps}, but the model never "
                         "stopped asking: the loop stops before its limit; for step in "
                         "range(max_steps) makes exactly max_steps calls")
        elif not _says_step_limit(trial, max_steps):
            run += ", which does not say the step limit stopped it"
            hints.append("return a sentence that says the step limit stopped the run, for "
                          f"example 'Stopped: step limit reached ({max_steps} steps).'")
        runs.append(run)
        if calls > max_steps:  # no limit at all: a second run would only repeat that
            break
    return _entry("max_steps", trials, not hints, expect, model, "; ".join(runs),
                  hints[0] if hints else "")


def check_budget(run_agent, timeout: float) -> Entry:
    first, second = BUDGETS_USD
    expect = (f"with max_cost_usd={first}, then again with max_cost_usd={second}: no model call "
              "once the spending is over the budget (the chapter pays, then checks: one call "
              "may cross it), so, if the budget ended the first run, fewer calls with the "
              "smaller budget")
    model = "writes 600-token musings with every tool call, so each call costs $0.0004 or more"
    musing = ("Let me think very carefully about every angle of this before I act. " * 40)[:2400]
    hint = "add estimate_cost(response) after every call and stop once it passes max_cost_usd"
    trials, runs, crossed = [], [], []
    for budget in BUDGETS_USD:
        trial = _watch(run_agent, "Think hard, then add numbers.", [s.calculator()],
                       lambda n: s.asks(s.tool_call(n, 0, "calculate",
                                                    {"expression": f"{n} + 1"}), content=musing)
                       if n < 15 else None, timeout, max_steps=20, max_cost_usd=budget)
        trials.append(trial)
        failure = _run_failed(trial, timeout)
        if failure:
            before = "".join(f"{run}; " for run in runs)
            return _failed_entry("budget", trials, failure, expect, model, hint, before=before)
        spent, late_calls = 0.0, 0
        for request in trial.requests:
            if spent > budget:
                late_calls += 1
            spent += request.cost_usd
        over = (f", ${spent - budget:.6f} over the budget" if spent > budget else
                f", ${spent:.6f} spent")
        late = f", {late_calls} of them after the budget was spent" if late_calls else ""
        runs.append(f"{_requests(trial)} with max_cost_usd={budget}{late}{over}, "
                    f"{_returned(trial)}")
        crossed.append(spent > budget)
        calls, calls_before = len(trial.requests), len(trials[0].requests)
        # Only a first run that the budget ended says how many calls the budget allowed; one
        # that ended by itself (a reply cut at the loop's own max_tokens) says nothing of it.
        same = len(trials) > 1 and crossed[0] and calls >= calls_before
        if same:  # the smaller budget did not stop the run sooner: max_cost_usd was not read
            how_many = "as with" if calls == calls_before else f"more than {calls_before} with"
            hint = (f"made {_calls(calls)} with max_cost_usd={budget}, {how_many} "
                    f"max_cost_usd={first}: the loop ignores its max_cost_usd argument; add up "
                    "estimate_cost(response) and stop once it passes max_cost_usd")
        if late_calls or same:
            return _entry("budget", trials, False, expect, model, "; ".join(runs), hint)
    return _entry("budget", trials, True, expect, model, "; ".join(runs), hint)


def check_allowlist(run_agent, timeout: float) -> Entry:
    expect = ("a tool the loop was not given is not run; the call is answered with an error "
              "and the run goes on")
    model = "asks delete_files(path='/'), a tool it was not given; then calculate; then answers"

    def reply(n):
        if n == 0:
            return s.asks(s.tool_call(n, 0, "delete_files", {"path": "/"}))
        return s.asks(s.tool_call(n, 0, "calculate", {"expression": "2 + 2"})) if n == 1 else None
    trial = _watch(run_agent, "Clean up the disk, then add 2 and 2.", [s.calculator()], reply,
                   timeout)
    hint = "check `name in tool_impls` before calling, and send the refusal back as the result"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("allowlist", trial, failure, expect, model, hint)
    refusal = _answer_to(trial, "call_0_0")
    ran = [c.name for c in trial.tool_calls]
    held = bool(refusal) and ran == ["calculate"]
    loop = (f"answered delete_files with {_short(refusal)}, ran {ran or 'no tool'}, "
            f"{_returned(trial)}")
    return _entry("allowlist", trial, held, expect, model, loop, hint)


def check_bad_json(run_agent, timeout: float) -> Entry:
    expect = "malformed arguments do not crash the loop: the call is answered with an error"
    model = ("sends calculate the arguments '{\"expression\": \"2 + 2\"' (no closing brace), "
             "then fixes them")

    def reply(n):
        if n == 0:
            return s.asks(s.tool_call(n, 0, "calculate", '{"expression": "2 + 2"'))
        return s.asks(s.tool_call(n, 0, "calculate", {"expression": "2 + 2"})) if n == 1 else None
    trial = _watch(run_agent, "What is 2 + 2?", [s.calculator()], reply, timeout)
    hint = "parse the arguments inside the try: bad JSON is an error to send back, not a crash"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("bad_json", trial, failure, expect, model, hint)
    error = _answer_to(trial, "call_0_0")
    ran = [c.name for c in trial.tool_calls]
    held = bool(error) and ran == ["calculate"]
    loop = f"answered the broken call with {_short(error)}, {_returned(trial)}"
    return _entry("bad_json", trial, held, expect, model, loop, hint)


def check_tool_error(run_agent, timeout: float) -> Entry:
    expect = "a tool's exception goes back to the model as the call's result, with its message"
    model = f"asks lookup_order('A-17'); the tool raises RuntimeError('{s.DATABASE_DOWN}')"
    trial = _watch(run_agent, "Where is my order A-17?", [s.order_lookup(broken=True)],
                   lambda n: s.asks(s.tool_call(n, 0, "lookup_order", {"order_id": "A-17"}))
                   if n == 0 else None, timeout)
    hint = "wrap the tool call in try/except and send {'error': str(e)} back as its result"
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("tool_error", trial, failure, expect, model, hint)
    error = _answer_to(trial, "call_0_0")
    held = error is not None and s.DATABASE_DOWN in error
    loop = f"answered the call with {_short(error)}, {_returned(trial)}"
    return _entry("tool_error", trial, held, expect, model, loop,
                  hint + " (the message says what went wrong: keep it)")


def check_truncation(run_agent, timeout: float) -> Entry:
    expect = (f"after a tool returns {s.FLOOD_CHARS:,} characters, no message in the next "
              f"request is longer than {MAX_RESULT_CHARS:,}")
    model = "asks read_log('server.log'), which returns a 1 MB log"
    trial = _watch(run_agent, "What does the server log say?", [s.log_reader()],
                   lambda n: s.asks(s.tool_call(n, 0, "read_log", {"name": "server.log"}))
                   if n == 0 else None, timeout)
    hint = "cut each tool result to a few thousand characters before appending it"
    later = trial.requests[1:2]
    longest = max((len(str(m.get("content") or "")) for r in later for m in r.messages), default=0)
    failure = _run_failed(trial, timeout)
    if failure:
        what = f"; the next request carried {longest:,} characters" if later else ""
        return _failed_entry("truncation", trial, (failure[0] + what, failure[1]), expect,
                             model, hint)
    sent = _answer_to(trial, "call_0_0")
    held = bool(later) and longest <= MAX_RESULT_CHARS
    note = ""
    if sent is not None and not _is_json(sent):
        note = " (cut mid-way: no longer valid JSON"
        if sent[-40:] in s.FLOOD_JSON:  # it ends inside the log itself: no marker follows
            note += ", and nothing tells the model it was cut"
        note += ")"
    loop = (f"sent back {len(sent or ''):,} characters{note}, longest message {longest:,}, "
            f"{_returned(trial)}")
    return _entry("truncation", trial, held, expect, model, loop, hint)


def _is_json(text: str) -> bool:
    import json

    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def check_observability(run_agent, timeout: float) -> Entry:
    expect = ("each tool call is shown as it happens: its name with its arguments or its result, "
              "printed or logged after the model asked for it and before the next model call "
              "(stdout, stderr, or log records that pass your logging level)")
    model = "asks calculate('6 * 7'), then lookup_order('B-2'), then answers"
    # Each call, and what shows it was that call: its arguments or its result. A list of the
    # tools offered names them too, but says nothing about which call ran with what.
    plan = [("calculate", {"expression": "6 * 7"}, ("6 * 7", "42")),
            ("lookup_order", {"order_id": "B-2"}, ("B-2", "shipped"))]
    trial = _watch(run_agent, "Compute 6 * 7, then check order B-2.",
                   [s.calculator(), s.order_lookup()],
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


# --- beyond the chapter ----------------------------------------------------------------------


def check_time(run_agent, timeout: float) -> Entry:
    expect = (f"a tool that never returns does not hold up the run: it returns text within "
              f"{timeout:g} s")
    model = "asks wait_for_reply('T-9'), a tool that never returns on its own"
    release = threading.Event()
    trial = _watch(run_agent, "Has support replied to ticket T-9?",
                   [s.hanging_waiter(release)],
                   lambda n: s.asks(s.tool_call(n, 0, "wait_for_reply", {"ticket": "T-9"}))
                   if n == 0 else None, timeout, on_abandon=[release.set])
    release.set()
    hint = ("run each tool call in a thread and wait about a second at most "
            "(thread.join(timeout)); send back an error if it has not finished")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("time", trial, failure, expect, model, hint, chapter=False)
    reply = _answer_to(trial, "call_0_0")
    loop = f"answered the hung call with {_short(reply)}, {_returned(trial)}"
    return _entry("time", trial, True, expect, model, loop, hint, chapter=False)


def check_repeats(run_agent, timeout: float) -> Entry:
    expect = (f"the same call (tool and arguments) runs at most {MAX_IDENTICAL_RUNS} times; a "
              f"call past that is refused, or the run stops at it (max_steps={STUCK_STEPS})")
    model = "asks track_parcel('P-1') again and again, whatever comes back"
    trial = _watch(run_agent, "Where is parcel P-1?", [s.parcel_tracker()],
                   lambda n: s.asks(s.tool_call(n, 0, "track_parcel", {"parcel_id": "P-1"}))
                   if n < NEVER_STOPS else None, timeout, max_steps=STUCK_STEPS)
    hint = ("remember the last call (name and arguments); refuse it with an error after "
            f"{MAX_IDENTICAL_RUNS} identical calls in a row")
    failure = _run_failed(trial, timeout)
    if failure:
        return _failed_entry("repeats", trial, failure, expect, model, hint, chapter=False)
    runs = len(trial.tool_calls)
    # Every reply asks for the call, so the loop received as many asks as replies. A guard
    # shows itself by not running one of them (refusing it, or stopping there); a loop that
    # ran every call it received and then stopped was stopped by a count, not by the repeats.
    asked = sum(r.reply is not None and bool(r.reply.get("tool_calls")) for r in trial.requests)
    held = runs <= MAX_IDENTICAL_RUNS and asked > runs
    loop = (f"ran track_parcel('P-1') {runs} times over {len(trial.requests)} model calls, "
            f"{_returned(trial)}")
    if runs <= MAX_IDENTICAL_RUNS and asked <= runs:
        loop += "; it ran every call it received, then stopped: none was refused as a repeat"
        hint += (f"; a count stopped this run after {len(trial.requests)} model calls, not the "
                 f"repeats (max_steps was {STUCK_STEPS}): does the loop read its max_steps?")
    return _entry("repeats", trial, held, expect, model, loop, hint, chapter=False)


def check_unanswered_tool_calls(run_agent, timeout: float) -> Entry:
    expect = ("every tool call the model asks for is answered by a tool message with its id "
              "(the API refuses a conversation that leaves one out)")
    model = "asks for three calculations in one message (parallel tool calls)"
    sums = ["1 + 1", "2 + 2", "3 + 3"]
    trial = _watch(run_agent, "Add 1 + 1, 2 + 2 and 3 + 3.", [s.calculator()],
                   lambda n: s.asks(*[s.tool_call(n, i, "calculate", {"expression": e})
                                      for i, e in enumerate(sums)]) if n == 0 else None, timeout)
    hint = "loop over every call in response.tool_calls and append one tool message per call id"
    asked = bool(trial.requests) and trial.requests[0].reply is not None
    unanswered = [f"call_0_{i}" for i in range(len(sums))
                  if asked and _answer_to(trial, f"call_0_{i}") is None]
    failure = _run_failed(trial, timeout)
    if failure:
        what = f"; left {', '.join(unanswered)} unanswered" if unanswered else ""
        return _failed_entry("unanswered_tool_calls", trial, (failure[0] + what, failure[1]),
                             expect, model, hint, chapter=False)
    held = not unanswered and len(trial.requests) >= 2
    loop = (f"ran calculate {len(trial.tool_calls)} times, "
            + (f"left {', '.join(unanswered)} unanswered" if unanswered else "answered all 3 ids")
            + f", {_returned(trial)}")
    return _entry("unanswered_tool_calls", trial, held, expect, model, loop, hint, chapter=False)


CHECKS = {
    "answers": check_answers,
    "max_steps": check_max_steps,
    "budget": check_budget,
    "allowlist": check_allowlist,
    "bad_json": check_bad_json,
    "tool_error": check_tool_error,
    "truncation": check_truncation,
    "observability": check_observability,
    "time": check_time,
    "repeats": check_repeats,
    "unanswered_tool_calls": check_unanswered_tool_calls,
}
