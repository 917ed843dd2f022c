"""outlines-core driven on refimpl's vocabulary: its Vocabulary of the same token bytes
(special tokens other than EOS left out, as `from_pretrained` does), its Index for a
grammar spec's regex, and a session that walks the Index by hand."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from refimpl import Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec, NotSupported, Refused, bitmask_from_ids, bitmask_len, vocab_hash
from .reading import regex_of

_VOCABULARIES: Dict[str, Any] = {}
_INDEXES: Dict[Any, Any] = {}


class OutlinesSession(Session):
    """outlines-core's Index walked by hand: a state id, its allowed tokens, next_state.
    EOS ends the generation here (outlines-core lists EOS in final states but its
    next_state refuses it, outlines-core#227; outlines stops at EOS), so after EOS the mask
    is empty, as maskref's."""

    def __init__(self, index: Any, n_tokens: int, eos: int) -> None:
        self.index = index
        self.state = index.get_initial_state()
        self.n = n_tokens
        self.eos = eos
        self.stopped = False

    def mask(self) -> bytes:
        if self.stopped:
            return bytes(bitmask_len(self.n))
        return bitmask_from_ids(self.index.get_allowed_tokens(self.state) or (), self.n)

    def consume(self, token: int) -> bool:
        if self.stopped:
            return False
        if token == self.eos:
            self.stopped = self.index.is_final_state(self.state)
            return self.stopped
        nxt = self.index.get_next_state(self.state, token)
        if nxt is None:
            return False
        self.state = nxt
        return True


def vocabulary(vocab: Vocabulary) -> Any:
    """outlines-core's Vocabulary of the vocabulary's tokens (cached by content)."""
    import outlines_core

    key = vocab_hash(vocab)
    v = _VOCABULARIES.get(key)
    if v is None:
        by_bytes: Dict[bytes, List[int]] = {}
        for t, data in enumerate(vocab.tokens):
            if t not in vocab.special_token_ids:
                by_bytes.setdefault(data, []).append(t)
        if len(_VOCABULARIES) > 64:
            _VOCABULARIES.clear()
        v = _VOCABULARIES[key] = outlines_core.Vocabulary(vocab.eos_token_ids[0], by_bytes)
    return v


def start(spec: GrammarSpec, vocab: Vocabulary, whitespace: Optional[str] = None) -> OutlinesSession:
    """A session at the start of the spec's regex (a JSON schema's with `whitespace`
    between tokens: reading.regex_of). Raises NotSupported for Lark grammars (special
    tokens and rule options among them) and for vocabularies with other than one EOS,
    before touching outlines-core."""
    if spec.kind not in ("regex", "json_schema"):
        raise NotSupported("outlines-core has no Lark grammars")
    if len(vocab.eos_token_ids) != 1:
        raise NotSupported("outlines-core needs exactly one EOS token")
    import outlines_core

    regex = regex_of(spec, whitespace)
    key = (regex, vocab_hash(vocab))
    index = _INDEXES.get(key)
    if index is None:
        try:
            index = outlines_core.Index(regex, vocabulary(vocab))
        except Exception as e:
            # e.g. a state no token can leave ("the vocabulary is incompatible")
            raise Refused("outlines-core cannot build the index: %s" % str(e).splitlines()[0][:160]) from e
        if len(_INDEXES) > 64:
            _INDEXES.clear()
        _INDEXES[key] = index
    return OutlinesSession(index, len(vocab), vocab.eos_token_ids[0])
