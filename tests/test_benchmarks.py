"""The benchmark scripts still run and measure what they say (tiny counts; no timing is
asserted: the figures are benchmarks/RESULTS.md, made by `python benchmarks/run.py`)."""

import json
import os
import pathlib
import subprocess
import sys

import openai
import pytest

HERE = pathlib.Path(__file__).parent.parent / "benchmarks"
sys.path.insert(0, str(HERE))

import canned  # noqa: E402
import frameworks  # noqa: E402
import masking_speed  # noqa: E402
import server_load  # noqa: E402
import setups  # noqa: E402
import startup  # noqa: E402

MODULES = {"smolagents": "smolagents", "openai-agents": "agents", "pydantic-ai": "pydantic_ai",
           "langchain": "langchain_openai"}


def needs(name: str) -> None:
    """Skip where a compared framework is not installed (pip install -e '.[bench]')."""
    if name in MODULES:
        pytest.importorskip(MODULES[name], reason="pip install -e '.[bench]'")


def test_the_canned_script_asks_for_tools_then_answers():
    transport = canned.Canned()
    sdk = canned.sync_sdk(transport)
    transport.start(3)
    question = [{"role": "user", "content": "x"}]
    replies = [sdk.chat.completions.create(model="tutor", messages=question) for _ in range(3)]
    transport.finish()
    assert [r.choices[0].message.tool_calls[0].function.name for r in replies[:2]] == [
        "get_weather", "calculate"]
    assert replies[2].choices[0].message.content == "done"
    # The script's AssertionError reaches the caller as it is, or (in some openai 3.x
    # releases) as the cause of an APIConnectionError: either way it is the script's.
    with pytest.raises((AssertionError, openai.APIConnectionError)) as raised:
        sdk.with_options(max_retries=0).chat.completions.create(
            model="tutor", messages=[{"role": "user", "content": "x"}])
    error = raised.value
    while not isinstance(error, AssertionError) and error.__cause__ is not None:
        error = error.__cause__
    assert "model call 4 of a 3-step script" in str(error)


def test_a_run_that_stops_early_is_caught():
    transport = canned.Canned()
    transport.start(3)
    with pytest.raises(AssertionError, match="made 0 model calls"):
        transport.finish()


@pytest.mark.parametrize("name", list(setups.BUILDERS))
def test_every_setup_runs_the_script_through_the_sdk(name):
    needs(name)
    setup = setups.build(name)
    assert setup.batch(steps=4, runs=1) > 0  # batch checks the answer and the call count


@pytest.mark.parametrize("name", setups.FRAMEWORKS)
def test_every_framework_runs_the_tools_and_sends_their_results(name):
    needs(name)
    setup = setups.build(name)
    setup.transport.record = True
    setup.batch(steps=3, runs=1)
    last_request = setup.transport.bodies[-1].decode()
    assert "temp_c" in last_request  # get_weather's result
    assert "46.4" in last_request  # calculate's result


def test_the_sdk_floor_replays_agentlabs_exact_requests():
    floor = setups.build("sdk-floor")
    floor.transport.record = True
    floor.batch(steps=3, runs=1)
    agentlab = setups.build("agentlab")
    agentlab.transport.record = True
    agentlab.batch(steps=3, runs=1)
    assert [json.loads(b) for b in floor.transport.bodies] == [
        json.loads(b) for b in agentlab.transport.bodies]


def test_the_fit_recovers_a_line_and_a_parabola():
    line = frameworks.fit({1: 0.003, 2: 0.004, 5: 0.007, 10: 0.012, 20: 0.022})
    assert line["per_step"] == pytest.approx(0.001)
    assert line["growth"] == pytest.approx(0, abs=1e-12)
    bent = frameworks.fit({k: 1 + k + k * k for k in (1, 2, 5, 10)})  # each step 2 s dearer
    assert bent["growth"] == pytest.approx(2) and bent["per_step"] == pytest.approx(12.2, 0.01)


def test_a_tiny_interleaved_measurement_has_every_row():
    figures = frameworks.measure(names=["agentlab", "sdk-floor"], lengths=(1, 2, 3), rounds=1,
                                 runs=1)
    assert set(figures) == {"agentlab", "sdk-floor"}
    assert set(figures["agentlab"]["per_run"]) == {1, 2, 3}
    assert "agentlab" in "\n".join(frameworks.table(figures))
    assert "agentlab / sdk-floor" in "\n".join(frameworks.floor_lines(figures))


def test_ratios_are_paired_within_each_round():
    """A round where the machine ran slow for both frameworks gives the same ratio as a fast
    round: the ratio of medians would mix them, the median of paired ratios does not."""
    fast = {1: 1.0, 2: 2.0, 5: 5.0}
    rounds = {"agentlab": [fast, {k: 2 * v for k, v in fast.items()}, fast],
              "sdk-floor": [{k: v / 1.1 for k, v in fast.items()},
                            {k: 2 * v / 1.1 for k, v in fast.items()},
                            {k: 2 * v / 1.1 for k, v in fast.items()}]}
    figures = {name: {"rounds": r} for name, r in rounds.items()}
    # round 3 is slow for the floor alone (a phase change inside the round): an outlier
    assert abs(frameworks.paired_ratio(figures, "agentlab", "sdk-floor", "per_step") - 1.1) < 1e-9
    assert abs(frameworks.paired_ratio(figures, "agentlab", "sdk-floor", 5) - 1.1) < 1e-9


