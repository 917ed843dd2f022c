"""Where an engine's mask (or a consume) first differs from refimpl's: a `Divergence`,
with what predicates of known differences ask about it (the text so far, refimpl's
Matcher replayed on the prefix, a recogniser of another grammar after it); refimpl's
grammar for a spec, cached; and refimpl's reading of UTF-8.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Union

from refimpl import Grammar, MaskrefError, Matcher, Vocabulary
from refimpl.regex import DEAD, ExprSet, LazyDFA, compile_pattern

from .vectors import GrammarSpec

if TYPE_CHECKING:
    from refimpl.recognition.recognizer import Recognizer


class Divergence:
    """Where an engine's mask (or a consume) first differs from refimpl's."""

    def __init__(self, grammar: GrammarSpec, vocab: Vocabulary, prefix: Sequence[int], step: int,
                 only_engine: List[int], only_refimpl: List[int], error: Optional[str] = None,
                 refused: Optional[int] = None, accepting: Optional[bool] = None,
                 note: Optional[str] = None) -> None:
        self.grammar = grammar
        self.vocab = vocab
        self.prefix = list(prefix)
        self.step = step
        self.only_engine = only_engine
        self.only_refimpl = only_refimpl
        self.error = error  # the engine raised (message)
        self.refused = refused  # the engine refused a token its own mask allowed
        self.accepting = accepting  # may the output end here (refimpl), when known
        self.note = note  # what the engine said about its last mask (Session.note)
        self._replayed: List[Optional[Matcher]] = []  # replay()'s answer, once computed
        #: a recogniser per grammar after the prefix's bytes (None: refused), for answers_as
        self._read: Dict[Grammar, Optional["Recognizer"]] = {}

    def single(self, which: str, token: int) -> "Divergence":
        """The same divergence reduced to one token of one side ("engine" or "refimpl")."""
        d = Divergence(self.grammar, self.vocab, self.prefix, self.step,
                       [token] if which == "engine" else [],
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
                if not m.consume_tokens(self.prefix):
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
        return m is None or m.eos_consumed

    def differing(self) -> List[int]:
        return self.only_engine + self.only_refimpl

    def signature(self) -> str:
        """A coarse class of the divergence, to tell distinct bugs apart while fuzzing."""
        if self.error is not None:
            return "%s:error" % self.grammar.kind
        if self.refused is not None:
            return "%s:refused" % self.grammar.kind
        eos = set(self.vocab.eos_token_ids)
        parts = [self.grammar.kind]
        for side, ids in (("extra", self.only_engine), ("missing", self.only_refimpl)):
            if not ids:
                continue
            if all(t in eos for t in ids):
                parts.append(side + "-eos")
            elif any(not valid_utf8(self.vocab.tokens[t]) for t in ids if t not in eos):
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


def valid_utf8(data: bytes) -> bool:
    """Is data UTF-8 (whole characters)?"""
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


_COMPILED: Dict[str, Union[Grammar, Exception]] = {}


#: the most grammars `compiled` keeps (it starts again when full)
COMPILED_KEPT = 256


def compiled(spec: GrammarSpec) -> Grammar:
    """refimpl's grammar for a spec, cached (known-difference predicates run once per
    differing token, often on a variant of the vector's grammar; the runner's and the
    fuzzer's grammars are these too: runner.GrammarCache); so is a failure to compile it,
    raised again (a slow failure is not retried per token)."""
    key = spec.key()
    g = _COMPILED.get(key)
    if g is None:
        if len(_COMPILED) > COMPILED_KEPT:
            _COMPILED.clear()
        try:
            g = _COMPILED[key] = spec.compile()
        except Exception as e:
            _COMPILED[key] = e
            raise
    if isinstance(g, Exception):
        raise g
    return g
