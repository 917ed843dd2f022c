"""How `conformance run` scales with its workers (issue 33): the same suite run by one
worker and by two, in one process, in a pool of processes, contained, and on a local Ray
cluster, the configurations alternated so that a change of the machine's load falls on
all of them alike:

    python -m benchmarks.scaling                           # refimpl, the default suite, 3 runs
    python -m benchmarks.scaling --engine native --suite maskbench.jsonl --config contained
    python -m benchmarks.scaling --markdown                # the table of docs/conformance.md

Each run is `python -m conformance run --engine E --suite S --results F --quiet` with the
configuration's options, timed from outside:

  wall        seconds from start to exit (the median of the runs, then every run)
  CPU         user + system seconds of the run and the processes it waited for ("-"
              where the work is done by processes it does not wait for: a pool's
              contained children, a Ray cluster's workers)
  speed-up    the 1-worker wall time over the 2-worker one, of the same configuration
              (medians)
  vectors/CPU-s  the suite's vectors over the CPU seconds (the throughput per core)
  load        the machine's 1-minute load average at the runs' starts (min-max): a
              second worker needs a free core to show a speed-up

Every run's results file must hold the same result for every vector (status, steps,
known differences): a configuration that changes an answer is an error, not a figure.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Tuple

from refimpl.showing.commandline import ArgumentParser, CommandLineError, command_line

# name: (workers, options of `conformance run`, whether its CPU time can be counted: the
# processes that do the work are children the run waits for; a pool's contained children
# are not, nor are a Ray cluster's workers)
CONFIGS: Dict[str, Tuple[int, Tuple[str, ...], bool]] = {
    "process": (1, ("--no-contain",), True),
    "process-2": (2, ("--no-contain", "--jobs", "2"), True),
    "contained": (1, (), True),
    "contained-2": (2, ("--jobs", "2"), False),
    "ray": (1, ("--ray", "--jobs", "1"), False),
    "ray-2": (2, ("--ray", "--jobs", "2"), False),
}
FAMILIES = ("process", "contained", "ray")
SAME = ("status", "steps", "known", "fault")


class Run:
    def __init__(self, config: str, wall: float, cpu: Optional[float], load: float, results: str):
        self.config, self.wall, self.cpu, self.load, self.results = config, wall, cpu, load, results


def run_once(config: str, engine: str, suite: Optional[str], directory: str, index: int) -> Run:
    """One timed `conformance run` of a configuration, its results in a new file."""
    results = os.path.join(directory, "%s.%d.jsonl" % (config, index))
    command = [sys.executable, "-m", "conformance", "run", "--engine", engine, "--quiet",
               "--max-repros", "0", "--results", results] + list(CONFIGS[config][1])
    if suite:
        command += ["--suite", suite]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode == 2:  # the run refused its arguments (an unknown engine, a bad suite): say so
        said = (done.stderr.strip().splitlines() or ["exit status 2"])[-1]
        raise CommandLineError("conformance run: %s" % said.replace("error: ", "", 1))
    if done.returncode not in (0, 1):
        raise SystemExit("error: %s exited %d: %s" % (" ".join(command), done.returncode,
                                                       done.stderr.strip()[-400:]))
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
           if CONFIGS[config][2] else None)
    return Run(config, wall, cpu, load, results)


def outcomes(path: str) -> Dict[str, Tuple[object, ...]]:
    """Each vector's result in a results file, as the fields a configuration must not change."""
    from conformance.results import read_results
    return {r["id"]: tuple(repr(r.get(f)) for f in SAME) for r in read_results(path)}


def measure(engine: str, suite: Optional[str], configs: Sequence[str], runs: int) -> Tuple[List[Run], int]:
    """Every configuration `runs` times, alternated; their results checked equal. Returns
    the runs and the suite's number of vectors."""
    measured: List[Run] = []
    with tempfile.TemporaryDirectory(prefix="maskref-scaling-") as directory:
        for index in range(runs):
            for config in configs:
                run = run_once(config, engine, suite, directory, index)
                print("  %-12s run %d: %.1f s wall, load %.1f" % (config, index + 1, run.wall, run.load),
                      file=sys.stderr)
                measured.append(run)
        first = outcomes(measured[0].results)
        if not first:
            raise SystemExit("error: the run wrote no results")
        for run in measured[1:]:
            if outcomes(run.results) != first:
                raise SystemExit("error: %s gave other results than %s" % (run.config, measured[0].config))
    return measured, len(first)


def table(measured: List[Run], vectors: int) -> str:
    """The markdown table of the runs, a row per configuration."""
    by: Dict[str, List[Run]] = {}
    for run in measured:
        by.setdefault(run.config, []).append(run)
    median = {config: statistics.median(r.wall for r in runs) for config, runs in by.items()}
    lines = ["| configuration | workers | wall, s: median (runs) | speed-up | CPU, s | vectors / CPU-s | load |",
             "|---|---|---|---|---|---|---|"]
    for config, runs in by.items():
        workers, options, _ = CONFIGS[config]
        family = config.split("-")[0]
        speedup = ("%.2f" % (median[family] / median[config])
                   if workers == 2 and family in median else "")
        cpus = [r.cpu for r in runs if r.cpu is not None]
        cpu = "%.1f" % statistics.median(cpus) if cpus else "-"
        rate = "%.0f" % (vectors / statistics.median(cpus)) if cpus else "-"
        loads = [r.load for r in runs]
        lines.append("| `%s` | %d | %.1f (%s) | %s | %s | %s | %.1f-%.1f |" % (
            " ".join(options) or "(contained)", workers, median[config],
            ", ".join("%.1f" % r.wall for r in runs), speedup, cpu, rate, min(loads), max(loads)))
    return "\n".join(lines)


def _main(argv: Optional[Sequence[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split("\n\n")[0],
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="refimpl")
    ap.add_argument("--suite", help="a .jsonl file of vectors (default: the default suite)")
    ap.add_argument("--config", action="append", choices=list(CONFIGS),
                    help="repeatable; default: every one (ray's only with Ray installed)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--markdown", action="store_true", help="print the table only")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    has_ray = importlib.util.find_spec("ray") is not None
    configs = args.config or [c for c in CONFIGS if not c.startswith("ray") or has_ray]
    if args.suite and not os.path.exists(args.suite):
        ap.error("--suite %s: no such file or directory" % args.suite)
    measured, vectors = measure(args.engine, args.suite, configs, args.runs)
    if not args.markdown:
        print("%s on %s (%d vectors), %d runs each, %s, %d cores" % (
            args.engine, args.suite or "the default suite", vectors, args.runs,
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count() or 0))
    print(table(measured, vectors))
    return 0


main = command_line(_main, mistakes=(OSError,))

if __name__ == "__main__":
    sys.exit(main())
