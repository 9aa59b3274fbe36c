"""Where agentlab's default path spends its own time above the SDK floor: cProfile over runs
of a 20-step canned script, for agentlab's default offline path (connect("tutor") and its
in-process server), agentlab on the bare canned transport, and the SDK floor (the SDK alone on
agentlab's requests). Prints the time per step of each, grouped by source file.

    python benchmarks/profile_path.py [--runs 30] [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import collections
import pstats

import setups

STEPS = 20


def profile(name: str, runs: int) -> tuple[pstats.Stats, float]:
    setup = setups.build(name)
    setup.batch(STEPS, 3)  # warm-up
    profiler = cProfile.Profile()
    profiler.enable()
    seconds = setup.batch(STEPS, runs)
    profiler.disable()
    return pstats.Stats(profiler), seconds / runs / STEPS


def by_file(stats: pstats.Stats) -> dict:
    """Own time (tottime) summed per source file, a library's files shortened to their tail.

    Example: {('.../openai/_base_client.py', 10, 'f'): (..., tottime 0.2, ...)}
             -> {'openai/_base_client.py': 0.2}
    """
    totals = collections.Counter()
    for (path, _, function), (_, _, own, _, _) in stats.stats.items():
        parts = path.replace("\\", "/").split("/")
        key = "/".join(parts[-2:]) if len(parts) > 1 else f"{path}:{function}"
        totals[key] += own
    return totals


def report(runs: int = 30, top: int = 25) -> list[str]:
    lines = []
    results = {name: profile(name, runs) for name in ("agentlab-default", "agentlab", "sdk-floor")}
    steps = runs * STEPS
    for name, (stats, per_step) in results.items():
        lines.append(f"{name}: {1000 * per_step:.3f} ms a step (under the profiler)")
    lines.append(f"\nown time per step by file, microseconds (of {steps} steps):")
    files = {name: by_file(stats) for name, (stats, _) in results.items()}
    keys = sorted(files["agentlab-default"], key=files["agentlab-default"].get, reverse=True)
    lines.append(f"  {'file':44} {'default':>9} {'canned':>9} {'floor':>9}")
    for key in keys[:top]:
        row = [1e6 * files[name].get(key, 0.0) / steps for name in files]
        lines.append(f"  {key[-44:]:44} {row[0]:9.1f} {row[1]:9.1f} {row[2]:9.1f}")
    lines.append("\nagentlab-default, top functions by cumulative time:")
    stats = results["agentlab-default"][0]
    stats.sort_stats("cumulative")
    for func in stats.fcn_list[:top]:
        _, _, own, cumulative, _ = stats.stats[func]
        path, line, function = func
        where = "/".join(path.split("/")[-2:])
        lines.append(f"  {1e6 * cumulative / steps:8.1f} us cum {1e6 * own / steps:7.1f} own  "
                     f"{where}:{line} {function}")
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Profile agentlab's path against the SDK floor.")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    print("\n".join(report(args.runs, args.top)))
