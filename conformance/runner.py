"""The runner: check an engine against the vectors, tell agreement from known
differences from disagreements, and write a repro for every disagreement.

A vector's status is one of
    agree        every mask equal, every token of the path consumed (an error vector: the
                 engine refused its grammar, as refimpl does: _check_refusal)
    known        masks differ only by the engine's declared known differences
    disagree     a difference no known difference explains, a token refused, or an error
                 (an error vector: the engine accepted its grammar, or, built on refimpl,
                 refused it with another error)
    unsupported  the engine cannot run the grammar or vocabulary (with the reason)
and the run's exit status is 0 (no disagreement), 1 (some) or 2 (usage or setup error).
"""
from __future__ import annotations

import collections
import datetime
import json
import os
import re
import shlex
import sys
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, TextIO, Tuple, Union

from refimpl import Grammar, MaskrefError, Matcher, Vocabulary, progress

from . import results as stored
from .compare import Path, StepOutcome, allows, compare_step
from .containment import Contained, Limits
from .differences import ACCEPTS_REFUSED
from .divergence import Divergence, compiled
from .engine import Engine, Session
from .isolation import fault_of
from .registry import get_engine
from .vectors import FormatError, GrammarSpec, NotSupported, Refused, Vector, error_fields, json_line, suite_lines, token_text

STATUSES = ("agree", "known", "disagree", "unsupported")


class Result:
    """The outcome of one vector against one engine (plain data: it crosses processes and
    is stored, one JSON line each, by conformance/results.py).

    Besides the status: `fault` names a failure of the engine's process during the
    vector ("crash", "timeout", "memory", "malformed": isolation.fault_of; "" for none),
    its status "disagree" (counted apart: Report.faults) or "known" when declared; `under` and `over` count the compared
    steps whose mask differed from refimpl's, known differences included: under, the
    engine allowed a token refimpl refuses (output can leave the grammar); over, the
    engine refused a token refimpl allows (valid outputs cut off). A step can be both.
    `first_mask_us` is the time from the engine's start to its first mask (TTFM) and
    `mask_us` the time of each later mask (TBM), in microseconds. `valid` is the label a
    benchmark gives the vector's text, and `accepted` the engine's own verdict on that
    whole text (None where the vector asks for none)."""

    def __init__(self, id: str, kind: str, status: str, steps: int = 0, known: Sequence[str] = (),
                 reason: str = "", divergence: Optional[Dict[str, Any]] = None) -> None:
        self.id = id
        self.kind = kind
        self.status = status
        self.steps = steps
        self.known = list(known)
        self.reason = reason
        self.divergence = divergence
        self.repro: Optional[str] = None
        self.fault = ""
        self.under = 0
        self.over = 0
        self.first_mask_us: Optional[int] = None
        self.mask_us: List[int] = []
        self.valid: Optional[bool] = None
        self.accepted: Optional[bool] = None

    def to_json(self) -> Dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Result":
        r = cls(data["id"], data["kind"], data["status"])
        for name, value in data.items():
            if name in vars(r):
                setattr(r, name, value)
        return r


def divergence_data(d: Divergence) -> Dict[str, Any]:
    return {"step": d.step, "prefix": d.prefix, "only_engine": d.only_engine, "only_refimpl": d.only_refimpl,
            "error": d.error, "refused": d.refused, "accepting": d.accepting, "signature": d.signature(),
            "direction": direction(d.only_engine, d.only_refimpl)}


def direction(only_engine: Sequence[int], only_refimpl: Sequence[int]) -> str:
    """How a mask difference is felt: "under" (the engine allows a token refimpl
    refuses: output can leave the grammar), "over" (it refuses one refimpl allows: valid
    outputs cut off), "both", or "" (no mask difference: an error or a refused token).

    >>> direction([5], []), direction([], [7]), direction([5], [7]), direction([], [])
    ('under', 'over', 'both', '')
    """
    return "both" if only_engine and only_refimpl else "under" if only_engine else "over" if only_refimpl else ""


class GrammarCache:
    """refimpl's compiled grammars by spec (a Grammar holds no matching state): those of
    `divergence.compiled`, one cache for the process, so the known differences' predicates
    that replay refimpl (`Divergence.replay`) find the grammar compiled here instead of
    compiling it again. A failure to compile is kept and raised again."""

    def get(self, spec: GrammarSpec) -> Grammar:
        return compiled(spec)


