"""Structured output: JSON that fits a schema, filled from what the tools said.

Used for `response_format` (json_object, json_schema strict or not) and for tools that stand for
the answer itself (pydantic-ai's `final_result`, smolagents' `final_answer`).

Example: schema {"time": string, "value": number}, after get_time -> {"now": "2026-..."} and
         calculate -> 403:   {"time": "2026-...", "value": 403}

Each field is matched by name against the results' fields and tools ("time" meets get_time's
"now", "value" meets a calculation's result); a field nothing matches gets the prose answer
(strings), the first number found (numbers), false, or the first allowed value. A number is
read with its unit ("64.4 °F", a result "64.4 °F" too): a field named for a unit (fahrenheit,
temp_c) takes a number in that unit, never one in another. Supported:
object, array (items as a schema or a list), string, number, integer, boolean, null, enum,
const, anyOf/oneOf/allOf, local $ref, true/false sub-schemas, minimum/maximum, maxLength,
minItems/maxItems. Left out on purpose: pattern, format and other string rules.
"""

from __future__ import annotations

import dataclasses
import json
import re

from .planning import kind_of
from .reading import Observation, field, parse_result, schemas_in_text, text_of
from .words import Task, content_words

MAX_DEPTH = 12  # schemas nested (or recursing through $ref) deeper than this get null
MAX_VALUES = 5_000  # values built for one schema at most: a self-referring schema stays small
SYNONYMS = {"time": {"now", "datetime", "date"}, "value": {"result"}, "number": {"result"},
            "temperature": {"temp"}, "city": {"capital"},
            # a field named for a unit takes a value in that unit: temp_c is Celsius
            "celsius": {"c", "temp"}, "fahrenheit": {"f"}, "kelvin": {"k"}}
UNITS = {"c": "celsius", "celsius": "celsius", "f": "fahrenheit", "fahrenheit": "fahrenheit",
         "k": "kelvin", "kelvin": "kelvin", "km": "km", "kilometers": "km", "miles": "miles",
         "mi": "miles", "usd": "usd", "eur": "eur"}  # a word of a name -> the unit it names
# A number and the unit written after it: "18 °C", "64.4°F", "64.4 ℉", "20 degrees Celsius".
# Each part is optional or fixed text after the number, so nothing here can backtrack far.
_QUANTITY = re.compile(r"(-?\d+(?:\.\d+)?)[ \t]*(?:(?:°|º|degrees?[ \t]+)[ \t]*"
                       r"(c|f|k|celsius|fahrenheit|kelvin)\b|(℃|℉)|(celsius|fahrenheit|kelvin)\b)?",
                       re.I)
SYMBOLS = {"℃": "celsius", "℉": "fahrenheit"}
NEAR = 40  # characters: a number this close to a field's word in the prose is its value
WRITERS = ("system", "developer", "user")  # the roles whose schema is the one to fill
PROSE = {"answer", "text", "response", "summary", "message", "content", "explanation", "reason",
         "reply", "output", "final", "justification", "rationale", "reasoning", "thought",
         "analysis", "description", "details", "notes", "comment"}
# Keys named in a prompt's words: "a JSON blob with keys 'answer' and 'justification'" (what
# LangChain's json_mode docs write), "with key 'random_ints'", "the fields `a`, `b`". Read from
# where "key" or "field" is written to the end of that sentence, at most KEYS_WITHIN characters.
_KEYS_WORD = re.compile(r"\b(?:keys?|fields?|properties)\b", re.I)
_KEY_NAME = re.compile(r"'([A-Za-z_][\w-]{0,63})'|\"([A-Za-z_][\w-]{0,63})\""
                       r"|`([A-Za-z_][\w-]{0,63})`")  # 'a', "a" or `a`
_SENTENCE_END = re.compile(r"[.!?](?:\s|\Z)|\n")
KEYS_WITHIN = 300
MAX_KEY_MENTIONS = 20  # places where "key" is written that are read, at most


@dataclasses.dataclass
class Fact:
    words: set[str]   # the field's name and the tool's name, as words
    key_words: set[str]
    value: object


def facts_from(observations: list[Observation]) -> list[Fact]:
    """Every scalar field of every successful result, with the words that name it.

    Example: get_time -> {"now": "2026-01-01T00:00:00+00:00"}
             -> [Fact({"now", "get", "time"}, {"now"}, "2026-01-01T00:00:00+00:00")]
    """
    facts = []
    for o in observations:
        if o.error:
            continue
        tool_words = content_words(o.name.replace("_", " ")) | set(o.name.lower().split("_"))
        for key, value in list(_fields(o.result).items())[:50]:
            if isinstance(value, (str, int, float, bool)):
                key_words = set(str(key).lower().split("_"))
                facts.append(Fact(key_words | tool_words, key_words, value))
            amount = quantity(value) if isinstance(value, str) else None
            if amount is not None:  # "64.4 °F" is also the number 64.4, in Fahrenheit
                number, unit = amount
                key_words = set(str(key).lower().split("_")) | ({unit} if unit else set())
                facts.append(Fact(key_words | tool_words, key_words, number))
    return facts


