"""The playground in a real browser, as a student meets it: `agentlab course` (conftest's
course_lab) serves the notebooks, Playwright drives Debian's Chromium (no browser download)
through notebook 5. It runs the notebook's first cell and the cell that shows the playground,
checks that the sliders render as live widgets (not their text fallback), picks the Peru task,
moves max_steps with the keyboard, clicks Run, and checks that the step log and the plots
change. The notebook is never saved. The screenshot lands in test-artifacts/playground.png.

Skipped, with the reason, where Chromium is missing, except in CI (CI=true), where .ci/run
installs it first and the test must run.
"""

import json
import os
import pathlib
import shutil
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = pathlib.Path(__file__).parent.parent / "test-artifacts"
NOTEBOOK = "05_the_limits_playground.ipynb"
PLAYGROUND_CELL = "playground = Playground([task.text for task in COURSE_TASKS])"
PERU = "What's the weather in the capital of Peru, in Fahrenheit?"  # four steps to answer

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI must run the browser test: install Debian's chromium package first")
    pytest.skip("no Chromium here (Debian: apt-get install chromium); the browser test needs it",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")


def run_cell(page, cell, prompt: str) -> None:
    """Click into a code cell and press Shift+Enter, as a student does; wait for its prompt."""
    for attempt in range(3):
        cell.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")
        try:
            cell.locator(".jp-InputPrompt", has_text=prompt).wait_for(timeout=20_000)
            return
        except sync_api.TimeoutError:
            if attempt == 2:
                raise


def shut_down_kernels(base: str, token: str) -> None:
    """End the notebook's kernel: the shared JupyterLab goes on serving other tests."""
    sessions = json.loads(urllib.request.urlopen(f"{base}/api/sessions?token={token}").read())
    for session in sessions:
        request = urllib.request.Request(f"{base}/api/sessions/{session['id']}?token={token}",
                                         method="DELETE")
        urllib.request.urlopen(request, timeout=30).read()


def test_playground_in_jupyterlab(course_lab):
    base, token, _ = course_lab
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1300})
            page.goto(f"{base}/lab/tree/{NOTEBOOK}?reset&token={token}")
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')")
            # Wait for the kernel, then run the notebook's imports and its playground cell.
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
            code_cells = page.locator(".jp-CodeCell")
            run_cell(page, code_cells.first, "[1]:")
            cell = code_cells.filter(has_text=PLAYGROUND_CELL)  # checks look inside this cell
            run_cell(page, cell, "[2]:")

            # Live widgets, not the text fallback.
            slider = cell.locator(".widget-slider", has_text="max_steps")
            slider.wait_for(timeout=60_000)
            assert cell.locator(".widget-slider").count() == 4
            assert cell.get_by_text("<Playground:").count() == 0
            readout = slider.locator(".widget-readout")
            assert readout.inner_text() == "10"
            log = cell.locator("pre", has_text="step log appears here")
            assert log.count() == 1

            # Pick the Peru question: it needs four steps, so a step limit of 2 stops it.
            cell.locator(".widget-dropdown", has_text="task").locator("select").select_option(
                label=PERU)

            # Move max_steps with the keyboard: 10 -> 2.
            handle = slider.locator(".noUi-handle")
            handle.focus()
            for _ in range(8):
                page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                "() => [...document.querySelectorAll('.widget-slider')].some(s =>"
                " s.innerText.includes('max_steps') && s.querySelector('.widget-readout').innerText.trim() === '2')")

            cell.locator("button.widget-button", has_text="Run").click()
            status = cell.get_by_text("Run #1: stopped: max_steps after 2 steps")
            status.wait_for(timeout=60_000)
            step_log = cell.locator("pre", has_text="step 1: calling")
            assert step_log.count() == 1 and "step 2:" not in step_log.inner_text()
            assert "stopped: max_steps (the step limit of 2 was reached)" in step_log.inner_text()
            page.wait_for_function(  # the history plot and the run plot, drawn
                "cell => [...cell.querySelectorAll('.jp-OutputArea img')]"
                ".filter(i => i.naturalWidth > 300).length >= 2", arg=cell.element_handle())
            cell.screenshot(path=str(ARTIFACTS / "playground.png"))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "playground-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
            shut_down_kernels(base, token)
    assert (ARTIFACTS / "playground.png").stat().st_size > 10_000
