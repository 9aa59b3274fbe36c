"""The gauntlet grades loops it cannot read: the chapter's listing, broken loops, good ones."""

import inspect
import json
import linecache
import re
import logging
import os
import pathlib
import threading
import time

import pytest

import agentlab
from agentlab import estimate_cost
from agentlab.course.gauntlet import BEYOND_THE_CHAPTER, CHAPTER_CHECKS, CHECKS, grade
from processes import open_descriptors

LISTING = (pathlib.Path(__file__).parent / "data" / "chapter51_listing.py").read_text()
EVERY_CHECK = list(CHECKS)
# The timeout of a grade whose rows must hold as expected: a run of an honest row takes a
# tenth of a second on a quiet machine, but on CI's busy cores (three workers on two, notebook
# kernels beside them) past half a second, and a row abandoned at its timeout is broken. Loops
# that hang meet it whole, so it is kept below grade()'s default (2 s).
LOADED = 1.5


def chapter_listing():
    """The chapter's run_agent, exactly as printed, with agentlab's estimate_cost as its global."""
    namespace = {"estimate_cost": estimate_cost}
    exec(compile(LISTING, "chapter51_listing.py", "exec"), namespace)
    return namespace["run_agent"]


def on_agentlab(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
    """The chapter's signature over agentlab.run_agent: every guardrail is the library's."""
    limits = agentlab.Limits(max_steps=max_steps, max_cost_usd=max_cost_usd, tool_timeout=0.3)
    run = agentlab.run_agent(user_message, (tools, tool_impls), client=client, model=model,
                             limits=limits, on_step=agentlab.print_step)
    return run.answer if run.answer is not None else f"Stopped: {run.stop_detail}"


# --- a loop written from scratch that holds every check (as in the solutions notebook) -------

TOOL_TIMEOUT_S, MAX_RESULT_CHARS, MAX_REPEATS = 0.3, 4000, 2


def cut(text, limit=MAX_RESULT_CHARS):
    """Example: cut("abcdef", 4) -> "abcd... [truncated: 2 of 6 characters cut]" """
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [truncated: {len(text) - limit:,} of {len(text):,} characters cut]"


def call_with_timeout(function, arguments, seconds):
    box = {}

    def target():
        try:
            box["result"] = function(**arguments)
        except Exception as e:
            box["error"] = e
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"the tool did not finish within {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["result"]


def run_one_call(name, raw_arguments, tool_impls, history, timeout=TOOL_TIMEOUT_S):
    if name not in tool_impls:
        return {"error": f"unknown tool {name!r}"}
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as e:
        return {"error": f"arguments are not valid JSON: {e}"}
    this_call = (name, json.dumps(arguments, sort_keys=True))
    if history.count(this_call) >= MAX_REPEATS:  # the rule: at most 3 times in a run
        return {"error": "the same call again: not run; use the earlier result"}
    history.append(this_call)
    try:
        if timeout is None:  # (a bug, for the tests: a hung tool hangs the loop)
            return tool_impls[name](**arguments)
        return call_with_timeout(tool_impls[name], arguments, timeout)
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}


def from_scratch(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
    messages = [{"role": "user", "content": user_message}]
    spent, history = 0.0, []
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        spent += estimate_cost(response)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            print(f"step {step}: {call.function.name}({call.function.arguments})")
            result = json.dumps(run_one_call(call.function.name, call.function.arguments,
                                             tool_impls, history), default=str)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": cut(result)})
        if spent > max_cost_usd:
            return "Stopped: over budget."
    return "Stopped: step limit reached."


# --- the three loops the issue names ---------------------------------------------------------


def test_the_chapters_listing_holds_its_own_guardrails_and_breaks_the_rest():
    report = grade(chapter_listing(), timeout=LOADED, seed=5)
    assert report.broken == [
        "bad_json",     # json.loads sits outside the try: malformed arguments crash the loop
        "unencodable",  # json.dumps sits outside the try: a datetime crashes the loop
        "truncation",   # [:4000] cuts silently: the model takes the part for the whole
        "time",         # nothing bounds a tool call: a hung tool hangs the run
        "repeats",      # the same call runs on every step until max_steps
    ]
    # Held, with the caveats the evidence states: the budget is checked after paying (one call
    # over), the allowlist is tool_impls, every parallel call is answered because the loop
    # walks all of them.
    assert report.held == ["answers", "right_tool", "call_ids", "history", "plain_result",
                           "fresh_run", "max_steps", "budget", "stop_names_limit", "allowlist",
                           "tool_error", "observability", "unanswered_tool_calls"]
    assert "JSONDecodeError" in report["bad_json"].loop
    assert "not JSON serializable" in report["unencodable"].loop
    assert "over the budget" in report["budget"].loop
    assert "nothing that says it was cut (no longer valid JSON)" in report["truncation"].loop
    assert f"did not return within {LOADED:g} s" in report["time"].loop


def test_a_loop_without_a_step_limit_breaks_max_steps_and_the_grader_still_returns():
    def no_limit(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.5):
        messages = [{"role": "user", "content": user_message}]
        while True:  # no step limit, no budget
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                try:
                    result = tool_impls[call.function.name](**json.loads(call.function.arguments))
                except Exception as e:
                    result = {"error": str(e)}
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(result)[:4000]})

    start = time.perf_counter()
    report = grade(no_limit, timeout=LOADED)
    assert time.perf_counter() - start < 15  # ~0.5 s: only the hung tool waits for the timeout
    assert "max_steps" in report.broken
    # It also spends past its budget, cuts silently, prints nothing, waits on the hung tool
    # and repeats.
    assert report.broken == ["max_steps", "budget", "stop_names_limit", "unencodable",
                             "truncation", "observability", "time", "repeats"]
    # Left alone, it calls until the model gives up. That count needs the run to end within the
    # timeout (on a busy machine 26 calls can take over 0.5 s), so it gets the default 2 s: a
    # loop that ends by itself never waits for the timeout.
    counted = grade(no_limit, only=["max_steps"])
    assert "made 26 model calls" in counted["max_steps"].loop


@pytest.mark.parametrize("seed", [None, 0, 1, 2, 8, 53, 77])
def test_a_loop_with_every_guardrail_holds_every_check_whatever_the_draws(seed):
    start = time.perf_counter()
    report = grade(from_scratch, seed=seed)
    assert report.broken == [], report
    assert report.held == EVERY_CHECK
    assert time.perf_counter() - start < 10  # ~1.5 s here


def test_a_wrapper_around_agentlab_run_agent_is_named_and_not_counted_as_the_students():
    """Every guardrail is the library's: it would hold every row, so no row counts it."""
    report = grade(on_agentlab, seed=3)
    assert report.held == []
    for entry in report.entries:
        assert "handed the run to agentlab.run_agent" in entry.loop, entry
        assert "write the loop itself" in entry.hint


def test_the_wrapper_is_caught_however_it_reaches_the_library_loop():
    from agentlab import loop as library_loop

    bound_early = library_loop.run_agent  # a name taken before the grade patched anything

    def six_lines(user_message, tools, tool_impls, client, model, max_steps=10,
                  max_cost_usd=0.50):
        run = bound_early(user_message, (tools, tool_impls), client=client, model=model,
                          limits=agentlab.Limits(max_steps=max_steps,
                                                 max_cost_usd=max_cost_usd, tool_timeout=0.3))
        return run.answer or f"Stopped: {run.stop_detail}"

    report = grade(six_lines, only=["answers", "time"])
    assert report.held == [] and all("agentlab.run_agent" in e.loop for e in report.entries)
    # and a loop of one's own that merely imports agentlab is not mistaken for it
    assert grade(from_scratch, only=["answers"]).held == ["answers"]


def test_a_seed_repeats_a_grade_and_no_seed_draws_another():
    first, again = grade(from_scratch, seed=11), grade(from_scratch, seed=11)
    assert [e.model for e in first.entries] == [e.model for e in again.entries]
    assert first.seed == 11 and first.summary().endswith(" (seed=11, chosen).")
    # one check alone draws as it does in the whole grade
    assert grade(from_scratch, seed=11, only=["budget"])["budget"].expect == \
        first["budget"].expect
    fresh = [grade(from_scratch, only=["answers"]) for _ in range(3)]
    assert len({r.seed for r in fresh}) > 1
    # a fresh draw's seed shows, to replay it, and never reads as one chosen
    assert all(r.summary().endswith(f" (new draws, seed {r.seed}, only=['answers']).")
               for r in fresh)
    assert len({r["answers"].model for r in fresh}) > 1
    with pytest.raises(TypeError, match="seed is a whole number"):
        grade(from_scratch, seed="7")


def test_no_tool_name_is_fixed_across_grades():
    names = {grade(from_scratch, seed=seed, only=["time"])["time"].model.split("(")[0]
             for seed in range(12)}
    assert len(names) > 6
    # the names the gauntlet used before it drew them can never come back
    assert not any(old in name for name in names
                   for old in ("wait_for_reply", "read_log", "track_parcel"))


# --- loops that fail in the ways a student's might -------------------------------------------


