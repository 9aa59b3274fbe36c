"""The playground in a real browser: JupyterLab on 127.0.0.1, driven by Playwright in Debian's
Chromium (no browser download). It checks that the sliders render as live widgets (not their
text fallback), moves max_steps with the keyboard, clicks Run, and checks that the step log
and the plot change. The screenshot lands in test-artifacts/playground.png.

Skipped, with the reason, where Chromium is missing, except in CI (CI=true), where .ci/run
installs it first and the test must run.
"""

import json
import os
import pathlib
import secrets
import shutil
import subprocess
import sys

import pytest
from processes import free_port, stop, wait_until_answers

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = pathlib.Path(__file__).parent.parent / "test-artifacts"

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI") == "true":
        raise RuntimeError("CI must run the browser test: install Debian's chromium package first")
    pytest.skip("no Chromium here (Debian: apt-get install chromium); the browser test needs it",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")

NOTEBOOK_CELLS = [
    "from agentlab.widgets import Playground\n"
    "playground = Playground(['What is 2 + 2?'])\n"
    "playground.model.value = 'tutor-looper'  # never answers: only a limit stops it\n"
    "playground",
]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 with a token, no news or update pop-ups, a fresh workspace."""
    root = tmp_path_factory.mktemp("lab")
    settings = root / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    (root / "work").mkdir()
    (root / "work" / "playground.ipynb").write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": src} for i, src in enumerate(NOTEBOOK_CELLS)]}))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(root / "workspaces"), "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    log = open(root / "jupyterlab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root / 'work'}",
         "--allow-root", "--LabApp.expose_app_in_browser=True", "--ServerApp.open_browser=False"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(f"{base}/api/status?token={token}", server, root / "jupyterlab.log", 60)
        yield base, token
    finally:
        stop(server)
        log.close()


def test_playground_in_jupyterlab(jupyterlab):
    base, token = jupyterlab
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1300})
            page.goto(f"{base}/lab/tree/playground.ipynb?reset&token={token}")
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')")
            # Wait for the kernel, then run the cell as a student would: click it, Shift+Enter.
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
            for attempt in range(3):
                page.locator(".jp-Cell .cm-content").first.click()
                page.keyboard.press("Shift+Enter")
                try:
                    page.locator(".jp-InputPrompt", has_text="[1]:").wait_for(timeout=20_000)
                    break
                except sync_api.TimeoutError:
                    if attempt == 2:
                        raise

            # Live widgets, not the text fallback.
            slider = page.locator(".widget-slider", has_text="max_steps")
            slider.wait_for(timeout=60_000)
            assert page.locator(".widget-slider").count() == 4
            assert page.get_by_text("<Playground:").count() == 0
            readout = slider.locator(".widget-readout")
            assert readout.inner_text() == "10"
            log = page.locator("pre", has_text="step log appears here")
            assert log.count() == 1

            # Move max_steps with the keyboard: 10 -> 2.
            handle = slider.locator(".noUi-handle")
            handle.focus()
            for _ in range(8):
                page.keyboard.press("ArrowLeft")
            page.wait_for_function(
                "() => [...document.querySelectorAll('.widget-slider')].some(s =>"
                " s.innerText.includes('max_steps') && s.querySelector('.widget-readout').innerText.trim() === '2')")

            page.locator("button.widget-button", has_text="Run").first.click()
            status = page.get_by_text("Run #1: stopped: max_steps after 2 steps")
            status.wait_for(timeout=60_000)
            step_log = page.locator("pre", has_text="step 1: calling")
            assert step_log.count() == 1 and "step 2:" not in step_log.inner_text()
            assert "stopped: max_steps (the step limit of 2 was reached)" in step_log.inner_text()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-OutputArea img')].filter(i => i.naturalWidth > 300).length >= 2")
            page.screenshot(path=str(ARTIFACTS / "playground.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "playground-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
    assert (ARTIFACTS / "playground.png").stat().st_size > 10_000
