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

The time budget covers shrinking: a disagreement is shrunk while the budget lasts
(hypothesis's time limit for the shrink is set to what is left: `Worker.fail`), and when
it ends mid-shrink the smallest disagreement found so far is kept, marked as cut short.
So a campaign of `seconds` ends within seconds + SHRINK_MARGIN (the example running at
the deadline, writing the repros; docs/conformance.md, "Differential fuzzing"); the start
of the process (imports) comes before the budget starts.

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

from refimpl import MaskrefError, Matcher, Vocabulary, progress

if TYPE_CHECKING:  # hypothesis is needed only to fuzz
    from hypothesis.strategies import DataObject

from .compare import Path, compare_step
from .divergence import Divergence
from .engine import Engine, Session
from .isolation import fault_of
from .registry import get_engine
from .runner import GrammarCache, divergence_data, write_repro
from .vectors import GRAMMAR_KINDS, GrammarSpec, NotSupported, Vector, ids_of, record

EXAMPLES_PER_BATCH = 25
#: how far past its budget a campaign bounded by time may end, shrinking included: the
#: example running at the deadline (within the default Limits; an engine that hangs is
#: the containment's business, `run --timeout`) and writing the repros. Stated in
#: docs/conformance.md and the CLI help.
SHRINK_MARGIN = 10
#: a bound of one shrink's own, in seconds, besides the budget (None: the budget alone;
#: tools/mutation.py sets 1: a mutant needs a verdict, not a minimal case)
SHRINK_SECONDS: Optional[float] = None
#: note of a disagreement whose shrinking the budget cut short (the table and the repro say it)
CUT_SHORT = "shrinking cut short by the time budget: the smallest case found so far, maybe not minimal"


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
                 batches: Optional[int] = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.engine = get_engine(engine_name)
        self.clock = clock
        self.deadline = None if seconds is None else clock() + seconds
        self.max_batches = batches
        self.seed, self.worker, self.max_steps = seed, worker, max_steps
        self.grammars = GrammarCache()
        self.stats = Stats()
        self.seen: Set[str] = set()  # signatures found
        self.failures: List[Dict[str, Any]] = []
        self.batches = 0
        # from a batch's first failure on, hypothesis shrinks it: `shrunk` examples run so
        # far, `best` the last (so smallest) disagreement seen
        self.shrinking = False
        self.shrink_ends = float("inf")  # when hypothesis's time limit stops the shrink
        self.shrunk = 0
        self.best: Optional[Divergence] = None
        self.task: Optional[progress.Task] = None  # the progress line's (refimpl/progress.py)

    def example(self, drawn: Tuple[GrammarSpec, Vocabulary], data: DataObject) -> None:
        """One hypothesis example: refimpl's Matcher and an engine session along a path of
        tokens drawn (by `data`) from the tokens both allow.

        Examples that hypothesis's shrinker runs after the deadline are not cut (an example
        that stopped early would make hypothesis call the test flaky): the shrinker's own
        time limit is set to what is left of the budget when the first disagreement is
        found (`fail`), so hypothesis stops the shrink at the deadline and reports the
        smallest disagreement so far."""
        if self.shrinking:
            self.shrunk += 1
            if self.task is not None:
                self.task.note = "shrinking [%s]: %d examples tried" % (
                    self.best.signature() if self.best is not None else "", self.shrunk)
        elif self.over_time():
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
        if not self.shrinking:  # hypothesis shrinks it next, for at most what is left
            import hypothesis.internal.conjecture.engine as conjecture

            self.shrinking = True
            now = self.clock()
            left = [1e9 if self.deadline is None else max(0.0, self.deadline - now)]
            conjecture.MAX_SHRINKING_SECONDS = limit = min(left + ([] if SHRINK_SECONDS is None else [SHRINK_SECONDS]))
            self.shrink_ends = now + limit
        self.best = d
        raise Disagreement(d)

    def run(self, kinds: Sequence[str], vocab_mode: str, first_only: bool, examples_per_batch: int,
            task: Optional[progress.Task] = None) -> Dict[str, Any]:
        import hypothesis.internal.conjecture.engine as conjecture
        from hypothesis import strategies as st

        from .strategies import examples

        strategies = (examples(kinds, vocab_mode), st.data())
        self.task = task
        kept = conjecture.MAX_SHRINKING_SECONDS  # set by `fail` for each shrink
        try:
            self._batches(strategies, first_only, examples_per_batch, task)
        finally:
            conjecture.MAX_SHRINKING_SECONDS = kept
        return {"stats": self.stats.to_json(), "failures": self.failures, "batches": self.batches}

    def _batches(self, strategies: Tuple[Any, Any], first_only: bool, examples_per_batch: int,
                 task: Optional[progress.Task]) -> None:
        import hypothesis
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis.errors import HypothesisException
        from hypothesis.reporting import with_reporter

        while not self.over_time() and (self.max_batches is None or self.batches < self.max_batches):
            self.shrinking, self.shrunk, self.best, self.shrink_ends = False, 0, None, float("inf")
            s = batch_seed(self.seed, self.worker, self.batches)
            self.batches += 1
            test = settings(
                max_examples=examples_per_batch, deadline=None, database=None, derandomize=False,
                phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False, print_blob=False,
                suppress_health_check=list(HealthCheck),
            )(hypothesis.seed(s)(given(*strategies)(self.example)))
            try:
                with with_reporter(_without_slow_shrink_warning):
                    test()
            except Disagreement as e:
                self.record(e.divergence, cut_short=self.clock() >= self.shrink_ends)
                if first_only:
                    break
            except HypothesisException as e:  # Unsatisfiable and friends: nothing valid was drawn
                self.stats.unsupported["hypothesis: %s" % type(e).__name__] += 1
            if task is not None:
                task.note = "%d examples, %d steps, %d disagreements" % (
                    self.stats.examples, self.stats.steps, len(self.failures))

    def over_time(self) -> bool:
        return self.deadline is not None and self.clock() > self.deadline

    def record(self, d: Divergence, cut_short: bool = False) -> None:
        """Keep a shrunk disagreement: refimpl's masks along its path, as a vector."""
        sig = d.signature()
        self.seen.add(sig)
        name = self.engine.name
        vid = "fuzz/%s/%s/seed%d-w%d-b%d" % (name, sig.replace(":", "-"), self.seed, self.worker, self.batches - 1)
        grammar = self.grammars.get(d.grammar)
        path = d.prefix + ([d.refused] if d.refused is not None else [])
        vector = record(grammar, d.grammar, d.vocab, path, vid, ["fuzz", sig], "fuzz",
                        "found by: python -m conformance fuzz --engine %s --seed %d" % (name, self.seed))
        self.failures.append({"signature": sig, "vector": vector.to_line(), "divergence": divergence_data(d),
                              "cut_short": cut_short, "shrink_examples": self.shrunk})


def _without_slow_shrink_warning(text: str) -> None:
    """hypothesis's reporter, without the warning it prints when its time limit stops a
    shrink ("more than five minutes"): here that limit is the campaign's budget, and the
    report says the shrink was cut short."""
    from hypothesis.reporting import default

    if "working to shrink" not in text:
        default(text)


def run_worker(engine_name: str, seconds: Optional[float], seed: int, worker: int, kinds: Sequence[str],
               vocab_mode: str, max_steps: int, first_only: bool, examples_per_batch: int = EXAMPLES_PER_BATCH,
               batches: Optional[int] = None, task: Optional[progress.Task] = None,
               clock: Callable[[], float] = time.monotonic) -> Dict[str, Any]:
    """Fuzz until `seconds` have passed or `batches` batches have run (whichever comes
    first; one of them is given), shrinking included (Worker.example); returns stats and
    the failures found (minimal, or the smallest so far where the budget cut a shrink)."""
    assert seconds is not None or batches is not None, "a campaign needs a budget: seconds or batches"
    w = Worker(engine_name, seconds, seed, worker, max_steps, batches, clock)
    return w.run(kinds, vocab_mode, first_only, examples_per_batch, task)


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
            if f.get("cut_short"):
                lines.append("    (%s, after %d examples)" % (CUT_SHORT, f.get("shrink_examples", 0)))
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

    def args_for(workers: int) -> List[WorkerArgs]:
        report.jobs = workers
        return [(engine_name, seconds, seed, w, kinds, vocab_mode, max_steps, first_only, examples_per_batch, batches)
                for w in range(workers)]

    if ray is not None:
        from .cluster import run_tasks

        results = run_tasks(run_worker, lambda cpus: args_for(jobs or cpus), ray, jobs)
    elif (jobs or 1) <= 1:
        with progress.shown(enabled=not quiet), progress.task("fuzz %s" % engine.name) as task:
            results = [run_worker(*args_for(1)[0], task=task)]
    else:
        import multiprocessing

        # a multiprocessing Pool, not concurrent.futures: PyPy 3.9's ProcessPoolExecutor
        # is broken (it calls a method it renamed)
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_worker_entry, args_for(jobs or 1))
    seen = set()
    for r in results:
        report.stats.merge(r["stats"])
        report.batches += r["batches"]
        for f in r["failures"]:
            if f["signature"] in seen:
                continue
            seen.add(f["signature"])
            vector = Vector.from_json(json.loads(f["vector"]))
            f["repro"] = write_repro(out_dir, engine, vector, f["divergence"],
                                     CUT_SHORT if f.get("cut_short") else "")
            # the minimal case, as a vector that can join the suite
            with open(os.path.join(os.path.dirname(f["repro"]), "fuzz-vectors.jsonl"), "a", encoding="utf-8") as out:
                out.write(vector.to_line() + "\n")
            report.failures.append(f)
    report.elapsed = time.monotonic() - t0
    return report
