"""ns per trie node walked, mask time and memory: a quick comparison script, not a test.

    python -m benchmarks.mask_speed          # CPython
    pypy3 -m benchmarks.mask_speed           # PyPy

For each vocabulary (GPT-2; Tekken 131k when mistral-common is installed) and workload
(a full walk with `[^"]*` from the start; `[0-9]+`), with the slicer off (so that the
walk is the whole trie, as in llguidance's figure): the best of several warm masks, the
nodes walked, and ns per node — for refimpl's Python walker, for the C walker of
accel.native (when built: `pip install -e .`), and llguidance's time for the same mask
with its slicer off, when llguidance is installed, with the ratios python/llguidance and
native/llguidance. llguidance caches masks per lexer state, so its figure is the best
first mask of fresh matchers (which includes building the few lexer states these
regexes have). Memory (CPython): the trie's arrays, and what a Matcher allocates
(tracemalloc).
"""
from __future__ import annotations

import platform
import time

from conformance.peers import llguidance as llguidance_adapter
from refimpl import Grammar, Matcher, open_matcher

from .common import best_of
from .vocabs import available

WORKLOADS = [("full walk", '[^"]*'), ("digits", "[0-9]+")]
IN_STRING = r'"[^"\\\x00-\x1F\x7F]*"'  # a JSON-like string; masks are taken after its quote



def _native_reason():
    """None if the native backend is usable here, else why not."""
    try:
        from accel import native
    except ImportError as e:
        return str(e)
    return native.unavailable_reason()


def main() -> None:
    print("%s %s, %s" % (platform.python_implementation(), platform.python_version(), time.strftime("%Y-%m-%d")))
    native_reason = _native_reason()
    if native_reason is not None:
        print("(native columns empty: %s)" % native_reason)
    print("%-7s %-10s %8s %10s %9s %10s %9s %11s %9s %7s %11s" % (
        "vocab", "workload", "nodes", "mask ms", "ns/node", "native ms", "ns/node", "llg ms", "ns/node", "ratio", "native/llg"))
    for name, vocab in available().items():
        llg_tok = llguidance_adapter.tokenizer(vocab, slices=[])
        for label, pattern in WORKLOADS:
            m = Matcher(Grammar.from_regex(pattern), vocab, slices=[])
            m.mask()  # warm the lexer table
            seconds = best_of(m.mask, 5)
            nodes = m.stats["trie_nodes_walked"]
            native = native_ns = ""
            native_seconds = None
            if native_reason is None:
                mn = open_matcher(Grammar.from_regex(pattern), vocab, backend="native", slices=[])
                mn.mask()
                native_seconds = best_of(mn.mask, 50)
                assert mn.stats["trie_nodes_walked"] == nodes
                native = "%.3f" % (native_seconds * 1e3)
                native_ns = "%.1f" % (native_seconds * 1e9 / nodes)
            llg = llg_ns = ratio = native_ratio = ""
            if llg_tok is not None:
                llg_seconds = llguidance_adapter.first_mask_seconds(llg_tok, "regex", pattern)
                llg = "%.3f" % (llg_seconds * 1e3)
                llg_ns = "%.1f" % (llg_seconds * 1e9 / nodes)
                ratio = "%.0fx" % (seconds / llg_seconds)
                if native_seconds is not None:
                    native_ratio = "%.2fx" % (native_seconds / llg_seconds)
            print("%-7s %-10s %8d %10.2f %9.0f %10s %9s %11s %9s %7s %11s" % (
                name, label, nodes, seconds * 1e3, seconds * 1e9 / nodes, native, native_ns, llg, llg_ns, ratio, native_ratio))
        if platform.python_implementation() == "CPython":
            import tracemalloc

            tracemalloc.start()
            m = Matcher(Grammar.from_regex('[^"]*'), vocab)
            m.mask()
            current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print("%-7s trie %d nodes, %.1f MB of arrays; a Matcher after one mask: %.1f MB (peak %.1f MB)" % (
                name, len(vocab.trie), vocab.trie.nbytes() / 1e6, current / 1e6, peak / 1e6))


def slicer_table() -> None:
    """In-string masks with and without slices, and llguidance's ratio beside ours."""
    print("\nin-string mask (after the opening quote), with and without slices")
    print("%-7s %12s %12s %7s %14s %14s %7s"
          % ("vocab", "sliced ms", "plain ms", "ratio", "llg sliced ms", "llg plain ms", "ratio"))
    grammar = Grammar.from_regex(IN_STRING)
    for name, vocab in available().items():
        times = []
        for slices in (None, []):
            m = Matcher(grammar, vocab, slices=slices)
            m.consume_bytes(b'"')
            m.mask()
            times.append(best_of(m.mask, 5))
        llg = ["", "", ""]
        sliced_tok = llguidance_adapter.tokenizer(vocab, slices=None)
        if sliced_tok is not None:
            plain_tok = llguidance_adapter.tokenizer(vocab, slices=[])
            quote = vocab.tokens.index(b'"')
            lt = [llguidance_adapter.first_mask_seconds(tok, "regex", IN_STRING, after=[quote])
                  for tok in (sliced_tok, plain_tok)]
            llg = ["%.3f" % (lt[0] * 1e3), "%.3f" % (lt[1] * 1e3), "%.1fx" % (lt[1] / lt[0])]
        print("%-7s %12.2f %12.2f %6.1fx %14s %14s %7s" % (name, times[0] * 1e3, times[1] * 1e3, times[1] / times[0], *llg))


if __name__ == "__main__":
    main()
    slicer_table()
