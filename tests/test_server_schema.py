"""The server's copies of OpenAI's request schemas agree with the reference descriptions: chat
completions (agentlab/server/schemas/chat_completions_request.json) and the Responses API
(agentlab/server/schemas/responses_request.json)."""

import json
import pathlib
import re

from agentlab.server.checks import RESPONSES_SCHEMAS, SCHEMAS

DATA = pathlib.Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "openai-chat-completions.openapi.json").read_text())
RESPONSES_REFERENCE = json.loads((DATA / "openai-responses.openapi.json").read_text())
STORED = pathlib.Path(__file__).parents[1] / "agentlab" / "server" / "schemas"
# stored file -> (its reference description, the request schema it starts from)
COPIES = {"chat_completions_request.json": (REFERENCE, "CreateChatCompletionRequest"),
          "responses_request.json": (RESPONSES_REFERENCE, "CreateResponse")}
KEYWORDS = {"type", "properties", "required", "enum", "anyOf", "oneOf", "allOf", "items",
            "minItems", "maxItems", "minimum", "maximum", "additionalProperties", "maxLength",
            "$ref"}


def validation_keywords(schema):
    """Only what validates: no descriptions or examples; OpenAPI's nullable as anyOf with null.

    Example: {"type": "integer", "nullable": True, "description": "..."}
             -> {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    """
    if isinstance(schema, list):
        return [validation_keywords(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    kept = {}
    for key, value in schema.items():
        if key in ("properties",):
            kept[key] = {name: validation_keywords(s) for name, s in value.items()}
        elif key in KEYWORDS:
            kept[key] = validation_keywords(value)
    if schema.get("nullable"):
        kept = {"anyOf": [kept, {"type": "null"}]}
    return kept


def request_schemas_from_reference(reference, root="CreateChatCompletionRequest"):
    """The schemas reachable from the request's schema, with validation keywords only."""
    schemas = reference["components"]["schemas"]
    wanted, todo = {}, [root]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted[name] = validation_keywords(schemas[name])
        todo += re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(wanted[name]))
    return {name: _cut(s) for name, s in sorted(wanted.items())}


def _cut(schema):
    return json.loads(json.dumps(schema).replace("#/components/schemas/", "#/definitions/"))


def test_the_servers_request_schema_is_the_reference_one():
    assert SCHEMAS == request_schemas_from_reference(REFERENCE)


def test_the_servers_responses_schema_is_the_reference_one():
    assert RESPONSES_SCHEMAS == request_schemas_from_reference(RESPONSES_REFERENCE,
                                                               "CreateResponse")


def test_every_reference_it_makes_resolves():
    for schemas in (SCHEMAS, RESPONSES_SCHEMAS):
        for name in re.findall(r'"#/definitions/([^"]+)"', json.dumps(schemas)):
            assert name in schemas


def stored_text(reference, root) -> str:
    """A stored copy's text, exactly as write_the_servers_copies writes it."""
    return json.dumps(request_schemas_from_reference(reference, root), indent=1,
                      sort_keys=True) + "\n"


def test_the_stored_files_are_written_as_the_script_writes_them():
    for name, (reference, root) in COPIES.items():
        assert (STORED / name).read_text() == stored_text(reference, root), name


def write_the_servers_copies():
    """Regenerate agentlab/server/schemas/*.json from the references (after updating them)."""
    for name, (reference, root) in COPIES.items():
        (STORED / name).write_text(stored_text(reference, root))


if __name__ == "__main__":  # python tests/test_server_schema.py
    write_the_servers_copies()


def test_a_strict_tool_with_40000_required_properties_is_checked_in_linear_time():
    """A set, not a list, holds what is required: 30 s before (each of 40,000 properties
    looked up in a list of 40,000), well under 5 s now (a generous bound: see
    test_tutor_text_protocols.py's linear-time test for why a bound and not a ratio)."""
    import time

    from agentlab.server.checks import strict_problem

    names = [f"p{i}" for i in range(40_000)]
    schema = {"type": "object", "additionalProperties": False, "required": names,
              "properties": {name: {"type": "string"} for name in names}}
    start = time.perf_counter()
    assert strict_problem(schema) is None
    assert strict_problem({**schema, "required": names[1:]}).endswith("Missing 'p0'.")
    assert time.perf_counter() - start < 5
