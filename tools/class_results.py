"""The class's results for one assignment, row by row: a table, and a plot saved as a PNG.

    python tools/class_results.py ~/agentlab-course 08_grade_your_own_loop --plot results.png

Run it in the course's folder's owner's account (the teacher's server), after `nbgrader
autograde`: it reads the gradebook and the autograded notebooks (agentlab.course.class_results).
"""

from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv: list[str] | None = None) -> int:
    from agentlab.course.class_results import class_results, not_graded, plot_class_results

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course", type=pathlib.Path, help="the course's folder (gradebook.db)")
    parser.add_argument("assignment", help="e.g. 08_grade_your_own_loop")
    parser.add_argument("--plot", type=pathlib.Path, help="save the plot here (a .png)")
    args = parser.parse_args(argv)
    if not (args.course.expanduser() / "gradebook.db").exists():
        sys.exit(f"no gradebook.db in {args.course}: run nbgrader autograde there first")
    results = class_results(args.course, args.assignment)
    if failed := not_graded(args.course, args.assignment):
        print(f"not graded: {', '.join(failed)}: autograde failed on their hand-in (its log "
              "says why); the gradebook's marks for it, if any, are from an earlier run. Look "
              "at the hand-in, then grade it by hand in the formgrader or run autograde again.")
    if not results:
        sys.exit(f"no graded hand-in of {args.assignment} in {args.course}'s gradebook")
    width = max(map(len, results))
    for row, (held, graded) in results.items():
        print(f"{row:<{width}}  {held:>3} of {graded:<3} hold it")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = plot_class_results(results, title=f"{args.assignment}: which rows the class holds")
        ax.figure.savefig(args.plot, dpi=100)
        print(f"saved {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
