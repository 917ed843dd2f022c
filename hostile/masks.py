"""Is a compiled grammar's mask right? The cheap check a target makes of a result.

On the 256 single-byte tokens and EOS (`conformance.vectors.byte_vocabulary()`), the
Matcher's mask (refimpl's trie walk, with the JSON slices) must equal the definition at
the start (`refimpl.naive_mask`: one fresh Matcher per token) and after each of a few
allowed bytes (there, each token consumed and rolled back by a second Matcher without
slices, which follows the same path: the definition without 257 fresh Matchers a step,
ten times cheaper). The bytes follow a text when one is at hand (an instance of a
schema: the path a valid value takes), else the allowed byte a `choice` number picks at
each step.
"""
from __future__ import annotations

from functools import partial
from typing import List, Optional, Sequence

from refimpl import Grammar, Mask, Matcher, Vocabulary, naive_mask

from .property import Violation, check

_VOCAB: Optional[Vocabulary] = None


def byte_vocabulary() -> Vocabulary:
    """conformance's byte vocabulary, made once (its trie is the vocabulary's)."""
    global _VOCAB
    if _VOCAB is None:
        from conformance.vectors import byte_vocabulary as make

        _VOCAB = make()
    return _VOCAB


def check_masks(grammar: Grammar, along: bytes = b"", choices: Sequence[int] = (0, 1), steps: int = 3) -> None:
    """Violation unless the Matcher's mask equals naive_mask's at the start and after
    each of up to `steps - 1` bytes: the bytes of `along` while they are allowed, then
    those the `choices` pick among the allowed ones. Each mask is one call of the
    property (`check`): a typed error (a limit met) ends the walk."""
    vocab = byte_vocabulary()
    m = check(lambda: Matcher(grammar, vocab))  # binding to the vocabulary may fail: a special token's id
    if m is None:
        return
    definition = Matcher(grammar, vocab, slices=())
    path: List[int] = []
    following = True
    for step in range(steps):
        mask = check(m.mask)
        expected = check(lambda: naive_mask(grammar, vocab, path) if not path else _by_consume(definition))
        if mask is None or expected is None:
            return
        if mask != expected:
            raise Violation("mask after %r: Matcher allows %s, the definition %s"
                            % (bytes(path), _shown(mask.allowed()), _shown(expected.allowed())))
        allowed = [t for t in mask.allowed() if t < 256]
        if not allowed or step == steps - 1:
            return
        following = following and step < len(along) and along[step] in allowed
        if following:
            t = along[step]
        else:
            t = allowed[choices[step % len(choices)] % len(allowed)] if choices else allowed[0]
        if not check(partial(_consume_both, m, definition, t)):
            raise Violation("mask after %r allows byte %d, consume refuses it" % (bytes(path), t))
        path.append(t)


def _consume_both(m: Matcher, definition: Matcher, t: int) -> bool:
    return m.consume(t) and definition.consume(t)


def _by_consume(m: Matcher) -> Mask:
    """The tokens `m` consumes from where it is (each rolled back): the definition."""
    flags = bytearray(len(m.vocab))
    for t in range(len(m.vocab)):
        if m.consume(t):
            flags[t] = 1
            m.rollback(1)
    return Mask(flags)


def _shown(ids: Sequence[int]) -> str:
    text = bytes(t for t in ids if t < 256)
    return "%r%s" % (text if len(text) < 40 else text[:40] + b"...", " + EOS" if 256 in ids else "")
