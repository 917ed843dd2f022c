"""kbnf driven on refimpl's vocabulary: its Vocabulary of the same token bytes (every token
but EOS: kbnf has no end token; empty tokens, which kbnf cannot hold, are left out and so
never allowed), its Engine for a grammar, and a session.

kbnf is *finished* once the text so far completes `start`, and then allows nothing more:
the session shows that as a mask of the vocabulary's EOS ids, and consuming EOS succeeds
exactly when kbnf is finished.
"""
from __future__ import annotations

from typing import Any, Dict, List

from refimpl import Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec, Refused, bitmask_from_ids, bitmask_len, vocab_hash
from .reading import check_dialect

_VOCABULARIES: Dict[str, Any] = {}


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


def vocabulary(vocab: Vocabulary) -> Any:
    """kbnf's Vocabulary of every token but EOS (cached by the vocabulary's content)."""
    import kbnf

    key = vocab_hash(vocab)
    v = _VOCABULARIES.get(key)
    if v is None:
        ids: List[int] = [t for t, data in enumerate(vocab.tokens) if data and t not in vocab.eos_token_ids]
        v = _VOCABULARIES[key] = kbnf.Vocabulary(
            {t: kbnf.Token(vocab.tokens[t]) for t in ids},
            {t: vocab.tokens[t].decode("utf-8", "replace") for t in ids})
    return v


def start(spec: GrammarSpec, vocab: Vocabulary) -> KbnfSession:
    """A session at the start of the grammar (NotSupported where kbnf cannot read it)."""
    check_dialect(spec)
    import kbnf

    try:
        engine = kbnf.Engine(spec.source, vocabulary(vocab))
    except Exception as e:  # kbnf raises plain exceptions for grammars it refuses
        raise Refused("kbnf cannot compile the grammar: %s" % str(e).splitlines()[0][:160]) from e
    return KbnfSession(engine, vocab)
