"""kbnf's Engine on the same vocabulary bytes as refimpl (optional: `pip install kbnf`, in
the `peers` extra), for grammars in kbnf's dialect (`ebnf` vectors with dialect "kbnf").

kbnf has no end-of-sequence token of its own: it is *finished* once the text so far
completes `start`, and then allows nothing more. The adapter shows that as a mask of the
vocabulary's EOS ids, and consuming EOS succeeds exactly when kbnf is finished. The two
ways kbnf ends differently from maskref, and its complement over bytes, are declared
below (docs/ebnf.md, "kbnf's EBNF").
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from refimpl import Grammar, Vocabulary
from refimpl.regex import DEAD, ExprSet, LazyDFA, compile_pattern

from ..core import AFTER_EOS, Backend, Divergence, KnownDifference, Session
from ..vectors import GrammarSpec, NotSupported, bitmask_from_ids, bitmask_len, vocab_hash


def _continuations_when_accepting(d: Divergence) -> bool:
    """refimpl's state accepts and kbnf, finished, allows EOS only: the differing tokens
    are exactly refimpl's non-EOS tokens."""
    if d.error is not None or d.refused is not None or d.only_backend or not d.only_refimpl:
        return False
    if any(t in d.vocab.eos_token_ids for t in d.only_refimpl):
        return False
    m = d.replay()
    return m is not None and m.is_accepting()


def _eos_at_the_start(d: Divergence) -> bool:
    """At the start of a grammar that accepts the empty text, refimpl allows EOS and kbnf
    does not: the differing tokens are the EOS ids, before any token."""
    return (d.error is None and d.refused is None and not d.prefix and not d.only_backend
            and bool(d.only_refimpl) and all(t in d.vocab.eos_token_ids for t in d.only_refimpl))


_ANY_TEXT: List[LazyDFA] = []  # the lazy DFA of (?s).*, made on first use


def _utf8_prefix(data: bytes) -> bool:
    """Can some UTF-8 text begin with these bytes?"""
    if not _ANY_TEXT:
        es = ExprSet()
        _ANY_TEXT.append(LazyDFA(es, compile_pattern(es, "(?s).*")))
    return _ANY_TEXT[0].run(data) != DEAD


def _complement_over_bytes(d: Divergence) -> bool:
    """In a grammar with a complement (`#ex`), kbnf allows tokens that make the text
    invalid UTF-8, which refimpl never allows: its complement is over bytes."""
    if d.error is not None or d.refused is not None or d.only_refimpl or not d.only_backend:
        return False
    if "#ex" not in d.grammar.source:
        return False
    text = d.text()
    return all(not _utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_backend)


EAGER_END = KnownDifference(
    "eager-end", "semantic",
    "kbnf ends eagerly: once the text completes `start` it is finished and allows nothing but "
    "the end; maskref's language is the whole context-free language, so it also allows the "
    "continuations",
    _continuations_when_accepting, ends_path=True,
)
NO_EMPTY_OUTPUT = KnownDifference(
    "no-empty-output", "semantic",
    "kbnf never finishes on the empty text; maskref allows EOS at the start of a grammar that "
    "accepts it",
    _eos_at_the_start,
)

COMPLEMENT_OVER_BYTES = KnownDifference(
    "complement-over-bytes", "peer-bug",
    "kbnf's `#ex` complement is taken over bytes, so it allows text that is not UTF-8; "
    "maskref's is over characters",
    _complement_over_bytes,
)


class KbnfSession(Session):
    def __init__(self, engine: Any, vocab: Vocabulary) -> None:
        self.engine = engine
        self.vocab = vocab
        self.ended = False

    def mask(self) -> bytes:
        n = len(self.vocab)
        if self.ended:
            return bytes(bitmask_len(n))
        if self.engine.is_finished():
            return bitmask_from_ids(self.vocab.eos_token_ids, n)
        self.engine.compute_allowed_token_ids()
        return bitmask_from_ids(self.engine.get_allowed_token_ids_from_last_computation(), n)

    def consume(self, token: int) -> bool:
        if self.ended:
            return False
        if token in self.vocab.eos_token_ids:
            self.ended = self.engine.is_finished()
            return self.ended
        if self.engine.is_finished():
            return False
        try:
            self.engine.try_accept_new_token(token)
        except ValueError:  # kbnf's AcceptTokenError: the token does not fit
            return False
        return True


class KbnfBackend(Backend):
    """kbnf's Engine for grammars in its own dialect."""

    name = "kbnf"
    description = "kbnf Engine (its EBNF dialect), tokens from the same bytes"
    kinds = ("ebnf",)
    known_differences = (AFTER_EOS, EAGER_END, NO_EMPTY_OUTPUT, COMPLEMENT_OVER_BYTES)

    def __init__(self) -> None:
        self._vocabularies: Dict[str, Any] = {}

    def unavailable_reason(self) -> Optional[str]:
        try:
            import kbnf  # noqa: F401
        except ImportError as e:
            return "kbnf is not importable (%s): pip install kbnf" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "kbnf %s" % version("kbnf")

    def vocabulary(self, vocab: Vocabulary) -> Any:
        """kbnf's Vocabulary of every token but EOS (kbnf has no end token; empty tokens,
        which kbnf cannot hold, are left out and so never allowed)."""
        import kbnf

        key = vocab_hash(vocab)
        v = self._vocabularies.get(key)
        if v is None:
            ids: List[int] = [t for t, data in enumerate(vocab.tokens) if data and t not in vocab.eos_token_ids]
            v = self._vocabularies[key] = kbnf.Vocabulary(
                {t: kbnf.Token(vocab.tokens[t]) for t in ids},
                {t: vocab.tokens[t].decode("utf-8", "replace") for t in ids})
        return v

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if spec.kind != "ebnf" or spec.options.get("dialect") != "kbnf":
            raise NotSupported("kbnf reads only its own dialect (ebnf vectors with dialect kbnf)")
        if spec.options.get("root", "start") != "start":
            raise NotSupported("kbnf starts at the rule `start` only")
        import kbnf

        try:
            engine = kbnf.Engine(spec.source, self.vocabulary(vocab))
        except Exception as e:  # kbnf raises plain exceptions for grammars it refuses
            raise NotSupported("kbnf cannot compile the grammar: %s" % str(e).splitlines()[0][:160]) from e
        return KbnfSession(engine, vocab)