def test_a_stub_raising_or_wrongly_typed_loop_is_graded_not_crashing():
    def stub(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        ...

    def raises(*args, **kwargs):
        raise NotImplementedError

    def crashes(*args, **kwargs):
        return {}["missing"]

    def returns_a_run(user_message, tools, tool_impls, client, model, **limits):
        return agentlab.run_agent(user_message, (tools, tool_impls), client=client, model=model,
                                  limits=agentlab.Limits(tool_timeout=0.2))

    for loop, evidence in [(stub, "returned None"), (raises, "raised NotImplementedError"),
                           (crashes, "raised KeyError"), (returns_a_run, "returned Run")]:
        report = grade(loop, timeout=2 * LOADED)  # a 1 MB result through the library, on busy cores
        assert report.held == [], loop.__name__
        assert all(evidence in e.loop for e in report.entries), (loop.__name__, report)
    assert "fill in run_agent" in grade(stub, only=["answers"])["answers"].hint


def raises_on_its_results(user_message, tools, tool_impls, client, model, max_steps=10,
                          max_cost_usd=0.50):
    """A loop that reads a key its tools' results do not have: it raises at its first result."""
    messages = [{"role": "user", "content": user_message}]
    spent = 0.0
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        spent += estimate_cost(response)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            result = tool_impls[call.function.name](**json.loads(call.function.arguments))
            summary = result["summary"]  # the line that raises
            messages.append({"role": "tool", "tool_call_id": call.id, "content": summary})
        if spent > max_cost_usd:
            return "Stopped: over budget."
    return "Stopped: step limit reached."


def test_a_loop_that_raises_is_told_what_and_where_before_each_rows_own_advice():
    """A review: a loop that raised was told each row's own advice alone ("count the model
    calls", "send the model's tool calls to tool_impls", "add estimate_cost(response)"), which
    sent the student to the wrong fix: the run raised, and that comes first."""
    line = next(n for n, text in enumerate(inspect.getsourcelines(raises_on_its_results)[0],
                                           inspect.getsourcelines(raises_on_its_results)[1])
                if "the line that raises" in text)
    report = grade(raises_on_its_results, only=["answers", "max_steps", "budget"], seed=4)
    assert report.held == []
    raised = ("first fix what the run raised: KeyError: 'summary' in raises_on_its_results "
              f"(test_gauntlet.py, line {line}: `summary = result[\"summary\"] # the line that "
              "raises`), so that the run ends with text; then, for this row: ")
    for row, advice in [("answers", "send the model's tool calls to tool_impls"),
                        ("max_steps", "count the model calls: for step in range(max_steps)"),
                        ("budget", "add estimate_cost(response)")]:
        assert report[row].hint.startswith(raised), report[row]
        assert advice in report[row].hint, report[row]


def test_a_raise_in_a_notebook_cell_is_shown_with_the_cells_line(monkeypatch):
    """The loop's process cannot read a notebook cell (its code is in the kernel): the grader
    reads the line where the kernel keeps it, as IPython does, in memory."""
    cell = ("def cell_loop(user_message, tools, tool_impls, client, model, **limits):\n"
            "    return {}['from the cell']\n")
    name = "/nonexistent-agentlab-test/ipykernel_0/1234.py"  # as IPython names a cell
    monkeypatch.setitem(linecache.cache, name, (len(cell), None, cell.splitlines(True), name))
    namespace = {}
    exec(compile(cell, name, "exec"), namespace)
    hint = grade(namespace["cell_loop"], only=["answers"])["answers"].hint
    assert ("KeyError: 'from the cell' in cell_loop (line 2 of its cell: "
            "`return {}['from the cell']`)") in hint, hint


def test_the_grader_reads_no_file_a_loops_process_names():
    """A hint is shown to the student, and the loop's process may name any file: the grader
    reads a line only from the code of the loop as written, which it holds itself."""
    from agentlab.course.gauntlet.boundary import Raised
    from agentlab.course.gauntlet.checks import _read_where_it_raised, _where

    named = {"function": "elsewhere", "first_line": 1, "line": 1, "file": __file__, "code": ""}
    error = Raised({"type": "KeyError", "message": "x", "where": named})
    _read_where_it_raised(error, raises_on_its_results)  # no function of that name there
    assert error.where["code"] == "" and linecache.getline(__file__, 1)
    assert _where(error.where) == " in elsewhere (test_gauntlet.py, line 1)"
    assert _where({"function": "f", "line": "1", "file": __file__}) == ""  # not a number


def test_a_hanging_loop_is_killed_at_the_timeout_with_what_it_started():
    def hangs(*args, **kwargs):
        import subprocess
        import sys
        import time

        # a program of its own that would outlive a thread: it dies with the loop's process
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        time.sleep(30)

    report = grade(hangs, timeout=0.05, only=["answers", "budget", "time"])
    assert report.held == []
    assert all("did not return within 0.05 s" in e.loop for e in report.entries)
    assert not _sleepers(), "a program the loop started outlived the grade"


def _sleepers() -> list[int]:
    """Processes still running `time.sleep(30)` from the hanging loop above."""
    found = []
    for status in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"time.sleep(30)" in status.read_bytes():
                found.append(int(status.parent.name))
        except OSError:
            pass
    return found


def _children() -> set[int]:
    """This process's child processes, from /proc (Linux)."""
    found = set()
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid():
            found.add(int(stat.parent.name))
    return found


def test_an_abandoned_loop_leaves_no_process_and_no_thread_behind():
    children = _children()
    before = {t.name for t in threading.enumerate()}
    report = grade(chapter_listing(), timeout=0.3, only=["time"])
    assert report.broken == ["time"]
    assert _children() <= children
    deadline = time.monotonic() + 5  # the hung tool's thread ends once released
    while {t.name for t in threading.enumerate()} - before - {"gauntlet-tool"}:
        assert time.monotonic() < deadline, "a thread of the grade did not end"
        time.sleep(0.02)


@pytest.mark.parametrize("check, loop_change", [
    ("max_steps", "off by one"), ("unanswered_tool_calls", "first call only"),
    ("tool_error", "vague error"), ("observability", "prints at the end"),
    ("truncation", "cuts after sending"), ("budget", "ignores the budget"),
])
def test_plausible_wrong_loops_break_the_check_they_get_wrong(check, loop_change):
    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages, spent, log = [{"role": "user", "content": user_message}], 0.0, []
        steps = max_steps + 1 if loop_change == "off by one" else max_steps
        for step in range(steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            spent += estimate_cost(response)
            if spent > max_cost_usd and loop_change != "ignores the budget":
                return "Stopped: budget."
            messages.append(response.message)
            if not response.tool_calls:
                print("\n".join(log))
                return response.message["content"]
            calls = response.tool_calls
            if loop_change == "first call only":
                calls = calls[:1]
            for call in calls:
                line = f"calling {call.function.name}"
                print(line) if loop_change != "prints at the end" else log.append(line)
                try:
                    result = tool_impls[call.function.name](**json.loads(call.function.arguments))
                except Exception as e:
                    vague = loop_change == "vague error"
                    result = {"error": "the tool failed" if vague else str(e)}
                text = json.dumps(result)
                limit = 10**7 if loop_change == "cuts after sending" else 4000
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text[:limit]})
        return "Stopped: steps."

    assert grade(loop, only=[check]).broken == [check]


def test_a_loop_that_does_not_offer_the_tools_breaks_answers():
    def forgets_tools(user_message, tools, tool_impls, client, model, **limits):
        return from_scratch(user_message, None, tool_impls, client, model, **limits)

    entry = grade(forgets_tools, only=["answers"])["answers"]
    assert not entry.held and "sent without the tools" in entry.loop
    assert "tools=tools" in entry.hint


def test_evidence_never_shows_a_key(monkeypatch):
    key = "sk-" + "A1b2C3d4" * 5
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def leaks(*args, **kwargs):
        raise RuntimeError(f"bad key {key}")

    report = grade(leaks, only=["answers"])
    assert key not in repr(report) and key not in report._repr_html_()


def test_observability_counts_log_records_that_pass_the_loggers_level():
    logger = logging.getLogger("student.loop")
    logger.setLevel(logging.INFO)

    def logs(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages = [{"role": "user", "content": user_message}]
        for step in range(max_steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                if names_only:
                    logger.info("step %d: %s", step, call.function.name)
                else:
                    logger.info("step %d: %s(%s)", step, call.function.name,
                                call.function.arguments)
                result = tool_impls[call.function.name](**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(result)})
        return "Stopped."

    names_only = False
    try:
        assert grade(logs, only=["observability"]).held == ["observability"]
        names_only = True  # the tool's name alone does not show which call ran
        assert grade(logs, only=["observability"]).broken == ["observability"]
        names_only = False
        logger.setLevel(logging.WARNING)  # now the records are filtered out: nothing is seen
        entry = grade(logs, only=["observability"])["observability"]
        assert not entry.held and "printed or logged 0 lines" in entry.loop
    finally:
        logger.setLevel(logging.NOTSET)


# --- loops that game the checks: hard-coded numbers, a menu printed instead of the calls ----
# Probes from an outside review: each held every check it ran before the checks with a limit
# ran twice, with different numbers, and before observability asked for the call itself.


def hard_coded_three_steps(user_message, tools, tool_impls, client, model, max_steps=10,
                           max_cost_usd=0.50):
    """Never reads max_steps or max_cost_usd, has no budget code: always 3 model calls."""
    messages = [{"role": "user", "content": user_message}]
    for step in range(3):
        response = client.chat(model=model, messages=messages, tools=tools)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            print("calling", call.function.name)
            result = tool_impls[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result)})
    return "Stopped."


