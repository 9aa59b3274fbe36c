"""Masking 10 MB of text: the look-behind-first key pattern (before issue 21) against the
literal-first one agentlab uses now, on the same text, interleaved, medians. Both must give
the same output; the ratio is what matters (the machine is shared, seconds are noisy).

A tool's result is masked on the tool's thread while it holds the GIL, so a slow pattern
holds the whole process: the old one tried its look-behinds at every position of the text.

    python benchmarks/masking_speed.py [--megabytes 10] [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

from agentlab.masking import ESCAPED_SPACE, KEY_SHAPE, MASK

# The pattern before issue 21: a look-behind at the start, so tried at every position.
LOOK_BEHIND_FIRST = re.compile(
    rf"(?:(?<![A-Za-z0-9])|(?<={ESCAPED_SPACE}))sk-[A-Za-z0-9_*-]{{8,}}")


def texts(megabytes: float) -> dict[str, str]:
    """Three kinds of 10 MB: prose with no key, prose with a key every 100 KB, and JSON."""
    size = int(megabytes * 1_000_000)
    prose = ("The quick brown fox jumps over the lazy dog; risk-free, ask-me. " * (size // 60))
    keyed = "".join(prose[i:i + 100_000] + " sk-proj-FAKEfake0123456789 "
                    for i in range(0, size, 100_000))
    json_like = ('{"name": "sk-", "value": "a\\nb", "n": 12345}, ' * (size // 45))
    return {"prose": prose[:size], "prose with keys": keyed, "JSON": json_like[:size]}


def timed(pattern: re.Pattern, text: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = pattern.sub(MASK, text)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"| {args.megabytes:g} MB of | look-behind first (s) | literal first (s) | ratio |")
    print("| --- | --- | --- | --- |")
    for name, text in texts(args.megabytes).items():
        old, new = [], []
        for _ in range(args.rounds):  # interleaved, so both see the same load
            seconds, old_out = timed(LOOK_BEHIND_FIRST, text)
            old.append(seconds)
            seconds, new_out = timed(KEY_SHAPE, text)
            new.append(seconds)
            assert old_out == new_out, "the two patterns must mask the same text"
        before, after = statistics.median(old), statistics.median(new)
        print(f"| {name} | {before:.3f} | {after:.3f} | {before / after:.0f}x |")


if __name__ == "__main__":
    main()
