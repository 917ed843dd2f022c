"""Differential fuzzing: random grammars, vocabularies and mask-guided paths, refimpl
against a backend; every disagreement shrunk by hypothesis to a minimal case.

One example: draw a grammar (regex, Lark, or JSON schema when refimpl has the frontend)
and a vocabulary; start refimpl's Matcher and a backend session; at every step compare
the two full masks, then consume a token drawn from the tokens both allow (EOS included,
so the end of the path is compared too). A difference that none of the backend's
declared known differences explains fails the example; hypothesis then shrinks it (fewer
steps, smaller grammar, fewer tokens, smaller ids) and the minimal case is written as a
repro (runner.write_repro) and as a vector that can join the suite.

Determinism: the campaign is a sequence of batches of examples; batch b of worker w runs
with hypothesis seed hash(seed, w, b) and no example database, so the same --seed replays
the same examples in the same order (the time budget only decides how far it gets).
Distinct disagreements are told apart by a coarse signature (grammar kind; extra or
missing tokens; EOS-only; partial UTF-8), and each signature is shrunk and written once.
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import time
from typing import Any, Dict, List, Optional, Sequence, Set

from refimpl import Matcher, MaskrefError

from .backends import Backend, Divergence, get_backend
from .runner import GrammarCache, Progress, diff, divergence_data, write_repro
from .vectors import NotSupported, Vector, bitmask_from_flags, ids_of, json_schema_supported, record

EXAMPLES_PER_BATCH = 25
SHRINK_SECONDS = 60


class Disagreement(Exception):
    """Raised inside an example: the divergence and what is needed to record it."""

    def __init__(self, d: Divergence) -> None:
        super().__init__(d.signature())
        self.divergence = d


class Stats:
    def __init__(self) -> None:
        self.examples = 0
        self.steps = 0
        self.agree = 0
        self.unsupported: collections.Counter = collections.Counter()
        self.known: collections.Counter = collections.Counter()
        self.invalid = 0  # grammars refimpl rejects (not compared)

    def merge(self, other: Dict[str, Any]) -> None:
        self.examples += other["examples"]
        self.steps += other["steps"]
        self.agree += other["agree"]
        self.invalid += other["invalid"]
        self.unsupported.update(other["unsupported"])
        self.known.update(other["known"])

    def to_json(self) -> Dict[str, Any]:
        return {"examples": self.examples, "steps": self.steps, "agree": self.agree, "invalid": self.invalid,
                "unsupported": dict(self.unsupported), "known": dict(self.known)}


def batch_seed(seed: int, worker: int, batch: int) -> int:
    return int.from_bytes(hashlib.sha256(b"%d/%d/%d" % (seed, worker, batch)).digest()[:8], "little")


def kinds_for(backend: Backend, kinds: Optional[Sequence[str]] = None) -> List[str]:
    out = [k for k in (kinds or ("regex", "lark", "json_schema")) if k in backend.kinds]
    if "json_schema" in out and not json_schema_supported():
        out.remove("json_schema")
    return out


def run_worker(backend_name: str, seconds: float, seed: int, worker: int, kinds: Sequence[str],
               vocab_mode: str, max_steps: int, first_only: bool, examples_per_batch: int = EXAMPLES_PER_BATCH,
               progress: Optional[Progress] = None) -> Dict[str, Any]:
    """Fuzz until `seconds` have passed; returns stats and the minimal failures found."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings, strategies as st
    from hypothesis.errors import HypothesisException
    import hypothesis.internal.conjecture.engine as engine

    from .strategies import grammar_specs, vocabularies

    engine.MAX_SHRINKING_SECONDS = SHRINK_SECONDS  # bound the time spent shrinking one failure
    backend = get_backend(backend_name)
    t_end = time.monotonic() + seconds
    grammars = GrammarCache()
    stats = Stats()
    seen: Set[str] = set()
    failures: List[Dict[str, Any]] = []

    def fail(d: Divergence) -> None:
        """Raise the disagreement unless its kind was already found; from the first failure
        on, examples run even after the deadline (the shrinker must see them fail)."""
        if d.signature() in seen:
            return
        shrinking[0] = True
        raise Disagreement(d)

    strategies = (grammar_specs(kinds), vocabularies(vocab_mode), st.data())

    def example(spec, vocab, data) -> None:
        if time.monotonic() > t_end and not shrinking[0]:
            return
        stats.examples += 1
        try:
            grammar = grammars.get(spec)
        except (NotSupported, MaskrefError, RecursionError):
            stats.invalid += 1
            return
        try:
            session = backend.start(spec, vocab, grammar if backend.uses_refimpl else None)
        except NotSupported as e:
            stats.unsupported[str(e)[:120]] += 1
            return
        except Exception as e:  # noqa: BLE001
            return fail(Divergence(spec, vocab, [], 0, [], [], error="start: %s: %s" % (type(e).__name__, e)))
        ref = Matcher(grammar, vocab)
        prefix: List[int] = []
        eos = set(vocab.eos_token_ids)
        try:
            for i in range(max_steps):
                expected = bitmask_from_flags(ref.mask().flags)
                accepting = ref.is_accepting()
                try:
                    got = session.mask()
                except NotSupported as e:  # e.g. a peer's resource limit
                    stats.unsupported[str(e)[:120]] += 1
                    return
                except Exception as e:  # noqa: BLE001
                    return fail(Divergence(spec, vocab, prefix, i, [], [], error="mask: %s: %s" % (type(e).__name__, e)))
                stats.steps += 1
                if got != expected:
                    only_b, only_r = diff(expected, got)
                    d = Divergence(spec, vocab, prefix, i, only_b, only_r, accepting=accepting,
                                   note=session.note)
                    k = backend.classify(d)
                    if k is None:
                        return fail(d)
                    stats.known[k.name] += 1
                else:
                    stats.agree += 1
                both = ids_of((int.from_bytes(expected, "little") & int.from_bytes(got, "little"))
                              .to_bytes(len(expected), "little"))
                # EOS last: shrinking prefers the grammar's own tokens (smaller index)
                choices = [t for t in both if t not in eos] + [t for t in both if t in eos]
                if not choices:
                    return
                t = choices[data.draw(st.integers(0, len(choices) - 1), label="token")]
                assert ref.consume(t)
                try:
                    ok = session.consume(t)
                except Exception as e:  # noqa: BLE001
                    ok, err = False, "consume: %s: %s" % (type(e).__name__, e)
                else:
                    err = None
                if not ok:
                    d = Divergence(spec, vocab, prefix, i, [], [], error=err, refused=None if err else t,
                                   accepting=accepting, note=session.note)
                    k = None if err else backend.classify(d)
                    if k is None:
                        return fail(d)
                    stats.known[k.name] += 1
                    return
                prefix.append(t)
        finally:
            try:
                session.close()
            except Exception:  # noqa: BLE001
                pass

    shrinking = [False]
    batch = 0
    while time.monotonic() < t_end:
        shrinking[0] = False
        s = batch_seed(seed, worker, batch)
        batch += 1
        test = settings(
            max_examples=examples_per_batch, deadline=None, database=None, derandomize=False,
            phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False, print_blob=False,
            suppress_health_check=list(HealthCheck),
        )(hypothesis.seed(s)(given(*strategies)(example)))
        try:
            test()
        except Disagreement as e:
            d = e.divergence
            sig = d.signature()
            seen.add(sig)
            vid = "fuzz/%s/%s/seed%d-w%d-b%d" % (backend.name, sig.replace(":", "-"), seed, worker, batch - 1)
            grammar = grammars.get(d.grammar)
            path = d.prefix + ([d.refused] if d.refused is not None else [])
            vector = record(grammar, d.grammar, d.vocab, path, vid, ["fuzz", sig], "fuzz",
                            "found by: python -m conformance fuzz --backend %s --seed %d" % (backend.name, seed))
            failures.append({"signature": sig, "vector": vector.to_line(), "divergence": divergence_data(d)})
            if first_only:
                break
        except HypothesisException as e:  # Unsatisfiable and friends: nothing valid was drawn
            stats.unsupported["hypothesis: %s" % type(e).__name__] += 1
        if progress is not None:
            progress.update("%d examples, %d steps, %d disagreements" % (stats.examples, stats.steps, len(failures)))
    return {"stats": stats.to_json(), "failures": failures, "batches": batch}


