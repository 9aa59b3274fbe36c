"""agentlab: learn the agent loop by running it.

    from agentlab import run_agent, connect
    from agentlab.toolkit import calculate, get_time

    run = run_agent("What time is it, and what is 17 * 23 + sqrt(144)?", [calculate, get_time])
    print(run.answer)

Offline by default: the model is a scripted tutor reached through the official openai SDK.
Plots (agentlab.plots) and the playground (agentlab.widgets) are imported only when used, so
`import agentlab` loads neither matplotlib nor ipywidgets nor the openai SDK.
"""

from .loop import Limits, run_agent
from .models import ChatClient, Response, connect
from .pricing import Budget, Price, Unpriceable, estimate_cost
from .records import Run, Step, ToolCall, print_step
from .tools import Deny, Tool, Toolbox, tool

__version__ = "0.1.0"
__all__ = ["run_agent", "Limits", "connect", "ChatClient", "Response", "estimate_cost", "Price",
           "Budget", "Unpriceable", "Run", "Step", "ToolCall", "print_step", "tool", "Tool",
           "Toolbox", "Deny"]
