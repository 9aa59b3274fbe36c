"""The course's task through the agent protocols beyond native tool calls, each driven by a
framework's own agent against an OpenAI-compatible URL (tests/test_compat_protocols.py).

    run_agents_sdk_defaults  the OpenAI Agents SDK as its docs show it: Agent(model=...) and
                             Runner, no model class given, so it speaks the Responses API
    run_responses_by_hand    a tool loop written with client.responses.create (plain/stream)
    run_llamaindex_react     LlamaIndex's ReActAgent: tools in the prompt, Thought / Action /
                             Action Input / Observation in text
    run_smolagents_code      smolagents' CodeAgent: the model writes Python that calls the tools
    run_instructor           instructor's JSON and MD_JSON modes: the schema written into the
                             messages, the object read from the reply's text
    run_dspy_react           DSPy's ReAct (its ChatAdapter's [[ ## field ## ]] text protocol)

The frameworks are imported inside each function, so this file imports without them.
Nothing here reaches the network: the base URL is the caller's, tracing and telemetry are off.
"""

from __future__ import annotations

import asyncio
import json

from compat_frameworks import (API_KEY, FIXED_TIME, MAX_STEPS, MODEL, SECONDS, TASK, Answer,
                               calculate, get_time)
from pydantic import BaseModel

TOOLS = {"get_time": get_time, "calculate": calculate}
RESPONSES_TOOLS = [  # the two tools in the Responses API's function-tool shape
    {"type": "function", "name": "get_time", "description": "Get the current time in UTC.",
     "strict": True, "parameters": {"type": "object", "properties": {}, "required": [],
                                    "additionalProperties": False}},
    {"type": "function", "name": "calculate",
     "description": "Evaluate an arithmetic expression safely.", "strict": True,
     "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                    "required": ["expression"], "additionalProperties": False}},
]


# ---------------------------------------------------------------------------------------------
# The Responses API


def run_agents_sdk_defaults(mode: str):
    """The Agents SDK with its defaults: the model named as a string, the client from
    OPENAI_BASE_URL and OPENAI_API_KEY (the caller sets them), the Responses API."""
    from agents import Agent, Runner, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    agent = Agent(name="assistant", instructions="Use the tools to answer.", model=MODEL,
                  tools=[function_tool(get_time), function_tool(calculate)],
                  output_type=Answer if mode == "structured" else None)

    async def go():
        if mode == "stream":
            result = Runner.run_streamed(agent, TASK, max_turns=MAX_STEPS)
            async for _ in result.stream_events():
                pass
            return result.final_output
        return (await Runner.run(agent, TASK, max_turns=MAX_STEPS)).final_output

    return asyncio.run(go())


def run_responses_by_hand(base_url: str, mode: str) -> str:
    """The agent loop written by hand over client.responses.create: call, run the tools,
    send their outputs with previous_response_id, until the model answers."""
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS) as client:
        previous, given = None, TASK
        for _ in range(MAX_STEPS):
            fields = dict(model=MODEL, input=given, tools=RESPONSES_TOOLS,
                          previous_response_id=previous)
            if mode == "stream":
                with client.responses.stream(**fields) as stream:
                    response = stream.get_final_response()
            else:
                response = client.responses.create(**fields)
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                return response.output_text
            given = [{"type": "function_call_output", "call_id": call.call_id,
                      "output": json.dumps(TOOLS[call.name](**json.loads(call.arguments)))}
                     for call in calls]
            previous = response.id
    raise RuntimeError(f"no answer after {MAX_STEPS} steps")


# ---------------------------------------------------------------------------------------------
# Text ReAct: LlamaIndex's ReActAgent