def test_a_loop_that_hard_codes_its_step_count_breaks_max_steps_budget_and_repeats():
    report = grade(hard_coded_three_steps, only=["max_steps", "budget", "repeats"], seed=4)
    assert report.broken == ["max_steps", "budget", "repeats"]
    assert "the loop ignores its max_steps argument" in report["max_steps"].hint
    assert "which does not say the step limit stopped it" in report["max_steps"].loop
    assert "something other than max_cost_usd stopped it" in report["budget"].hint
    assert "none was refused as a repeat" in report["repeats"].loop


def test_a_gamer_with_a_tool_timeout_breaks_exactly_the_rows_it_games():
    def gamer(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        """Always 3 model calls, no budget code, prints the tools offered instead of the call;
        every call goes through the from-scratch loop's timeout, so it never hangs."""
        messages = [{"role": "user", "content": user_message}]
        for step in range(3):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                print("tools offered:", [t["function"]["name"] for t in tools])
                try:
                    arguments = json.loads(call.function.arguments)
                    result = call_with_timeout(tool_impls[call.function.name], arguments,
                                               TOOL_TIMEOUT_S)
                except Exception as e:
                    result = {"error": str(e)}
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": cut(json.dumps(result, default=str))})
        return "Stopped."

    report = grade(gamer)
    # stop_names_limit too: its count, not the budget, ends the budget's run
    assert report.broken == ["max_steps", "budget", "stop_names_limit", "observability",
                             "repeats"]
    assert "ignores its max_steps argument" in report["max_steps"].hint
    # Unseeded, the draw decides which of its two budget faults shows: stopping at three
    # steps with room left, or (when the third call happens to cross the budget) "Stopped."
    # saying nothing of the budget. Either hint names a real fault of this loop.
    assert ("something other than max_cost_usd stopped it" in report["budget"].hint
            or "says the budget stopped the run" in report["budget"].hint), report["budget"].hint


def with_changes(*, steps=None, budget=None, stop_text=None, show=None, reply_cap=None,
                 wind_down=False, stop_at_a_repeat=False, budget_text=None, cut_result=cut):
    """from_scratch with one change: a fixed step count or budget instead of the argument,
    another sentence when the step limit (or the budget) stops it, another line printed for
    each call, a cap on each reply (max_tokens), a last step that asks for an answer
    (tool_choice="none"), a stop at the first repeated call, or another way to cut a result."""
    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages = [{"role": "user", "content": user_message}]
        spent, history, seen = 0.0, [], set()
        for step in range(steps or max_steps):
            if show == "the tools offered":  # before each model call, as a progress line
                print(f"step {step}: offering {[t['function']['name'] for t in tools]}")
            last = wind_down and step == (steps or max_steps) - 1
            response = client.chat(model=model, messages=messages, tools=tools,
                                   max_tokens=reply_cap, tool_choice="none" if last else None)
            spent += estimate_cost(response)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                key = (call.function.name, call.function.arguments)
                if stop_at_a_repeat and key in seen:
                    return f"Stopped: {call.function.name} was asked for again."
                seen.add(key)
                if show is None:
                    print(f"step {step}: {call.function.name}({call.function.arguments})")
                result = run_one_call(call.function.name, call.function.arguments, tool_impls,
                                      history)
                if show == "the result":
                    print(f"{call.function.name} returned {result}")
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": cut_result(json.dumps(result, default=str))})
            if spent > (budget or max_cost_usd):
                return "Stopped: over budget." if budget_text is None else budget_text
        return "Stopped: step limit reached." if stop_text is None else stop_text(max_steps)
    return loop


@pytest.mark.parametrize("fixed", [0.0005, 0.001, 0.002, 0.004])
def test_a_loop_that_hard_codes_its_budget_breaks_budget_only(fixed):
    report = grade(with_changes(budget=fixed), seed=int(fixed * 1e4))
    # The repeats row's runs may cost more than $0.001 (given $0.50): stopped before any
    # repeat was refused, it breaks too, and its hint asks about max_cost_usd.
    assert report.broken in (["budget"], ["budget", "repeats"])
    assert fixed <= 0.001 or report.broken == ["budget"]
    if "repeats" in report.broken:
        assert "And its max_cost_usd?" in report["repeats"].hint
    hint = report["budget"].hint
    assert "something other than max_cost_usd stopped it" in hint or "after $" in hint


def test_a_loop_without_budget_code_breaks_budget():
    report = grade(with_changes(budget=float("inf")), only=["budget"])
    assert report.broken == ["budget"]
    assert "after the budget was spent" in report["budget"].loop


@pytest.mark.parametrize("steps", [3, 4])
def test_a_loop_that_hard_codes_its_step_limit_breaks_every_row_the_count_decides(steps):
    report = grade(with_changes(steps=steps), seed=6)
    # max_steps breaks; so do budget (the cheap run's budget allows more calls than the count)
    # and repeats (the count ends the run before any repeat): each hint names the count. Where
    # the count also ends stop_names_limit's budget run before its budget (3 calls, not 4),
    # that run's text names the steps, not the budget, and that row breaks too.
    assert [r for r in report.broken if r != "stop_names_limit"] == [
        "max_steps", "budget", "repeats"]
    assert ("stop_names_limit" in report.broken) == (steps == 3)
    assert "ignores its max_steps argument" in report["max_steps"].hint
    assert "a fixed count of calls" in report["budget"].hint
    assert "does the loop read its max_steps?" in report["repeats"].hint


@pytest.mark.parametrize("seed", [17, 3, 5])
def test_a_step_cap_of_its_own_is_named_in_max_steps_and_leaves_repeats_alone(seed):
    """A review: `for step in range(10)` got max_steps' generic hint, and lost repeats though
    its repeat guard is right. The hint says what the grader saw; repeats judges repeats."""
    report = grade(with_changes(steps=10), seed=seed)
    assert report.broken == ["max_steps"], report
    hint = report["max_steps"].hint
    assert re.search(r"stopped after 10 model calls with max_steps=\d and again with "
                     r"max_steps=\d: the loop ignores its max_steps argument", hint), hint
    assert "use the argument" in hint


def test_one_step_short_of_the_limit_breaks_max_steps():
    entry = grade(with_changes(stop_text=None, steps=None), only=["max_steps"])["max_steps"]
    assert entry.held  # the unchanged loop, for contrast

    def one_short(user_message, tools, tool_impls, client, model, max_steps=10, **limits):
        return with_changes(steps=max(max_steps - 1, 1))(user_message, tools, tool_impls,
                                                          client, model, max_steps, **limits)
    entry = grade(one_short, only=["max_steps"])["max_steps"]
    assert not entry.held and "the loop stops before its limit" in entry.hint


@pytest.mark.parametrize("stop_text", [
    lambda n: "Stopped: step limit reached.",
    lambda n: f"Stopped after {n} model calls without an answer.",
    lambda n: "Reached max_steps before the model answered.",
    lambda n: "I ran out of turns.",
    lambda n: "Too many iterations, giving up.",
    lambda n: f"Gave up: no answer within {n}.",
    lambda n: "No answer within the allowed number of requests.",
], ids=["listing", "calls", "max_steps", "turns", "iterations", "the number", "requests"])
def test_the_step_limit_sentence_may_be_worded_as_a_student_would(stop_text):
    assert grade(with_changes(stop_text=stop_text), only=["max_steps"]).held == ["max_steps"]


@pytest.mark.parametrize("stop_text", [
    lambda n: "Stopped.", lambda n: "", lambda n: "Done", lambda n: "Stopped: over budget.",
    # the limit's words inside other words ("re-turn-ed", "a-round", "coun-tries") say nothing
    lambda n: "The model returned nothing useful.", lambda n: "No answer around.",
    lambda n: "Could not find the countries.",
], ids=["stopped", "empty", "done", "the wrong limit", "returned", "around", "countries"])
def test_a_step_limit_sentence_that_says_nothing_breaks_max_steps(stop_text):
    entry = grade(with_changes(stop_text=stop_text), only=["max_steps"])["max_steps"]
    assert not entry.held
    assert "does not say the step limit stopped it" in entry.loop
    assert re.search(r"'Stopped: step limit reached \(\d steps\).'", entry.hint)


@pytest.mark.parametrize("budget_text", [
    "Stopped: over budget.", "Stopped: cost limit reached.", "Spent $0.0061, more than allowed.",
    "I ran out of money.", "Stopped: the spending cap was hit.", "Overspent: stopping here.",
    "Stopped at 0.004 USD.",
    # a review: refused before (the parameter's own name, the library's stop reason, ...)
    "Stopped: max_cost_usd reached.", "Stopped: max_cost", "Stopped: over_budget",
    "Stopped: too expensive.", "Stopped: out of funds.", "Stopped: expense limit reached.",
])
def test_the_budget_sentence_may_be_worded_as_a_student_would(budget_text):
    report = grade(with_changes(budget_text=budget_text), only=["budget"], seed=3)
    assert report.held == ["budget"], report


@pytest.mark.parametrize("budget_text", [
    "Stopped.", "Stopped: step limit reached.", "", "Done",
    "Stopped after 4 model calls.",  # a count of calls is what the budget is not
    # a review: words that only hold a budget word inside them
    "Stopped: the step limit was reached (100 percent).", "Stopped: suspended after 6 steps.",
    "Stopped: hit a recent limit.", "Stopped: too many steps, refunds pending.",
    "Stopped: step limit reached; accosted.",
])
def test_a_budget_stop_that_does_not_name_the_budget_breaks_budget_as_max_steps_does(
        budget_text):
    """04a asks for "a sentence that says the budget stopped the run"; max_steps already
    refuses "Stopped." for its limit (a student review: budget accepted it)."""
    for seed in (None, 3):
        entry = grade(with_changes(budget_text=budget_text), only=["budget"], seed=seed)["budget"]
        assert not entry.held, entry
        assert "which does not say the budget stopped it" in entry.loop
        assert re.search(r"'Stopped: the budget of \$[\d.]+ is spent \(\$[\d.]+\)\.'",
                         entry.hint)


@pytest.mark.parametrize("cut_result", [
    lambda text: text[:4000],  # the chapter's cut
    lambda text: json.dumps(text[:4000]),  # valid JSON, and still silent
    lambda text: json.dumps({"log": text[:3000], "characters": len(text)}),
    lambda text: text[:4000] + "...",
    lambda text: text[:4000] + "…",
    lambda text: json.dumps(text[:4000] + "…"),  # JSON writes the ellipsis as \u2026
], ids=["[:4000]", "a JSON string", "a number alone", "a bare ...", "an ellipsis",
        "an ellipsis in JSON"])
def test_a_cut_that_does_not_say_it_was_cut_breaks_truncation(cut_result):
    """04a asks to "say that it was cut (and how much)" (a student review: a silent [:4000]
    held); an ellipsis alone says nothing either, as 04a's check_truncate holds."""
    for seed in (None, 4):
        entry = grade(with_changes(cut_result=cut_result), only=["truncation"],
                      seed=seed)["truncation"]
        assert not entry.held, entry
        assert "with nothing that says it was cut" in entry.loop
        assert "say that the result was cut, and how much" in entry.hint


@pytest.mark.parametrize("cut_result", [
    cut,
    lambda text: f"{text[:4000]}\n...[truncated: {len(text) - 4000:,} of {len(text):,} chars cut]",
    lambda text: json.dumps({"log": text[:3000], "truncated": True, "characters": len(text)}),
    lambda text: json.dumps(text[:3000] + f" [cut: {len(text):,} characters in all]"),
    lambda text: text[:4000] + f" ({len(text) - 4000} more characters)",
    lambda text: text[:4000] + " [trimmed]",
    lambda text: text[:4000] + " (shortened to 4000 characters)",
    lambda text: text[:4000] + f" (showing the first 4,000 of {len(text):,} characters)",
    lambda text: text[:4000] + f" [+{len(text) - 4000} chars]",
    lambda text: text[:4000] + f" [4000/{len(text)} chars]",
    lambda text: text[:4000] + " [snip]",
    lambda text: json.dumps({"partial": True, "log": text[:3000]}),
    lambda text: text[:4000] + " [showing 4,000 of 9,000 characters]",
    lambda text: text[:4000] + f" ({len(text) - 4000:,} characters not shown)",
    lambda text: text[:4000] + " [output limited to 4000 characters]",
    lambda text: text[:4000] + " [rest hidden]",
    lambda text: text[:4000] + " [capped at 4000 chars]",
    lambda text: json.dumps({"truncated": True, "note": "cut at 3000 chars; the file is not "
                             "shortened", "log": text[:3000]}),
], ids=["honest", "tools.truncate", "a JSON flag", "the 04a exercise", "more characters",
        "trimmed", "shortened", "the first N of M",
        "+N chars", "N/M chars", "snip", "partial", "showing N of M", "not shown",
        "limited to", "hidden", "capped", "a negation elsewhere"])
def test_a_cut_that_says_so_holds_truncation(cut_result):
    entry = grade(with_changes(cut_result=cut_result), only=["truncation"])["truncation"]
    assert entry.held, entry


@pytest.mark.parametrize("cut_result", [
    lambda text: text[:4000] + " (not truncated)",
    lambda text: json.dumps({"log": text[:3000], "is_truncated": False}),
    lambda text: text[:4000] + " (untruncated)",
    lambda text: text[:4000] + " (nothing was truncated)",
    lambda text: text[:4000] + " (no truncation)",
    lambda text: text[:4000] + " (complete, nothing cut)",
    lambda text: text[:4000] + " (full text, never truncated)",
    lambda text: json.dumps({"log": text[:3000], "cut": False}),
    lambda text: json.dumps({"log": text[:3000], "truncated": 0}),
    lambda text: json.dumps({"log": text[:3000], "truncated": None}),
], ids=["not truncated", "is_truncated false", "untruncated", "nothing was truncated",
        "no truncation", "nothing cut", "never truncated", "cut false", "truncated 0",
        "truncated null"])
def test_a_note_that_says_nothing_was_cut_is_no_note(cut_result):
    entry = grade(with_changes(cut_result=cut_result), only=["truncation"], seed=4)["truncation"]
    assert not entry.held, entry


def test_the_truncation_flood_holds_no_word_that_reads_as_a_cut():
    """So the note the row finds is the loop's, never a piece of the tool's result: a silent
    cut of the whole result, or of its end, breaks on every draw."""
    for seed in range(12):
        for silent in (lambda text: text[:15_000], lambda text: text[-15_000:]):
            entry = grade(with_changes(cut_result=silent), seed=seed,
                          only=["truncation"])["truncation"]
            assert not entry.held, (seed, entry)


def test_a_loop_that_winds_down_may_return_the_models_last_answer():
    # The last step the limit allows asks for an answer (tool_choice="none").
    entry = grade(with_changes(wind_down=True), only=["max_steps"])["max_steps"]
    assert entry.held, entry
    assert "returned 'Here is my answer: all done.'" in entry.loop


@pytest.mark.parametrize("show, held", [
    ("the tools offered", False), ("the result", True), (None, True),
])
def test_observability_asks_for_the_call_not_the_menu(show, held):
    entry = grade(with_changes(show=show), only=["observability"])["observability"]
    assert entry.held == held, entry
    if not held:
        assert re.search(r"named without its arguments or result: \w+, \w+:", entry.loop)


def test_a_loop_that_stops_at_the_first_repeat_holds_repeats():
    entry = grade(with_changes(stop_at_a_repeat=True), only=["repeats"])["repeats"]
    assert entry.held, entry
    assert len(re.findall(r"\('[A-Z]-\d+'\) 1 times", entry.loop)) == 2  # in both runs


# --- the report ------------------------------------------------------------------------------


def test_the_report_is_a_table_in_a_notebook_and_text_elsewhere():
    report = grade(chapter_listing(), timeout=LOADED, only=["answers", "bad_json"], seed=3)
    html = report._repr_html_()
    assert html.count("<tr>") == 3 and "<code>bad_json</code>" in html and "✗ broken" in html
    text = repr(report)
    assert text.splitlines()[0] == ("✗ Not yet: 1 of 2 checks held; broken: bad_json (seed=3, "
                                    f"chosen, timeout={LOADED:g}, only=['answers', 'bad_json'])"
                                    ".")
    assert "✓ held    answers" in text and "hint:" in text
    assert sorted(report.held + report.broken) == ["answers", "bad_json"]


def test_the_check_lists_name_every_check_once():
    assert CHAPTER_CHECKS + BEYOND_THE_CHAPTER == EVERY_CHECK
    assert {"max_steps", "budget", "allowlist", "bad_json", "tool_error", "truncation",
            "observability"} <= set(CHAPTER_CHECKS)


def test_grade_refuses_what_it_cannot_grade():
    with pytest.raises(TypeError, match="run_agent function"):
        grade("run_agent")
    with pytest.raises(ValueError, match="no check named speed"):
        grade(from_scratch, only=["speed"])


def test_the_capstone_notebooks_show_not_yet_to_students_and_all_held_in_the_solution():
    notebooks = pathlib.Path(__file__).parent.parent / "notebooks"

    def saved_output(path):
        cells = json.loads(path.read_text())["cells"]
        return "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                       for c in cells if c["cell_type"] == "code" for o in c["outputs"])

    student = saved_output(notebooks / "08_grade_your_own_loop.ipynb")
    assert "✗ Not yet: 0 of 18 checks held" in student and "✓" not in student
    solution = saved_output(notebooks / "solutions" / "08_grade_your_own_loop_solutions.ipynb")
    assert "✓ All checks held (18 of 18) (seed=8, chosen)." in solution and "✗" not in solution


def test_a_loop_that_caps_each_reply_holds_the_budget_check():
    """A reply cut at the loop's own max_tokens ends the first run by itself: its call count
    says nothing of the budget, so the same count at the smaller budget is no evidence that
    max_cost_usd was ignored (a student review: it was reported broken, with that hint)."""
    report = grade(with_changes(reply_cap=512), only=["budget"], seed=2)
    assert report.held == ["budget"], report
    assert re.search(r"made 1 model call with max_cost_usd=[\d.]+, \$0.0003\d\d spent",
                     report["budget"].loop)


# --- the loops that gamed the grader before it drew its tasks (an outside review) -----------


def special_cases_the_old_names(user_message, tools, tool_impls, client, model, max_steps=10,
                                max_cost_usd=0.50):
    """A timeout, a cut and a repeat guard only for the tools the old gauntlet named."""
    messages, spent, asked = [{"role": "user", "content": user_message}], 0.0, []
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        spent += estimate_cost(response)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            name, raw = call.function.name, call.function.arguments
            print(f"step {step}: {name}({raw})")
            asked.append((name, raw))
            if name == "wait_for_reply" or (name == "track_parcel" and asked.count(asked[-1]) > 2):
                result = {"error": "not run"}
            else:  # any other tool runs as in the chapter: no timeout, no repeat guard
                try:
                    result = tool_impls[name](**json.loads(raw))
                except Exception as e:
                    result = {"error": str(e)}
            text = json.dumps(result, default=str)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": text[:4000] if name == "read_log" else text})
        if spent > max_cost_usd:
            return "Stopped: over budget."
    return "Stopped: step limit reached."


def test_a_loop_that_special_cases_the_old_tool_names_breaks_time_truncation_and_repeats():
    report = grade(special_cases_the_old_names, timeout=LOADED, seed=21)
    assert report.broken == ["truncation", "time", "repeats"]
    assert f"did not return within {LOADED:g} s" in report["time"].loop
    assert "cut each tool result" in report["truncation"].hint
    assert "runs at most 3 times in a run" in report["repeats"].hint


def counts_calls_at_a_fixed_price(user_message, tools, tool_impls, client, model, max_steps=10,
                                  max_cost_usd=0.50):
    """A "budget" that charges every call the $0.0004 the old notebook quoted."""
    messages, spent, history = [{"role": "user", "content": user_message}], 0.0, []
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        spent += 0.0004
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            print(f"step {step}: {call.function.name}({call.function.arguments})")
            result = run_one_call(call.function.name, call.function.arguments, tool_impls,
                                  history)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": cut(json.dumps(result, default=str))})
        if spent > max_cost_usd:
            return "Stopped: over budget."
    return "Stopped: step limit reached."


@pytest.mark.parametrize("seed", range(4))
def test_a_budget_that_counts_calls_at_a_fixed_price_breaks_budget_only(seed):
    report = grade(counts_calls_at_a_fixed_price, seed=seed)
    assert report.broken == ["budget"]
    hint = report["budget"].hint
    assert "a price per call assumed" in hint or "a count of calls is not a budget" in hint


def capped_by_name(cap):
    """No repeat guard: each tool refuses once it has run `cap` times in the run, whatever its
    arguments (an outside review: caps 6 and 7 held the repeats row on every draw)."""
    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages, spent, runs = [{"role": "user", "content": user_message}], 0.0, {}
        for step in range(max_steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            spent += estimate_cost(response)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                name = call.function.name
                print(f"step {step}: {name}({call.function.arguments})")
                runs[name] = runs.get(name, 0) + 1
                result = ({"error": f"{name} already ran {cap} times: not run again"}
                          if runs[name] > cap
                          else run_one_call(name, call.function.arguments, tool_impls, []))
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": cut(json.dumps(result, default=str))})
            if spent > max_cost_usd:
                return "Stopped: over budget."
        return "Stopped: step limit reached."
    return loop


@pytest.mark.parametrize("cap", range(1, 21))
def test_a_cap_by_tool_name_breaks_repeats_whatever_the_cap(cap):
    for seed in (None, 8, 53, 77, cap):
        entry = grade(capped_by_name(cap), seed=seed, only=["repeats"])["repeats"]
        assert not entry.held, (cap, entry)
        assert "which was no repeat" in entry.loop or "ran the same call" in entry.loop
        assert "same tool" in entry.hint and "same arguments" in entry.hint


@pytest.mark.parametrize("seed", [8, 53, 77])
def test_a_cap_by_tool_name_breaks_the_whole_grade_on_the_reviews_seeds(seed):
    assert grade(capped_by_name(6), seed=seed).broken == ["repeats"]


@pytest.mark.parametrize("kind", ["once per run", "three times per tool"])
def test_a_repeat_guard_by_tool_name_breaks_repeats(kind):
    # by tool name: each tool allowed once per run, or three times
    cap = 1 if kind == "once per run" else 3
    entry = grade(capped_by_name(cap), seed=9, only=["repeats"])["repeats"]
    assert not entry.held
    assert "which was no repeat" in entry.loop
    assert "compare both" in entry.hint


def writing_errors_as(write):
    """A loop with every guardrail the four error rows need, which sends a failed call back as
    write(exception): what the model reads is the only thing that differs."""
    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages = [{"role": "user", "content": user_message}]
        for step in range(max_steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                print(f"step {step}: {call.function.name}({call.function.arguments})")
                try:
                    text = json.dumps(call_with_timeout(tool_impls[call.function.name],
                                                        json.loads(call.function.arguments),
                                                        TOOL_TIMEOUT_S), default=str)
                except Exception as e:
                    text = write(e)
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": text[:4000]})
        return "Stopped: step limit reached."
    return loop


@pytest.mark.parametrize("write_error", [
    lambda e: str(e), lambda e: json.dumps(str(e)), lambda e: f"the tool said: {e}",
], ids=["bare text", "a JSON string", "a sentence"])
def test_errors_sent_back_without_a_failure_marker_break_as_in_notebook_01(write_error):
    """The rule of check_observe: a failure the model cannot tell from a result is refused."""
    report = grade(writing_errors_as(write_error), seed=13, only=["allowlist", "bad_json", "tool_error", "time"])
    assert report.held == []
    for entry in report.entries:
        assert "reads as a result" in entry.loop, entry
        assert "json.dumps({'error': ...}), or text starting 'Error:'" in entry.hint


@pytest.mark.parametrize("marked", [
    lambda e: json.dumps({"error": str(e)}), lambda e: f"Error: {e}",
    lambda e: f"ERROR - the tool failed: {e}", lambda e: f"Failed: {e}",
    lambda e: json.dumps({"status": "error", "message": str(e)}),
    lambda e: f"{type(e).__name__}: {e}",
], ids=["json error", "Error:", "ERROR -", "Failed:", "status error", "exception"])
def test_every_failure_marker_a_model_reads_holds(marked):
    report = grade(writing_errors_as(marked), seed=13, only=["allowlist", "bad_json", "tool_error", "time"])
    assert report.broken == [], report


@pytest.mark.parametrize("vague", [
    lambda e: json.dumps({"error": "the tool failed"}),
    lambda e: json.dumps({"error": "invalid tool call"}),  # notebook 4a's vague error
    lambda e: "Error: something went wrong.",
], ids=["the tool failed", "invalid tool call", "something went wrong"])
def test_an_error_that_does_not_say_what_went_wrong_breaks_every_error_row(vague):
    """04a: "an error that says what went wrong", and a vague one makes the model give up (a
    student review: bad_json and allowlist held {"error": "the tool failed"})."""
    for seed in (None, 13):
        report = grade(writing_errors_as(vague), seed=seed,
                       only=["allowlist", "bad_json", "tool_error"])
        assert report.held == [], report
        for entry in report.entries:
            assert "that error does not say what went wrong" in entry.loop, entry
        assert "name the tool the model asked for" in report["allowlist"].hint
        assert "the arguments are not valid JSON" in report["bad_json"].hint
        assert "the message says what went wrong" in report["tool_error"].hint


@pytest.mark.parametrize("error_of", [
    lambda name, tools: f"Error: unknown tool {name!r}",
    lambda name, tools: f"Error: no such tool; the tools are {', '.join(tools)}",
    lambda name, tools: json.dumps({"error": "not allowed", "allowed": list(tools)}),
], ids=["names the tool", "names the tools there are", "lists them in a field"])
def test_an_allowlist_error_that_names_the_tool_or_the_tools_there_are_holds(error_of):
    def loop(user_message, tools, tool_impls, client, model, **limits):
        messages = [{"role": "user", "content": user_message}]
        for step in range(10):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                name = call.function.name
                content = (json.dumps(tool_impls[name](**json.loads(call.function.arguments)))
                           if name in tool_impls else error_of(name, tool_impls))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return "Stopped: step limit reached."

    assert grade(loop, only=["allowlist"]).held == ["allowlist"]


def test_a_loop_that_encodes_outside_the_try_breaks_unencodable():
    def dumps_outside(user_message, tools, tool_impls, client, model, **limits):
        messages = [{"role": "user", "content": user_message}]
        for step in range(limits.get("max_steps", 10)):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                result = run_one_call(call.function.name, call.function.arguments, tool_impls, [])
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(result)[:4000]})  # no default=str
        return "Stopped: step limit reached."

    entry = grade(dumps_outside, only=["unencodable"])["unencodable"]
    assert not entry.held
    assert "not JSON serializable" in entry.loop and "default=str" in entry.hint


def test_a_loop_that_never_asks_the_model_again_is_not_told_to_encode_its_result():
    """A review: a loop that encoded the datetime fine but returned it without asking the model
    again was told to "turn the result into text... default=str", which it did."""
    def returns_the_result(user_message, tools, tool_impls, client, model, **limits):
        messages = [{"role": "user", "content": user_message}]
        response = client.chat(model=model, messages=messages, tools=tools)
        for call in response.tool_calls:
            arguments = json.loads(call.function.arguments)
            return json.dumps(tool_impls[call.function.name](**arguments), default=str)
        return response.message["content"]

    entry = grade(returns_the_result, only=["unencodable"], seed=2)["unencodable"]
    assert not entry.held
    assert "default=str" not in entry.hint and "call the model again" in entry.hint, entry
    assert "made 1 model call and sent no result back" in entry.loop, entry


# --- one bug each: the honest loop with one thing wrong breaks that row alone, and says so ----


def is_json(text):
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def one_bug(bug):
    """from_scratch's loop (every guardrail) with one bug put in."""
    remembered = []  # for "repeat memory kept across runs": one list for every run
    conversation = []  # for "messages kept across runs": one messages list for every run

    def call_tool(name, raw, tool_impls, history):
        if bug == "runs the first tool for every call" and name in tool_impls:
            return run_one_call(next(iter(tool_impls)), raw, tool_impls, history)
        if bug == "no allowlist" and name not in tool_impls:
            return {"result": f"{name} done"}  # a fallback runs whatever the model names
        if bug == "json.loads outside the try":
            json.loads(raw)
        if bug == "no timeout":
            return run_one_call(name, raw, tool_impls, history, timeout=None)
        if bug == "no repeat guard":
            history = []
        if bug == "a vague error for an unknown tool" and name not in tool_impls:
            return {"error": "the tool failed"}
        if bug == "a vague error for bad JSON" and not is_json(raw):
            return {"error": "invalid tool call"}  # notebook 4a's vague error
        if bug == "bad JSON answered 'invalid arguments'" and not is_json(raw):
            return {"error": "invalid arguments"}  # names the arguments, not what was wrong
        if bug == "the exception's message dropped" and name in tool_impls and is_json(raw):
            result = run_one_call(name, raw, tool_impls, history)
            return {"error": "the tool failed"} if "error" in result else result
        return run_one_call(name, raw, tool_impls, history)

    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages = [{"role": "user", "content": user_message}]
        if bug == "messages kept across runs":
            messages = conversation
            messages.append({"role": "user", "content": user_message})
        spent, history, shown = 0.0, [], []
        if bug == "repeat memory kept across runs":
            history = remembered
        steps = max_steps + 1 if bug == "one step too many" else max_steps
        for step in range(steps):
            sent = messages
            if bug == "sends only the last exchange" and len(messages) > 1:
                last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
                sent = messages[:1] + messages[last:]
            response = client.chat(model=model, messages=sent,
                                   tools=None if bug == "tools not sent" else tools)
            if bug != "no budget":
                spent += estimate_cost(response)
            messages.append(response.message)
            if not response.tool_calls:
                print("\n".join(shown))
                return response.message["content"]
            calls = response.tool_calls[:1] if bug == "first call only" else response.tool_calls
            ids = [c.id for c in calls]
            if bug == "results under the wrong call ids":
                ids.reverse()
            for call, call_id in zip(calls, ids):
                name = call.function.name
                if bug == "runs the first call's tool for every call of a message":
                    name = calls[0].function.name  # the name read once a message
                line = f"step {step}: {name}({call.function.arguments})"
                shown.append(line) if bug == "prints at the end" else print(line)
                result = call_tool(name, call.function.arguments, tool_impls, history)
                text = (json.dumps(result) if bug == "json.dumps without default=str"
                        else json.dumps(result, default=str))
                if bug == "marks every result as an error":
                    text = json.dumps({"error": result}, default=str)
                if bug == "every result under an error key, null when it worked":
                    failed = isinstance(result, dict) and "error" in result
                    text = json.dumps({"error": result["error"] if failed else None,
                                       "result": None if failed else result}, default=str)
                sent = text if bug == "no truncation" else cut(text)
                if bug == "a silent cut":
                    sent = text[:MAX_RESULT_CHARS]
                messages.append({"role": "tool", "tool_call_id": call_id, "content": sent})
            if spent > max_cost_usd:
                return CANNED if bug == "one sentence for every limit" else "Stopped: over budget."
        if bug == "one sentence for every limit":
            return CANNED
        return None if bug == "returns None at the step limit" else "Stopped: step limit reached."
    return loop


CANNED = "Stopped: the step limit or the cost limit was reached."  # names both, says neither


@pytest.mark.parametrize("bug, row, hint", [
    ("one step too many", "max_steps", "count the model calls"),
    ("returns None at the step limit", "max_steps", "return text however the run ends"),
    ("no budget", "budget", "after $"),
    ("no allowlist", "allowlist", "name in tool_impls"),
    ("a vague error for an unknown tool", "allowlist", "name the tool the model asked for"),
    ("json.loads outside the try", "bad_json", "parse the arguments inside the try"),
    ("a vague error for bad JSON", "bad_json", "the arguments are not valid JSON"),
    ("json.dumps without default=str", "unencodable", "default=str"),
    ("the exception's message dropped", "tool_error", "the message says what went wrong"),
    ("no truncation", "truncation", "cut each tool result"),
    ("a silent cut", "truncation", "say that the result was cut"),
    ("prints at the end", "observability", "print each tool call"),
    ("no timeout", "time", "in a thread"),
    ("no repeat guard", "repeats", "runs at most 3 times in a run"),
    ("first call only", "unanswered_tool_calls", "every call in response.tool_calls"),
    ("tools not sent", "answers", "tools=tools"),
    # the honest mistakes of the capstone's review: each gives wrong answers on ordinary tasks
    ("runs the first tool for every call", "right_tool", "tool_impls[call.function.name]"),
    ("runs the first call's tool for every call of a message", "right_tool",
     "tool_impls[call.function.name]"),
    ("bad JSON answered 'invalid arguments'", "bad_json", "the arguments are not valid JSON"),
    ("results under the wrong call ids", "call_ids", "answer each call with its own id"),
    ("sends only the last exchange", "history", "keep one messages list"),
    ("marks every result as an error", "plain_result", "send a result back as it is"),
    ("repeat memory kept across runs", "fresh_run", "nothing kept in globals"),
    ("one sentence for every limit", "stop_names_limit", "name the limit that stopped"),
])
def test_a_loop_with_one_bug_breaks_its_row_with_a_hint_naming_the_bug(bug, row, hint):
    report = grade(one_bug(bug), seed=17)  # the default 2 s: a busy machine slows every run
    broken = set(report.broken)
    assert row in broken, report
    assert hint in report[row].hint, report[row]
    if bug == "tools not sent":  # no tool offered: the model's calls go unanswered elsewhere
        return
    # Only that row, and the rows the same bug shows in: a step limit that returns None also
    # fails the rows whose model never stops (repeats) and says nothing of the limit; a loop
    # with no budget code never says the budget stopped it; a loop that answers only the first
    # call leaves the others' ids without their results, and runs one tool of right_tool's two.
    also = {"returns None at the step limit": {"repeats", "stop_names_limit"},
            "no budget": {"stop_names_limit"},
            # the repeats row asks its new questions in one message, too
            "first call only": {"call_ids", "repeats", "right_tool"},
            # the repeats row asks three tools: the first one run for all is a repeat
            "runs the first tool for every call": {"repeats"}}
    assert broken - {row} <= also.get(bug, set())
    if "repeats" in broken and bug == "first call only":  # the refused request, not repeats
        assert "every call in response.tool_calls" in report["repeats"].hint, report["repeats"]


@pytest.mark.parametrize("seed", [17, 3])
def test_messages_kept_across_runs_say_so_in_every_row_they_break(seed):
    """A review: a messages list kept in a global broke answers, plain_result and others with
    their own hints (about answers, about plain results), which sent the student to the wrong
    place. The grader sees each run's first request carry an earlier run's messages."""
    report = grade(one_bug("messages kept across runs"), seed=seed)
    assert "fresh_run" in report.broken and len(report.broken) > 1, report
    for name in report.broken:
        assert "fresh conversation at each call of run_agent" in report[name].hint, report[name]
        assert "of an earlier run" in report[name].loop


def test_a_runs_first_request_carries_an_earlier_run_only_with_what_that_run_was_given():
    from agentlab.course.gauntlet.watch import Request, Trial

    reply = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_0_0", "type": "function",
         "function": {"name": "find_ledger", "arguments": '{"id": "A-1"}'}}]}

    def first_request(*messages):
        return Trial(task="Look up B-2.", earlier_tasks=["Look up A-1.", "Look up B-2."],
                     earlier_replies=[reply, {"role": "assistant", "content": "Done."}],
                     requests=[Request(messages=list(messages), tools=[], output_before=0)])

    system = {"role": "system", "content": "Use the tools."}
    task = {"role": "user", "content": "Task: Look up B-2."}
    assert first_request(system, task).left_over == 0  # a prompt of the loop's own is no leftover
    example = [{"role": "user", "content": "What is 2 + 2?"},
               {"role": "assistant", "content": "4"}]
    assert first_request(system, *example, task).left_over == 0  # nor are its own examples
    assert first_request(task, "junk", None, {"role": "assistant", "tool_calls": 7}).left_over == 0
    assert Trial(task="t").left_over == 0  # no request at all
    earlier = [{"role": "user", "content": "Look up A-1."}, dict(reply, refusal=None),
               {"role": "tool", "tool_call_id": "call_0_0", "content": "{}"},
               {"role": "assistant", "content": "Done."}]
    assert first_request(*earlier, task).left_over == 3  # the task and both replies
    # the same task given twice (max_steps' two runs): the replies still give the first away
    assert first_request(task, *earlier[1:], task).left_over == 2


