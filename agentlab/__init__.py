"""agentlab: learn the agent loop by running it.

    from agentlab import run_agent, connect
    from agentlab.toolkit import calculate, get_time

    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", [calculate, get_time])
    print(run.answer)

Offline by default: the model is a scripted tutor reached through the official openai SDK.

The package has three wings (docs/layout.md):
    agentlab/          the core, what chapter 51 describes: loop.py, guardrails.py, tools.py,
                       toolkit.py, records.py, pricing.py, masking.py, models.py
    agentlab/course/   the classroom: exercise checks, the grader, quizzes, playground, plots
    agentlab/tutor/, agentlab/server/   the offline model and its OpenAI-compatible HTTP face
Plots and the playground (agentlab.course) are imported only when used, so `import agentlab`
loads neither matplotlib nor ipywidgets nor the openai SDK.
"""

from . import _moved
from .guardrails import Budget, Deadline, Deny, Limits, RepeatGuard
from .loop import run_agent
from .models import ChatClient, Response, connect
from .pricing import Price, Unpriceable, estimate_cost
from .records import Run, Step, ToolCall, print_step
from .tools import Tool, Toolbox, tool

_moved.install()  # old module names (agentlab.exercises, agentlab.widgets, ...) still import

__version__ = "0.1.0"
__all__ = ["run_agent", "Limits", "connect", "ChatClient", "Response", "estimate_cost", "Price",
           "Budget", "Unpriceable", "Run", "Step", "ToolCall", "print_step", "tool", "Tool",
           "Toolbox", "Deny", "Deadline", "RepeatGuard"]
