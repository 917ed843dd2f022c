"""How fast differential fuzzing runs, and where its time goes (issue 37): a campaign of
`conformance fuzz` (its Python API, conformance/fuzz.py's Worker) against an engine, for
a time budget (or a number of batches) at a seed, reporting examples per second and the
split of the campaign's time:

    python -m benchmarks.fuzzing                          # llguidance, seed 3, 40 s
    python -m benchmarks.fuzzing --engine native --seconds 10 --seed 1
    python -m benchmarks.fuzzing --batches 4              # the same work on any machine
    python -m benchmarks.fuzzing --profile /tmp/fuzz.prof # and a cProfile of the run

The phases are timed around the calls that make them, in the campaign's own process (not
guessed from a profile):

  strategy    hypothesis: drawing each example (grammar, vocabulary), the tokens of its
              path and its target text, and the engine of the test (its generation
              and shrinking loop); the time outside the examples plus the draws inside
  refimpl     the oracle: compiling the grammar, building its Matcher (with the
              vocabulary's trie and slicer), its masks, consumes and is_accepting
  peer        the engine under test: start, masks, consumes, close
  comparison  the rest of an example: the masks compared, differences classified, the
              bookkeeping (the example's time less the three above)

The campaign is the one `python -m conformance fuzz --engine E --seed S --seconds T` runs
(one job, the default vocabulary mode and steps): the same seed draws the same examples in
the same order, so a faster campaign gets further through the same sequence.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import sys
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Type

from refimpl import Matcher
from refimpl.showing.commandline import ArgumentParser, command_line

PHASES = ("strategy", "refimpl", "peer", "comparison")


class Clock:
    """Seconds spent in each timed phase (time.perf_counter)."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {"refimpl": 0.0, "peer": 0.0, "draws": 0.0, "examples": 0.0}

    def timed(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - t0
        return call


def _timed_matcher(clock: Clock) -> Type[Matcher]:
    """Matcher with its construction and the calls the fuzzer makes timed as refimpl's."""

    class TimedMatcher(Matcher):
        __init__ = clock.timed("refimpl", Matcher.__init__)
        mask = clock.timed("refimpl", Matcher.mask)
        consume = clock.timed("refimpl", Matcher.consume)
        is_accepting = clock.timed("refimpl", Matcher.is_accepting)
        rollback = clock.timed("refimpl", Matcher.rollback)

    return TimedMatcher


class _TimedDraws:
    """The example's hypothesis data object, its draws timed as strategy."""

    def __init__(self, data: Any, clock: Clock) -> None:
        self.draw = clock.timed("draws", data.draw)


def _worker_class() -> type:
    from conformance.fuzz import Worker

    class TimedWorker(Worker):
        """The fuzzer's Worker with its phases timed: the engine's start and session calls
        (instance attributes, so a session stays what it is), the grammar cache, each
        example's whole time and its draws."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.timing = Clock()
            #: a digest of the examples drawn (grammar and vocabulary), in order: two runs
            #: with the same digest ran the same examples
            self.drawn = hashlib.sha256()
            start = self.engine.start

            def timed_start(*a: Any, **kw: Any) -> Any:
                session = self.timing.timed("peer", start)(*a, **kw)
                for name in ("mask", "consume", "close"):
                    setattr(session, name, self.timing.timed("peer", getattr(session, name)))
                return session

            self.engine.start = timed_start  # type: ignore[method-assign]
            self.grammars.get = self.timing.timed("refimpl", self.grammars.get)  # type: ignore[method-assign]

        def example(self, drawn: Any, data: Any) -> None:
            spec, vocab = drawn
            self.drawn.update(spec.key().encode() + b"\0" + b"\1".join(vocab.tokens) + b"\0")
            t0 = time.perf_counter()
            try:
                super().example(drawn, _TimedDraws(data, self.timing))
            finally:
                self.timing.seconds["examples"] += time.perf_counter() - t0

    return TimedWorker


@contextlib.contextmanager
def _matcher_timed_by(clock: Clock) -> Iterator[None]:
    """conformance.fuzz builds refimpl's Matcher by that name: the timed one meanwhile."""
    from conformance import fuzz

    kept = fuzz.Matcher
    fuzz.Matcher = _timed_matcher(clock)  # type: ignore[misc]
    try:
        yield
    finally:
        fuzz.Matcher = kept  # type: ignore[misc]


def measure(engine: str = "llguidance", seconds: Optional[float] = 40.0, seed: int = 3,
            batches: Optional[int] = None, vocab_mode: str = "mixed", max_steps: int = 8,
            profile: Optional[str] = None) -> Dict[str, Any]:
    """One campaign (one worker, as `conformance fuzz --jobs 1`): examples, masks
    compared, elapsed seconds, examples/s, and the seconds and share of each phase."""
    from conformance.fuzz import EXAMPLES_PER_BATCH, kinds_for
    from conformance.registry import get_engine

    kinds = kinds_for(get_engine(engine))
    worker = _worker_class()(engine, seconds, seed, 0, max_steps, batches)
    clock = worker.timing
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    t0 = time.perf_counter()
    with _matcher_timed_by(clock):
        if profiler is not None:
            profiler.enable()
        try:
            worker.run(kinds, vocab_mode, False, EXAMPLES_PER_BATCH)
        finally:
            if profiler is not None:
                profiler.disable()
    elapsed = time.perf_counter() - t0
    if profiler is not None and profile:
        profiler.dump_stats(profile)
    s = clock.seconds
    split = {
        "strategy": elapsed - s["examples"] + s["draws"],
        "refimpl": s["refimpl"],
        "peer": s["peer"],
        "comparison": s["examples"] - s["refimpl"] - s["peer"] - s["draws"],
    }
    stats = worker.stats
    return {"engine": engine, "seed": seed, "seconds": seconds, "batches": worker.batches,
            "examples": stats.examples, "invalid": stats.invalid, "masks": stats.steps, "agree": stats.agree,
            "disagreements": len(worker.failures), "elapsed": elapsed, "digest": worker.drawn.hexdigest()[:12],
            "examples_per_second": stats.examples / elapsed if elapsed else 0.0,
            "split": split, "share": {k: v / elapsed for k, v in split.items()}}


def table(rows: List[Dict[str, Any]]) -> str:
    lines = ["| engine | seed | budget | examples | masks | s | examples/s | "
             + " | ".join("%s s (%%)" % p for p in PHASES) + " | examples' digest |",
             "|---|---:|---|---:|---:|---:|---:|" + "---:|" * len(PHASES) + "---|"]
    for r in rows:
        budget = "%g s" % r["seconds"] if r["seconds"] is not None else "%d batches" % r["batches"]
        lines.append("| %s | %d | %s | %d | %d | %.1f | %.1f | %s | %s |" % (
            r["engine"], r["seed"], budget, r["examples"], r["masks"], r["elapsed"], r["examples_per_second"],
            " | ".join("%.1f (%.0f%%)" % (r["split"][p], 100 * r["share"][p]) for p in PHASES), r["digest"]))
    return "\n".join(lines)


def _main(argv: Optional[List[str]] = None) -> int:
    from . import common

    ap = ArgumentParser(prog="python -m benchmarks.fuzzing", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="llguidance", help="the engine fuzzed (default llguidance)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--seconds", type=float, help="the time budget (default 40 s unless --batches)")
    ap.add_argument("--batches", type=int, help="a budget of batches of 25 examples instead (or as well)")
    ap.add_argument("--vocab", default="mixed", help="the vocabulary mode (conformance fuzz --vocab)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the campaign to FILE")
    args = ap.parse_args(argv)
    from conformance.registry import UnknownEngine, get_engine
    from conformance.strategies import VOCAB_MODES

    try:
        reason = get_engine(args.engine).unavailable_reason()
    except UnknownEngine as e:
        ap.error("--engine: %s" % e)
    if reason is not None:
        ap.error("--engine %s cannot run here: %s" % (args.engine, reason))
    if args.vocab not in VOCAB_MODES:
        ap.error("--vocab must be one of %s" % ", ".join(VOCAB_MODES))
    seconds = 40.0 if args.seconds is None and args.batches is None else args.seconds
    info = common.machine()
    print("a fuzz campaign's time, phase by phase — %s" % info["date"])
    print("machine: %s, %s cores; %s; llguidance %s" % (info["cpu"], info["cores"], info["python"],
                                                        info["llguidance"] or "-"))
    print()
    print(table([measure(args.engine, seconds, args.seed, args.batches, args.vocab, profile=args.profile)]))
    return 0


main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    sys.exit(main())