def test_a_worked_example_of_the_loops_own_in_every_conversation_is_no_leftover():
    example = [{"role": "user", "content": "What is 2 + 2?"},
               {"role": "assistant", "content": "4"}]

    def with_an_example(user_message, tools, tool_impls, client, model, **limits):
        class Prepending:  # from_scratch's loop, each conversation opened with the example
            def chat(self, messages, **options):
                return client.chat(messages=example + messages, **options)
        return from_scratch(user_message, tools, tool_impls, Prepending(), model, **limits)

    report = grade(with_an_example, only=["fresh_run", "answers", "history"], seed=17)
    assert report.broken == [], report


def test_an_error_key_that_is_null_when_the_call_worked_is_no_failure():
    """{"error": null, "result": ...}: null reads as no error, to a model as to the grader."""
    report = grade(one_bug("every result under an error key, null when it worked"), seed=17)
    assert report.broken == [], report


def test_the_honest_one_bug_base_holds_every_row():
    assert grade(one_bug(None), seed=17).broken == []


@pytest.mark.long
def test_the_honest_loop_holds_every_row_on_thirty_fresh_seeds():
    for _ in range(30):
        report = grade(one_bug(None))
        assert report.broken == [], report


# --- loops that cheat: none reaches a full mark ----------------------------------------------
# The grader runs in this process; each loop below runs in a process of its own and tries to
# reach the verdict from there.


