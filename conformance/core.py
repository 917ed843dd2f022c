"""What every backend adapter shares: the Backend/Session interface, divergences and
known differences.

A `Backend` starts a `Session` for (grammar spec, vocabulary); a session gives its full
mask as a bitmask (llguidance layout, vectors.bitmask_from_ids) and consumes tokens.
A backend declares its *known differences*: documented semantic differences (or reported
peer bugs) with a predicate that recognises a divergence as one of them, so a report can
tell "known difference" from "disagreement".

This module imports no adapter (conformance/adapters/ import it); registry.py names them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Union

from refimpl import Grammar, Matcher, MaskrefError, Vocabulary
from refimpl.regex import DEAD, ExprSet, LazyDFA, compile_pattern

from .vectors import GrammarSpec

if TYPE_CHECKING:
    from refimpl.recognition.recognizer import Recognizer


class Divergence:
    """Where a backend's mask (or a consume) first differs from refimpl's."""

    def __init__(self, grammar: GrammarSpec, vocab: Vocabulary, prefix: Sequence[int], step: int,
                 only_backend: List[int], only_refimpl: List[int], error: Optional[str] = None,
                 refused: Optional[int] = None, accepting: Optional[bool] = None,
                 note: Optional[str] = None) -> None:
        self.grammar = grammar
        self.vocab = vocab
        self.prefix = list(prefix)
        self.step = step
        self.only_backend = only_backend
        self.only_refimpl = only_refimpl
        self.error = error  # the backend raised (message)
        self.refused = refused  # the backend refused a token its own mask allowed
        self.accepting = accepting  # may the output end here (refimpl), when known
        self.note = note  # what the backend said about its last mask (Session.note)
        self._replayed: List[Optional[Matcher]] = []  # replay()'s answer, once computed
        #: a recogniser per grammar after the prefix's bytes (None: refused), for answers_as
        self._read: Dict[Grammar, Optional["Recognizer"]] = {}

    def single(self, which: str, token: int) -> "Divergence":
        """The same divergence reduced to one token of one side ("backend" or "refimpl")."""
        d = Divergence(self.grammar, self.vocab, self.prefix, self.step,
                       [token] if which == "backend" else [],
                       [token] if which == "refimpl" else [], accepting=self.accepting, note=self.note)
        d._replayed = self._replayed  # the same prefix: one replay serves both
        d._read = self._read
        return d

    def read_by(self, grammar: Grammar) -> Optional["Recognizer"]:
        """A recogniser of `grammar` after the prefix's bytes (None if it refuses them),
        read once and shared by single()'s copies: a predicate may read a token after it,
        but must roll it back."""
        if grammar not in self._read:
            from refimpl.recognition.recognizer import Recognizer

            r = Recognizer(grammar.compiled, grammar.limits)
            self._read[grammar] = r if r.consume_bytes(self.text()) else None
        return self._read[grammar]

    def text(self) -> bytes:
        """The bytes consumed before the divergence (EOS left out)."""
        return self.vocab.decode([t for t in self.prefix if t not in self.vocab.eos_token_ids])

    def replay(self) -> Optional[Matcher]:
        """refimpl's Matcher after the prefix (None if refimpl refuses it), for predicates
        that ask about refimpl's state; computed once, shared by single()'s copies. Do not
        consume with it."""
        if not self._replayed:
            m: Optional[Matcher] = None
            try:
                m = Matcher(compiled(self.grammar), self.vocab, slices=())
                if m.consume_tokens(self.prefix) != len(self.prefix):
                    m = None
            except MaskrefError:
                m = None
            self._replayed.append(m)
        return self._replayed[0]

    @property
    def after_eos(self) -> bool:
        """Has the output ended (an EOS consumed that ended it, not one that ended a
        `stop=""` lexeme)?"""
        eos = self.vocab.eos_token_ids
        if not self.prefix or self.prefix[-1] not in eos:
            return False
        m = self.replay()
        return m is None or m.stopped

    def differing(self) -> List[int]:
        return self.only_backend + self.only_refimpl

    def signature(self) -> str:
        """A coarse class of the divergence, to tell distinct bugs apart while fuzzing."""
        if self.error is not None:
            return "%s:error" % self.grammar.kind
        if self.refused is not None:
            return "%s:refused" % self.grammar.kind
        eos = set(self.vocab.eos_token_ids)
        parts = [self.grammar.kind]
        for side, ids in (("extra", self.only_backend), ("missing", self.only_refimpl)):
            if not ids:
                continue
            if all(t in eos for t in ids):
                parts.append(side + "-eos")
            elif any(not _valid_utf8(self.vocab.tokens[t]) for t in ids if t not in eos):
                parts.append(side + "-partial-utf8")
            else:
                parts.append(side)
        return ":".join(parts)


_ANY_TEXT: List[LazyDFA] = []  # the lazy DFA of (?s).*, made on first use


def utf8_prefix(data: bytes) -> bool:
    """Can some UTF-8 text begin with these bytes (refimpl's reading of UTF-8)?"""
    if not _ANY_TEXT:
        es = ExprSet()
        _ANY_TEXT.append(LazyDFA(es, compile_pattern(es, "(?s).*")))
    return _ANY_TEXT[0].run(data) != DEAD


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


class KnownDifference:
    """A declared difference: a name, whether it is a semantic choice or a reported bug
    of the peer, what it is, and a predicate over a Divergence. With `ends_path`, the
    comparison of a path stops at the first mask it explains: the two engines may have
    read the text so far differently, so later masks are not comparable."""

    def __init__(self, name: str, kind: str, description: str, applies: Callable[[Divergence], bool],
                 ends_path: bool = False) -> None:
        assert kind in ("semantic", "peer-bug")
        self.name = name
        self.kind = kind
        self.description = description
        self.applies = applies
        self.ends_path = ends_path

    def __repr__(self) -> str:
        return "KnownDifference(%r, %s)" % (self.name, self.kind)


def only_eos_after_eos(d: Divergence) -> bool:
    """After EOS the peer's mask holds EOS only; refimpl's is empty."""
    eos = set(d.vocab.eos_token_ids)
    return d.after_eos and not d.only_refimpl and bool(d.only_backend) and set(d.only_backend) <= eos


AFTER_EOS = KnownDifference(
    "after-eos", "semantic",
    "after EOS has been consumed the peer keeps allowing EOS (its matcher is 'stopped'); "
    "maskref's mask after EOS is empty",
    only_eos_after_eos,
)


def all_differing(d: Divergence, pred: Callable[[bytes], bool]) -> bool:
    """Is the divergence a mask difference whose every differing token's bytes satisfy pred?"""
    ids = d.differing()
    return bool(ids) and d.error is None and d.refused is None and all(pred(d.vocab.tokens[t]) for t in ids)


def answers_as(d: Divergence, grammar: Grammar) -> bool:
    """Is the divergence a mask difference on which the peer answers, token by token, as
    refimpl does on `grammar` (the peer's own reading of the vector)? Every token only the
    peer allows is allowed there, and no token only refimpl allows; EOS where that grammar
    accepts the text so far."""
    if d.error is not None or d.refused is not None or d.after_eos or not d.differing():
        return False
    r = d.read_by(grammar)  # the prefix read once; each token is read after it, then undone

    def allowed(t: int) -> bool:
        if r is None:
            return False
        if t in d.vocab.eos_token_ids:
            return r.is_accepting()
        data, before = d.vocab.tokens[t], r.bytes_consumed
        if not data or not r.consume_bytes(data):
            return False
        r.rollback(r.bytes_consumed - before)
        return True

    return all(allowed(t) for t in d.only_backend) and not any(allowed(t) for t in d.only_refimpl)


_COMPILED: Dict[str, Union[Grammar, Exception]] = {}


def compiled(spec: GrammarSpec) -> Grammar:
    """refimpl's grammar for a spec, cached (known-difference predicates run once per
    differing token, often on a variant of the vector's grammar); so is a failure to
    compile it, raised again (a slow failure is not retried per token)."""
    key = spec.key()
    g = _COMPILED.get(key)
    if g is None:
        if len(_COMPILED) > 32:
            _COMPILED.clear()
        try:
            g = _COMPILED[key] = spec.compile()
        except Exception as e:
            _COMPILED[key] = e
            raise
    if isinstance(g, Exception):
        raise g
    return g


class Session:
    """One generation: the backend's state after the tokens consumed so far."""

    #: a remark about the last mask that known differences may use (e.g. llguidance's
    #: stop reason when it gave up), or None
    note: Optional[str] = None

    def mask(self) -> bytes:
        raise NotImplementedError

    def consume(self, token: int) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        pass


class Backend:
    name = "?"
    description = ""
    #: grammar kinds this backend can run at all
    kinds: Sequence[str] = ("regex", "lark", "json_schema", "gbnf", "ebnf")
    known_differences: Sequence[KnownDifference] = ()
    #: built on refimpl: the runner hands start() refimpl's compiled grammar
    uses_refimpl = False

    def unavailable_reason(self) -> Optional[str]:
        """None when the backend can run here, else why not (e.g. not installed)."""
        return None

    def version(self) -> str:
        return ""

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """A session at the start of the grammar. `grammar` is refimpl's compiled grammar
        for spec (adapters built on refimpl reuse it). Raises NotSupported."""
        raise NotImplementedError

    def classify(self, d: Divergence) -> Optional[KnownDifference]:
        """The known difference that explains d, or None. When none explains the whole
        divergence, every differing token may be explained by its own (a mask can differ
        for two documented reasons at once); the first of them is returned."""
        k = self._explain(d)
        if k is not None or d.error is not None or d.refused is not None:
            return k
        first = None
        for which, ids in (("backend", d.only_backend), ("refimpl", d.only_refimpl)):
            for t in ids:
                k = self._explain(d.single(which, t))
                if k is None:
                    return None
                first = first or k
        return first

    def _explain(self, d: Divergence) -> Optional[KnownDifference]:
        for k in self.known_differences:
            try:
                if k.applies(d):
                    return k
            except Exception:  # a predicate must never hide a disagreement by crashing
                continue
        return None

    def close(self) -> None:
        pass
