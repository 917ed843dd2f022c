"""A switch: the kids of one `allOf` looked up by the discriminator words their `if`s name,
so that a flattening passes over the kids its context excludes without examining them.

SchemaStore's utcm-monitor selects the schema of an object by its required
`resourceType` through 270 kids `{"if": {"properties": {"resourceType": {"const": c_i}}},
"then": ...}`. Distributing them is a chain of conjunctions (kind c_k, or not c_k and the
rest, containers.py), and conjunction k knows `resourceType` is c_k: every kid after k
holds vacuously there (its `if` is false, it has no `else`). Examining each of them
cost a disjointness proof (disjoint.py): n²/2 proofs in all. A kid

    {"if": I, "then": T}    (no `else`, nothing else that constrains)

where I gives property p a schema whose values are the strings W (a `const` or an
`enum` of strings) is a *case* (p, W). In a context that requires p and whose schemas of
p allow no string outside W_ctx (the words of one of them, disjoint.py), a case with
W ∩ W_ctx = ∅ holds vacuously: p is present, its value is in W_ctx, so I fails, and
without `else` the kid asks nothing. Such kids are left out — the language is the same
(A ∧ (¬I ∨ T) = A when A ∧ I = ∅). Its table lists, per p and per word, the kids whose
case names it: the next kid that may matter is found by a bisection per word of W_ctx,
so conjunction k of the chain costs O(|W_ctx| log n) for the rest of the kids, not n − k
proofs.

>>> s = Switch([1, 2, 3, 4], [("kind", frozenset([b"a"])), ("kind", frozenset([b"b"])), None,
...                          ("kind", frozenset([b"a", b"c"]))])
>>> [s.next_live(i, lambda p: frozenset([b"a"])) for i in range(5)]
[0, 2, 2, 3, 4]
>>> [s.next_live(i, lambda p: None) for i in range(5)]
[0, 1, 2, 3, 4]
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from ...errors import SchemaError
from .compilation import Compilation
from .disjoint import Disjointness
from .subschemas import trivial

#: a kid's case: the property its `if` names and the strings it allows there
Case = Optional[Tuple[str, FrozenSet[bytes]]]


class Switch:
    """The kids (nodes) of one allOf, and per kid its case or None (any other kid)."""

    __slots__ = ("kids", "_others", "_cases", "_words")

    def __init__(self, kids: List[int], cases: List[Case]) -> None:
        self.kids = kids
        self._others = [i for i, c in enumerate(cases) if c is None]
        #: per property: every kid with a case on it, and those per word
        self._cases: Dict[str, List[int]] = {}
        self._words: Dict[str, Dict[bytes, List[int]]] = {}
        for i, case in enumerate(cases):
            if case is not None:
                p, words = case
                self._cases.setdefault(p, []).append(i)
                by_word = self._words.setdefault(p, {})
                for w in words:
                    by_word.setdefault(w, []).append(i)

    def next_live(self, i: int, live_words: Callable[[str], Optional[FrozenSet[bytes]]]) -> int:
        """The first kid from i on that the context may not make vacuous (len(kids) if
        none). `live_words(p)`: the strings p can take in the context if it is required
        and they are known to be finite, else None."""
        best = _first(self._others, i, len(self.kids))
        for p, kids in self._cases.items():
            words = live_words(p)
            if words is None:
                best = _first(kids, i, best)
                continue
            by_word = self._words[p]
            if len(words) <= len(by_word):
                lists = [by_word[w] for w in words if w in by_word]
            else:
                lists = [ks for w, ks in by_word.items() if w in words]
            for ks in lists:
                best = _first(ks, i, best)
        return best

    def next_other(self, i: int) -> int:
        """The first kid from i on that is not a case (len(kids) if none)."""
        return _first(self._others, i, len(self.kids))


class Switches:
    """The switch of each allOf a flattening meets, made once per node."""

    def __init__(self, comp: Compilation, disjoint: Disjointness) -> None:
        self.subschemas = comp.subschemas
        self.disjoint = disjoint
        self._switches: Dict[int, Switch] = {}

    def of(self, n: int) -> Switch:
        """The kids of node n's allOf, filed by their cases."""
        got = self._switches.get(n)
        if got is None:
            kids = self.subschemas.list_of(n, "allOf")
            got = self._switches[n] = Switch(kids, [self._case(c) for c in kids])
        return got

    def _case(self, c: int) -> Case:
        """(p, W) if node c is `{"if": I, "then": ...}` — no `else`, no other keyword that
        constrains — and I gives property p a `const`/`enum` of the strings W."""
        subschemas = self.subschemas
        v = subschemas.value(c)
        if not isinstance(v, dict) or "if" not in v or "else" in v:
            return None
        if not trivial({k: x for k, x in v.items() if k not in ("if", "then")}):
            return None
        try:
            facts = self.disjoint.object_facts(subschemas.child(c, v["if"]))
        except SchemaError:  # reported where the schema is compiled, if it is
            return None
        for p, nodes in facts.properties.items():
            for m in nodes:
                words = self.disjoint.string_words(m)
                if words is not None:
                    return p, words
        return None


def _first(sorted_kids: List[int], i: int, best: int) -> int:
    """The least of `best` and the first of `sorted_kids` from i on."""
    j = bisect_left(sorted_kids, i)
    return sorted_kids[j] if j < len(sorted_kids) and sorted_kids[j] < best else best
