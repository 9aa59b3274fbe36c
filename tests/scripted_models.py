"""Scripted models and the task both edge test files give them (test_edges, test_review_faults)."""

import json

COAT = "What's the weather in Paris, and should I take a coat?"
FAKE_KEY = "sk-proj-FAKEfakeFAKEfake0123456789abcdefABCDEF"


def call_then_answer(name, arguments, text="done"):
    """A scripted model: one tool call, then an answer quoting the tool's result."""
    def respond(model, messages, tools, tool_choice, **options):
        if messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": f"{text}: {messages[-1]['content']}"}
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    return respond
