"""Notebook 02, Tools: check_temperature_tool.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import json
import random
import re

from agentlab.tools import Tool

from ._common import Verdict, as_number, attempt, is_stub_result, returned_nothing, short

# How far a result may be from the exact °F: a result rounded to one decimal is right.
ROUNDED = 0.05 + 1e-9
# Inputs the check tries but never names in a message: a table of the named ones fails on these.
# Seeded, so a verdict is the same at every run.
_UNNAMED_CELSIUS = [round(random.Random(2026 + k).uniform(-60, 150), 1) for k in range(4)]


def check_temperature_tool(candidate) -> Verdict:
    """A @tool convert_temperature(celsius) -> Fahrenheit, with its argument described.

    The result is the number, or a dict holding it under a key that says it is Fahrenheit
    ({"fahrenheit": 212.0}, {"celsius": 100, "fahrenheit": 212.0}), as the course's tools
    return dicts.

    Any annotation that lets the model send 36.6 is right (float, float | int): the check asks
    the tool's own schema whether it accepts 36.6. Tried on five values it names, then on
    values it does not, so a table of the named ones does not pass.
    """
    if not isinstance(candidate, Tool):
        return Verdict(False, "decorate your function with @tool")
    parameters = getattr(candidate, "parameters", None) or {}
    params = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
    if list(params) != ["celsius"]:
        return Verdict(False, f"it should take one argument, celsius; it takes {list(params)}")
    if not _schema_accepts(parameters, {"celsius": 36.6}):
        return Verdict(False, "annotate celsius as float, so the model may send 36.6 as well as 37")
    if not candidate.description:  # before its Args: section: there is no docstring to add to
        return Verdict(False, "give the function a docstring: its first line is what the "
                       "model reads, then an Args: section describes celsius")
    if not params["celsius"].get("description"):
        return Verdict(False, "describe celsius in an Args: section of the docstring")
    if candidate.description.startswith("Replace this docstring"):
        return Verdict(False, "replace the stub's docstring: its first line is what the model "
                       "reads, so say what the tool does")
    for c, f in ((100, 212), (-40, -40), (37, 98.6), (0, 32), (21.5, 70.7)):
        got, failed = attempt(f"convert_temperature({c})", candidate, c)
        if failed is not None:
            return failed
        if is_stub_result(got):
            return returned_nothing(candidate, got, f"convert_temperature({c})",
                                    f"{f} (°F), a number")
        number = fahrenheit_in(got)
        if isinstance(got, dict) and number is None:
            return Verdict(False, f"convert_temperature({c}) returned {short(got)}: a dict is "
                           "fine, but put the °F under a key that says so, such as "
                           "'fahrenheit' (or return the number itself)")
        if number is None or abs(number - f) > ROUNDED:
            return Verdict(False, f"{c} °C should be {f} °F, not {short(got)}")
    for c in _UNNAMED_CELSIUS:
        try:
            got = candidate(c)
            number, why = fahrenheit_in(got), f"gave {short(got)}"
        except Exception as e:
            number, why = None, f"raised {type(e).__name__}"
        if number is None or abs(number - (c * 9 / 5 + 32)) > ROUNDED:
            return Verdict(False, f"right on the five values named here, but on another "
                           f"temperature it {why}, not its °F: compute °F from "
                           "celsius for any value (a table of answers fails here)")
    return Verdict(True, "schema and results are right: "
                   + json.dumps(candidate.schema["function"]["parameters"]))


# Keys that name a temperature in Fahrenheit, read word by word ("temp_f", "degrees F", "°F"),
# and keys for a value whose unit another key gives ({"value": 212, "unit": "°F"}).
FAHRENHEIT_WORDS = {"fahrenheit", "f", "°f", "degf", "degreesf"}
VALUE_KEYS = {"value", "temperature", "temp", "result", "degrees", "converted"}
UNIT_KEYS = {"unit", "units", "scale"}


def fahrenheit_in(result) -> float | None:
    """The °F in a tool's result: the number itself, or a dict's number under a key that says
    it is Fahrenheit, as the course's own tools return dicts. None if nothing says which.

    Example: fahrenheit_in(212.0) -> 212.0;  fahrenheit_in({"celsius": 100, "fahrenheit": 212})
             -> 212.0;  fahrenheit_in({"value": 212, "unit": "°F"}) -> 212.0;
             fahrenheit_in({"result": 212}) -> None (which scale?)
    """
    if not isinstance(result, dict):
        return as_number(result)
    named = [as_number(v) for k, v in result.items() if _says_fahrenheit(k)]
    if not named and any(_says_fahrenheit(result.get(k)) for k in UNIT_KEYS):
        named = [as_number(v) for k, v in result.items() if _words(k) & VALUE_KEYS]
    return named[0] if len(named) == 1 else None


def _words(text) -> set[str]:
    """Example: _words("Temp_F") -> {"temp", "f"};  _words(12) -> set()"""
    return set(re.findall(r"[a-z°]+", text.lower())) if isinstance(text, str) else set()


def _says_fahrenheit(text) -> bool:
    return bool(_words(text) & FAHRENHEIT_WORDS)


def _schema_accepts(schema, arguments: dict) -> bool:
    """Whether `arguments` are valid under the JSON schema (False for a broken schema).

    fastjsonschema, as the tutor's server uses: importing jsonschema takes about a second (its
    format checker builds grammars), which a student would wait for at their first check.
    """
    import fastjsonschema

    try:
        fastjsonschema.validate(schema, arguments)
        return True
    except Exception:  # the arguments break the schema, or the schema cannot be read
        return False
