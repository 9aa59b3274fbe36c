"""The tutor's token rule: how many tokens a request and a reply count for.

Real APIs count tokens with a tokenizer; the tutor uses a documented rule of thumb instead:
about four characters a token (OpenAI's rule for English text), plus a few tokens per message.
The server, the in-process transport and LocalClient all bill with these functions.
"""

from __future__ import annotations

import json
import math


def text_tokens(text: str) -> int:
    """About four characters a token, rounded up.

    Example: "" -> 0, "abcd" -> 1, "abcde" -> 2
    """
    return math.ceil(len(text) / 4)


# json.dumps(value, default=str) builds a new encoder on every call; this one is built once
# and writes the same text (the server counts every message of every request).
_JSON = json.JSONEncoder(default=str)


def _as_text(value) -> str:
    """Any content as text: a string as it is, anything else (content parts) as JSON."""
    if isinstance(value, str):
        return value
    try:
        return _JSON.encode(value)
    except (ValueError, RecursionError):
        return str(type(value))


def message_tokens(message: dict) -> int:
    """4 tokens of overhead per message (role and separators) + its content + its tool calls.

    Example: {"role": "user", "content": "abcdefgh"} -> 4 + 2
    """
    content = _as_text(message.get("content") or "")
    calls = message.get("tool_calls")
    return 4 + text_tokens(content) + (text_tokens(_as_text(calls)) if calls else 0)


def completion_tokens(message: dict) -> int:
    """The reply's tokens: its content and tool calls, without the per-message overhead."""
    return message_tokens(message) - 4


def count_tokens(messages: list[dict], tools: list[dict] | None) -> int:
    """Prompt tokens: 3 to prime the reply + every message + the tool schemas as JSON."""
    tool_tokens = text_tokens(_as_text(tools)) if tools else 0
    return 3 + sum(message_tokens(m) for m in messages) + tool_tokens
