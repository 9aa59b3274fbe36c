"""A chat.completion replayed as server-sent events, the way OpenAI streams (`stream: true`).

The tutor writes its whole reply at once; streaming cuts that reply into the deltas a real
model would send: first the role, then the content in small pieces, each tool call as its
index, id, type and name followed by its arguments in pieces, and a last chunk per choice
with the finish_reason. `stream_options.include_usage` adds a chunk with the usage and no
choices. The stream ends with `data: [DONE]`.

Left out on purpose: timing. The events are ready at once; nothing waits between them.
"""

from __future__ import annotations

import json

PIECE = 16  # characters per content or arguments delta


class EventStream(list):
    """The encoded events of one streamed response (a list of bytes, one per event)."""

    media_type = "text/event-stream"


def pieces(text: str, size: int = PIECE) -> list[str]:
    """Text cut into deltas.

    Example: pieces("abcdefgh", 3) -> ["abc", "def", "gh"];  pieces("") -> []
    """
    return [text[i:i + size] for i in range(0, len(text), size)]


def chunks(completion: dict, include_usage: bool = False) -> list[dict]:
    """The chat.completion.chunk objects that stream `completion`, in order."""
    head = {key: completion[key] for key in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    if include_usage:  # with include_usage every chunk has a usage field, null until the last
        head["usage"] = None

    def chunk(index, delta, finish_reason=None):
        return {**head, "choices": [{"index": index, "delta": delta, "logprobs": None,
                                     "finish_reason": finish_reason}]}

    out = []
    for choice in completion["choices"]:
        index, message = choice["index"], choice["message"]
        out.append(chunk(index, {"role": "assistant", "content": "", "refusal": None}))
        out += [chunk(index, {"content": piece}) for piece in pieces(message.get("content") or "")]
        for j, call in enumerate(message.get("tool_calls") or []):
            function = call["function"]
            out.append(chunk(index, {"tool_calls": [
                {"index": j, "id": call["id"], "type": "function",
                 "function": {"name": function["name"], "arguments": ""}}]}))
            out += [chunk(index, {"tool_calls": [{"index": j, "function": {"arguments": piece}}]})
                    for piece in pieces(function["arguments"])]
        out.append(chunk(index, {}, choice["finish_reason"]))
    if include_usage:
        out.append({**head, "choices": [], "usage": completion["usage"]})
    return out


def event_stream(completion: dict, include_usage: bool = False) -> EventStream:
    """The whole response body: one `data: {chunk}` event per chunk, then `data: [DONE]`."""
    events = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks(completion, include_usage)]
    return EventStream(events + [b"data: [DONE]\n\n"])
