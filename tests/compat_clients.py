"""Clients the outside review pointed at `agentlab serve` (issue 32), each written as its own
docs show it, against an OpenAI-compatible URL (tests/test_compat_clients.py).

    run_semantic_kernel     Semantic Kernel: plugins, whose tools it names "<plugin>-<function>"
    run_agno_json_mode      agno's Agent with output_schema and use_json_mode=True
    run_langchain_json_mode LangChain's with_structured_output(..., method="json_mode")
    run_langchain_weather   LangChain's create_agent with a weather tool, for a named city
    run_dspy_json_adapter   DSPy's ReAct under its JSONAdapter
    run_openai_parse        openai-python's parse helper after a tool loop written by hand,
                            the tool's results sent as JSON-encoded strings

The frameworks are imported inside each function, so this file imports without them.
Nothing here reaches the network: the base URL is the caller's, telemetry is off.
"""

from __future__ import annotations

import asyncio
import json

from compat_frameworks import (API_KEY, MAX_STEPS, MODEL, SECONDS, TASK, Answer, calculate,
                               get_time)
from pydantic import BaseModel

WEATHER = {"city": "", "temp_c": 18, "conditions": "clear"}  # the weather tool's fixed answer
CALLS: list[dict] = []  # the arguments of every call to weather() below, in order


def weather(city: str) -> dict:
    """Get the current weather in a city.

    Args:
        city: The city's name, as the user wrote it.
    """
    CALLS.append({"city": city})
    return {**WEATHER, "city": city}


# ---------------------------------------------------------------------------------------------
# Semantic Kernel


def run_semantic_kernel(base_url: str, task: str = TASK) -> str:
    """The task through a kernel with three plugins and automatic function calling."""
    from openai import AsyncOpenAI
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior
    from semantic_kernel.connectors.ai.open_ai import (OpenAIChatCompletion,
                                                       OpenAIChatPromptExecutionSettings)
    from semantic_kernel.contents import ChatHistory
    from semantic_kernel.functions import kernel_function

    class TimePlugin:
        @kernel_function(description="Get the current time in UTC.")
        def get_time(self) -> str:
            return get_time()

    class MathPlugin:
        @kernel_function(description="Evaluate an arithmetic expression safely.")
        def calculate(self, expression: str) -> float:
            return calculate(expression)

    class WeatherPlugin:
        @kernel_function(description="Get the current weather in a city.")
        def get_weather(self, city: str) -> str:
            return json.dumps(weather(city), ensure_ascii=False)

    async def go():
        async with AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0,
                               timeout=SECONDS) as client:
            kernel = Kernel()
            service = OpenAIChatCompletion(ai_model_id=MODEL, async_client=client)
            kernel.add_service(service)
            for plugin in (TimePlugin(), MathPlugin(), WeatherPlugin()):
                kernel.add_plugin(plugin, type(plugin).__name__)
            settings = OpenAIChatPromptExecutionSettings(
                function_choice_behavior=FunctionChoiceBehavior.Auto())
            history = ChatHistory()
            history.add_user_message(task)
            reply = await service.get_chat_message_content(history, settings, kernel=kernel)
            return str(reply)

    CALLS.clear()
    return asyncio.run(go())


# ---------------------------------------------------------------------------------------------
# agno


def run_agno_json_mode(base_url: str) -> Answer:
    from agno.agent import Agent
    from agno.models.openai import OpenAIChat

    model = OpenAIChat(id=MODEL, base_url=base_url, api_key=API_KEY, max_retries=0,
                       timeout=SECONDS)
    agent = Agent(model=model, tools=[get_time, calculate], output_schema=Answer,
                  use_json_mode=True, telemetry=False)
    return agent.run(TASK).content


# ---------------------------------------------------------------------------------------------
# LangChain


class AnswerWithJustification(BaseModel):
    """LangChain's json_mode example, as its docs write it."""

    answer: str
    justification: str


JSON_MODE_PROMPT = ("Answer the following question. Make sure to return a JSON blob with keys "
                    "'answer' and 'justification'.\n\nWhat's heavier a pound of bricks or a "
                    "pound of feathers?")


def _chat_openai(base_url: str):
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model=MODEL, base_url=base_url, api_key=API_KEY, max_retries=0,
                      timeout=SECONDS)


def run_langchain_json_mode(base_url: str) -> AnswerWithJustification:
    structured = _chat_openai(base_url).with_structured_output(AnswerWithJustification,
                                                               method="json_mode")
    return structured.invoke(JSON_MODE_PROMPT)


def run_langchain_weather(base_url: str, city: str) -> tuple[str, list[dict]]:
    """(the agent's answer, the arguments of its weather calls) for the weather in a city."""
    from langchain.agents import create_agent

    CALLS.clear()
    agent = create_agent(_chat_openai(base_url), tools=[weather])
    state = agent.invoke({"messages": [{"role": "user",
                                        "content": f"What's the weather in {city}?"}]},
                         {"recursion_limit": 2 * MAX_STEPS + 1})
    return state["messages"][-1].content, list(CALLS)


# ---------------------------------------------------------------------------------------------
# DSPy


def run_dspy_json_adapter(base_url: str) -> str:
    import dspy

    lm = dspy.LM(f"openai/{MODEL}", api_base=base_url, api_key=API_KEY, cache=False,
                 num_retries=0, timeout=SECONDS)
    react = dspy.ReAct("question -> answer", tools=[get_time, calculate], max_iters=MAX_STEPS)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return react(question=TASK).answer


# ---------------------------------------------------------------------------------------------
# openai-python's parse helper, after a loop that sends each result as a JSON-encoded string


class Fahrenheit(BaseModel):
    city: str
    fahrenheit: float
    conditions: str


FAHRENHEIT_TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city (Celsius).",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "calculate", "description": "Evaluate an arithmetic expression.",
        "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                       "required": ["expression"]}}},
]


def run_openai_parse(base_url: str, city: str) -> Fahrenheit:
    """The weather in a city in Fahrenheit: the tutor calls get_weather, then calculate; each
    result goes back as json.dumps(str(result)), as a loop that stringifies does; then
    client.chat.completions.parse reads the answer into Fahrenheit."""
    from openai import OpenAI

    tools = {"get_weather": weather, "calculate": calculate}
    messages = [{"role": "user", "content": f"What's the weather in {city}, in Fahrenheit?"}]
    with OpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS) as client:
        for _ in range(MAX_STEPS):
            reply = client.chat.completions.create(model=MODEL, messages=messages,
                                                   tools=FAHRENHEIT_TOOLS)
            message = reply.choices[0].message
            if not message.tool_calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                result = tools[call.function.name](**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": json.dumps(str(result))})
        parsed = client.chat.completions.parse(model=MODEL, messages=messages,
                                               response_format=Fahrenheit)
    return parsed.choices[0].message.parsed

