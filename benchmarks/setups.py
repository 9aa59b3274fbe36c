"""Each framework's agent on the canned model (canned.py), built the way its documentation
shows, with the same two tools and the same task. `build(name)` returns a Setup whose
`batch(steps, runs)` times `runs` runs of a `steps`-step script and checks every answer.

    agentlab          run_agent(..., client=connect("tutor", transport=canned))
    agentlab-default  the same, but the model is agentlab's default offline path: the in-process
                      server (make_transport(respond=...)) answering with the same replies
    sdk-floor         no framework: the openai SDK's chat.completions.create on agentlab's
                      recorded requests, with the canned replies (the floor agentlab is held to)
    smolagents        ToolCallingAgent over OpenAIServerModel
    openai-agents     Runner.run over OpenAIChatCompletionsModel (the chat-completions API)
    pydantic-ai       Agent.run over OpenAIChatModel
    langchain         create_agent (LangChain 1, on langgraph) over ChatOpenAI, agent.invoke

The async frameworks run every batch in one lasting event loop (`await` in a loop, as a
notebook does), so they never pay for starting a loop or its thread pool per run. Each agent is built once, outside the
timing, like agentlab's client. Frameworks that print by default are told to stay quiet
(agentlab prints nothing unless asked).

    python benchmarks/setups.py smolagents 5     # one 5-step run in a fresh process
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import time
from typing import Callable

import canned

FRAMEWORKS = ["agentlab", "smolagents", "openai-agents", "pydantic-ai", "langchain"]
MAX_STEPS = 50  # above every script's length, so no framework's own step limit is reached
# The clock batches are timed with: wall time by default; time.process_time (this process's
# CPU time, every thread) is steadier on a machine shared with other work, and there is no
# waiting on the canned path for it to miss.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclasses.dataclass
class Setup:
    name: str
    transport: canned.Canned
    run: Callable[[], str]  # one run (sync), or a coroutine function (async)
    is_async: bool = False
    loop: asyncio.AbstractEventLoop | None = None

    def batch(self, steps: int, runs: int, clock: str = "wall") -> float:
        """Seconds for `runs` runs of a `steps`-step script; every answer is checked."""
        if self.is_async:
            # One event loop for every batch, as a notebook keeps one: its thread pool (for
            # sync tools) and other per-loop state are made once, not once per batch.
            if self.loop is None:
                self.loop = asyncio.new_event_loop()
            return self.loop.run_until_complete(self._async_batch(steps, runs, CLOCKS[clock]))
        now = CLOCKS[clock]
        start = now()
        for _ in range(runs):
            self.transport.start(steps)
            answer = self.run()
            self.transport.finish()
            _check(self.name, answer)
        return now() - start

    async def _async_batch(self, steps: int, runs: int, now) -> float:
        start = now()
        for _ in range(runs):
            self.transport.start(steps)
            answer = await self.run()
            self.transport.finish()
            _check(self.name, answer)
        return now() - start


def _check(name: str, answer) -> None:
    if "done" not in str(answer):
        raise AssertionError(f"{name} answered {answer!r}")


def agentlab_setup(default_path: bool = False) -> Setup:
    from agentlab import Limits, connect, run_agent, tool

    transport = canned.Canned()
    if default_path:
        transport = _ServerReplies(transport)
    client = connect(canned.MODEL, transport=transport.server if default_path else transport)
    tools, limits = [tool(canned.get_weather), tool(canned.calculate)], Limits(max_steps=MAX_STEPS)

    def run():
        return run_agent(canned.TASK, tools, client=client, limits=limits).answer

    return Setup("agentlab-default" if default_path else "agentlab", transport, run)


class _ServerReplies:
    """The canned script served through agentlab's in-process server (its handler checks the
    request, counts tokens by the tutor's rule and hashes a response id), as connect("tutor")
    does by default."""

    def __init__(self, inner: canned.Canned):
        from agentlab.server import make_transport

        self.inner = inner
        self.server = make_transport(respond=self.respond)

    def respond(self, model, messages, tools, tool_choice, **options):
        step = self.inner.served
        self.inner.served += 1
        return canned.reply_message(step, len(self.inner.replies))

    def start(self, steps):
        self.inner.start(steps)

    def finish(self):
        self.inner.finish()


def sdk_floor_setup() -> Setup:
    """The SDK alone on agentlab's requests: record them once per script length, replay them."""
    from agentlab import Limits, connect, run_agent, tool

    recorder = canned.Canned(record=True)
    client = connect(canned.MODEL, transport=recorder)
    tools = [tool(canned.get_weather), tool(canned.calculate)]
    requests: dict[int, list[dict]] = {}
    transport = canned.Canned()
    sdk = canned.sync_sdk(transport)

    def run():
        steps = len(transport.replies)
        if steps not in requests:  # recorded in the warm-up, before timing
            recorder.start(steps)
            run_agent(canned.TASK, tools, client=client, limits=Limits(max_steps=MAX_STEPS))
            requests[steps] = [json.loads(body) for body in recorder.bodies]
        answer = None
        for body in requests[steps]:
            answer = sdk.chat.completions.create(**body).choices[0].message.content
        return answer

    return Setup("sdk-floor", transport, run)


