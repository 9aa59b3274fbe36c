"""Loop overhead per step and cold start: agentlab against smolagents, the OpenAI Agents SDK and
Pydantic AI, on one scripted task, in one run on one machine.

The task: a model that asks for get_weather("Paris"), then calculate("8 * 9 / 5 + 32"), then
answers "done" (three model calls, two tool calls). Each framework gets the same two trivial
tools and its own offline scripted model (Pydantic AI's FunctionModel, an Agents SDK Model
subclass, a smolagents Model subclass, agentlab's LocalClient), so what is timed is the
framework's own loop: building requests, checking and running tools, recording results.

    python benchmarks/frameworks.py            # needs: pip install -e ".[bench]"

Frameworks that are not installed are skipped with a note.
"""

from __future__ import annotations

import functools
import importlib.util
import pathlib
import statistics
import subprocess
import tempfile
import sys
import time

TOOLS = '''
def get_weather(city: str) -> dict:
    """Get the weather in a city.

    Args:
        city: The city.
    """
    return {"city": city, "temp_c": 8}


def calculate(expression: str) -> float:
    """Evaluate arithmetic.

    Args:
        expression: The arithmetic.
    """
    return 46.4
'''

SCRIPT = '''
CALLS = [("get_weather", {"city": "Paris"}), ("calculate", {"expression": "8 * 9 / 5 + 32"})]
'''

SETUPS = {
    "agentlab": TOOLS + SCRIPT + '''
from agentlab import Limits, run_agent, tool
from agentlab.models import LocalClient


def respond(model, messages, tools, tool_choice):
    done = sum(1 for m in messages if m["role"] == "tool")
    if done < len(CALLS):
        name, args = CALLS[done]
        import json
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{done}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
    return {"role": "assistant", "content": "done"}


client = LocalClient(respond)
tools = [tool(get_weather), tool(calculate)]


def run():
    return run_agent("Weather in Paris, in Fahrenheit?", tools, client=client).answer
''',
    "pydantic-ai": TOOLS + SCRIPT + '''
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel


def respond(messages, info):
    done = sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
    if done < len(CALLS):
        name, args = CALLS[done]
        return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args, tool_call_id=f"c{done}")])
    return ModelResponse(parts=[TextPart("done")])


agent = Agent(FunctionModel(respond), tools=[get_weather, calculate])


def run():
    return agent.run_sync("Weather in Paris, in Fahrenheit?").output
''',
    "openai-agents": TOOLS + SCRIPT + '''
import json

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

set_tracing_disabled(True)  # no trace export: nothing may leave this machine


def kind(item):
    return item.get("type") if isinstance(item, dict) else getattr(item, "type", None)


class Scripted(Model):
    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None, prompt=None):
        done = sum(kind(i) == "function_call_output" for i in input) if isinstance(input, list) else 0
        if done < len(CALLS):
            name, args = CALLS[done]
            out = [ResponseFunctionToolCall(id=f"f{done}", call_id=f"c{done}", name=name,
                                            arguments=json.dumps(args), type="function_call")]
        else:
            out = [ResponseOutputMessage(id="m", role="assistant", status="completed", type="message",
                                         content=[ResponseOutputText(text="done", annotations=[], type="output_text")])]
        return ModelResponse(output=out, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


agent = Agent(name="bench", model=Scripted(), tools=[function_tool(get_weather), function_tool(calculate)])


def run():
    return Runner.run_sync(agent, "Weather in Paris, in Fahrenheit?").final_output
''',
    "smolagents": TOOLS + SCRIPT + '''
from smolagents import ChatMessage, Model, ToolCallingAgent, tool
from smolagents.models import ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole
from smolagents.monitoring import TokenUsage


def role(m):
    return m.get("role") if isinstance(m, dict) else m.role


class Scripted(Model):
    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        done = sum(role(m) == MessageRole.TOOL_RESPONSE for m in messages)
        name, args = CALLS[done] if done < len(CALLS) else ("final_answer", {"answer": "done"})
        call = ChatMessageToolCall(id=f"c{done}", type="function",
                                   function=ChatMessageToolCallFunction(name=name, arguments=args))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call],
                           token_usage=TokenUsage(input_tokens=10, output_tokens=10))


agent = ToolCallingAgent(tools=[tool(get_weather), tool(calculate)], model=Scripted(model_id="scripted"),
                         verbosity_level=0, max_steps=10)


def run():
    return agent.run("Weather in Paris, in Fahrenheit?")
''',
}
STEPS = 3  # model calls per run of the scripted task


@functools.lru_cache(maxsize=1)
def _folder() -> pathlib.Path:
    return pathlib.Path(tempfile.mkdtemp(prefix="agentlab-bench-"))


def script(name: str) -> pathlib.Path:
    """The framework's setup as a file (smolagents reads its tools' source, so exec won't do)."""
    path = _folder() / f"bench_{name.replace('-', '_')}.py"
    if not path.exists():
        path.write_text(SETUPS[name] + '\n\nif __name__ == "__main__":\n    print(run())\n')
    return path


def load(name: str):
    path = script(name)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module.run


def available() -> dict:
    runners = {}
    for name in SETUPS:
        try:
            run = load(name)
            answer = run()
        except ImportError as e:
            print(f"  {name}: skipped ({e.name} is not installed: pip install -e '.[bench]')")
            continue
        assert "done" in str(answer), f"{name} answered {answer!r}"
        runners[name] = run
    return runners


def per_step(rounds: int = 15, runs_per_batch: int = 20) -> dict:
    """Median seconds per step of each framework, timed in alternating batches."""
    runners = available()
    samples: dict = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            start = time.perf_counter()
            for _ in range(runs_per_batch):
                run()
            samples[name].append((time.perf_counter() - start) / runs_per_batch / STEPS)
    return {name: statistics.median(s) for name, s in samples.items()}


def cold_start(repeats: int = 5) -> dict:
    """Median seconds for a fresh Python process to import, build the agent and answer."""
    names = [n for n in SETUPS if _importable(n)]
    samples: dict = {name: [] for name in names}
    for _ in range(repeats):
        for name in names:
            start = time.perf_counter()
            out = subprocess.run([sys.executable, str(script(name))],
                                 capture_output=True, text=True, timeout=120)
            samples[name].append(time.perf_counter() - start)
            assert "done" in out.stdout, f"{name}: {out.stderr[-500:]}"
    return {name: statistics.median(s) for name, s in samples.items()}


def _importable(name: str) -> bool:
    module = {"agentlab": "agentlab", "pydantic-ai": "pydantic_ai", "openai-agents": "agents",
              "smolagents": "smolagents"}[name]
    return importlib.util.find_spec(module) is not None


def table(title: str, figures: dict, unit: str, scale: float) -> str:
    base = figures.get("agentlab")
    lines = [f"{title}", f"  {'framework':15} {unit:>12} {'x agentlab':>11}"]
    for name, value in sorted(figures.items(), key=lambda kv: kv[1]):
        ratio = f"{value / base:10.1f}x" if base else ""
        lines.append(f"  {name:15} {value * scale:12.3f} {ratio}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table("Loop overhead per step (median, in process)", per_step(), "ms/step", 1000))
    print(table("Cold start to first answer (median of 5 fresh processes)", cold_start(), "s", 1))
