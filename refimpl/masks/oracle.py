"""The naive, obviously-correct definition of the token mask.

Token t is allowed after a prefix of tokens iff a Matcher started from scratch, that has
consumed the prefix, can consume t — read as the grammar asks (by id where a token lexeme
may match it, else EOS, else its bytes: docs/semantics.md). So EOS is allowed iff the
input may end there (or EOS may end a `stop=""` lexeme). No trie, no walk, no slicer, no
caches or rows shared between tokens: every optimisation of `Matcher.mask` is tested
against this.
"""
from __future__ import annotations

from typing import Sequence

from ..frontends.grammar import Grammar
from ..tokens.vocab import Vocabulary
from .mask import Mask
from .matcher import Matcher


def naive_mask(grammar: Grammar, vocab: Vocabulary, prefix_tokens: Sequence[int] = ()) -> Mask:
    """The mask after `prefix_tokens`, by definition (slow: one fresh Matcher per token)."""
    flags = bytearray(len(vocab))
    for t in range(len(vocab)):
        m = Matcher(grammar, vocab, slices=())
        if m.consume_tokens(prefix_tokens) and m.consume(t):
            flags[t] = 1
    return Mask(flags)
