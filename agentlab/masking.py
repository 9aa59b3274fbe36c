"""Masking secrets: an API key never reaches the model, a Run, a log or a file.

A key can come back to us in text we did not write: a tool that reads the environment or a
config file, an exception message that quotes its input, an API error that echoes the key it
was given ("Incorrect API key provided: sk-..."), a model that repeats what it read. `mask`
is applied where such text enters the package (tool results and errors in tools.py, the task,
the system prompt and API errors in loop.py, the model's replies in models.py), *before* any
cut, so that no prefix of a key survives a truncation; and once more on the way out (a Run's
JSON, repr and HTML, the step log), for records made by hand or loaded from a file. A value
of any shape is masked: text, bytes, and the text inside lists and dicts (a reply made of text
parts, a tool's schema). `public_url` also drops a URL's user:password@ and its query.
The pattern starts with its literal "sk-", so masking takes time linear in the text's length.

What counts as a key: the value of OPENAI_API_KEY in the environment and any key given to
connect(api_key=...) (remember_key), even wrapped across lines or with invisible characters
inside them, and anything shaped like an OpenAI-style key ("sk-"
followed by at least 8 key characters, not glued to a letter or digit before it). Left out on
purpose: other providers' key shapes, keys split across two messages, and keys encoded
(base64, URL-encoding, JSON's u-escapes), which no pattern can find without false alarms. The
text parts of one list are read as one text (a key split across two parts is found).
"""

from __future__ import annotations

import functools
import os
import re
import urllib.parse

# A line break or tab as JSON and Python's repr write it inside a string: a backslash and an
# "n". Masking runs on a tool's result once it is text, where a dict's line breaks look so.
ESCAPED_SPACE = r"\\[nrt]"
# Characters that show nothing and may sit inside a pasted or wrapped key: every format
# character (Unicode category Cf: the soft hyphen U+00AD, zero-width space and joiners,
# direction marks and embeddings, the word joiner and invisible operators, the BOM, the tag
# characters), the combining grapheme joiner, the Hangul fillers and the variation selectors.
# tests/test_edges.py checks this list against unicodedata's Cf characters.
INVISIBLE = ("\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
             "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
             "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
             "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
             "\U000e0020-\U000e007f\U000e0100-\U000e01ef")
# Literal first, so that the regex engine jumps from one "sk-" to the next instead of trying a
# look-behind at every position of the text (0.2-0.5 s per 10 MB, holding the GIL; now under
# 10 ms: benchmarks/masking_speed.py).
# The look-behinds come after the literal and look back past it: the key must not be glued to
# a letter or digit before it (not \b: "OPENAI_API_KEY_sk-..." must be found), unless that
# letter is the "n" of an escaped line break ("\nsk-..."). Each key character may be followed
# by invisible ones (a soft hyphen must not end the match and leave the rest of the key
# showing); a key character and an invisible one never overlap, so the match stays linear.
KEY_SHAPE = re.compile(rf"sk-(?:(?<![A-Za-z0-9]sk-)|(?<={ESCAPED_SPACE}sk-))[{INVISIBLE}]*"
                       rf"(?:[A-Za-z0-9_*-][{INVISIBLE}]*){{8,}}")
MASK = "[masked key]"
# What may sit between two characters of a key that text wrapped or pasted: white space
# (a line break, a tab, or one written as \n), and the invisible characters above.
INSIDE_A_KEY = rf"(?:[\s{INVISIBLE}]|{ESCAPED_SPACE})*"
MIN_KEY_LENGTH = 8  # a shorter "key" would mask ordinary words
_given_keys: set[str] = set()  # keys passed to connect(api_key=...), masked like the env's


def remember_key(key: str | None) -> None:
    """Mask this key too from now on: a key given to connect() rather than the environment,
    which an API error can echo back ("Incorrect API key provided: ...")."""
    if key and len(key.strip()) >= MIN_KEY_LENGTH:
        _given_keys.add(key.strip())


@functools.lru_cache(maxsize=16)
def _key_pattern(key: str) -> re.Pattern:
    """A known key, allowing white space or zero-width characters between its characters.

    Example: for "sk-abc12345", "sk-abc\n12345" and "sk-abc\u200b12345" both match
    """
    return re.compile(INSIDE_A_KEY.join(re.escape(character) for character in key))


def _known_keys() -> list[str]:
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    keys = [key] if len(key) >= MIN_KEY_LENGTH else []
    return keys + sorted(_given_keys - {key}, key=len, reverse=True)  # longest first


def mask(value):
    """Replace every API key in a value with a fixed marker, whatever its shape: text, bytes,
    and the text inside lists, tuples and dicts (keys too). Anything else is returned as is.

    Example: "Incorrect API key provided: sk-proj-abc123def456." ->
             "Incorrect API key provided: [masked key]."
             [{"type": "text", "text": "sk-proj-abc123def456"}] ->
             [{"type": "text", "text": "[masked key]"}]
    """
    if isinstance(value, str):
        return _mask_text(value)
    if isinstance(value, (bytes, bytearray)):
        # surrogateescape: bytes that are not UTF-8 come back unchanged around the mask
        text = value.decode("utf-8", "surrogateescape")
        return type(value)(_mask_text(text).encode("utf-8", "surrogateescape"))
    if isinstance(value, (list, tuple)):
        value = _mask_across_parts(value)
        return type(value)(mask(item) for item in value)
    if isinstance(value, dict):
        return {mask(k): mask(v) for k, v in value.items()}
    return value


def _text_part(item) -> bool:
    return isinstance(item, dict) and isinstance(item.get("text"), str)


def _mask_across_parts(items):
    """A list whose text parts ({"type": "text", "text": ...}) are read as one text, as a
    model's reader joins them: a key split across two parts is masked in each part that holds
    a piece of it (masking each part alone would leave a prefix masked and the rest showing).
    """
    parts = [i for i, item in enumerate(items) if _text_part(item)]
    if len(parts) < 2:
        return items
    texts = [items[i]["text"] for i in parts]
    joined = "".join(texts)
    spans = []  # where keys lie in the joined text, overlapping ones merged
    for key_start, key_end in sorted(m.span() for pattern in _patterns()
                                     for m in pattern.finditer(joined)):
        if spans and key_start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], key_end))
        else:
            spans.append((key_start, key_end))
    if not spans:
        return items
    items, start = list(items), 0
    for i, text in zip(parts, texts):
        end = start + len(text)
        pieces, at = [], start  # the part's text with what lies inside a key replaced
        for key_start, key_end in spans:
            if key_end <= at or key_start >= end:
                continue
            pieces += [joined[at:max(key_start, at)], MASK]
            at = min(key_end, end)
        if pieces:
            items[i] = {**items[i], "text": "".join(pieces) + joined[at:end]}
        start = end
    return items


def _patterns() -> list[re.Pattern]:
    return [_key_pattern(key) for key in _known_keys()] + [KEY_SHAPE]


def _mask_text(text: str) -> str:
    for key in _known_keys():
        text = _key_pattern(key).sub(MASK, text)
    return KEY_SHAPE.sub(MASK, text)


def public_url(url) -> str:
    """A URL fit to print: no user name or password, no query or fragment (a token can hide
    there), and any key masked. An IPv6 host keeps its brackets.

    Example: "http://me:secret@localhost:11434/v1/?token=abc" -> "http://localhost:11434/v1"
    """
    parts = urllib.parse.urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]  # what follows user:password@, if any
    path = parts.path.rstrip("/")  # the SDK adds a slash the user did not write
    return mask(urllib.parse.urlunsplit((parts.scheme, host, path, "", "")))
