"""The protocols beyond native tool calls, read from the request alone (issue 22): ReAct and
code actions written in text, a schema written into the messages, structured output filled by
meaning, no call without its required fields, and no boilerplate taken for a place."""

import ast
import json

import pytest

from agentlab.server import complete
from agentlab.tutor import respond
from agentlab.tutor.text_protocols import read_protocol
from agentlab.tutor.words import Task

LLAMAINDEX_REACT = """You are designed to help with a variety of tasks.

## Tools

You have access to the following tools:
> Tool Name: get_weather
Tool Description: get_weather(city: str) -> dict
The current weather in a city.
Tool Args: {"properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"], \
"type": "object"}

> Tool Name: calculate
Tool Description: calculate(expression: str) -> float
Evaluate arithmetic.
Tool Args: {"properties": {"expression": {"type": "string"}}, "required": ["expression"], \
"type": "object"}

## Output Format

```
Thought: I need to use a tool to help me answer the question.
Action: tool name (one of get_weather, calculate) if using a tool.
Action Input: the input to the tool, in a JSON format representing the kwargs \
(e.g. {"input": "hello world", "num_beams": 5})
```
If this format is used, the tool will respond in the following format:
```
Observation: tool response
```
At that point, you MUST respond in one of the following two formats:
```
Thought: I can answer without using any more tools.
Answer: [your answer here]
```
"""

LANGCHAIN_REACT = """Answer the following questions as best you can. You have access to the \
following tools:

calculate: Evaluate an arithmetic expression.

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [calculate]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: What is 17 * 23?
Thought:"""

SMOLAGENTS_CODE = """You are an expert assistant who can solve any task using code blobs.
The code sequence must be opened with '<code>', and closed with '</code>'.
In the end you have to return a final answer using the `final_answer` tool.
You only have access to these tools, behaving like regular python functions:
<code>
def get_weather(city: string) -> object:
    \"\"\"The current weather in a city.

    Args:
        city: The city's name in English.
    \"\"\"

def final_answer(answer: any) -> any:
    \"\"\"Provides a final answer to the given problem.

    Args:
        answer: The final answer to the problem
    \"\"\"
</code>
Now Begin!"""


def ask(messages, **options):
    return respond("tutor", messages, **options)["content"]


def test_a_react_prompt_gets_one_action_then_the_answer_from_the_observation():
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": "What's the weather in Oslo?"}]
    first = ask(messages)
    assert first.startswith("Thought: ") and "Observation" not in first
    assert first.endswith('Action: get_weather\nAction Input: {"city": "Oslo"}')
    messages += [{"role": "assistant", "content": first},
                 {"role": "user", "content": "Observation: {'city': 'Oslo', 'temp_c': -3}"}]
    second = ask(messages)
    assert second.startswith("Thought: I can answer without using any more tools.\nAnswer: ")
    assert "-3" in second


@pytest.mark.parametrize("error, drops_it", [
    ("Error: no tool named search_web; use get_weather or calculate.", True),  # names it
    ("Error: the tool failed.", False),  # vague: the model cannot tell what to change
])
def test_a_react_action_for_a_tool_the_prompt_does_not_list_is_seen_with_its_error(error,
                                                                                  drops_it):
    # The hallucinator asks for search_web, which the prompt does not list: the agent's error
    # for it must reach the model, or it asks again forever (notebook 09's exercise checks
    # that a loop sends such an error back).
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": "What's the weather in Oslo?"}]
    for _ in range(3):
        reply = respond("tutor-hallucinator", messages)["content"]
        if "Action: search_web" not in reply:
            break
        messages += [{"role": "assistant", "content": reply},
                     {"role": "user", "content": f"Observation: {error}"}]
    asked = sum("Action: search_web" in m["content"] for m in messages)
    if drops_it:
        assert asked == 1 and reply.endswith('Action: get_weather\nAction Input: {"city": "Oslo"}')
    else:  # it gives up after two vague errors, and says what the error said
        assert asked == 2 and "Answer: " in reply and "the tool failed" in reply


