"""Sampler-aware top-k (refimpl/decoding/topk.py) against the full mask, k = 64:

    python -m benchmarks.topk                    # GPT-2 and Tekken (mistral-common), python and native
    python -m benchmarks.topk --vocab gpt2 --backend python --workload json-in-string

For each workload (benchmarks/common.py's) and logit vector:

  favourable    the allowed tokens score above every refused one (a model that knows the
                format): top_k checks 64 candidates
  adversarial   the best `--refused` tokens (default 4096) are all refused, then the
                allowed ones: top_k checks k/2 + 33 = 65 of them, then falls back
  crossover     top_k with no budget, refused tokens ranked first, r = 0, 16, 64, ...:
                the r at which checking them one by one costs as much as the full mask
                (then selecting its best)

Times are the best of several runs (ms) of: `mask` (the backend's full mask alone),
`mask+select` (the full mask, then its 64 best by the logits: the definition, as a
sampler without top_k would compute it), `top_k` (refimpl.decoding.top_k on a Python list of
floats), and with numpy (when installed) the same two with the logits as a float32
array: `mask+select` by argpartition over the allowed ids, `top_k` on the array.
Every top_k answer is checked equal to the definition's.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from refimpl import open_matcher
from refimpl.decoding.topk import reference_top_k, refusals_budget, top_k
from refimpl.showing.commandline import ArgumentParser, command_line, count

from . import common

K = 64
WORKLOADS = ["json-in-string", "json-between-keys", "json-in-number", "lark-c-like", "digits"]
CROSSOVER_R = [0, 16, 64, 256, 1024, 4096]


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    return common.best_of(fn, repeat, budget=3.0, minimum=3) * 1e3


def favourable(n: int, allowed: Sequence[int], seed: int) -> List[float]:
    """Random scores, the allowed tokens' all above the refused ones'."""
    rng = random.Random(seed)
    out = [rng.random() for _ in range(n)]
    for t in allowed:
        out[t] += 2.0
    return out


def adversarial(n: int, allowed: Sequence[int], refused_first: int, seed: int) -> List[float]:
    """Random scores; `refused_first` refused tokens score above every allowed one, which
    score above the other refused tokens."""
    rng = random.Random(seed)
    out = [rng.random() for _ in range(n)]
    good = set(allowed)
    refused = [t for t in range(n) if t not in good]
    for t in allowed:
        out[t] += 2.0
    for t in rng.sample(refused, min(refused_first, len(refused))):
        out[t] += 4.0
    return out


def select_np(numpy: Any, flags: bytearray, arr: Any) -> List[int]:
    """The full mask's K best with numpy (argpartition, then a sort of K): how a numpy
    sampler without top_k would do it (ties at the K-th score are taken in any order:
    these logits have none)."""
    ids = numpy.frombuffer(bytes(flags), dtype=numpy.uint8).nonzero()[0]
    vals = arr[ids]
    if len(ids) > K:
        part = numpy.argpartition(-vals, K - 1)[:K]
        ids, vals = ids[part], vals[part]
    return ids[numpy.lexsort((ids, -vals))].tolist()


def measure(vname: str, workload: str, backend: str, refused: int = 4096,
            crossover: Sequence[int] = CROSSOVER_R) -> Dict[str, Any]:
    """The timings of one (vocabulary, workload, backend); raises common.Skip."""
    reason = common.backend_reasons().get(backend)
    if reason is not None:
        raise common.Skip("%s: %s" % (backend, reason))
    v = common.vocab(vname)
    kind, source, prefix, sliced = common.WORKLOADS[workload]
    m = open_matcher(common.grammar(kind, source), v, backend=backend, slices=None if sliced else [])
    if prefix and not m.consume_bytes(prefix):
        raise AssertionError("%s: prefix %r rejected" % (workload, prefix))
    repeat = 7 if backend == "python" else 30
    m.mask()
    allowed = m.mask().allowed()
    n = len(v)
    out: Dict[str, Any] = {"allowed": len(allowed), "vocab": n}
    out["mask_ms"] = best_ms(m.mask, repeat)
    try:
        import numpy
    except ImportError:
        numpy = None

    def timings(logits: List[float], max_refused: Optional[int] = None) -> Dict[str, float]:
        want = reference_top_k(m, logits, K)
        stats: Dict[str, int] = {}
        got = top_k(m, logits, K, max_refused=max_refused, stats=stats)
        assert got == want, (vname, workload, backend)
        row = {"mask+select_ms": best_ms(lambda: reference_top_k(m, logits, K), repeat),
               "top_k_ms": best_ms(lambda: top_k(m, logits, K, max_refused=max_refused), repeat),
               "checked": stats["checked"], "fallback": stats["fallback"]}
        if numpy is not None:
            arr = numpy.array(logits, dtype=numpy.float32)
            want_np = reference_top_k(m, arr.tolist(), K)
            assert top_k(m, arr, K, max_refused=max_refused) == want_np == select_np(numpy, m.mask().flags, arr)
            row["top_k_np_ms"] = best_ms(lambda: top_k(m, arr, K, max_refused=max_refused), repeat)
            row["mask+select_np_ms"] = best_ms(lambda: select_np(numpy, m.mask().flags, arr), repeat)
        return row

    out["favourable"] = timings(favourable(n, allowed, 1))
    out["adversarial"] = timings(adversarial(n, allowed, refused, 2))
    out["crossover"] = {r: timings(adversarial(n, allowed, r, 3), max_refused=10 ** 9) for r in crossover}
    return out


def _line(label: str, row: Dict[str, float], mask_ms: float) -> str:
    np_ms = row.get("top_k_np_ms")
    return "  %-22s mask+select %8.2f   top_k %8.2f  (%5.1fx vs mask+select, %5.1fx vs mask)%s   checked %6d%s" % (
        label, row["mask+select_ms"], row["top_k_ms"], row["mask+select_ms"] / row["top_k_ms"], mask_ms / row["top_k_ms"],
        "   numpy: mask+select %6.2f, top_k %6.2f (%5.1fx)" % (
            row["mask+select_np_ms"], np_ms, row["mask+select_np_ms"] / np_ms) if np_ms else "",
        row["checked"], ", fell back" if row["fallback"] else "")


def report(vname: str, workload: str, backend: str, r: Dict[str, Any]) -> None:
    print("%s / %s / %s: %d of %d tokens allowed; full mask %.2f ms (k = %d, refusals budget %d)" % (
        vname, workload, backend, r["allowed"], r["vocab"], r["mask_ms"], K, refusals_budget(K)))
    print(_line("favourable", r["favourable"], r["mask_ms"]))
    print(_line("adversarial", r["adversarial"], r["mask_ms"]))
    for key, label in (("top_k_ms", "lists"), ("top_k_np_ms", "numpy")):
        base = "mask+select_ms" if key == "top_k_ms" else "mask+select_np_ms"
        rows = sorted(r["crossover"].items())
        if not rows or key not in rows[0][1]:
            continue
        slower = [refused for refused, row in rows if row[key] > row[base]]
        if not slower:
            verdict = "top_k faster at every r measured (up to %d)" % rows[-1][0]
        elif slower[0] == rows[0][0]:
            verdict = "top_k slower already at r = %d" % slower[0]
        else:
            before = max(refused for refused, _ in rows if refused < slower[0])
            verdict = "top_k faster up to r = %d, slower from r = %d" % (before, slower[0])
        print("  crossover, %s (no budget): %s" % (label, verdict))


def _main(argv: Optional[List[str]] = None) -> int:
    ap = ArgumentParser(prog="python -m benchmarks.topk", description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", action="append", choices=common.VOCABS)
    ap.add_argument("--backend", action="append", choices=["python", "native"])
    ap.add_argument("--workload", action="append", choices=sorted(common.WORKLOADS))
    ap.add_argument("--refused", type=count, default=4096,
                    help="how many refused tokens the adversarial logits score first (default 4096)")
    args = ap.parse_args(argv)
    for vname in args.vocab or common.VOCABS:
        for backend in args.backend or ["python", "native"]:
            for workload in args.workload or WORKLOADS:
                t0 = time.perf_counter()
                try:
                    r = measure(vname, workload, backend, args.refused)
                except common.Skip as e:
                    print("%s / %s / %s: skipped (%s)" % (vname, workload, backend, e))
                    continue
                report(vname, workload, backend, r)
                print("  (%.0f s)" % (time.perf_counter() - t0))
    return 0


#: the command (a mistake in the arguments: one error line, exit status 2)
main = command_line(_main, mistakes=(OSError,))


if __name__ == "__main__":
    raise SystemExit(main())
