"""Finding the arithmetic in a sentence, in time linear in its length.

Example: "What time is it, and what is 17 * 23 + sqrt(144)?" -> "17 * 23 + sqrt(144)"

The text is cut into tokens by one regular expression whose alternatives start with different
kinds of character, so each character is read once. Runs of arithmetic tokens (numbers,
operators, parentheses, maths functions) are the candidates; the longest one with an operator
or a function call wins. (An earlier version used a single pattern with nested repetition:
60 KB of "(" kept it busy for 30 seconds, and 1 MB would have taken about an hour.)
"""

from __future__ import annotations

import re

FUNCTIONS = {"sqrt", "abs", "round", "floor", "ceil", "exp", "log", "log10", "sin", "cos", "tan"}
_TOKEN = re.compile(r"\d+(?:[.,_]\d+)*|[A-Za-z_][A-Za-z_0-9]*|[ \t]+|[()]+|\*\*|.", re.S)
_OPERATORS = set("+-*/%^")


def _arithmetic(token: str) -> bool:
    return (token[0].isdigit() or token[0] in "()" or token.isspace() or token in FUNCTIONS
            or token in _OPERATORS or token == "**")


def find_expression(text: str) -> str | None:
    """The longest piece of arithmetic in the text, ready for a calculator, or None.

    Example: "Compute 2^10 please" -> "2**10";  "What is the capital of Peru?" -> None
    """
    best, run = "", []
    for match in _TOKEN.finditer(text):
        if _arithmetic(match[0]):
            run.append(match[0])
            continue
        best = max(best, _clean("".join(run)), key=len)
        run = []
    best = max(best, _clean("".join(run)), key=len)
    return best or None


def _clean(candidate: str) -> str:
    """A run of arithmetic tokens trimmed to an expression, or "" if it is not one.

    Example: " (2 + 3 " -> "2 + 3";  " 1,000 * 2" -> "1000 * 2";  "((((" -> ""
    """
    text = _drop_unmatched_parentheses(candidate.strip())
    text = text.lstrip(" \t+*/%^").rstrip(" \t+-*/%^").strip()
    body = text.lstrip("-( ")
    has_digit = any(c.isdigit() for c in text)
    has_operation = any(c in _OPERATORS for c in body) or "(" in body.rstrip(")")
    if not (has_digit and has_operation):
        return ""
    return text.replace("^", "**").replace(",", "").replace("_", "")


def _drop_unmatched_parentheses(text: str) -> str:
    """Remove every "(" that is never closed and every ")" that closes nothing.

    Example: "((1 + 2)" -> "(1 + 2)";  "3) * 4" -> "3 * 4"
    """
    unmatched, open_at = set(), []
    for i, c in enumerate(text):
        if c == "(":
            open_at.append(i)
        elif c == ")" and open_at:
            open_at.pop()
        elif c == ")":
            unmatched.add(i)
    unmatched.update(open_at)
    return "".join(c for i, c in enumerate(text) if i not in unmatched) if unmatched else text
