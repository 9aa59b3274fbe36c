"""Masking secrets: an API key never reaches the model, a Run, a log or a file.

A key can come back to us in text we did not write: a tool that reads the environment or a
config file, an exception message that quotes its input, an API error that echoes the key it
was given ("Incorrect API key provided: sk-..."), a model that repeats what it read. `mask`
is applied where such text enters the package (tool results and errors in tools.py, the task,
the system prompt and API errors in loop.py, the model's replies in models.py), *before* any
cut, so that no prefix of a key survives a truncation; and once more on the way out (a Run's
JSON, repr and HTML, the step log), for records made by hand or loaded from a file.

What counts as a key: the value of OPENAI_API_KEY in the environment, even wrapped across lines
or with invisible characters inside it, and anything shaped like an OpenAI-style key ("sk-"
followed by at least 8 key characters, not glued to a letter or digit before it). Left out on
purpose: other providers' key shapes, keys split across two messages, and keys encoded
(base64, URL-encoding, JSON's u-escapes), which no pattern can find without false alarms.
"""

from __future__ import annotations

import functools
import os
import re
import urllib.parse

# A line break or tab as JSON and Python's repr write it inside a string: a backslash and an
# "n". Masking runs on a tool's result once it is text, where a dict's line breaks look so.
ESCAPED_SPACE = r"\\[nrt]"
# Not \b: "OPENAI_API_KEY_sk-..." or a key glued to a non-English word must be found too.
KEY_SHAPE = re.compile(rf"(?:(?<![A-Za-z0-9])|(?<={ESCAPED_SPACE}))sk-[A-Za-z0-9_*-]{{8,}}")
MASK = "[masked key]"
# What may sit between two characters of a key that text wrapped or pasted: white space
# (a line break, a tab, or one written as \n), and the zero-width characters that copying
# from a web page can leave.
INSIDE_A_KEY = rf"(?:[\s\u200b-\u200d\u2060\ufeff]|{ESCAPED_SPACE})*"


@functools.lru_cache(maxsize=4)
def _key_pattern(key: str) -> re.Pattern:
    """The environment's key, allowing white space or zero-width characters between its
    characters.

    Example: for "sk-abc12345", "sk-abc\n12345" and "sk-abc\u200b12345" both match
    """
    return re.compile(INSIDE_A_KEY.join(re.escape(character) for character in key))


def mask(text: str) -> str:
    """Replace every API key in text with a fixed marker; anything that is not text is returned.

    Example: "Incorrect API key provided: sk-proj-abc123def456." ->
             "Incorrect API key provided: [masked key]."
    """
    if not isinstance(text, str):
        return text
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if len(key) >= 8:
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
