"""Audit mode's cost (conformance/audit/, docs/audit.md): the latency it adds to each
token of a running engine, at sample rates 0, 1% and 100%.

    python -m benchmarks.audit                       # llguidance, and xgrammar if installed
    python -m benchmarks.audit --objects 10 --repeat 3

The workload is the mask cache's (benchmarks/mask_cache.py): a JSON array of small
objects on GPT-2, its text split into the longest tokens. A token's step is the engine's
mask then the token consumed: llguidance's compute_bitmask + consume_token (no_forcing, a
tokenizer of the same bytes: the conformance peer's), xgrammar's fill_next_token_bitmask
+ accept_token. Each is timed plain and through the audited wrapper; the added latency is
the difference of the medians over the path (the best of `repeat` runs). The checker runs
in a thread of the same process and takes the GIL while it checks, so at 100% it slows
the hot path too: that is part of the cost measured. The queue holds the whole path, so
nothing is dropped; the time close() then waits for the checker to finish is reported
apart (the checker's backlog), with the checks it made.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from refimpl import Vocabulary

from . import common
from .mask_cache import ARRAY, document, greedy_tokens

RATES = (0.0, 0.01, 1.0)
#: the model's forward pass between two steps, stood in for by a sleep: none (the engine
#: alone, back to back), and 5 ms (a small model on a GPU)
FORWARD_MS = (0.0, 5.0)


def checker_backend() -> str:
    """The refimpl backend the checker uses: native where built, else python."""
    return "native" if common.backend_reasons().get("native") is None else "python"


def run_path(step: Callable[[int], None], tokens: List[int], forward_s: float = 0.0) -> List[float]:
    """Seconds of each step (mask then consume) along the path; between steps, a model's
    forward pass stood in for by `forward_s` of sleep (untimed; the GIL is free then, as
    in torch's kernels, and the checker runs)."""
    times = []
    for t in tokens:
        t0 = time.perf_counter()
        step(t)
        times.append(time.perf_counter() - t0)
        if forward_s:
            time.sleep(forward_s)
    return times


def llguidance_engine(vocab: Vocabulary) -> Optional[Tuple[Callable[[], Any], Callable[[Any], Callable[[int], None]],
                                                            Any, Callable[[Any, Any], Any]]]:
    try:
        import llguidance
    except ImportError:
        return None
    from conformance.audit import AuditedLLMatcher
    from conformance.peers.llguidance import tokenizer
    from conformance.peers.llguidance.reading import grammar_text
    from conformance.vectors import GrammarSpec

    tok = tokenizer(vocab)
    text = grammar_text(GrammarSpec("json_schema", schema=ARRAY))

    def step_of(m: Any) -> Callable[[int], None]:
        def step(t: int) -> None:
            m.compute_bitmask()
            m.consume_token(t)
        return step
    return (lambda: llguidance.LLMatcher(tok, text), step_of, text,
            lambda m, auditor: AuditedLLMatcher(m, text, auditor))


def xgrammar_engine(vocab: Vocabulary) -> Optional[Tuple[Callable[[], Any], Callable[[Any], Callable[[int], None]],
                                                          Any, Callable[[Any, Any], Any]]]:
    try:
        import xgrammar as xgr
    except Exception:  # noqa: BLE001 - not installed, or unusable without torch
        return None
    from conformance.audit import AuditedGrammarMatcher
    from conformance.peers.xgrammar.session import compiler
    from conformance.vectors import GrammarSpec

    compiled = compiler(vocab).compile_json_schema(json.dumps(ARRAY), strict_mode=False)
    spec = GrammarSpec("json_schema", schema=ARRAY)
    bitmask = xgr.allocate_token_bitmask(1, len(vocab))

    def step_of(m: Any) -> Callable[[int], None]:
        def step(t: int) -> None:
            m.fill_next_token_bitmask(bitmask, 0)
            m.accept_token(t)
        return step
    return (lambda: xgr.GrammarMatcher(compiled), step_of, spec,
            lambda m, auditor: AuditedGrammarMatcher(m, spec, auditor))


def measure_engine(name: str, engine: Any, vocab: Vocabulary, tokens: List[int], repeat: int,
                   backend: str, forward_s: float) -> Dict[str, Any]:
    """Median µs per token, plain and audited at each rate; the added µs; the checker's
    backlog at close (seconds) and its counts."""
    from conformance.audit import Auditor

    make, step_of, _, wrap = engine
    plain = min(statistics.median(run_path(step_of(make()), tokens, forward_s)) for _ in range(repeat))
    out: Dict[str, Any] = {"engine": name, "tokens": len(tokens), "plain_us": 1e6 * plain, "rates": {},
                           "forward_ms": 1000 * forward_s}
    for rate in RATES:
        best, drain, report = float("inf"), 0.0, None
        for _ in range(repeat):
            auditor = Auditor(vocab, engine=name, sample_rate=rate, backend=backend, queue_size=len(tokens) + 1,
                              out_dir=tempfile.mkdtemp(prefix="maskref-audit-bench-"))
            median = statistics.median(run_path(step_of(wrap(make(), auditor)), tokens, forward_s))
            t0 = time.perf_counter()
            r = auditor.close()
            if median < best:
                best, drain, report = median, time.perf_counter() - t0, r
        assert report is not None
        out["rates"][rate] = {"audited_us": 1e6 * best, "added_us": 1e6 * (best - plain), "close_s": drain,
                              "sampled": report.sampled, "checked": report.checked, "agreed": report.agreed,
                              "known": sum(report.known.values()), "undeclared": len(report.undeclared),
                              "dropped": report.dropped, "errors": len(report.errors)}
    return out


def measure(objects: int = 20, repeat: int = 3, forward_ms: Tuple[float, ...] = FORWARD_MS) -> Dict[str, Any]:
    vocab = common.vocab("gpt2")
    tokens = greedy_tokens(vocab, document(objects)) + [vocab.eos_token_id]
    backend = checker_backend()
    results = {"backend": backend, "engines": []}
    for name, build in (("llguidance", llguidance_engine), ("xgrammar", xgrammar_engine)):
        engine = build(vocab)
        if engine is None:
            results["engines"].append({"engine": name, "skipped": "%s is not installed" % name})
            continue
        path = tokens[:-1] if name == "xgrammar" else tokens  # xgrammar gives no mask after EOS
        for ms in forward_ms:
            results["engines"].append(measure_engine(name, engine, vocab, path, repeat, backend, ms / 1000))
    return results


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objects", type=int, default=20, help="objects in the JSON array (default 20)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, the best kept (default 3)")
    ap.add_argument("--forward-ms", type=float, action="append",
                    help="the model's forward pass between steps, as a sleep (default: 0 and 5)")
    args = ap.parse_args(argv)
    info = common.machine()
    r = measure(args.objects, args.repeat, tuple(args.forward_ms or FORWARD_MS))
    print("audit mode's added latency per token — %s" % info["date"])
    print("machine: %s, %s cores; %s; checker backend: %s" % (info["cpu"], info["cores"], info["python"],
                                                              r["backend"]))
    print()
    print("| engine | tokens | forward ms | sample rate | µs/token plain | µs/token audited | added µs/token | close() waits s "
          "| checked | agreed | known | undeclared |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in r["engines"]:
        if "skipped" in e:
            print("| %s | (skipped: %s) | | | | | | | | | | |" % (e["engine"], e["skipped"]))
            continue
        for rate, x in e["rates"].items():
            print("| %s | %d | %g | %g%% | %.1f | %.1f | %+.1f | %.2f | %d | %d | %d | %d |"
                  % (e["engine"], e["tokens"], e["forward_ms"], 100 * rate, e["plain_us"], x["audited_us"], x["added_us"],
                     x["close_s"], x["checked"], x["agreed"], x["known"], x["undeclared"]))


if __name__ == "__main__":
    main()
