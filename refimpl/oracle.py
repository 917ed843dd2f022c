"""The naive, obviously-correct definition of the token mask.

Token t (not special, not empty) is allowed after a prefix of tokens iff a recogniser
started from scratch accepts every byte of prefix + bytes(t); EOS is allowed iff the
recogniser accepts at the end of the prefix. No trie, no caches shared between tokens, no
row reuse: every optimisation of the Matcher is tested against this.
"""
from __future__ import annotations

from typing import Sequence

from .grammar.grammar import Grammar
from .mask import Mask
from .recognizer import Recognizer
from .tokens.vocab import Vocabulary


def naive_mask(grammar: Grammar, vocab: Vocabulary, prefix_tokens: Sequence[int] = ()) -> Mask:
    """The mask after `prefix_tokens`, by definition (slow: one full parse per token)."""
    prefix = vocab.decode(prefix_tokens)
    flags = bytearray(len(vocab))
    for t in range(len(vocab)):
        if vocab.is_grammar_token(t):
            r = Recognizer(grammar.compiled, grammar.limits)
            flags[t] = 1 if r.consume_bytes(prefix + vocab.tokens[t]) else 0
    r = Recognizer(grammar.compiled, grammar.limits)
    if r.consume_bytes(prefix) and r.is_accepting():
        for t in vocab.eos_token_ids:
            flags[t] = 1
    return Mask(flags)
