"""Replaying inputs through a target without atheris, on any interpreter (PyPy too):
the regression inputs (hostile/regressions/<target>/), a fuzzing run's final corpus, or
any directory of inputs.

Each input runs once, timed; a `Replay` says how many ran, which broke the property (with
the Violation's message), the slowest input (its time and first bytes) and the process's
peak resident memory afterwards (ru_maxrss: the largest the process has been, so the
figure is the target's when a process replays one target only, as the campaign's replay
child does).
"""
from __future__ import annotations

import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .findings import head, name_of, record, signature
from .log import Say
from .property import Violation
from .targets import Target

#: the committed regression inputs: REGRESSIONS/<target name>/<sha1 of the bytes, 12 hex>
REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")


def peak_rss_mb() -> Optional[float]:
    """The process's peak resident set size in MB (None where the OS does not say)."""
    try:
        import resource
    except ImportError:
        return None
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kb / (1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0), 1)


def files(directory: str) -> List[str]:
    """The input files of a directory (sorted; none if it does not exist; hidden files and
    subdirectories left out)."""
    if not os.path.isdir(directory):
        return []
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if not n.startswith(".") and os.path.isfile(os.path.join(directory, n))]


def regression_files(target: Target) -> List[str]:
    return files(os.path.join(REGRESSIONS, target.name))


@dataclass
class Replay:
    target: str
    inputs: int = 0
    #: each input that broke the property: findings.record's entry (signature, input, size,
    #: hex) with its file's `name` and the Violation's `message`
    violations: List[Dict[str, Any]] = field(default_factory=list)
    slowest_seconds: float = 0.0
    slowest_input: str = ""
    slowest_head: str = ""
    peak_rss_mb: Optional[float] = None

    def to_json(self) -> Dict[str, Any]:
        return {"target": self.target, "inputs": self.inputs, "violations": self.violations,
                "slowest": {"seconds": round(self.slowest_seconds, 4), "input": self.slowest_input,
                            "head": self.slowest_head},
                "peak_rss_mb": self.peak_rss_mb}

    def summary(self) -> str:
        line = "%s: %d inputs, %d broke the property" % (self.target, self.inputs, len(self.violations))
        if self.inputs:
            line += "; slowest %.3f s (%s %s)" % (self.slowest_seconds, self.slowest_input, self.slowest_head)
        if self.peak_rss_mb is not None:
            line += "; peak RSS %.0f MB" % self.peak_rss_mb
        return line


def replay(target: Target, inputs: Iterable[Tuple[str, bytes]], say: Optional[Say] = None) -> Replay:
    """Run each (name, bytes) through the target once, timed (see the module's docstring);
    progress to `say`."""
    out = Replay(target.name)
    for name, data in inputs:
        if say is not None:
            say("%s: replayed %d inputs, %d broke the property" % (target.name, out.inputs, len(out.violations)))
        start = time.perf_counter()
        try:
            target.run(data)
        except Violation as v:
            out.violations.append(dict(record(signature(v), data), name=name, message=str(v)[:300]))
        seconds = time.perf_counter() - start
        out.inputs += 1
        if seconds >= out.slowest_seconds:
            out.slowest_seconds, out.slowest_input, out.slowest_head = seconds, name, head(data)
    out.peak_rss_mb = peak_rss_mb()
    return out


def read_inputs(paths: Iterable[str]) -> Iterable[Tuple[str, bytes]]:
    """(name, bytes) of each file; the name is the file's (a corpus's files are named by
    their sha1 already)."""
    for path in paths:
        with open(path, "rb") as f:
            yield os.path.basename(path), f.read()


def seed_inputs(target: Target, at_most: Optional[int] = None) -> List[Tuple[str, bytes]]:
    """The target's seeds as (name, bytes), each once, sorted by name; with `at_most`, a
    deterministic sample of that many (random.Random(0)) when there are more."""
    seen: Dict[str, bytes] = {}
    for data in target.seeds():
        seen.setdefault(name_of(data), data)
    seeds = sorted(seen.items())
    if at_most is not None and len(seeds) > at_most:
        seeds = sorted(random.Random(0).sample(seeds, at_most))
    return seeds
