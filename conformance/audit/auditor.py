"""The auditor: a sampled fraction of a running engine's masks checked against refimpl's,
off the hot path.

The wrappers (llguidance.py, xgrammar.py, vllm.py) give each audited matcher a `Stream`:
the hot path tells it the tokens the engine consumed and rolled back, and asks it at every
mask whether this step is sampled (a seeded draw); only a sampled step's mask is copied
and queued, with the grammar and the token prefix. A checker thread takes the queue:
refimpl's mask after the same prefix (a matcher per stream, moved along the prefix), the
two masks compared as the conformance runner compares them (compare.diff), a difference
classified by the engine's known differences (the peer's differences.py, and those of an
audited setup: differences.py here); an undeclared one is written as a conformance vector
and a repro (`write_finding`), replayed by the conformance runner where the engine can
run here, so the repro starts at the first step where the engine diverges.

Nothing the checker does reaches the engine: it reads copies. A crash of the checker is
counted and kept in the report (`errors`), never raised to the caller; a full queue drops
the step (`dropped`) rather than wait.

>>> from refimpl import Vocabulary
>>> from conformance.vectors import GrammarSpec
>>> a = Auditor(Vocabulary.from_bytes([b"a", b"b", b"<eos>"], eos_token_id=2), engine="refimpl", sample_rate=1.0)
>>> s = a.stream(GrammarSpec("regex", "ab"))
>>> s.sampled()
True
>>> s.record(bytes([0b001, 0, 0, 0]))  # 'a' allowed: refimpl agrees
>>> s.consumed([0]); _ = s.sampled(); s.record(bytes([0b110, 0, 0, 0]))  # 'b' and EOS: EOS is wrong
>>> r = a.close()
>>> r.seen, r.checked, r.agreed, len(r.undeclared), r.undeclared[0]["step"]
(2, 2, 1, 1, 1)
>>> import shutil; shutil.rmtree(a.out_dir)
"""
from __future__ import annotations

import collections
import os
import queue
import random
import tempfile
import threading
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from refimpl import MaskrefError, Vocabulary, open_matcher
from refimpl.masks.matcher import MatcherLike

from ..compare import diff
from ..differences import KnownDifference, classify
from ..divergence import Divergence
from ..engine import Engine
from ..registry import get_engine
from ..runner import GrammarCache, check_vector, divergence_data, safe_name, write_repro
from ..vectors import GrammarSpec, Vector, record
from .differences import audit_differences

#: the default fraction of steps checked
SAMPLE_RATE = 0.01
#: steps waiting for the checker; beyond, a sampled step is dropped (counted), never waited for
QUEUE_SIZE = 256
#: refimpl matchers kept, one per stream (the least recently checked one goes first)
MATCHERS_KEPT = 64
#: undeclared differences written as vectors; later ones are counted only
MAX_FINDINGS = 100


