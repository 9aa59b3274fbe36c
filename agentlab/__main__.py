"""Command line: `agentlab course`, `run "task"`, `serve`, `models` (or `python -m agentlab ...`).

    python -m agentlab course                  # open the course in JupyterLab, offline
    python -m agentlab run "What time is it, and what is 17 * 23 + sqrt(144)?"
    python -m agentlab run "..." --model tutor-looper --max-steps 3
    python -m agentlab run "..." --json > run.json
    python -m agentlab serve --port 8642      # the tutor as an OpenAI-compatible HTTP API
    python -m agentlab models                  # the tutor's personas

Offline by default. Exit status of `run`: 0 if the model answered, 1 if a limit or an error
stopped it, 130 if Ctrl-C did (the steps done so far are still printed, or written as JSON).
Any command: 2 for bad command-line input (an address `serve` cannot listen on included),
1 for an error (one line; --debug shows the traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import math
import os
import queue
import re
import sys
import threading
import time


def _stop_if_not_the_package() -> None:
    """Exit with what happened and what to do when `python -m agentlab` found a folder named
    agentlab that is not the package. Python looks in the current folder first: run from the
    folder that holds the clone, it imports the clone itself (no __init__.py there) as a
    namespace package, and the imports below would fail with an ImportError that says nothing
    ("cannot import name 'Outcome' from 'agentlab.tools'"). Checked before them, for that."""
    package = sys.modules.get(__spec__.parent if __spec__ else "agentlab")
    if package is None or getattr(package, "__file__", None) is not None:
        return  # the real package (its __init__.py ran)
    found = next(iter(getattr(package, "__path__", None) or []), "a folder named agentlab")
    what = elsewhere = ""
    if os.path.isfile(os.path.join(found, "agentlab", "__init__.py")):  # the clone itself
        what = " (a copy of the course's repository: the package is the agentlab folder in it)"
        elsewhere = f", such as the copy itself (cd {os.path.basename(found)})"
    sys.stderr.write(
        f"error: python -m agentlab found the folder {found}{what}, not the agentlab package: "
        "Python looks in the current folder first, and this one holds a folder named "
        f"agentlab. Run the command from another folder{elsewhere}, or use the `agentlab` "
        "command instead of `python -m agentlab`.\n")
    sys.exit(1)


_stop_if_not_the_package()

from .course.launcher import CourseError  # noqa: E402 (after the check above, on purpose)
from .guardrails import Limits  # noqa: E402
from .loop import SYSTEM_PROMPT  # noqa: E402
from .masking import public_url  # noqa: E402
from .records import Run, format_step, redact  # noqa: E402

# `serve`'s default port: agentlab.server.web.DEFAULT_PORT (a test keeps the two equal), written
# here so that the command line starts without importing the server. Not 8000: that is
# JupyterHub's, and a student's `agentlab serve` left running would block a hub on the machine.
SERVE_PORT = 8642

INTERRUPTED = 130   # the shell's code for a program that Ctrl-C (SIGINT) ended
PIPE_CLOSED = 141   # the shell's code for a program whose reader went away (SIGPIPE)
DEFAULTS = Limits()


class Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (it prints the whole usage first by default)
    and any key in them masked (they quote what was typed)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {redact(message)}{did_you_mean(message)} (see --help)\n")


def did_you_mean(message: str) -> str:
    """For argparse's "invalid choice" error, the closest choice, if one is close.

    Example: "invalid choice: 'rnu' (choose from 'course', 'run', ...)" -> "; did you mean 'run'?"
    """
    found = re.search(r"invalid choice: '?([^'\s]*)'? \(choose from (.*)\)", message)
    if not found:
        return ""
    choices = [choice.strip(" '\"") for choice in found.group(2).split(",")]
    close = difflib.get_close_matches(found.group(1), choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def whole_number(text: str) -> int:
    """Parse a limit that counts things: at least 1.

    Example: "3" -> 3; "0", "1.5", "many" -> refused with a one-line reason
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def positive_number(text: str) -> float:
    """Parse a limit in dollars or seconds: a positive, finite number (NaN would switch it off).

    Example: "0.25" -> 0.25; "nan", "inf", "1e999", "-1", "0", "lots" -> refused
    """
    try:
        value = float(text)
    except ValueError:
        hint = ""
        if re.fullmatch(r"-?[A-Za-z][\w/-]*\.\d+", text):  # "$0.01" unquoted: "bash.01"
            hint = " (write the number without a $: the shell replaces $0 with its own name)"
        raise argparse.ArgumentTypeError(f"{text!r} is not a number{hint}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number, not {text}")
    return value


