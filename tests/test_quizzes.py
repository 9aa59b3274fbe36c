"""The self-checks of the open questions: each quiz accepts its right choice, explains every
wrong one, and the notebooks show the questions but never an answer."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from agentlab.course.quizzes import answer, quiz, quizzes, verdict

ROOT = pathlib.Path(__file__).parent.parent
STUDENTS = sorted((ROOT / "notebooks").glob("0[1-8]*.ipynb"))
QUIZ_CALL = re.compile(r'quiz\("([^"]+)"\)')


@pytest.mark.parametrize("name", list(quizzes()))
def test_the_right_choice_is_accepted_and_every_wrong_one_explained(name, capsys):
    data = quizzes()[name]
    assert len(data["choices"]) >= 3 and data["right"] in data["choices"]
    whys = set()
    for letter, choice in data["choices"].items():
        assert choice["text"].strip() and len(choice["why"]) > 20, (name, letter)
        said = verdict(name, letter)
        assert said.right == (letter == data["right"]), (name, letter)
        whys.add(said.why)
        answer(name, letter.upper())  # a capital letter is the same pick
        printed = capsys.readouterr().out
        assert printed.startswith("✓ Right." if said.right else "✗ Not this one.")
        # A wrong pick explains itself without giving the right letter away.
        if not said.right:
            assert f"({data['right']})" not in printed
    assert len(whys) == len(data["choices"]), "each choice has its own explanation"


def test_quiz_shows_the_question_and_choices_and_none_of_the_answers(capsys):
    for name, data in quizzes().items():
        quiz(name)
        shown = " ".join(capsys.readouterr().out.split())
        assert " ".join(data["question"].split()) in shown
        for letter, choice in data["choices"].items():
            assert f"{letter}) " + " ".join(choice["text"].split()) in shown
            assert " ".join(choice["why"].split())[:40] not in shown
        assert "✓" not in shown and "Right" not in shown


def test_a_wrong_name_or_letter_gets_a_clear_error():
    with pytest.raises(ValueError, match="no quiz named '03-overshot'.*03-overshoot"):
        quiz("03-overshot")
    with pytest.raises(ValueError, match="has the choices a, b, c"):
        answer("03-overshoot", "d")
    with pytest.raises(ValueError, match="as a string"):
        answer("03-overshoot", 2)


def test_each_chapter_has_one_to_three_quizzes_and_no_answer_in_any_notebook():
    used = {}
    for path in STUDENTS:
        text = path.read_text()
        cells = json.loads(text)["cells"]
        sources = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        used[path.name[:3].rstrip("_")] = QUIZ_CALL.findall(sources)
        assert "answer(" not in sources, f"{path.name} answers a quiz in a saved cell"
        shown = [c["source"] for c in cells] + [
            o.get("text", "") or o.get("data", {}).get("text/plain", "")
            for c in cells for o in c.get("outputs", [])]
        flat = " ".join("".join("".join(part) for part in shown).split())
        for data in quizzes().values():
            for choice in data["choices"].values():
                assert " ".join(choice["why"].split())[:40] not in flat, path.name
    for chapter in ["01", "02", "03", "04a", "04b", "05", "06", "07"]:
        assert 1 <= len(used[chapter]) <= 3, (chapter, used[chapter])
        assert all(name.startswith(chapter + "-") for name in used[chapter])
    assert sorted(n for names in used.values() for n in names) == sorted(quizzes())


def test_the_quizzes_and_the_request_schemas_ship_with_the_package(tmp_path):
    # What a plain `pip install .` copies: setuptools' build_py, run on this checkout.
    subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q",
                    "build_py", "--build-lib", str(tmp_path)], cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    assert json.loads((tmp_path / "agentlab" / "course" / "quizzes.json").read_text()) == quizzes()
    schemas = tmp_path / "agentlab" / "server" / "schemas"
    assert sorted(p.name for p in schemas.glob("*.json")) == ["chat_completions_request.json",
                                                            "responses_request.json"]