def pasted_library_loop():
    """agentlab.run_agent's code pasted into a notebook: the same source, compiled anew."""
    import inspect

    from agentlab import loop as library

    namespace = dict(vars(library), __name__="__main__")
    exec(compile(inspect.getsource(library.run_agent), "<notebook cell>", "exec"), namespace)
    pasted = namespace["run_agent"]

    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        run = pasted(user_message, (tools, tool_impls), client=client, model=model,
                     limits=agentlab.Limits(max_steps=max_steps, max_cost_usd=max_cost_usd,
                                            tool_timeout=0.3))
        return run.answer or f"Stopped: {run.stop_detail}"
    return loop


def library_with_the_spy_put_back(user_message, tools, tool_impls, client, model, max_steps=10,
                                  max_cost_usd=0.50):
    """agentlab.run_agent, after undoing whatever the grader put on agentlab.loop.Steps."""
    from agentlab import loop as library

    while library.Steps.__module__ != "agentlab.loop" or library.Steps.__name__ != "Steps":
        library.Steps = library.Steps.__mro__[1]
    run = library.run_agent(user_message, (tools, tool_impls), client=client, model=model,
                            limits=agentlab.Limits(max_steps=max_steps,
                                                   max_cost_usd=max_cost_usd, tool_timeout=0.3))
    return run.answer or f"Stopped: {run.stop_detail}"