def test_a_give_up_never_quotes_an_empty_error():
    # A review: after two unmarked, empty observations the hallucinator said it "kept failing
    # with \"\"", which is not what happened.
    from agentlab.tutor import answers

    said = answers.give_up("search_web", "")
    assert '""' not in said and "nothing that came back said what to change" in said
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": "What's the weather in Oslo?"}]
    for _ in range(3):
        reply = respond("tutor-hallucinator", messages)["content"]
        messages += [{"role": "assistant", "content": reply},
                     {"role": "user", "content": "Observation: "}]
    assert "Answer: " in reply and '""' not in reply


def test_a_langchain_scratchpad_is_continued_and_ends_with_final_answer():
    first = ask([{"role": "user", "content": LANGCHAIN_REACT}])
    assert first.startswith(" ") and "Action: calculate\nAction Input: " in first
    second = ask([{"role": "user", "content": LANGCHAIN_REACT + first
                   + "\nObservation: 391\nThought:"}])
    assert "Final Answer: " in second and "391" in second


def test_the_stop_sequence_cuts_the_reply_before_it():
    body = {"model": "tutor", "stop": ["\nAction Input"],
            "messages": [{"role": "system", "content": LLAMAINDEX_REACT},
                         {"role": "user", "content": "What's the weather in Oslo?"}]}
    content = complete(body)[0]["choices"][0]["message"]["content"]
    assert content.endswith("Action: get_weather")


def test_a_code_action_prompt_gets_a_snippet_then_final_answer():
    messages = [{"role": "system", "content": SMOLAGENTS_CODE},
                {"role": "user", "content": "New task:\nWhat's the weather in Oslo?"}]
    first = ask(messages)
    code = first.split("<code>\n")[1].split("\n</code>")[0]
    assert code == "print(get_weather(city='Oslo'))"
    ast.parse(code)
    messages += [{"role": "assistant", "content": first},
                 {"role": "user", "content": "Observation:\nExecution logs:\n{'city': 'Oslo', "
                                             "'temp_c': -3}\nLast output from code snippet:\nNone"}]
    second = ask(messages)
    code = second.split("<code>\n")[1].split("\n</code>")[0]
    assert code.startswith("final_answer(") and "-3" in code
    ast.parse(code)


def test_native_tools_are_never_read_as_a_text_protocol():
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    assert read_protocol([{"role": "system", "content": LLAMAINDEX_REACT}], tools) is None


@pytest.mark.parametrize("options, fenced", [
    ({"response_format": {"type": "json_object"}}, False),
    ({}, True),  # instructor's MD_JSON: no response_format, a fence asked for in the text
])
def test_a_schema_written_into_the_messages_gets_json_from_the_conversation(options, fenced):
    schema = {"properties": {"name": {"type": "string"}, "country": {"type": "string"},
                             "population_millions": {"type": "number"}},
              "required": ["name", "country", "population_millions"], "type": "object"}
    ask_text = "Tokyo is the capital of Japan, and about 14 million people live there."
    if fenced:
        ask_text += "\n\nReturn the correct JSON response within a ```json codeblock."
    content = ask([{"role": "system", "content": "Answer in json matching this json_schema: "
                    + json.dumps(schema, indent=2)},
                   {"role": "user", "content": ask_text}], **options)
    if fenced:
        assert content.startswith("```json\n") and content.endswith("\n```")
        content = content[len("```json\n"):-len("\n```")]
    assert json.loads(content) == {"name": "Tokyo", "country": "Japan",
                                   "population_millions": 14}


WEATHER_THEN_CONVERSION = [
    {"role": "user", "content": "What's the weather in Oslo, in Fahrenheit?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
     "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
    {"role": "tool", "tool_call_id": "a", "content": '{"city": "Oslo", "temp_c": 18}'},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "b", "type": "function",
     "function": {"name": "calculate", "arguments": '{"expression": "18 * 9 / 5 + 32"}'}}]},
    {"role": "tool", "tool_call_id": "b", "content": "64.4"}]