def _worker_entry(args) -> Dict[str, Any]:
    return run_worker(*args)


class FuzzReport:
    def __init__(self, backend: Backend, seconds: float, seed: int, jobs: int) -> None:
        self.backend, self.seconds, self.seed, self.jobs = backend, seconds, seed, jobs
        self.stats = Stats()
        self.failures: List[Dict[str, Any]] = []  # distinct signatures, with repro paths
        self.batches = 0
        self.elapsed = 0.0

    def table(self) -> str:
        s = self.stats
        lines = [
            "fuzz %s: %.0f s, seed %d, %d job(s), %d batches" % (self.backend.name, self.elapsed, self.seed, self.jobs, self.batches),
            "  examples %d (grammars refimpl rejects: %d), masks compared %d, agreeing %d" % (s.examples, s.invalid, s.steps, s.agree),
        ]
        for name, n in s.known.most_common():
            lines.append("  known difference %-22s %6d masks" % (name, n))
        for reason, n in s.unsupported.most_common(5):
            lines.append("  unsupported: %5d x %s" % (n, reason))
        lines.append("  disagreements: %d distinct" % len(self.failures))
        for f in self.failures:
            d = f["divergence"]
            lines.append("  DISAGREE [%s] at step %d -> %s" % (f["signature"], d["step"], f.get("repro", "")))
        return "\n".join(lines)


