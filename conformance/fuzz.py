"""Differential fuzzing: random grammars, vocabularies and mask-guided paths, refimpl
against an engine; every disagreement shrunk by hypothesis to a minimal case.

One example: draw a grammar (regex, Lark or JSON schema) and a vocabulary; start
refimpl's Matcher and an engine session; at every step compare the two full masks, then
consume a token drawn from the tokens both allow (EOS included, so the end of the path is
compared too), preferring those that continue a drawn target text (an escape, a
multi-byte character, a special token's text: conformance/blindspots.py);
compare.compare_step does one step, as for the runner. refimpl's own backends are also
compared on the rest of the Matcher API (conformance/apicheck.py: forced bytes and
tokens, accepting, rollback). A difference that none of the engine's declared known
differences explains fails the example; hypothesis then shrinks it (fewer
steps, smaller grammar, fewer tokens, smaller ids) and the minimal case is written as a
repro (runner.write_repro) and as a vector that can join the suite.

Determinism: the campaign is a sequence of batches of examples; batch b of worker w runs
with hypothesis seed hash(seed, w, b) and no example database, so the same --seed replays
the same examples in the same order. A time budget decides how far it gets; a budget of
batches (`batches`, `--batches`) instead makes the whole campaign, shrinking included, the
same on any machine (the tests use it).
Distinct disagreements are told apart by a coarse signature (grammar kind; extra or
missing tokens; EOS-only; partial UTF-8), and each signature is shrunk and written once.
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from refimpl import MaskrefError, Matcher, Vocabulary

if TYPE_CHECKING:  # hypothesis is needed only to fuzz
    from hypothesis.strategies import DataObject

from .compare import Path, compare_step
from .divergence import Divergence
from .engine import Engine, Session
from .isolation import fault_of
from .registry import get_engine
from .runner import GrammarCache, Progress, divergence_data, write_repro
from .vectors import GRAMMAR_KINDS, GrammarSpec, NotSupported, Vector, ids_of, record

EXAMPLES_PER_BATCH = 25
#: the time hypothesis may spend shrinking one failure, in a campaign bounded by time (one
#: bounded by batches is bounded by hypothesis's count of shrinks only)
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


def kinds_for(engine: Engine, kinds: Optional[Sequence[str]] = None) -> List[str]:
    return [k for k in (kinds or GRAMMAR_KINDS) if k in engine.kinds]


class Target:
    """The text a path tries to spell (conformance/blindspots.py, `targets`): what is left
    of it. Empty: the path is random."""

    def __init__(self, text: bytes = b"") -> None:
        self.rest = text


def _draw_token(expected: bytes, vocab: Vocabulary, data: DataObject,
                target: Optional[Target] = None) -> Callable[[bytes], Optional[int]]:
    """A chooser for compare_step: a token both masks allow, drawn by hypothesis (None if
    there is none). With a target left to spell, the token is drawn among the allowed
    ones that continue it, when there are any (so an escape or a multi-byte character is
    split across tokens in every way the vocabulary allows); otherwise among all."""
    from hypothesis import strategies as st

    from .blindspots import continues

    eos = set(vocab.eos_token_ids)

    def choose(got: bytes) -> Optional[int]:
        both = ids_of((int.from_bytes(expected, "little") & int.from_bytes(got, "little")).to_bytes(len(expected), "little"))
        # EOS last: shrinking prefers the grammar's own tokens (smaller index)
        choices = [t for t in both if t not in eos] + [t for t in both if t in eos]
        if not choices:
            return None
        if target is not None and target.rest:
            onward = [t for t in choices if t not in vocab.special_token_ids and continues(vocab.tokens[t], target.rest)]
            if onward:
                t = onward[data.draw(st.integers(0, len(onward) - 1), label="spelling")]
                target.rest = target.rest[len(vocab.tokens[t]):]
                return t
        return choices[data.draw(st.integers(0, len(choices) - 1), label="token")]

    return choose


class Worker:
    """One worker's campaign: batches of hypothesis examples until the deadline, or until
    `batches` batches have run; every distinct disagreement shrunk once and kept as a
    failure (a vector and its divergence)."""

    def __init__(self, engine_name: str, seconds: Optional[float], seed: int, worker: int, max_steps: int,
                 batches: Optional[int] = None) -> None:
        self.engine = get_engine(engine_name)
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.max_batches = batches
        self.seed, self.worker, self.max_steps = seed, worker, max_steps
        self.grammars = GrammarCache()
        self.stats = Stats()
        self.seen: Set[str] = set()  # signatures found
        self.failures: List[Dict[str, Any]] = []
        self.batches = 0
        # from a batch's first failure on, examples run even after the deadline (the
        # shrinker must see them fail)
        self.shrinking = False

    def example(self, drawn: Tuple[GrammarSpec, Vocabulary], data: DataObject) -> None:
        """One hypothesis example: refimpl's Matcher and an engine session along a path of
        tokens drawn (by `data`) from the tokens both allow."""
        if self.over_time() and not self.shrinking:
            return
        spec, vocab = drawn
        self.stats.examples += 1
        try:
            grammar = self.grammars.get(spec)
            ref = Matcher(grammar, vocab)  # binds the grammar's token lexemes to the vocabulary
        except (MaskrefError, RecursionError):
            self.stats.invalid += 1
            return
        path = Path(spec, vocab)
        try:
            session = self.engine.start(spec, vocab, grammar if self.engine.uses_refimpl else None)
        except NotSupported as e:
            self.stats.unsupported[str(e)[:120]] += 1
            return
        except Exception as e:  # noqa: BLE001
            d = path.divergence(error="start: %s: %s" % (type(e).__name__, e))
            known = self.engine.classify(d)
            if known is None:
                return self.fail(d)
            self.stats.known[known.name] += 1
            return
        try:
            self.walk(ref, session, path, data)
        except Exception as e:  # noqa: BLE001 - a fault of the engine's process in the API check ends the example
            if not fault_of(e):
                raise
            self.fail(path.divergence(error="%s: %s" % (type(e).__name__, e)))
        finally:
            try:
                session.close()
            except Exception:  # noqa: BLE001
                pass

    def walk(self, ref: Matcher, session: Session, path: Path, data: DataObject) -> None:
        """Compare up to max_steps masks along the path (steered by a drawn target text);
        stats updated, a disagreement raised."""
        from hypothesis import strategies as st

        from .apicheck import api_difference, api_of, rollback_difference
        from .blindspots import targets

        target = Target(data.draw(targets, label="target"))
        api = api_of(self.engine, session)  # refimpl's own backends: the whole Matcher API is compared
        for _ in range(self.max_steps):
            expected = ref.mask().to_bytes()
            out = compare_step(self.engine, session, path, expected, ref.is_accepting(),
                               _draw_token(expected, path.vocab, data, target))
            self.stats.steps += out.compared
            self.stats.agree += out.agree
            for k in out.known:
                self.stats.known[k.name] += 1
            if out.unsupported is not None:
                self.stats.unsupported[out.unsupported[:120]] += 1
                return
            if out.divergence is not None:
                return self.fail(out.divergence)
            if out.token is None:
                break
            assert ref.consume(out.token)
            if api is not None:
                wrong = api_difference(ref, api)
                if wrong is not None:
                    return self.fail(path.divergence(error=wrong))
        if api is not None and path.tokens:
            wrong = rollback_difference(ref, api, data.draw(st.integers(0, len(path.tokens)), label="rollback"))
            if wrong is not None:
                return self.fail(path.divergence(error=wrong))

    def fail(self, d: Divergence) -> None:
        """Raise the disagreement unless its kind was already found."""
        if d.signature() in self.seen:
            return
        self.shrinking = True
        raise Disagreement(d)

    def run(self, kinds: Sequence[str], vocab_mode: str, first_only: bool, examples_per_batch: int,
            progress: Optional[Progress]) -> Dict[str, Any]:
        import hypothesis
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import strategies as st
        from hypothesis.errors import HypothesisException

        from .strategies import examples

        strategies = (examples(kinds, vocab_mode), st.data())
        while not self.over_time() and (self.max_batches is None or self.batches < self.max_batches):
            self.shrinking = False
            s = batch_seed(self.seed, self.worker, self.batches)
            self.batches += 1
            test = settings(
                max_examples=examples_per_batch, deadline=None, database=None, derandomize=False,
                phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False, print_blob=False,
                suppress_health_check=list(HealthCheck),
            )(hypothesis.seed(s)(given(*strategies)(self.example)))
            try:
                test()
            except Disagreement as e:
                self.record(e.divergence)
                if first_only:
                    break
            except HypothesisException as e:  # Unsatisfiable and friends: nothing valid was drawn
                self.stats.unsupported["hypothesis: %s" % type(e).__name__] += 1
            if progress is not None:
                progress.update("%d examples, %d steps, %d disagreements"
                                % (self.stats.examples, self.stats.steps, len(self.failures)))
        return {"stats": self.stats.to_json(), "failures": self.failures, "batches": self.batches}

    def over_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def record(self, d: Divergence) -> None:
        """Keep a shrunk disagreement: refimpl's masks along its path, as a vector."""
        sig = d.signature()
        self.seen.add(sig)
        name = self.engine.name
        vid = "fuzz/%s/%s/seed%d-w%d-b%d" % (name, sig.replace(":", "-"), self.seed, self.worker, self.batches - 1)
        grammar = self.grammars.get(d.grammar)
        path = d.prefix + ([d.refused] if d.refused is not None else [])
        vector = record(grammar, d.grammar, d.vocab, path, vid, ["fuzz", sig], "fuzz",
                        "found by: python -m conformance fuzz --engine %s --seed %d" % (name, self.seed))
        self.failures.append({"signature": sig, "vector": vector.to_line(), "divergence": divergence_data(d)})


