"""Writing answers: sentences built from the tools' results, and a sentence of reasoning.

Example: an observation of get_weather -> {"city": "Paris", "temp_c": 8, "rain": true, ...}
         and the task "... should I take a coat?"
         -> "It's 8 °C and light rain in Paris -- yes, take a coat and something waterproof."

Each kind of result has a small reader that returns a sentence, or None when the result is not
its kind; the first reader that answers wins, and a general one writes any other result as
prose. Readers use only the fields that are there, so a partial or cut result still reads.
"""

from __future__ import annotations

import hashlib
import json
import re

from .reading import Observation, field
from .words import Task

MAX_SENTENCE_CHARS = 300


def _number(value) -> bool:
    return type(value) in (int, float)


def _tidy(value):
    """403.0 -> 403: whole numbers read as whole numbers."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# ---------------------------------------------------------------------------------------------
# One reader per kind of result


def error_sentence(o: Observation, task: Task) -> str | None:
    if o.error:
        return f"I could not use {o.name}: {o.error.rstrip('.')}."
    return None


def weather_sentence(o: Observation, task: Task) -> str | None:
    r = o.result
    if not isinstance(r, dict) or not _number(r.get("temp_c")):
        return None
    conditions = field(r, "conditions", str)  # a cut result may have lost them
    sentence = f"It's {r['temp_c']} °C" + (f" and {conditions}" if conditions else "")
    if field(r, "city", str):
        sentence += f" in {r['city']}"
    raining = r.get("rain") is True
    if task.mentions("coat", "jacket", "umbrella") and (raining or r["temp_c"] < 15):
        sentence += " -- yes, take a coat" + " and something waterproof" * raining
    elif task.mentions("coat", "jacket", "umbrella"):
        sentence += " -- no coat needed"
    return sentence + "."


def time_sentence(o: Observation, task: Task) -> str | None:
    r = o.result
    if isinstance(r, str) and len(r) < 80 and re.search(r"time|clock", o.name, re.I):
        return f"The time now is {r}."  # a clock that answers in plain text: "09:30 UTC"
    if not isinstance(r, dict) or not isinstance(r.get("now"), str):
        return None
    sentence = f"The time now ({field(r, 'timezone', str, 'UTC')}) is {r['now']}"
    if field(r, "weekday", str):
        sentence += f", a {r['weekday']}"
    return sentence + "."


def calculation_sentence(o: Observation, task: Task) -> str | None:
    r = o.result
    if isinstance(r, dict) and _number(r.get("result")):
        r = r["result"]  # the chapter's calculate wraps its number: {"result": 403.0}
    expression = next((v for v in o.arguments.values() if isinstance(v, str)), None)
    if not _number(r) or expression is None:
        return None
    if re.fullmatch(r"-?[\d.]+ \* 9 / 5 \+ 32", expression):
        return f"That is {_tidy(r)} °F."
    return f"{expression} = {_tidy(r)}."


def country_sentence(o: Observation, task: Task) -> str | None:
    r = o.result
    if not isinstance(r, dict) or not isinstance(r.get("capital"), str):
        return None
    country = r.get("country") or o.arguments.get("country") or "the country"
    details = []
    if r.get("population_millions") is not None:
        details.append(f"population {r['population_millions']} million")
    if r.get("currency") is not None:
        details.append(f"currency {r['currency']}")
    sentence = f"The capital of {country} is {r['capital']}"
    if details:
        sentence += f" ({', '.join(details)})"
    return sentence + "."


def general_sentence(o: Observation, task: Task) -> str:
    """Any other result, as prose: a page's text, a list's items, a record's fields."""
    r = o.result
    if isinstance(r, dict) and isinstance(r.get("text"), str):
        r = r["text"]
    if r is None or r == [] or r == {} or (isinstance(r, str) and not r.strip()):
        return f"{o.name} returned nothing, so I have no answer from it."
    if isinstance(r, dict):
        fields = [f"{k.replace('_', ' ')} {_plain(v)}" for k, v in list(r.items())[:8]
                  if k not in ("source",)]
        text = f"{o.name} returned " + (_join(fields) or "nothing")
    elif isinstance(r, list):
        text = f"{o.name} found: " + ("; ".join(_plain(v) for v in r[:8]) or "nothing")
    else:
        text = f"According to {o.name}: {_plain(r)}"
    if len(text) > MAX_SENTENCE_CHARS:
        text = text[:MAX_SENTENCE_CHARS] + "..."
    return text.rstrip(".") + "."


