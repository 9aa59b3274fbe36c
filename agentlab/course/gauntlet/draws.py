"""What the gauntlet draws afresh for every grade: tool names, argument names and values, tasks,
limits and what each model call costs.

Why draw at all: a grader with fixed tasks can be passed by a loop that recognises them (a
timeout only for the tool called `wait_for_reply`, a "budget" that counts calls at the price
the notebook quotes). With every name, number and price drawn, the only way to hold a check is
to do what it asks for every tool and every call.

Each check draws from its own generator, seeded by the grade's seed and the check's name, so
`grade(loop, seed=7, only=["budget"])` draws the budget check exactly as `grade(loop, seed=7)`
does, and a grade can be repeated when asked (the report shows its seed).
"""

from __future__ import annotations

import random
import secrets

# A tool's name says nothing about how it behaves: every hostile tool and every well-behaved
# one takes a name from these, so no name can be special-cased (12 x 16 = 192 names). The
# names of the gauntlet before it drew them (wait_for_reply, read_log, track_parcel) are not
# among them.
VERBS = ("fetch", "read", "check", "look_up", "get", "query", "load", "scan", "poll", "find",
         "track", "inspect")
NOUNS = ("report", "ledger", "ticket", "package", "invoice", "record", "station", "sensor",
         "queue", "account", "shipment", "archive", "forecast", "inventory", "booking", "reply")
ARGUMENTS = ("id", "key", "ref", "code", "name", "query", "item", "target")
ID_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def fresh_seed() -> int:
    """A seed for a grade nobody asked to repeat: not predictable from the last one."""
    return secrets.randbelow(1_000_000)


class Draws:
    """The random choices of one check in one grade."""

    def __init__(self, seed: int, check: str):
        self.rng = random.Random(f"{seed}:{check}")
        self._names: set[str] = set()

    def tool_name(self) -> str:
        """A tool name not drawn before in this check. Example: "scan_invoice" """
        while True:
            name = f"{self.rng.choice(VERBS)}_{self.rng.choice(NOUNS)}"
            if name not in self._names:
                self._names.add(name)
                return name

    def argument(self) -> str:
        return self.rng.choice(ARGUMENTS)

    def ident(self) -> str:
        """An id to pass as an argument. Example: "K-4821" """
        return f"{self.rng.choice(ID_LETTERS)}-{self.rng.randint(10, 9999)}"

    def idents(self, count: int) -> list[str]:
        """`count` different ids."""
        chosen: list[str] = []
        while len(chosen) < count:
            ident = self.ident()
            if ident not in chosen:
                chosen.append(ident)
        return chosen

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def number(self, low: float, high: float) -> float:
        return self.rng.uniform(low, high)

    def choice(self, options):
        return self.rng.choice(list(options))

    def shuffled(self, options) -> list:
        options = list(options)
        self.rng.shuffle(options)
        return options