@pytest.mark.parametrize("fields, expected", [
    (["city", "fahrenheit"], {"city": "Oslo", "fahrenheit": 64.4}),
    (["city", "temp_f", "celsius"], {"city": "Oslo", "temp_f": 64.4, "celsius": 18}),
])
def test_a_field_named_for_a_unit_gets_the_value_in_that_unit(fields, expected):
    schema = {"type": "object", "additionalProperties": False, "required": fields,
              "properties": {f: {"type": "string" if f == "city" else "number"}
                             for f in fields}}
    content = ask(WEATHER_THEN_CONVERSION, response_format={"type": "json_schema", "json_schema": {
        "name": "W", "strict": True, "schema": schema}})
    assert json.loads(content) == expected


def _tool(name, properties):
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties, "required": list(properties)}}}


@pytest.mark.parametrize("tool, task", [
    (_tool("MathAnswer", {"answer": {"type": "number"}, "explanation": {"type": "string"}}),
     "What is 17 * 23?"),
    (_tool("Calc", {"result": {"type": "number"}, "steps": {"type": "array",
                                                            "items": {"type": "string"}}}),
     "What is 17 * 23?"),
    (_tool("Weather", {"city": {"type": "string"}, "temperature_c": {"type": "number"}}),
     "It is 18 degrees in Oslo. Give me the weather."),
])
@pytest.mark.parametrize("forced", [False, True])
def test_a_tool_named_like_a_class_is_called_with_every_required_field(tool, task, forced):
    name = tool["function"]["name"]
    choice = {"type": "function", "function": {"name": name}} if forced else None
    message = respond("tutor", [{"role": "user", "content": task}], [tool], choice)
    (call,) = message["tool_calls"]
    assert set(json.loads(call["function"]["arguments"])) == set(
        tool["function"]["parameters"]["required"])
    if name == "Weather":
        assert json.loads(call["function"]["arguments"]) == {"city": "Oslo",
                                                             "temperature_c": 18}


def test_a_lookup_tool_is_not_called_without_a_required_field_the_task_leaves_out():
    tool = _tool("get_weather", {"city": {"type": "string"},
                                 "date": {"type": "string", "description": "YYYY-MM-DD"}})
    message = respond("tutor", [{"role": "user", "content": "Weather in Oslo?"}], [tool])
    assert "tool_calls" not in message and "date" in message["content"]


@pytest.mark.parametrize("text, places", [
    ("What is the weather in Oslo? You MUST return the actual complete content as the final "
     "answer, not a summary.", ["Oslo"]),
    ("Give the City and the Format as OpenAPI says: the weather in Paris", ["Paris"]),
    ("Return the JSON_SCHEMA for Lima, NEVER prose.", ["Lima"]),
    ("Is it warm in Mexico City or the USA?", ["Mexico City", "USA"]),
])
def test_prompt_boilerplate_is_never_a_place(text, places):
    assert Task(text).places == places


DSPY_SYSTEM = """Your input fields are:
1. `question` (str): 
2. `trajectory` (str):
Your output fields are:
1. `next_thought` (str): 
2. `next_tool_name` (Literal['calculate', 'finish']): 
3. `next_tool_args` (dict[str, Any]):
All interactions will be structured in the following way, with the appropriate values filled in.
In adhering to this structure, your objective is:
        When selecting the next_tool_name and its next_tool_args, the tool must be one of:

        (1) calculate, whose description is <desc>Evaluate arithmetic.</desc>. It takes \
arguments {'expression': {'type': 'string'}}.
        (2) finish, whose description is <desc>Marks the task as complete.</desc>. It takes \
arguments {}."""


