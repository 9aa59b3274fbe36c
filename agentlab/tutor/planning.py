"""Planning: which tool calls does the task need next?

Example: "What time is it, and what is 17 * 23 + sqrt(144)?" with get_time and calculate offered
         -> [("get_time", {"timezone": "UTC"}),
             ("calculate", {"expression": "17 * 23 + sqrt(144)"})]

The tutor reads only the request. It recognises a few common kinds of tool by their names (a
clock, a calculator, a weather service, a country fact sheet) and fills their arguments by the
names in their schemas; any other tool is used when the task's words meet the tool's name or
description, its arguments filled from the task. Calls already made in this episode are not
made again, and a few well-known chains follow from results (a capital -> its weather, a
temperature in Celsius -> Fahrenheit).
"""

from __future__ import annotations

import dataclasses
import json
import re

from .reading import Observation, field
from .words import MAX_NAMES, Task, content_words, timezone_of

MAX_CALLS = 8  # tool calls in one reply at most, like a real model's parallel calls
FREE_TEXT = {"query", "q", "question", "text", "prompt", "search", "request", "message", "topic",
             "input"}
_OUTPUT_NAME = re.compile(r"final|answer|respond|structured_output", re.I)  # at the start
Call = tuple  # (tool name, arguments dict)


@dataclasses.dataclass(frozen=True)
class ToolSpec:
    """One offered tool as the tutor reads it, whatever shape the request gave it."""

    name: str
    description: str
    properties: dict
    required: tuple
    parameters: dict

    @classmethod
    def of(cls, tool) -> ToolSpec | None:
        spec = field(tool, "function", dict, tool)
        if not field(spec, "name", str):
            return None
        parameters = field(spec, "parameters", dict, {})
        required = tuple(r for r in field(parameters, "required", list, []) if isinstance(r, str))
        return cls(spec["name"], field(spec, "description", str, ""),
                   field(parameters, "properties", dict, {}), required, parameters)

    @property
    def words(self) -> set[str]:
        return content_words(self.name.replace("_", " ") + " " + self.description[:2000])

    def argument(self, *preferred: str) -> str:
        """The parameter that takes this kind of value: by name, else the first string one.

        Example: a weather tool with {"location": {"type": "string"}} -> "location"
        """
        for name in preferred:
            if name in self.properties:
                return name
        strings = [p for p, s in self.properties.items() if kind_of(s) == "string"]
        return (strings or list(self.properties) or [preferred[0]])[0]


def tool_specs(tools) -> list[ToolSpec]:
    if not isinstance(tools, list):
        return []
    return [s for s in (ToolSpec.of(t) for t in tools) if s is not None]


def kind_of(schema) -> str | None:
    """A JSON schema's type, the first that is not null if it lists several.

    Example: {"type": ["integer", "null"]} -> "integer";  True -> None
    """
    kind = field(schema, "type", (str, list))
    if isinstance(kind, list):
        kind = next((k for k in kind if isinstance(k, str) and k != "null"), None)
    return kind


# ---------------------------------------------------------------------------------------------
# Tools recognised by their names: one small rule each


def country_calls(task: Task, tool: ToolSpec, observations) -> list[Call]:
    if not task.mentions("capital", "population", "currenc", "country", "people live"):
        return []
    argument = tool.argument("country", "name")
    return [(tool.name, {argument: name}) for name in task.countries or task.places]


def weather_calls(task: Task, tool: ToolSpec, observations) -> list[Call]:
    if not task.mentions("weather", "coat", "jacket", "umbrella", "rain", "warm", "cold", "hot",
                         "temperature", "sunny", "snow", "degrees"):
        return []
    countries = {c.lower() for c in task.countries}
    cities = [p for p in task.places if p.lower() not in countries]
    cities += [field(o.result, "capital", str) for o in observations]
    argument = tool.argument("city", "location", "place")
    return [(tool.name, {argument: city}) for city in [c for c in cities if c][:MAX_NAMES]]


def time_calls(task: Task, tool: ToolSpec, observations) -> list[Call]:
    if not task.mentions("time", "clock", "o'clock", "what day", "date", "hour"):
        return []
    zone_arguments = [p for p in ("timezone", "tz", "zone", "time_zone") if p in tool.properties]
    return [(tool.name, {p: timezone_of(task) for p in zone_arguments[:1]})]


def calculator_calls(task: Task, tool: ToolSpec, observations) -> list[Call]:
    argument = tool.argument("expression", "expr", "formula", "input", "query")
    expressions = [e for e in [task.expression] if e]
    if task.mentions("fahrenheit"):
        for o in observations:
            celsius = field(o.result, "temp_c", (int, float))
            if celsius is not None and not isinstance(celsius, bool):
                expressions.append(f"{celsius} * 9 / 5 + 32")
    return [(tool.name, {argument: e}) for e in expressions]


RULES = [  # (words in a tool's name, the rule that plans its calls); in the order they run
    (("country",), country_calls),
    (("weather",), weather_calls),
    (("time", "clock"), time_calls),
    (("calc", "math", "arithmetic"), calculator_calls),
]


def function_part(name: str) -> str:
    """A tool's name without the plugin a framework prefixes it with: Semantic Kernel names
    its tools "<plugin>-<function>". The function part is what says what the tool does.

    Example: "WeatherPlugin-get_weather" -> "get_weather";  "get_time" -> "get_time"
    """
    return name.rsplit("-", 1)[-1] or name


