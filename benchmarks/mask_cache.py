"""The mask cache (refimpl/masks/maskcache.py) on issue 17's workload: a JSON array of 50
objects of a small schema on GPT-2, token by token (greedy longest tokens). Per-step mask
time after the first element — the python and native backends with the cache off and on,
and llguidance on the same tokens — medians of one run, ratios within it:

    python -m benchmarks.mask_cache
"""
from __future__ import annotations

import json
import statistics
import time
from typing import Callable, Dict, List, Optional

from refimpl import Grammar, Vocabulary, open_matcher

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"], "additionalProperties": False}
ARRAY = {"type": "array", "items": SCHEMA}


def document(n: int = 50) -> bytes:
    return json.dumps([{"name": "n%d" % i, "age": 20 + i} for i in range(n)]).encode()


def greedy_tokens(vocab: Vocabulary, data: bytes) -> List[int]:
    """`data` split into the longest tokens of the vocabulary, left to right."""
    trie, out, i = vocab.trie, [], 0
    while i < len(data):
        node, best, n = 0, -1, 0
        for k in range(i, len(data)):
            node = trie.child(node, data[k])
            if node < 0:
                break
            if trie.tokens_at(node):
                best, n = trie.tokens_at(node)[0], k + 1 - i
        out.append(best)
        i += n
    return out


def median_ms(mask: Callable[[], object], consume: Callable[[int], bool], tokens: List[int], first: int) -> float:
    """Median ms of `mask()` over the steps from `first` on, consuming the tokens."""
    times = []
    for i, t in enumerate(tokens):
        t0 = time.perf_counter()
        mask()
        if i >= first:
            times.append(time.perf_counter() - t0)
        assert consume(t)
    return 1000 * statistics.median(times)


def per_step(backend: str, cache: bool, vocab: Vocabulary, tokens: List[int], first: int) -> Optional[float]:
    """Median ms of the masks from step `first` on (None: backend not usable here)."""
    try:
        m = open_matcher(Grammar.from_json_schema(ARRAY), vocab, backend=backend, mask_cache=cache)
    except ValueError:
        return None
    return median_ms(m.mask, m.consume, tokens, first)


def llguidance_per_step(vocab: Vocabulary, tokens: List[int], first: int) -> Optional[float]:
    try:
        import llguidance
    except ImportError:
        return None
    from conformance.peers import llguidance as llg
    from conformance.vectors import GrammarSpec

    m = llguidance.LLMatcher(llg.tokenizer(vocab), llg.grammar_text(GrammarSpec("json_schema", schema=ARRAY)))
    return median_ms(m.compute_bitmask, m.consume_token, tokens, first)


def measure() -> Dict[str, Optional[float]]:
    vocab = Vocabulary.load("gpt2")
    data = document()
    tokens = greedy_tokens(vocab, data)
    first = len(greedy_tokens(vocab, data[:data.index(b"}") + 1]))  # the steps after the first element
    out: Dict[str, Optional[float]] = {}
    for backend in ("python", "native"):
        for cache in (False, True):
            out["%s%s" % (backend, ", cache" if cache else "")] = per_step(backend, cache, vocab, tokens, first)
    out["llguidance"] = llguidance_per_step(vocab, tokens, first)
    out["steps"] = float(len(tokens) - first)
    return out


def main() -> None:
    r = measure()
    llg = r.pop("llguidance")
    steps = r.pop("steps") or 0.0
    print("JSON array of 50 objects, GPT-2, %d steps after the first element — median ms per mask" % steps)
    print()
    print("| backend | mask ms | x llguidance |")
    print("|---|---:|---:|")
    for name, ms in r.items():
        if ms is None:
            print("| %s | (not available) | |" % name)
        else:
            print("| %s | %.4f | %s |" % (name, ms, "%.1fx" % (ms / llg) if llg else "-"))
    print("| llguidance | %s | |" % ("%.4f" % llg if llg else "(not installed)"))


if __name__ == "__main__":
    main()