def test_dspy_fields_name_the_next_tool_then_finish():
    def user(trajectory):
        return {"role": "user", "content": "[[ ## question ## ]]\nWhat is 17 * 23?\n\n"
                f"[[ ## trajectory ## ]]\n{trajectory}\n\nRespond with the corresponding "
                "output fields, starting with the field `[[ ## next_thought ## ]]`"}

    first = ask([{"role": "system", "content": DSPY_SYSTEM}, user("")])
    assert "[[ ## next_tool_name ## ]]\ncalculate\n\n[[ ## next_tool_args ## ]]\n" in first
    assert first.endswith("[[ ## completed ## ]]")
    trajectory = ("[[ ## thought_0 ## ]]\nI need it.\n\n[[ ## tool_name_0 ## ]]\ncalculate\n\n"
                  '[[ ## tool_args_0 ## ]]\n{"expression": "17 * 23"}\n\n'
                  "[[ ## observation_0 ## ]]\n391")
    second = ask([{"role": "system", "content": DSPY_SYSTEM}, user(trajectory)])
    assert "[[ ## next_tool_name ## ]]\nfinish\n" in second


def test_tutor_base_invents_the_observation_unless_a_stop_sequence_ends_its_reply():
    messages = [{"role": "system", "content": LLAMAINDEX_REACT},
                {"role": "user", "content": "What's the weather in Oslo?"}]
    rambling = complete({"model": "tutor-base", "messages": messages})[0]
    text = rambling["choices"][0]["message"]["content"]
    assert "Action: get_weather" in text and "Observation: 42" in text and "Answer: 42" in text
    stopped = complete({"model": "tutor-base", "messages": messages, "stop": ["Observation:"]})[0]
    text = stopped["choices"][0]["message"]["content"]
    assert text.rstrip().endswith('Action Input: {"city": "Oslo"}')
    assert respond("tutor", messages)["content"] == text.rstrip()  # the same as a chat model's


@pytest.mark.parametrize("prompt", [
    "final_answer: opened with '<code>', and closed with '</code>'\n"
    + "def f(x: str) -> str:\n    '''never closed\n" * 25_000,
    "Your output fields are:\n1. `a` (str)\n[[ ## a ## ]]\n"
    + "(1) t, whose description is <desc>never closed\n" * 25_000,
    "Action: x\nAction Input: {\n" * 40_000,
], ids=["code stubs", "dspy tools", "react actions"])
def test_a_megabyte_of_unclosed_protocol_text_is_read_in_linear_time(prompt):
    """A bound far above the ~0.1 s it takes: a quadratic reading would take minutes."""
    import time

    start = time.perf_counter()
    respond("tutor", [{"role": "system", "content": prompt}, {"role": "user", "content": "hi"}])
    assert time.perf_counter() - start < 10


# --- linear time on 100 KB of hostile text, every reader a request goes through (issue 33) --
# A generous bound (5 s for what takes ~0.1 s), not a ratio: the old readers took 75 s
# ("Action: x" plus 100 KB of spaces), 30 s (40,000 required properties) or hours (the cubic
# "Action:" plus spaces), so a bound 50 times the new time still fails them by far, and the
# machine's load (1.5x here) cannot make a linear reader cross it.
SPACES = " \t" * 50_000  # 100 KB
REACT_SYSTEM = "> Tool Name: x\nTool Description: d\nTool Args: {}\n"
DSPY_HEAD = ("Your output fields are:\n1. `next_thought` (str)\n2. `next_tool_name` (str)\n"
             "3. `next_tool_args` (dict)\n[[ ## a ## ]]\n")