def quantity(text: str) -> tuple[int | float, str | None] | None:
    """(the number, its unit or None) if a text is one number with at most a unit, else None.

    Example: "64.4 °F" -> (64.4, "fahrenheit");  " 403 " -> (403, None);  "about 5" -> None
    """
    found = _QUANTITY.fullmatch(text.strip())
    if not found:
        return None
    return _as_number(found[1]), _unit_of(found)


def _unit_of(found: re.Match) -> str | None:
    """The unit a _QUANTITY match names. Example: the match of "18 °C" -> "celsius" """
    letters, symbol, word = found[2], found[3], found[4]
    if symbol:
        return SYMBOLS[symbol]
    written = (letters or word or "").lower()
    return UNITS.get(written) if written else None


def _as_number(written: str) -> int | float:
    return float(written) if "." in written else int(written)


def _fields(result) -> dict:
    """A result's fields; a bare value is the field "result". Example: 403 -> {"result": 403}"""
    if isinstance(result, dict):
        return result
    return {"result": result}


class Filler:
    """Builds a value for a schema from the facts and the prose answer."""

    def __init__(self, facts: list[Fact], prose: str, root_schema, text: str = ""):
        self.facts, self.prose, self.root = facts, prose, root_schema
        self.built = 0
        # With no tool results, the facts come from the conversation's own text (text):
        # the names and numbers it gives, each used once, in order.
        self.text = text if not facts else ""
        task = Task(self.text)
        self.names = list(task.places) + list(task.quoted)
        # (where, the number as written, its unit or None) for each number of the text
        self.numbers = [(m.start(), m[1], _unit_of(m))
                        for m in _QUANTITY.finditer(self.text[:100_000])]
        self.expanding = ["#"]  # the $refs being built, outermost first: the root is one

    def value(self, schema, name: str = "", depth: int = 0):
        self.built += 1
        if self.built > MAX_VALUES:
            return None
        ref = field(schema, "$ref", str)
        if ref is not None and ref not in self.expanding:
            self.expanding.append(ref)
            try:
                return self.value(self._resolve(schema, depth), name, depth + 1)
            finally:
                self.expanding.pop()
        schema = self._resolve(schema, depth)
        if schema is True or schema == {}:
            return self._string(name)
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return None
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._choice(schema["enum"])
        for key in ("anyOf", "oneOf", "allOf"):
            options = field(schema, key, list, [])
            # A form that would build this very schema again (a tree's optional child) is
            # taken last: null or another form ends the recursion.
            options = sorted(options, key=self.recursive)
            not_null = [s for s in options if kind_of(self._resolve(s, depth)) != "null"
                        and not self.recursive(s)]
            if options:
                return self.value((not_null or options)[0], name, depth + 1)
        if field(schema, "properties", dict) is not None:
            return self._object(schema, depth)
        return self._of_kind(kind_of(schema), schema, name, depth)

    def _of_kind(self, kind, schema: dict, name: str, depth: int):
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, name, depth)
        if kind in ("number", "integer"):
            return _bounded(self._number(name), schema, kind)
        if kind == "boolean":
            return self._fact(name, bool) or False
        if kind == "null":
            return None
        limit = field(schema, "maxLength", int, -1)
        if limit >= 0:
            return self._string(name)[:limit]
        return self._string(name)

    def _object(self, schema: dict, depth: int) -> dict:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return {"answer": self.prose}
        return {name: self.value(sub, name, depth + 1)
                for name, sub in list(properties.items())[:200]}

    def _array(self, schema: dict, name: str, depth: int) -> list:
        items = schema.get("items", schema.get("prefixItems", True))
        if isinstance(items, list):  # one schema per position
            return [self.value(s, name, depth + 1) for s in items[:50]]
        if self.recursive(items) and not field(schema, "minItems", int, 0):
            return []  # a tree's children: none, rather than a tree as deep as MAX_DEPTH
        least, most = field(schema, "minItems", int, 1), field(schema, "maxItems", int, 50)
        count = max(0, min(max(least, 1), most, 50))
        return [self.value(items, name, depth + 1)] * count

    def recursive(self, schema) -> bool:
        """Does this schema point back at one being built (a $ref to itself or an outer one)?

        Example: {"$ref": "#"} inside the root schema -> True
        """
        return field(schema, "$ref", str) in self.expanding

    def _resolve(self, schema, depth: int):
        """Follow a local "$ref": "#/$defs/Name" (what pydantic writes for nested models)."""
        for _ in range(MAX_DEPTH - min(depth, MAX_DEPTH)):
            ref = field(schema, "$ref", str, "")
            if not ref.startswith("#"):
                return schema
            schema = self.root
            for part in filter(None, ref.lstrip("#").split("/")):
                schema = field(schema, part, (dict, bool), {})
        return schema

    def _fact(self, name: str, kind):
        """The value of the fact that best matches a field's name, among values of one kind."""
        words = _words(name)
        unit = _unit(words)
        words |= {s for w in words for s in SYNONYMS.get(w, ())}
        best, best_score = None, 0
        for fact in self.facts:
            if not isinstance(fact.value, kind) or isinstance(fact.value, bool) != (kind is bool):
                continue  # True is an int in Python: a flag is not a number
            if unit and _unit(fact.key_words) not in (None, unit):
                continue  # a field in Fahrenheit never takes temp_c, however alike the names
            score = 2 * len(words & fact.key_words) + len(words & fact.words)
            if score > best_score:
                best, best_score = fact.value, score
        return best

    def _string(self, name: str) -> str:
        if name.lower() in PROSE or not name:
            return self.prose
        found = self._fact(name, str)
        if found is None and self.names:  # the next name the conversation gives
            return self.names.pop(0)
        if found is None:
            return self.prose
        return found

    def _number(self, name: str):
        found = self._fact(name, (int, float))
        if found is None and self.text and name.lower() not in PROSE:
            found = self._number_in_text(name)  # (an "answer" is not any number the task has)
        if found is None:  # no field matches: the latest number a tool gave (the last step
            # of a chain, such as a conversion), if any, and never one in another unit
            unit = _unit(_words(name))
            found = next((f.value for f in reversed(self.facts) if _is_number(f.value)
                          and _unit(f.key_words) in (None, unit)), 0)
        return found

    def _number_in_text(self, name: str):
        """The number the text gives for a field: one written in the unit the field is named
        for ("64.4 °F" for fahrenheit; never one in another unit), else the one nearest a word
        of its name ("14 million people" for population_millions), else the next not used yet.
        """
        unit = _unit(_words(name))
        if unit:
            chosen = [i for i, (_, _, written) in enumerate(self.numbers) if written == unit]
            if chosen:
                return _as_number(self.numbers.pop(chosen[0])[1])
        allowed = [i for i, (_, _, written) in enumerate(self.numbers)
                   if written is None or not unit]
        stems = {w.rstrip("s") for w in _words(name) if len(w) > 2}
        at = [m.start() for s in stems for m in re.finditer(re.escape(s), self.text.lower())]
        near = [(min(abs(self.numbers[i][0] - a) for a in at), i) for i in allowed
                if at and min(abs(self.numbers[i][0] - a) for a in at) <= NEAR]
        if not near and not allowed:
            return None
        return _as_number(self.numbers.pop(min(near)[1] if near else allowed[0])[1])

    def _choice(self, options: list):
        words = content_words(self.prose)
        named = [o for o in options if content_words(str(o)) and content_words(str(o)) <= words]
        return (named or options)[0]