def smolagents_setup() -> Setup:
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    transport = canned.Canned(final_as_tool=True)
    http_client = canned.http.Client(transport=transport)
    model = OpenAIServerModel(model_id=canned.MODEL, api_base=canned.BASE_URL, api_key="canned",
                              client_kwargs={"http_client": http_client})
    agent = ToolCallingAgent(tools=[tool(canned.get_weather), tool(canned.calculate)], model=model,
                             verbosity_level=-1, max_steps=MAX_STEPS)  # -1: print nothing

    def run():
        return agent.run(canned.TASK)

    return Setup("smolagents", transport, run)


def openai_agents_setup() -> Setup:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from agents import set_tracing_disabled

    set_tracing_disabled(True)  # no trace export: nothing may leave this machine
    transport = canned.Canned()
    model = OpenAIChatCompletionsModel(model=canned.MODEL,
                                       openai_client=canned.async_sdk(transport))
    agent = Agent(name="bench", model=model,
                  tools=[function_tool(canned.get_weather), function_tool(canned.calculate)])

    async def run():
        return (await Runner.run(agent, canned.TASK, max_turns=MAX_STEPS)).final_output

    return Setup("openai-agents", transport, run, is_async=True)


def pydantic_ai_setup() -> Setup:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    transport = canned.Canned()
    provider = OpenAIProvider(openai_client=canned.async_sdk(transport))
    agent = Agent(OpenAIChatModel(canned.MODEL, provider=provider),
                  tools=[canned.get_weather, canned.calculate])

    async def run():
        return (await agent.run(canned.TASK)).output

    return Setup("pydantic-ai", transport, run, is_async=True)


def langchain_setup() -> Setup:
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI

    # No trace export (off by default, but not left to this machine's environment): nothing may
    # leave this machine, as with the Agents SDK's tracing above.
    os.environ["LANGSMITH_TRACING"] = "false"
    transport = canned.Canned()
    model = ChatOpenAI(model=canned.MODEL, base_url=canned.BASE_URL, api_key="canned",
                       http_client=canned.http.Client(transport=transport))
    agent = create_agent(model, tools=[canned.get_weather, canned.calculate])
    # langgraph counts a model call and a tool call as two super-steps; its default limit (25)
    # would stop a 20-step run, as MAX_STEPS keeps every other framework's limit out of reach.
    config = {"recursion_limit": 2 * MAX_STEPS + 1}

    def run():
        state = agent.invoke({"messages": [{"role": "user", "content": canned.TASK}]}, config)
        return state["messages"][-1].content

    return Setup("langchain", transport, run)


BUILDERS = {
    "agentlab": agentlab_setup,
    "agentlab-default": lambda: agentlab_setup(default_path=True),
    "sdk-floor": sdk_floor_setup,
    "smolagents": smolagents_setup,
    "openai-agents": openai_agents_setup,
    "pydantic-ai": pydantic_ai_setup,
    "langchain": langchain_setup,
}


def build(name: str) -> Setup:
    return BUILDERS[name]()


if __name__ == "__main__":
    name, steps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    build(name).batch(steps, 1)
    print("done")