class Unreadable:
    """A grammar the auditor cannot state in refimpl's terms (why, for the report)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class Stream:
    """One audited matcher's record, kept by the hot path: the tokens its engine consumed
    (rolled back as it rolls back), its generation (reset starts a new one), and the
    sampling draw. A stream is used by one thread at a time, as its matcher is."""

    def __init__(self, auditor: "Auditor", number: int, grammar: Union[GrammarSpec, Unreadable],
                 tokens: Sequence[int] = ()) -> None:
        self.auditor = auditor
        self.number = number
        self.grammar = grammar
        self.tokens: List[int] = list(tokens)
        self.generation = 0
        self.off_reason: Optional[str] = None  # why this generation's masks are not compared
        self.rate = auditor.sample_rate
        self.rng = random.Random("%d/%d" % (auditor.seed, number))

    # -- what the engine did ------------------------------------------------------------

    def consumed(self, tokens: Sequence[int]) -> None:
        self.tokens.extend(tokens)

    def rolled_back(self, n: int) -> None:
        if n > 0:
            del self.tokens[-n:]

    def reset(self) -> None:
        self.tokens = []
        self.generation += 1
        self.off_reason = None

    def off(self, reason: str) -> None:
        """The engine's masks no longer follow the grammar (e.g. its error state) until
        a reset: sampled steps are counted as not compared, for this reason."""
        self.off_reason = reason

    def fork(self) -> "Stream":
        """A stream for a copy of the matcher (deep_copy, clone): the same tokens so far."""
        return self.auditor.stream(self.grammar, self.tokens)

    # -- masks ----------------------------------------------------------------------------

    def sampled(self) -> bool:
        """Count one step; is it to be checked? (the draw is the stream's own, seeded)"""
        a = self.auditor
        with a._lock:
            a._counts["seen"] += 1
        if self.rate <= 0.0 or a._closed:
            return False
        if self.rate < 1.0 and self.rng.random() >= self.rate:
            return False
        if self.off_reason is not None:  # sampled, not compared
            with a._lock:
                a._counts["sampled"] += 1
                a._skipped[self.off_reason] += 1
            return False
        return True

    def record(self, bitmask: bytes, note: Optional[str] = None) -> None:
        """Queue a sampled step: the engine's bitmask (a copy) after the tokens so far."""
        self.auditor._queue_step(self, bytes(bitmask), note)

    def failed(self, where: str, error: BaseException) -> None:
        """The hot path's own recording failed (the engine's answer is returned anyway)."""
        self.auditor.record_error("recording %s: %s: %s" % (where, type(error).__name__, error))


class Item:
    """A queued step: which stream and generation, the prefix, the engine's bitmask."""

    __slots__ = ("stream", "generation", "grammar", "prefix", "bitmask", "note")

    def __init__(self, stream: Stream, bitmask: bytes, note: Optional[str]) -> None:
        self.stream = stream.number
        self.generation = stream.generation
        self.grammar = stream.grammar
        self.prefix = tuple(stream.tokens)
        self.bitmask = bitmask
        self.note = note


class AuditReport:
    """The counts so far: steps seen by the wrappers, sampled, checked against refimpl,
    agreed; known differences by name; undeclared ones with their vector and repro;
    sampled steps not compared (`skipped`, by reason), dropped (queue full), still
    queued, and the checker's errors."""

    def __init__(self, engine: str, counts: Dict[str, int], known: Dict[str, int], skipped: Dict[str, int],
                 undeclared: List[Dict[str, Any]], errors: List[str], pending: int) -> None:
        self.engine = engine
        self.seen = counts["seen"]
        self.sampled = counts["sampled"]
        self.checked = counts["checked"]
        self.agreed = counts["agreed"]
        self.dropped = counts["dropped"]
        self.known = known
        self.skipped = skipped
        self.undeclared = undeclared
        self.errors = errors
        self.pending = pending

    def to_json(self) -> Dict[str, Any]:
        return {"engine": self.engine, "seen": self.seen, "sampled": self.sampled, "checked": self.checked,
                "agreed": self.agreed, "known": self.known, "undeclared": self.undeclared,
                "skipped": self.skipped, "dropped": self.dropped, "pending": self.pending, "errors": self.errors}

    def __str__(self) -> str:
        lines = ["audit of %s: %d steps seen, %d sampled, %d checked, %d agreed, %d known, %d undeclared"
                 % (self.engine, self.seen, self.sampled, self.checked, self.agreed, sum(self.known.values()),
                    len(self.undeclared))]
        for name, n in sorted(self.known.items(), key=lambda kv: -kv[1]):
            lines.append("  known difference %-34s %6d" % (name, n))
        for f in self.undeclared:
            lines.append("  UNDECLARED at step %d of stream %d [%s] -> %s"
                         % (f["step"], f["stream"], f["signature"], f.get("repro") or f.get("not_written", "")))
        for reason, n in sorted(self.skipped.items(), key=lambda kv: -kv[1]):
            lines.append("  not compared: %5d x %s" % (n, reason))
        if self.dropped or self.pending:
            lines.append("  dropped (queue full) %d, still queued %d" % (self.dropped, self.pending))
        for e in self.errors[:5]:
            lines.append("  checker error: %s" % e)
        if len(self.errors) > 5:
            lines.append("  ... %d more checker errors" % (len(self.errors) - 5))
        return "\n".join(lines)


class Auditor:
    """Checks a sampled fraction of audited matchers' masks against refimpl, in a
    background thread. `vocab` is refimpl's vocabulary of the engine's tokenizer (ids the
    same); `engine` the conformance engine whose known differences classify a difference
    (an Engine, or a registry name: "llguidance", "xgrammar"), also used to replay an
    undeclared difference; `sample_rate` the fraction of steps checked (0: none, 1: all),
    drawn per stream from `seed`; `out_dir` where undeclared differences are written
    (default: a new temporary folder); `backend` the refimpl backend that computes the
    reference masks (`open_matcher`'s)."""

    def __init__(self, vocab: Vocabulary, engine: Union[str, Engine] = "llguidance",
                 sample_rate: float = SAMPLE_RATE, seed: int = 0, out_dir: Optional[str] = None,
                 backend: str = "python", queue_size: int = QUEUE_SIZE, max_findings: int = MAX_FINDINGS,
                 replay: bool = True) -> None:
        if not 0.0 <= sample_rate <= 1.0:
            raise ValueError("sample_rate is a fraction, from 0 to 1 (got %r)" % sample_rate)
        self.vocab = vocab
        self.engine = get_engine(engine) if isinstance(engine, str) else engine
        self.differences: List[KnownDifference] = list(audit_differences(self.engine.name)) + list(
            self.engine.known_differences)
        self.sample_rate = sample_rate
        self.seed = seed
        self.out_dir = out_dir or tempfile.mkdtemp(prefix="maskref-audit-")
        self.backend = backend
        self.max_findings = max_findings
        self.replay = replay
        self._lock = threading.Lock()
        self._counts = collections.Counter({"seen": 0, "sampled": 0, "checked": 0, "agreed": 0, "dropped": 0})
        self._known: collections.Counter = collections.Counter()
        self._skipped: collections.Counter = collections.Counter()
        self._undeclared: List[Dict[str, Any]] = []
        self._errors: List[str] = []
        self._streams = 0
        self._closed = False
        self._queue: "queue.Queue[Optional[Item]]" = queue.Queue(queue_size)
        # the checker's own state (its thread only)
        self._grammars = GrammarCache()
        self._matchers: "collections.OrderedDict[int, Tuple[int, MatcherLike, List[int]]]" = collections.OrderedDict()
        self._ended: Dict[Tuple[int, int], str] = {}  # (stream, generation) -> why no longer compared
        self._thread = threading.Thread(target=self._run, name="maskref-audit", daemon=True)
        self._thread.start()

    # -- the hot path's side ------------------------------------------------------------

    def stream(self, grammar: Union[GrammarSpec, Unreadable], tokens: Sequence[int] = ()) -> Stream:
        """A new stream (one audited matcher) for a grammar, after `tokens`."""
        with self._lock:
            self._streams += 1
            number = self._streams
        return Stream(self, number, grammar, tokens)

    def _queue_step(self, stream: Stream, bitmask: bytes, note: Optional[str]) -> None:
        with self._lock:
            self._counts["sampled"] += 1
        try:
            self._queue.put_nowait(Item(stream, bitmask, note))
        except queue.Full:
            with self._lock:
                self._counts["dropped"] += 1

    # -- reports and the end ------------------------------------------------------------

    def report(self) -> AuditReport:
        """The counts so far (the checker goes on)."""
        with self._lock:
            return AuditReport(self.engine.name, dict(self._counts), dict(self._known), dict(self._skipped),
                               [dict(f) for f in self._undeclared], list(self._errors), self._queue.qsize())

    def close(self, timeout: Optional[float] = None) -> AuditReport:
        """Stop sampling, check what is queued, stop the checker; the final report.
        Called again, it only reports."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
        self._thread.join(timeout)
        return self.report()

    def __enter__(self) -> "Auditor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the checker's side -------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                self._check(item)
            except Exception as e:  # noqa: BLE001 - the checker never stops the generation
                self.record_error("step %d of stream %d: %s: %s [%s]" % (len(item.prefix), item.stream, type(e).__name__, e,
                                                                   _where(e)))

    def record_error(self, text: str) -> None:
        with self._lock:
            self._errors.append(text)

    def _skip(self, reason: str) -> None:
        with self._lock:
            self._skipped[reason] += 1

    def _check(self, item: Item) -> None:
        """Compare one sampled step with refimpl's mask; count it, classify a difference."""
        key = (item.stream, item.generation)
        if isinstance(item.grammar, Unreadable):
            return self._skip(item.grammar.reason)
        if key in self._ended:
            return self._skip(self._ended[key])
        try:
            m, refused_at = self._matcher_at(item)
        except MaskrefError as e:
            return self._skip("refimpl cannot compile the grammar: %s" % str(e).splitlines()[0][:160])
        spec, prefix = item.grammar, list(item.prefix)
        if refused_at is not None:  # the engine consumed a token refimpl refuses: it allowed it
            d = Divergence(spec, self.vocab, prefix[:refused_at], refused_at, [prefix[refused_at]], [])
        else:
            expected = m.mask().to_bytes()
            only_engine, only_refimpl = diff(expected, item.bitmask, len(self.vocab))
            if not only_engine and not only_refimpl:
                with self._lock:
                    self._counts["checked"] += 1
                    self._counts["agreed"] += 1
                return None
            d = Divergence(spec, self.vocab, prefix, len(prefix), only_engine, only_refimpl,
                           accepting=m.is_accepting(), note=item.note)
        known = classify(self.differences, d)
        with self._lock:
            self._counts["checked"] += 1
            if known is not None:
                self._known[known.name] += 1
        if known is None:
            self._ended[key] = "after an undeclared difference"
            self._finding(item, d)
        elif known.ends_path or refused_at is not None:
            self._ended[key] = "after the known difference %s" % known.name
        return None

    def _matcher_at(self, item: Item) -> Tuple[MatcherLike, Optional[int]]:
        """refimpl's matcher of the item's stream moved to its prefix (rolled back to the
        common part, then the rest consumed), and where refimpl refused a token (or None)."""
        assert isinstance(item.grammar, GrammarSpec)
        kept = self._matchers.pop(item.stream, None)
        if kept is None or kept[0] != item.generation:
            grammar = self._grammars.get(item.grammar)
            kept = (item.generation, open_matcher(grammar, self.vocab, backend=self.backend), [])
        generation, m, tokens = kept
        self._matchers[item.stream] = kept
        while len(self._matchers) > MATCHERS_KEPT:
            self._matchers.popitem(last=False)
        common = 0
        for a, b in zip(tokens, item.prefix):
            if a != b:
                break
            common += 1
        if common < len(tokens):
            m.rollback(len(tokens) - common)
            del tokens[common:]
        for t in item.prefix[common:]:
            if not m.consume(t):
                return m, len(tokens)
            tokens.append(t)
        return m, None

    # -- findings -------------------------------------------------------------------------

    def _finding(self, item: Item, d: Divergence) -> None:
        """Record an undeclared difference; write it as a vector and a repro (up to
        max_findings of them)."""
        f: Dict[str, Any] = {"stream": item.stream, "generation": item.generation, "step": d.step,
                             "signature": d.signature(), "only_engine": d.only_engine[:32],
                             "only_refimpl": d.only_refimpl[:32]}
        with self._lock:
            self._undeclared.append(f)
            written = sum(1 for x in self._undeclared if "repro" in x)
        if written >= self.max_findings:
            f["not_written"] = "max_findings (%d) reached" % self.max_findings
            return
        assert isinstance(item.grammar, GrammarSpec)
        vid = "audit/%s/%s/stream%d-gen%d-step%d" % (self.engine.name, d.signature().replace(":", "-"), item.stream,
                                                     item.generation, d.step)
        paths = write_finding(self.out_dir, self.engine, self._grammars, d, vid, self.replay,
                              "found by maskref's audit of a running %s (sample rate %g)"
                              % (self.engine.name, self.sample_rate))
        with self._lock:
            f.update(paths)


def write_finding(out_dir: str, engine: Engine, grammars: GrammarCache, d: Divergence, vid: str, replay: bool,
                  note: str) -> Dict[str, Any]:
    """Write an undeclared difference as a conformance vector (refimpl's masks along its
    prefix, appended to <out_dir>/<engine>/audit-vectors.jsonl, a file the runner reads)
    and as the runner's repro (<vector id>.txt, and .jsonl up to the divergent step).
    With `replay`, where the engine can run here, the runner replays the vector first:
    the repro is then the runner's own, from the first step at which the engine diverges
    on that path (a shorter case than the sampled step, when the difference began on a
    step that was not sampled); otherwise it is the audited step's."""
    grammar = grammars.get(d.grammar)
    vector = record(grammar, d.grammar, d.vocab, d.prefix, vid, ["audit", d.signature()], "audit", note)
    folder = os.path.join(out_dir, safe_name(engine.name))
    os.makedirs(folder, exist_ok=True)
    collected = os.path.join(folder, "audit-vectors.jsonl")
    with open(collected, "a", encoding="utf-8") as out:
        out.write(vector.to_line() + "\n")
    data, notes = divergence_data(d), "audited step %d of the path" % d.step
    if replay:
        data, notes = _replayed(engine, grammars, vector, data, notes)
    repro = write_repro(out_dir, engine, vector, data, notes)
    return {"vector": os.path.splitext(repro)[0] + ".jsonl", "repro": repro, "vectors": collected,
            "replayed": notes}


def _replayed(engine: Engine, grammars: GrammarCache, vector: Vector, data: Dict[str, Any],
              notes: str) -> Tuple[Dict[str, Any], str]:
    """The runner's divergence on the vector, where the engine can run here and diverges
    there; else the audited one, with a note saying why."""
    reason = engine.unavailable_reason()
    if reason is not None:
        return data, notes + "; not replayed: %s" % reason
    try:
        result = check_vector(engine, vector, grammars)
    except Exception as e:  # noqa: BLE001 - the replay is a courtesy; the finding stands
        return data, notes + "; the replay failed: %s: %s" % (type(e).__name__, e)
    if result.status == "disagree" and result.divergence is not None:
        return result.divergence, notes + "; replayed by the conformance runner: diverges at step %d" % (
            result.divergence["step"])
    return data, notes + ("; the conformance engine %s does not reproduce it on replay (%s%s): the audited "
                          "engine's setup differs (tokenizer, options)" % (engine.name, result.status,
                                                                          ", " + ", ".join(result.known)
                                                                          if result.known else ""))


def _where(e: BaseException) -> str:
    """The innermost frame of an exception, as file:line."""
    tb = traceback.extract_tb(e.__traceback__)
    return "%s:%s" % (os.path.basename(tb[-1].filename), tb[-1].lineno) if tb else "?"
