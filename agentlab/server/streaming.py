"""A chat.completion replayed as server-sent events, the way OpenAI streams (`stream: true`).

The tutor writes its whole reply at once; streaming cuts that reply into the deltas a real
model would send: first the role, then the content in small pieces, each tool call as its
index, id, type and name followed by its arguments in pieces, and a last chunk per choice
with the finish_reason. `stream_options.include_usage` adds a chunk with the usage and no
choices. The stream ends with `data: [DONE]`.

The Responses API streams differently (`response_events`): named events (`event: type`),
each with a sequence number, from response.created to response.completed, and no [DONE].

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


# ---------------------------------------------------------------------------------------------
# The Responses API's events (POST /v1/responses with stream: true)


def response_events(response: dict) -> EventStream:
    """A Response replayed as the named events the Responses API streams, in order:
    response.created and response.in_progress (no output yet); per output item its
    output_item.added, then for a message its content part, text deltas and text done, for a
    function call its argument deltas and arguments done, then output_item.done; last
    response.completed (or response.incomplete when cut at max_output_tokens). No [DONE]."""
    events, begun = [], {**response, "status": "in_progress", "output": [],
                         "completed_at": None, "incomplete_details": None}
    del begun["usage"]  # none yet; the published schema has no null for it

    def emit(kind: str, **fields):
        events.append({"type": kind, "sequence_number": len(events), **fields})

    emit("response.created", response=begun)
    emit("response.in_progress", response=begun)
    for index, item in enumerate(response["output"]):
        where = {"item_id": item["id"], "output_index": index}
        emit("response.output_item.added", output_index=index, item=_item_begun(item))
        if item["type"] == "message":
            text = item["content"][0]["text"]
            empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            emit("response.content_part.added", **where, content_index=0, part=empty)
            for piece in pieces(text):
                emit("response.output_text.delta", **where, content_index=0, delta=piece,
                     logprobs=[])
            emit("response.output_text.done", **where, content_index=0, text=text, logprobs=[])
            emit("response.content_part.done", **where, content_index=0,
                 part=item["content"][0])
        else:
            for piece in pieces(item["arguments"]):
                emit("response.function_call_arguments.delta", **where, delta=piece)
            emit("response.function_call_arguments.done", **where, name=item["name"],
                 arguments=item["arguments"])
        emit("response.output_item.done", output_index=index, item=item)
    finished = "response.incomplete" if response["status"] == "incomplete" else (
        "response.completed")
    emit(finished, response=response)
    return EventStream(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _item_begun(item: dict) -> dict:
    """An output item as the stream first announces it: in progress, its text or arguments
    still to come."""
    if item["type"] == "message":
        return {**item, "status": "in_progress", "content": []}
    return {**item, "status": "in_progress", "arguments": ""}
