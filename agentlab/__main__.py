"""Command line: `python -m agentlab run "task"`, `python -m agentlab serve`, `... models`.

    python -m agentlab run "What time is it, and what is 17 * 23 + sqrt(144)?"
    python -m agentlab run "..." --model tutor-looper --max-steps 3
    python -m agentlab run "..." --json > run.json
    python -m agentlab serve --port 8000      # the tutor as an OpenAI-compatible HTTP API
    python -m agentlab models                  # the tutor's personas

Offline by default. Exit status: 0 if the run answered, 1 if a limit or an error stopped it,
2 for bad command-line input.
"""

from __future__ import annotations

import argparse
import sys


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value
    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agentlab", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the agent loop on a task, printing each step")
    run.add_argument("task")
    run.add_argument("--model", help="model name (default: AGENTLAB_MODEL, else 'tutor' offline)")
    run.add_argument("--max-steps", type=_positive(int), default=10)
    run.add_argument("--max-cost", type=_positive(float), default=0.50, metavar="USD")
    run.add_argument("--max-seconds", type=_positive(float), default=120.0)
    run.add_argument("--priced-as", help="charge calls at this real model's prices")
    run.add_argument("--budget", choices=["before", "after"], default="before",
                     help="'before' never exceeds the budget; 'after' is the chapter's check")
    run.add_argument("--wind-down", action="store_true",
                     help="make the last step the limits allow a final answer")
    run.add_argument("--json", action="store_true", help="print the Run record as JSON only")
    serve = commands.add_parser("serve", help="serve the tutor as an OpenAI-compatible HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    commands.add_parser("models", help="list the offline tutor's models")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        from .server import serve

        serve(args.host, args.port)
        return 0
    if args.command == "models":
        from .tutor import PERSONAS

        for name, what in PERSONAS.items():
            print(f"{name:20} {what}")
        return 0

    from . import Limits, connect, print_step, run_agent
    from .records import redact
    from .toolkit import COURSE_TOOLS

    try:
        client = connect(args.model, priced_as=args.priced_as)
        limits = Limits(max_steps=args.max_steps, max_cost_usd=args.max_cost,
                        max_seconds=args.max_seconds)
    except ValueError as e:
        print(f"error: {redact(str(e))}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"task: {args.task}\nmodel: {client.default_model} "
              f"({'offline tutor' if client.offline else 'real API'}), priced as "
              f"{client.priced_as()}", flush=True)
    run = run_agent(args.task, COURSE_TOOLS, client=client, limits=limits, budget=args.budget,
                    wind_down=args.wind_down, on_step=None if args.json else print_step)
    if args.json:
        print(redact(run.to_json(indent=2)))
    else:
        if run.stop_reason != "answered":
            print(f"stopped: {run.stop_reason} ({run.stop_detail})")
        if run.answer is not None:
            print(f"answer: {redact(run.answer)}")
        print(run.summary() + f", {run.seconds:.2f} s")
    return 0 if run.stop_reason == "answered" else 1


if __name__ == "__main__":
    sys.exit(main())