def _words(name: str) -> set[str]:
    """A field's name as words. Example: "temp-F" -> {"temp", "f"};  "tempF" -> {"tempf"}"""
    return {w for w in name.lower().replace("-", "_").split("_") if w}


def _unit(words: set[str]) -> str | None:
    """The unit a name's words name, if any. Example: {"temp", "f"} -> "fahrenheit" """
    return next((UNITS[w] for w in sorted(words) if w in UNITS), None)


def _is_number(value) -> bool:
    return type(value) in (int, float)


def _bounded(number, schema: dict, kind: str):
    """A number kept within the schema's minimum and maximum, whole if it must be an integer.

    Example: 403.0 with {"type": "integer"} -> 403;  -5 with {"minimum": 0} -> 0
    """
    low, high = schema.get("minimum"), schema.get("maximum")
    if _is_number(low) and number < low:
        number = low
    if _is_number(high) and number > high:
        number = high
    if kind == "integer" or (isinstance(number, float) and number.is_integer()):
        return int(round(number))
    return number


def fill(schema, observations: list[Observation], prose: str, text: str = ""):
    """A JSON value for the schema, from the episode's results and the prose answer; with no
    results, from the fields of `text` (the conversation) if it is a JSON object (an answer
    to reformat), else from its names and numbers."""
    facts = facts_from(observations)
    given = parse_result(text) if not facts and text.lstrip().startswith("{") else None
    if isinstance(given, dict):
        facts = facts_from([Observation("text", {}, "", given, None)])
    return Filler(facts, prose, schema, text).value(schema)


