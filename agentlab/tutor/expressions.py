"""Finding the arithmetic in a sentence, in time linear in its length.

Example: "What time is it, and what is 17 * 23 + sqrt(144)?" -> "17 * 23 + sqrt(144)"

One regular expression finds the runs of arithmetic characters and maths-function names; its
alternatives never overlap, so each character is read once. Each run that holds a digit is
trimmed to an expression; the longest one with an operator or a function call wins. (An
earlier version used a single pattern with nested repetition: 60 KB of "(" kept it busy for
30 seconds, and 1 MB would have taken about an hour.)
"""

from __future__ import annotations

import re

FUNCTIONS = ["sqrt", "abs", "round", "floor", "ceil", "exp", "log10", "log", "sin", "cos", "tan"]
_RUN = re.compile(r"(?:[\d.,_+\-*/%^() \t]|\b(?:" + "|".join(FUNCTIONS) + r")\b)+")
_DIGIT = re.compile(r"\d")
_OPERATION = re.compile(r"[-+*/%^]|[a-z]\(")


def find_expression(text: str) -> str | None:
    """The longest piece of arithmetic in the text, ready for a calculator, or None.

    Example: "Compute 2^10 please" -> "2**10";  "What is the capital of Peru?" -> None
    """
    best = ""
    for run in _RUN.finditer(text):
        if len(run[0]) > len(best) and _DIGIT.search(run[0]):
            best = max(best, _clean(run[0]), key=len)
    return best or None


def _clean(candidate: str) -> str:
    """A run of arithmetic characters trimmed to an expression, or "" if it is not one.

    Example: " (2 + 3 " -> "2 + 3";  " 1,000 * 2" -> "1000 * 2";  " 17, " -> ""
    """
    text = _drop_unmatched_parentheses(candidate.strip())
    text = text.strip(" \t,._").lstrip("+*/%^").rstrip("+-*/%^").strip(" \t,._")
    if not _DIGIT.search(text) or not _OPERATION.search(text.lstrip("-( ")):
        return ""
    return text.replace("^", "**").replace(",", "").replace("_", "")


def _drop_unmatched_parentheses(text: str) -> str:
    """Remove every "(" that is never closed and every ")" that closes nothing.

    Example: "((1 + 2)" -> "(1 + 2)";  "3) * 4" -> "3 * 4"
    """
    if "(" not in text and ")" not in text:
        return text
    unmatched, open_at = set(), []
    for match in re.finditer(r"[()]", text):
        if match[0] == "(":
            open_at.append(match.start())
        elif open_at:
            open_at.pop()
        else:
            unmatched.add(match.start())
    unmatched.update(open_at)
    return "".join(c for i, c in enumerate(text) if i not in unmatched) if unmatched else text
