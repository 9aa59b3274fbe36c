"""The offline tutor: deterministic answers to the course's tasks and to students' own tools."""

import enum
import json
from typing import Literal

import pytest

from agentlab import Limits, run_agent, tool
from agentlab.toolkit import COURSE_TOOLS
from agentlab.tutor import (PERSONAS, VERBOSE_TOKENS, count_tokens, message_tokens, respond,
                            text_tokens, think_seconds)

SCHEMAS = [t.schema for t in COURSE_TOOLS]


def ask(task, tools=SCHEMAS, model="tutor"):
    return respond(model, [{"role": "user", "content": task}], tools)


def calls(message):
    return [(c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in message.get("tool_calls", [])]


def test_the_chapter_question_uses_both_tools_in_parallel():
    assert calls(ask("What time is it, and what is 17 * 23 + sqrt(144)?")) == [
        ("get_time", {"timezone": "UTC"}), ("calculate", {"expression": "17 * 23 + sqrt(144)"})]


@pytest.mark.parametrize("task, expected", [
    ("What's the weather in Paris, and should I take a coat?",
     [("get_weather", {"city": "Paris"})]),
    ("Is it colder in Oslo or in New York?", [("get_weather", {"city": "Oslo"}),
                                              ("get_weather", {"city": "New York"})]),
    ("What time is it in Tokyo?", [("get_time", {"timezone": "Asia/Tokyo"})]),
    ("What is the capital of Kenya?", [("lookup_country", {"country": "Kenya"})]),
    ("Compute 2^10 please", [("calculate", {"expression": "2**10"})]),
])
def test_it_plans_the_calls_a_task_needs(task, expected):
    assert calls(ask(task)) == expected


def test_multi_step_tasks_chain_results():
    run = run_agent("What's the weather in the capital of Peru, in Fahrenheit?", COURSE_TOOLS)
    assert [[c.name for c in s.tool_calls] for s in run.steps] == [
        ["lookup_country"], ["get_weather"], ["calculate"], []]
    assert run.answer == ("The capital of Peru is Lima (population 34.4 million, currency PEN). "
                          "It's 19 °C and overcast in Lima. That is 66.2 °F.")


def test_comparisons():
    run = run_agent("Is it warmer in the capital of Japan or the capital of France?", COURSE_TOOLS)
    assert len(run.steps) == 3 and len(run.steps[1].tool_calls) == 2
    assert run.answer.endswith("So Tokyo is the warmest, at 15 °C.")


def test_it_uses_tools_a_student_defines():
    class Size(enum.Enum):
        SMALL = "small"
        LARGE = "large"

    @tool
    def order_pizza(topping: str, count: int, size: Size,
                    crust: Literal["thin", "thick"] = "thin") -> dict:
        """Order pizzas for delivery.

        Args:
            topping: The topping, e.g. "mushroom".
            count: How many pizzas.
            size: Pizza size.
            crust: Crust style.
        """
        return {"ordered": count, "topping": topping, "size": size.value, "crust": crust}

    run = run_agent('Please order 3 large pizzas with "mushroom" on a thick crust', [order_pizza])
    assert json.loads(run.tool_calls[0].arguments) == {
        "topping": "mushroom", "count": 3, "size": "large", "crust": "thick"}
    assert run.answer == ("order_pizza returned ordered 3, topping mushroom, size large and "
                          "crust thick.")  # a sentence built from the result, not its JSON


def test_it_answers_honestly_when_no_tool_fits():
    tasks = ["Write me a poem about autumn", "What is the meaning of life?",
             "Translate this into French", "Who won the match yesterday?", "Draw a cat"]
    replies = [ask(task) for task in tasks]
    assert all("tool_calls" not in r for r in replies)
    assert all("calculate, get_time, get_weather, lookup_country" in r["content"] for r in replies)
    assert len({r["content"] for r in replies}) > 1  # varied, not one canned line
    assert replies == [ask(task) for task in tasks]  # and still deterministic
    assert "none" in ask("What is the meaning of life?", tools=[])["content"]


@pytest.mark.parametrize("task", ["Hello!", "hi there", "Thanks!", "Tell me a joke"])
def test_small_talk_gets_a_short_friendly_reply_that_says_what_it_can_do(task):
    reply = ask(task)["content"]
    assert len(reply) < 200 and "calculate, get_time" in reply
    assert reply.startswith(("Hello!", "I'm not much of a comedian"))


def test_tool_choice_none_means_answer_now():
    messages = [{"role": "user", "content": "What is 6 * 7?"}]
    assert "tool_calls" not in respond("tutor", messages, SCHEMAS, tool_choice="none")


def test_it_is_deterministic():
    task = "Is it warmer in the capital of Japan or the capital of France?"
    assert run_agent(task, COURSE_TOOLS).messages == run_agent(task, COURSE_TOOLS).messages


def test_token_rule():
    assert text_tokens("") == 0 and text_tokens("abcd") == 1 and text_tokens("abcde") == 2
    assert message_tokens({"role": "user", "content": "abcdefgh"}) == 4 + 2
    messages = [{"role": "system", "content": "x" * 40}, {"role": "user", "content": "y" * 8}]
    assert count_tokens(messages, None) == 3 + (4 + 10) + (4 + 2)
    assert count_tokens(messages, SCHEMAS) == (count_tokens(messages, None)
                                               + text_tokens(json.dumps(SCHEMAS)))


def test_personas_misbehave_as_documented():
    coat = "What's the weather in Paris, and should I take a coat?"
    assert calls(ask(coat, model="tutor-hallucinator"))[0][0] == "search_web"
    sloppy = ask(coat, model="tutor-sloppy")["tool_calls"][0]["function"]["arguments"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(sloppy)
    verbose = ask(coat, model="tutor-verbose")
    assert len(verbose["content"]) == 4 * VERBOSE_TOKENS and verbose["tool_calls"]


def test_it_asks_for_an_argument_the_task_leaves_out():
    @tool
    def get_forecast(city: str, days: int = 3) -> dict:
        """Get the weather forecast for a city.

        Args:
            city: The city's name.
            days: How many days ahead.
        """
        return {"city": city, "days": days}

    run = run_agent("What is the weather forecast for tomorrow?", [get_forecast])
    assert run.tool_calls == []
    assert run.answer == ("To use get_forecast I need the city (The city's name): "
                          "which city do you mean?")
    run = run_agent("What is the weather forecast for Oslo?", [get_forecast])
    assert json.loads(run.tool_calls[0].arguments) == {"city": "Oslo"}  # days keeps its default


def test_free_text_arguments_get_the_request():
    @tool
    def search_notes(query: str) -> list:
        """Search my notes."""
        return ["pizza dough: 500 g flour"]

    run = run_agent("search my notes about pizza", [search_notes])
    assert json.loads(run.tool_calls[0].arguments) == {"query": "search my notes about pizza"}
    assert "pizza dough" in run.answer


def test_a_cut_result_is_read_for_the_fields_that_survived():
    run = run_agent("What's the weather in Paris, and should I take a coat?", COURSE_TOOLS,
                    limits=Limits(max_result_chars=40))
    assert "[truncated:" in run.tool_calls[0].result  # the loop cut '..."rain": true, ...'
    assert run.answer == "It's 8 °C in Paris -- yes, take a coat."
    cut = '{"temp_c": 1' + "\n...[truncated: 80 of 92 characters cut]"  # 1? 12? 19? unknown
    messages = [{"role": "user", "content": "weather in Oslo?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "a", "type": "function",
                     "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
                {"role": "tool", "tool_call_id": "a", "content": cut}]
    assert "1 °C" not in respond("tutor", messages, SCHEMAS)["content"]  # a cut number is not read


@pytest.mark.parametrize("task, expected", [
    ("what's the weather in paris?", [("get_weather", {"city": "Paris"})]),
    ("is it colder in oslo or in new york?", [("get_weather", {"city": "Oslo"}),
                                              ("get_weather", {"city": "New York"})]),
    ("what is the capital of kenya?", [("lookup_country", {"country": "Kenya"})]),
    ("what time is it in tokyo?", [("get_time", {"timezone": "Asia/Tokyo"})]),
])
def test_names_match_regardless_of_case(task, expected):
    assert calls(ask(task)) == expected


def test_the_tutor_knows_only_the_request():
    """No import of the toolkit's data, the loop or any other part of agentlab."""
    import ast
    import pathlib

    import agentlab.tutor

    for path in pathlib.Path(agentlab.tutor.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1, f"{path.name} imports from outside the tutor"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any("agentlab" in n or "toolkit" in n for n in names), path.name


def test_the_slow_persona_carries_its_own_delay():
    assert think_seconds("tutor-slow") == 1.0
    assert {think_seconds(name) for name in PERSONAS if name != "tutor-slow"} == {0.0}


# --- a framework's framing of the task (outside review: smolagents sends "New task:\n...") ---

@pytest.mark.parametrize("task, expected", [
    ("New task:\nWhat's the weather in Paris, and should I take a coat?",
     [("get_weather", {"city": "Paris"})]),
    ("Task: What's the weather in Paris?", [("get_weather", {"city": "Paris"})]),
    ("New task:\nWhat is the capital of Japan, and what is the weather there?",
     [("lookup_country", {"country": "Japan"})]),
    # A name at the start of a sentence is still a name when the task offers no other reading,
    # begins a list, or has several capitalised words.
    ("Oslo. What's the weather like?", [("get_weather", {"city": "Oslo"})]),
    ("Oslo or Paris: where is it warmer?", [("get_weather", {"city": "Oslo"}),
                                           ("get_weather", {"city": "Paris"})]),
    ("New York is cold; is Paris warmer?", [("get_weather", {"city": "New York"}),
                                            ("get_weather", {"city": "Paris"})]),
    # Framing is not a place when the task names anything else: the heading, then the label.
    ("Task: Paris weather?", [("get_weather", {"city": "Paris"})]),
    ("New task:\nParis: is it raining?", [("get_weather", {"city": "Paris"})]),
    ("Paris: is it raining?", [("get_weather", {"city": "Paris"})]),
    # A name that starts a sentence is kept beside a surer one (a review: "Lima! Is it warm in
    # summer?" lost Lima to "summer", a comparison lost its first city).
    ("Lima! Is it warm in summer?", [("get_weather", {"city": "Lima"}),
                                     ("get_weather", {"city": "Summer"})]),
    ("Oslo has long winters. Is it colder there than in Paris?",
     [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Paris"})]),
])
def test_framing_is_not_a_place_but_a_name_that_starts_a_sentence_is(task, expected):
    assert calls(ask(task)) == expected


def test_the_course_tasks_framed_as_smolagents_frames_them_get_their_answers():
    for task, answer in [
        ("What's the weather in Paris, and should I take a coat?",
         "It's 8 °C and light rain in Paris -- yes, take a coat and something waterproof."),
        ("What is the capital of Japan, and what is the weather there?",
         "The capital of Japan is Tokyo (population 124.5 million, currency JPY). "
         "It's 15 °C and clear in Tokyo."),
    ]:
        assert run_agent("New task:\n" + task, COURSE_TOOLS).answer == answer


# --- tool results sent as Python prints them (the Agents SDK sends str() of a dict) ----------

def weather_result(content):
    """The Paris weather task after one get_weather call whose result is `content`."""
    return [{"role": "user", "content": "What's the weather in Paris, and should I take a coat?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": content}]


def test_a_tool_result_printed_by_python_is_read_as_data():
    as_json = respond("tutor", weather_result(
        '{"city": "Paris", "temp_c": 8, "conditions": "rain", "rain": true}'), SCHEMAS)
    as_repr = respond("tutor", weather_result(
        "{'city': 'Paris', 'temp_c': 8, 'conditions': 'rain', 'rain': True}"), SCHEMAS)
    assert as_repr == as_json
    assert as_repr["content"] == (
        "It's 8 °C and rain in Paris -- yes, take a coat and something waterproof.")


@pytest.mark.parametrize("content", ["None", "", "null", "  "])
def test_a_tool_that_returned_nothing_is_said_to_have_returned_nothing(content):
    reply = respond("tutor", weather_result(content), SCHEMAS)
    assert reply["content"] == "get_weather returned nothing, so I have no answer from it."
    assert "tool_calls" not in reply  # it does not ask again for what came back empty