def run_worker(engine_name: str, seconds: Optional[float], seed: int, worker: int, kinds: Sequence[str],
               vocab_mode: str, max_steps: int, first_only: bool, examples_per_batch: int = EXAMPLES_PER_BATCH,
               batches: Optional[int] = None, progress: Optional[Progress] = None) -> Dict[str, Any]:
    """Fuzz until `seconds` have passed or `batches` batches have run (whichever comes
    first; one of them is given); returns stats and the minimal failures found."""
    import hypothesis.internal.conjecture.engine as conjecture

    assert seconds is not None or batches is not None, "a campaign needs a budget: seconds or batches"
    kept = conjecture.MAX_SHRINKING_SECONDS
    if seconds is not None:
        conjecture.MAX_SHRINKING_SECONDS = SHRINK_SECONDS  # bound the time spent shrinking one failure
    else:
        conjecture.MAX_SHRINKING_SECONDS = 10 ** 9  # no clock: hypothesis's count of shrinks bounds it
    try:
        w = Worker(engine_name, seconds, seed, worker, max_steps, batches)
        return w.run(kinds, vocab_mode, first_only, examples_per_batch, progress)
    finally:
        conjecture.MAX_SHRINKING_SECONDS = kept


#: run_worker's arguments up to `batches`: (engine_name, seconds, seed, worker, kinds,
#: vocab_mode, max_steps, first_only, examples_per_batch, batches)
WorkerArgs = Tuple[str, Optional[float], int, int, Sequence[str], str, int, bool, int, Optional[int]]


