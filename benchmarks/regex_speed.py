"""How fast is the derivative engine? A quick comparison script, not a test.

    python -m benchmarks.regex_speed            # CPython
    pypy3 -m benchmarks.regex_speed             # PyPy

Reports (1) cached DFA steps per second — a warm `LazyDFA.run` over a long input, where
each step is one list index — and (2) derivative computations per second: building whole
DFAs from fresh ExprSets, where every transition is a cache miss that computes a
derivative and hash-conses the result.
"""
from __future__ import annotations

import platform
import sys
import time

from refimpl.regex import ExprSet, LazyDFA, compile_pattern

from .common import best_of

PATTERNS = [
    r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?",
    r'"([^"\\]|\\.)*"',
    r"(a|aa)*b",
    r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*){0,5}",
    r"\w+@\w+\.(com|org|net)",
    r"(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}:\d{2}",
]



def cached_steps_per_second() -> float:
    es = ExprSet()
    dfa = LazyDFA(es, compile_pattern(es, r'"([^"\\]|\\.)*"'))
    data = b'"' + b'abc \\" xyz \\\\ 0123 ' * 50_000
    dfa.run(data)  # warm: every transition the input needs is now in the table
    seconds = best_of(lambda: dfa.run(data), 5)
    return len(data) / seconds


def explore(pattern: str) -> int:
    """Build the whole DFA of `pattern` (all 256 bytes from every state); return misses."""
    es = ExprSet()
    dfa = LazyDFA(es, compile_pattern(es, pattern))
    s = 0
    while s < len(dfa.states):
        for b in range(256):
            dfa.step(s, b)
        s += 1
    return dfa.transitions_computed


def derivatives_per_second() -> float:
    computed = 0
    t0 = time.perf_counter()
    for _ in range(3):
        for p in PATTERNS:
            computed += explore(p)
    return computed / (time.perf_counter() - t0)


def main() -> None:
    print("%s %s on %s" % (platform.python_implementation(), platform.python_version(), platform.machine()))
    steps = cached_steps_per_second()
    print("cached DFA steps:        %12.0f /s  (%.1f ns per step)" % (steps, 1e9 / steps))
    derivs = derivatives_per_second()
    print("derivative computations: %12.0f /s  (%.1f us each, incl. hash-consing)" % (derivs, 1e6 / derivs))


if __name__ == "__main__":
    main()
    sys.exit(0)