def port_number(text: str) -> int:
    """Parse a TCP port. Example: "8000" -> 8000; "70000" -> refused"""
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return int(text)


def _parser() -> Parser:
    # Name the command the way it was typed: the `agentlab` script or `python -m agentlab`.
    typed = os.path.basename(sys.argv[0]).removesuffix(".exe")
    program = "agentlab" if typed == "agentlab" else "python -m agentlab"
    parser = Parser(prog=program, description=__doc__.split("\n\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true",
                        help="on an error, show the full traceback (default: one line)")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    course = commands.add_parser("course", parents=[common],
                                 help="open the course's notebooks in JupyterLab, offline")
    course.add_argument("--port", type=port_number, metavar="PORT",
                        help="JupyterLab's TCP port (default: 8888, or the next free one)")
    course.add_argument("--no-browser", action="store_true",
                        help="do not open a web browser; open the address JupyterLab prints "
                             "(default: opens your browser)")
    course.add_argument("--check", action="store_true",
                        help="check JupyterLab and the notebooks are there, say what would "
                             "start, and exit (default: start JupyterLab)")
    course.add_argument("--student-copy", metavar="FOLDER",
                        help="copy the course to a new FOLDER without the reference solutions, "
                             "the tests and the instructor's guide, to hand out, and exit "
                             "(default: open the course)")
    course.add_argument("jupyter_options", nargs="*", metavar="-- OPTION",
                        help="more JupyterLab options, after --, such as -- --ip=0.0.0.0 "
                             "(default: none)")

    run = commands.add_parser("run", parents=[common],
                              help="run the agent loop on a task, printing each step")
    run.add_argument("task", help="what to ask the agent, in quotes")
    run.add_argument("--model", metavar="NAME",
                     help="model name (default: $AGENTLAB_MODEL if set; else 'tutor', the "
                          "offline tutor, or gpt-4o-mini on the real API when OPENAI_API_KEY "
                          "or OPENAI_BASE_URL is set; `models` lists the tutor's personas)")
    run.add_argument("--max-steps", type=whole_number, default=DEFAULTS.max_steps, metavar="N",
                     help="the most model calls in the run (default: %(default)s)")
    run.add_argument("--max-cost", type=positive_number, default=DEFAULTS.max_cost_usd,
                     metavar="USD", help="budget for the whole run, in US dollars "
                                         "(default: %(default)s)")
    run.add_argument("--max-seconds", type=positive_number, default=DEFAULTS.max_seconds,
                     metavar="SECONDS", help="wall-clock limit for the whole run, in seconds "
                                             "(default: %(default)s)")
    run.add_argument("--priced-as", metavar="MODEL",
                     help="charge the calls at this real model's prices, such as gpt-4o-mini "
                          "(default: the model's own; the tutor is priced as gpt-4o-mini)")
    run.add_argument("--budget", choices=["before", "after"], default="before",
                     help="'before' never exceeds the budget; 'after' is the chapter's check, "
                          "which can overshoot by one call (default: %(default)s)")
    run.add_argument("--wind-down", action="store_true",
                     help="make the last step the limits allow a final answer (default: off)")
    run.add_argument("--json", action="store_true",
                     help="print the Run record as JSON on stdout; the step log goes to stderr "
                          "(default: off)")

    serve = commands.add_parser("serve", parents=[common],
                                help="serve the tutor as an OpenAI-compatible HTTP API")
    serve.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                       help="address to listen on (default: %(default)s, this machine only)")
    serve.add_argument("--port", type=port_number, default=SERVE_PORT, metavar="PORT",
                       help="TCP port (default: %(default)s)")
    serve.add_argument("--quiet", action="store_true",
                       help="print nothing per request (default: one line each: method, path, "
                            "model, status, milliseconds, and an error's reason)")

    commands.add_parser("models", parents=[common], help="list the offline tutor's models")
    parser.commands = commands.choices  # each subcommand's parser, by name
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; return its exit status. Output piped into `head` ends quietly."""
    try:
        try:
            return _command(argv)
        finally:
            sys.stdout.flush()  # so a closed pipe shows up here, not at interpreter exit
    except BrokenPipeError:
        _discard_stdout()
        return PIPE_CLOSED


def _command(argv: list[str] | None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        refuse_unknown(parser.commands[args.command], unknown, argv)
    commands = {"course": _course, "run": _run, "serve": _serve, "models": _models}
    try:
        return commands[args.command](args)
    except BrokenPipeError:
        raise
    except KeyboardInterrupt:  # `run` handles its own; elsewhere there is nothing to keep
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as error:
        if args.debug:
            raise
        kind = "" if isinstance(error, CourseError) else f"{type(error).__name__}: "
        print(f"error: {kind}{_one_line(error)}", file=sys.stderr)
        return 1


def refuse_unknown(command: Parser, unknown: list[str], argv: list[str]) -> None:
    """Exit 2 naming the subcommand (argparse names only the program): a near miss of one of
    its own options gets "did you mean"; for `course`, JupyterLab's options go after --, so the
    command is written back that way, in the order it was typed.

    Example: course --check --ip 0.0.0.0 -> "agentlab course: error: unrecognized arguments:
             --ip; JupyterLab's options go after --: agentlab course --check -- --ip 0.0.0.0"
             course --chek -> "... unrecognized arguments: --chek (did you mean --check?)"
    """
    # argparse keeps each option's spellings on its actions; it offers no public list of them
    own = {spelling: action for action in command._actions for spelling in action.option_strings}
    message = f"unrecognized arguments: {' '.join(unknown)}"
    near = [difflib.get_close_matches(token.split("=")[0], own, n=1, cutoff=0.75)
            for token in unknown if token.startswith("-")]
    if any(near):
        command.error(f"{message} (did you mean {', '.join(n[0] for n in near if n)}?)")
    if command.prog.endswith(" course"):
        ours, theirs, words = [], [], iter(argv[argv.index("course") + 1:])
        for word in words:
            action = own.get(word.split("=")[0])
            if action is None:
                theirs.append(word)
            else:  # one of ours, with its value if it takes one (--port 8890)
                ours += [word] + ([next(words, "")] if action.nargs is None
                                  and "=" not in word and action.option_strings else [])
        message += (f"; JupyterLab's options go after --: "
                    f"{' '.join([command.prog, *ours, '--', *theirs])}")
    elif command.prog.endswith(" run") and not any(t.startswith("-") for t in unknown):
        first = command.parse_known_args(argv[argv.index("run") + 1:])[0].task
        task = " ".join([first, *unknown])  # the words of the task the shell split apart
        message += f'; put the task in quotes: {command.prog} "{task}"'
    command.error(message)


def _course(args) -> int:
    from .course.launcher import open_course
    from .course.handout import student_copy

    if args.student_copy:
        student_copy(args.student_copy)
        return 0
    return open_course(port=args.port, open_browser=not args.no_browser, check=args.check,
                       extra=args.jupyter_options)


def _serve(args) -> int:
    from .server import CannotListen, serve

    log = None if args.quiet else RequestLog()
    try:
        serve(args.host, args.port, on_request=log)
    except CannotListen as error:  # a port taken or a host unknown: --host or --port to change
        if args.debug:
            raise
        print(f"error: {_one_line(error)}", file=sys.stderr)
        return 2
    finally:
        if log is not None:
            log.flush()  # the last requests' lines, before the process ends
    return 0


class RequestLog:
    """`agentlab serve`'s line per request on stdout, so that a student whose framework gets a
    400 sees why on the server's side too:

        POST /v1/responses tutor 400 3 ms: Item with id 'msg_1' not found. ...

    Everything in it came from a client: it is masked (a key sent as the model, or echoed in an
    error's reason, shows as [masked key]) before it is cut, and kept to one line of printable
    text (a line break or a terminal's escape code in a model name is shown escaped, never
    obeyed).

    The log never holds the server up: the server hands each line over and goes on, and a
    thread of the log's own writes them. If nobody reads stdout (a full pipe), the lines wait,
    up to WAITING of them, and later ones are dropped and counted (the count is written once
    there is room); if stdout goes away (`agentlab serve | head`), the lines stop.
    """

    MODEL_CHARACTERS = 64
    REASON_CHARACTERS = 300
    PATH_CHARACTERS = 200
    WAITING = 1_000  # lines handed over and not yet written, at most

    def __init__(self, output=None):
        self.output = output  # None: sys.stdout as it is when a line is written
        self.closed = False
        self.dropped = 0  # lines dropped since the last that was written
        self.counting = threading.Lock()  # the server's thread adds to `dropped`, ours resets it
        self.lines = queue.Queue(self.WAITING)
        self.writer = threading.Thread(target=self._write, name="agentlab-serve-log",
                                       daemon=True)

    def __call__(self, served) -> None:
        """Hand one request's line over; never waits."""
        if self.closed:
            return
        if not self.writer.is_alive():
            self.writer.start()  # on the first line: a log made and never used starts nothing
        try:
            self.lines.put_nowait(self.line(served))
        except queue.Full:
            with self.counting:
                self.dropped += 1

    def _write(self) -> None:
        while True:
            line = self.lines.get()
            with self.counting:
                dropped, self.dropped = self.dropped, 0
            if dropped:
                line = f"({dropped} request lines dropped: the output was not read)\n{line}"
            try:
                print(line, file=self.output or sys.stdout, flush=True)
            except (OSError, ValueError):  # a closed pipe or file: stop logging, keep serving
                self.closed = True
                return
            finally:
                self.lines.task_done()

    def flush(self, seconds: float = 1.0) -> None:
        """Wait until every line handed over is written, or `seconds` have passed."""
        deadline = time.monotonic() + seconds
        while self.lines.unfinished_tasks and not self.closed and time.monotonic() < deadline:
            time.sleep(0.01)

    def line(self, served) -> str:
        """Example: Served("POST", "/v1/chat/completions", "tutor", 200, 12.4, None) ->
        "POST /v1/chat/completions tutor 200 12 ms" """
        model = served.model if isinstance(served.model, str) else (
            "-" if served.model is None else json.dumps(served.model))
        line = (f"{one_line(served.method, 20)} {one_line(served.path, self.PATH_CHARACTERS)} "
                f"{one_line(model, self.MODEL_CHARACTERS) or '-'} {served.status} "
                f"{served.milliseconds:.0f} ms")
        if served.reason:
            line += f": {one_line(served.reason, self.REASON_CHARACTERS)}"
        return line


def one_line(text: str, limit: int) -> str:
    r"""Client text for a log line: masked first (no prefix of a key survives the cut), on one
    line, every character that is not printable escaped, at most `limit` characters.

    Example: one_line("tutor\n\x1b[2J sk-abcdefghijkl", 80) -> "tutor \\x1b[2J [masked key]"
    """
    text = " ".join(redact(text).split())
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _models(args) -> int:
    from .models import TUTOR_MODELS

    for name, what in TUTOR_MODELS.items():
        print(f"{name:20} {what}")
    return 0


def _run(args) -> int:
    from . import connect, run_agent
    from .toolkit import COURSE_TOOLS

    # A key typed into the task is masked where it enters, as every text entering agentlab is
    # (masking.py): it reaches neither the model, nor the record, nor the screen.
    args.task = redact(args.task)
    # Bytes that are not UTF-8 reach Python as lone surrogates, which no JSON request can carry:
    # they become the replacement character, as a terminal shows them.
    args.task = args.task.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    try:
        client = connect(args.model, priced_as=args.priced_as)
    except ValueError as error:  # an unknown model or price: the command line's fault
        print(f"error: {_one_line(error)}", file=sys.stderr)
        return 2
    if problem := unknown_price(client, args.priced_as):  # before a call: the budget needs it
        print(f"error: {redact(problem)}", file=sys.stderr)
        return 2
    limits = Limits(max_steps=args.max_steps, max_cost_usd=args.max_cost,
                    max_seconds=args.max_seconds)
    log = sys.stderr if args.json else sys.stdout  # with --json, stdout holds the JSON only
    where = "offline tutor" if client.offline else f"real API at {public_url(client.sdk.base_url)}"
    print(redact(f"task: {args.task}\nmodel: {client.default_model} ({where}), priced as "
                 f"{client.priced_as()}"), file=log, flush=True)
    finished = []  # every finished step, kept here too in case Ctrl-C escapes run_agent

    def show(step):
        print(format_step(step), file=log, flush=True)  # masked by format_step

    started = time.perf_counter()
    try:
        run = run_agent(args.task, COURSE_TOOLS, client=client, limits=limits,
                        budget=args.budget, wind_down=args.wind_down,
                        on_step=[finished.append, show])
    except KeyboardInterrupt:
        run = interrupted_run(args.task, client, limits, args.budget, finished,
                              time.perf_counter() - started)
    if args.json:
        print(run.to_json(indent=2), flush=True)  # to_json masks its text
    if run.stop_reason != "answered":
        print(redact(f"stopped: {run.stop_reason} ({run.stop_detail})"), file=log)
    if run.answer is not None:
        print(f"answer: {redact(run.answer)}", file=log)
    print(run.summary() + f", {run.seconds:.2f} s", file=log)
    if run.stop_reason == "interrupted":
        return INTERRUPTED
    return 0 if run.stop_reason == "answered" else 1


def unknown_price(client, priced_as_option: str | None) -> str | None:
    """Why the run cannot be priced, said as the command line's fix, or None if it can.

    Checked before the run starts: the budget refuses every call it cannot price, so without
    a price the run would stop at once "over budget", with advice for the Python API.
    Example: a local model 'llama3.2' -> "genai-prices has no price for model 'llama3.2', so
             the budget (--max-cost) cannot be kept; add --priced-as MODEL ..."
    """
    from .models import DEFAULT_TUTOR_PRICE
    from .pricing import Unpriceable, cost_usd

    priced_as = client.priced_as()
    try:
        cost_usd(priced_as, 1, 1)
    except Unpriceable:
        fix = f"a model it knows, such as --priced-as {DEFAULT_TUTOR_PRICE}"
        if priced_as_option is not None:
            return f"--priced-as {priced_as_option}: genai-prices has no price for it; name {fix}"
        if client.offline:  # the tutor's price came from the environment
            return (f"AGENTLAB_PRICED_AS={priced_as}: genai-prices has no price for it; unset "
                    f"it, or name {fix}")
        return (f"genai-prices has no price for model {priced_as!r}, so the budget (--max-cost) "
                f"cannot be kept; add --priced-as MODEL to charge its calls at the prices of "
                f"{fix}")
    return None


def interrupted_run(task: str, client, limits: Limits, budget: str, steps: list,
                    seconds: float) -> Run:
    """The Run of a run that Ctrl-C ended inside run_agent: every finished step, kept.

    run_agent may return such a Run itself (stop_reason "interrupted"); this is for a
    KeyboardInterrupt that escapes it. The transcript is rebuilt from the steps: each assistant
    message, then the result our code sent back for each of its tool calls.
    Example: 2 finished steps -> Run(stop_reason="interrupted", steps=[step 0, step 1], ...)
    """
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task}]
    for step in steps:
        messages.append(step.message)
        messages += [{"role": "tool", "tool_call_id": c.id, "content": c.result}
                     for c in step.tool_calls]
    priced_as = client.priced_as()
    return Run(task=task, model=client.default_model,
               priced_as=str(getattr(priced_as, "model", priced_as)),
               limits=dataclasses.asdict(limits),
               steps=list(steps), stop_reason="interrupted", budget_mode=budget,
               stop_detail=f"Ctrl-C during step {len(steps)}; the {len(steps)} finished "
                           f"step{'s' * (len(steps) != 1)} are kept",
               seconds=seconds, messages=messages)


def _one_line(error: Exception) -> str:
    """An error's message on one line, any key masked. Example: OSError("a\\n  b") -> "a b" """
    return redact(" ".join(str(error).split()) or "no details")


def _discard_stdout() -> None:
    """After the reader of our output went away (`... | head`), point stdout at the null device
    so Python's last flush at exit has nowhere to fail (the recipe in Python's `signal` docs)."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file, such as a test's capture
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, descriptor)
    os.close(null)


if __name__ == "__main__":
    sys.exit(main())
