"""Real JavaScript clients against `agentlab serve`: openai-node 6 and 7, and the Vercel AI SDK
(`ai` 6 and 7 with `@ai-sdk/openai`), each written as its own docs show it
(tests/compat_js.mjs), unpatched.

Each case runs the course's two-tool task to its answer: a multi-step tool loop, by hand and
with the clients' own helpers (openai-node's runTools and its parse helpers, the AI SDK's generateText and
streamText, which go on past the tool step), over Chat Completions and the Responses API. The AI
SDK's default Responses model sends the tutor's earlier answer back as an `item_reference` (and,
with store: false, as an assistant message without `type` or `status`): those cases got a 400
at step 2 before the server read them (issue 32).

The packages come from npm, installed under .node/ in the checkout as CI installs them (.ci/run):

    npm install --prefix .node openai6@npm:openai@6 openai7@npm:openai@7 ai6@npm:ai@6 \\
        ai7@npm:ai@7 ai-sdk-openai6@npm:@ai-sdk/openai@3 ai-sdk-openai7@npm:@ai-sdk/openai@4 zod@4

Without node, or without a package, its cases skip and say why. The server runs once for the
module, a subprocess on a free port of 127.0.0.1; nothing reaches the network.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from compat_serve import CASE_SECONDS, base_url  # noqa: F401

ROOT = pathlib.Path(__file__).resolve().parents[1]
NODE_FOLDER = ROOT / ".node"
SCRIPT = pathlib.Path(__file__).with_name("compat_js.mjs")
# Each package under the name CI installs it as, and how to install it by hand.
PACKAGES = {("openai-node", "6"): ["openai6"], ("openai-node", "7"): ["openai7"],
            ("ai", "6"): ["ai6", "ai-sdk-openai6", "zod"],
            ("ai", "7"): ["ai7", "ai-sdk-openai7", "zod"]}
INSTALL = ("npm install --prefix .node openai6@npm:openai@6 openai7@npm:openai@7 "
           "ai6@npm:ai@6 ai7@npm:ai@7 ai-sdk-openai6@npm:@ai-sdk/openai@3 "
           "ai-sdk-openai7@npm:@ai-sdk/openai@4 zod@4")

# (client, version, mode): openai-node's modes are in compat_js.mjs's openaiNode(); the AI
# SDK's name the API ("responses", the provider's default, or "chat"), generateText or
# streamText, and store: false where it ends in "nostore".
OPENAI_NODE_MODES = ["chat", "run-tools", "parse", "responses", "responses-previous",
                     "responses-parse"]
AI_SDK_MODES = ["responses-generate", "responses-stream", "responses-generate-nostore",
                "responses-stream-nostore", "chat-generate", "chat-stream"]
CASES = ([("openai-node", v, m) for v in ("6", "7") for m in OPENAI_NODE_MODES]
         + [("ai", v, m) for v in ("6", "7") for m in AI_SDK_MODES])


def missing(client: str, version: str) -> str | None:
    """Why a client cannot run here (node or its packages missing), or None."""
    if shutil.which("node") is None:
        return "node is not installed (the JavaScript clients need it, and npm to install them)"
    absent = [p for p in PACKAGES[client, version]
              if not (NODE_FOLDER / "node_modules" / p / "package.json").exists()]
    if absent:
        return f"{', '.join(absent)} not under .node/: {INSTALL} (needs npm)"
    return None


def run_client(client: str, version: str, mode: str, url: str) -> dict:
    """compat_js.mjs run by node for one case: its one line of JSON."""
    case = json.dumps({"client": client, "version": version, "mode": mode, "baseURL": url})
    env = {**os.environ, "AGENTLAB_JS_CASE": case, "NO_PROXY": "127.0.0.1,localhost",
           "no_proxy": "127.0.0.1,localhost"}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(["node", "--input-type=module", "-"], input=SCRIPT.read_text(),
                          cwd=NODE_FOLDER, env=env, capture_output=True, text=True,
                          timeout=CASE_SECONDS)
    lines = done.stdout.strip().splitlines()
    assert lines, f"node printed nothing (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(lines[-1])


@pytest.mark.parametrize("client, version, mode", CASES)
def test_a_javascript_client_runs_the_tool_loop_to_its_answer(client, version, mode, base_url):
    why = missing(client, version)
    if why:
        pytest.skip(why)
    outcome = run_client(client, version, mode, base_url)
    assert "error" not in outcome, outcome  # the refusal the client reported, with its body
    if mode.endswith("parse"):  # the tool's result, read into the zod schema's fields
        assert json.loads(outcome["text"]) == {"city": "Oslo", "temperature_c": 18}
        return
    assert sorted(outcome["calls"]) == ["calculate", "get_weather"], outcome
    assert outcome["steps"] == 2, outcome  # the calls, then the answer from their results
    assert "391" in outcome["text"] and "18" in outcome["text"], outcome


def test_ci_installs_the_packages_where_the_test_finds_them():
    script = (ROOT / ".ci" / "run").read_text()
    for names in PACKAGES.values():
        for name in names:
            assert f" {name}@npm:" in script or f" {name}@" in script, name
    assert "--prefix .node" in script
