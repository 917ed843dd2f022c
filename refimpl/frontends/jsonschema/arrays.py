"""Containers, step two for arrays: the layout of a leaf conjunction, `[` items `]`, each
item the conjunction of the subschemas that apply at its position (prefixItems, items,
unevaluatedItems), with minItems/maxItems as counted repetitions and contains /
minContains / maxContains as states counting the matching items.

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "maxItems": 3})
>>> nt = c.comp.ir.add_nonterminal("json[]")
>>> c.arrays.layout([Atom(c.comp.subschemas.root, False, ())], nt)
>>> print(c.comp.ir.to_text(), end="")
json[]: "[" "]"
 | "[" json/prefixItems/0 json[],*{0,2} "]"
json[],*: "," json/items
json[],*{0,2}: json[],*?
 | json[],*{2}
json[],*?: json[],*
 | ""
json[],*{2}: json[],* json[],*
"""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

from ...grammar.repetition import repeat
from .compilation import Atom, Compilation, Reason
from .lexemes import Lexemes
from .nonterminals import Nonterminals
from .subschemas import trivial


class _Shape(NamedTuple):
    """What one atom says of the items: schemas by position, then for the rest."""

    atom: Atom
    prefix: List[int]
    rest: Optional[int]


class Contains(NamedTuple):
    """A counted `contains`: its schema and the bounds on the matching items."""

    schema: int
    lo: int
    hi: Optional[int]


class _Late(NamedTuple):
    """unevaluatedItems: from position `first` on, items must also satisfy `schema`."""

    first: int
    schema: int


class ArrayItems(NamedTuple):
    """The subschemas of each item position of a leaf array conjunction."""

    shapes: List[_Shape]
    late: List[_Late]
    length: int  # positions before the tail

    def position(self, i: Optional[int]) -> List[Atom]:
        """The atoms item i must satisfy (None: any item of the tail, i >= length)."""
        out: List[Atom] = []
        for _, prefix, rest in self.shapes:
            if i is not None and i < len(prefix):
                out.append(Atom(prefix[i], False, ()))
            elif rest is not None:
                out.append(Atom(rest, False, ()))
        for first, c in self.late:
            if i is None or i >= first:
                out.append(Atom(c, False, ()))
        return out


