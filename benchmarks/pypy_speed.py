"""The pypy backend against CPython's python backend: mask time, a measurement, not a test.

    python -m benchmarks.pypy_speed [--repeat N] [--warmup N]

For each vocabulary (GPT-2; Tekken 131k from tests/data/vocab) and workload, warm masks
only (the lexer table filled, PyPy's JIT warmed by `--warmup` masks first):

  cpython ms   refimpl's Matcher (Python walker) in this (CPython) process
  pypy ms      the same mask inside the PyPy worker (its own clock: `mask_ns`)
  rt ms        the pypy backend's round trip as the caller sees it: request, mask,
               bitmask encoding, base64, pipe, decoding into a Mask
  speed-up     cpython / pypy, and cpython / rt: of the medians, and [of the bests]

Times are the median of `--repeat` masks [best in brackets]. On a loaded machine the
medians of sub-millisecond masks are mostly scheduling noise; the bests are closer to what
an idle machine gives.
"""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from typing import Callable, List, Optional, Sequence, Tuple

from accel import pypy
from refimpl import Grammar, Matcher, Vocabulary, open_matcher
from refimpl.showing.commandline import ArgumentParser, CommandLineError, command_line, count, positive_int

HERE = os.path.dirname(os.path.abspath(__file__))
TEKKEN = os.path.join(HERE, os.pardir, "tests", "data", "vocab", "mistral_nemo_tekken.json.gz")

JSONISH = r"""
start: "{" pair ("," pair)* "}"
pair: KEY ":" value
value: STRING | NUMBER | "true" | "false" | "null" | "[" (value ("," value)*)? "]" | start
KEY: /"[a-z_]+"/
STRING: /"([^"\\\x00-\x1F\x7F]|\\["\\\/bfnrt])*"/
NUMBER: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/
%ignore /[ \t\n\r]+/
"""

#: (label, grammar, slices (None: the default JSON slices), prefix bytes consumed first)
WORKLOADS: List[Tuple[str, Callable[[], Grammar], Optional[Sequence[str]], bytes]] = [
    ("full walk [^\"]*", lambda: Grammar.from_regex('[^"]*'), [], b""),
    ("[0-9]+", lambda: Grammar.from_regex("[0-9]+"), None, b""),
    ("in-string, sliced", lambda: Grammar.from_regex(r'"[^"\\\x00-\x1F\x7F]*"'), None, b'"'),
    ("lark JSON, number", lambda: Grammar.from_lark(JSONISH), None, b'{"key": [1, 23'),
    ("lark JSON, string", lambda: Grammar.from_lark(JSONISH), None, b'{"key": "va'),
]


def vocabularies() -> List[Tuple[str, Vocabulary]]:
    out = [("gpt2", Vocabulary.load("gpt2"))]
    if os.path.exists(TEKKEN):
        out.append(("tekken", Vocabulary.load(TEKKEN)))
    return out


def timed(fn: Callable[[], object], n: int) -> List[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - t0) / 1e6)
    return out


def fmt(times: List[float]) -> str:
    return "%8.3f [%7.3f]" % (statistics.median(times), min(times))


def _main(argv: Optional[List[str]] = None) -> int:
    parser = ArgumentParser(prog="python -m benchmarks.pypy_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=positive_int, default=20, help="masks timed per workload (default 20)")
    parser.add_argument("--warmup", type=count, default=15, help="masks before timing (default 15)")
    args = parser.parse_args(argv)
    reason = pypy.unavailable_reason()
    if reason is not None:
        raise CommandLineError("cannot measure: %s" % reason)
    version = subprocess.run([pypy.pypy_executable(), "--version"], capture_output=True, text=True).stdout.split("\n")
    print("%s %s vs %s; %s" % (platform.python_implementation(), platform.python_version(),
                               " ".join(v.strip() for v in version if v.strip()), time.strftime("%Y-%m-%d")))
    print("%-7s %-18s %7s %18s %18s %18s %14s %14s" % (
        "vocab", "workload", "nodes", "cpython ms", "pypy ms", "pypy rt ms", "speed-up", "rt speed-up"))
    ratios = []
    for vname, vocab in vocabularies():
        for label, make, slices, prefix in WORKLOADS:
            grammar = make()
            local = Matcher(grammar, vocab, slices=slices)
            remote = open_matcher(grammar, vocab, backend="pypy", slices=slices)
            assert local.consume_bytes(prefix) and remote.consume_bytes(prefix)
            assert local.mask() == remote.mask()  # the same answer, and both warm
            local_ms = timed(local.mask, max(3, args.repeat // 2))
            nodes = local.stats["trie_nodes_walked"]
            for _ in range(args.warmup):
                remote.mask()
            inside: List[float] = []
            roundtrip: List[float] = []
            for _ in range(args.repeat):
                remote.mask()
                inside.append(remote.last_mask_ns / 1e6)
                roundtrip.append(remote.last_roundtrip_ns / 1e6)
            remote.close()
            r = (
                statistics.median(local_ms) / statistics.median(inside), min(local_ms) / min(inside),
                statistics.median(local_ms) / statistics.median(roundtrip), min(local_ms) / min(roundtrip),
            )
            ratios.append(r)
            print("%-7s %-18s %7d %18s %18s %18s %5.1fx [%5.1fx] %5.1fx [%5.1fx]" % (
                (vname, label, nodes, fmt(local_ms), fmt(inside), fmt(roundtrip)) + r))
    means = [statistics.geometric_mean([r[i] for r in ratios]) for i in range(4)]
    print("geometric mean speed-up: %.1fx [%.1fx] on mask computation, %.1fx [%.1fx] round trip" % tuple(means))
    return 0


#: the command (a mistake in the arguments, or no PyPy: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    raise SystemExit(main())
