"""Operations on the languages (regex expressions of an ExprSet) of JSON values that the
compiler's components share: an intersection that knows its universe, a finite union of
words, emptiness as far as it is known, and membership of a decoded string.

>>> from refimpl.regex import ExprSet, compile_pattern
>>> es = ExprSet()
>>> colors = literal_union(es, [b"red", b"green"])
>>> matches(es, colors, "red"), matches(es, colors, "re")
(True, False)
>>> anything = compile_pattern(es, "(?s:.)*")
>>> intersect(es, colors, anything, anything) == colors
True
>>> is_empty_language(es, intersect(es, colors, compile_pattern(es, "b.*"), anything))
True
"""
from __future__ import annotations

from typing import Optional, Sequence

from ...regex import ExprSet, derivative, is_empty


def intersect(es: ExprSet, a: int, b: int, universe: Optional[int]) -> int:
    """L(a) ∩ L(b), without a new expression when one side is the other, `universe` (the
    language both are within, None if not known) or empty."""
    if a == b or b == universe:
        return a
    if a == universe:
        return b
    if es.NOTHING in (a, b):
        return es.NOTHING
    return es.intersection(a, b)


def literal_union(es: ExprSet, words: Sequence[bytes]) -> int:
    """The finite language `words`, as a trie-shaped expression (`ExprSet.words`), so that
    a 100,000-word enum is cheap to build and to lex."""
    if not words:
        return es.NOTHING
    return es.words([1 << b for b in w] for w in words)


def is_empty_language(es: ExprSet, e: int) -> bool:
    """Is L(e) known to be empty? (Unknown, when fuel runs out, counts as non-empty.)"""
    return e == es.NOTHING or is_empty(es, e) is True


def matches(es: ExprSet, e: int, text: str) -> bool:
    """Does the decoded string `text` belong to the language of `e`?"""
    for b in text.encode("utf-8"):
        e = derivative(es, e, b)
        if e == es.NOTHING:
            return False
    return es.nullable(e)
