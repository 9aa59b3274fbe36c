"""The server's copy of OpenAI's request schema agrees with the reference description."""

import json
import pathlib
import re

from agentlab.openai_request_schema import SCHEMAS

REFERENCE = json.loads((pathlib.Path(__file__).parent / "data"
                        / "openai-chat-completions.openapi.json").read_text())
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


def request_schemas_from_reference(reference):
    """The schemas reachable from CreateChatCompletionRequest, with validation keywords only."""
    schemas = reference["components"]["schemas"]
    wanted, todo = {}, ["CreateChatCompletionRequest"]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted[name] = validation_keywords(schemas[name])
        todo += re.findall(r'"#/components/schemas/(\w+)"', json.dumps(wanted[name]))
    return {name: _cut(s) for name, s in sorted(wanted.items())}


def _cut(schema):
    return json.loads(json.dumps(schema).replace("#/components/schemas/", "#/definitions/"))


def test_the_servers_request_schema_is_the_reference_one():
    assert SCHEMAS == request_schemas_from_reference(REFERENCE)


def test_every_reference_it_makes_resolves():
    for name in re.findall(r'"#/definitions/(\w+)"', json.dumps(SCHEMAS)):
        assert name in SCHEMAS


def write_the_servers_copy():
    """Regenerate agentlab/openai_request_schema.py from the reference (after updating it)."""
    module = pathlib.Path(__file__).parents[1] / "agentlab" / "openai_request_schema.py"
    head = module.read_text().split("import json")[0]
    body = json.dumps(request_schemas_from_reference(REFERENCE), indent=1, sort_keys=True)
    module.write_text(head + "import json\n\nSCHEMAS = json.loads(r'''" + body + "''')\n")


if __name__ == "__main__":  # python tests/test_server_schema.py
    write_the_servers_copy()