def check_vector(engine: Engine, vector: Vector, grammars: Optional[GrammarCache] = None) -> Result:
    """Run one vector against an engine."""
    spec, vocab = vector.grammar, vector.vocab
    res = Result(vector.id, spec.kind, "agree")
    if spec.kind not in engine.kinds:
        res.status, res.reason = "unsupported", "%s has no %s grammars" % (engine.name, spec.kind)
        return res
    if vector.error is not None:
        return _check_refusal(engine, vector, res)
    grammar = None
    if engine.uses_refimpl:
        try:
            grammar = (grammars or GrammarCache()).get(spec)
        except MaskrefError as e:
            res.status, res.reason = "unsupported", "refimpl cannot compile the grammar: %s" % e
            return res
    path = Path(spec, vocab)
    t0 = time.perf_counter_ns()
    try:
        session = engine.start(spec, vocab, grammar)
    except NotSupported as e:
        res.status, res.reason = "unsupported", str(e)
        return res
    except Exception as e:  # noqa: BLE001 - any crash of the engine is a finding (unless a known one)
        _ended_by(engine, res, path.divergence(error="start: %s: %s" % (type(e).__name__, e)), fault_of(e))
        return res
    start_ns = session.start_ns if session.start_ns is not None else time.perf_counter_ns() - t0
    try:
        last = _follow(engine, session, vector, path, res, grammar, start_ns)
        if vector.benchmark is not None:
            res.valid = vector.benchmark.valid
            res.accepted = _verdict(engine, session, vector, path.tokens, last, res, grammar)
    except Exception as e:  # noqa: BLE001 - only a fault of the engine's process, raised by the API check
        fault = fault_of(e)
        if not fault:
            raise
        _ended_by(engine, res, path.divergence(error="%s: %s" % (type(e).__name__, e)), fault)
    finally:
        try:
            session.close()
        except Exception:  # noqa: BLE001
            pass
    return res


def _check_refusal(engine: Engine, vector: Vector, res: Result) -> Result:
    """An error vector (refimpl refuses its grammar): the engine must refuse it too. Any
    error at its start is a refusal (`res.reason` keeps its first line), except that an
    engine that cannot run the grammar at all (NotSupported, not `Refused`: a dialect or
    vocabulary it lacks) is unsupported, and a fault of its process is a fault. Engines
    built on refimpl (`uses_refimpl`: its backends, `cmd:` workers, whose typed errors
    come back as refimpl's) must refuse with refimpl's error: the same class and
    position (vectors.error_fields), so a TypeError, or an offset one off, disagrees. An
    engine that starts a session accepts the grammar: a disagreement."""
    path = Path(vector.grammar, vector.vocab)
    want = vector.error or {}
    try:
        session = engine.start(vector.grammar, vector.vocab, None)
    except NotSupported as e:
        if isinstance(e, Refused):
            res.reason = _first_line(str(e), 200)
        else:
            res.status, res.reason = "unsupported", str(e)
        return res
    except Exception as e:  # noqa: BLE001 - a refusal; compared with refimpl's where the engine is refimpl's
        fault = fault_of(e)
        got = error_fields(e)
        if fault:
            _ended_by(engine, res, path.divergence(error="start: %s: %s" % (type(e).__name__, e)), fault)
        elif engine.uses_refimpl and got != want:
            remote = getattr(e, "error", None)  # a worker's error reply that is no refimpl error: its own message
            said = remote.get("message") if isinstance(remote, dict) and remote.get("message") else str(e)
            _ended_by(engine, res, path.divergence(error="refuses the grammar with %s, refimpl with %s: %s" % (
                _shown_error(got), _shown_error(want), _first_line(str(said), 200))), "")
        else:
            res.reason = "%s: %s" % (type(e).__name__, _first_line(str(e), 200))
        return res
    try:
        session.close()
    except Exception:  # noqa: BLE001
        pass
    _ended_by(engine, res, accepts_refused(path, vector), "")
    if res.divergence is not None:  # what should be refused is allowed: under-constrained
        res.divergence["direction"] = "under"
    return res


def accepts_refused(path: Path, vector: Vector) -> Divergence:
    """The divergence of an engine that started a session on an error vector's grammar."""
    return path.divergence(error="%s: %s" % (ACCEPTS_REFUSED, _shown_error(vector.error or {})))


def _shown_error(fields: Dict[str, Any]) -> str:
    """An error's fields readably: `GrammarError (offset 9, line 1, column 10)`.

    >>> _shown_error({"type": "SchemaError", "pointer": "/type"}), _shown_error({"type": "TypeError"})
    ('SchemaError (pointer /type)', 'TypeError')
    """
    rest = ", ".join("%s %s" % (k, "null" if v is None else v) for k, v in fields.items() if k != "type")
    return "%s (%s)" % (fields.get("type"), rest) if rest else str(fields.get("type"))