@pytest.mark.parametrize("messages", [
    [{"role": "user", "content": "Action:" + SPACES}],
    [{"role": "user", "content": "Action:" + SPACES + "\nAction Input: {}"}],
    [{"role": "user", "content": "Action: x" + SPACES}],
    [{"role": "user", "content": "Action:" + SPACES + "x" + SPACES + "\nAction Input:" + SPACES}],
    [{"role": "system", "content": REACT_SYSTEM},
     {"role": "user", "content": "Action: x\nAction Input: {}\nObservation" + SPACES}],
    [{"role": "system", "content": REACT_SYSTEM},
     {"role": "user", "content": "Action: x\nAction Input: {}\n" * 4_000}],
    [{"role": "system", "content": REACT_SYSTEM}, {"role": "user", "content": "Observation:"
                                                   + ("Thought" + " \t" * 200 + "\n") * 240}],
    [{"role": "system", "content": DSPY_HEAD
      + "(1) t, whose description is <desc>" * 3_000}],
    [{"role": "system", "content": DSPY_HEAD + ("(1) t, whose description is <desc>d</desc>. "
                                                "It takes arguments {" + "} " * 200 + "\n") * 200}],
    [{"role": "system", "content": "final_answer: opened with '<code>', and closed with "
      "'</code>'\ndef f(" + "a: str, " * 12_000 + ") -> str:\n    '''" + "a: x\n" * 800 + "'''"}],
    [{"role": "system", "content": REACT_SYSTEM + "Tool Args: " + "{" * 100_000}],
    [{"role": "user", "content": '{"a": ' * 200 + '"' + "x" * 100_000}],
    # issue 32's readers: a transcript, agno's tags, keys named in words, units, names
    [{"role": "user", "content": "<current_conversation>" + "<user><message>" * 7_000}],
    [{"role": "user", "content": "<current_conversation>" + "<tool>" * 16_000
      + "</tool>" + "</current_conversation>"}],
    [{"role": "system", "content": "<json_fields>" * 8_000 + "</json_fields>"}],
    [{"role": "system", "content": "keys 'a' " * 11_000}],
    [{"role": "user", "content": "°C Å " * 20_000}],
    [{"role": "user", "content": "Zu\u0308" * 33_000}],
    [{"role": "user", "content": '{"properties": {"a": {"title": "A"}}} ' * 2_500}],
    [{"role": "system", "content": "not ```json " * 8_000}],
], ids=["action-spaces", "action-spaces-input", "action-x-spaces", "action-input-spaces",
        "observation-spaces", "4000-actions", "thought-spaces", "dspy-unclosed-descriptions",
        "dspy-brace-runs", "stub-12000-parameters", "nested-braces",
        "written-schema-unterminated", "transcript-unclosed", "transcript-tools",
        "json-fields-unclosed", "keys-in-words", "units", "combining-marks", "many-schemas",
        "negated-fences"])
def test_every_reader_takes_linear_time_on_100_kb_of_hostile_text(messages):
    import time

    messages = messages + [{"role": "user", "content": "What is the weather in Oslo?"}]
    start = time.perf_counter()
    respond("tutor", messages)
    respond("tutor", messages, response_format={"type": "json_object"})
    complete({"model": "tutor", "messages": messages})
    assert time.perf_counter() - start < 5


def test_the_written_schema_search_reads_each_character_a_bounded_number_of_times(monkeypatch):
    """Counted, not timed: 200 '{' that each start an object running into one string never
    closed. Before, each try read to the end again (200 reads of the text)."""
    import json as json_module

    from agentlab.tutor import structured

    read = []

    class Counting(json_module.JSONDecoder):
        def raw_decode(self, s, idx=0):
            read.append(len(s) - idx)  # at most this much is read from idx
            return super().raw_decode(s, idx)

    monkeypatch.setattr(structured.json, "JSONDecoder", Counting)
    text = '{"a": ' * 200 + '"' + "x" * 100_000
    assert structured.schema_in_messages([{"role": "user", "content": text}]) is None
    assert sum(read) <= 3 * len(text) + 100_000, (len(read), sum(read))
    found = structured.schema_in_messages([{"role": "user", "content": "{x} {y} " * 50 + '{"p'
                                            'roperties": {"a": {"type": "string"}}}'}])
    assert found == {"properties": {"a": {"type": "string"}}}  # placeholders first: still found