class Arrays:
    """Leaf array conjunctions as rules."""

    def __init__(self, comp: Compilation, nonterminals: Nonterminals, lexemes: Lexemes) -> None:
        self.comp = comp
        self.ir = comp.ir
        self.subschemas = comp.subschemas
        self.nonterminals = nonterminals
        self.lexemes = lexemes
        self._sep_items: Dict[int, int] = {}

    def layout(self, atoms: List[Atom], nt: int) -> None:
        """The rules of `nt`, the arrays satisfying the leaf conjunction `atoms`."""
        shapes: List[_Shape] = []
        counted: List[Contains] = []
        contains_of: Dict[int, List[int]] = {}
        lo, hi = 0, None
        for atom in atoms:
            shapes.append(self._shape(atom))
            n = atom.node
            v = self.subschemas.value(n)
            a = self.subschemas.count(n, "minItems")
            b = self.subschemas.count(n, "maxItems")
            if a is not None:
                lo = max(lo, a)
            if b is not None:
                hi = b if hi is None else min(hi, b)
            if "contains" in v:
                c = self.subschemas.child(n, v["contains"])
                contains_of.setdefault(n, []).append(c)
                mn = self.subschemas.count(n, "minContains")
                mx = self.subschemas.count(n, "maxContains")
                mn = 1 if mn is None else mn
                if mn > 0 or mx is not None:
                    counted.append(Contains(c, mn, mx))
        for atom in atoms:
            if self.subschemas.flag(atom.node, "uniqueItems") and (hi is None or hi > 1):
                self.comp.unsupported("uniqueItems", self.subschemas.pointer(atom.node, "uniqueItems"),
                                      "the items of an array being distinct is not a context-free property")
        if hi is not None and lo > hi:
            self.comp.nonterminal_reasons.setdefault(nt, Reason("minItems (%d) is greater than maxItems (%d)" % (lo, hi),
                                                                self.subschemas.pointer(atoms[0].node) if atoms else ""))
            return
        length = max([len(s.prefix) for s in shapes] + [0])
        items = ArrayItems(shapes, self._late_items(shapes, contains_of), length)
        sep = self.lexemes.separator("item_separator")
        open_, close = self.lexemes.literal("["), self.lexemes.literal("]")
        if counted:
            self._counted(nt, items, lo, hi, counted, sep, open_, close)
        else:
            self._plain(nt, items, lo, hi, sep, open_, close)

    def _shape(self, atom: Atom) -> _Shape:
        n = atom.node
        v = self.subschemas.value(n)
        items = v.get("items")
        if isinstance(items, list):
            prefix = [self.subschemas.child(n, x) for x in items]
            rest = self.subschemas.child(n, v["additionalItems"]) if "additionalItems" in v else None
        else:
            prefix = self.subschemas.list_of(n, "prefixItems") if "prefixItems" in v else []
            rest = self.subschemas.child(n, items) if "items" in v else None
        return _Shape(atom, prefix, rest)

    def _late_items(self, shapes: List[_Shape], contains_of: Dict[int, List[int]]) -> List[_Late]:
        """unevaluatedItems: items no subschema of its scope evaluated must satisfy it."""
        late: List[_Late] = []
        for atom, _, _ in shapes:
            n = atom.node
            v = self.subschemas.value(n)
            if "unevaluatedItems" not in v or trivial(v["unevaluatedItems"]):
                continue
            scope = [s for s in shapes if s.atom.node == n or n in s.atom.scope]
            if any(s.rest is not None or (s.atom.node != n and "unevaluatedItems" in self.subschemas.value(s.atom.node))
                   for s in scope):
                continue
            first = max([len(s.prefix) for s in scope] + [0])
            u = self.subschemas.value(self.subschemas.child(n, v["unevaluatedItems"]))
            cs = [self.subschemas.value(c) for s in scope for c in contains_of.get(s.atom.node, [])]
            late.append(_Late(first, self.subschemas.child(n, v["unevaluatedItems"]) if not cs else
                              self.subschemas.synth({"anyOf": [u] + cs}, n, "unevaluatedItems")))
        return late

    def _plain(self, nt: int, positions: ArrayItems, lo: int, hi: Optional[int],
                      sep: int, open_: int, close: int) -> None:
        """`[` item (`,` item)* `]` with the item schemas by position and the counts."""
        L = positions.length
        items = [self.nonterminals.value(positions.position(i)) for i in range(L)]
        tail = self.nonterminals.value(positions.position(None))
        sep_tail = self._sep_items.get(tail)
        if sep_tail is None:  # `, item`: one per item schema, shared by the arrays using it
            sep_tail = self._sep_items[tail] = self.ir.add_nonterminal(self.ir.names[nt] + ",*")
            self.ir.add_rule(sep_tail, (sep, tail))
        rest: Dict[int, Optional[Tuple[int, ...]]] = {}
        for k in range(max(L, 1), 0, -1):  # rest[k]: the items from position k on, each after sep
            if k >= L:
                a = max(0, lo - k)
                b = None if hi is None else hi - k
                rest[k] = None if b is not None and b < a else (repeat(self.ir, sep_tail, a, b),)
                continue
            here = self.ir.add_nonterminal("%s@%d" % (self.ir.names[nt], k))
            if k >= lo and (hi is None or k <= hi):
                self.ir.add_rule(here, ())
            nxt = rest[k + 1]
            if (hi is None or k < hi) and nxt is not None:
                self.ir.add_rule(here, (sep, items[k]) + nxt)
            rest[k] = (here,)
        if lo == 0:
            self.ir.add_rule(nt, (open_, close))
        first = items[0] if L > 0 else tail
        after_first = rest[1]
        if (hi is None or hi >= 1) and after_first is not None:
            self.ir.add_rule(nt, (open_, first) + after_first + (close,))

    def _counted(self, nt: int, items: ArrayItems, lo: int, hi: Optional[int],
                       counted: List[Contains], sep: int, open_: int, close: int) -> None:
        """Arrays with contains / minContains / maxContains: states count the items that
        match each `contains` schema (every item either matches it or matches its `not`)."""
        if len(counted) > 4:
            self.comp.unsupported("contains", self.subschemas.pointer(counted[0].schema),
                                  "more than 4 contains constraints on one array")
            counted = counted[:4]
        J = len(counted)
        counting = _Counting(counted, [(mx + 1) if mx is not None else mn for _, mn, mx in counted],
                             lo, hi, max(items.length, lo))
        item_nts: Dict[Tuple[Optional[int], int], int] = {}

        def item(i: int, mask: int) -> int:
            cls = i if i < items.length else None
            got = item_nts.get((cls, mask))
            if got is None:
                atoms = items.position(cls) + [Atom(c, not (mask >> j) & 1, ()) for j, (c, _, _) in enumerate(counted)]
                got = item_nts[(cls, mask)] = self.nonterminals.value(atoms)
            return got

        states: Dict[_Count, int] = {}
        todo: List[_Count] = []

        def state(key: _Count) -> int:
            got = states.get(key)
            if got is None:
                got = states[key] = self.ir.add_nonterminal("%s@%d%s" % (self.ir.names[nt], key.items, list(key.counts)))
                todo.append(key)
            return got

        zeros = _Count(0, tuple(0 for _ in counted))
        if counting.accept(zeros):
            self.ir.add_rule(nt, (open_, close))
        if hi is None or hi >= 1:
            for mask in range(1 << J):
                nxt = counting.advance(zeros, mask)
                if nxt is not None:
                    self.ir.add_rule(nt, (open_, item(0, mask), state(nxt), close))
        while todo:
            key = todo.pop()
            s = states[key]
            if counting.accept(key):
                self.ir.add_rule(s, ())
            if hi is None or key.items < hi:
                for mask in range(1 << J):
                    nxt = counting.advance(key, mask)
                    if nxt is not None:
                        self.ir.add_rule(s, (sep, item(key.items, mask), state(nxt)))


class _Count(NamedTuple):
    """A state of a counted array: items read (saturated when unbounded) and, for each
    `contains`, the matching items (capped)."""

    items: int
    counts: Tuple[int, ...]


class _Counting(NamedTuple):
    """The counting of a counted array: the contains bounds, caps, and the item bounds."""

    counted: List[Contains]
    caps: List[int]
    lo: int
    hi: Optional[int]
    saturate: int

    def accept(self, state: _Count) -> bool:
        """May the array end here?"""
        return state.items >= self.lo and all(state.counts[j] >= mn and (mx is None or state.counts[j] <= mx)
                                              for j, (_, mn, mx) in enumerate(self.counted))

    def advance(self, state: _Count, mask: int) -> Optional[_Count]:
        """The state after an item matching the contains schemas of `mask` (None: too many)."""
        new = []
        for j, (_, _, mx) in enumerate(self.counted):
            c = state.counts[j] + ((mask >> j) & 1)
            if mx is not None and c > mx:
                return None
            new.append(min(c, self.caps[j]))
        i = state.items + 1
        if self.hi is None:
            i = min(i, self.saturate)
        return _Count(i, tuple(new))
