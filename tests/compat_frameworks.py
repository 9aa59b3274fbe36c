"""The course's two-tool task, driven by four agent frameworks against an OpenAI-compatible URL.

Each `run_<framework>(base_url, mode)` builds that framework's own agent, with the two tools
defined the framework's own way, asks it TASK and returns what the agent ended with: a string
answer, or for mode "structured" an `Answer` (the time and the value). tests/test_compat.py
points them at `agentlab serve`; tests/compat_capture.py at a recorder, to see what each sends.

    modes: "plain", "stream", "structured" (smolagents: "plain" and "stream" only)

`run_dict_tools(framework, base_url, task)` runs one of WEATHER_TASKS with two tools that
return a dict (get_weather, lookup_country), through smolagents or the Agents SDK.

The frameworks are imported inside each function, so this file imports without them.
Nothing here reaches the network: the base URL is the caller's, tracing and telemetry are off.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

TASK = "What time is it, and what is 17 * 23 + sqrt(144)?"
FIXED_TIME = "09:30 UTC"  # what get_time returns, so a test can find it in the answer
MODEL = "tutor"
API_KEY = "sk-dummy-offline"  # the frameworks insist on a key; the tutor never reads it
SECONDS = 10  # each HTTP request's timeout
MAX_STEPS = 6


class Answer(BaseModel):
    """The structured output asked for: the time, and the value of the expression."""

    time: str
    value: float


def get_time() -> str:
    """Get the current time in UTC."""
    return FIXED_TIME


def calculate(expression: str) -> float:
    """Evaluate an arithmetic expression safely.

    Args:
        expression: The arithmetic expression, e.g. "2 * (3 + 4)" or "sqrt(16)".
    """
    from agentlab.toolkit import safe_calculate

    return safe_calculate(expression)


FRAMEWORK_MODES = {
    "smolagents": ("plain", "stream"),
    "openai-agents": ("plain", "stream", "structured"),
    "pydantic-ai": ("plain", "stream", "structured"),
    "langchain": ("plain", "stream", "structured"),
}


def run(framework: str, base_url: str, mode: str):
    """The agent's final output for TASK: `run("pydantic-ai", url, "plain")` -> "...403..."."""
    return RUNNERS[framework](base_url, mode)


# ---------------------------------------------------------------------------------------------
# smolagents: ToolCallingAgent over OpenAIServerModel


def run_smolagents(base_url: str, mode: str):
    from smolagents import OpenAIServerModel, ToolCallingAgent, tool

    model = OpenAIServerModel(model_id=MODEL, api_base=base_url, api_key=API_KEY,
                              client_kwargs={"max_retries": 0, "timeout": SECONDS})
    agent = ToolCallingAgent(tools=[tool(get_time), tool(calculate)], model=model,
                             max_steps=MAX_STEPS, verbosity_level=0,
                             stream_outputs=(mode == "stream"))
    return str(agent.run(TASK))


# ---------------------------------------------------------------------------------------------
# OpenAI Agents SDK: Agent + Runner with the chat-completions model


def run_openai_agents(base_url: str, mode: str):
    from agents import (Agent, OpenAIChatCompletionsModel, Runner, function_tool,
                        set_tracing_disabled)
    from openai import AsyncOpenAI

    set_tracing_disabled(True)  # traces would otherwise be exported to OpenAI
    client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS)
    agent = Agent(name="assistant", instructions="Use the tools to answer.",
                  model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
                  tools=[function_tool(get_time), function_tool(calculate)],
                  output_type=Answer if mode == "structured" else None)

    async def go():
        async with client:  # closed inside the event loop that opened it
            if mode == "stream":
                result = Runner.run_streamed(agent, TASK, max_turns=MAX_STEPS)
                async for _ in result.stream_events():
                    pass
                return result.final_output
            return (await Runner.run(agent, TASK, max_turns=MAX_STEPS)).final_output

    return asyncio.run(go())


# ---------------------------------------------------------------------------------------------
# Pydantic AI: Agent over OpenAIChatModel with an OpenAIProvider


