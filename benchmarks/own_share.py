"""agentlab's own share above the SDK floor, piece by piece: each candidate cost is switched
off in turn (by patching, in this process only) and the 20-step runs are re-timed, all
variants interleaved round-robin, medians. The difference to the default path is what that
piece costs; the floor row is the SDK alone on agentlab's requests.

This measures proposals (benchmarks do not change agentlab): a variant here is what a change
to agentlab would save, not a change.

    python benchmarks/own_share.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import statistics
import timeit
from unittest import mock

import setups

STEPS, RUNS = 20, 3


def _inline_tool_calls():
    """Tools run on the caller's thread (what a change would do when no timeout is asked)."""
    from agentlab import guardrails

    return mock.patch.object(guardrails, "run_within", lambda fn, timeout, name: fn())


def _no_response_hash():
    """The server's response id without re-serialising and hashing the whole request (its
    only sort_keys=True dump is the one it hashes)."""
    from agentlab.server import handler as server

    class JsonWithoutTheHashDump:
        loads = staticmethod(json.loads)

        @staticmethod
        def dumps(obj, **options):
            return "" if options.get("sort_keys") else json.dumps(obj, **options)

    return mock.patch.object(server, "json", JsonWithoutTheHashDump)


VARIANTS = {
    # name: (setup to time, patch applied around each batch)
    "default path (in-process server)": ("agentlab-default", contextlib.nullcontext),
    "  without the response-id hash": ("agentlab-default", _no_response_hash),
    "  without the tool thread hand-off": ("agentlab-default", _inline_tool_calls),
    "canned transport (no server handler)": ("agentlab", contextlib.nullcontext),
    "  and without the tool hand-off": ("agentlab", _inline_tool_calls),
    "SDK floor": ("sdk-floor", contextlib.nullcontext),
}


def measure(rounds: int = 15, clock: str = "wall") -> dict:
    built = {name: setups.build(kind) for name, (kind, _) in VARIANTS.items()}
    samples = {name: [] for name in VARIANTS}
    for _ in range(rounds + 1):  # the first round is the warm-up
        for name, (_, patch) in VARIANTS.items():
            with patch():
                samples[name].append(built[name].batch(STEPS, RUNS, clock) / RUNS / STEPS)
    return {name: statistics.median(s[1:]) for name, s in samples.items()}


def micro(clock: str = "wall") -> list[str]:
    """Single pieces timed alone, per call (best of 5 repeats)."""
    from agentlab import connect

    setup = setups.build("agentlab")
    setup.transport.record = True
    setup.batch(STEPS, 1)
    body = json.loads(setup.transport.bodies[-1])  # the longest request of a 20-step run
    hash_s = min(timeit.repeat(
        lambda: hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(),
        number=200, repeat=5, timer=setups.CLOCKS[clock])) / 200
    connect_s = min(timeit.repeat(lambda: connect("tutor"), number=50, repeat=5,
                                  timer=setups.CLOCKS[clock])) / 50
    return [f"  response-id hash of a {STEPS}-step request ({len(json.dumps(body))} bytes): "
            f"{1e6 * hash_s:.0f} us a call",
            f"  connect('tutor') (what run_agent does per run without client=): "
            f"{1e6 * connect_s:.0f} us a run"]


def lines(figures: dict) -> list[str]:
    base, floor = figures["default path (in-process server)"], figures["SDK floor"]
    out = [f"  {'variant':40} {'ms/step':>8} {'saves':>8} {'x floor':>8}"]
    for name, value in figures.items():
        out.append(f"  {name:40} {1000 * value:8.3f} {1000 * (base - value):8.3f} "
                   f"{value / floor:8.2f}")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="agentlab's own share above the SDK floor.")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of wall time")
    args = parser.parse_args()
    clock = "cpu" if args.cpu else "wall"
    print("\n".join(lines(measure(args.rounds, clock)) + micro(clock)))
