"""The server's copies of OpenAI's request schemas agree with the reference descriptions: chat
completions (agentlab/openai_request_schema.py) and the Responses API
(agentlab/openai_responses_schema.py)."""

import json
import pathlib
import re

from agentlab.openai_request_schema import SCHEMAS
from agentlab.openai_responses_schema import SCHEMAS as RESPONSES_SCHEMAS

DATA = pathlib.Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "openai-chat-completions.openapi.json").read_text())
RESPONSES_REFERENCE = json.loads((DATA / "openai-responses.openapi.json").read_text())
# module -> (its reference description, the request schema it starts from)
COPIES = {"openai_request_schema.py": (REFERENCE, "CreateChatCompletionRequest"),
          "openai_responses_schema.py": (RESPONSES_REFERENCE, "CreateResponse")}
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


def write_the_servers_copies():
    """Regenerate agentlab/openai_*_schema.py from the references (after updating them)."""
    for name, (reference, root) in COPIES.items():
        module = pathlib.Path(__file__).parents[1] / "agentlab" / name
        head = module.read_text().split("import json")[0]
        body = json.dumps(request_schemas_from_reference(reference, root), indent=1,
                          sort_keys=True)
        module.write_text(head + "import json\n\nSCHEMAS = json.loads(r'''" + body + "''')\n")


if __name__ == "__main__":  # python tests/test_server_schema.py
    write_the_servers_copies()
