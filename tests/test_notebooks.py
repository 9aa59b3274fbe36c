"""Every notebook's hygiene: saved executed in order from a clean kernel, no errors, no stderr,
no secrets, one kernel, PNG figures, and the course's shape (learn first, exercises last)."""

import json
import pathlib
import re

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))
KEY = re.compile(r"sk-[A-Za-z0-9_-]{20,}")


def test_the_course_is_all_there():
    assert [p.name[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_hygiene(path):
    text = path.read_text()
    nb = json.loads(text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1)), \
        "re-run from a clean kernel, in order, and save"
    outputs = [o for c in code for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert not [o for o in outputs if o.get("name") == "stderr"]
    assert not KEY.search(text), "something shaped like an API key is saved in the notebook"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    for o in outputs:
        assert "image/svg+xml" not in o.get("data", {}), "figures are PNG (SVGs carry dates and ids)"
    ignored = [c for c in code if "NBVAL_IGNORE_OUTPUT" in "".join(c["source"])]
    assert len(ignored) <= 2
    for c in ignored:
        assert re.search(r"NBVAL_IGNORE_OUTPUT.*(because|:)", "".join(c["source"])), "say why"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_each_notebook_says_what_you_will_learn_and_ends_with_checked_exercises(path):
    cells = json.loads(path.read_text())["cells"]
    assert "You will learn" in "".join(cells[0]["source"])
    assert any("## Exercises" in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    last = cells[-1]
    assert last["cell_type"] == "code" and "check_" in "".join(last["source"])
    shown = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                    for o in last["outputs"])
    assert "✓ Works" in shown and "✗" not in shown, "the reference solution passes its check"