def schema_in_messages(messages: list) -> dict | None:
    """A JSON schema written into the messages' text (instructor's JSON and MD_JSON modes,
    agno's JSON mode, CrewAI's converter): the first JSON object with "properties".

    Example: [system "... match the following json_schema: {"properties": {"a": ...}, ...}"]
             -> {"properties": {"a": ...}, ...}
    """
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") not in WRITERS:
            continue  # a schema a tool returned, or the model wrote, is data, not the ask
        for _, _, schema in schemas_in_text(text_of(message)):
            return schema
    return None


def keys_in_messages(messages: list) -> dict | None:
    """A schema for the keys a conversation names in words, or None if it names none: what
    a client that asks for a JSON object (response_format json_object) without a schema
    writes instead.

    Example: [user "Make sure to return a JSON blob with keys 'answer' and 'justification'."]
             -> {"type": "object", "properties": {"answer": {}, "justification": {}}, ...}
             [developer "<json_fields>["time"]</json_fields> ... <json_field_properties>
              {"time": {"type": "string"}}</json_field_properties>"] (agno's JSON mode)
             -> {"type": "object", "properties": {"time": {"type": "string"}}, ...}
    """
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") not in WRITERS:
            continue
        text = text_of(message)[:200_000]
        tagged = _tagged_fields(text)
        if tagged:
            return tagged
        for mention in list(_KEYS_WORD.finditer(text))[:MAX_KEY_MENTIONS]:
            window = text[mention.end():mention.end() + KEYS_WITHIN]
            end = _SENTENCE_END.search(window)
            names = [a or b or c for a, b, c in _KEY_NAME.findall(
                window[:end.start() if end else None])]
            if names:
                keys = list(dict.fromkeys(names))
                return {"type": "object", "properties": {k: {} for k in keys},
                        "required": keys}
    return None


def _tagged_fields(text: str) -> dict | None:
    """The schema agno writes between tags: the fields' names as a JSON list in <json_fields>,
    their schemas as a JSON object in <json_field_properties>; None if it writes none."""
    names = _json_in(text, "<json_fields>", "</json_fields>")
    properties = _json_in(text, "<json_field_properties>", "</json_field_properties>")
    if not isinstance(properties, dict):
        properties = {}
    if not isinstance(names, list):
        names = list(properties)
    names = [n for n in names if isinstance(n, str)][:200]
    if not names:
        return None
    return {"type": "object", "required": names,
            "properties": {n: field(properties, n, dict, {}) for n in names}}


def _json_in(text: str, opening: str, closing: str):
    """The JSON value between the first opening tag and the closing tag after it, or None."""
    start = text.find(opening)
    end = text.find(closing, start) if start >= 0 else -1
    if end < 0:
        return None
    try:
        return json.loads(text[start + len(opening):end])
    except (ValueError, RecursionError):
        return None


def asks_for_json(messages: list) -> tuple[bool, bool]:
    """(does the conversation ask for JSON, inside a ```json fence?), from its text.

    Example: [user "Return the JSON within a ```json codeblock."] -> (True, True)
    """
    text = " ".join(text_of(m) for m in messages if isinstance(m, dict))[:200_000].lower()
    return "json" in text, any(not _NEGATED.search(text, max(at - FENCE_SENTENCE, 0), at)
                               for at in _first_found(text, "```json", MAX_FENCE_MENTIONS))


# "Ensure the final output does not include any code block markers like ```json" (CrewAI):
# a fence named in a sentence that says not to use one is not asked for.
_NEGATED = re.compile(r"\b(?:not|no|never|without|avoid)\b|n't\b")
FENCE_SENTENCE = 80  # characters before "```json" read for a "not"
MAX_FENCE_MENTIONS = 20


def _first_found(text: str, needle: str, most: int) -> list[int]:
    """Where needle occurs in text, the first `most` times. Example: ("abab", "b", 5) -> [1, 3]"""
    found, at = [], text.find(needle)
    while at >= 0 and len(found) < most:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def schema_of(response_format) -> tuple[bool, object]:
    """(does the reply have to be JSON, the schema it must fit or None).

    Example: {"type": "json_schema", "json_schema": {"name": "A", "schema": {...}}} -> (True, {...})
    """
    if not isinstance(response_format, dict):
        return False, None
    kind = response_format.get("type")
    if kind == "json_object":
        return True, None
    spec = response_format.get("json_schema")
    if kind == "json_schema" and isinstance(spec, dict):
        return True, spec.get("schema", True)
    return False, None