def test_startup_times_whole_processes_and_agentlab_loads_nothing_heavy():
    floors = {name: startup.FLOORS[name] for name in ("python -c pass", "import agentlab")}
    figures = startup.measure(frameworks=[], repeats=1, floors=floors, warm_up=False)
    assert set(figures) == set(floors) and all(s > 0 for s in figures.values())
    assert startup.heavy_modules_loaded() == []


def test_the_first_answer_script_answers_in_a_fresh_process():
    assert startup.commands(["agentlab"])["agentlab first answer"][1:] == ["agentlab", "3"]
    out = subprocess.run([sys.executable, str(HERE / "setups.py"), "agentlab", "3"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "done"


def test_the_server_runs_in_its_own_process_under_load():
    result = server_load.load(clients=2, requests=10, seconds=20, start_delay=0.3)
    assert result["requests"] == 20 and result["errors"] == 0


def test_markdown_output_replaces_only_the_figures_block(tmp_path, monkeypatch):
    import run

    results = tmp_path / "RESULTS.md"
    results.write_text("# prose\n<!-- figures -->\n```\nold\n```\n<!-- /figures -->\nafter\n")
    monkeypatch.setattr(run, "RESULTS", results)
    run.write_markdown("new figures")
    assert results.read_text() == ("# prose\n<!-- figures -->\n```\nnew figures\n```\n"
                                   "<!-- /figures -->\nafter\n")


def test_the_own_share_and_profile_scripts_run(monkeypatch):
    import own_share
    import profile_path

    monkeypatch.setattr(own_share, "STEPS", 3)
    monkeypatch.setattr(own_share, "RUNS", 1)
    figures = own_share.measure(rounds=1)
    assert set(figures) == set(own_share.VARIANTS) and all(v > 0 for v in figures.values())
    assert "x floor" in own_share.lines(figures)[0]
    monkeypatch.setattr(profile_path, "STEPS", 3)
    report = "\n".join(profile_path.report(runs=1, top=3))
    assert "agentlab-default" in report and "sdk-floor" in report


def test_the_suite_time_report_says_the_ratio_to_its_floor():
    import suite_time

    figures = {"notebooks": 7, "kernels": 8.0, "lab": 4.0, "floor": 12.0, "pytest": 30.0,
               "ratio": 2.5, "ratios": [2.4, 2.5, 2.9], "rounds": 3,
               "notebooks_part": 24.0, "notebooks_ratio": 2.0, "notebooks_ratios": [1.9, 2.0, 2.2]}
    text = "\n".join(suite_time.lines(figures))
    assert "7 kernel starts 8.0 s" in text and "30.0 s; 2.50x its floor" in text
    assert "medians of 3 rounds" in text and "2.40x, 2.50x, 2.90x" in text
    assert "browser check alone (pytest notebooks tests/test_browser.py): 24.0 s; 2.00x" in text
    assert "2.00x the same floor (median of the rounds' own ratios: 1.90x, 2.00x, 2.20x)" in text
    no_pytest = "\n".join(suite_time.lines({**figures, "pytest": None, "lab": None,
                                             "notebooks_part": None}))
    assert "skipped (no Chromium)" in no_pytest and "its floor" not in no_pytest
    assert "alone" not in no_pytest


def test_the_suite_ratio_is_the_median_of_each_rounds_own_ratio(monkeypatch):
    """A round whose floor and suite both ran slow gives the same ratio as a fast one."""
    import suite_time

    floors, suites = iter([10.0, 20.0, 10.0]), iter([30.0, 60.0, 30.0])
    parts = iter([20.0, 50.0, 25.0])  # the notebooks and browser check alone, per round
    monkeypatch.setattr(suite_time.notebooks, "floor_session", lambda count: next(floors))
    monkeypatch.setattr(suite_time, "lab_and_browser_seconds", lambda: None)
    order = []

    def pytest_seconds(paths=()):
        order.append("part" if paths else "suite")
        return next(parts) if paths else next(suites)

    monkeypatch.setattr(suite_time, "pytest_seconds", pytest_seconds)
    figures = suite_time.measure(rounds=3)
    assert figures["ratio"] == 3.0 and figures["ratios"] == [3.0, 3.0, 3.0]
    assert figures["floor"] == 10.0 and figures["pytest"] == 30.0
    assert figures["notebooks_ratios"] == [2.0, 2.5, 2.5] and figures["notebooks_ratio"] == 2.5
    # neither session always runs right after the floor
    assert order == ["suite", "part", "part", "suite", "suite", "part"]


def test_every_benchmark_session_writes_bytecode_as_a_students_python_does(monkeypatch):
    """A sandbox that turns bytecode caches off would make every session re-rewrite pytest's
    asserts; the sessions run without that setting, the floor and the suite alike."""
    import notebooks
    import suite_time

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    seen = []
    monkeypatch.setattr(notebooks.subprocess, "run", lambda *a, **k: seen.append(k["env"]) or
                        subprocess.CompletedProcess(a, 0, "", ""))
    notebooks.timed_session(["x.ipynb"])
    suite_time.pytest_seconds()

    class Started(Exception):
        pass

    def popen(*args, **kwargs):  # the floor's JupyterLab: its environment, then stop
        seen.append(kwargs["env"])
        raise Started

    monkeypatch.setattr(suite_time, "CHROMIUM", sys.executable)  # a file that exists
    monkeypatch.setattr(suite_time.subprocess, "Popen", popen)
    with pytest.raises(Started):
        suite_time.lab_and_browser_seconds()
    seen.append(startup.environment("/tmp/cache"))
    assert len(seen) == 4
    for env in seen:
        assert "PYTHONDONTWRITEBYTECODE" not in env and env["PATH"] == os.environ["PATH"]
    assert seen[2]["JUPYTERLAB_SETTINGS_DIR"].endswith("/settings")
    assert seen[3]["PYTHONPYCACHEPREFIX"] == "/tmp/cache"


def test_the_notebook_floor_is_as_many_empty_notebooks(tmp_path):
    import notebooks

    paths = notebooks.empty_notebooks(tmp_path, 3)
    assert len(paths) == 3
    cells = json.loads(pathlib.Path(paths[0]).read_text())["cells"]
    assert [c["source"] for c in cells] == ["pass"]


def test_the_import_bound_notebooks_import_the_most_a_course_notebook_loads(tmp_path):
    """The third session's notebooks hold the imports alone, and the report calls the
    difference a bound (not every course notebook loads both)."""
    import notebooks

    paths = notebooks.empty_notebooks(tmp_path, 2, notebooks.IMPORTS)
    cells = json.loads(pathlib.Path(paths[1]).read_text())["cells"]
    assert [c["source"] for c in cells] == ["import openai\nimport matplotlib.pyplot"]
    text = "\n".join(notebooks.lines({"notebooks": 2, "suite": 10.0, "floor": 4.0,
                                      "imports": 6.5}))
    assert "the cells' own time 6.0 s" in text and "at most 2.5 s is kernels importing" in text
    assert "the course's own work in its cells: at least 3.5 s" in text


def test_the_notebook_sessions_run_with_the_readme_commands_own_options():
    import notebooks

    options = notebooks.NBVAL[notebooks.NBVAL.index("addopts=") + 1:]
    assert options == notebooks.readme_options()
    assert "--nbval" in options and "--nbval-lax" not in options


def test_the_playground_press_report_gives_ratios_to_the_earlier_commits_and_to_one_run():
    import playground_press

    parts = ("wall", "whole", "kernel", "drawing", "transfer", *playground_press.OTHER_WAITS)
    figures = {(part, tree, n): seconds * {"drawing": 0.5, "whole": 3}.get(part, 1)
               for part in parts
               for tree, scale in (("now", 1.0), ("abc1234", 2.0), ("def5678", 4.0))
               for n, seconds in ((1, 0.02 * scale), (40, 0.025 * scale))}
    text = playground_press.report(figures, ["abc1234", "def5678"], lengths=(1, 40))
    answered, whole = text.split("A Run press drawn whole")
    assert "40            25            50           100        0.50x        0.25x" in answered
    assert "40            75           150           300        0.50x        0.25x" in whole
    # the floor: the kernel's span without its drawing (25 - 12.5 ms at 40 runs)
    assert "(kernel minus drawing, now): 1 runs 10 ms, 40 runs 12 ms" in text
    assert "now, against one run: 40 runs 1.25x" in text
    assert "def5678, against one run: 40 runs 1.25x" in text
    assert "40       now       25       12        25" in text  # kernel, drawing, transfer
    for title in ("A model change", "A price change", "Save history as JSON", "Clear history"):
        assert title in text


def test_the_earlier_commits_package_is_extracted_to_be_imported_first(tmp_path):
    """Both the press and the first-kernel benchmarks import the earlier agentlab from here."""
    import playground_press

    tree = playground_press.extract("HEAD", tmp_path)
    committed = subprocess.run(["git", "show", "HEAD:agentlab/loop.py"], capture_output=True,
                               text=True, check=True, cwd=playground_press.ROOT).stdout
    assert (tree / "agentlab" / "loop.py").read_text() == committed
    assert (tree / "agentlab" / "__init__.py").is_file() and not (tree / "tests").exists()


def test_the_masking_benchmark_compares_patterns_that_agree():
    for text in masking_speed.texts(0.2).values():
        old = masking_speed.timed(masking_speed.LOOK_BEHIND_FIRST, text)[1]
        new = masking_speed.timed(masking_speed.KEY_SHAPE, text)[1]
        assert old == new and (masking_speed.MASK in new) == ("sk-proj" in text)
