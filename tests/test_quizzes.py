"""The self-checks of the open questions: each quiz accepts its right choice, explains every
wrong one, and the notebooks show the questions but never an answer."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from agentlab.course.quizzes import answer, is_right, quiz, quizzes, verdict

ROOT = pathlib.Path(__file__).parent.parent
STUDENTS = sorted((ROOT / "notebooks").glob("0[1-8]*.ipynb"))
QUIZ_CALL = re.compile(r'quiz\("([^"]+)"\)')


def right_letter(name):
    """The one letter answer() accepts for quiz `name`."""
    [letter] = [letter for letter in quizzes()[name]["choices"] if is_right(name, letter)]
    return letter


@pytest.mark.parametrize("name", list(quizzes()))
def test_the_right_choice_is_accepted_and_every_wrong_one_explained(name, capsys):
    data = quizzes()[name]
    right = right_letter(name)  # exactly one letter is right
    assert len(data["choices"]) >= 3
    whys = set()
    for letter, choice in data["choices"].items():
        assert choice["text"].strip() and len(choice["why"]) > 20, (name, letter)
        said = verdict(name, letter)
        assert said.right == (letter == right), (name, letter)
        whys.add(said.why)
        answer(name, letter.upper())  # a capital letter is the same pick
        printed = capsys.readouterr().out
        assert printed.startswith("✓ Right." if said.right else "✗ Not this one.")
        # The explanation of the pick is shown after it, right or wrong.
        assert " ".join(choice["why"].split()) in " ".join(printed.split())
        # A wrong pick explains itself without giving the right letter away.
        if not said.right:
            assert f"({right})" not in printed
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


def test_quizzes_json_holds_no_right_answer_in_the_clear():
    """The student copy ships quizzes.json: no field names the right choice, by letter or text."""
    for name, data in quizzes().items():
        assert set(data) == {"question", "choices", "salt", "sealed_answer"}, name
        assert all(set(choice) == {"text", "why"} for choice in data["choices"].values())
        assert re.fullmatch(r"[0-9a-f]{64}", data["sealed_answer"]), name
        assert data["sealed_answer"] not in {letter for letter in data["choices"]}
    raw = (ROOT / "agentlab" / "course" / "quizzes.json").read_text()
    assert not re.search(r'"(?:right|answer|correct)"\s*:', raw)


def test_the_right_choice_cannot_be_told_by_its_length():
    """Options of similar length, and the right one neither mostly the longest nor the shortest
    (it was the longest in 15 of 17)."""
    longest = shortest = 0
    for name, data in quizzes().items():
        lengths = {letter: len(c["text"]) for letter, c in data["choices"].items()}
        assert max(lengths.values()) <= 1.3 * min(lengths.values()), (name, lengths)
        right = lengths[right_letter(name)]
        longest += right == max(lengths.values())
        shortest += right == min(lengths.values())
    assert longest <= len(quizzes()) / 3 and shortest <= len(quizzes()) / 3, (longest, shortest)


def test_the_right_choice_cannot_be_told_by_its_place():
    """The right letter is spread over a, b, c: none is right in more than half the quizzes,
    and each is right in at least a fifth."""
    letters = [right_letter(name) for name in quizzes()]
    for letter in "abc":
        assert len(quizzes()) / 5 <= letters.count(letter) <= len(quizzes()) / 2, letters
