"""llguidance driven on the same vocabulary bytes as refimpl: the one place that turns a
vocabulary into an llguidance tokenizer (`tokenizer`) and starts its matcher (`matcher`,
`start`). The engine `llguidance` and the side-by-side figures of benchmarks/ and tests/
(`first_mask_seconds`) all go through it.
"""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence

from refimpl import Vocabulary

from ...engine import Session
from ...vectors import GrammarSpec, NotSupported, Refused, bitmask_len, vocab_hash
from .reading import grammar_text


class _Tokenizer:
    """What llguidance's TokenizerWrapper reads: tokens as bytes, EOS, specials."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.tokens = vocab.tokens
        self.eos_token_id = vocab.eos_token_id
        self.bos_token_id = None
        self.special_token_ids = sorted(vocab.special_token_ids)

    def __call__(self, text: str) -> List[int]:  # tokenising prompts is not needed for masks
        return []


def tokenizer(vocab: Vocabulary, slices: Optional[List[str]] = None) -> Any:
    """An llguidance LLTokenizer for `vocab` (slices=[] turns its slicer off), or None.
    Every EOS id of the vocabulary is an EOS token of llguidance's, the first one its
    primary `tok_eos`."""
    try:
        import llguidance
    except ImportError:
        return None
    eos = list(vocab.eos_token_ids) if len(vocab.eos_token_ids) > 1 else None
    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Tokenizer(vocab)), eos_token=eos, slices=slices)


def matcher(tok: Any, kind: str, source: str) -> Any:
    """An llguidance matcher for a regex or Lark grammar (raises ValueError if llguidance
    rejects it)."""
    import llguidance

    m = llguidance.LLMatcher(tok, grammar_text(GrammarSpec(kind, source)))
    if m.is_error():
        raise ValueError(m.get_error())
    return m


def first_mask_seconds(tok: Any, kind: str, source: str, repeat: int = 20, after: Sequence[int] = ()) -> float:
    """The best time of a fresh matcher's first mask, after consuming the tokens `after`
    (llguidance caches later masks of the same state)."""
    best = float("inf")
    for _ in range(repeat):
        m = matcher(tok, kind, source)
        for t in after:
            m.consume_token(t)
        t0 = time.perf_counter()
        m.compute_bitmask()
        best = min(best, time.perf_counter() - t0)
    return best


class LlguidanceSession(Session):
    def __init__(self, matcher: Any, n_tokens: int) -> None:
        self.m = matcher
        self.n = n_tokens

    def mask(self) -> bytes:
        bits = self.m.compute_bitmask()
        self.note = None
        if self.m.is_error():
            error = self.m.get_error()
            first = error.split("\n<state>")[0]
            if "limit" in first.lower():  # e.g. "Too many items (limit 50000; mask)"
                raise NotSupported("llguidance hit a limit: %s" % first[:120])
            if not error.startswith("NoExtensionBias"):
                raise RuntimeError("llguidance: %s" % first)
            self.note = "NoExtensionBias"  # no token can continue: llguidance stops (DEAD_END)
        return bytes(bits[: bitmask_len(self.n)])

    def consume(self, token: int) -> bool:
        if self.m.consume_token(token) and not self.m.is_error():
            return True
        if self.m.is_error():  # why it refused (a refusal is a disagreement, unless a known one)
            self.note = self.m.get_error().split("\n<state>")[0][:200]
        return False


_TOKENIZERS: Dict[str, Any] = {}


def cached_tokenizer(vocab: Vocabulary) -> Any:
    """tokenizer(vocab), kept per vocabulary (by its content)."""
    key = vocab_hash(vocab)
    tok = _TOKENIZERS.get(key)
    if tok is None:
        if not vocab.eos_token_ids:
            raise NotSupported("llguidance needs an EOS token")
        if len(_TOKENIZERS) > 64:  # fuzzing makes many small vocabularies
            _TOKENIZERS.clear()
        tok = _TOKENIZERS[key] = tokenizer(vocab)
    return tok


def start(spec: GrammarSpec, vocab: Vocabulary) -> LlguidanceSession:
    """A session at the start of the spec (NotSupported where llguidance rejects it)."""
    import llguidance

    m = llguidance.LLMatcher(cached_tokenizer(vocab), grammar_text(spec), log_level=0)
    if m.is_error():
        raise Refused("llguidance rejects the grammar: %s" % m.get_error().splitlines()[0][:200])
    return LlguidanceSession(m, len(vocab))