def rule_for(tool: ToolSpec):
    """The rule that plans a tool's calls, by the words of its function's name; none for a
    name written like a class (MathAnswer, Calc, Weather): that is the shape of an answer
    (instructor's tools mode names its tool after the response model), not a service to look
    things up in.
    """
    name = function_part(tool.name)
    if name[:1].isupper():
        return None
    return next((rule for words, rule in RULES if any(w in name.lower() for w in words)), None)


def is_output_tool(tool: ToolSpec) -> bool:
    """A tool that stands for the answer itself (pydantic-ai's final_result, smolagents'
    final_answer, a schema named like a class): called to answer, never to look things up."""
    name = function_part(tool.name)
    return rule_for(tool) is None and bool(_OUTPUT_NAME.match(name) or name[:1].isupper())


# ---------------------------------------------------------------------------------------------
# Any other tool: match words, fill arguments from the task


@dataclasses.dataclass
class Plan:
    calls: list[Call]
    missing: list[tuple[str, str, str]]  # (tool, argument the task does not give, its description)


def plan(task: Task, tools: list[ToolSpec], observations: list[Observation]) -> Plan:
    """The calls the task needs next: those not made yet in this episode."""
    result = Plan([], [])
    asked = {call_key(o.name, o.arguments) for o in observations if o.well_formed}
    answered = {}  # tool name -> the arguments of its calls that worked
    for o in observations:
        if o.well_formed and not o.error:
            answered.setdefault(o.name, []).append(o.arguments)

    def want(tool: ToolSpec, arguments: dict):
        key = call_key(tool.name, arguments)
        if len(result.calls) < MAX_CALLS and key not in asked and not _answered_already(
                tool, arguments, answered.get(tool.name, [])):
            asked.add(key)
            result.calls.append((tool.name, arguments))

    for words, rule in RULES:
        for tool in tools:
            if rule_for(tool) is rule:
                for _, arguments in rule(task, tool, observations):
                    complete, missing = _with_required(tool, task, arguments)
                    if complete is not None:
                        want(tool, complete)
                    elif not result.missing:  # never a call without its required fields
                        description = field(tool.properties.get(missing), "description", str, "")
                        result.missing.append((tool.name, missing, description))
    for tool in tools:
        if rule_for(tool) or is_output_tool(tool) or not (task.words & tool.words):
            continue
        arguments, missing = fill_arguments(tool, task, {"expression": task.expression})
        if arguments is not None:
            want(tool, arguments)
        else:
            description = field(tool.properties[missing], "description", str, "")
            result.missing.append((tool.name, missing, description))
    return result


def _with_required(tool: ToolSpec, task: Task, arguments: dict) -> tuple[dict | None, str | None]:
    """A rule's arguments with the tool's other required ones filled from the task:
    (arguments, None), or (None, the first required one the task does not give).

    Example: weather(city, date) required, the rule gave {"city": "Oslo"}, the task names no
             date -> (None, "date")
    """
    if all(name in arguments for name in tool.required):
        return arguments, None
    filled, missing = fill_arguments(tool, task, arguments)
    if filled is None:
        return None, missing
    return {**filled, **arguments}, None


def _answered_already(tool: ToolSpec, arguments: dict, worked: list[dict]) -> bool:
    """Did a call that left out only optional arguments already work? get_time() has
    answered when get_time(timezone="UTC") is wanted. (A failed call is never redone as is.)

    Example: wanted {"timezone": "UTC"}, worked [{}] -> True
    """
    for given in worked[:MAX_NAMES]:
        needed = {k: v for k, v in arguments.items() if k in given or k in tool.required}
        if call_key(tool.name, given) == call_key(tool.name, needed):
            return True
    return False


def call_key(name: str, arguments: dict) -> tuple[str, str]:
    return name, json.dumps(arguments, sort_keys=True, default=str)


def fill_arguments(tool: ToolSpec, task: Task, special: dict) -> tuple[dict | None, str | None]:
    """A tool's arguments filled from the task: (arguments, None), or (None, the name of a
    required argument the task does not give).

    Example: order_pizza(topping: str, count: int) and 'Order 3 pizzas with "mushroom"'
             -> ({"topping": "mushroom", "count": 3}, None)
    """
    given = [v for v in special.values() if v is not None]  # a value given is not reused
    numbers = [n for n in task.numbers if n not in given]
    strings = [s for s in task.quoted + task.places if s not in given]
    arguments = {}
    for name, schema in tool.properties.items():
        value = special.get(name)
        if value is None and isinstance(schema, dict):
            value = _value_from_task(schema, task, numbers, strings)
        if value is None and name in tool.required and name.lower() in FREE_TEXT:
            value = task.text  # a free-text argument such as a search query: pass the request
        if value is None and name in tool.required:
            return None, name
        if value is not None:
            arguments[name] = value
    return arguments, None


def _value_from_task(schema: dict, task: Task, numbers: list, strings: list):
    """One argument's value from what the task gives, or None. Takes from numbers and strings."""
    kind = kind_of(schema)
    if isinstance(schema.get("enum"), list):
        return next((v for v in schema["enum"][:100]
                     if content_words(str(v)) and content_words(str(v)) <= task.words), None)
    if kind == "integer" and numbers:
        return int(numbers.pop(0))
    if kind == "number" and numbers:
        return numbers.pop(0)
    if kind == "string" and strings:
        return strings.pop(0)
    if kind == "array" and kind_of(schema.get("items")) in ("integer", "number"):
        return list(numbers)
    if kind == "array":
        return list(strings)
    if kind == "boolean" and task.mentions("yes", "true", "enable"):
        return True
    return None