def reads_the_grader(user_message, tools, tool_impls, client, model, max_steps=10,
                     max_cost_usd=0.50):
    """Looks up the call stack for the row being graded and grade()'s seed, patches the
    grader's judging functions, then does nothing a loop should."""
    import inspect
    import sys

    found = {}
    for frame_info in inspect.stack():
        for name in ("name", "seed", "draw", "check"):
            if name in frame_info.frame.f_locals:
                found[name] = frame_info.frame.f_locals[name]
    for module in list(sys.modules.values()):  # the grader's checks, wherever they are loaded
        if getattr(module, "__name__", "").startswith("agentlab.course.gauntlet"):
            for attribute in ("_reads_as_failure", "_names_what_went_wrong"):
                if hasattr(module, attribute):
                    setattr(module, attribute, lambda *args: True)
            if hasattr(module, "_run_failed"):
                module._run_failed = lambda *args: None
    if "seed" in found or "draw" in found:  # it would rebuild the draws here
        return "Here is my answer: all done."
    return f"Stopped: step limit reached. {sorted(found)}"


@pytest.mark.parametrize("cheat", ["pasted", "spy put back", "reads the grader"])
def test_no_cheat_reaches_a_full_mark(cheat):
    loop = {"pasted": pasted_library_loop(), "spy put back": library_with_the_spy_put_back,
            "reads the grader": reads_the_grader}[cheat]
    report = grade(loop, seed=21)
    assert len(report.held) < len(report.entries), report
    if cheat != "reads the grader":  # the library's loop, known by the calls it makes
        assert report.held == []
        assert all("handed the run to agentlab.run_agent" in e.loop for e in report.entries)
    else:
        # nothing of the grader is in the loop's process: no seed, no row, no draws to read,
        # and what it patched there judges nothing
        assert "max_steps" in report.broken and "answers" in report.broken
        assert "seed" not in report["answers"].loop



