"""Emptiness, containment and forced bytes, decided by exploring derivatives.

Without intersection and complement, the smart constructors guarantee that an expression
denotes the empty language only if it *is* ∅. With them, `a*&~(a*)` is a non-∅ node with
an empty language, and emptiness must be decided by search: L(e) is non-empty iff some
derivative reachable from e is nullable. The derivatives reachable from e are finitely many
up to the normal form of exprs.py (Brzozowski's theorem), but possibly very many, so every
question here takes a `fuel` budget (the number of derivative states it may visit) and
answers None — "unknown" — when it runs out. Never a wrong answer.

Bytes that every byte set of e treats alike give the same derivative, so the search only
tries one representative byte per byte class of e (classes.py): usually a handful
instead of 256.

>>> from refimpl.regex.exprs import ExprSet
>>> es = ExprSet()
>>> a_star = es.star(es.literal(b"a"))
>>> is_empty(es, es.intersection(a_star, es.complement(a_star)))
True
>>> is_contained(es, es.literal(b"aa"), a_star), is_contained(es, a_star, es.literal(b"aa"))
(True, False)
"""
from __future__ import annotations

from collections import deque
from typing import Dict, List, Optional, Tuple

from ..errors import LimitError
from .classes import byte_classes, byte_sets, covered_bytes, lowest_byte
from .derivative import derivative
from .exprs import ALL_BYTES, ExprSet


def is_empty(es: ExprSet, e: int, fuel: Optional[int] = None) -> Optional[bool]:
    """Is L(e) empty? True, False, or None when `fuel` states did not suffice.

    Decided answers are kept in `es.caches[is_empty]`, for e and for the other states the
    search explored (the probe's path, the states that reach a witness, or all of them)."""
    if not es.has_boolean[e]:
        return e == es.NOTHING
    emptiness: Dict[int, bool] = es.caches[is_empty]
    known = emptiness.get(e)
    if known is not None:
        return known
    if fuel is None:
        fuel = es.limits.relevance_fuel
    probed = _probe(es, e, _candidates(es, e), min(PROBE, fuel))
    if probed < 0:
        return False
    fuel -= probed  # the probe's states count against the fuel
    representatives = [lowest_byte(c) for c in byte_classes(es, e)]  # also for every derivative
    seen = {e}
    parents: Dict[int, List[int]] = {}  # explored state -> the states it was reached from
    # breadth first: a non-empty language shows a shortest witness soonest (depth first
    # could follow a counter such as `.{1,65536}` & `uri` 10,000 states deep)
    queue = deque([e])
    while queue:
        x = queue.popleft()  # never ∅: ∅ is not queued
        known = emptiness.get(x)
        if known is True:
            continue
        if known is False or es.nullable(x) or not es.has_boolean[x]:
            _mark_non_empty(es, x, parents)
            return False
        fuel -= 1
        if fuel < 0:
            return None
        for b in representatives:
            d = derivative(es, x, b)
            if d != es.NOTHING:
                parents.setdefault(d, []).append(x)
                if d not in seen:
                    seen.add(d)
                    queue.append(d)
    for x in seen:  # every state reachable from an empty one is empty too
        emptiness[x] = True
    return True


PROBE = 24  # states a depth-first probe for a witness visits before the search


def _candidates(es: ExprSet, e: int) -> List[int]:
    """Bytes for the probe to try: the lowest of each byte set of e and of the bytes in
    none. Not every class of e's partition has one (`[a-z]&~a` needs a byte other than
    `a`), but a probe needs no completeness: it only looks for a witness, and the search
    after it tries every class. Cheaper than the partition, which a probe that succeeds
    never needs."""
    bytes_ = {lowest_byte(m) for m in byte_sets(es, e)}
    covered = covered_bytes(es, e)
    if covered != ALL_BYTES:
        bytes_.add(lowest_byte(ALL_BYTES & ~covered))
    return sorted(bytes_)


def _probe(es: ExprSet, e: int, representatives: List[int], budget: int) -> int:
    """Look for a word of L(e) depth first along one path of at most `budget` states —
    by the first of the bytes given whose derivative is known to be non-empty (nullable,
    free of & and ~, or found so before), else the first new one that is not ∅ — and
    remember the path as non-empty if one is found: -1 then, else the states visited.
    Most lexeme states the lexer asks about are a byte or two from a word (a key's
    closing quote), which the breadth-first search reaches only after every class of
    every level before."""
    emptiness: Dict[int, bool] = es.caches[is_empty]
    path = [e]
    on_path = {e}
    x = e
    while len(path) <= budget:
        if es.nullable(x) or emptiness.get(x) is False or not es.has_boolean[x]:
            for y in path:
                emptiness[y] = False
            return -1
        nxt = -1
        for b in representatives:
            d = derivative(es, x, b)
            if d == es.NOTHING or d in on_path or emptiness.get(d) is True:
                continue
            if es.nullable(d) or not es.has_boolean[d] or emptiness.get(d) is False:
                nxt = d  # known non-empty: the next round ends the probe
                break
            if nxt < 0:
                nxt = d
        if nxt < 0:
            break
        x = nxt
        path.append(x)
        on_path.add(x)
    return len(path)


