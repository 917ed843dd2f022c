"""Byte classes: the partition of the 256 bytes into classes that an expression cannot tell apart.

Every leaf of an expression that reads a byte is a byte set (exprs.py: a 256-bit mask),
and a derivative d(e, b) depends on b only through which of e's byte sets hold b
(derivative.py: d(S, b) = ε if b ∈ S else ∅; every other rule just passes b down). So
two bytes held by exactly the same byte sets of e have the same derivative, from e and
from every derivative of e, which holds only byte sets of e: one derivative per class
stands for the whole class, a handful instead of 256.  (Owens, Reppy & Turon 2009,
"Regular-expression derivatives re-examined", compute *derivative classes* by rules over
the expression's structure; the partition by every byte set reachable is a simpler one,
possibly finer, and just as sound.)

    byte_sets(es, e)        the masks of the byte sets reachable from e
    refine(masks)           the coarsest partition of the bytes those masks respect
    partition(es, masks)    refine, kept per set of masks (many expressions share one)
    byte_classes(es, e)     partition(byte_sets(e)), kept per expression
    class_of(es, exprs, b)  the bytes every one of several expressions treats as b
    covered_bytes(es, e)    the bytes some byte set of e holds (without a complement in e,
                            every other byte is dead: its derivative is ∅)
    lowest_byte(mask)       a class's representative

Each of byte_sets, partition and byte_classes keeps its answers in the ExprSet's cache
of its own (`es.caches[f]`, exprs.py).

>>> from refimpl.regex.compiler import compile_pattern
>>> from refimpl.regex.exprs import ExprSet
>>> es = ExprSet()
>>> e = compile_pattern(es, "[a-z]+@x")
>>> [bytes(b for b in range(256) if c >> b & 1) for c in byte_classes(es, e) if c & covered_bytes(es, e)]
[b'@', b'abcdefghijklmnopqrstuvwyz', b'x']
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List

from .exprs import ALL_BYTES, BYTES, ExprSet


def byte_classes(es: ExprSet, e: int) -> List[int]:
    """The partition of the 256 bytes into classes that every byte set in e treats alike.

    Returned as a list of masks (disjoint, covering all bytes). Derivatives of e only
    contain byte sets of e, so the partition holds for all of them too.
    """
    cache: Dict[int, List[int]] = es.caches[byte_classes]
    cached = cache.get(e)
    if cached is not None:
        return cached
    classes = cache[e] = partition(es, byte_sets(es, e))
    return classes


def partition(es: ExprSet, masks: FrozenSet[int]) -> List[int]:
    """`refine(masks)`, kept in the ExprSet per set of masks (many expressions share one)."""
    cache: Dict[FrozenSet[int], List[int]] = es.caches[partition]
    classes = cache.get(masks)
    if classes is None:
        classes = cache[masks] = refine(masks)
    return classes


def class_of(es: ExprSet, exprs: Iterable[int], byte: int) -> int:
    """The class of `byte` in the partition that every one of the expressions respects
    (one derivative stands for all its bytes, from each expression): as a mask.

    >>> from refimpl.regex.compiler import compile_pattern
    >>> from refimpl.regex.exprs import ExprSet
    >>> es = ExprSet()
    >>> c = class_of(es, [compile_pattern(es, "[a-z]+"), compile_pattern(es, "[a-f]")], ord("x"))
    >>> bytes(b for b in range(256) if c >> b & 1)
    b'ghijklmnopqrstuvwxyz'
    """
    sets: FrozenSet[int] = frozenset()
    for e in exprs:
        sets |= byte_sets(es, e)
    return next(c for c in partition(es, sets) if c >> byte & 1)


def byte_sets(es: ExprSet, e: int) -> FrozenSet[int]:
    """The masks of the byte sets reachable from e, memoised bottom-up (explicit stack):
    a derivative shares most of its nodes with its parent, so each new expression costs
    only its new nodes, not a walk of all it reaches."""
    sets: Dict[int, FrozenSet[int]] = es.caches[byte_sets]
    stack = [e]
    while stack:
        x = stack[-1]
        if x in sets:
            stack.pop()
            continue
        children = es.children(x)
        todo = [c for c in children if c not in sets]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        node = es.nodes[x]
        own = frozenset((node[1],)) if node[0] == BYTES else frozenset()
        sets[x] = own.union(*(sets[c] for c in children)) if children else own
    return sets[e]


def refine(masks: Iterable[int]) -> List[int]:
    """The coarsest partition of the 256 bytes that every mask in `masks` respects, its
    classes in the order of their lowest byte (whatever order the masks come in).

    A one-byte mask makes its byte a class of its own, whatever the other masks are: those
    classes are set aside first, and only the other masks split the rest (a union of
    literal keys is mostly one-byte masks).

    >>> [bin(c) for c in refine([0b0110, 0b0100, 0b1100])] == [bin(c) for c in
    ...     [ALL_BYTES & ~0b1110, 0b0010, 0b0100, 0b1000]]
    True
    """
    singles = 0
    rest = []
    for m in masks:
        if m & (m - 1):
            rest.append(m)
        else:
            singles |= m
    whole = ALL_BYTES & ~singles
    classes = [whole] if whole else []
    for m in {m & whole for m in rest} - {0, whole}:  # each distinct split once
        refined = []
        for c in classes:
            inside, outside = c & m, c & ~m
            if inside:
                refined.append(inside)
            if outside:
                refined.append(outside)
        classes = refined
    while singles:
        low = singles & -singles
        classes.append(low)
        singles ^= low
    return sorted(classes, key=lambda c: c & -c)


def lowest_byte(mask: int) -> int:
    """The lowest byte of a non-empty byte set: a class's representative."""
    return (mask & -mask).bit_length() - 1


def covered_bytes(es: ExprSet, e: int) -> int:
    """The bytes some byte set of e holds (a mask), the union of `byte_sets(es, e)`; the
    bytes outside it are one class of e's partition.

    Where e has no complement, those bytes are *dead*: d(x, b) = ∅ for every derivative x
    of e. Not so under a complement: d(¬r, b) = ¬∅ = Σ* for a byte r never reads (and Σ*,
    which is ¬∅, holds no byte set at all)."""
    covered = 0
    for m in byte_sets(es, e):
        covered |= m
    return covered