def fuzz(backend_name: str, seconds: float, seed: int = 0, jobs: int = 1, out_dir: str = "conformance-repros",
         kinds: Optional[Sequence[str]] = None, vocab_mode: str = "mixed", max_steps: int = 8,
         first_only: bool = False, quiet: bool = False, examples_per_batch: int = EXAMPLES_PER_BATCH) -> FuzzReport:
    backend = get_backend(backend_name)
    kinds = kinds_for(backend, kinds)
    report = FuzzReport(backend, seconds, seed, jobs)
    t0 = time.monotonic()
    progress = None if quiet else Progress("fuzz %s" % backend.name)
    args = [(backend_name, seconds, seed, w, kinds, vocab_mode, max_steps, first_only, examples_per_batch)
            for w in range(max(1, jobs))]
    if jobs <= 1:
        results = [run_worker(*args[0], progress=progress)]
    else:
        import multiprocessing

        # a multiprocessing Pool, not concurrent.futures: PyPy 3.9's ProcessPoolExecutor
        # is broken (it calls a method it renamed)
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_worker_entry, args)
    if progress is not None:
        progress.done()
    seen = set()
    for r in results:
        report.stats.merge(r["stats"])
        report.batches += r["batches"]
        for f in r["failures"]:
            if f["signature"] in seen:
                continue
            seen.add(f["signature"])
            vector = Vector.from_json(json.loads(f["vector"]))
            f["repro"] = write_repro(out_dir, backend, vector, f["divergence"])
            # the minimal case, as a vector that can join the suite
            with open(os.path.join(os.path.dirname(f["repro"]), "fuzz-vectors.jsonl"), "a", encoding="utf-8") as out:
                out.write(vector.to_line() + "\n")
            report.failures.append(f)
    report.elapsed = time.monotonic() - t0
    return report
