"""llguidance, driven on the same vocabulary bytes, for side-by-side figures (optional)."""
from __future__ import annotations

from typing import Optional

from refimpl import Vocabulary


class _Tokenizer:
    """What llguidance's TokenizerWrapper reads: tokens as bytes, EOS, specials."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.tokens = vocab.tokens
        self.eos_token_id = vocab.eos_token_id
        self.bos_token_id = None
        self.special_token_ids = sorted(vocab.special_token_ids)

    def __call__(self, text):  # tokenising prompts is not needed for masks
        return []


def tokenizer(vocab: Vocabulary, slices: Optional[list] = None):
    """An llguidance LLTokenizer for `vocab` (slices=[] turns its slicer off), or None."""
    try:
        import llguidance
    except ImportError:
        return None
    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Tokenizer(vocab)), slices=slices)


def matcher(tok, kind: str, source: str):
    """An llguidance matcher with forcing off (masks are the full set, as in maskref)."""
    import llguidance

    lark = "start: /%s/" % llguidance.regex_to_lark(source) if kind == "regex" else source
    m = llguidance.LLMatcher(tok, '%llguidance {"no_forcing": true}\n' + lark)
    if m.is_error():
        raise ValueError(m.get_error())
    return m


def first_mask_seconds(tok, kind: str, source: str, repeat: int = 20, after=()) -> float:
    """The best time of a fresh matcher's first mask, after consuming the tokens `after`
    (llguidance caches later masks of the same state)."""
    import time

    best = float("inf")
    for _ in range(repeat):
        m = matcher(tok, kind, source)
        for t in after:
            m.consume_token(t)
        t0 = time.perf_counter()
        m.compute_bitmask()
        best = min(best, time.perf_counter() - t0)
    return best