def _worker_entry(args: WorkerArgs) -> Dict[str, Any]:
    return run_worker(*args)


class FuzzReport:
    def __init__(self, engine: Engine, seconds: Optional[float], seed: int, jobs: int) -> None:
        self.engine, self.seconds, self.seed, self.jobs = engine, seconds, seed, jobs
        self.stats = Stats()
        self.failures: List[Dict[str, Any]] = []  # distinct signatures, with repro paths
        self.batches = 0
        self.elapsed = 0.0

    def table(self) -> str:
        s = self.stats
        lines = [
            "fuzz %s: %.0f s, seed %d, %d job(s), %d batches"
            % (self.engine.name, self.elapsed, self.seed, self.jobs, self.batches),
            "  examples %d (grammars refimpl rejects: %d), masks compared %d, agreeing %d"
            % (s.examples, s.invalid, s.steps, s.agree),
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


def fuzz(engine_name: str, seconds: Optional[float], seed: int = 0, jobs: Optional[int] = 1, out_dir: str = "conformance-repros",
         kinds: Optional[Sequence[str]] = None, vocab_mode: str = "mixed", max_steps: int = 8,
         first_only: bool = False, quiet: bool = False, examples_per_batch: int = EXAMPLES_PER_BATCH,
         batches: Optional[int] = None, ray: Optional[str] = None) -> FuzzReport:
    """A campaign against the engine `engine_name`, bounded by `seconds` (time) or by
    `batches` per worker (work: the same campaign on any machine), or both: whichever comes
    first. `jobs` workers (seeds seed/0 .. seed/jobs-1) in as many processes, or with `ray`
    as tasks on a Ray cluster ("" a local one of `jobs` CPUs; else its address:
    conformance/cluster.py), where jobs=None means one worker per CPU of the cluster."""
    engine = get_engine(engine_name)
    kinds = kinds_for(engine, kinds)
    report = FuzzReport(engine, seconds, seed, jobs or 1)
    t0 = time.monotonic()
    progress = None if quiet else Progress("fuzz %s" % engine.name)

    def args_for(workers: int) -> List[WorkerArgs]:
        report.jobs = workers
        return [(engine_name, seconds, seed, w, kinds, vocab_mode, max_steps, first_only, examples_per_batch, batches)
                for w in range(workers)]

    if ray is not None:
        from .cluster import run_tasks

        results = run_tasks(run_worker, lambda cpus: args_for(jobs or cpus), ray, jobs)
    elif (jobs or 1) <= 1:
        results = [run_worker(*args_for(1)[0], progress=progress)]
    else:
        import multiprocessing

        # a multiprocessing Pool, not concurrent.futures: PyPy 3.9's ProcessPoolExecutor
        # is broken (it calls a method it renamed)
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_worker_entry, args_for(jobs or 1))
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
            f["repro"] = write_repro(out_dir, engine, vector, f["divergence"])
            # the minimal case, as a vector that can join the suite
            with open(os.path.join(os.path.dirname(f["repro"]), "fuzz-vectors.jsonl"), "a", encoding="utf-8") as out:
                out.write(vector.to_line() + "\n")
            report.failures.append(f)
    report.elapsed = time.monotonic() - t0
    return report
