"""Chapter 51's listing, as written, runs against agentlab's client and estimate_cost."""

import pathlib

from agentlab import connect, estimate_cost

LISTING = (pathlib.Path(__file__).parent / "data" / "chapter51_listing.py").read_text()


def test_the_chapters_listing_runs_as_written_and_answers(fixed_clock, capsys):
    namespace = {"client": connect(), "model": "tutor", "estimate_cost": estimate_cost}
    exec(compile(LISTING, "chapter51_listing.py", "exec"), namespace)
    answer = namespace["run_agent"]("What time is it, and what is 17 * 23 + sqrt(144)?",
                                    namespace["tools"], namespace["tool_impls"],
                                    namespace["client"], namespace["model"])
    assert "403" in answer
    assert "The time now (UTC) is" in answer  # the chapter's get_time ignores the fixed clock
    printed = capsys.readouterr().out
    assert "step 0: calling get_time({})" in printed
    assert "step 0: calling calculate({'expression': '17 * 23 + sqrt(144)'})" in printed


def test_estimate_cost_prices_a_response_from_its_usage():
    client = connect("tutor")
    response = client.chat(model="tutor", messages=[{"role": "user", "content": "hello"}])
    usage = response.usage
    expected = (usage.prompt_tokens * 0.15 + usage.completion_tokens * 0.60) / 1e6  # gpt-4o-mini list price
    assert abs(estimate_cost(response) - expected) < 1e-12
    assert estimate_cost(response.raw.model_copy(update={"model": "gpt-4o"})) > estimate_cost(response)
