"""nbgrader for the class: one course, its exchange, and how a hand-in is graded.

Every server of the hub reads this file (deploy/jupyterhub_config.py puts deploy/ on each
server's JUPYTER_CONFIG_PATH); the nbgrader commands of docs/INSTRUCTORS.md ("Grading a class
with nbgrader") read it the same way. One class, one grader (nbgrader's docs, "Using nbgrader
with JupyterHub"): the teacher grades in their own server, where the formgrader runs.

What a student can read: the exchange's released notebooks (made without the solutions) and
their own feedback. The course's folder (the sources with the solutions, the submissions, the
gradebook) is the teacher's alone: AGENTLAB_NBGRADER_COURSE, which the hub sets for the
teacher's server only, in the teacher's home. nbgrader makes the exchange's inbound folder
writable but not readable by students, so nobody reads another's hand-in.
"""

import os

c = get_config()  # noqa: F821 (nbgrader defines get_config in the files it loads)

COURSE_ID = "agentlab"
# The exchange: where released assignments wait and hand-ins arrive. deploy/jupyterhub_config.py
# makes it at start (writable by all, the sticky bit set: nobody removes another's files) and
# tells every server where it is.
EXCHANGE = os.environ.get("AGENTLAB_EXCHANGE", "/var/lib/agentlab-exchange")

c.CourseDirectory.course_id = COURSE_ID
c.Exchange.root = EXCHANGE
if "AGENTLAB_NBGRADER_COURSE" in os.environ:  # the teacher's server, the grading commands
    c.CourseDirectory.root = os.path.expanduser(os.environ["AGENTLAB_NBGRADER_COURSE"])

# The student's version of a source notebook: each answer becomes `...`, the course's stub, as
# agentlab.course.sources makes notebooks/ (tests/test_nbgrader.py checks they agree).
c.ClearSolutions.code_stub = {"python": "..."}
# Autograde runs every notebook again in a fresh kernel, but a graded cell's verdict is taken
# outside it (agentlab.course.autograde): the kernel hands over the answers a graded cell names,
# and the teacher's process has them graded in a fresh process, after the kernel is gone. Only
# the first of nbgrader's autograde steps differs from nbgrader's own list.
c.Autograde.autograde_preprocessors = [
    "agentlab.course.autograde.GradeOutsideTheKernel",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# Every line of a hand-in's code (its kernel, its loop, its answers) runs in bubblewrap's
# sandbox, which holds nothing of the course (agentlab.course.sandbox; `apt install
# bubblewrap`). False grades without it: then a hand-in reads what the teacher can.
c.GradeOutsideTheKernel.sandbox = True
# The capstone's verdicts grade each group of rows in a fresh process: a cell may take a minute
# on a busy machine, never forever.
c.Execute.timeout = 300
