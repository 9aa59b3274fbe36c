"""The benchmark scripts still run (small sizes; the figures themselves are benchmarks/RESULTS.md)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "benchmarks"))

import frameworks  # noqa: E402
import import_time  # noqa: E402
import offline_path  # noqa: E402
import server_load  # noqa: E402


def test_agentlab_runs_the_scripted_task():
    assert frameworks.load("agentlab")() == "done"


def test_import_time_and_heavy_modules():
    assert import_time.import_seconds(repeats=1) > 0
    assert import_time.heavy_modules_loaded() == []


def test_offline_paths_all_answer():
    figures = offline_path.measure(rounds=3)
    assert set(figures) == {"direct call (LocalClient)", "openai SDK, in-process transport",
                            "openai SDK, HTTP on 127.0.0.1"}
    assert all(v > 0 for v in figures.values())


def test_server_load_small():
    result = server_load.load(clients=2, requests=20)
    assert result["requests"] == 40 and result["errors"] == 0
