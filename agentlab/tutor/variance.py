"""Variance: how the tutor strays when asked for a temperature above 0.

Real models sample: the same request can get different replies, so an agent's success is a
rate measured over repeated trials. With `temperature > 0` the tutor strays in three documented
ways, each at RATES[kind] * temperature (temperature counted up to 2) per reply that calls tools:

    extra_step          before answering, it checks once more: it repeats its last call
    wrong_first_tool    on the first step, it calls an offered tool the task does not need
    malformed_argument  its first call's arguments are cut short (invalid JSON)

It recovers from each on the next step, as a well-behaved model would. With a `seed` the dice
depend only on the seed and the conversation, so the same request gets the same reply; without
one they are fresh each time, like a real API. Temperature 0 or None: no dice at all.
"""

from __future__ import annotations

import hashlib
import json
import random

RATES = {"extra_step": 0.2, "wrong_first_tool": 0.1, "malformed_argument": 0.1}
MAX_TEMPERATURE = 2.0


class Dice:
    """Which ways this reply strays: one draw per kind, in a fixed order."""

    def __init__(self, temperature, seed, messages):
        self.strays: set[str] = set()
        if not _positive(temperature):
            return  # temperature 0 or unset: fully deterministic
        scale = min(float(temperature), MAX_TEMPERATURE)
        rng = random.Random(_key(seed, messages)) if seed is not None else random.Random()
        draws = {kind: rng.random() for kind in RATES}  # always drawn: reproducible order
        self.strays = {kind for kind, rate in RATES.items() if draws[kind] < rate * scale}

    def __contains__(self, kind: str) -> bool:
        return kind in self.strays


def _positive(temperature) -> bool:
    return type(temperature) in (int, float) and temperature > 0


def _key(seed, messages) -> bytes:
    """The seed and the conversation as one digest: same request, same dice."""
    try:
        text = json.dumps([seed, messages], sort_keys=True, default=str)
    except (ValueError, RecursionError):
        text = f"{seed!r} {len(messages) if isinstance(messages, list) else 0}"
    return hashlib.sha256(text.encode("utf-8", "replace")).digest()