def _plain(value) -> str:
    """A value as a reader would say it. Example: ["a", "b"] -> "a, b";  True -> "yes" """
    if isinstance(value, bool):
        return {True: "yes", False: "no"}[value]
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value[:8])
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in list(value.items())[:8])
    return str(_tidy(value))[:MAX_SENTENCE_CHARS]


def _join(items: list[str]) -> str:
    """Example: ["a", "b", "c"] -> "a, b and c";  ["a"] -> "a";  [] -> "" """
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


READERS = [error_sentence, weather_sentence, time_sentence, calculation_sentence,
           country_sentence]


def sentence(o: Observation, task: Task) -> str:
    return next((s for s in (read(o, task) for read in READERS) if s), None) or (
        general_sentence(o, task))


# ---------------------------------------------------------------------------------------------
# Whole answers


def answer(task: Task, observations: list[Observation], tool_names: list[str]) -> str:
    """The final answer: a sentence per useful result, and a comparison if one was asked."""
    useful = [o for i, o in enumerate(observations)
              if not _got_past(o, observations[i + 1:], observations, tool_names)]
    if not useful:
        return cannot_do(task, tool_names)
    sentences = [sentence(o, task) for o in useful]
    sentences += _comparison(task, useful)
    return " ".join(dict.fromkeys(sentences))


def _got_past(o: Observation, later: list[Observation], observations: list[Observation],
              tool_names: list[str]) -> bool:
    """An error the model got past: a malformed call it fixed, a made-up tool it dropped, a
    repeat it was stopped from making. Other errors (a failure, a denial) stay in the answer."""
    if not o.error:
        return False
    error = o.error.lower()
    if "repeat" in error:
        return True
    malformed = "argument" in error or "json" in error
    if malformed and any(x.name == o.name and not x.error for x in later):
        return True  # it fixed its own call
    return o.name not in tool_names and any(not x.error for x in observations)


def _comparison(task: Task, useful: list[Observation]) -> list[str]:
    weather = [o.result for o in useful if isinstance(o.result, dict) and not o.error
               and _number(o.result.get("temp_c")) and isinstance(o.result.get("city"), str)]
    if len(weather) < 2 or not task.mentions("warm", "hot", "cold"):
        return []
    if task.mentions("cold"):
        word, best = "coldest", min(weather, key=lambda r: r["temp_c"])
    else:
        word, best = "warmest", max(weather, key=lambda r: r["temp_c"])
    return [f"So {best['city']} is the {word}, at {best['temp_c']} °C."]


def _pick(options: list[str], key: str) -> str:
    """One of several phrasings, the same every time for the same key (no randomness)."""
    digest = hashlib.sha256(key.encode("utf-8", "replace")).digest()
    return options[digest[0] % len(options)]


def _toolset(tool_names: list[str]) -> str:
    return ", ".join(tool_names[:12]) or "none"


def cannot_do(task: Task, tool_names: list[str]) -> str:
    """An honest answer when no tool fits: said in one of several ways."""
    if _is_small_talk(task):
        return small_talk(task, tool_names)
    if not tool_names:
        return _pick([
            "I can't answer that: I am the offline tutor, a small scripted model that answers "
            "by using tools, and this request gave me no tools.",
            "Sorry, that is beyond me. I answer by using tools, and I was given none here.",
            "I don't know how to do that. I only know what tools tell me, and I have none in "
            "this request, so I would rather say so than guess.",
        ], task.text[:2000])
    tools = _toolset(tool_names)
    return _pick([
        f"I can't answer that: I am the offline tutor, a small scripted model, and none of the "
        f"tools I was given ({tools}) fits this request.",
        f"Sorry, that is beyond me. I answer by using tools, and none of mine ({tools}) helps "
        "with this one.",
        f"I don't know how to do that. I only know what my tools ({tools}) tell me, and none "
        "of them covers it, so I would rather say so than guess.",
    ], task.text[:2000])