def run_pydantic_ai(base_url: str, mode: str):
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS)
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
    agent = Agent(model, tools=[get_time, calculate],
                  output_type=Answer if mode == "structured" else str)
    limits = UsageLimits(request_limit=MAX_STEPS)

    async def read_events(context, events):  # asking for events makes every request stream
        async for _ in events:
            pass

    async def go():
        async with client:  # closed inside the event loop that opened it
            # Not `agent.run_stream`: it ends the run at the first text the model streams, so a
            # model that says what it will do before its tool calls would end it there.
            handler = read_events if mode == "stream" else None
            result = await agent.run(TASK, usage_limits=limits, event_stream_handler=handler)
            return result.output

    return asyncio.run(go())


# ---------------------------------------------------------------------------------------------
# LangChain: its own agent (langchain.agents.create_agent) over ChatOpenAI


def run_langchain(base_url: str, mode: str):
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model=MODEL, base_url=base_url, api_key=API_KEY, max_retries=0,
                     timeout=SECONDS, streaming=(mode == "stream"))
    agent = create_agent(llm, tools=[get_time, calculate],
                         response_format=Answer if mode == "structured" else None)
    request = {"messages": [{"role": "user", "content": TASK}]}
    config = {"recursion_limit": 2 * MAX_STEPS + 1}  # a model call and a tool node per step
    if mode == "stream":  # token by token, as a chat UI would show it
        chunks = [token.content for token, _ in agent.stream(request, config, stream_mode="messages")
                  if token.type == "AIMessageChunk" and isinstance(token.content, str)]
        return "".join(chunks)
    state = agent.invoke(request, config)
    if mode == "structured":
        return state["structured_response"]
    return state["messages"][-1].content


RUNNERS = {"smolagents": run_smolagents, "openai-agents": run_openai_agents,
           "pydantic-ai": run_pydantic_ai, "langchain": run_langchain}


# ---------------------------------------------------------------------------------------------
# Tools that return a dict: the course's weather and country tasks (outside review). smolagents
# frames each task as "New task:\n<task>" and writes str() of the dict into its observation;
# the Agents SDK sends str() of the dict as the tool message. Both are Python's repr, not JSON.

WEATHER_TASKS = {  # task -> (the answer, the arguments of the calls, in order)
    "What's the weather in Paris, and should I take a coat?": (
        "It's 8 °C and light rain in Paris -- yes, take a coat and something waterproof.",
        [{"city": "Paris"}]),
    "What is the capital of Japan, and what is the weather there?": (
        "The capital of Japan is Tokyo (population 124.5 million, currency JPY). "
        "It's 15 °C and clear in Tokyo.",
        [{"country": "Japan"}, {"city": "Tokyo"}]),
}
CALLS: list[dict] = []  # the arguments of every call to the two tools below, in order


def get_weather(city: str) -> dict:
    """Get the current weather in a city (demo data).

    Args:
        city: The city's name in English, such as "Paris".
    """
    from agentlab import toolkit

    CALLS.append({"city": city})
    return toolkit.get_weather(city=city)


def lookup_country(country: str) -> dict:
    """Look up a country's capital city, population and currency (demo data).

    Args:
        country: The country's name in English, such as "Japan".
    """
    from agentlab import toolkit

    CALLS.append({"country": country})
    return toolkit.lookup_country(country=country)


def run_dict_tools(framework: str, base_url: str, task: str) -> tuple[str, list[dict]]:
    """(the agent's answer, the arguments of every tool call it made) for one weather task,
    with smolagents' ToolCallingAgent or the Agents SDK's Runner."""
    CALLS.clear()
    if framework == "smolagents":
        from smolagents import OpenAIServerModel, ToolCallingAgent, tool

        model = OpenAIServerModel(model_id=MODEL, api_base=base_url, api_key=API_KEY,
                                  client_kwargs={"max_retries": 0, "timeout": SECONDS})
        agent = ToolCallingAgent(tools=[tool(get_weather), tool(lookup_country)], model=model,
                                 max_steps=MAX_STEPS, verbosity_level=0)
        return str(agent.run(task)), list(CALLS)
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from agents import set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS)
    agent = Agent(name="assistant", instructions="Use the tools to answer.",
                  model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
                  tools=[function_tool(get_weather), function_tool(lookup_country)])

    async def go():
        async with client:  # closed inside the event loop that opened it
            return (await Runner.run(agent, task, max_turns=MAX_STEPS)).final_output

    return asyncio.run(go()), list(CALLS)
