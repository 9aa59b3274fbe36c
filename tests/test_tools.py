"""@tool schemas, and the Toolbox gate: every bad request becomes an error the model can read."""

import enum
import json
import threading
import time
import warnings
from typing import Any, Literal, Optional

import pytest

from agentlab.tools import Deny, RepeatGuard, Tool, Toolbox, tool, truncate


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@tool
def forecast(city: str, days: int = 3, unit: Unit = Unit.CELSIUS, hourly: bool = False,
             tags: Optional[list[str]] = None, mode: Literal["fast", "exact"] = "fast",
             ratio: float = 1.0) -> dict:
    """Forecast the weather.

    Longer text that is not the summary.

    Args:
        city: The city's name.
        days: How many days ahead,
            counted from today.
        unit: Temperature unit.
    """
    return {"city": city, "days": days, "unit": unit.value, "hourly": hourly, "tags": tags}


def test_schema_from_signature_and_docstring():
    spec = forecast.schema["function"]
    assert spec["name"] == "forecast"
    assert spec["description"] == "Forecast the weather."
    params = spec["parameters"]
    assert params["type"] == "object"  # the API refuses parameters that are not an object
    assert params["required"] == ["city"]
    assert params["additionalProperties"] is False
    props = params["properties"]
    assert props["city"] == {"type": "string", "description": "The city's name."}
    assert props["days"] == {"type": "integer", "default": 3,
                             "description": "How many days ahead, counted from today."}
    assert props["unit"]["enum"] == ["celsius", "fahrenheit"]
    assert props["hourly"]["type"] == "boolean"
    assert props["tags"] == {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
    assert props["mode"] == {"enum": ["fast", "exact"], "type": "string", "default": "fast"}
    assert props["ratio"]["type"] == "number"


def test_rest_style_docstrings_and_name_override():
    @tool(name="add_up", description="Add two numbers.")
    def add(a: int, b: int) -> int:
        """Sum.

        :param a: first number
        :param b: second number
        """
        return a + b

    spec = add.schema["function"]
    assert spec["name"] == "add_up" and spec["description"] == "Add two numbers."
    assert spec["parameters"]["properties"]["a"]["description"] == "first number"
    assert spec["parameters"]["properties"]["b"]["description"] == "second number"
    assert add(2, 3) == 5 and add(a=2, b=3) == 5  # still a plain function


def test_a_rest_params_description_goes_on_over_its_indented_lines():
    @tool
    def convert(amount: float, unit: str) -> str:
        """Convert an amount.

        :param amount: how much, a number
            that may have decimals.
        :param str unit: "C" or "F"
        :returns: the converted amount,
            as text.
        """
        return f"{amount}{unit}"

    properties = convert.schema["function"]["parameters"]["properties"]
    assert properties["amount"]["description"] == "how much, a number that may have decimals."
    assert properties["unit"]["description"] == '"C" or "F"'  # :returns: is not a parameter's


def test_untyped_or_unsupported_arguments_are_refused_at_definition():
    with pytest.raises(TypeError, match="needs a type hint"), \
            pytest.warns(UserWarning, match="has no docstring"):  # a lambda has none either
        tool(lambda x: x)
    with pytest.raises(TypeError, match=r"cannot take \*args"):
        @tool
        def g(*args: int) -> None:
            """G."""


def call(box, name, arguments, **kwargs):
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return box.call(name, text, **kwargs)


def test_enum_arguments_arrive_as_members():
    outcome = call(Toolbox([forecast]), "forecast", {"city": "Oslo", "unit": "fahrenheit"})
    assert outcome.error is None
    assert json.loads(outcome.content)["unit"] == "fahrenheit"


@pytest.mark.parametrize("name, arguments, message", [
    ("rm_rf", {}, "unknown tool 'rm_rf'; the tools you can use are: forecast"),
    ("forecast", '{"city": "Oslo"', "not valid JSON"),
    ("forecast", "[1, 2]", "must be a JSON object, not list"),
    ("forecast", {}, "the arguments must contain ['city'] properties"),
    ("forecast", {"city": "Oslo", "colour": "red"}, "the arguments must not contain {'colour'} properties"),
    ("forecast", {"city": 7}, "argument 'city' must be string"),
    ("forecast", {"city": "Oslo", "days": "3"}, "argument 'days' must be integer"),
    ("forecast", {"city": "Oslo", "days": True}, "argument 'days' must be integer"),
    ("forecast", {"city": "Oslo", "unit": "kelvin"}, "argument 'unit' must be one of ['celsius', 'fahrenheit']"),
])
def test_bad_requests_become_error_observations(name, arguments, message):
    outcome = call(Toolbox([forecast]), name, arguments)
    assert message in outcome.error
    assert json.loads(outcome.content) == {"error": outcome.error}


def test_exceptions_go_back_to_the_model():
    @tool
    def explode(n: int) -> int:
        """Explode."""
        raise RuntimeError(f"boom {n}")

    outcome = call(Toolbox([explode]), "explode", {"n": 3})
    assert outcome.error == "explode failed: RuntimeError: boom 3"


def test_a_hanging_tool_is_abandoned_after_its_timeout():
    release = threading.Event()

    @tool
    def hang() -> str:
        """Hang."""
        release.wait(30)
        return "finally"

    outcome = call(Toolbox([hang]), "hang", {}, timeout=0.05)
    release.set()
    assert outcome.error == "hang did not finish within 0.05 s and was abandoned"


def test_a_tool_raising_timeouterror_is_not_mistaken_for_our_timeout():
    @tool
    def flaky() -> str:
        """Flaky."""
        raise TimeoutError("upstream timed out")

    outcome = call(Toolbox([flaky]), "flaky", {}, timeout=5)
    assert outcome.error == "flaky failed: TimeoutError: upstream timed out"


def test_results_are_json_or_text():
    class Opaque:
        def __str__(self):
            return "<opaque thing>"

    @tool
    def things(kind: str) -> object:
        """Things."""
        return {"json": {"a": [1, 2]}, "text": "plain words", "opaque": Opaque(),
                "nan": float("nan")}[kind]

    box = Toolbox([things])
    assert call(box, "things", {"kind": "json"}).content == '{"a": [1, 2]}'
    assert call(box, "things", {"kind": "text"}).content == "plain words"
    assert call(box, "things", {"kind": "opaque"}).content == "<opaque thing>"
    assert call(box, "things", {"kind": "nan"}).content == "nan"  # not invalid JSON "NaN"


def test_long_results_are_cut_with_a_visible_marker():
    text, cut = truncate("x" * 10_000, 4000)
    assert cut == 6000
    assert text.startswith("x" * 4000)
    assert text.endswith("[truncated: 6,000 of 10,000 characters cut]")
    assert truncate("short", 4000) == ("short", 0)
    assert truncate("x" * 10_000, None) == ("x" * 10_000, 0)


def test_repeat_guard_counts_identical_calls_in_a_row():
    guard = RepeatGuard(2)
    assert guard.check("f", {"a": 1}) is None
    assert guard.check("f", {"a": 1}) is None
    assert "not run again" in guard.check("f", {"a": 1})
    assert guard.check("f", {"a": 2}) is None  # different arguments reset the count
    assert guard.check("f", {"a": 1}) is None
    off = RepeatGuard(None)
    assert all(off.check("f", {}) is None for _ in range(10))


@pytest.mark.parametrize("verdict, reason", [
    (True, None), (False, "denied by the approval hook"),
    (None, "the approval hook returned None, so the call was not run (a hook returns True to "
           "allow a call)"),  # a forgotten `return` fails closed
    (Deny("no deleting"), "no deleting"), ("ask a human first", "ask a human first"),
])
def test_approval_hook(verdict, reason):
    ran = []

    @tool
    def act(x: int) -> int:
        """Act."""
        ran.append(x)
        return x

    seen = []
    outcome = call(Toolbox([act]), "act", {"x": 1}, approve=lambda n, a: seen.append((n, a)) or verdict)
    assert seen == [("act", {"x": 1})]
    assert outcome.denied == reason
    assert ran == ([] if reason else [1])


def test_a_broken_approval_hook_fails_closed():
    def hook(name, arguments):
        raise KeyError("oops")

    outcome = call(Toolbox([forecast]), "forecast", {"city": "Oslo"}, approve=hook)
    assert "approval hook failed (KeyError: 'oops')" in outcome.error


def test_the_chapters_two_dict_shape():
    schemas = [{"type": "function", "function": {
        "name": "double", "description": "Double it.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}]
    box = Toolbox.of((schemas, {"double": lambda n: {"result": 2 * n}}))
    assert box.schemas == schemas
    assert call(box, "double", {"n": 21}).content == '{"result": 42}'
    assert "must contain ['n'] properties" in call(box, "double", {}).error
    with pytest.raises(ValueError, match="has no implementation"):
        Toolbox(schemas, {})
    flat = [schemas[0]["function"]]  # the function's part alone, as older code writes it
    assert call(Toolbox.of((flat, {"double": lambda n: 2 * n})), "double", {"n": 4}).content == "8"
    bare = Toolbox.of(([{"name": "now"}], {"now": lambda: "noon"}))  # a name and nothing more
    assert bare.schemas[0]["function"] == {"name": "now", "description": "", "parameters": {
        "type": "object", "properties": {}}}
    assert call(bare, "now", {}).content == "noon"


def test_plain_functions_become_tools():
    def shout(text: str) -> str:
        """Shout it."""
        return text.upper()

    box = Toolbox.of([shout])
    assert isinstance(box.tools["shout"], Tool)
    assert call(box, "shout", {"text": "hi"}).content == "HI"


def test_docstring_sections_after_args_are_not_arguments():
    @tool
    def area(width: float, height: float) -> float:
        """Area of a rectangle.

        Args:
            width (float): Width in metres,
                measured inside the walls.
            height: Height in metres.

        Returns:
            result: the area in square metres.
        """
        return width * height

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Returns:" ends the arguments: no unknown ones
        tool(area.function)
    props = area.schema["function"]["parameters"]["properties"]
    assert props["width"]["description"] == "Width in metres, measured inside the walls."
    assert props["height"]["description"] == "Height in metres."
    assert set(props) == {"width", "height"}


def test_a_result_json_has_no_type_for_still_reads_as_one_json_document():
    import datetime

    from agentlab.tools import to_text

    when = datetime.datetime(2026, 3, 14, 15, 9)
    assert json.loads(to_text({"now": when})) == {"now": "2026-03-14 15:09:00"}
    assert to_text({"x": float("nan")}) == "{'x': nan}"  # no JSON for NaN: plain str()
    assert to_text({"city": "Zürich"}) == '{"city": "Zürich"}'  # read as written, not \u00fc


def test_every_type_a_tool_takes_has_its_schema():
    @tool
    def takes(data: dict, anything: Any, things: list, either: int | str,
              maybe: Optional[int] = None) -> None:
        """Take them all."""

    props = takes.schema["function"]["parameters"]["properties"]
    assert props["data"] == {"type": "object"}
    assert props["anything"] == {}  # any JSON value
    assert props["things"] == {"type": "array", "items": {}}
    assert props["either"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}  # no null
    assert props["maybe"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


@pytest.mark.parametrize("hint", [complex, list[complex], Optional[complex], Literal[b"raw"]])
def test_an_unsupported_type_is_refused_naming_the_function_and_argument(hint):
    def f(x): ...
    f.__annotations__ = {"x": hint}
    f.__doc__ = "F."
    with pytest.raises(TypeError, match=r"^f\(x\): a tool cannot take"):
        tool(f)


def test_an_enum_argument_left_out_gets_its_default_member():
    outcome = call(Toolbox([forecast]), "forecast", {"city": "Oslo"})
    assert outcome.error is None and json.loads(outcome.content)["unit"] == "celsius"


@pytest.mark.parametrize("header", ["Args:", "Arguments:", "Parameters:"])
def test_each_name_of_the_arguments_section_is_read(header):
    def speak(text: str) -> str:
        return text

    speak.__doc__ = f"Say it.\n\n{header}\n    text: What to say.\n"
    assert tool(speak).parameters["properties"]["text"]["description"] == "What to say."


def test_an_arguments_section_written_as_prose_still_makes_a_tool():
    @tool
    def speak(text: str) -> str:
        """Say it.

        Args:
            Whatever text the user gave.
        """
        return text

    assert speak.parameters["properties"]["text"] == {"type": "string"}


def test_a_tool_is_still_a_plain_function_with_positional_and_keyword_arguments():
    assert forecast("Oslo", days=2, unit=Unit.FAHRENHEIT)["days"] == 2
    assert forecast("Oslo", unit=Unit.FAHRENHEIT)["unit"] == "fahrenheit"


def test_a_tool_with_enum_arguments_can_still_run_in_its_own_process():
    """The Enum conversion wraps the function; the wrapper keeps its module and name, which
    is how isolate="process" finds the tool in a fresh process."""
    Toolbox([forecast]).check_importable()  # raises ValueError if it could not be found
    assert forecast.function.__qualname__ == "forecast"


def test_an_error_is_cut_to_max_result_chars_like_a_result():
    @tool
    def shout() -> str:
        """Shout."""
        raise ValueError("A" * 10_000)

    outcome = call(Toolbox([shout]), "shout", {}, max_result_chars=100)
    assert outcome.truncated_chars > 9_000 and len(outcome.content) < 200
    assert outcome.content.endswith("characters cut]")


def test_a_call_records_the_time_it_took_whether_it_answers_or_fails():
    @tool
    def slow(fail: bool) -> str:
        """Answer, or fail, slowly."""
        time.sleep(0.05)
        if fail:
            raise RuntimeError("no")
        return "done"

    for fail in (False, True):
        assert 0.05 <= call(Toolbox([slow]), "slow", {"fail": fail}).seconds < 5


def test_a_call_whose_deadline_has_passed_is_not_run():
    outcome = call(Toolbox([ping]), "ping", {}, deadline=time.perf_counter() - 1)
    assert outcome.error == "not run: the run's time limit was reached"


@tool
def ping() -> str:
    """Answer pong."""
    return "pong"


@tool
def pong() -> str:
    """Answer ping."""
    return "ping"


@pytest.mark.parametrize("arguments", ["", None])
def test_a_call_without_arguments_text_runs_a_tool_that_takes_none(arguments):
    """Some models send "" for a tool without parameters."""
    assert Toolbox([ping]).call("ping", arguments).content == "pong"


def test_the_toolbox_asks_its_repeat_guard_and_counts_each_tool_apart():
    box, guard = Toolbox([ping, pong]), RepeatGuard(1)
    assert call(box, "ping", {}, repeat_guard=guard).error is None
    assert call(box, "pong", {}, repeat_guard=guard).error is None  # another tool: no repeat
    assert "repeat guard" in call(box, "pong", {}, repeat_guard=guard).error
