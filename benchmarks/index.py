"""The token index (refimpl/masks/index/): compile time naive vs V2, each step's contribution,
outlines-core's Index, mask time against the python walk — in one run:

    python -m benchmarks.index                 # GPT-2 and Tekken (when its data is present)
    python -m benchmarks.index --vocab gpt2 --workload https

Workloads: the HTTPS-URL regex of outlines-core PR #194; the regular grammars of the
default conformance suite (their sum); outlines-core's regexes for a few JSON schemas
(when outlines-core is installed). Each build starts from a fresh Grammar (no derivative
cached by an earlier build); the vocabulary is loaded beforehand. "V2 − step" is V2 with
that one step off (step 4, processes, is "V2 + 2 processes"); every variant's table is
checked equal to V2's. Times are one run each (compile) or medians (masks) on a shared
machine: compare ratios within one run (docs/token-index.md has a run).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from refimpl import Grammar, MaskrefError, Matcher, Vocabulary
from refimpl.masks.index import Steps, TokenIndex, build_index, naive_index
from refimpl.showing.commandline import ArgumentParser, CommandLineError, command_line

HTTPS = r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?"
SCHEMAS = {
    "person": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20},
                                                "age": {"type": "integer"}}, "required": ["name", "age"]},
    "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
              "required": ["x", "y"]},
    "colors": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 4},
}
VARIANTS: List[Tuple[str, Steps]] = [
    ("V2", Steps()),
    ("V2 - dead bytes", Steps(dead_bytes=False)),
    ("V2 - byte classes", Steps(byte_classes=False)),
    ("V2 - prefix graph", Steps(prefix_graph=False)),
    ("V2 - muted literals", Steps(muted_literals=False)),
    ("V2 + 2 processes", Steps(workers=2)),
]
_SUITE = os.path.join(os.path.dirname(__file__), os.pardir, "conformance", "suite")
_TEKKEN = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "data", "vocab", "mistral_nemo_tekken.json.gz")


def suite_regexes() -> List[str]:
    """The distinct patterns of the default suite's regex vectors that an index serves."""
    patterns = []
    with open(os.path.join(_SUITE, "regex.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                source = json.loads(line)["grammar"]["source"]
                if source not in patterns:
                    patterns.append(source)
    out = []
    for p in patterns:
        try:
            build_index(Grammar.from_regex(p), Vocabulary.from_bytes([b"a"]))
        except MaskrefError:  # not regular, or refused by refimpl
            continue
        out.append(p)
    return out


def schema_regexes() -> Optional[List[str]]:
    try:
        from outlines_core.json_schema import build_regex_from_schema
    except ImportError:
        return None
    return [build_regex_from_schema(json.dumps(s)) for s in SCHEMAS.values()]


def workloads() -> Dict[str, Optional[List[str]]]:
    return {"https": [HTTPS], "suite regexes": suite_regexes(), "json schemas (outlines-core's regexes)": schema_regexes()}


def timed(f: Callable[..., Any], *args: Any) -> Tuple[float, Any]:
    """Seconds to call f(*args), and its answer."""
    t = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - t, out


def table_bytes(index: TokenIndex) -> int:
    """Bytes held by the index's table (rows, their vectors and bitmasks, the dict), not
    the DFA: this benchmark's figure, so kept beside it."""
    return sys.getsizeof(index.rows) + sum(
        sys.getsizeof(row) + sys.getsizeof(row.targets) + sys.getsizeof(row.of) + sys.getsizeof(row.allowed)
        for row in index.rows.values())


def compile_times(patterns: List[str], vocab: Vocabulary) -> Dict[str, Any]:
    """Seconds to build each variant's indexes of the patterns, the naive ones' and
    outlines-core's, with the states and the table's bytes of V2's."""
    out: Dict[str, Any] = {"states": 0, "bytes": 0}
    tables = []
    for name, steps in VARIANTS:
        out[name] = 0.0
        for i, p in enumerate(patterns):
            g = Grammar.from_regex(p)
            t, index = timed(build_index, g, vocab, steps)
            out[name] += t
            if name == "V2":
                tables.append(index.canonical())
                out["states"] += len(index)
                out["bytes"] += table_bytes(index)
            else:
                assert index.canonical() == tables[i], (name, p)
    out["naive"] = sum(timed(naive_index, Grammar.from_regex(p), vocab)[0] for p in patterns)
    out["outlines-core"] = _outlines_compile(patterns, vocab)
    return out


def _outlines_vocab(vocab: Vocabulary) -> Any:
    import outlines_core

    by_bytes: Dict[bytes, List[int]] = {}
    for t, data in enumerate(vocab.tokens):
        if t not in vocab.special_token_ids and data:
            by_bytes.setdefault(data, []).append(t)
    return outlines_core.Vocabulary(vocab.eos_token_ids[0], by_bytes)


def _outlines_compile(patterns: List[str], vocab: Vocabulary) -> Optional[float]:
    try:
        import outlines_core
    except ImportError:
        return None
    ov = _outlines_vocab(vocab)
    total = 0.0
    for p in patterns:
        try:
            total += timed(outlines_core.Index, p, ov)[0]
        except Exception:
            return None
    return total


def mask_times(pattern: str, vocab: Vocabulary, steps: int = 12) -> Dict[str, float]:
    """Median ms of one mask along a path (each step a token the mask allows, chosen by a
    fixed rule): the python walk's, the index's (Matcher backend "index") and
    outlines-core's `get_allowed_tokens` on the same states."""
    g = Grammar.from_regex(pattern)
    walking, indexed = Matcher(g, vocab), Matcher(g, vocab, backend="index")
    oi = state = None
    try:
        import outlines_core

        oi = outlines_core.Index(pattern, _outlines_vocab(vocab))
        state = oi.get_initial_state()
    except Exception:
        oi = None
    times: Dict[str, List[float]] = {"walk": [], "index": [], "outlines-core": []}
    for i in range(steps):
        t_walk, mask = timed(walking.mask)
        t_index, same = timed(indexed.mask)
        assert same == mask
        times["walk"].append(t_walk)
        times["index"].append(t_index)
        if oi is not None:
            times["outlines-core"].append(timed(oi.get_allowed_tokens, state)[0])
        allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        token = allowed[(7919 * i) % len(allowed)]
        assert walking.consume(token) and indexed.consume(token)
        if oi is not None:
            state = oi.get_next_state(state, token)
    return {k: 1000 * statistics.median(v) for k, v in times.items() if v}


def vocabulary(name: str) -> Optional[Vocabulary]:
    if name == "gpt2":
        return Vocabulary.load("gpt2")
    return Vocabulary.load(_TEKKEN) if os.path.exists(_TEKKEN) else None


def _s(x: Optional[float]) -> str:
    return "-" if x is None else "%.2f" % x


def _main(argv: Optional[List[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.index", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vocab", action="append", choices=["gpt2", "tekken"], help="default: both")
    ap.add_argument("--workload", action="append", help="default: all (https, suite regexes, json schemas ...)")
    args = ap.parse_args(argv)
    loads = workloads()
    chosen = [w for w in loads if not args.workload or any(w.startswith(a) for a in args.workload)]
    if not chosen:
        raise CommandLineError("--workload %s: no such workload (known: %s)" % (", ".join(args.workload), ", ".join(loads)))
    print("maskref token index — %s" % time.strftime("%Y-%m-%d"))
    print()
    print("| vocab | workload | states | table MB | naive s | V2 s | naive/V2 | " + " | ".join(n for n, _ in VARIANTS[1:])
          + " | outlines-core s |")
    print("|---|---|---:|---:|---:|---:|---:|" + "---:|" * len(VARIANTS[1:]) + "---:|")
    masks = []
    for v in args.vocab or ["gpt2", "tekken"]:
        vocab = vocabulary(v)
        if vocab is None:
            print("| %s | (skipped: no data) |" % v)
            continue
        for w in chosen:
            patterns = loads[w]
            if patterns is None:
                print("| %s | %s | (skipped: outlines-core is not installed) |" % (v, w))
                continue
            r = compile_times(patterns, vocab)
            print("| %s | %s (%d) | %d | %.1f | %.2f | %.2f | %.1fx | %s | %s |" % (
                v, w, len(patterns), r["states"], r["bytes"] / 1e6, r["naive"], r["V2"], r["naive"] / r["V2"],
                " | ".join(_s(r[n]) for n, _ in VARIANTS[1:]), _s(r["outlines-core"])))
        masks.append((v, mask_times(HTTPS, vocab)))
    print()
    print("| vocab | mask ms, python walk | mask ms, index | walk / index | outlines-core ms |")
    print("|---|---:|---:|---:|---:|")
    for v, m in masks:
        print("| %s | %.3f | %.3f | %.0fx | %s |" % (v, m["walk"], m["index"], m["walk"] / m["index"],
                                                 "%.3f" % m["outlines-core"] if "outlines-core" in m else "-"))
    return 0


#: the command (a mistake in the arguments: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    raise SystemExit(main())