def _mark_non_empty(es: ExprSet, witness: int, parents: Dict[int, List[int]]) -> None:
    """`witness` has a non-empty language: so has every explored state that reaches it.
    Kept in is_empty's cache, later questions about them (the lexer asks of each
    derivative its input reaches, mostly states this search went through) are answered at
    once."""
    emptiness: Dict[int, bool] = es.caches[is_empty]
    stack = [witness]
    while stack:
        x = stack.pop()
        if emptiness.get(x) is False and x != witness:
            continue
        emptiness[x] = False
        stack.extend(p for p in parents.get(x, ()) if emptiness.get(p) is not False)


def check_empty(es: ExprSet, e: int, fuel: Optional[int] = None) -> bool:
    """`is_empty` for callers that need certainty: LimitError when fuel runs out."""
    answer = is_empty(es, e, fuel)
    if answer is None:
        limit = es.limits.relevance_fuel if fuel is None else fuel
        raise LimitError("relevance_fuel", limit, "deciding whether a regex can still match")
    return answer


def is_contained(es: ExprSet, a: int, b: int, fuel: Optional[int] = None) -> Optional[bool]:
    """Is L(a) ⊆ L(b)? Decided as emptiness of a & ¬b; None when fuel runs out."""
    return is_empty(es, es.intersection(a, es.complement(b)), fuel)


def forced_bytes(es: ExprSet, e: int, fuel: Optional[int] = None) -> bytes:
    """The bytes every word of L(e) starts with (empty if e is nullable or branches).

    A byte is forced when exactly one byte has a non-empty derivative. Where emptiness is
    unknown (fuel), forcing stops early: the answer is then a correct, shorter prefix.

    >>> from refimpl.regex.exprs import ExprSet
    >>> es = ExprSet()
    >>> forced_bytes(es, es.concat(es.literal(b"ab"), es.byte_set(0b11 << 99)))
    b'ab'
    """
    out = bytearray()
    while not es.nullable(e):
        live = []
        for c in byte_classes(es, e):
            d = derivative(es, e, lowest_byte(c))
            empty = is_empty(es, d, fuel)
            if empty is None:
                return bytes(out)
            if not empty:
                live.append((c, d))
        if len(live) != 1 or live[0][0] & (live[0][0] - 1):
            break
        out.append(lowest_byte(live[0][0]))
        e = live[0][1]
    return bytes(out)


def prefixes_contain(es: ExprSet, a: int, b: int, fuel: Optional[int] = None) -> Optional[bool]:
    """Is every word of L(a) a prefix of some word of L(b)? None when fuel runs out.

    Explores pairs (d_w(a), d_w(b)) over words w, from (a, b): the answer is no as soon as
    some w takes a to a non-empty language (w extends to a word of L(a)) and b to an empty
    one (no word of L(b) starts with w). The token-trie slicer asks this of a slice (a
    regex every token of the slice matches) and a live lexeme: if yes, every token of the
    slice keeps that lexeme alive, and the whole slice is allowed without walking it.

    >>> from refimpl.regex.exprs import ExprSet
    >>> es = ExprSet()
    >>> word = es.plus(es.byte_range(ord("a"), ord("z")))
    >>> three = es.repeat(es.byte_range(ord("a"), ord("c")), 1, 3)
    >>> prefixes_contain(es, three, word), prefixes_contain(es, word, three)
    (True, False)
    >>> prefixes_contain(es, three, es.repeat(es.byte_range(ord("a"), ord("z")), 0, 2))
    False
    """
    if fuel is None:
        fuel = es.limits.relevance_fuel
    if is_empty(es, a, fuel):
        return True
    cache: Dict[Tuple[int, int], bool] = es.caches[prefixes_contain]
    known = cache.get((a, b))
    if known is not None:
        return known
    representatives = [lowest_byte(c) for c in byte_classes(es, es.concat(a, b))]
    seen = {(a, b)}
    stack = [(a, b)]
    answer: Optional[bool] = True
    while stack:
        x, y = stack.pop()
        empty = is_empty(es, y, fuel)
        if empty is None:
            return None
        if empty:
            answer = False  # x is non-empty here: some word of L(a) leaves L(b)'s prefixes
            break
        fuel -= 1
        if fuel < 0:
            return None
        for byte in representatives:
            dx = derivative(es, x, byte)
            dx_empty = is_empty(es, dx, fuel)
            if dx_empty is None:
                return None
            if dx_empty:
                continue
            pair = (dx, derivative(es, y, byte))
            if pair not in seen:
                seen.add(pair)
                stack.append(pair)
    if answer is not None:
        cache[(a, b)] = answer
    return answer