def tuned_wrapper(user_message, tools, tool_impls, client, model, max_steps=10,
                  max_cost_usd=0.50):
    """agentlab.run_agent with the spied Steps put back, a max-tokens cap other than the one the
    grader knew the library's calls by, and a whole-run repeat count of its own round the tools
    (the library's counts only in a row): it would hold every row, a review found."""
    from agentlab import loop as library

    while library.Steps.__module__ != "agentlab.loop" or library.Steps.__name__ != "Steps":
        library.Steps = library.Steps.__mro__[1]
    counts = {}

    def counted(name, function):
        def call(**arguments):
            key = (name, json.dumps(arguments, sort_keys=True, default=str))
            counts[key] = counts.get(key, 0) + 1
            if counts[key] > 3:
                raise RuntimeError(f"{name} already ran 3 times with these arguments")
            return function(**arguments)
        return call
    impls = {name: counted(name, function) for name, function in tool_impls.items()}
    limits = agentlab.Limits(max_steps=max_steps, max_cost_usd=max_cost_usd, tool_timeout=0.3,
                             max_repeats=None, max_output_tokens=4096)
    run = agentlab.run_agent(user_message, (tools, impls), client=client, model=model,
                             limits=limits, on_step=agentlab.print_step, budget="after")
    if run.stop_reason == "answered":
        return run.answer
    return f"Stopped: {run.stop_reason}: {run.stop_detail}"


def test_the_library_loop_is_named_from_its_code_whatever_it_undoes_in_its_process():
    report = grade(tuned_wrapper, seed=21, timeout=LOADED)
    assert report.held == [], report
    assert all(e.loop.startswith("handed the run to agentlab.run_agent (its code calls it: ")
               for e in report.entries), report
    # and the hand-in's fresh process reads it the same way
    from agentlab.course import handin

    assert handin.capstone(tuned_wrapper, ["answers", "repeats"]) == 0


def pasted_module(folder: pathlib.Path, name: str):
    """agentlab/loop.py saved as a module of one's own (its imports made absolute), imported."""
    import importlib

    from agentlab import loop as library

    source = pathlib.Path(library.__file__).read_text().replace("from .", "from agentlab.")
    (folder / f"{name}.py").write_text(source)
    return importlib.import_module(name)


@pytest.mark.parametrize("where", ["a notebook cell", "a cell, its model call rewritten",
                                   "a module of one's own"])
def test_the_library_loop_pasted_is_named_whatever_arguments_it_is_called_with(
        where, tmp_path, monkeypatch):
    if where != "a module of one's own":
        import inspect

        from agentlab import loop as library

        source = inspect.getsource(library.run_agent)
        if where == "a cell, its model call rewritten":  # as the student's own loop calls it
            source = source.replace("max_tokens=limits.max_output_tokens, timeout=clock.left()",
                                    "")
            assert "timeout=clock" not in source
        namespace = dict(vars(library), __name__="__main__")
        exec(compile(source, "<cell>", "exec"), namespace)
        pasted = namespace["run_agent"]
    else:
        monkeypatch.syspath_prepend(str(tmp_path))
        pasted = pasted_module(tmp_path, "my_pasted_loop").run_agent

    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        limits = agentlab.Limits(max_steps=max_steps, max_cost_usd=max_cost_usd,
                                 tool_timeout=0.3, max_output_tokens=1000)
        run = pasted(user_message, (tools, tool_impls), client=client, model=model,
                     limits=limits, on_step=agentlab.print_step)
        return run.answer or f"Stopped: {run.stop_detail}"

    report = grade(loop, only=["answers", "right_tool", "observability"], timeout=LOADED)
    assert report.held == [], report
    assert all("(it runs a pasted copy of its code: the library's loop" in e.loop
               for e in report.entries), report


def test_a_loop_of_ones_own_is_not_named_for_its_name_or_for_using_agentlab():
    from agentlab.course.gauntlet.boundary import pickled
    from agentlab.course.gauntlet.carried import library_use

    def run_agent(user_message, tools, tool_impls, client, model, max_steps=10,
                  max_cost_usd=0.50):
        return from_scratch(user_message, tools, tool_impls, client, model, max_steps,
                            agentlab.estimate_cost(None) if max_cost_usd is None else
                            max_cost_usd)

    def graded(*args, **kwargs):  # a wrapper over one's own loop named run_agent
        return run_agent(*args, **kwargs)

    assert library_use(pickled(graded)) == ""
    assert library_use(pickled(from_scratch)) == ""
    assert library_use(b"not a pickle") == ""  # unreadable: the calls it makes still count