def _is_small_talk(task: Task) -> bool:
    return bool(re.match(r"\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you|"
                         r"how are you)\b", task.lower)) or task.mentions("joke", "funny")


def tools_declined(calls: list[tuple[str, str]], descriptions: dict[str, str]) -> str:
    """The answer when the request forbids tool calls (tool_choice "none") that the task needs.

    Example: [("get_weather", '{"city": "Paris"}')] -> "I was asked not to call any tools this
             time (tool_choice "none"), and I need them to find the weather in Paris: ..."
    """
    needs = _join(list(dict.fromkeys(
        purpose(name, arguments, descriptions.get(name, "")) for name, arguments in calls)))
    return (f'I was asked not to call any tools this time (tool_choice "none"), and I need '
            f"them to find {needs}: I only know what tools tell me, so I cannot answer yet.")


def small_talk(task: Task, tool_names: list[str]) -> str:
    """A short friendly reply to a greeting or a joke, saying what the tutor can do."""
    can = (f"I can answer questions my tools cover: {_toolset(tool_names)}." if tool_names
           else "I have no tools right now, so there is little I can look up.")
    if task.mentions("joke", "funny"):
        return "I'm not much of a comedian: I'm a small scripted model. " + can
    return "Hello! I'm the offline tutor, a small scripted model. " + can


def ask_for(tool: str, argument: str, description: str) -> str:
    """Example: ("get_forecast", "city", "The city's name.")
                -> "To use get_forecast I need the city (The city's name): which city do you mean?"
    """
    about = f" ({description.rstrip('.')})" * bool(description)
    return f"To use {tool} I need the {argument}{about}: which {argument} do you mean?"


def give_up(name: str, error: str) -> str:
    """What a model says after trying a call again and again against an error it cannot read."""
    if not error.strip():
        return (f"I tried {name} several times and nothing that came back said what to "
                "change, so I am giving up on it. I cannot answer this.")
    return (f"I tried {name} several times and it kept failing with \"{error[:100]}\", which "
            "does not say what to change, so I am giving up on it. I cannot answer this.")


# ---------------------------------------------------------------------------------------------
# Reasoning before acting


def thought(calls: list[tuple[str, str]], observations: list[Observation],
            descriptions: dict[str, str]) -> str:
    """A short sentence before tool calls: what the tutor needs, and which calls get it.

    Example: [("get_time", '{"timezone": "UTC"}'), ("calculate", '{"expression": "6 * 7"}')]
             -> "To answer, I need the current time and the value of 6 * 7, so I'll call
                 get_time and calculate."
    """
    needs = _join(list(dict.fromkeys(
        purpose(name, arguments, descriptions.get(name, "")) for name, arguments in calls)))
    tools = _join(list(dict.fromkeys(name for name, _ in calls)))
    if observations and observations[-1].error:
        return f"The last call failed ({observations[-1].error[:80]}), so now I'll call {tools}."
    if observations:
        return f"Next I need {needs}, so I'll call {tools}."
    return f"To answer, I need {needs}, so I'll call {tools}."


def purpose(name: str, arguments: str, description: str) -> str:
    """What a call is for, in a few words.

    Example: ("get_weather", '{"city": "Paris"}', "") -> "the weather in Paris"
             ("order_pizza", '{"count": 3}', "Order pizzas for delivery.")
             -> "to order pizzas for delivery"
    """
    values = [v for v in _arguments(arguments).values() if isinstance(v, (str, int, float))]
    about = " ".join(str(v) for v in values[:2])[:60]
    lower = name.lower()
    if re.search("time|clock", lower):
        return "the current time" + f" in {about}" * (bool(about) and about != "UTC")
    if re.search("calc|math|arithmetic", lower):
        return f"the value of {about or 'a sum'}"
    if "weather" in lower:
        return f"the weather in {about or 'a city'}"
    if "country" in lower:
        return f"the facts about {about or 'a country'}"
    summary = description.split(". ")[0].strip().rstrip(".")[:80]
    if summary:
        return "to " + summary[:1].lower() + summary[1:]
    return f"what {name} says"


def _arguments(arguments: str) -> dict:
    """A call's arguments, or {} when they are not a JSON object (a slip is explained too)."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(value, dict):
        return {}
    return value
