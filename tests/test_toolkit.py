"""The course's tools: the safe calculator, the clock, the demo weather and country tables."""

import datetime
import math
import warnings

import pytest

from agentlab.toolkit import (calculate, get_time, get_weather, lookup_country,
                              safe_calculate)


@pytest.mark.parametrize("expression, expected", [
    ("17 * 23 + sqrt(144)", 403),
    ("2 ** 10", 1024),
    ("-(3 + 4) * 2", -14),
    ("7 // 2", 3),
    ("7 % 4", 3),
    ("1 / 4", 0.25),
    ("round(2.6)", 3),
    ("abs(-5) + floor(2.7) + ceil(2.1)", 10),
    ("log10(1000)", 3),
    ("2 ** -1", 0.5),
    ("  1+1  ", 2),
])
def test_calculate_does_arithmetic(expression, expected):
    assert calculate(expression) == expected


def test_whole_results_are_ints():
    assert type(calculate("sqrt(144)")) is int
    assert type(calculate("sqrt(2)")) is float
    assert math.isclose(calculate("sqrt(2)"), 2 ** 0.5)


@pytest.mark.parametrize("expression, message", [
    ("__import__('os').system('echo hacked')", "not allowed"),
    ("x + 1", "not allowed"),
    ("(1).__class__", "not allowed"),
    ("print(1)", "not allowed"),
    ("'a' * 3", "not allowed"),
    ("True + 1", "not allowed"),
    ("[1, 2]", "not allowed"),
    ("lambda: 1", "not allowed"),
    ("sqrt(4, 5)", "not allowed"),
    ("1 if 1 else 2", "not allowed"),
    ("9**9**9", "too large"),
    ("10 ** 400", "too large"),
    ("2.0 ** 5000", "too large"),
    ("1e308 * 10", "too large"),
    ("1 / 0", "division by zero"),
    ("5 // 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "negative power"),
    ("(-8) ** 0.5", "not a real number"),
    ("sqrt(-1)", "not defined"),
    ("log(0)", "not defined"),
    ("exp(1000)", "not defined"),
    ("(" * 10_000 + "1" + ")" * 10_000, "too long"),
    ("(" * 200 + "1" + ")" * 200, "nested too deeply"),
    ("-" * 400 + "1", "nested too deeply"),
    ("1 +", "not a valid expression"),
    ("", "not a valid expression"),
    ("１ + 1", "only plain ASCII"),
    ("٣ + 1", "only plain ASCII"),
])
def test_calculate_refuses_with_a_clear_message(expression, message):
    with pytest.raises(ValueError, match=message):
        calculate(expression)


def test_calculate_refuses_non_text():
    with pytest.raises(ValueError, match="must be text"):
        safe_calculate(42)


def test_get_time_honours_iana_zones(fixed_clock):
    assert get_time() == {"timezone": "UTC", "now": "2026-03-14T15:09:26+00:00", "weekday": "Saturday"}
    assert get_time("Asia/Tokyo")["now"] == "2026-03-15T00:09:26+09:00"
    assert get_time("America/New_York")["now"].endswith("-04:00")  # daylight saving time


@pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "", "../etc/passwd", "Europe/"])
def test_get_time_rejects_unknown_zones(zone):
    with pytest.raises(ValueError, match="unknown time zone"):
        get_time(zone)


def test_weather_is_labelled_demo_data_and_case_insensitive():
    paris = get_weather("paris")
    assert paris["city"] == "Paris" and paris["temp_c"] == 8 and paris["rain"] is True
    assert "demo data" in paris["source"]
    with pytest.raises(ValueError, match="no demo data for city 'Atlantis'; known: Beijing"):
        get_weather("Atlantis")


def test_lookup_country():
    assert lookup_country("Peru")["capital"] == "Lima"
    with pytest.raises(ValueError, match="no demo data for country"):
        lookup_country("Narnia")


def test_course_tools_are_tools_with_schemas():
    assert calculate.schema["function"]["name"] == "calculate"
    assert calculate.schema["function"]["parameters"]["required"] == ["expression"]
    assert get_time.schema["function"]["parameters"]["required"] == []


@pytest.mark.parametrize("expression", ["0x10", "2 * 0X1f", "0b101", "0o7"])
def test_calculate_refuses_numbers_not_written_in_decimal(expression):
    """Found by hypothesis: the hostile "x" between two digits made the hex literal 0x0."""
    with pytest.raises(ValueError, match="write numbers in decimal"):
        calculate(expression)


@pytest.mark.parametrize("expression, named", [("1if 2", "'1if'"), ("2or 3", "'2or'"),
                                               ("1.5else", "'1.5else'"), ('"\\d"', "backslash"),
                                               ("3 * '\\q'", "backslash"), ("4\\ 2", "backslash")])
def test_calculate_refuses_what_python_would_warn_about_without_a_warning(expression, named):
    # Python's parser prints a SyntaxWarning ("invalid decimal literal", "invalid escape
    # sequence") into the notebook and the test summary before it refuses these.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError) as refused:
            safe_calculate(expression)
    assert not caught, [str(w.message) for w in caught]
    assert named in str(refused.value)


@pytest.mark.parametrize("expression, expected", [("1e5 * 2", 200000), ("2.5e-3 + 1", 1.0025),
                                                  ("1_000 + 1", 1001), ("1.e3", 1000),
                                                  ("log10(100) + .5", 2.5)])
def test_numbers_python_writes_with_letters_or_underscores_still_count(expression, expected):
    assert safe_calculate(expression) == expected


def test_the_clock_can_be_pinned_for_saved_outputs_and_is_real_otherwise(monkeypatch):
    monkeypatch.setenv("AGENTLAB_CLOCK", "2026-11-30T10:41:07+01:00")
    assert get_time("UTC") == {"timezone": "UTC", "now": "2026-11-30T09:41:07+00:00",
                               "weekday": "Monday"}
    assert get_time("Asia/Tokyo")["now"] == "2026-11-30T18:41:07+09:00"
    monkeypatch.setenv("AGENTLAB_CLOCK", "2026-11-30 09:41")  # no offset: which zone?
    with pytest.raises(ValueError, match="AGENTLAB_CLOCK=.*unset it"):
        get_time("UTC")
    monkeypatch.delenv("AGENTLAB_CLOCK")
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    now = datetime.datetime.fromisoformat(get_time("UTC")["now"])
    assert before <= now <= datetime.datetime.now(datetime.timezone.utc)


def test_match_pattern_matches_the_whole_text_and_refuses_a_broken_pattern():
    import re

    from agentlab.toolkit import match_pattern

    assert match_pattern("[0-9]+", "123") is True and match_pattern("[0-9]+", "12a") is False
    with pytest.raises(re.error):
        match_pattern("(", "x")
