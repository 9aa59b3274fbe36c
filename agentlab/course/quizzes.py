"""Self-checks for the notebooks' open questions: pick a choice, learn at once why it is right
or wrong.

    from agentlab.course.quizzes import quiz, answer
    quiz("03-overshoot")            # the question and its choices
    answer("03-overshoot", "b")     # right or not, and why

Every choice has its explanation, the wrong ones too: a wrong pick says what it misses, without
naming the right letter, so you can think again and try another. The questions and answers are
data (quizzes.json, next to this file), not notebook text: the notebooks show only the questions.
The instructor's guide (docs/INSTRUCTORS.md) answers the same questions at length.

The student copy ships quizzes.json, so it does not name the right letter: each quiz holds a
salt and the SHA-256 of "<salt>:<quiz name>:<right letter>" (sealed_answer), and answer()
hashes the pick the same way. A determined student can hash the three letters; a glance at the
file tells nothing. To write a quiz: sealed_answer(name, letter, salt) gives the field's value.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import pathlib
import textwrap

DATA = pathlib.Path(__file__).with_name("quizzes.json")
WIDTH = 92  # the notebooks' line length


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What answer() says about one pick."""

    right: bool
    why: str

    def __str__(self):
        head = "✓ Right." if self.right else "✗ Not this one."
        return f"{head} {self.why}"


@functools.cache
def quizzes() -> dict:
    """Every quiz, by its name: {"question", "choices": {letter: {"text", "why"}}, "salt",
    "sealed_answer"}."""
    return json.loads(DATA.read_text(encoding="utf-8"))


def _quiz(name: str) -> dict:
    if not isinstance(name, str) or name not in quizzes():
        raise ValueError(f"no quiz named {name!r}; the quizzes are: {', '.join(quizzes())}")
    return quizzes()[name]


def _wrap(text: str, indent: str = "") -> str:
    # Not at hyphens: a name such as tutor-gullible or 04a-output-cap stays whole.
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent),
                         break_on_hyphens=False)


def quiz(name: str) -> None:
    """Print the quiz's question and its choices, and how to answer."""
    data = _quiz(name)
    lines = [_wrap(data["question"])]
    lines += [_wrap(choice["text"], f"  {letter}) ") for letter, choice in data["choices"].items()]
    lines.append(f'Your pick, in a new cell: answer("{name}", "<letter>")')
    print("\n".join(lines) + "\n")


def verdict(name: str, letter: str) -> Verdict:
    """Whether `letter` is the right choice of quiz `name`, and why (the text answer prints)."""
    data = _quiz(name)
    choices = data["choices"]
    picked = letter.strip().lower().rstrip(")") if isinstance(letter, str) else letter
    if picked not in choices:
        raise ValueError(f"{name} has the choices {', '.join(choices)}; pick one of them, "
                         f"as a string (not {letter!r})")
    return Verdict(right=is_right(name, picked), why=choices[picked]["why"])


def sealed_answer(name: str, letter: str, salt: str) -> str:
    """The SHA-256 that quizzes.json keeps for the right letter, in place of the letter.

    Example: sealed_answer("03-overshoot", "a", "5f1c") -> "9c0e..." (64 hex digits)
    """
    return hashlib.sha256(f"{salt}:{name}:{letter}".encode()).hexdigest()


def is_right(name: str, letter: str) -> bool:
    """Whether `letter` (lower case, one of the quiz's choices) is the right choice."""
    data = _quiz(name)
    return sealed_answer(name, letter, data["salt"]) == data["sealed_answer"]


def answer(name: str, letter: str) -> None:
    """Print whether `letter` is right for quiz `name`, and why."""
    print(_wrap(str(verdict(name, letter))))


__all__ = ["Verdict", "answer", "is_right", "quiz", "quizzes", "sealed_answer", "verdict"]