def _ended_by(engine: Engine, res: Result, d: Divergence, fault: str) -> None:
    """Record an error of the engine that ends the vector: the engine's known difference
    or a disagreement, and the fault of its process it was, if any (res.fault)."""
    known = engine.classify(d)
    if known is None:
        res.status, res.divergence = "disagree", divergence_data(d)
    else:
        res.status = "known"
        if known.name not in res.known:
            res.known.append(known.name)
    res.fault = fault


def _next_token(t: Optional[int]) -> Callable[[bytes], Optional[int]]:
    """The vector's next token, unless a known difference left the engine off the
    vector's path (its mask lacks that token): the comparison stops there."""
    return lambda got: t if t is not None and allows(got, t) else None


def _follow(engine: Engine, session: Session, vector: Vector, path: Path, res: Result,
            grammar: Optional[Grammar] = None, start_ns: int = 0) -> Optional[StepOutcome]:
    """Compare the vector's steps in order, until its path ends or a step decides; count
    the steps whose masks differ (res.under, res.over) and time the engine's masks (the
    first with its start: res.first_mask_us; the others: res.mask_us). For refimpl's own
    backends, also the rest of the Matcher API after every token, against refimpl
    replaying the path (conformance/apicheck.py), and at the path's end a rollback of half
    of it. Returns the last step's outcome (None if no step was compared, or the session
    was rolled back)."""
    from .apicheck import api_difference, api_of, out_of_range_difference, rollback_difference

    api = api_of(engine, session) if grammar is not None else None
    ref = Matcher(grammar, vector.vocab) if api is not None and grammar is not None else None
    last: Optional[StepOutcome] = None
    for step in vector.steps:
        if ref is not None and path.tokens:
            assert ref.consume(path.tokens[-1])
            wrong = api_difference(ref, api)
            if wrong is not None:
                res.status, res.divergence = "disagree", divergence_data(path.divergence(error=wrong))
                return None
        wrong = out_of_range_difference(session, len(vector.vocab)) if engine.uses_refimpl else None
        if wrong is not None:
            res.status, res.divergence = "disagree", divergence_data(path.divergence(error=wrong))
            return None
        last = out = compare_step(engine, session, path, step.mask, step.accepting, _next_token(step.token))
        if out.compared:
            if res.first_mask_us is None:
                res.first_mask_us = (start_ns + out.mask_ns) // 1000
            else:
                res.mask_us.append(out.mask_ns // 1000)
        res.steps += out.compared
        res.under += out.under
        res.over += out.over
        res.fault = res.fault or out.fault
        for k in out.known:
            res.status = "known"
            if k.name not in res.known:
                res.known.append(k.name)
        if out.unsupported is not None:
            res.status, res.reason = "unsupported", out.unsupported
            return out
        if out.divergence is not None:
            res.status, res.divergence = "disagree", divergence_data(out.divergence)
            return out
        if out.token is None:
            break
    if ref is not None and path.tokens and len(path.tokens) == len(vector.steps) - 1:
        wrong = rollback_difference(ref, api, (len(path.tokens) + 1) // 2)
        if wrong is not None:
            res.status, res.divergence = "disagree", divergence_data(path.divergence(error=wrong))
        return None  # the session was rolled back
    return last


def _verdict(engine: Engine, session: Session, vector: Vector, done: Sequence[int], last: Optional[StepOutcome],
             res: Result, grammar: Optional[Grammar] = None) -> Optional[bool]:
    """The engine's own verdict on the benchmark's whole text (vector.benchmark.tokens,
    EOS last), as MaskBench asks it: after the compared prefix `done`, each further token
    must be in the engine's mask and consumed (the masks timed into res.mask_us). None
    where the engine is unsupported; an engine that raises refuses. Where the comparison
    left the session elsewhere (refimpl's backends: the API check rolled it back), a fresh
    session reads the whole text."""
    assert vector.benchmark is not None
    tokens = vector.benchmark.tokens
    if res.status == "unsupported" or (last is not None and last.token is not None):
        return None
    if last is None:
        try:
            fresh = engine.start(vector.grammar, vector.vocab, grammar)
        except Exception as e:  # noqa: BLE001
            if fault_of(e):  # the process failed: no verdict (check_vector records the fault)
                raise
            return False
        try:
            return _reads(fresh, tokens, None, None)
        finally:
            fresh.close()
    if last.mask is None or last.refused is not None or list(tokens[:len(done)]) != list(done):
        return False  # the engine raised, refused the text's next token, or left the text
    return _reads(session, tokens[len(done):], last.mask, res.mask_us)


def _reads(session: Session, tokens: Sequence[int], mask: Optional[bytes], times: Optional[List[int]]) -> bool:
    """Does the session take every token, each in its mask? `mask` is its mask now, if
    known; the time of each mask call is appended to `times` (µs). Raising is refusing."""
    try:
        for t in tokens:
            if mask is None:
                t0 = time.perf_counter_ns()
                mask = session.mask()
                if times is not None:
                    ns = session.last_mask_ns if session.last_mask_ns is not None else time.perf_counter_ns() - t0
                    times.append(ns // 1000)
            if not allows(mask, t) or not session.consume(t):
                return False
            mask = None
    except Exception as e:  # noqa: BLE001 - an engine that raises on the text refuses it (MaskBench: an error)
        if fault_of(e):  # the process failed: no verdict (check_vector records the fault)
            raise
        return False
    return True


# ------------------------------------------------------------------------------- repros


def show_tokens(vocab: Vocabulary, ids: Sequence[int], limit: int = 24) -> str:
    shown = ", ".join("%d %s" % (t, json.dumps(token_text(vocab, t), ensure_ascii=False)) for t in ids[:limit])
    more = " ... and %d more" % (len(ids) - limit) if len(ids) > limit else ""
    return "(%d) %s%s" % (len(ids), shown or "-", more)


def safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:100]


def write_repro(out_dir: str, engine: Engine, vector: Vector, d: Dict[str, Any], known_notes: str = "") -> str:
    """Write <out_dir>/<engine>/<vector id>.txt (readable) and .jsonl (the vector up to
    the divergent step, to replay). Returns the .txt path."""
    folder = os.path.join(out_dir, safe_name(engine.name))
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, safe_name(vector.id))
    step = d["step"]
    # keep the refused token's step (and the state after it) in the replayable vector
    short = vector.truncated(step + 1 if d.get("refused") is not None and step + 1 < len(vector.steps) else step)
    with open(base + ".jsonl", "w", encoding="utf-8") as f:
        f.write(short.to_line() + "\n")
    vocab = vector.vocab
    prefix = d["prefix"]
    text = vocab.decode([t for t in prefix if t not in vocab.eos_token_ids])
    lines = [
        "maskref conformance repro",
        "engine       %s%s" % (engine.name, " (%s)" % engine.version() if _safe_version(engine) else ""),
        "vector       %s" % vector.id,
        "grammar      %s" % vector.grammar.describe(),
    ]
    if vector.error is not None:  # an error vector: no path, the grammar itself
        lines.append("expected     refimpl refuses the grammar: %s" % _shown_error(vector.error))
    else:
        lines += [
            "vocabulary   %s (%d tokens, EOS %s)" % (vector.vocab.name, len(vocab), list(vocab.eos_token_ids)),
            "path         %s" % show_tokens(vocab, prefix, limit=64),
            "text so far  %s" % json.dumps(text.decode("utf-8", "backslashreplace"), ensure_ascii=False),
            "diverges at  step %d (after %d tokens)" % (step, len(prefix)),
        ]
    if d.get("error"):
        lines.append("error        %s" % d["error"])
    elif d.get("refused") is not None:
        lines.append("refused      token %d %s: in both masks, but the engine's consume refused it"
                     % (d["refused"], json.dumps(token_text(vocab, d["refused"]), ensure_ascii=False)))
    else:
        lines.append("only engine  %s" % show_tokens(vocab, d["only_engine"]))
        lines.append("only refimpl %s" % show_tokens(vocab, d["only_refimpl"]))
    if known_notes:
        lines.append("note         %s" % known_notes)
    lines.append("replay       python -m conformance run --engine %s --suite %s"
                 % (shlex.quote(engine.name), shlex.quote(base + ".jsonl")))
    with open(base + ".txt", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return base + ".txt"


def _safe_version(engine: Engine) -> str:
    try:
        return engine.version()
    except Exception:  # noqa: BLE001
        return ""


# ------------------------------------------------------------------------------- reports


class Report:
    """Counts per grammar kind, the known differences met, the unsupported reasons; the
    vectors that disagree (a mask, a refused token, an error of the engine) and, apart,
    those whose engine's process failed (a crash, timeout, memory or malformed reply that
    no known difference declares: Result.fault)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.rows: Dict[str, collections.Counter] = collections.OrderedDict()
        self.known: collections.Counter = collections.Counter()
        self.reasons: collections.Counter = collections.Counter()
        self.disagreements: List[Result] = []
        self.faults: List[Result] = []
        self.resumed = 0  # results read from a results file, not checked again
        self.repros: List[str] = []  # the repros written (.txt paths), in order
        self.unwritten = 0  # failures left without a repro (over the cap of their kind)
        #: the vectors unsupported now that the results given to run_suite(supported=)
        #: record as supported (the same vector: id and digest): support lost
        self.lost: List[Result] = []

    def add(self, r: Result, was_supported: bool = False) -> None:
        """Count a vector's result; `was_supported`: an earlier run supported the vector, so
        unsupported now it is support lost."""
        row = self.rows.setdefault(r.kind, collections.Counter())
        row["vectors"] += 1
        row["steps"] += r.steps
        row[r.status] += 1  # (a fault is among "disagree": the matrix counts every undeclared failure)
        for k in r.known:
            self.known[k] += 1
        if r.status == "unsupported":
            self.reasons[r.reason] += 1
            if was_supported:
                self.lost.append(r)
        if r.status == "disagree" and r.fault:
            row["fault"] += 1
            self.faults.append(r)
        elif r.status == "disagree":
            self.disagreements.append(r)

    def count_repro(self, path: Optional[str]) -> None:
        """A failure's repro written (its path), or not (None: over the cap)."""
        if path is None:
            self.unwritten += 1
        else:
            self.repros.append(path)

    def failures(self) -> List[Result]:
        """The vectors that disagree, whose engine's process failed (undeclared), or that
        the engine no longer supports."""
        return self.disagreements + self.faults + self.lost

    def total(self) -> collections.Counter:
        out: collections.Counter = collections.Counter()
        for row in self.rows.values():
            out.update(row)
        return out

    def table(self) -> str:
        b = self.engine
        head = "engine %s%s" % (b.name, " (%s)" % _safe_version(b) if _safe_version(b) else "")
        cols = ("vectors", "steps", "agree", "known", "disagree", "faults", "unsupported")
        lines = [head, "  %-12s" % "kind" + "".join("%12s" % c for c in cols)]
        for kind, row in list(self.rows.items()) + [("total", self.total())]:
            shown = dict(row, disagree=row["disagree"] - row["fault"], faults=row["fault"])
            lines.append("  %-12s" % kind + "".join("%12d" % shown.get(c, 0) for c in cols))
        for name, n in self.known.most_common():
            k = next((k for k in b.known_differences if k.name == name), None)
            lines.append("  known difference %-22s %4d vectors  (%s)" % (name, n, k.kind if k else "?"))
        for reason, n in self.reasons.most_common(6):
            lines.append("  unsupported: %4d x %s" % (n, reason[:150]))
        if len(self.reasons) > 6:
            lines.append("  unsupported: ... %d more reasons" % (len(self.reasons) - 6))
        if self.faults:
            kinds = collections.Counter(r.fault for r in self.faults)
            lines.append("  faults of the engine's process: %s (each a fault of that vector, not a disagreement)"
                         % ", ".join("%d %s" % (n, f) for f, n in sorted(kinds.items())))
        for label, results in (("DISAGREE", self.disagreements), ("FAULT", self.faults)):
            for r in results[:20]:
                d = r.divergence or {}
                error = re.sub(r"worker `[^`]*` ", "the worker ", d.get("error") or "")  # (the engine names it)
                what = "%s: %s" % (r.fault, _first_line(error, 120)) if r.fault else d.get("signature")
                lines.append("  %s %s at step %s [%s]%s" % (label, r.id, d.get("step"), what,
                                                          "  -> " + r.repro if r.repro else ""))
            if len(results) > 20:
                lines.append("  ... %d more %s" % (len(results) - 20, "disagreements" if label == "DISAGREE" else "faults"))
        for r in self.lost[:20]:
            lines.append("  SUPPORT LOST %s: %s" % (r.id, _first_line(r.reason, 120)))
        if len(self.lost) > 20:
            lines.append("  ... %d more vectors whose support was lost" % (len(self.lost) - 20))
        return "\n".join(lines)

    def repro_summary(self, repros: "Repros") -> str:
        """Where the repros of this run's failures went, how many, how many were not
        written (over the cap) and how many failures were resumed from a results file."""
        failures = len(self.disagreements) + len(self.faults)  # (support lost has no repro)
        if not failures:
            return ""
        where = os.path.join(repros.folder or "?", safe_name(self.engine.name))
        cap = "all" if repros.per_kind is None else "at most %d per kind of failure" % repros.per_kind
        parts = ["%d written to %s (%s: --max-repros)" % (len(self.repros), where, cap) if self.repros
                 else "none written" + (" (--max-repros 0)" if repros.per_kind == 0 and self.unwritten else "")]
        if self.unwritten:
            parts.append("%d %s without one" % (self.unwritten, "failure" if self.unwritten == 1 else "failures"))
        resumed = failures - len(self.repros) - self.unwritten
        if resumed:
            parts.append("%d resumed from the results file (their records name their repros)" % resumed)
        shown = ["    " + path for path in self.repros[:3]]
        if len(self.repros) > 3:
            shown.append("    ... and %d more" % (len(self.repros) - 3))
        return "\n".join(["  repros: " + "; ".join(parts)] + shown)


def _first_line(text: str, limit: int) -> str:
    line = text.split("\n", 1)[0]
    return line if len(line) <= limit else line[:limit - 3] + "..."


class Repros:
    """Where a run writes its repros (write_repro), and how many: `folder`, or else a new
    directory in the system's temporary directory (tempfile.mkdtemp, `maskref-repros-*`),
    made when the first repro is written; at most `per_kind` repros per engine and kind of
    failure — the divergence's signature (`regex:missing-eos`, `json_schema:error`) or the
    fault (`crash`, `timeout`, ...) — all of them if None, none if 0. A run against a
    broken engine writes a few repros, one for each way it fails, not one per vector."""

    def __init__(self, folder: Optional[str] = None, per_kind: Optional[int] = 1) -> None:
        self.folder, self.per_kind = folder, per_kind
        self.written: collections.Counter = collections.Counter()  # (engine, kind) -> repros written

    def write(self, engine: Engine, vector: Vector, r: Result) -> Optional[str]:
        """The repro of the failing result r (its .txt path), or None over the cap."""
        assert r.divergence is not None
        key = (engine.name, r.fault or r.divergence.get("signature") or "")
        if self.per_kind is not None and self.written[key] >= self.per_kind:
            return None
        if self.folder is None:
            import tempfile

            self.folder = tempfile.mkdtemp(prefix="maskref-repros-")
        self.written[key] += 1
        return write_repro(self.folder, engine, vector, r.divergence)


#: the compliance matrix's columns: (grammar kind, heading)
MATRIX_KINDS = (("regex", "regex"), ("json_schema", "JSON schema"), ("lark", "Lark"), ("gbnf", "GBNF"),
                ("ebnf", "EBNF dialects"))


def matrix_header() -> str:
    """The head of the compliance matrix (docs/compliance.md), in Markdown."""
    heads = ["engine"] + [h for _, h in MATRIX_KINDS] + ["peer bugs met", "semantic differences met"]
    return "| %s |\n|%s" % (" | ".join(heads), "---|" * len(heads))


def matrix_row(report: Report) -> str:
    """One engine's row of the compliance matrix: per grammar kind, how many vectors agree,
    differ only as declared, disagree, and cannot be run; the known differences it met."""
    b = report.engine
    cells = ["%s%s" % (b.name, " (%s)" % _safe_version(b) if _safe_version(b) else "")]
    for kind, _ in MATRIX_KINDS:
        row = report.rows.get(kind, collections.Counter())
        if not row["vectors"] or row["unsupported"] == row["vectors"]:
            cells.append("—")
            continue
        cell = "%d ✓ %d ≈ %d ✗" % (row["agree"], row["known"], row["disagree"])
        cells.append(cell + (" (%d n/a)" % row["unsupported"] if row["unsupported"] else ""))
    kinds = {k.name: k.kind for k in b.known_differences}
    for which in ("peer-bug", "semantic"):
        cells.append(", ".join("`%s`" % name for name, _ in report.known.most_common() if kinds.get(name) == which)
                     or "—")
    return "| %s |" % " | ".join(cells)


class Progress:
    """A progress line on stderr for runs longer than a couple of seconds."""

    def __init__(self, label: str, total: Optional[int] = None, stream: Optional[TextIO] = None) -> None:
        self.label, self.total = label, total
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()
        self.last = self.t0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown = False

    def update(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        interval = 0.5 if self.tty else 10.0
        if not force and (now - self.t0 < 2.0 or now - self.last < interval):
            return
        self.last = now
        line = "%s: %s, %.0f s" % (self.label, text, now - self.t0)
        if self.tty:
            self.stream.write("\r" + line[:150].ljust(150))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def progress_note(report: Report, done: int, total: int, elapsed: float) -> str:
    """What the progress line of a run says besides its count (refimpl/progress.py draws
    it): the disagreements and faults so far, and the time left at the rate so far.

    >>> report = Report(get_engine("refimpl"))
    >>> progress_note(report, 10, 40, 6.0)
    '0 disagreeing · about 18 s left'
    """
    left = time_left(done, total, elapsed)
    parts = ["%d disagreeing" % len(report.disagreements)]
    if report.faults:
        parts.append("%d faults" % len(report.faults))
    if left is not None:
        parts.append("about %s left" % left)
    return " · ".join(parts)


def time_left(done: int, total: Optional[int], elapsed: float) -> Optional[str]:
    """The time left at the rate so far, rounded for a person (None before the first is done).

    >>> time_left(10, 40, 6.0), time_left(1, 500, 2.0), time_left(0, 5, 1.0), time_left(5, 5, 9.0)
    ('18 s', '17 min', None, '0 s')
    """
    if not done or total is None:
        return None
    seconds = elapsed / done * max(total - done, 0)
    return "%.0f s" % seconds if seconds < 120 else "%.0f min" % (seconds / 60) if seconds < 7200 \
        else "%.1f h" % (seconds / 3600)


# ------------------------------------------------------------------------------- running


#: on a standard error that is not a terminal (a log), a progress line every so many seconds
LOG_EVERY = 10.0

#: a vector's outcome as the check backends give it: its JSON line, its result, its wall time
Checked = Tuple[str, Result, float]

_WORKER: Dict[str, Any] = {}


def _worker_init(engine_name: str, limits: Optional[Limits] = None) -> None:
    """A worker process (a Pool's, a Ray actor's): one Checker for all its vectors."""
    _WORKER["check"] = Checker(get_engine(engine_name), limits)


def _worker_check(line: str) -> Checked:
    return _WORKER["check"](line)


class Checker:
    """Checks vectors given as JSON lines with one engine and one grammar cache; with
    limits, in a child process within them (containment.py), replaced after a fault."""

    def __init__(self, engine: Engine, limits: Optional[Limits] = None) -> None:
        self.engine, self.limits = engine, limits
        self.grammars = GrammarCache()
        self.contained = None if limits is None else Contained(self.check, limits)

    def check(self, line: str) -> Result:
        return check_vector(self.engine, Vector.from_json(json.loads(line)), self.grammars)

    def __call__(self, line: str) -> Checked:
        t0 = time.monotonic()
        if self.contained is None:
            r = self.check(line)
        else:
            r = self._contained(line)
        return line, r, time.monotonic() - t0

    def _contained(self, line: str) -> Result:
        """The vector's result from the child; a vector the child did not finish is a
        disagreement (or the engine's known difference) at step 0 whose error says what
        happened: PeerTimeout or PeerCrash, as for an isolated peer, or MemoryError; its
        `fault` says it too ("timeout", "crash", "memory")."""
        assert self.contained is not None and self.limits is not None
        outcome, value = self.contained(line)
        if outcome == "ok":
            r: Result = value
            if "MemoryError" in ((r.divergence or {}).get("error") or ""):
                r.fault = "memory"
            return r
        vector = Vector.from_json(json.loads(line))
        if outcome == "error":
            raise RuntimeError("checking %s raised, in its contained process:\n%s" % (vector.id, value))
        error = {"timeout": "PeerTimeout: the vector was not done within %g s" % self.limits.timeout,
                 "crash": "PeerCrash: the process died during the vector (%s)" % value,
                 "memory": "MemoryError: %s (the limit: %d MB)" % (value, self.limits.memory_mb)}[outcome]
        d = Path(vector.grammar, vector.vocab).divergence(error=error)
        known = self.engine.classify(d)
        r = Result(vector.id, vector.grammar.kind, "disagree" if known is None else "known",
                   known=[known.name] if known is not None else [], divergence=divergence_data(d))
        r.fault = outcome
        return r

    def close(self) -> None:
        if self.contained is not None:
            self.contained.close()


class Suite:
    """A suite's vectors as JSON lines, each read once and checked (a malformed one is a
    FormatError naming its file and line, before anything runs)."""

    def __init__(self, path: str) -> None:
        self.lines: List[str] = []
        self.data: List[Dict[str, Any]] = []
        for name, lineno, line in suite_lines(path):
            try:
                data = json_line(line)
                Vector.from_json(data)
            except FormatError as e:
                raise FormatError("%s:%d: %s" % (name, lineno, e)) from None
            self.lines.append(line)
            self.data.append({"id": str(data["id"]), "tags": data.get("tags", [])})


def raw_lines(suite: str) -> List[str]:
    return [line for _, _, line in suite_lines(suite)]


def run_suite(engine: Engine, suite: str, out_dir: Union[str, Repros, None] = None, jobs: Optional[int] = 1,
              quiet: bool = False, stream: Optional[TextIO] = None, first: bool = False, results: Optional[str] = None,
              limits: Optional[Limits] = None, ray: Optional[str] = None, max_repros: Optional[int] = 1,
              supported: Optional[Set[Tuple[str, str]]] = None) -> Report:
    """Check every vector of `suite`; returns the report (repros already written).
    first=True stops at the first failure, a disagreement or a fault (meant for jobs=1:
    the order is the suite's).

    out_dir: where repros go (a folder, or a Repros shared by several runs; None: a new
    temporary directory, made at the first repro), at most `max_repros` per kind of
    failure (Repros; None: all).
    results: a results file (conformance/results.py): each vector's record is appended as
    it completes, and the vectors it already holds for this engine (same id and digest)
    are not checked again, their records counted instead (report.resumed of them).
    limits: each vector checked in a child process within them (containment.py).
    ray: the vectors spread over a Ray cluster ("" a local one, of `jobs` CPUs, all the
    machine's if None; else the address of a running one: conformance/cluster.py).
    supported: (id, digest) of the vectors an earlier run supported
    (results.supported): one of them unsupported now is a failure (report.lost)."""
    repros = out_dir if isinstance(out_dir, Repros) else Repros(out_dir, max_repros)
    report = Report(engine)
    done = _stored(engine, results, None if quiet else stream or sys.stderr)
    vectors = Suite(suite)
    digests = {line: stored.digest(line) for line in vectors.lines}
    tags = {line: data["tags"] for line, data in zip(vectors.lines, vectors.data)}
    pending = []
    for line, data in zip(vectors.lines, vectors.data):
        record = done.get((engine.name, data["id"], digests[line]))
        if record is None:
            pending.append(line)
        else:
            report.add(Result.from_json(record), supported is not None and (data["id"], digests[line]) in supported)
            report.resumed += 1
    version = _safe_version(engine) if results is not None else ""
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    checked: Iterator[Checked]
    if ray is not None:
        from .cluster import map_unordered

        checked = map_unordered(_worker_init, (engine.name, limits), _worker_check, pending, ray, jobs)
    elif (jobs or 1) <= 1:
        checked = _check_here(engine, pending, limits)
    else:
        checked = _check_in_processes(engine, pending, jobs or 1, limits)
    t0 = time.monotonic()
    with progress.shown(enabled=not quiet, stream=stream, lines_every=LOG_EVERY), \
            progress.task("run %s" % engine.name, total=len(pending)) as task:
        for line, r, seconds in ([] if first and report.failures() else checked):
            if r.status == "disagree":
                r.repro = repros.write(engine, Vector.from_json(json.loads(line)), r)
                report.count_repro(r.repro)
            if results is not None:
                stored.append(results, dict(r.to_json(), engine=engine.name, version=version, digest=digests[line],
                                            tags=tags[line], seconds=round(seconds, 6), date=today))
            report.add(r, supported is not None and (r.id, digests[line]) in supported)
            task.advance(note=progress_note(report, task.done + 1, len(pending), time.monotonic() - t0))
            if first and report.failures():
                break
    close = getattr(checked, "close", None)
    if close is not None:  # a generator stopped early: its pool or cluster ends now
        close()
    return report


def _stored(engine: Engine, results: Optional[str], stream: Optional[TextIO]) -> Dict[stored.Key, Dict[str, Any]]:
    """The records a results file holds for the engine, by key (none without a file); a
    torn last line is cut off first (said on `stream`, if given)."""
    if results is None:
        return {}
    torn = stored.repair(results)
    if torn and stream is not None:
        stream.write("%s: a torn last line cut off (%d characters)\n" % (results, len(torn)))
    if not os.path.exists(results):
        return {}
    return {stored.key(r): r for r in stored.read_results(results, on_torn=None) if r["engine"] == engine.name}


def _check_here(engine: Engine, lines: Sequence[str], limits: Optional[Limits]) -> Iterator[Checked]:
    """Every vector, in this process (in a child of it, with limits)."""
    check = Checker(engine, limits)
    try:
        for line in lines:
            yield check(line)
    finally:
        check.close()


def _check_in_processes(engine: Engine, lines: Sequence[str], jobs: int, limits: Optional[Limits]) -> Iterator[Checked]:
    """Every vector, checked by `jobs` worker processes, in the suite's order."""
    import multiprocessing

    # a multiprocessing Pool, not concurrent.futures: PyPy 3.9's ProcessPoolExecutor
    # is broken (it calls a method it renamed)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs, initializer=_worker_init, initargs=(engine.name, limits)) as pool:
        yield from pool.imap(_worker_check, lines, chunksize=4)
