"""What the tutor takes for a name (issue 32): names in any script, natively and in every text
protocol; units never names; a tool's plugin prefix never read as what the tool does."""

import json

import pytest

from agentlab.tutor import respond
from agentlab.tutor.words import Task
from test_tutor_text_protocols import LLAMAINDEX_REACT, SMOLAGENTS_CODE

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
# An adversarial review's names: accents, two words, Cyrillic, Chinese characters, Arabic,
# Greek, Hindi (whose vowel signs are combining marks), Korean, a decomposed "ü" (u + U+0308).
NAMES = ["Zürich", "São Paulo", "Kraków", "Москва", "東京", "القاهرة", "Αθήνα", "मुंबई",
         "서울", "Zu\u0308rich", "Reykjavík", "Île-de-France"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sentence", ["What's the weather in {}?", "Is it cold in {} today?",
                                      "{} weather, please."])
def test_a_name_in_any_script_is_read_whole(name, sentence):
    """Before: Zürich became "Z", São Paulo "S" and "Paulo", Москва nothing at all."""
    assert Task(sentence.format(name)).places == [name]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_in_any_script_is_called_for_natively(name):
    message = respond("tutor", [{"role": "user", "content": f"What's the weather in {name}?"}],
                      [WEATHER])
    (call,) = message["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"city": name}


DSPY_WEATHER = """Your input fields are:
1. `question` (str):
2. `trajectory` (str):
Your output fields are:
1. `next_thought` (str):
2. `next_tool_name` (Literal['get_weather', 'finish']):
3. `next_tool_args` (dict[str, Any]):
All interactions will be structured in the following way, with the appropriate values filled in.
        (1) get_weather, whose description is <desc>The current weather in a city.</desc>. It \
takes arguments {'city': {'type': 'string'}}.
        (2) finish, whose description is <desc>Marks the task as complete.</desc>. It takes \
arguments {}."""
SCHEMA_IN_PROMPT = ("Answer in json matching this json_schema: " + json.dumps(
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))


def _react(name):
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": f"What's the weather in {name}?"}]
    text = respond("tutor", messages)["content"]
    return json.loads(text.split("Action Input:")[1])["city"]


def _code(name):
    messages = [{"role": "system", "content": SMOLAGENTS_CODE},
                {"role": "user", "content": f"New task:\nWhat's the weather in {name}?"}]
    text = respond("tutor", messages)["content"]
    return text.split("get_weather(city=")[1].split(")")[0].strip("'\"")


def _dspy(name):
    messages = [{"role": "system", "content": DSPY_WEATHER},
                {"role": "user", "content": f"[[ ## question ## ]]\nWhat's the weather in {name}?"
                 "\n\n[[ ## trajectory ## ]]\n\n\nRespond with the corresponding output fields"}]
    text = respond("tutor", messages)["content"]
    return json.loads(text.split("[[ ## next_tool_args ## ]]\n")[1].split("\n\n")[0])["city"]


def _schema_in_prompt(name):
    messages = [{"role": "system", "content": SCHEMA_IN_PROMPT},
                {"role": "user", "content": f"The city is {name}."}]
    return json.loads(respond("tutor", messages)["content"])["city"]


@pytest.mark.parametrize("protocol", [_react, _code, _dspy, _schema_in_prompt],
                         ids=["react", "code actions", "dspy", "schema in the prompt"])
@pytest.mark.parametrize("name", ["Zürich", "São Paulo", "Kraków", "Москва", "東京"])
def test_a_name_in_any_script_survives_every_text_protocol(protocol, name):
    assert protocol(name) == name


@pytest.mark.parametrize("text, places", [
    ("It's 18 °C and clear in Oslo.", ["Oslo"]),
    ("It's 64.4°F in Lima, 18 C in Rome.", ["Lima", "Rome"]),
    ("What is the temperature in F in Paris?", ["Paris"]),
    ("Is it cold in Å today?", ["Å"]),  # a one-letter name that is no unit stays a name
    ("18 C Oslo is warm", ["Oslo"]),  # a unit before a name leaves the name
    ("Plan C is ready", ["Plan C"]),  # a letter that follows no number is no unit
])
def test_a_unit_is_never_a_name(text, places):
    """Before: "°C" gave the name "C" (conditions='C' in 8 clients, CrewAI's city='C')."""
    assert Task(text).places == places


PLUGIN_TOOLS = [  # Semantic Kernel names each function "<plugin>-<function>"
    {"type": "function", "function": {"name": "TimePlugin-get_time",
                                      "description": "Get the current time in UTC.",
                                      "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "WeatherPlugin-calculate", "description": "Evaluate an arithmetic expression.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                       "required": ["expression"]}}},
    {"type": "function", "function": {
        "name": "WeatherPlugin-get_weather", "description": "Get the current weather.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
]


def test_a_plugin_prefix_is_read_as_the_tool_it_names():
    """Before: "TimePlugin-get_time" was an answer class (capitalised) and
    "WeatherPlugin-calculate" a weather service: every Semantic Kernel run failed."""
    task = "What time is it, what is 17 * 23, and what's the weather in Oslo?"
    message = respond("tutor", [{"role": "user", "content": task}], PLUGIN_TOOLS)
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
             for c in message["tool_calls"]]
    assert calls == [("WeatherPlugin-get_weather", {"city": "Oslo"}),
                     ("TimePlugin-get_time", {}),
                     ("WeatherPlugin-calculate", {"expression": "17 * 23"})]


@pytest.mark.parametrize("city, zone", [
    ("São Paulo", "America/Sao_Paulo"), ("Zürich", "Europe/Zurich"),
    ("Zu\u0308rich", "Europe/Zurich"), ("東京", "UTC")])
def test_a_clock_is_asked_for_the_zone_of_a_city_written_with_accents(city, zone):
    """IANA writes its zones without accents: before, São Paulo's time was asked in UTC."""
    clock = {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"timezone": {"type": "string"}}}}}
    message = respond("tutor", [{"role": "user", "content": f"What time is it in {city}?"}],
                      [clock])
    (call,) = message["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"timezone": zone}
