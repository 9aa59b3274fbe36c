"""The classroom: what the notebooks use around the core to teach it.

    checks/          the exercise checks, one module per notebook
    gauntlet/        notebook 08's grader: grade(my_loop), a student's own loop, row by row
    quizzes.py       the open questions' self-checks (their text in quizzes.json)
    playground.py    notebook 05's ipywidgets playground: sliders for every limit
    plots.py         matplotlib figures of runs: steps, cost, tokens, time
    sweeps.py        task sets run under a range of limits; success rates (notebook 06)
    launcher.py      `agentlab course`: JupyterLab on the notebooks, offline
    handout.py       `agentlab course --student-copy`: the copy to hand out, without solutions

The classroom uses the core as a student's notebook does, by its public names
(`from agentlab.loop import run_agent`), and the offline model (agentlab.tutor,
agentlab.server) where a check needs a scripted model; nothing in the core or the offline
model imports the classroom. Nothing is imported here: `import agentlab.course.quizzes`
loads the quizzes alone.
"""

# The launcher's names, as `agentlab.course` offered them when it was one module.
_LAUNCHER = {"CourseError": "launcher", "open_course": "launcher", "find_notebooks": "launcher",
             "student_copy": "handout"}


def __getattr__(name: str):
    if name in _LAUNCHER:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAUNCHER[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
