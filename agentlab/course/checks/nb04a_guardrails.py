"""Notebook 04a, The chapter's guardrails: check_truncate.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import json

from agentlab.tutor.reading import cut_note_in

from ._common import Verdict, attempt, is_stub_result, returned_nothing, short, without_ellipses


def _report(word: str, count: int) -> str:
    """A long text whose start differs from its end: "rain-0 rain-1 rain-2 ..."."""
    return " ".join(f"{word}-{i}" for i in range(count))


def _result_of_length(length: int, word: str) -> dict:
    """A result whose JSON is exactly `length` characters long (length >= 60)."""
    result = {"city": "Lima", "report": _report(word, length)}
    text = json.dumps(result)
    cut = len(text) - length  # the report is plain ASCII: each character dropped is one less
    return {"city": "Lima", "report": result["report"][: len(result["report"]) - cut]}


SHORT_RESULT = {"city": "Oslo", "temp_c": -3, "note": 'a "quoted" word'}
LONG_RESULT = {"city": "Paris", "report": _report("rain", 2000)}
# (result, max_chars): a short one; long ones; a string; and, to catch `<` written for `<=`,
# a result exactly max_chars long (it fits) and one a character longer (it does not).
TRUNCATE_CASES = [(SHORT_RESULT, 200), (LONG_RESULT, 300), (LONG_RESULT, 1000),
                  (_report("a plain string", 300), 120),
                  (_result_of_length(400, "snow"), 400), (_result_of_length(401, "hail"), 400)]


def check_truncate(truncate) -> Verdict:
    """truncate(result, max_chars) -> text for the model: valid JSON, at most max_chars long.

    A result whose JSON fits in max_chars (exactly max_chars included) comes through whole; a
    longer one is cut but stays valid JSON, keeps the start of the result, at least a fifth
    of max_chars of it, and says that it was cut (tutor.reading.cut_note_in, the rule of the
    gauntlet's truncation row; the chapter's json.dumps(result)[:4000] breaks the JSON and
    says nothing), in words: a bare "..." is no note. Each long input's text runs "word-0
    word-1 ...", so keeping its end instead does not pass.
    """
    for result, max_chars in TRUNCATE_CASES:
        whole = json.dumps(result)
        call = f"truncate(<{len(whole):,}-character result>, {max_chars})"
        got, failed = attempt(call, truncate, result, max_chars)
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(truncate, got, call, "text: JSON of at most max_chars")
        if not isinstance(got, str):
            return Verdict(False, f"{call} should return text, not {short(got)}")
        if len(got) > max_chars:
            return Verdict(False, f"{call} returned {len(got):,} characters: at most {max_chars}")
        try:
            parsed = json.loads(got)
        except ValueError:
            return Verdict(False, f"{call} is not valid JSON ({short(got[-40:])} at its end): "
                           "cut the text inside, then build the JSON")
        if len(whole) <= max_chars:
            if parsed != result:
                exactly = (f" (this one is exactly {max_chars} characters: it fits)"
                           if len(whole) == max_chars else "")
                return Verdict(False, f"a result that fits should come through unchanged{exactly}"
                               f"; got {short(got)}")
            continue
        text = result if isinstance(result, str) else result["report"]
        kept = max((_kept_start(text, s) for s in _strings_in(parsed)), default=0)
        if kept < max_chars // 5:
            where = " (the end, or a fixed text?)" if kept < 20 else ""
            return Verdict(False, f"{call} kept {kept} characters of the start of the result"
                           f"{where}; keep the beginning, as much as fits")
        if cut_note_in(got) is None:  # the gauntlet's truncation row asks the same
            return Verdict(False, f"{call} cut it silently ({short(got[-40:])} at its end): "
                           "say inside the JSON that it was cut, and how much, such as "
                           "' [cut: 1,234 of 5,678 characters]', so the model knows it read "
                           "only part")
        if cut_note_in(without_ellipses(got)) is None:
            return Verdict(False, f"{call} ends its cut with a bare ellipsis ({short(got[-40:])} "
                           "at its end): '...' reads as part of the text, not as a note. Say in "
                           "words that it was cut, and how much, such as "
                           "' [cut: 1,234 of 5,678 characters]'")
    return Verdict(True, "results that fit pass whole, to the last character; longer ones are "
                   "cut, keep their start, say they were cut and still parse as JSON")


def _strings_in(value) -> list[str]:
    """Every string in a parsed JSON value, keys included.

    Example: {"a": ["x", 1], "b": "y"} -> ["a", "x", "b", "y"]
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings_in(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings_in(v)]
    return []


def _kept_start(text: str, kept: str) -> int:
    """How many characters of the start of `text` appear in `kept`.

    Example: _kept_start("rain-0 rain-1 rain-2", "cut: rain-0 rain-1 ...") -> 14
    """
    low, high = 0, len(text)  # text[:n] in kept holds for every n up to the answer
    while low < high:
        middle = (low + high + 1) // 2
        if text[:middle] in kept:
            low = middle
        else:
            high = middle - 1
    return low