def _llamaindex_llm(base_url: str):
    """A LlamaIndex LLM over the official openai SDK's chat completions.

    llama-index-llms-openai would be the usual one, but it requires openai<3 and the Agents SDK
    openai>=3, so the two cannot be installed together; this stand-in is the few lines of it
    that ReActAgent uses (chat, streamed or not). The prompt, the parsing of the model's text
    and the loop are all ReActAgent's own.
    """
    from llama_index.core.base.llms.types import (ChatMessage, ChatResponse,
                                                  CompletionResponse, LLMMetadata)
    from llama_index.core.llms import CustomLLM
    from openai import AsyncOpenAI

    class OpenAIChat(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name=MODEL, is_chat_model=True)

        def complete(self, prompt, formatted=False, **kwargs):
            raise NotImplementedError("ReActAgent chats")

        def stream_complete(self, prompt, formatted=False, **kwargs):
            raise NotImplementedError("ReActAgent chats")

        async def achat(self, messages, **kwargs):
            async with AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0,
                                   timeout=SECONDS) as client:
                reply = await client.chat.completions.create(model=MODEL, messages=[
                    {"role": m.role.value, "content": m.content or ""} for m in messages])
            text = reply.choices[0].message.content or ""
            return ChatResponse(message=ChatMessage(role="assistant", content=text))

        async def astream_chat(self, messages, **kwargs):
            response = await self.achat(messages)

            async def one_delta():
                yield ChatResponse(message=response.message, delta=response.message.content)

            return one_delta()

    return OpenAIChat()


def run_llamaindex_react(base_url: str) -> str:
    from llama_index.core.agent.workflow import ReActAgent
    from llama_index.core.tools import FunctionTool

    agent = ReActAgent(tools=[FunctionTool.from_defaults(get_time),
                              FunctionTool.from_defaults(calculate)],
                       llm=_llamaindex_llm(base_url), streaming=False)

    async def go():
        return str(await agent.run(user_msg=TASK, max_iterations=2 * MAX_STEPS))

    return asyncio.run(go())


# ---------------------------------------------------------------------------------------------
# Code actions: smolagents' CodeAgent


def run_smolagents_code(base_url: str) -> str:
    from smolagents import CodeAgent, OpenAIServerModel, tool

    model = OpenAIServerModel(model_id=MODEL, api_base=base_url, api_key=API_KEY,
                              client_kwargs={"max_retries": 0, "timeout": SECONDS})
    agent = CodeAgent(tools=[tool(get_time), tool(calculate)], model=model,
                      max_steps=MAX_STEPS, verbosity_level=0)
    return str(agent.run(TASK))


# ---------------------------------------------------------------------------------------------
# A schema written into the messages: instructor's JSON and MD_JSON modes


class City(BaseModel):
    """What the text says about a city."""

    name: str
    country: str
    population_millions: float


CITY_TEXT = "Tokyo is the capital of Japan, and about 14 million people live there."


def run_instructor(base_url: str, mode: str) -> City:
    import instructor
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key=API_KEY, max_retries=0, timeout=SECONDS) as client:
        patched = instructor.from_openai(client, mode={"json": instructor.Mode.JSON,
                                                       "md_json": instructor.Mode.MD_JSON}[mode])
        return patched.chat.completions.create(
            model=MODEL, response_model=City, max_retries=0,
            messages=[{"role": "user", "content": f"Extract the city: {CITY_TEXT}"}])


def run_pydantic_ai_prompted(base_url: str) -> Answer:
    """Pydantic AI's PromptedOutput: the schema written into the instructions, the answer
    read as JSON from the reply's text, after native tool calls."""
    from openai import AsyncOpenAI
    from pydantic_ai import Agent, PromptedOutput
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def go():
        client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0,
                             timeout=SECONDS)
        async with client:  # closed inside the event loop that opened it
            model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
            agent = Agent(model, tools=[get_time, calculate],
                          output_type=PromptedOutput(Answer))
            return (await agent.run(TASK)).output

    return asyncio.run(go())


# ---------------------------------------------------------------------------------------------
# DSPy's ReAct


def run_dspy_react(base_url: str) -> str:
    import dspy

    lm = dspy.LM(f"openai/{MODEL}", api_base=base_url, api_key=API_KEY, cache=False,
                 num_retries=0, timeout=SECONDS)
    react = dspy.ReAct("question -> answer", tools=[get_time, calculate],
                       max_iters=MAX_STEPS)
    with dspy.context(lm=lm):
        return react(question=TASK).answer


EXPECTED_TIME = FIXED_TIME