def test_what_notebook_08_says_the_code_reading_cannot_see():
    """A name built at run time is not read in the code (notebook 08 states this limit)."""
    from agentlab.course.gauntlet.boundary import pickled
    from agentlab.course.gauntlet.carried import library_use

    def built(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.5):
        name = "_".join(["run", "agent"])
        return getattr(agentlab, name)(user_message, (tools, tool_impls)).answer

    def named(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.5):
        return getattr(agentlab, "run_agent")(user_message, (tools, tool_impls)).answer

    assert library_use(pickled(built)) == ""
    assert library_use(pickled(named)) == "its code calls it"

def test_the_summary_names_every_argument_beyond_the_defaults():
    full = grade(one_bug(None), seed=4)
    assert full.summary() == (f"✓ All checks held ({len(CHECKS)} of {len(CHECKS)}) "
                              "(seed=4, chosen).")
    longer = grade(one_bug(None), seed=4, timeout=8, only=["answers", "time"])
    assert longer.summary() == ("✓ All checks held (2 of 2) (seed=4, chosen, timeout=8, "
                                "only=['answers', 'time']).")
    drawn = grade(one_bug(None), only=["answers"])  # the seed a grade drew is no argument
    assert drawn.summary() == f"✓ All checks held (1 of 1) (new draws, seed {drawn.seed}, " \
        "only=['answers'])."


def test_a_report_edited_after_grading_says_so():
    report = grade(one_bug("no budget"), seed=4, only=["answers", "budget"])
    assert report.broken == ["budget"] and not report.edited
    report["budget"].held = True  # the edit a student can make in the notebook
    assert report.edited and report.summary().startswith("✗ Edited after grading")
    assert "Edited after grading" in repr(report) and "Edited after grading" in \
        report._repr_html_()
    other = grade(one_bug("no budget"), seed=4, only=["answers", "budget"])
    other.entries = [e for e in other.entries if e.held]  # dropping the broken row
    assert other.edited


def test_an_edited_report_cannot_remake_its_own_record_and_shows_the_graders_verdict():
    report = grade(one_bug("no budget"), seed=4, only=["answers", "budget"])
    graded = report.summary()
    report["budget"].held, report["budget"].hint = True, ""
    # The audit's forgery: the record remade from the edited entries by the report's own
    # methods. Whatever a method without arguments returns is written over every record kept.
    kept = [name for name, value in vars(report).items()
            if name.startswith("_") and isinstance(value, str)]
    for name in dir(report):
        method = getattr(report, name)
        if name.startswith("_") and not name.startswith("__") and callable(method):
            try:
                remade = method()
            except TypeError:
                continue
            for record in kept:
                setattr(report, record, remade)
            if report.summary().startswith("✓"):
                break
    assert report.summary().startswith("✗"), report.summary()
    assert report.held == ["answers"] and report.broken == ["budget"]
    fresh = grade(one_bug("no budget"), seed=4, only=["answers", "budget"])
    fresh["budget"].held = True
    assert fresh.summary() == f"✗ Edited after grading: this report's entries are not the " \
        f"grader's, whose verdict was: {graded}"


def test_grade_says_it_is_grading_and_how_far_it_got(capsys):
    grade(one_bug(None), seed=4, only=["answers", "max_steps", "budget"])
    assert capsys.readouterr().out == "grading: 3 checks ... done\n"


def test_a_loop_that_cannot_be_sent_to_its_process_gets_a_clear_error():
    lock = threading.Lock()

    def uses_a_lock(*args, **kwargs):
        with lock:
            return "done"

    with pytest.raises(TypeError, match="cannot be sent"):
        grade(uses_a_lock, only=["answers"])



def guarded_by(key_of, in_a_row=False):
    """A loop whose repeat guard keys calls with key_of(name, arguments), counting over the
    run, or only in a row."""
    def loop(user_message, tools, tool_impls, client, model, max_steps=10, max_cost_usd=0.50):
        messages, seen, last, streak = [{"role": "user", "content": user_message}], [], None, 0
        for step in range(max_steps):
            response = client.chat(model=model, messages=messages, tools=tools)
            messages.append(response.message)
            if not response.tool_calls:
                return response.message["content"]
            for call in response.tool_calls:
                name, arguments = call.function.name, json.loads(call.function.arguments)
                key = key_of(name, arguments)
                if in_a_row:
                    streak, last = (streak + 1 if key == last else 1), key
                    refused = streak > 3
                else:
                    refused = seen.count(key) >= 3
                    seen.append(key)
                result = ({"error": f"{name} repeated: not run"} if refused
                          else tool_impls[name](**arguments))
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(result)})
        return "Stopped: step limit reached."
    return loop


@pytest.mark.parametrize("seed", [None, 9, 52])
@pytest.mark.parametrize("guard, hint", [
    ("the arguments alone", "key the guard on (name, arguments)"),
    ("only in a row", "not only in a row"),
])
def test_a_repeat_guard_keyed_on_the_arguments_alone_or_counting_in_a_row_breaks(guard, hint,
                                                                                  seed):
    loop = (guarded_by(lambda name, arguments: json.dumps(arguments, sort_keys=True))
            if guard == "the arguments alone" else
            guarded_by(lambda name, arguments: (name, json.dumps(arguments)), in_a_row=True))
    entry = grade(loop, seed=seed, only=["repeats"])["repeats"]
    assert not entry.held and hint in entry.hint, entry
    right = guarded_by(lambda name, arguments: (name, json.dumps(arguments, sort_keys=True)))
    assert grade(right, seed=seed, only=["repeats"]).held == ["repeats"]


def test_a_grade_that_kills_loops_leaks_no_file_descriptor():
    def hangs(*args, **kwargs):
        import time

        time.sleep(30)

    grade(hangs, timeout=0.05, only=["answers"])  # the first grade opens what is kept open
    before = open_descriptors()
    grade(hangs, timeout=0.05, only=["answers", "budget", "time", "history"])
    assert open_descriptors() - before == set()


def test_a_loop_that_cannot_travel_to_its_process_is_told_what_to_change():
    """A loop using a lock made at module level cannot be pickled: grade() says why and what to
    change, not a pickling traceback."""
    guard = threading.Lock()

    def locked_loop(user_message, tools, tool_impls, client, model, max_steps=10,
                    max_cost_usd=0.50):
        with guard:
            return "done"

    with pytest.raises(TypeError, match=r"could not send it there \(TypeError: .*lock.*\)\. "
                       r"Keep what run_agent uses .* make them inside run_agent instead"):
        grade(locked_loop, only=["answers"])


def test_the_graders_own_time_answering_the_model_is_not_the_loops(monkeypatch):
    """A student review: the server's first refused request took 3.9 s to answer (it loads
    jsonschema to say why), and a loop's run was abandoned as one that never returned."""
    from agentlab.course.gauntlet import boundary

    answer = boundary.handle

    def slow_answer(*args, **kwargs):  # each answer longer than the whole run may take
        time.sleep(LOADED + 0.5)
        return answer(*args, **kwargs)

    monkeypatch.setattr(boundary, "handle", slow_answer)
    report = grade(from_scratch, only=["answers"], seed=3, timeout=LOADED)
    assert report.held == ["answers"], report["answers"]


@pytest.mark.parametrize("seed", [5, 12])
def test_a_count_of_its_own_under_the_budget_is_not_told_to_say_the_budget_stopped_it(seed):
    """A student review: a loop capped at range(5) stopped under its budget, said 'step limit
    reached', and was told to say 'Stopped: the budget of $... is spent', which was not so.
    (Seeds where the budget rows stop it this way: other seeds leave room for one more call
    and get the 'something other than max_cost_usd' hint.)"""
    entry = grade(with_changes(steps=5), only=["budget"], seed=seed)["budget"]
    assert not entry.held
    assert "a count of the loop's own stopped it" in entry.hint, entry
    assert "is spent" not in entry.hint


def guard_by_name(user_message, tools, tool_impls, client, model, max_steps=10,
                  max_cost_usd=0.50):
    """A repeat guard keyed on the tool's name alone: it refuses a new question to a tool."""
    messages = [{"role": "user", "content": user_message}]
    runs = {}
    for step in range(max_steps):
        response = client.chat(model=model, messages=messages, tools=tools)
        messages.append(response.message)
        if not response.tool_calls:
            return response.message["content"]
        for call in response.tool_calls:
            name = call.function.name
            runs[name] = runs.get(name, 0) + 1
            if runs[name] > 1:
                content = json.dumps({"error": f"{name} was already called"})
            else:
                content = json.dumps(tool_impls[name](**json.loads(call.function.arguments)))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return "Stopped: step limit reached."


def test_a_call_the_loop_refused_itself_is_not_blamed_on_its_ids():
    """A student review: a repeat guard keyed on the tool's name broke call_ids with 'answer
    each call with its own id', though every id was right."""
    entry = grade(guard_by_name, only=["call_ids"], seed=3)["call_ids"]
    assert not entry.held
    assert "a check of its own refused it" in entry.hint and "(name, arguments)" in entry.hint
    # results under the wrong ids, every tool run: still the ids' hint
    wrong_ids = grade(one_bug("results under the wrong call ids"), only=["call_ids"], seed=3)
    assert "own id" in wrong_ids["call_ids"].hint, wrong_ids["call_ids"]
